"""Data Search QA on ../shared/data/tasks/datasearch/wtq-dev (188 questions, 145 datasets): EM and token F1 of the
rule-based table QA beside two named alternatives, per held-out fold and per operator, the ad-hoc setting
(dataset chosen by BM25 over metadata, with and without the cell re-ranking), and questions per second.

Alternatives: `first cell` answers the table's first body cell (the issue's floor, 0.059); `lookup only` runs
the same linking with every operator cue switched off (the cell at the best row x best column). Folds: A =
questions 0, 2, 4, ... of questions.tsv (the rules were written looking at A's errors only), B = 1, 3, 5, ...
(held out). Speed: answering only (tables already read; fresh table analysis per pass), median of --repeats
passes; reading the collection is timed apart.

Run: .venv/bin/python bench/datasearch_quality.py [--repeats 3]
"""
import argparse
import collections
import dataclasses
import os
import time

from _common import data_dir, load_info, median, result_line, spread, table, verdict

from qa_baseline.collection import open_collection
from qa_baseline.scoring.metrics import exact_match, token_f1
from qa_baseline.tableqa import engine, question as questions
from qa_baseline.tableqa.view import TableView
from qa_baseline.tasks.datasearch import formats
from qa_baseline.tasks.datasearch.pipeline import select_datasets

OFF = dict(count=False, distinct=False, difference=False, total=False, average=False, superlative="",
           super_word="", ordinal="", neighbour=0, thresholds=[], exclude=False, compare=False)


def rules(item, tables, views):
    return engine.answer(item.question, tables, views)


def lookup_only(item, tables, views):
    q = dataclasses.replace(questions.analyse(item.question), **OFF)
    found = [engine.answer_view(q, views.setdefault(id(t), TableView(t))) for t in tables if t.rows]
    return max(found, key=lambda a: a.score) if found else engine.Answer("")


def first_cell(item, tables, views):
    return engine.Answer(tables[0].rows[0][0] if tables and tables[0].rows else "", "first-cell")


def evaluate(items, gold, tables_of, system):
    views, per = {}, []
    for k, item in enumerate(items):
        a = system(item, tables_of(item), views)
        per.append((k % 2, a.operator, exact_match(a.text, gold[item.id]), token_f1(a.text, gold[item.id])))
    return per


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3, help="timed passes; median reported (default 3)")
    args = ap.parse_args()
    folder = data_dir("tasks", "datasearch", "wtq-dev")
    t0 = time.perf_counter()
    collection = open_collection(folder)
    items = list(formats.read_questions(os.path.join(folder, "questions.tsv")).values())
    gold = formats.read_gold(os.path.join(folder, "gold.tsv"))
    loaded = collection.load(sorted(collection.records))
    read_s = time.perf_counter() - t0
    print(f"wtq-dev: {len(items)} questions, {len(collection.records)} datasets "
          f"({sum(len(t) for t, _ in loaded.values())} tables) read in {read_s:.2f} s; {load_info()}\n")

    given = lambda item: loaded[item.dataset][0]  # noqa: E731
    results = {name: evaluate(items, gold, given, fn) for name, fn in
               (("rules", rules), ("lookup only", lookup_only), ("first cell", first_cell))}
    rows, figures = [], {}
    for name, per in results.items():
        figures[name] = {"EM": mean(p[2] for p in per), "token_F1": mean(p[3] for p in per)}
        rows.append([name, f"{mean(p[2] for p in per):.4f}", f"{mean(p[3] for p in per):.4f}",
                     f"{mean(p[2] for p in per if p[0] == 0):.4f}", f"{mean(p[2] for p in per if p[0] == 1):.4f}"])
    table(["with dataset ids", "EM", "token F1", "EM fold A (tuned on)", "EM fold B (held out)"], rows)

    print()
    by_op = collections.defaultdict(list)
    for _, op, em, _ in results["rules"]:
        by_op[op].append(em)
    table(["operator chosen", "questions", "EM"],
          [[op, len(v), f"{mean(v):.3f}"] for op, v in sorted(by_op.items(), key=lambda x: (-len(x[1]), x[0]))])

    print()
    rows = []
    for select in ("bm25", "bm25+cells"):
        views = {}
        tables_of = lambda d: [views.setdefault(id(t), TableView(t)) for t in loaded[d][0]]  # noqa: E731
        chosen = select_datasets(items, collection, select, lambda ids: None, tables_of)
        hit = [chosen[it.id][0] == it.dataset for it in items]
        per = evaluate(items, gold, lambda it: loaded[chosen[it.id][0]][0] if chosen[it.id][0] else [], rules)
        figures[f"ad-hoc {select}"] = {"right_dataset": mean(hit), "EM": mean(p[2] for p in per)}
        rows.append([select, f"{mean(hit):.4f}", f"{mean(p[2] for p in per):.4f}", f"{mean(p[3] for p in per):.4f}",
                     f"{mean(h for k, h in enumerate(hit) if k % 2 == 1):.4f}"])
    table(["ad-hoc (no dataset id)", "right dataset", "EM", "token F1", "right dataset fold B"], rows)

    print()
    speed = []
    for name, fn in (("rules", rules), ("lookup only", lookup_only)):
        passes = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            evaluate(items, gold, given, fn)
            passes.append(time.perf_counter() - t)
        speed.append([name, spread(passes, "{:.3f}"), f"{len(items) / median(passes):,.0f}"])
        figures[name]["questions_per_s"] = len(items) / median(passes)
    table(["answering (tables read)", "seconds median (min-max)", "questions/s"], speed)
    print()
    verdict("EM of the rules", figures["rules"]["EM"], 0.45, unit="")
    result_line(figures, {"rules_vs_first_cell_EM": figures["rules"]["EM"] / max(figures["first cell"]["EM"], 1e-9)})


if __name__ == "__main__":
    main()
