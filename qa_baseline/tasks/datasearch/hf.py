"""Data Search questions, tables and gold in a Hugging Face schema (read by tasks/hf.py): WikiTableQuestions
(id, question, table {header, rows, name}, answers). Each row's table is its question's dataset, held in
memory as a collection of one CSV per distinct table (no --collection); the gold: the answer values joined by
', '."""
from __future__ import annotations

import csv
import io
from typing import Any

from ...collection.metadata import Collection
from ...collection.sources import MemorySource
from ...core.errors import NoGold, UserError
from ..hf import Schema, columns, question_rows, read_rows, row_id, schema_of, some
from .formats import Question

SCHEMAS = [Schema("WikiTableQuestions (id, question, table {header, rows, name}, answers)",
                  lambda c: {"question", "table"} <= c, gold=("answers",), reads=("question", "table"))]


def _wtq_table(path: str, n: int, qid: str, table: Any) -> tuple[list[str], list[list[str]], str]:
    """(header, rows, name) of a row's table {header, rows, name}, cells as strings."""
    if not isinstance(table, dict) or not isinstance(table.get("header"), list) or not table["header"] \
            or not isinstance(table.get("rows"), list):
        raise UserError(f"{path}: row {n} (id {qid!r}): table is not {{header: [...], rows: [[...]], name}}")
    def cells(values: Any) -> list[str]:
        if not isinstance(values, list):
            raise UserError(f"{path}: row {n} (id {qid!r}): a table row is not a list of cells")
        return ["" if c is None else str(c) for c in values]
    return cells(table["header"]), [cells(r) for r in table["rows"]], str(table.get("name") or "").strip()


def tables(path: str) -> tuple[dict[str, Question], dict[str, dict[str, Any]], dict[str, bytes]]:
    """({qid: Question(qid, question, table id)}, {table id: metadata record}, {data file name: CSV bytes}) of a
    WikiTableQuestions file: each row's own table is its question's dataset. A table's id is its name (else
    `table-N`, N its first row); rows naming one table with other cells get `NAME#2`, ... ."""
    rows = read_rows(path)
    schema_of(path, rows, SCHEMAS)
    found: dict[str, Question] = {}
    records: dict[str, dict[str, Any]] = {}
    files: dict[str, bytes] = {}
    seen: dict[tuple[Any, ...], str] = {}
    for n, row, qid, question in question_rows(path, rows):
        header, cells, name = _wtq_table(path, n, qid, row.get("table"))
        key = (name, tuple(header), tuple(map(tuple, cells)))
        if key not in seen:
            table_id, k = name or f"table-{n}", 1
            while table_id in records:
                k += 1
                table_id = f"{name or f'table-{n}'}#{k}"
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="\n").writerows([header, *cells])
            file_name = f"wtq/{len(records) + 1}.csv"
            files[file_name] = buffer.getvalue().encode("utf-8")
            records[table_id] = {"id": table_id, "title": name, "columns": header, "data_files": [file_name]}
            seen[key] = table_id
        found[qid] = Question(qid, question, seen[key])
    if not found:
        raise UserError(f"{path}: no rows")
    return found, records, files


def questions(path: str) -> dict[str, Question]:
    """{qid: Question} of a WikiTableQuestions file, the dataset id being the row's table (`tables`; `run` reads
    the tables themselves from the same file)."""
    return tables(path)[0]


def collection(path: str) -> Collection:
    """The in-memory collection of a WikiTableQuestions file's tables: one metadata record and one CSV data
    file per distinct table."""
    _, records, files = tables(path)
    return Collection(path, MemorySource(files, path), records)


def gold(path: str) -> dict[str, list[str]]:
    """{qid: [acceptable answer]} of a WikiTableQuestions file: its answers (the values of one answer; a list
    of several is one answer, its values joined by ', ')."""
    rows = read_rows(path)
    schema_of(path, rows, SCHEMAS)
    if "answers" not in columns(rows):
        raise NoGold(f"{path}: no answers column (fix: pass the file with answers as --gold)")
    out: dict[str, list[str]] = {}
    for n, row in enumerate(rows, 1):
        qid = row_id(row, n)
        answers = row.get("answers")
        values = [str(a).strip() for a in answers] if isinstance(answers, list) else []
        if not values or not all(values):
            raise UserError(f"{path}: row {n} (id {qid!r}): answers {answers!r} is not a non-empty list of "
                            "non-empty values")
        if qid in out:
            raise UserError(f"{path}: row {n}: duplicate id {qid!r}")
        out[qid] = [", ".join(values)]
    return some(path, out)
