"""MCQA answering speed (questions/s) and accuracy on the shared-en BM25 index over all questions of
../shared/data/tasks/mcqa-en/*.csv (1,366 questions, 4 queries each: question + " " + option, k=3), scored with
qa_baseline.tasks.mcqa.pipeline.rule_score / choose, five ways, in one process:

  (a) ours          : BM25.top_scores(queries, k) in chunks of pipeline.CHUNK questions, as the mcqa pipeline
                      does without --trace (the index's postings.npz: every matching passage scored in numpy
                      with Lucene's arithmetic, no JIT; read on the first call, so inside the cold pass)
  (b) ours, per query: BM25.search(queries, k, batch=False) (one Anserini search per query)
  (c) bm25s         : bm25s.tokenize (English stop words, PyStemmer English stemmer) + bm25s.BM25(k1=0.9, b=0.4,
                      method 'lucene', the default) over the same passages' indexed text (title + "\\n" + contents),
                      retrieve(k=3, n_threads=all cores), same chunks and scoring; hits with score 0 (no query term
                      in the passage, which Lucene would not return) are dropped
  (d) ours, batched : BM25.search(queries, k): Anserini's batch_search, the pipeline's route before top_scores
                      (and its route with --trace)
  (e) ours, Lucene  : BM25.lucene_top_scores(queries, k): Lucene's own top k scores, no stored passages read,
                      on 2 threads: (a)'s route before postings.npz, and for indexes without one (built before
                      it, or of more than postings.MAX_PASSAGES passages)
Every option score of (a) must equal (d)'s and (e)'s: the bench stops otherwise.
Only search + scoring is timed; bm25s's tokenize + index time is reported separately. Two figures per route:
  cold: one pass in a fresh process (JVM just started, Lucene code not yet JIT-compiled), as one
        `python -m qa_baseline.run` over these questions would see it; median of --cold-repeats children
        (for bm25s: its index, built once in the main process and saved, loaded in each child; loading, like
        our JVM start, is not in the pass); every cold route's children take turns, so that the machine's
        load, which drifts over minutes, weighs on each alike
  warm: in the main process, after --warmup untimed passes of every route: median of --repeats passes
Targets: (a) >= 1.8x (b), (a) >= 1.3x (c) warm; cold, (a) >= 2x (c) (issue 52: kept while postings.npz became
a file read from Lucene's postings, checked whole where the index is opened: in the start-up figures).
Start-up: each cold child also times its JVM start + index opening (wall and CPU seconds), with the JVM's
class-data-sharing archive (qa_baseline/lucene/jvm.py; made before timing) and without (QA_BASELINE_JVM_CDS=off):
cold (a) and (a) without CDS alternate.
The shared-en index is built first (indexes/shared-en/bm25-default) if it is missing.

Run: .venv/bin/python bench/mcqa_speed.py [--repeats 5] [--warmup 3] [--cold-repeats 3] [--threads N]
"""
import argparse
import glob
import os
import json
import resource
import subprocess
import sys
import tempfile
import time

from _common import PROJECT, PYTHON, data_dir, load_info, median, result_line, run_child, spread, table, verdict

from qa_baseline.core.config import corpus_config
from qa_baseline.core.errors import Problems
from qa_baseline.corpus import read_corpus
from qa_baseline.indexes.layout import bm25_dir, passage_text
from qa_baseline.retrievers import open_retriever
from qa_baseline.retrievers.base import B, K1
from qa_baseline.tasks.mcqa import formats, pipeline

CDS = "QA_BASELINE_JVM_CDS"  # on / off: the JVM's class-data-sharing archive (qa_baseline/lucene/jvm.py)


def answer(questions, top_scores, k, scores=None):
    """Labels chosen for QUESTIONS, querying in chunks as the mcqa pipeline does (TOP_SCORES(queries, k): per
    query its top k scores); every option's score is appended to SCORES when given."""
    labels = []
    for start in range(0, len(questions), pipeline.CHUNK):
        chunk = questions[start:start + pipeline.CHUNK]
        found = top_scores([f"{q.question} {opt}" for q in chunk for opt in q.options], k)
        for i in range(len(chunk)):
            options = [pipeline.rule_score(s, k) for s in found[4 * i:4 * i + 4]]
            labels.append(formats.LABELS[pipeline.choose(options)])
            if scores is not None:
                scores.extend(options)
    return labels


def scores_of(search):
    """A top_scores function of a search(queries, k) function that returns hits."""
    return lambda queries, k: [[score for _, score in hits] for hits in search(queries, k)]


