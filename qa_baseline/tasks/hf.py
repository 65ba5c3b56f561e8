"""Task data in the public schemas of Hugging Face datasets: a Parquet file, a JSON-lines file or a `datasets`
folder written by `save_to_disk`, read as rows and told apart by their columns. Each task's schemas and the
mapping of their rows to its items live in its folder (tasks/mcqa/hf.py: ARC, OpenBookQA, CMMLU / C-Eval;
tasks/dbqa/hf.py: WikiQA; tasks/qac/hf.py: SQuAD 2.0; tasks/datasearch/hf.py: WikiTableQuestions).

The gold (answerKey, Answer, label, answers) is read there for read_gold; the tasks' read_input drops it as for
their official formats. Errors name the file and the row (1-based); a file whose columns match no schema of the
task, or hold ids or answers under names its schema does not read (qid, answer: errors.unread), is one error that
lists its columns and the schemas known. A value is absent only when it is missing, None or empty text: an
answer 0 or a label False is a value. pyarrow and datasets are imported when used."""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..core.errors import NoGold, UserError, at, unread
from ..core.hints import requires
from ..core.textio import text_lines

SUFFIXES = (".parquet", ".jsonl")
Row = dict[str, Any]

T = TypeVar("T")
I = TypeVar("I")


def is_dataset_folder(path: str) -> bool:
    """A folder written by `datasets` save_to_disk (a Dataset or a DatasetDict)."""
    return os.path.isdir(path) and any(os.path.isfile(os.path.join(path, name)) for name in
                                       ("state.json", "dataset_info.json", "dataset_dict.json"))


def is_dataset(path: str) -> bool:
    """Data this module reads: a .parquet or .jsonl file, or a save_to_disk folder."""
    return path.lower().endswith(SUFFIXES) or is_dataset_folder(path)


def read_rows(path: str) -> list[Row]:
    """The rows of a Parquet file, a JSON-lines file or a save_to_disk folder, as dicts."""
    if os.path.isdir(path):
        datasets = requires("hf", "datasets")  # heavy: only for a folder
        ds = datasets.load_from_disk(path)
        if isinstance(ds, datasets.DatasetDict):
            if len(ds) != 1:
                raise UserError(f"{path}: a dataset of splits {', '.join(ds)} (fix: give one split's folder, "
                                f"e.g. {os.path.join(path, next(iter(ds)))})")
            ds = next(iter(ds.values()))
        return list(ds.to_list())
    if path.lower().endswith(".parquet"):
        pq = requires("hf", "pyarrow.parquet")
        try:
            return list(pq.read_table(path).to_pylist())
        except Exception as e:  # pyarrow's errors for a file that is not Parquet
            raise UserError(f"{path}: cannot read it as Parquet ({e})") from None
    rows = []
    for n, line in text_lines(path):  # UTF-8 (a BOM accepted), 16 MiB per line, another encoding named
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise UserError(f"{path}:{n}: not JSON ({e.msg})") from None
        if not isinstance(row, dict):
            raise UserError(f"{path}:{n}: not a JSON object (fix: one object per line)")
        rows.append(row)
    return rows


def some(path: str, items: T) -> T:
    """ITEMS, read from PATH; a UserError when there are none."""
    if not items:
        raise UserError(f"{path}: no rows (fix: give a file with one row per question)")
    return items


def question_rows(path: str, rows: Sequence[Row]) -> Iterator[tuple[int, Row, str, str]]:
    """(row number, row, id, question) of each row: the id is the row's `id` (else its number); an empty
    question or a duplicate id is a UserError naming the row."""
    first: dict[str, int] = {}
    for n, row in enumerate(rows, 1):
        qid, question = row_id(row, n), text(row, "question")
        if not question:
            raise UserError(f"{path}: row {n} (id {qid!r}): empty question")
        if qid in first:
            raise UserError(f"{path}: row {n}: duplicate id {qid!r} (first on row {first[qid]})")
        first[qid] = n
        yield n, row, qid, question


def with_gold(path: str, items: list[I], has: Callable[[I], bool], what: str) -> list[I]:
    """ITEMS when their first has gold (HAS), else NoGold: PATH has WHAT (a file without gold)."""
    if not has(items[0]):
        raise NoGold(f"{path}: {what} (fix: pass the file with answers as --gold)")
    return items


def columns(rows: Sequence[Row]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def plain(value: Any, strip: bool = True) -> str:
    """VALUE as text (STRIP: stripped), '' for None: 0 and False are values."""
    return "" if value is None else str(value).strip() if strip else str(value)


def text(row: Row, *names: str, strip: bool = True) -> str:
    """The value of the first of NAMES that ROW has (not None) as text (plain), else ''."""
    return plain(next((row[name] for name in names if row.get(name) is not None), None), strip)


def row_id(row: Row, n: int) -> str:
    """The row's id: its `id` (0 is an id), else its row number N."""
    return text(row, "id") or str(n)


def binary(value: Any) -> int | None:
    """A 0/1 label as an int: 0, 1, "0", "1", False, True (0.0 and 1.0 too); None for anything else."""
    if isinstance(value, str):
        value = value.strip()
        return int(value) if value in ("0", "1") else None
    return int(value) if isinstance(value, (bool, int, float)) and value in (0, 1) else None


@dataclass(frozen=True)
class Schema:
    """A public schema: NAME (with its columns, for messages); TELLS, whether a file's columns are this schema's;
    the columns it reads ids by (IDS), gold by (GOLD) and the others it reads (READS)."""
    name: str
    tells: Callable[[set[str]], bool]
    ids: tuple[str, ...] = ("id",)
    gold: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()


def schema_of(path: str, rows: Sequence[Row], schemas: Sequence[Schema]) -> Schema:
    """The first of SCHEMAS that tells the columns of ROWS; a UserError of one line listing the columns and the
    schemas known when none does, or when the file holds ids or answers under names the schema does not read
    (errors.unread: a run would number the questions by row or score nothing)."""
    found = columns(rows)
    known = "; ".join(s.name for s in schemas)
    schema = next((s for s in schemas if s.tells(set(found))), None)
    if schema is None:
        raise at(path, None, f"columns {', '.join(found) or '(none)'} match no known schema (known: {known})",
                 "rename the columns to those of a known schema")
    error = unread(path, None, "columns", found, schema.reads, schema.ids, schema.gold, known)
    if error:
        raise error
    return schema
