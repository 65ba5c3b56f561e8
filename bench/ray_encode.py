"""Dense index builds on Ray against local builds: passages/s of `build_dense` in this machine's process (the
encoder's threads over all cores) and with `encode=ray_encoder(...)` on a local Ray of the same cores (one
single-threaded CPU actor per core), on the same passages, with the same encoder and shard size.

Passages: the first --passages of shared-en (written to a temporary JSON-lines corpus). Each route is one
child process timed from its start to the finished index (imports, model loading, Ray's start-up, encoding,
faiss), in a fresh index folder; the order of the routes alternates between repeats. The indexes of both
routes are compared (docids, vectors). Overhead = Ray's wall time / the local one - 1 (target <= 15%).

Run: .venv/bin/python bench/ray_encode.py [--passages 20000] [--encoder minilm-onnx] [--shard-size 1000]
                                          [--cpus 2] [--repeats 1]
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np

from _common import PYTHON, load_info, median, run_child, spread, table, verdict

BUILD = """import json, sys, time
t0 = time.time()
from qa_baseline.config import corpus_config
from qa_baseline.index.dense import build_dense
corpus, encoder, shard_size, root, cpus = sys.argv[1:6]
encode = None
if cpus != "local":
    import ray
    ray.init(num_cpus=int(cpus), include_dashboard=False, logging_level="ERROR")
    from qa_baseline.index.distributed import ray_encoder
    encode = ray_encoder(actors=int(cpus))
out = build_dense(corpus_config(corpus), encoder, shard_size=int(shard_size), root=root, encode=encode)
with open(out + "/manifest.json") as f:
    print(json.dumps({"wall": time.time() - t0, "folder": out, "manifest": json.load(f)}))
"""


def write_corpus(path, limit):
    from qa_baseline.config import corpus_config
    from qa_baseline.corpus import read_corpus
    from qa_baseline.errors import Problems
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for p in read_corpus(corpus_config("shared-en"), Problems("stop")):
            f.write(json.dumps({"id": p["id"], "title": p["title"], "contents": p["contents"]}, ensure_ascii=False) + "\n")
            n += 1
            if n == limit:
                break
    return n


def same_index(a, b):
    """'identical', or how the two index folders differ."""
    with open(os.path.join(a, "docids.jsonl"), "rb") as f, open(os.path.join(b, "docids.jsonl"), "rb") as g:
        if f.read() != g.read():
            return "DIFFERENT docids"
    shards = sorted(s for s in os.listdir(os.path.join(a, "shards")) if s.endswith(".npy"))
    diff = max(float(np.abs(np.load(os.path.join(a, "shards", s)) - np.load(os.path.join(b, "shards", s))).max())
               for s in shards)
    return "identical" if diff == 0 else f"max |diff| {diff:.1e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--passages", type=int, default=20000)
    ap.add_argument("--encoder", default="minilm-onnx")
    ap.add_argument("--shard-size", type=int, default=1000,
                    help="passages per shard, both routes (default 1000: 20 shards for 20k passages, so that the "
                         "last shards do not leave an actor idle for long)")
    ap.add_argument("--cpus", type=int, default=os.cpu_count() or 1, help="Ray's CPUs = actors (default: all cores)")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    try:
        import ray  # noqa: F401
    except ImportError:
        sys.exit("bench: needs the scale extra: .venv/bin/pip install '.[scale]'")
    work = tempfile.mkdtemp(prefix="bench-ray-")
    try:
        corpus = os.path.join(work, f"shared-en-{args.passages}.jsonl")
        n = write_corpus(corpus, args.passages)
        # the export of an ONNX encoder is made once, before timing (as every later build finds it)
        run_child([PYTHON, "-c", f"from qa_baseline.encoders import load_encoder; load_encoder({args.encoder!r})"])
        print(f"{n} shared-en passages, encoder {args.encoder}, shards of {args.shard_size}; local: one process, "
              f"{os.cpu_count()} threads; Ray: {args.cpus} CPU actors x 1 thread; {args.repeats} repeat(s)", flush=True)
        runs, loads = {"local": [], "ray": []}, {"local": [], "ray": []}
        for r in range(args.repeats):
            for route in (("local", "ray") if r % 2 == 0 else ("ray", "local")):
                root = os.path.join(work, f"{route}-{r}")
                loads[route].append(load_info())
                child = run_child([PYTHON, "-c", BUILD, corpus, args.encoder, str(args.shard_size), root,
                                   "local" if route == "local" else str(args.cpus)])
                runs[route].append(json.loads(child.last_line()))
                print(f"  {route} {r + 1}: {runs[route][-1]['wall']:.1f} s (before it: {loads[route][-1]})",
                      file=sys.stderr, flush=True)
        rows = []
        for route, results in runs.items():
            walls = [x["wall"] for x in results]
            encode = [x["manifest"]["seconds"]["encode"] for x in results]
            rows.append([route, spread(walls, "{:.1f}"), f"{n / median(walls):.1f}", spread(encode, "{:.1f}"),
                         f"{n / median(encode):.1f}"])
        print()
        table(["route", "wall s median (min-max)", "passages/s (wall)", "encoding s (manifest)",
               "passages/s (encoding)"], rows)
        print(f"load before each run: local {'; '.join(loads['local'])}; ray {'; '.join(loads['ray'])}")
        print(f"indexes of the two routes: {same_index(runs['local'][0]['folder'], runs['ray'][0]['folder'])}")
        overhead = median([x["wall"] for x in runs["ray"]]) / median([x["wall"] for x in runs["local"]]) - 1
        verdict("Ray overhead on the wall time (Ray / local - 1)", 100 * overhead, 15, higher_is_better=False,
                unit="%")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
