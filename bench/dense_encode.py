"""Dense encoding: passages/s of qa_baseline's encoders (PyTorch and ONNX Runtime) against calling
SentenceTransformer.encode directly on the same passages, and peak memory of sharded corpus encoding as the
corpus grows.

Speed: the first --passages passages of shared-en (title + newline + passage, as indexed), encoded with
all-MiniLM-L6-v2 on the CPU, alternating the routes in one warm process, --repeats times each:
  ours        qa_baseline.encoders load_encoder("minilm").encode(texts): all texts sorted by length, batches of 32
  onnx        load_encoder("minilm-onnx").encode(texts): the same model exported to ONNX (fused, fp32, no
              quantisation; the export is cached, made before timing), onnxruntime, same batches
  st          SentenceTransformer(same folder).encode(texts, batch_size=32) (sorts by length inside the call)
  st-stream   SentenceTransformer.encode on consecutive chunks of 32 in corpus order (no sorting across chunks),
              as a streaming encoder that does not bucket would call it
Vectors of all routes are compared with st's (max abs difference, minimum cosine). Targets: ours >= 1.2x st;
onnx >= 1.5x st with cosine >= 0.9999 to st's vectors.
Memory: qa_baseline.indexes.dense.encode_shards over synthetic corpora of N short passages (Vital Articles
leads cut to 200 characters, repeated with fresh ids) with --shard-size, each in its own child process;
peak RSS must not grow with N (target: largest N <= 1.1x smallest).

Run: .venv/bin/python bench/dense_encode.py [--passages 2000] [--repeats 2] [--sizes 2000,8000,32000]
"""
import argparse
import json
import os
import sys
import tempfile
import time

from _common import PYTHON, load_info, median, result_line, run_child, spread, table, verdict

ENCODE = """import sys, time
from qa_baseline.indexes.dense import encode_shards
from qa_baseline.encoders import load_encoder
from qa_baseline.core.errors import Problems
cfg = {"name": "bench", "lang": "en", "title_in_contents": True, "sources": [{"reader": "jsonl", "file": sys.argv[1]}]}
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


def speed(args):
    import numpy as np
    from sentence_transformers import SentenceTransformer
    from qa_baseline.encoders import load_encoder
    texts = passages(args.passages)
    ours, onnx = load_encoder("minilm"), load_encoder("minilm-onnx")
    st = SentenceTransformer(ours.cfg["path"], device="cpu")
    routes = {
        "ours": lambda: ours.encode(texts),
        "onnx": lambda: onnx.encode(texts),
        "st": lambda: st.encode(texts, batch_size=32, normalize_embeddings=True),
        "st-stream": lambda: np.vstack([st.encode(texts[i:i + 32], normalize_embeddings=True)
                                        for i in range(0, len(texts), 32)]),
    }
    times, vectors = {k: [] for k in routes}, {}
    ours.encode(texts[:64])  # warm-up
    onnx.encode(texts[:64])
    for r in range(args.repeats):
        for name, fn in list(routes.items())[r % len(routes):] + list(routes.items())[:r % len(routes)]:
            t0 = time.perf_counter()
            vectors[name] = fn()
            times[name].append(len(texts) / (time.perf_counter() - t0))
    chars = sum(map(len, texts)) / len(texts)
    print(f"encoding {len(texts)} shared-en passages (mean {chars:.0f} characters), all-MiniLM-L6-v2, "
          f"{args.repeats} repeats, {load_info()}")
    cosine = {k: float((v * vectors["st"]).sum(1).min()) for k, v in vectors.items()}  # all L2-normalised
    table(["route", "passages/s median (min-max)", "vs st", "max |diff| vs st", "min cosine vs st"],
          [[k, spread(v, "{:.1f}"), f"{median(v) / median(times['st']):.2f}x",
            f"{np.abs(vectors[k] - vectors['st']).max():.1e}", f"{cosine[k]:.7f}"] for k, v in times.items()])
    verdict("ours vs SentenceTransformer.encode", median(times["ours"]) / median(times["st"]), 1.2)
    verdict("ours vs unsorted streaming chunks", median(times["ours"]) / median(times["st-stream"]), 1.2)
    verdict("onnx vs SentenceTransformer.encode", median(times["onnx"]) / median(times["st"]), 1.5)
    verdict("onnx vs ours (PyTorch)", median(times["onnx"]) / median(times["ours"]), 1.5)
    verdict("onnx, min cosine to SentenceTransformer.encode", cosine["onnx"], 0.9999, unit="")
    return ({f"{k}_passages_per_s": median(v) for k, v in times.items()},
            {f"{k}_vs_st": median(v) / median(times["st"]) for k, v in times.items() if k != "st"})


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
    result_line(figures, ratios)


if __name__ == "__main__":
    sys.exit(main())
