"""DBQA reranking speed: (question, sentence) pairs scored per second by each reranker on
../shared/data/tasks/dbqa/en-wikiqa-dev.tsv (126 questions, 1,130 pairs), with its MRR / MAP / ACC@1 there.

Each timed pass builds a fresh ranker (empty token cache) with qa_baseline.rankers.make and scores every
pair of the file, as `python -m qa_baseline.run --task dbqa` does; the set-up (model loading; for `learned`
also its fit on en-wikiqa-train.tsv, 8,672 pairs) is timed apart and not in pairs/s. The JVM (Lucene's
English analyzer) is started before any timing. Median of --repeats passes.

Run: .venv/bin/python bench/dbqa_speed.py [--repeats 3] [--rankers bm25,overlap,dense,cross,learned]
"""
import argparse
import os
import sys
import time

from _common import data_dir, load_info, median, result_line, spread, table

from qa_baseline.lucene import jvm
from qa_baseline.rankers import RANKERS, make
from qa_baseline.tasks.dbqa import formats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3, help="timed passes per reranker; median reported (default 3)")
    ap.add_argument("--rankers", default=",".join(RANKERS), help="comma-separated (default: all)")
    args = ap.parse_args()
    folder = data_dir("tasks", "dbqa")
    dev, train = (formats.read(os.path.join(folder, f"en-wikiqa-{part}.tsv")) for part in ("dev", "train"))
    pairs = sum(len(g.texts) for g in dev)
    jvm.start()
    print(f"en-wikiqa-dev: {len(dev)} questions, {pairs} pairs; learned fitted on en-wikiqa-train "
          f"({sum(len(g.texts) for g in train)} pairs); {load_info()}", flush=True)
    rows, figures = [], {}
    for name in args.rankers.split(","):
        setup, scoring = [], []
        for r in range(args.repeats):
            t0 = time.perf_counter()
            reranker = make(name, "en", {})
            if name == "learned":
                reranker.fit(train)
            t1 = time.perf_counter()
            scores = reranker.score(dev)
            scoring.append(time.perf_counter() - t1)
            setup.append(t1 - t0)
            print(f"  pass {r + 1} {name}: set-up {setup[-1]:.2f} s, scoring {scoring[-1]:.2f} s", file=sys.stderr,
                  flush=True)
        metrics = formats.score(dev, list(scores))["metrics"]
        figures[name] = {"setup_s": median(setup), "scoring_s": median(scoring), "pairs_per_s": pairs / median(scoring),
                         **{m: metrics[m] for m in ("MRR", "MAP", "ACC@1")}}
        rows.append([name, spread(setup), spread(scoring), f"{pairs / median(scoring):,.0f}",
                     *(f"{metrics[m]:.4f}" for m in ("MRR", "MAP", "ACC@1"))])
    print()
    table(["reranker", "set-up s median (min-max)", "scoring s median (min-max)", "pairs/s", "MRR", "MAP", "ACC@1"],
          rows)
    result_line(figures)


if __name__ == "__main__":
    main()
