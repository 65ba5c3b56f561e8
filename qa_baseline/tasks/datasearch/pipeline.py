"""The Data Search QA baseline: for each question, the dataset (its id, or without one BM25 over the
collection's metadata) -> its tables (every readable data file; XLSX: the first non-empty sheet) -> the rule-based
table QA of qa_baseline.tableqa -> a cell string, verbatim, or a computed number (count, sum, difference).

Ad-hoc selection (`--select`): `bm25` takes BM25's best dataset (metadata: title, description, column names;
k1 0.9, b 0.4; collection/metadata_search.py); `bm25+cells` re-ranks BM25's top 10 by s / s_max + 0.1 x the
table's match with the question (`linking.table_match`: its 3 best cell mentions plus half its 2 best header
scores).
A dataset whose data files are missing or unreadable gets an empty answer; one warning per dataset names the
file and the reason, and the run's row counts them (`observed.unreadable_datasets`)."""
from __future__ import annotations

import collections
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.progress import tqdm  # a bar on a terminal, a line every 30 s in a log

from ...collection.metadata_search import MetadataBM25
from ...retrievers.base import B, K1
from ...tableqa import linking, question as questions
from ...tableqa.engine import answer
from ...tableqa.view import TableView
from ..base import Components, Prediction
from .formats import Question

if TYPE_CHECKING:
    from . import DataSearchSettings

DEPTH = 10          # bm25+cells: BM25 candidates re-ranked
CELL_WEIGHT = 0.1   # bm25+cells: weight of the table match (chosen on fold A of wtq-dev, see the README)


def one_line(text: str) -> str:
    """An answer on one line of the run file: tabs and line breaks become spaces (EM compares whitespace-
    collapsed strings, so nothing is lost)."""
    return " ".join(text.split())


def select_datasets(items: Sequence[Question], collection: Any, select: str,
                    load: Callable[[list[str]], None], tables_of: Callable[[str], list[TableView]]
                    ) -> dict[str, tuple[str | None, list[tuple[str, float]]]]:
    """{qid: (dataset id or None, [(id, score)] of the candidates)} for ITEMS (their ids are not used)."""
    index = MetadataBM25(collection.records)
    hits = {item.id: index.search(item.question, DEPTH if select == "bm25+cells" else 1) for item in items}
    if select == "bm25+cells":
        load(sorted({d for h in hits.values() for d, _ in h}))  # every candidate read once, an archive once
    out: dict[str, tuple[str | None, list[tuple[str, float]]]] = {}
    for item in items:
        found = hits[item.id]
        if not found or select == "bm25":
            out[item.id] = (found[0][0] if found else None, found)
            continue
        q = questions.analyse(item.question)
        top = found[0][1]
        scored = [(d, s / top + CELL_WEIGHT * max((linking.table_match(q, v) for v in tables_of(d)), default=0.0))
                  for d, s in found]
        out[item.id] = (max(scored, key=lambda x: x[1])[0], scored)  # equal scores: BM25's order
    return out


def predict(items: Mapping[str, Question], components: Components, settings: DataSearchSettings) -> Prediction:
    """ITEMS: {qid: formats.Question}; COMPONENTS: the collection (DataSearch.open)."""
    listed = list(items.values())
    collection = components.collection
    assert collection is not None  # DataSearch.open
    started = time.perf_counter()
    adhoc = settings.adhoc or any(not item.dataset for item in listed)
    views: dict[int, TableView] = {}
    loaded: dict[str | None, tuple[list[Any], list[str]]] = {}

    def load(dataset_ids: Iterable[str]) -> None:
        missing = [d for d in dataset_ids if d not in loaded]
        if missing:
            loaded.update(collection.load(missing, sheets=settings.sheets))

    def tables_of(dataset_id: str) -> list[TableView]:
        load([dataset_id])
        return [views.setdefault(id(t), TableView(t)) for t in loaded[dataset_id][0]]

    chosen: dict[str, tuple[str | None, list[tuple[str, float]]]] = {}
    if adhoc:
        todo = [it for it in listed if settings.adhoc or not it.dataset]
        chosen = select_datasets(todo, collection, settings.select, load, tables_of)
    datasets = {it.id: (chosen[it.id][0] if it.id in chosen else it.dataset) for it in listed}
    load(sorted({d for d in datasets.values() if d}))
    warned: set[str | None] = set()
    unreadable: set[str | None] = set()
    answers: dict[str, str] = {}
    trace: list[dict[str, Any]] = []
    operators: collections.Counter[str] = collections.Counter()
    for item in tqdm(listed, desc="questions", unit=" q", disable=None):
        dataset = datasets[item.id]
        tables, problems = loaded.get(dataset, ([], ["no dataset chosen (BM25 found no matching term)"]))
        if problems and dataset not in warned:
            warned.add(dataset)
            for problem in problems:
                print(f"warning: dataset {dataset}: {problem}", file=sys.stderr)
        if not tables:
            unreadable.add(dataset)
        a = answer(item.question, tables, views)
        answers[item.id] = one_line(a.text)
        operators[a.operator] += 1
        if settings.trace:
            record = {"id": item.id, "question": item.question, "dataset": dataset, "given_dataset": item.dataset,
                      **a.trace(), "answer": answers[item.id], "problems": problems}
            if item.id in chosen:
                record["candidates"] = [{"dataset": d, "score": round(s, 4)} for d, s in chosen[item.id][1]]
            trace.append(record)
    seconds = time.perf_counter() - started
    chose: dict[str, Any] = {"mode": "ad-hoc" if adhoc else "dataset ids"}
    observed: dict[str, Any] = {"unreadable_datasets": len(unreadable), "operators": dict(sorted(operators.items())),
                "questions_per_second": round(len(listed) / seconds, 1)}
    if adhoc:
        chose.update({"k1": K1, "b": B})
        known = [it for it in listed if it.id in chosen and it.dataset]
        if known:  # the questions came with ids: how often the search found that dataset
            observed["dataset_accuracy"] = round(sum(chosen[it.id][0] == it.dataset for it in known) / len(known), 4)
    return Prediction(answers, settings=chose, observed=observed, trace=trace if settings.trace else None)