def lucene_routes(bm25):
    """Our routes by their letter (the cold children's --cold-child)."""
    return {"a": bm25.top_scores, "b": scores_of(lambda qs, k: bm25.search(qs, k, batch=False)),
            "d": scores_of(bm25.search), "e": bm25.lucene_top_scores}


def cpu_s():
    """CPU seconds of this process so far, all its threads (the JVM's too)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed_open(open_index):
    """OPEN_INDEX() and what it took: (its result, {"start_s": wall seconds, "start_cpu_s": CPU seconds})."""
    started, started_cpu = time.perf_counter(), cpu_s()
    opened = open_index()
    return opened, {"start_s": time.perf_counter() - started, "start_cpu_s": cpu_s() - started_cpu}


def cold_pass(questions, top_scores, k, start):
    """A cold child's one pass over QUESTIONS: its wall and CPU seconds, with START, as one JSON line on stdout."""
    t0, c0 = time.perf_counter(), cpu_s()
    answer(questions, top_scores, k)
    print(json.dumps({"seconds": time.perf_counter() - t0, "cpu_s": cpu_s() - c0, **start}))


def make_cds_archive(corpus, k):
    """Cold children until the JVM's class-data-sharing archive exists (jvm.py: two runs list their classes,
    the third has it made in the background), so that the timed children map it."""
    from qa_baseline.lucene import jvm
    deadline = time.time() + 300
    while not glob.glob(os.path.join(jvm.cache_folder(), "*.jsa")) and time.time() < deadline:
        run_child([PYTHON, os.path.abspath(__file__), "--corpus", corpus, "--k", str(k), "--cold-child", "a"],
                  env={CDS: "on"})
        time.sleep(2)


def bm25s_route(cfg, threads, save_dir=None):
    """bm25s's index of CFG's passages (saved to SAVE_DIR when given): (top_scores, read seconds, index seconds)."""
    import bm25s
    t0 = time.perf_counter()
    texts = [passage_text(p, cfg) for p in read_corpus(cfg, Problems("stop"))]  # default analyzer: not pre-tokenized
    t1 = time.perf_counter()
    retriever = bm25s.BM25(k1=K1, b=B)
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer(), show_progress=False), show_progress=False)
    t2 = time.perf_counter()
    if save_dir:
        retriever.save(save_dir, show_progress=False)
    return bm25s_scores(retriever, threads), t1 - t0, t2 - t1


def stemmer():
    import Stemmer
    return Stemmer.Stemmer("english")


