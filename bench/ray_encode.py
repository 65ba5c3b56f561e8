"""Dense index builds on Ray against local builds: passages/s of `build_dense` in this machine's process (the
encoder's threads over all cores) and with `encode=ray_encoder(actors=K)` on a local Ray of the same cores
(single-threaded CPU actors), on the same passages, with the same encoder and shard size; and how Ray scales
with its actors (`--actors 1,2`: the speed-up of 2 actors over 1, target >= 1.5x on 2 free cores).

Passages: the first --passages of shared-en (written to a temporary JSON-lines corpus). Each route is one
child process timed from its start to the finished index (imports, model loading, Ray's start-up, encoding,
faiss), in a fresh index folder; the order of the routes alternates between repeats. The indexes of all
routes are compared with the first (docids, vectors). Overhead = Ray's wall time (most actors) / the local
one - 1 (target <= 15%). A Ray route whose actor pool got fewer inputs than actors (Ray's warning "the
operator only received N input(s)") is flagged: idle actors.

Run: .venv/bin/python bench/ray_encode.py [--passages 20000] [--encoder minilm-onnx] [--shard-size 1000]
                                          [--cpus 2] [--actors 2] [--no-local] [--repeats 1]
Issue 25's case, 2 actors over 1 on one shard of 5,114 passages:
     .venv/bin/python bench/ray_encode.py --passages 5114 --shard-size 8192 --actors 1,2 --no-local
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np

from _common import PYTHON, load_info, median, result_line, run_child, spread, table, verdict

IDLE = "but the operator only received"  # Ray Data's warning: fewer inputs than actors

BUILD = """import json, sys, time
t0 = time.time()
from qa_baseline.core.config import corpus_config
from qa_baseline.indexes.dense import build_dense
corpus, encoder, shard_size, root, cpus, actors = sys.argv[1:7]
encode = None
if actors != "local":
    import ray
    ray.init(num_cpus=int(cpus), include_dashboard=False, logging_level="ERROR")
    from qa_baseline.indexes.distributed import ray_encoder
    encode = ray_encoder(actors=int(actors))
out = build_dense(corpus_config(corpus), encoder, shard_size=int(shard_size), root=root, encode=encode)
with open(out + "/manifest.json") as f:
    print(json.dumps({"wall": time.time() - t0, "folder": out, "manifest": json.load(f)}))
"""


def write_corpus(path, limit):
    from qa_baseline.core.config import corpus_config
    from qa_baseline.corpus import read_corpus
    from qa_baseline.core.errors import Problems
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
    ap.add_argument("--cpus", type=int, default=os.cpu_count() or 1, help="Ray's CPUs (default: all cores)")
    ap.add_argument("--actors", default=None, help="comma-separated actor counts, one Ray route each (default: --cpus)")
    ap.add_argument("--no-local", action="store_true", help="Ray routes only")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    try:
        import ray  # noqa: F401
    except ImportError:
        sys.exit("bench: needs the scale extra: .venv/bin/pip install '.[scale]'")
    routes = [] if args.no_local else ["local"]
    routes += [f"ray-{int(k)}" for k in (args.actors or str(args.cpus)).split(",")]
    work = tempfile.mkdtemp(prefix="bench-ray-")
    try:
        corpus = os.path.join(work, f"shared-en-{args.passages}.jsonl")
        n = write_corpus(corpus, args.passages)
        # the export of an ONNX encoder is made once, before timing (as every later build finds it)
        run_child([PYTHON, "-c", f"from qa_baseline.encoders import load_encoder; load_encoder({args.encoder!r})"])
        print(f"{n} shared-en passages, encoder {args.encoder}, shards of {args.shard_size}; local: one process, "
              f"{os.cpu_count()} threads; Ray: {args.cpus} CPUs, CPU actors x 1 thread; routes {', '.join(routes)}; "
              f"{args.repeats} repeat(s); the machine is shared with other jobs: {load_info()}", flush=True)
        runs, loads = measure(args, routes, corpus, work)
        report(args, n, routes, runs, loads)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(args, routes, corpus, work):
    """{route: [result of each repeat]}, {route: [load before each]}; routes alternate in order by repeat."""
    runs, loads = {r: [] for r in routes}, {r: [] for r in routes}
    for r in range(args.repeats):
        for route in (routes if r % 2 == 0 else routes[::-1]):
            root = os.path.join(work, f"{route}-{r}")
            loads[route].append(load_info())
            child = run_child([PYTHON, "-c", BUILD, corpus, args.encoder, str(args.shard_size), root, str(args.cpus),
                               route.removeprefix("ray-")])
            runs[route].append({**json.loads(child.last_line()), "idle_warning": IDLE in child.err})
            print(f"  {route} {r + 1}: {runs[route][-1]['wall']:.1f} s (before it: {loads[route][-1]})",
                  file=sys.stderr, flush=True)
    return runs, loads


def report(args, n, routes, runs, loads):
    rows, figures = [], {"passages": n, "shard_size": args.shard_size}
    for route, results in runs.items():
        walls = [x["wall"] for x in results]
        encode = [x["manifest"]["seconds"]["encode"] for x in results]
        rows.append([route, spread(walls, "{:.1f}"), f"{n / median(walls):.1f}", spread(encode, "{:.1f}"),
                     f"{n / median(encode):.1f}", "yes" if any(x["idle_warning"] for x in results) else "no"])
        figures[f"{route}_wall_s"], figures[f"{route}_encode_passages_per_s"] = median(walls), n / median(encode)
    print()
    table(["route", "wall s median (min-max)", "passages/s (wall)", "encoding s (manifest)",
           "passages/s (encoding)", "idle actors"], rows)
    print("load before each run: " + "; ".join(f"{r} {', '.join(loads[r])}" for r in routes))
    same = {r: same_index(runs[routes[0]][0]["folder"], runs[r][0]["folder"]) for r in routes[1:]}
    print(f"indexes against {routes[0]}'s: {same}")
    wall = {r: median([x["wall"] for x in runs[r]]) for r in routes}
    rays = [r for r in routes if r.startswith("ray-")]
    ratios = {}
    if "local" in routes:
        ratios["ray_overhead_pct"] = 100 * (wall[rays[-1]] / wall["local"] - 1)
        verdict(f"Ray overhead on the wall time ({rays[-1]} / local - 1)", ratios["ray_overhead_pct"], 15,
                higher_is_better=False, unit="%")
    if "ray-1" in rays and "ray-2" in rays:
        encode = {r: median([x["manifest"]["seconds"]["encode"] for x in runs[r]]) for r in ("ray-1", "ray-2")}
        ratios["speedup_2_actors_wall"] = wall["ray-1"] / wall["ray-2"]
        ratios["speedup_2_actors_encoding"] = encode["ray-1"] / encode["ray-2"]
        verdict("2 actors over 1, encoding (manifest seconds)", ratios["speedup_2_actors_encoding"], 1.5)
    result_line(figures, ratios, {"indexes_identical": all(v == "identical" for v in same.values()),
                                  "no_idle_actors": not any(x["idle_warning"] for r in rays for x in runs[r])})


if __name__ == "__main__":
    main()
