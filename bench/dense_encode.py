"""Dense encoding: passages/s of qa_baseline's encoders (PyTorch and ONNX Runtime) against calling
SentenceTransformer.encode directly on the same passages, and peak memory of sharded corpus encoding as the
corpus grows.

Speed: the first --passages passages of shared-en (title + newline + passage, as indexed), encoded with
all-MiniLM-L6-v2 on the CPU, alternating the routes in one warm process, --repeats times each; the best run of
each route counts (other work on a shared machine only slows a run down), with the CPU seconds per passage of
the whole process (less sensitive to that other work) beside it. Printed first: the CPU model and its vector
extensions (AVX2, AVX-512, VNNI, AMX: what the engines' kernels can use).
  ours        qa_baseline.encoders load_encoder("minilm").encode(texts): all texts sorted by length, batches of 32
  onnx        load_encoder("minilm-onnx").encode(texts): the same model exported to ONNX (fused, fp32, no
              quantisation; the export is cached, made before timing), onnxruntime, one text per call,
              process.threads() calls side by side on one onnxruntime thread each (onnxrt.STOnnxEncoder)
  onnx-b32    the same ONNX model as before 2026-11-29: length-sorted batches of 32, one call at a time on
              process.threads() intra-op threads
  onnx-int8   load_encoder("minilm-onnx-int8"): the same export quantised to int8 (a separate encoder; its
              minimum cosine to onnx's fp32 vectors is printed)
  st          SentenceTransformer(same folder).encode(texts, batch_size=32) (sorts by length inside the call)
  st-stream   SentenceTransformer.encode on consecutive chunks of 32 in corpus order (no sorting across chunks),
              as a streaming encoder that does not bucket would call it
Vectors of all routes are compared with st's (max abs difference, minimum cosine). Targets: ours >= 1.2x st;
onnx >= 2.5x st with cosine >= 0.9999 to st's vectors (issue 52).
Memory: qa_baseline.indexes.dense.encode_shards over synthetic corpora of N short passages (Vital Articles
leads cut to 200 characters, repeated with fresh ids) with --shard-size, each in its own child process;
peak RSS must not grow with N (target: largest N <= 1.1x smallest).

Run: .venv/bin/python bench/dense_encode.py [--passages 2000] [--repeats 2] [--sizes 2000,8000,32000]
"""
import argparse
import copy
import json
import os
import sys
import tempfile
import time

from _common import PYTHON, load_info, result_line, run_child, spread, table, verdict

ENCODE = """import sys, time
from qa_baseline.indexes.dense import encode_shards
from qa_baseline.encoders import load_encoder
from qa_baseline.core.errors import Problems
from qa_baseline.core.config import CorpusConfig, Source
cfg = CorpusConfig("bench", "en", (Source("jsonl", sys.argv[1], sys.argv[1]),), "default", "bench", "")
t0 = time.perf_counter()
n = encode_shards(cfg, load_encoder("minilm"), sys.argv[2], int(sys.argv[3]), Problems("stop"), progress=False)
print(n, time.perf_counter() - t0)
"""


def passages(limit):
    from qa_baseline.core.config import corpus_config
    from qa_baseline.corpus import read_corpus
    from qa_baseline.core.errors import Problems
    from qa_baseline.indexes.layout import passage_text
    cfg = corpus_config("shared-en")
    out = []
    for p in read_corpus(cfg, Problems("stop")):
        out.append(passage_text(p, cfg))
        if len(out) == limit:
            return out
    return out


VECTOR_FLAGS = ("avx2", "fma", "f16c", "avx_vnni", "avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16",
                "amx_tile", "amx_bf16", "amx_int8")