def bm25s_scores(retriever, threads):
    """The top_scores function of a bm25s index: its queries tokenized as its passages were."""
    import bm25s
    stem = stemmer()

    def top_scores(queries, k):
        tokens = bm25s.tokenize(queries, stopwords="en", stemmer=stem, return_ids=False, show_progress=False)
        docs, scores = retriever.retrieve(tokens, k=k, n_threads=threads, show_progress=False)
        return [[float(s) for s in sr if s > 0] for sr in scores.tolist()]
    return top_scores


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="shared-en", help="corpus config (default shared-en)")
    ap.add_argument("--repeats", type=int, default=5, help="timed passes per route; median reported (default 5)")
    ap.add_argument("--warmup", type=int, default=3,
                    help="untimed passes per route before the warm passes (default 3: the JIT needs ~20k queries)")
    ap.add_argument("--cold-repeats", type=int, default=3,
                    help="fresh processes per cold route, ours and bm25s (default 3; 0: none)")
    ap.add_argument("--cold-child", choices=("a", "b", "c", "d", "e"), help=argparse.SUPPRESS)
    ap.add_argument("--bm25s-index", help=argparse.SUPPRESS)  # a cold child c's saved bm25s index
    ap.add_argument("--k", type=int, default=3, help="hits per query (default 3, the published baseline)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="bm25s retrieve n_threads")
    ap.add_argument("--skip-bm25s", action="store_true", help="only routes (a) and (b)")
    args = ap.parse_args()

    files = sorted(glob.glob(os.path.join(data_dir("tasks", "mcqa-en"), "*.csv")))
    questions = [q for f in files for q in formats.read(f)]
    cfg = corpus_config(args.corpus)
    if not os.path.isfile(os.path.join(bm25_dir(cfg), "manifest.json")):
        print(f"building the {args.corpus} index first ...", file=sys.stderr, flush=True)
        subprocess.run([PYTHON, "-m", "qa_baseline.index", "--corpus", args.corpus, "--no-dense"], cwd=PROJECT, check=True)
    if args.cold_child == "c":  # bm25s's first pass in this fresh process (no JVM)
        import bm25s
        retriever, start = timed_open(lambda: bm25s.BM25.load(args.bm25s_index, show_progress=False))
        cold_pass(questions, bm25s_scores(retriever, args.threads), args.k, start)
        return
    if not args.cold_child:  # this process's JVM would list its classes for the archive and, living on, keep
        os.environ[CDS] = "off"  # make_cds_archive's children from ever finding the lists complete
    bm25, start = timed_open(lambda: open_retriever("bm25", cfg, {"k1": K1, "b": B}))  # starts the JVM
    if args.cold_child:  # one pass in this fresh process
        cold_pass(questions, lucene_routes(bm25)[args.cold_child], args.k, start)
        return
    saved = tempfile.TemporaryDirectory(prefix="bm25s-")
    if not args.skip_bm25s:
        search, read_s, index_s = bm25s_route(cfg, args.threads, saved.name if args.cold_repeats else None)
    if args.cold_repeats:
        make_cds_archive(args.corpus, args.k)
    cold, starts, cold_cpu = {"a": [], "b": [], "c": [], "e": [], "d": []}, {"cds": [], "no_cds": [], "bm25s": []}, {}
    sides = ("a", "a-no-cds", "b") + (() if args.skip_bm25s else ("c",)) + ("e", "d")
    for r in range(args.cold_repeats):
        for side in (sides if r % 2 == 0 else sides[::-1]):
            child = run_child([PYTHON, os.path.abspath(__file__), "--corpus", args.corpus, "--k", str(args.k),
                               "--threads", str(args.threads), "--bm25s-index", saved.name, "--cold-child", side[0]],
                              env={CDS: "off" if "no" in side else "on"})
            result = json.loads(child.last_line())
            if side != "a-no-cds":
                cold[side].append(result["seconds"])
                cold_cpu.setdefault(side, []).append(result["cpu_s"])
            if side not in ("b", "e"):
                starts["bm25s" if side == "c" else "no_cds" if "no" in side else "cds"].append(result)
            print(f"  cold {r + 1} ({side}): start {result['start_s']:.2f} s ({result['start_cpu_s']:.2f} s CPU), "
                  f"pass {result['seconds']:.2f} s", file=sys.stderr, flush=True)
    ours = lucene_routes(bm25)
    routes = {"(a) ours, BM25.top_scores (the pipeline)": ours["a"], "(b) ours, per query (batch=False)": ours["b"]}
    if not args.skip_bm25s:
        routes[f"(c) bm25s, n_threads={args.threads}"] = search
    routes["(e) ours, Lucene's top k (lucene_top_scores)"] = ours["e"]
    routes["(d) ours, batched BM25.search (before)"] = ours["d"]
    if bm25.postings_npz is None:
        sys.exit(f"the {args.corpus} index has no postings.npz, so (a) would be (e) (fix: rebuild it with "
                 f"python -m qa_baseline.index --corpus {args.corpus} --no-dense --force)")
    same = {x: [] for x in "ade"}
    for x, scores in same.items():
        answer(questions, ours[x], args.k, scores)
    for x in "de":
        if same["a"] != same[x]:
            sys.exit(f"(a) and ({x}) differ in {sum(p != q for p, q in zip(same['a'], same[x]))} of "
                     f"{len(same['a'])} option scores")
    print(f"(a), (d) and (e): all {len(same['a'])} option scores equal", flush=True)
    print(f"{len(questions)} questions ({4 * len(questions)} queries, k={args.k}) from {len(files)} files; "
          f"{args.corpus}: {bm25.manifest['passages']} passages; {load_info()}", flush=True)

    times, labels = {name: [] for name in routes}, {}
    for w in range(args.warmup):
        for name, search in routes.items():
            labels[name] = answer(questions, search, args.k)
    for r in range(args.repeats):
        for name, search in (list(routes.items())[r % len(routes):] + list(routes.items())[:r % len(routes)]):
            t0 = time.perf_counter()
            labels[name] = answer(questions, search, args.k)
            times[name].append(time.perf_counter() - t0)
            print(f"  pass {r + 1} {name}: {times[name][-1]:.2f} s", file=sys.stderr, flush=True)

    gold = [q.gold for q in questions]
    names = list(routes)
    cold_s = [median(cold[n[1]]) if cold.get(n[1]) else None for n in names]
    rows = []
    for name, c in zip(names, cold_s):
        correct = sum(a == g for a, g in zip(labels[name], gold))
        same = sum(a == b for a, b in zip(labels[name], labels[names[0]]))
        rows.append([name, f"{c:.2f}" if c else "-", f"{len(questions) / c:.0f}" if c else "-",
                     spread(times[name]), f"{len(questions) / median(times[name]):.0f}",
                     f"{100 * correct / len(questions):.2f}", f"{100 * same / len(questions):.1f}"])
    print()
    table(["route", "cold s", "cold q/s", "warm s median (min-max)", "warm q/s", "accuracy %",
           "same answer as (a) %"], rows)
    if cold["a"]:
        print("cold runs: " + "; ".join(f"({x}) {', '.join(f'{t:.2f}' for t in cold[x])} s" for x in cold))
    if not args.skip_bm25s:
        print(f"bm25s set-up (not in the timings): read corpus {read_s:.2f} s, tokenize + index {index_s:.2f} s")
    print()
    verdict("warm (a) / (b) questions/s", median(times[names[1]]) / median(times[names[0]]), 1.8)
    if not args.skip_bm25s:
        verdict("warm (a) / (c) questions/s", median(times[names[2]]) / median(times[names[0]]), 1.3)
    best = [min(times[n]) for n in names]
    print(f"best-of-{args.repeats} warm ratios (least disturbed by other load): (a) / (b) {best[1] / best[0]:.2f}x"
          + ("" if args.skip_bm25s else f", (a) / (c) {best[2] / best[0]:.2f}x"))
    ratios = {"warm_a_vs_b": median(times[names[1]]) / median(times[names[0]]), "best_a_vs_b": best[1] / best[0]}
    if starts["cds"]:
        start = {k: {m: median([x[m] for x in v]) for m in ("start_s", "start_cpu_s")} for k, v in starts.items() if v}
        print(f"JVM start + index opening (median of {args.cold_repeats}): with the CDS archive {start['cds']['start_s']:.2f} s "
              f"({start['cds']['start_cpu_s']:.2f} s CPU), without {start['no_cds']['start_s']:.2f} s "
              f"({start['no_cds']['start_cpu_s']:.2f} s CPU)" +
              ("" if args.skip_bm25s else f"; bm25s loading its saved index {start['bm25s']['start_s']:.2f} s"))
        ratios["start_no_cds_vs_cds"] = start["no_cds"]["start_s"] / start["cds"]["start_s"]
        ratios["start_cpu_no_cds_vs_cds"] = start["no_cds"]["start_cpu_s"] / start["cds"]["start_cpu_s"]
        if not args.skip_bm25s:  # JVM start + first pass against bm25s's loading + first pass
            ratios["one_shot_a_vs_c_first_pass"] = (start["bm25s"]["start_s"] + cold_s[2]) / \
                (start["cds"]["start_s"] + cold_s[0])
    if not args.skip_bm25s:
        ratios.update(warm_a_vs_c=median(times[names[2]]) / median(times[names[0]]), best_a_vs_c=best[2] / best[0])
    if cold["a"]:
        print(f"cold (a) / (b): {cold_s[1] / cold_s[0]:.2f}x" +
              ("" if args.skip_bm25s else f"; cold (a) / (c): {cold_s[2] / cold_s[0]:.2f}x"))
        ratios["cold_a_vs_b"] = cold_s[1] / cold_s[0]
        ratios["cold_a_vs_d"] = cold_s[-1] / cold_s[0]
        print(f"cold (a) / (d), the pipeline's route now against before: {ratios['cold_a_vs_d']:.2f}x; "
              f"warm {median(times[names[-1]]) / median(times[names[0]]):.2f}x")
        ratios["cold_a_vs_e"] = cold_s[-2] / cold_s[0]
        ratios["warm_a_vs_e"] = median(times[names[-2]]) / median(times[names[0]])
        print(f"(a) / (e), postings.npz against Lucene's top k: cold {ratios['cold_a_vs_e']:.2f}x, warm "
              f"{ratios['warm_a_vs_e']:.2f}x")
        if not args.skip_bm25s:
            ratios["cold_a_vs_c"] = cold_s[2] / cold_s[0]
    if cold["a"] and not args.skip_bm25s:  # CPU seconds: less swayed by other jobs than wall time
        ratios["cold_a_vs_c_cpu"] = median(cold_cpu["c"]) / median(cold_cpu["a"])
        print(f"first pass CPU seconds (all threads, medians): (a) cold {median(cold_cpu['a']):.2f}, "
              f"(c) {median(cold_cpu['c']):.2f}: (a) / (c) {ratios['cold_a_vs_c_cpu']:.2f}x")
        verdict("cold (a) / (c) questions/s (the first pass of a fresh process)", cold_s[2] / cold_s[0], 2.0)
    result_line({**({"start": start} if starts["cds"] else {}), **{name.split()[0]: {"cold_s": c, "warm_s": median(times[name]),
                                   "warm_questions_per_s": len(questions) / median(times[name]),
                                   "accuracy": sum(a == g for a, g in zip(labels[name], gold)) / len(questions)}
                 for name, c in zip(names, cold_s)}}, ratios, questions=len(questions))


if __name__ == "__main__":
    main()
