"""How much a cross-fitted qac figure owes to the fold assignment (issue 23). `--folds K` answers question i
with the model fitted on the questions of the other folds (i mod K), so the MRR or AFM of a run depends on the
file's order too; qac-2's AFM most, through its has-answer threshold and list ratio fitted on ~140 questions.
This script makes one qac run (its arguments after `--`, which must hold --folds), keeps the candidates the
run cross-fits on, fits the answer models again with the questions in N orders (order 0: the file's, the
run's own figure; order s: shuffled by random.Random(s)) and scores each with the task's scorer.

Run: .venv/bin/python bench/fold_orders.py [--orders 8] -- --task qac-2 --data FILE --corpus C --folds 5 [...]
Prints each order's figure and their mean and range (no target: a measure of noise)."""
import argparse
import random
import statistics
import sys
import tempfile

from _common import result_line, table

from qa_baseline import run
from qa_baseline.answers import stage
from qa_baseline.answers.stage import fit_models
from qa_baseline.corpus.segment import document_id
from qa_baseline.tasks.qac import pipeline
from qa_baseline.tasks.qac.formats import TASK1_MAX, read_gold, score


def collect(argv):
    """Run qa_baseline.run with ARGV; returns what its pipeline cross-fitted on."""
    kept = {}
    predict = pipeline.predict

    def keep_predict(items, components, settings, folds_gold=None, task=1):
        kept.update(questions=list(items.values()), corpus=components.corpus, task=task, gold=folds_gold)
        return predict(items, components, settings, folds_gold, task)

    def keep_fit(cands, train_groups, golds, n_folds, value, lists, max_list, **options):
        kept.update(cands=list(cands), golds=list(golds), n_folds=n_folds, value=value, lists=lists,
                    max_list=max_list, options=options)
        return fit_models(cands, train_groups, golds, n_folds, value, lists, max_list, **options)

    pipeline.predict, stage.fit_models = keep_predict, keep_fit
    try:
        with tempfile.TemporaryDirectory() as out:
            run.main([*argv, "--out", out])
    finally:
        pipeline.predict, stage.fit_models = predict, fit_models
    if not kept.get("n_folds"):
        sys.exit("bench: the run must cross-fit: give --folds K among its arguments")
    return kept


def refit(kept, order):
    """The task's scores with the questions cross-fitted in ORDER (a permutation of their indices)."""
    cands, golds = [kept["cands"][i] for i in order], [kept["golds"][i] for i in order]
    models, _ = fit_models(cands, None, golds, kept["n_folds"], kept["value"], kept["lists"], kept["max_list"],
                           **kept["options"])
    answers = {}
    for i, model in zip(order, models):
        chosen, _, _ = model.decide(kept["cands"][i], k=TASK1_MAX, lists=kept["lists"])
        answers[kept["questions"][i].qid] = [(c.text, document_id(c.docid, kept["corpus"])) for c in chosen]
    return score(kept["gold"], answers, kept["task"])["metrics"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=8, help="question orders, the file's first (default 8)")
    parser.add_argument("run", nargs=argparse.REMAINDER, help="-- then the arguments of qa_baseline.run")
    args = parser.parse_args()
    argv = [a for a in args.run if a != "--"]
    kept = collect(argv)
    n = len(kept["questions"])
    rows, figures = [], []
    for seed in range(args.orders):
        order = list(range(n))
        if seed:
            random.Random(seed).shuffle(order)
        metrics = refit(kept, order)
        main_measure, value = next(iter(metrics.items()))
        figures.append(value)
        rows.append([seed, f"{value:.4f}"])
    table(["order", main_measure], rows)
    print(f"{main_measure} over {args.orders} orders: mean {statistics.mean(figures):.4f}, "
          f"range {min(figures):.4f}-{max(figures):.4f}")
    result_line({"measure": main_measure, "orders": figures, "mean": statistics.mean(figures),
                 "min": min(figures), "max": max(figures)}, run=argv)


if __name__ == "__main__":
    main()
