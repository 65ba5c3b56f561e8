"""DBQA's learned reranker, logistic regression against LambdaMART (qa_baseline/rankers/learning.py kinds), side by side
on the same features: fitted on ../shared/data/tasks/dbqa/en-wikiqa-train.tsv (873 questions, 8,672 pairs),
scored on en-wikiqa-dev.tsv (126 questions, 1,130 pairs), MRR / MAP / ACC@1 by the task's own scorer.

Each feature column (bm25, overlap, cross) is computed once for both files, then each model kind is fitted on
each feature set ("bm25,overlap" and "bm25,overlap,cross") exactly as rankers/learned.py fits it (its MODELS
options). The cross-encoder makes this take a few minutes on 2 cores.

Run: .venv/bin/python bench/dbqa_learners.py [--features bm25,overlap/bm25,overlap,cross]
"""
import argparse
import json
import os
import time

import numpy as np
from _common import data_dir, load_info, table

from qa_baseline.lucene import jvm
from qa_baseline.rankers import learning
from qa_baseline.rankers import make
from qa_baseline.rankers.learned import MODELS
from qa_baseline.rankers.tokens import Text
from qa_baseline.tasks.dbqa import formats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--features", default="bm25,overlap/bm25,overlap,cross",
                    help="feature sets separated by / (default: bm25,overlap/bm25,overlap,cross)")
    args = ap.parse_args()
    sets = [s.split(",") for s in args.features.split("/")]
    folder = data_dir("tasks", "dbqa")
    dev, train = (formats.read(os.path.join(folder, f"en-wikiqa-{part}.tsv")) for part in ("dev", "train"))
    jvm.start()
    print(f"en-wikiqa: train {len(train)} questions, dev {len(dev)}; {load_info()}", flush=True)
    text = Text("en", None)
    columns = {}
    for name in dict.fromkeys(f for s in sets for f in s):
        t0 = time.perf_counter()
        ranker = make(name, "en", {}, text)
        columns[name] = (ranker.features(train), ranker.features(dev))
        print(f"  features {name}: {time.perf_counter() - t0:.1f} s", flush=True)
    y = np.array([v for g in train for v in g.labels])
    sizes = [len(g.texts) for g in train]
    rows, figures = [], {}
    for s in sets:
        X_train = np.hstack([columns[f][0] for f in s])
        X_dev = np.hstack([columns[f][1] for f in s])
        for kind, options in MODELS.items():
            model = learning.make(kind, **options).fit(X_train, y, sizes)
            m = formats.score(dev, [float(v) for v in model.score(X_dev)])["metrics"]
            key = f"{kind}:{','.join(s)}"
            figures[key] = {k: round(m[k], 4) for k in ("MRR", "MAP", "ACC@1")}
            rows.append([kind, ",".join(s), *(f"{m[k]:.4f}" for k in ("MRR", "MAP", "ACC@1"))])
    table(["model", "features", "MRR", "MAP", "ACC@1"], rows)
    verdicts = {",".join(s): ("lambdamart" if figures[f"lambdamart:{','.join(s)}"]["MAP"]
                              > figures[f"logistic:{','.join(s)}"]["MAP"] else "logistic") for s in sets}
    print(json.dumps({"figures": figures, "better_by_MAP": verdicts}))


if __name__ == "__main__":
    main()
