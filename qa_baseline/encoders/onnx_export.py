"""The ONNX export of a sentence-transformers model (`engine: onnx`), made once per model, precision and engine
versions into the cache (cache_root()/onnx/KEY), under a lock: one export per machine even with several
workers."""
import hashlib
import json
import logging
import os
import shutil
import sys
import warnings
from typing import Any

from ..core.errors import UserError
from ..core.fileio import build_dir, cache_root, locked, read_json, replace_dir, sha256_file, write_json
from ..core.process import threads
from ..core.versions import dist_version
from .base import missing
from .pytorch import quiet_loading

EXPORT_FORMAT = 1  # bump when export_onnx writes a different graph for the same model
SKIPPED = ("onnx", "openvino", "README.md")  # model-folder entries that do not decide the PyTorch model


def model_folder(name: str, path: str) -> str:
    """The local folder of a sentence-transformers model given as a folder or a cached model id."""
    if os.path.isdir(path):
        return path
    try:
        from huggingface_hub import snapshot_download
        return snapshot_download(path, local_files_only=True)
    except Exception:  # not in the local cache (never downloaded: HF_HUB_OFFLINE)
        raise UserError(f"encoder {name}: {path} is neither a folder nor a model in the local cache") from None


def model_checksum(folder: str) -> str:
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


def export_onnx(name: str, cfg: dict[str, Any], precision: str) -> tuple[str, dict[str, Any]]:
    """(folder, export.json) of the ONNX export of a sentence-transformers model: model.onnx (the whole
    model: transformer, pooling, dense layers, normalisation -> sentence embedding), tokenizer.json and
    export.json, in cache_root()/onnx/KEY. KEY is a checksum of the model's files (model_checksum), the
    precision, `max_length` and the versions of torch, onnx and onnxruntime, so a changed model or engine
    gets a fresh export. Made once (under the lock KEY.lock, fileio.locked: one export per machine even with
    several workers): torch.onnx.export of the model loaded with eager attention, then onnxruntime's
    transformer optimizer (attention, layer-norm and GELU fusion); fp16: converted with float32 inputs/outputs;
    int8: the fused fp32 graph quantised by onnxruntime's quantize_dynamic (int8 weights per output channel in
    7 bits, for CPUs without VNNI; activations scaled per model call)."""
    folder = model_folder(name, cfg["path"])
    spec = {"format": EXPORT_FORMAT, "model": model_checksum(folder), "precision": precision,
            "max_length": cfg.get("max_length"), **{d: dist_version(d) for d in ("torch", "onnx", "onnxruntime")}}
    key = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:24]
    out = os.path.join(cache_root(), "onnx", key)
    meta = read_json(os.path.join(out, "export.json"))
    if meta:
        return out, meta
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with locked(out + ".lock", f"{out}: another process is exporting encoder {name} to ONNX"):
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


def _export(name: str, folder: str, cfg: dict[str, Any], precision: str, tmp: str) -> dict[str, Any]:
    try:
        import onnx  # noqa: F401  (torch.onnx.export and the optimizer need it)
        import torch
        from onnxruntime.transformers import optimizer
        from sentence_transformers import SentenceTransformer
    except ImportError as e:
        raise missing(name, f"{e.name} (for the ONNX export)") from None
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
        def __init__(self, model) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs):
            return self.model(dict(zip(names, inputs)))["sentence_embedding"]

    raw = os.path.join(tmp, "raw.onnx")
    axes: dict[str, dict[int, str]] = {**{k: {0: "batch", 1: "tokens"} for k in names}, "sentence_embedding": {0: "batch"}}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on shape-dependent Python branches (constant here)
        torch.onnx.export(Graph(st).eval(), tuple(features[k] for k in names), raw, dynamo=False, opset_version=17,
                          input_names=names, output_names=["sentence_embedding"], dynamic_axes=axes)
    config = st[0].auto_model.config  # type: ignore[union-attr]
    model = optimizer.optimize_model(raw, model_type="bert", num_heads=getattr(config, "num_attention_heads", 0),
                                     hidden_size=getattr(config, "hidden_size", 0), opt_level=1,
                                     use_gpu=precision == "fp16")
    if precision == "fp16":
        model.convert_float_to_float16(keep_io_types=True)
    model.save_model_to_file(os.path.join(tmp, "model.onnx" if precision != "int8" else "fp32.onnx"))
    os.remove(raw)
    if precision == "int8":
        from onnx import TensorProto
        from onnxruntime.quantization import QuantType, quantize_dynamic
        logging.disable(logging.WARNING)  # its advice to pre-process the graph (already optimised) on the root logger
        try:
            quantize_dynamic(os.path.join(tmp, "fp32.onnx"), os.path.join(tmp, "model.onnx"), per_channel=True,
                             reduce_range=True, weight_type=QuantType.QInt8,
                             extra_options={"DefaultTensorType": TensorProto.FLOAT})  # the fused ops' outputs
        finally:
            logging.disable(logging.NOTSET)
        os.remove(os.path.join(tmp, "fp32.onnx"))
    tokenizer = st.tokenizer
    padding = {"pad_id": tokenizer.pad_token_id or 0, "pad_token": tokenizer.pad_token or "[PAD]"}
    tokenizer.backend_tokenizer.save(os.path.join(tmp, "tokenizer.json"))
    return {"max_length": st.max_seq_length, "padding": padding, "inputs": names,
            "fused": {k: v for k, v in model.get_fused_operator_statistics().items() if v}}
