"""KBQA's predicate ranker, logistic regression against LambdaMART (kb/predicates.py LEARNERS), side by side:
both trained on the 2016 training set (14,609 questions) over the same candidates and features, both answering
the 2016 test set with the mini-KB; averaged P / R / F1 by the task's own scorer, and the rule (no model)
beside them. The KB store is built first into a temp QA_BASELINE_INDEXES (`python -m qa_baseline.index --kb
MINI-KB --on-bad-record skip`, a child process); everything else runs in this process.

Run: .venv/bin/python bench/kbqa_learners.py [--limit N]   (N: only the first N test questions)"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

from _common import PYTHON, data_dir, load_info, run_child, table


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, help="only the first N test questions")
    args = ap.parse_args()
    folder = data_dir("tasks", "kbqa")
    kb_file = os.path.join(folder, "nlpcc-kbqa-mini.kb")
    work = tempfile.mkdtemp(prefix="bench-kbqa-")
    os.environ.update({"QA_BASELINE_INDEXES": os.path.join(work, "indexes"), "QA_BASELINE_PROGRESS": "off"})
    from qa_baseline.indexes.kb import open_kb
    from qa_baseline.kb.predicates import LEARNERS, Ranker, train
    from qa_baseline.tasks.kbqa import formats
    try:
        print(load_info(), flush=True)
        run_child([PYTHON, "-m", "qa_baseline.index", "--kb", kb_file, "--on-bad-record", "skip"])
        kb = open_kb(kb_file)
        training = formats.read_gold(os.path.join(folder, "nlpcc-iccpol-2016.kbqa.training-data"))
        gold = formats.read_gold(os.path.join(folder, "nlpcc-iccpol-2016.kbqa.testing-data"))
        if args.limit:
            gold = dict(list(gold.items())[:args.limit])
        rows, figures = [], {}
        for learner in (*LEARNERS, "rule"):
            t0 = time.perf_counter()
            model = None if learner == "rule" else train(kb, [(g.question, g.answers) for g in training.values()],
                                                         learner=learner)
            t1 = time.perf_counter()
            ranker = Ranker(kb, model)
            items = {qid: formats.Item(g.question, ranker.answer(g.question)[0], g.line) for qid, g in gold.items()}
            t2 = time.perf_counter()
            m = formats.score(gold, items)["metrics"]
            figures[learner] = {k: round(m[k], 4) for k in ("precision", "recall", "F1")}
            rows.append([learner, *(f"{m[k]:.4f}" for k in ("precision", "recall", "F1")), f"{t1 - t0:.1f}",
                         f"{len(gold) / (t2 - t1):.0f}"])
            print(f"  {learner}: F1 {m['F1']:.4f}", file=sys.stderr, flush=True)
        print(f"\n{len(gold):,} test questions, mini-KB\n")
        table(["ranker", "P", "R", "F1", "training s", "questions/s"], rows)
        best = max(LEARNERS, key=lambda k: (figures[k]["F1"], k == "logistic"))
        print(json.dumps({"figures": figures, "better_by_F1": best}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
