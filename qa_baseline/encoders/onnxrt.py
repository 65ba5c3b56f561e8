"""Encoders run by onnxruntime: a model.onnx + tokenizer.json folder as a bi-encoder (kind `onnx`) or a
cross-encoder (kind `onnx-cross`), and sentence-transformers models exported to ONNX (`engine: onnx`)."""
import os
from typing import Any

import numpy as np

from ..core.errors import UserError
from ..core.process import device, threads
from ..core.versions import dist_version
from .base import Encoder, in_batches, require
from .onnx_export import export_onnx


class OnnxModel:
    """model.onnx + tokenizer.json run with onnxruntime on the CPU (or on DEVICE cuda[:N], which needs
    onnxruntime-gpu); texts or (a, b) pairs in, outputs[0] out. PADDING: the tokenizer's pad token (default
    id 0, [PAD]). ONE_PER_CALL (a caller that runs one item per call): `workers` = process.threads() calls side
    by side, one onnxruntime thread each (CrossEncoder's docstring); else one call at a time on them all."""

    def __init__(self, name: str, folder: str, max_length: int = 512, padding: dict[str, Any] | None = None,
                 device: str = "cpu", one_per_call: bool = False) -> None:
        self.workers = threads() if one_per_call else 1
        onnxruntime = require(name, "onnxruntime", "onnxruntime and tokenizers")
        Tokenizer = require(name, "tokenizers", "onnxruntime and tokenizers").Tokenizer
        onnxruntime.disable_telemetry_events()  # and ORT_DISABLE_TELEMETRY, set in qa_baseline/__init__.py
        model, tok = os.path.join(folder, "model.onnx"), os.path.join(folder, "tokenizer.json")
        for path in (model, tok):
            if not os.path.isfile(path):
                raise UserError(f"encoder {name}: {path} not found")
        self.tokenizer = Tokenizer.from_file(tok)
        self.tokenizer.enable_truncation(int(max_length))
        self.tokenizer.enable_padding(**(padding or {}))
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads, opts.inter_op_num_threads = 1 if self.workers > 1 else threads(), 1
        providers: list[Any] = ["CPUExecutionProvider"]
        if device.startswith("cuda"):
            if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
                raise UserError(f"encoder {name}: QA_BASELINE_DEVICE={device} needs onnxruntime-gpu (this "
                                f"onnxruntime has {', '.join(onnxruntime.get_available_providers())})")
            providers.insert(0, ("CUDAExecutionProvider", {"device_id": int(device.partition(":")[2] or 0)}))
        self.session = onnxruntime.InferenceSession(model, opts, providers=providers)
        self.inputs = {i.name for i in self.session.get_inputs()}

    def run(self, batch: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        """(outputs[0], attention mask) of BATCH, texts or (a, b) pairs."""
        enc = self.tokenizer.encode_batch(batch)
        feeds = {"input_ids": [e.ids for e in enc], "attention_mask": [e.attention_mask for e in enc],
                 "token_type_ids": [e.type_ids for e in enc]}
        arrays = {k: np.array(v, dtype=np.int64) for k, v in feeds.items() if k in self.inputs}
        return self.session.run(None, arrays)[0], arrays["attention_mask"]


class OnnxEncoder(Encoder):
    """A model.onnx bi-encoder; with `batch_size: 1` (an int8 model whose vectors depend on their batch-mates,
    as bge-small's: CrossEncoder's docstring) the one-text calls run side by side as CrossEncoder's do."""

    def __init__(self, name: str, cfg: dict[str, Any]) -> None:
        self.model = OnnxModel(name, cfg["path"], cfg.get("max_length", 512),
                               one_per_call=int(cfg.get("batch_size") or 0) == 1)
        self.workers = self.model.workers
        self.pooling, self.normalize = cfg.get("pooling", "mean"), bool(cfg.get("normalize", True))
        if self.pooling not in ("cls", "mean", "none"):
            raise UserError(f"encoder {name}: pooling must be cls, mean or none (the graph pools), "
                            f"not {self.pooling!r}")
        super().__init__(name, cfg)

    def _encode(self, texts: list[str], kind: str) -> np.ndarray:
        hidden, mask = self.model.run(texts)
        if self.pooling == "none":
            return hidden
        if self.pooling == "cls":
            return hidden[:, 0]
        weights = mask[:, :, None].astype(np.float32)
        return (hidden * weights).sum(1) / np.maximum(weights.sum(1), 1e-9)

    def versions(self) -> dict[str, str | None]:
        return {d: dist_version(d) for d in ("onnxruntime", "tokenizers")}


class STOnnxEncoder(OnnxEncoder):
    """A sentence-transformers model run by onnxruntime (`engine: onnx` in its config): exported once by
    export_onnx. The graph ends with the model's own pooling (and normalisation), so texts map to sentence
    embeddings with the same tokenizer, truncation (max_seq_length) and pooling as SentenceTransformer.encode.

    On the CPU, fp32 (or the config's `precision: int8`), each text alone in its model call (`alone`), the
    batches encoded side by side on process.threads() Python threads, one onnxruntime thread each (OnnxModel's
    one_per_call): no padding, one text's activations stay in the core's cache, and a text's vector is a
    function of the text alone, not of its batch-mates, batch size, shard or thread count. For all-MiniLM-L6-v2
    on 2 AVX2 cores that took half the CPU per passage of batches of 32 on two intra-op threads, whose
    char-sorted batches were 27% padding and whose activations (~30 MB a batch) did not fit in cache
    (bench/dense_encode.py, its onnx and onnx-b32 rows). On a GPU (QA_BASELINE_DEVICE=cuda, needs
    onnxruntime-gpu) fp16 in length-sorted batches."""

    PRECISIONS = ("fp32", "int8")  # a config's `precision` (fp16: chosen on a GPU)

    def __init__(self, name: str, cfg: dict[str, Any]) -> None:
        self.device = device()
        gpu = self.device.startswith("cuda")
        self.precision = str(cfg.get("precision") or ("fp16" if gpu else "fp32"))
        if self.precision not in self.PRECISIONS and not (gpu and self.precision == "fp16"):
            raise UserError(f"encoder {name}: precision must be {' or '.join(self.PRECISIONS)}, not "
                            f"{self.precision!r} (fix: one of these, or none: fp32 on the CPU, fp16 on a GPU)")
        folder, meta = export_onnx(name, cfg, self.precision)
        self.alone = not gpu or self.precision == "int8"  # int8: activations scaled per call, so alone too
        self.model = OnnxModel(name, folder, meta["max_length"], meta["padding"], self.device, self.alone)
        self.workers, self.pooling, self.normalize = self.model.workers, "none", True
        Encoder.__init__(self, name, cfg)

    def _encode(self, texts: list[str], kind: str) -> np.ndarray:
        if not self.alone:
            return self.model.run(texts)[0]
        return np.vstack([self.model.run([text])[0] for text in texts])

    def spec(self) -> dict[str, Any]:
        return {**super().spec(), "precision": self.precision}

    def versions(self) -> dict[str, str | None]:
        return {d: dist_version(d) for d in ("onnxruntime", "tokenizers", "torch", "onnx")}


class CrossEncoder:
    """(question, passage) pairs -> relevance logits: an onnx-cross encoder (encoders.load_cross_encoder).

    One pair per model call by default (BATCH): the shipped ms-marco model is int8 with dynamic quantisation,
    which scales a call's activations by their range over the whole batch (padding included), so in batches
    of 32 a pair's logit moved by up to 0.84 with the pairs beside it (a question's score depended on the
    other questions of the file); alone, it is a function of the pair only. On the CPU that costs little:
    87 pairs/s against 42 in length-sorted batches of 32 for MCQA's 600-character passages (no padding), 333
    against 372 for WikiQA's short sentences. One-pair calls run side by side on process.threads() Python
    threads, one onnxruntime thread each (onnxruntime releases the GIL; one short pair does not split well over
    threads): the same logits, on 2 threads 1.16x the pairs/s of one call at a time for WikiQA, 1.4x for MCQA."""

    BATCH = 1

    def __init__(self, name: str, cfg: dict[str, Any], batch_size: int = BATCH) -> None:
        self.name, self.batch_size = name, batch_size
        self.model = OnnxModel(name, cfg["path"], cfg.get("max_length", 512), one_per_call=batch_size == 1)
        self.workers = self.model.workers

    def score(self, pairs: list[tuple[str, str]], bar: Any = None) -> np.ndarray:
        """float32 logits, one per (question, passage) pair, in input order (length-sorted batches inside); BAR
        (a tqdm) is advanced by each batch's size."""
        out = np.zeros(len(pairs), dtype=np.float32)
        order = sorted(range(len(pairs)), key=lambda i: -len(pairs[i][0]) - len(pairs[i][1]))
        return in_batches(order, self.batch_size, lambda idx: self.model.run([tuple(pairs[i]) for i in idx])[0][:, 0],
                          out, bar, self.workers)