def cpu_info():
    """(CPU model name, its vector extensions among VECTOR_FLAGS) from /proc/cpuinfo (Linux)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            block = f.read().split("\n\n")[0]
    except OSError:
        return "unknown", []
    fields = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in block.splitlines())}
    flags = set(fields.get("flags", "").split())
    return fields.get("model name", "unknown"), [f for f in VECTOR_FLAGS if f in flags]


def batched_onnx(encoder):
    """ENCODER (minilm-onnx) as it ran before one text per call: batches of 32, one call at a time on
    process.threads() intra-op threads; the same session options otherwise."""
    from qa_baseline.encoders.onnxrt import OnnxModel
    from qa_baseline.encoders.onnx_export import export_onnx
    folder, meta = export_onnx(encoder.name, encoder.cfg, "fp32")
    old = copy.copy(encoder)
    old.model = OnnxModel(encoder.name, folder, meta["max_length"], meta["padding"])
    old.workers, old.batch_size, old.alone = 1, 32, False
    return old


CPU = cpu_info()


def speed(args):
    import numpy as np
    from sentence_transformers import SentenceTransformer
    from qa_baseline.encoders import load_encoder
    model, flags = CPU
    print(f"CPU: {model}; vector extensions: {' '.join(flags) or 'none of ' + ' '.join(VECTOR_FLAGS)}")
    texts = passages(args.passages)
    ours, onnx, int8 = load_encoder("minilm"), load_encoder("minilm-onnx"), load_encoder("minilm-onnx-int8")
    st = SentenceTransformer(ours.cfg["path"], device="cpu")
    b32 = batched_onnx(onnx)
    routes = {
        "ours": lambda: ours.encode(texts),
        "onnx": lambda: onnx.encode(texts),
        "onnx-b32": lambda: b32.encode(texts),
        "onnx-int8": lambda: int8.encode(texts),
        "st": lambda: st.encode(texts, batch_size=32, normalize_embeddings=True),
        "st-stream": lambda: np.vstack([st.encode(texts[i:i + 32], normalize_embeddings=True)
                                        for i in range(0, len(texts), 32)]),
    }
    times, cpu, vectors = {k: [] for k in routes}, {k: [] for k in routes}, {}
    for enc in (ours, onnx, b32, int8):  # warm-up
        enc.encode(texts[:64])
    st.encode(texts[:64])
    for r in range(args.repeats):
        for name, fn in list(routes.items())[r % len(routes):] + list(routes.items())[:r % len(routes)]:
            t0, c0 = time.perf_counter(), time.process_time()
            vectors[name] = fn()
            times[name].append(len(texts) / (time.perf_counter() - t0))
            cpu[name].append((time.process_time() - c0) / len(texts) * 1000)
    chars = sum(map(len, texts)) / len(texts)
    print(f"encoding {len(texts)} shared-en passages (mean {chars:.0f} characters), all-MiniLM-L6-v2, "
          f"{args.repeats} repeats (best counts), {load_info()}")
    cosine = {k: float((v * vectors["st"]).sum(1).min()) for k, v in vectors.items()}  # all L2-normalised
    best = {k: max(v) for k, v in times.items()}
    table(["route", "passages/s best", "median (min-max)", "CPU ms/passage", "vs st (best)", "max |diff| vs st",
           "min cosine vs st"],
          [[k, f"{best[k]:.1f}", spread(v, "{:.1f}"), f"{min(cpu[k]):.1f}", f"{best[k] / best['st']:.2f}x",
            f"{np.abs(vectors[k] - vectors['st']).max():.1e}", f"{cosine[k]:.7f}"] for k, v in times.items()])
    before = vectors["onnx-b32"]
    print(f"onnx against onnx-b32 (the vectors before one text per call): max |diff| "
          f"{np.abs(vectors['onnx'] - before).max():.1e}, minimum cosine {float((vectors['onnx'] * before).sum(1).min()):.8f}, "
          f"{int((vectors['onnx'] == before).all(1).sum())} of {len(texts)} vectors the same bytes")
    int8_cosine = float((vectors["onnx-int8"] * vectors["onnx"]).sum(1).min())
    print(f"onnx-int8: minimum cosine to onnx's fp32 vectors {int8_cosine:.5f}, mean "
          f"{float((vectors['onnx-int8'] * vectors['onnx']).sum(1).mean()):.5f}")
    verdict("ours vs SentenceTransformer.encode", best["ours"] / best["st"], 1.2)
    verdict("ours vs unsorted streaming chunks", best["ours"] / best["st-stream"], 1.2)
    verdict("onnx vs SentenceTransformer.encode", best["onnx"] / best["st"], 2.5)
    verdict("onnx vs ours (PyTorch)", best["onnx"] / best["ours"], 1.5)
    verdict("onnx vs onnx in batches of 32 (before)", best["onnx"] / best["onnx-b32"], 1.0)
    verdict("onnx, min cosine to SentenceTransformer.encode", cosine["onnx"], 0.9999, unit="")
    figures = {**{f"{k}_passages_per_s": v for k, v in best.items()},
               **{f"{k}_cpu_ms_per_passage": min(v) for k, v in cpu.items()},
               **{f"{k}_min_cosine_vs_st": v for k, v in cosine.items()}, "int8_min_cosine_vs_onnx": int8_cosine}
    return figures, {f"{k}_vs_st": v / best["st"] for k, v in best.items() if k != "st"}


def memory(args):
    from qa_baseline.core.config import corpus_config
    from qa_baseline.corpus import read_corpus
    from qa_baseline.core.errors import Problems
    base = [p for p in read_corpus(corpus_config("vital-en"), Problems("stop"))]
    rows, peaks = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n in map(int, args.sizes.split(",")):
            corpus = os.path.join(tmp, f"c{n}.jsonl")
            with open(corpus, "w", encoding="utf-8") as f:
                for i in range(n):
                    p = base[i % len(base)]
                    f.write(json.dumps({"id": f"{i}", "title": p["title"], "contents": p["contents"][:200]}) + "\n")
            child = run_child([PYTHON, "-c", ENCODE, corpus, os.path.join(tmp, f"out{n}"), str(args.shard_size)])
            count, secs = child.last_line().split()
            peaks.append(child.rss_mb)
            rows.append([n, count, f"{child.rss_mb:.0f}", f"{int(count) / float(secs):.0f}"])
    print(f"\nsharded encoding, shard size {args.shard_size}, {load_info()}")
    table(["passages", "encoded", "peak RSS MB", "passages/s"], rows)
    verdict("peak RSS, largest vs smallest corpus", peaks[-1] / peaks[0], 1.1, higher_is_better=False)
    return {f"sharded_{r[0]}_peak_rss_mb": float(r[2]) for r in rows}, {"peak_rss_largest_vs_smallest": peaks[-1] / peaks[0]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--passages", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--sizes", default="2000,8000,32000")
    ap.add_argument("--shard-size", type=int, default=1000)
    ap.add_argument("--speed-only", action="store_true", help="skip the memory part")
    args = ap.parse_args()
    figures, ratios = speed(args)
    if not args.speed_only:
        more, more_ratios = memory(args)
        figures, ratios = {**figures, **more}, {**ratios, **more_ratios}
    result_line(figures, ratios, cpu=CPU[0], vector_extensions=CPU[1])


if __name__ == "__main__":
    sys.exit(main())
