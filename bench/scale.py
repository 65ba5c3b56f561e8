"""BM25 at millions of passages, measured: ingest + index passages/s, peak RSS of the build, index bytes per
passage, MCQA questions/s and peak RSS of a search process, at growing corpus sizes (default 100k, 1M, 5M).

Corpus: N synthetic passages written streaming to a JSONL file in a scratch folder (never the repository),
made of real English sentences recombined: the sentences of ../shared/data/corpora/en (enwiki2015-early-3p,
openstax-ccby and the enwiki pages slice, read by the project's own readers) form a pool; passage i takes the
sentence count of a randomly drawn real passage (so passage lengths follow the real distribution) and that many
random sentences from the pool, and the title of a random real passage; ids `s000000000`... are unique.
Seeded: the same --seed writes the same files (the smaller sizes are prefixes of the larger). The vocabulary is
the sources' (about 0.3M distinct terms), smaller than a real corpus of millions of passages would have.

  build : `python -m qa_baseline.index --corpus FILE --threads T` as a child process (QA_BASELINE_INDEXES in
          the scratch folder); passages/s = N / the child's wall time (start-up, reading, shards, JVM, Anserini);
          peak RSS = the child's ru_maxrss (the JVM runs inside it, through pyjnius); bytes/passage = the Lucene
          files (stored passages included: storeRaw) / N.
  search: a child that opens the BM25 retriever on that index and answers the MCQA dev questions
          (../shared/data/tasks/mcqa-en/*dev*.csv) as the mcqa pipeline does (question + option per query, k=3,
          batched): one cold pass (JVM just started), then --warm passes; questions/s cold and warm (median),
          the child's peak RSS.
  ray   : (--ray-at N, default 1000000; 0 skips) the same corpus built again with `--ray` on a local Ray
          (2 CPUs), and 1,000 queries (MCQA questions of every mcqa-en file, question text only, k=10) searched
          on both indexes in one child: the hits must have the same scores (docids compared where the score is
          not tied at the cut-off).
Targets: passages/s at the largest size >= 0.8x at the smallest; build and search peak RSS at the largest
<= 1.2x at the smallest; the Ray build's scores equal the single build's.

Run: .venv/bin/python bench/scale.py [--sizes 100000,1000000,5000000] [--threads 2] [--ray-at 1000000]
                                      [--work DIR] [--keep] [--seed 0] [--warm 3]
Quick check: --sizes 10000,50000 --ray-at 10000
"""
import argparse
import glob
import json
import os
import random
import re
import resource
import shutil
import sys
import tempfile
import threading
import time

from _common import PYTHON, data_dir, load_info, median, result_line, run_child, table, verdict

class TreeMemory(threading.Thread):
    """Samples, every INTERVAL s while a child runs, the memory of this process's descendants from
    /proc/PID/status: the peak of their summed RssAnon (heap, Java heap included: what the process itself
    holds) and of their summed VmRSS (RssAnon plus the resident pages of mapped files, which Lucene's
    MMapDirectory adds and the kernel can drop: ru_maxrss counts them)."""

    def __init__(self, interval=0.5):
        super().__init__(daemon=True)
        self.interval, self.done = interval, threading.Event()
        self.anon_mb = self.rss_mb = 0.0

    def descendants(self):
        parent = {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    parent[int(pid)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
        tree, grew = {os.getpid()}, True
        while grew:
            new = {p for p, pp in parent.items() if pp in tree and p not in tree}
            tree |= new
            grew = bool(new)
        return tree - {os.getpid()}

    def run(self):
        while not self.done.wait(self.interval):
            anon = rss = 0
            for pid in self.descendants():
                try:
                    with open(f"/proc/{pid}/status") as f:
                        fields = dict(line.split(":", 1) for line in f if ":" in line)
                    anon += int(fields.get("RssAnon", "0 kB").split()[0])
                    rss += int(fields.get("VmRSS", "0 kB").split()[0])
                except (OSError, ValueError):
                    pass
            self.anon_mb, self.rss_mb = max(self.anon_mb, anon / 1024), max(self.rss_mb, rss / 1024)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.join()


def sampled(argv, env):
    """run_child(ARGV) with a TreeMemory sampling it; returns (child, peak RssAnon MB, peak VmRSS MB)."""
    with TreeMemory() as mem:
        child = run_child(argv, env=env)
    return child, round(mem.anon_mb), round(mem.rss_mb)


SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")

SEARCH = """import glob, json, os, sys, time
from qa_baseline.core.config import corpus_config
from qa_baseline.retrievers import open_retriever
from qa_baseline.retrievers.base import B, K1
from qa_baseline.tasks.mcqa import formats, pipeline
corpus, qdir, warm = sys.argv[1], sys.argv[2], int(sys.argv[3])
questions = [q for f in sorted(glob.glob(os.path.join(qdir, "*dev*.csv"))) for q in formats.read(f)]
t0 = time.perf_counter()
bm25 = open_retriever("bm25", corpus_config(corpus), {"k1": K1, "b": B})
def answer():
    labels = []
    for start in range(0, len(questions), pipeline.CHUNK):
        chunk = questions[start:start + pipeline.CHUNK]
        found = bm25.top_scores([f"{q.question} {o}" for q in chunk for o in q.options], 3)  # as the pipeline
        labels += [pipeline.choose([pipeline.rule_score(s, 3) for s in found[4 * i:4 * i + 4]]) for i in range(len(chunk))]
    return labels
t1 = time.perf_counter()
answer()
t2 = time.perf_counter()
passes = []
for _ in range(warm):
    s = time.perf_counter()
    answer()
    passes.append(time.perf_counter() - s)
print(json.dumps({"questions": len(questions), "open": t1 - t0, "cold": t2 - t1, "warm": passes}))
"""

COMPARE = """import json, os, sys
from qa_baseline.core.config import corpus_config
from qa_baseline.retrievers import open_retriever
from qa_baseline.retrievers.base import B, K1
corpus, single, ray, qfile, k = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
queries = json.load(open(qfile, encoding="utf-8"))
hits = {}
for name, root in (("single", single), ("ray", ray)):
    os.environ["QA_BASELINE_INDEXES"] = root
    hits[name] = open_retriever("bm25", corpus_config(corpus), {"k1": K1, "b": B}).search(queries, k)
same_scores = same_docs = 0
for a, b in zip(hits["single"], hits["ray"]):
    sa, sb = [s for _, s in a], [s for _, s in b]
    same_scores += sa == sb
    cut = sa[-1] if len(sa) == k else None  # docids tied at the cut-off may differ between the two indexes
    same_docs += sa == sb and {d for d, s in a if s != cut} == {d for d, s in b if s != cut}
print(json.dumps({"queries": len(queries), "same_scores": same_scores, "same_docs": same_docs}))
"""


def pool():
    """(sentences, sentence counts of real passages, titles) of the English sources, read by the project's
    readers."""
    from qa_baseline.core.config import corpus_config
    from qa_baseline.corpus import read_corpus
    from qa_baseline.core.errors import Problems
    sentences, counts, titles = [], [], []
    files = [data_dir("corpora", "en", f) for f in ("enwiki2015-early-3p.jsonl.gz", "openstax-ccby.jsonl.gz",
                                                   "enwiki-pages-articles-slice.xml.bz2")]
    for path in files:
        for p in read_corpus(corpus_config(path), Problems("skip")):
            parts = [s for s in SENTENCE_END.split(p["contents"]) if s]
            if parts:
                sentences += parts
                counts.append(len(parts))
                titles.append(p["title"])
    return sentences, counts, titles


def generate(path, n, source, seed):
    """Write N passages to PATH (JSONL), streaming; returns the file's size in bytes."""
    sentences, counts, titles = source
    rng = random.Random(seed)
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as f:
        buf = []
        for i in range(n):
            k = counts[int(rng.random() * len(counts))]
            text = " ".join(rng.choices(sentences, k=k))
            buf.append(json.dumps({"id": f"s{i:09d}", "title": titles[int(rng.random() * len(titles))],
                                   "contents": text}, ensure_ascii=False))
            if len(buf) >= 10_000:
                f.write("\n".join(buf) + "\n")
                buf = []
        if buf:
            f.write("\n".join(buf) + "\n")
    os.replace(tmp, path)
    return os.path.getsize(path)


def cpu_children():
    """CPU seconds (user + system) of the children this process has waited for, theirs included."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def lucene_bytes(root):
    """Bytes of the Lucene files of the one BM25 index under ROOT."""
    folders = glob.glob(os.path.join(root, "*", "bm25-default", "lucene"))
    return sum(os.path.getsize(os.path.join(d, f)) for d in folders for f in os.listdir(d))


def build(path, root, threads, ray=False):
    """Index PATH through `python -m qa_baseline.index` into ROOT; returns (child, manifest)."""
    argv = [PYTHON, "-m", "qa_baseline.index", "--corpus", path, "--threads", str(threads)]
    child, anon, _ = sampled(argv + (["--ray"] if ray else []), {"QA_BASELINE_INDEXES": root, "HF_HUB_OFFLINE": "1"})
    (manifest,) = glob.glob(os.path.join(root, "*", "bm25-default", "manifest.json"))
    with open(manifest, encoding="utf-8") as f:
        return child, anon, json.load(f)


def measure(n, path, work, args):
    """One size: build and search; returns a dict of figures."""
    root = os.path.join(work, f"indexes-{n}")
    cpu = cpu_children()
    child, anon, manifest = build(path, root, args.threads)
    cpu = cpu_children() - cpu
    if manifest["passages"] != n:
        sys.exit(f"bench: the index of {path} holds {manifest['passages']} passages, expected {n}")
    size = lucene_bytes(root)
    search, search_anon, _ = sampled([PYTHON, "-c", SEARCH, path, data_dir("tasks", "mcqa-en"), str(args.warm)],
                                     {"QA_BASELINE_INDEXES": root})
    s = json.loads(search.last_line())
    row = {"passages": n, "corpus_mb": round(os.path.getsize(path) / 1e6, 1), "build_s": round(child.wall, 1),
           "index_s": manifest["seconds"]["index"], "passages_per_s": round(n / child.wall),
           "in_build_per_s": round(n / manifest["seconds"]["total"]), "build_cpu_s": round(cpu, 1),
           "per_cpu_s": round(n / cpu), "build_rss_mb": round(child.rss_mb), "build_anon_mb": anon, "index_mb": round(size / 1e6, 1),
           "bytes_per_passage": round(size / n), "questions": s["questions"],
           "search_cold_qps": round(s["questions"] / s["cold"], 1),
           "search_warm_qps": round(s["questions"] / median(s["warm"]), 1) if s["warm"] else None,
           "search_open_s": round(s["open"], 2), "search_rss_mb": round(search.rss_mb),
           "search_anon_mb": search_anon}
    print("  " + json.dumps(row), file=sys.stderr, flush=True)
    return row, root


def ray_check(n, path, single_root, work, args):
    """Build PATH on a local Ray and compare 1,000 queries' hits with the single build's."""
    from qa_baseline.tasks.mcqa import formats
    root = os.path.join(work, f"indexes-{n}-ray")
    try:
        child, anon, manifest = build(path, root, args.threads, ray=True)
    except SystemExit as e:  # the machine is shared: another user's `ray stop` kills a local Ray too
        print(f"  ray: the build failed: {str(e)[-2000:]}", file=sys.stderr, flush=True)
        return {"passages": n, "error": str(e).splitlines()[0][:300]}
    files = sorted(glob.glob(os.path.join(data_dir("tasks", "mcqa-en"), "*.csv")))
    queries = [q.question for f in files for q in formats.read(f)][:args.ray_queries]
    qfile = os.path.join(work, "queries.json")
    with open(qfile, "w", encoding="utf-8") as f:
        json.dump(queries, f)
    cmp = json.loads(run_child([PYTHON, "-c", COMPARE, path, single_root, root, qfile, "10"]).last_line())
    shutil.rmtree(root, ignore_errors=True)
    print("  ray: " + json.dumps(cmp), file=sys.stderr, flush=True)
    return {"passages": n, "build_s": round(child.wall, 1), "passages_per_s": round(n / child.wall),
            "build_rss_mb": round(child.rss_mb), **cmp}


def report(rows, ray, load_before, load_after, args):
    """The table, the verdicts and the last line."""
    print()
    table(["passages", "corpus MB", "build s", "index s", "passages/s", "per CPU s", "build RSS MB", "anon MB",
           "index MB", "B/passage", "q/s cold", "q/s warm", "search RSS MB", "anon MB"],
          [[f"{r['passages']:,}", r["corpus_mb"], r["build_s"], r["index_s"], f"{r['passages_per_s']:,}",
            f"{r['per_cpu_s']:,}", r["build_rss_mb"], r["build_anon_mb"], r["index_mb"], r["bytes_per_passage"],
            r["search_cold_qps"], r["search_warm_qps"], r["search_rss_mb"], r["search_anon_mb"]] for r in rows])
    print("passages/s: N / the whole command's wall time; per CPU s: N / its CPU seconds (all threads); RSS: "
          "ru_maxrss (mapped index files included); anon: the peak of RssAnon (sampled every 0.5 s)")
    lo, hi = rows[0], rows[-1]
    ratios = {"rate": hi["passages_per_s"] / lo["passages_per_s"],
              "rate_in_build": hi["in_build_per_s"] / lo["in_build_per_s"],
              "rate_cpu": hi["per_cpu_s"] / lo["per_cpu_s"],
              "build_rss": hi["build_rss_mb"] / lo["build_rss_mb"],
              "build_anon": hi["build_anon_mb"] / lo["build_anon_mb"],
              "search_rss": hi["search_rss_mb"] / lo["search_rss_mb"],
              "search_anon": hi["search_anon_mb"] / lo["search_anon_mb"]}
    print(f"\n{load_before}; at the end {load_after}; {args.threads} indexing threads; the machine is shared")
    span = f"{hi['passages']:,} / {lo['passages']:,}"
    verdicts = {"rate": verdict(f"passages/s {span} (whole command)", ratios["rate"], 0.8),
                "rate_in_build": verdict(f"passages/s {span} (inside build_bm25: no interpreter start-up)",
                                         ratios["rate_in_build"], 0.8),
                "rate_cpu": verdict(f"passages per CPU second {span} (independent of the load)", ratios["rate_cpu"], 0.8),
                "build_rss": verdict(f"build peak RSS {span}", ratios["build_rss"], 1.2, higher_is_better=False),
                "build_anon": verdict(f"build peak RssAnon {span}", ratios["build_anon"], 1.2, higher_is_better=False),
                "search_rss": verdict(f"search peak RSS {span}", ratios["search_rss"], 1.2, higher_is_better=False),
                "search_anon": verdict(f"search peak RssAnon {span}", ratios["search_anon"], 1.2,
                                       higher_is_better=False)}
    if ray and "error" in ray:
        print(f"--ray at {ray['passages']:,}: the build failed ({ray['error']})")
    elif ray:
        ok = ray["same_scores"] == ray["queries"]
        verdicts["ray_equal"] = ok
        print(f"--ray at {ray['passages']:,}: {ray['same_scores']}/{ray['queries']} queries with the same top-10 "
              f"scores, {ray['same_docs']} with the same docids too; build {ray['build_s']} s "
              f"({ray['passages_per_s']:,}/s), peak RSS {ray['build_rss_mb']} MB -> {'MET' if ok else 'MISSED'}")
    return {"figures": {"rows": rows, "ray": ray}, "ratios": ratios,
            "verdicts": {"ray_equal": verdicts["ray_equal"]} if "ray_equal" in verdicts else {},
            "sizes": [r["passages"] for r in rows], "threads": args.threads, "load_start": load_before}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100000,1000000,5000000", help="corpus sizes in passages")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="indexing threads (default: all cores)")
    ap.add_argument("--ray-at", type=int, default=1_000_000,
                    help="also build this size (one of --sizes) on a local Ray and compare (default 1000000; 0: no)")
    ap.add_argument("--ray-queries", type=int, default=1000, help="queries compared for --ray-at (default 1000)")
    ap.add_argument("--warm", type=int, default=3, help="warm search passes after the cold one (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="corpus generator seed (default 0)")
    ap.add_argument("--work", default=None, help="scratch folder (default: a new one in the system temp)")
    ap.add_argument("--keep", action="store_true", help="keep the generated corpora and indexes")
    args = ap.parse_args()
    sizes = sorted({int(s) for s in args.sizes.split(",")})
    if args.ray_at and args.ray_at not in sizes:
        sys.exit(f"bench: --ray-at {args.ray_at} is not one of --sizes {args.sizes}")
    work = args.work or tempfile.mkdtemp(prefix="bench-scale-")
    os.makedirs(work, exist_ok=True)
    load_before = load_info()
    print(f"{load_before}; scratch folder {work}", flush=True)
    rows, ray, kept = [], None, None
    try:
        t0 = time.perf_counter()
        source = pool()
        print(f"sentence pool: {len(source[0]):,} sentences of {len(source[1]):,} real passages "
              f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
        for n in sizes:
            path = os.path.join(work, f"scale-{n}.jsonl")
            t0 = time.perf_counter()
            generate(path, n, source, args.seed)
            print(f"generated {path} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
            row, root = measure(n, path, work, args)
            rows.append(row)
            if n == args.ray_at:
                kept = (path, root)  # the Ray build comes last: the figures of every size first
            elif not args.keep:
                os.remove(path)
                shutil.rmtree(root, ignore_errors=True)
        if args.ray_at:
            ray = ray_check(args.ray_at, *kept, work, args)
            if not args.keep:
                os.remove(kept[0])
                shutil.rmtree(kept[1], ignore_errors=True)
        result = report(rows, ray, load_before, load_info(), args)
    finally:
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)
    result_line(**result)


if __name__ == "__main__":
    main()
