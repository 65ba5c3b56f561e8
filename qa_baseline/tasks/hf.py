"""Task data in the public schemas of Hugging Face datasets: a Parquet file, a JSON-lines file or a `datasets`
folder written by `save_to_disk`, mapped to a task's own items.

mcqa: ARC (id, question, choices {text, label}, answerKey; also AI2's JSON lines with question {stem,
choices}), OpenBookQA (id, question_stem, choices, answerKey), CMMLU / C-Eval (Question or question, A, B, C,
D, Answer or answer; id when given, else the row number) -> Question; four options only. dbqa: WikiQA
(question_id, question, answer or sentence, label) -> one Group per run of consecutive rows of a question.
qac: SQuAD 2.0 (id, title, context, question, answers {text, answer_start}) -> qac Question and Gold (the
texts are one answer's accepted spellings; an empty answers.text is no answer); the context is dropped, since
qac retrieves from a corpus: the corpus given to `run` must hold those contexts. datasearch: WikiTableQuestions
(id, question, table {header, rows, name}, answers): each row's table is its question's dataset, held in
memory as a collection of one CSV per distinct table (no --collection); gold: the answer values joined by ', '.
The gold (answerKey, Answer, label, answers) is read here for read_gold; the tasks' read_input drops it as for
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

from ..collection.metadata import Collection
from ..collection.sources import MemorySource
from ..core.errors import NoGold, UserError, at, unread
from ..core.hints import requires
from ..core.textio import text_lines
from ..rankers.base import Candidates as Group
from .datasearch.formats import Question as DSQuestion
from .mcqa.formats import LABELS, Question, gold_label
from .qac.formats import Question as QACQuestion, Gold

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


# --- mcqa --------------------------------------------------------------------------------------------------

def _choices(row: Row) -> tuple[str, list[str], list[str]]:
    """ARC / OpenBookQA: (question, option texts, option labels); AI2's nested question {stem, choices} too."""
    question: Any = next((row[name] for name in ("question", "question_stem") if name in row), None)
    choices: Any = row.get("choices")
    if isinstance(question, dict):  # AI2's own JSON lines: question {stem, choices: [{text, label}]}
        question, choices = question.get("stem"), question.get("choices")
    if isinstance(choices, list):  # [{text, label}, ...]
        choices = {"text": [c.get("text") if isinstance(c, dict) else c for c in choices],
                   "label": [c.get("label") if isinstance(c, dict) else None for c in choices]}
    choices = choices if isinstance(choices, dict) else {}
    return plain(question), [plain(t) for t in choices.get("text") or []], [plain(x) for x in choices.get("label") or []]


Read = tuple[str, list[str], list[str], str | None]  # question, options, their labels, the answer or None


def _arc(row: Row) -> Read:
    question, texts, labels = _choices(row)
    return question, texts, labels, text(row, "answerKey") or None


def _letters(row: Row) -> Read:
    return text(row, "Question", "question"), [text(row, x) for x in LABELS], list(LABELS), \
        text(row, "Answer", "answer") or None


MCQA_SCHEMAS: list[tuple[Schema, Callable[[Row], Read]]] = [  # a schema, the reader of its rows
    (Schema("ARC (id, question, choices {text, label}, answerKey)",
            lambda c: {"question", "choices"} <= c or ("question" in c and "answerKey" in c),
            gold=("answerKey",), reads=("question", "choices")), _arc),
    (Schema("OpenBookQA (id, question_stem, choices {text, label}, answerKey)",
            lambda c: {"question_stem", "choices"} <= c, gold=("answerKey",), reads=("question_stem", "choices")), _arc),
    (Schema("CMMLU / C-Eval (Question or question, A, B, C, D, Answer or answer)",
            lambda c: bool({"Question", "question"} & c) and set(LABELS) <= c, gold=("Answer", "answer"),
            reads=("Question", "question", *LABELS)), _letters),
]


def mcqa_questions(path: str) -> list[Question]:
    """The questions of PATH in an MCQA schema, with gold when the file has answers."""
    rows = read_rows(path)
    schema = schema_of(path, rows, [s for s, _ in MCQA_SCHEMAS])
    read = next(reader for s, reader in MCQA_SCHEMAS if s is schema)
    questions: list[Question] = []
    first: dict[str, int] = {}
    has_gold = None
    for n, row in enumerate(rows, 1):
        qid = row_id(row, n)
        where = f"{path}: row {n} (id {qid!r})"
        question, options, labels, gold = read(row)
        if len(options) != 4:
            raise UserError(f"{where}: {len(options)} options, expected 4 (A-D) (fix: keep only questions "
                            "with four options)")
        if not question:
            raise UserError(f"{where}: empty question")
        for label, option in zip(LABELS, options):
            if not option:
                raise UserError(f"{where}: empty option {label}")
        if gold is not None:  # the answer by its option's label (ARC: A-D or 1-4); CMMLU / C-Eval, MMLU also 0-3
            lettered = labels == list(LABELS) or not any(labels)  # A-D, or options without labels (MMLU's list)
            letter = LABELS[labels.index(gold)] if gold in labels else gold_label(gold) if lettered else None
            if letter is None:
                raise UserError(f"{where}: answer {gold!r} is not one of the options' labels "
                                f"({', '.join(labels)})")
            gold = letter
        if has_gold is None:
            has_gold = gold is not None
        elif has_gold != (gold is not None):
            raise UserError(f"{where}: answer missing here but present on other rows, or the reverse "
                            "(fix: give every row its answer, or none)")
        if qid in first:
            raise UserError(f"{where}: duplicate id (first on row {first[qid]})")
        first[qid] = n
        questions.append(Question(qid, question, options, gold, n))
    return some(path, questions)


def mcqa_gold(path: str) -> list[Question]:
    return with_gold(path, mcqa_questions(path), lambda q: q.gold is not None, "no answers (answerKey or Answer)")


# --- dbqa --------------------------------------------------------------------------------------------------

DBQA_SCHEMAS = [Schema("WikiQA (question_id, question, answer or sentence, label)",
                       lambda c: "question" in c and bool({"answer", "sentence"} & c), ids=("question_id",),
                       gold=("label",), reads=("question", "answer", "sentence"))]


def dbqa_groups(path: str) -> list[Group]:
    """The groups of PATH in the WikiQA schema: consecutive rows of the same question (question_id when given);
    labels 0/1 (False/True too)."""
    rows = read_rows(path)
    schema_of(path, rows, DBQA_SCHEMAS)
    labelled = "label" in columns(rows)
    groups: list[Group] = []
    key = None
    for n, row in enumerate(rows, 1):
        question, sentence = text(row, "question", strip=False), text(row, "answer", "sentence", strip=False)
        label = binary(row.get("label"))
        if labelled and label is None:
            raise UserError(f"{path}: row {n}: label {row.get('label')!r} is not 0 or 1")
        this = (row.get("question_id"), question)
        if not groups or this != key:
            groups.append(Group(question, [], [] if labelled else None, n))
            key = this
        groups[-1].texts.append(sentence)
        if label is not None and labelled:
            groups[-1].labels.append(label)  # type: ignore[union-attr]  # labelled: a list
    return some(path, groups)


def dbqa_gold(path: str) -> list[Group]:
    return with_gold(path, dbqa_groups(path), lambda g: g.labels is not None, "no label column")


# --- qac (SQuAD 2.0) ---------------------------------------------------------------------------------------

QAC_SCHEMAS = [Schema("SQuAD 2.0 (id, title, context, question, answers {text, answer_start})",
                      lambda c: "question" in c and bool({"context", "answers"} & c), gold=("answers",),
                      reads=("title", "context", "question"))]


def _squad_answers(path: str, n: int, value: Any) -> list[list[str]]:
    """SQuAD's answers {text: [...], answer_start: [...]} -> qac gold answers: the texts (the annotators'
    spellings of the one answer, duplicates dropped) as one answer's accepted spellings; [] when none."""
    texts = value.get("text") if isinstance(value, dict) else None
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise UserError(f"{path}: row {n}: answers is not {{text: [...], answer_start: [...]}}")
    spellings = list(dict.fromkeys(t.strip() for t in texts if t.strip()))
    return [spellings] if spellings else []


def _squad_rows(path: str) -> tuple[list[Row], bool]:
    rows = read_rows(path)
    schema_of(path, rows, QAC_SCHEMAS)
    if not rows:
        raise UserError(f"{path}: no rows")
    return rows, "answers" in columns(rows)


def qac_items(path: str) -> list[tuple[str, str, list[list[str]] | None]]:
    """(qid, question, gold answers or None) of PATH in the SQuAD 2.0 schema, with the qac readers' checks."""
    rows, has_gold = _squad_rows(path)
    out: list[tuple[str, str, list[list[str]] | None]] = []
    for n, row, qid, question in question_rows(path, rows):
        out.append((qid, question, _squad_answers(path, n, row.get("answers")) if has_gold else None))
    return out


def qac_questions(path: str) -> list[Any]:
    """qac's Questions of a SQuAD 2.0 file (no series). The context is not read: qac answers from a corpus, so
    the corpus given to `run` must hold the contexts (e.g. one document per distinct context)."""
    return [QACQuestion(qid, question, "", []) for qid, question, _ in qac_items(path)]


def qac_gold(path: str) -> dict[str, Any]:
    """{qid: qac Gold} of a SQuAD 2.0 file: an empty answers.text is no answer (has_answer 0); no supporting
    documents (SQuAD names none), so qac-1's MRR_supported is not computed."""
    items = qac_items(path)
    if items[0][2] is None:
        raise NoGold(f"{path}: no answers column (fix: pass the file with answers as --gold)")
    return {qid: Gold(answers, set(), False) for qid, _, answers in items}


# --- datasearch (WikiTableQuestions) -----------------------------------------------------------------------

DATASEARCH_SCHEMAS = [Schema("WikiTableQuestions (id, question, table {header, rows, name}, answers)",
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


def datasearch_tables(path: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]], dict[str, bytes]]:
    """({qid: Question(qid, question, table id)}, {table id: metadata record}, {data file name: CSV bytes}) of a
    WikiTableQuestions file: each row's own table is its question's dataset. A table's id is its name (else
    `table-N`, N its first row); rows naming one table with other cells get `NAME#2`, ... ."""
    import csv
    import io
    rows = read_rows(path)
    schema_of(path, rows, DATASEARCH_SCHEMAS)
    questions: dict[str, Any] = {}
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
        questions[qid] = DSQuestion(qid, question, seen[key])
    if not questions:
        raise UserError(f"{path}: no rows")
    return questions, records, files


def datasearch_questions(path: str) -> Any:
    """{qid: datasearch Question} of a WikiTableQuestions file, the dataset id being the row's table
    (datasearch_tables; `run` reads the tables themselves from the same file)."""
    return datasearch_tables(path)[0]


def datasearch_collection(path: str) -> Any:
    """The in-memory collection of a WikiTableQuestions file's tables: one metadata record and one CSV data
    file per distinct table."""
    _, records, files = datasearch_tables(path)
    return Collection(path, MemorySource(files, path), records)


def datasearch_gold(path: str) -> dict[str, list[str]]:
    """{qid: [acceptable answer]} of a WikiTableQuestions file: its answers (the values of one answer; a list
    of several is one answer, its values joined by ', ')."""
    rows = read_rows(path)
    schema_of(path, rows, DATASEARCH_SCHEMAS)
    if "answers" not in columns(rows):
        raise NoGold(f"{path}: no answers column (fix: pass the file with answers as --gold)")
    gold: dict[str, list[str]] = {}
    for n, row in enumerate(rows, 1):
        qid = row_id(row, n)
        answers = row.get("answers")
        values = [str(a).strip() for a in answers] if isinstance(answers, list) else []
        if not values or not all(values):
            raise UserError(f"{path}: row {n} (id {qid!r}): answers {answers!r} is not a non-empty list of "
                            "non-empty values")
        if qid in gold:
            raise UserError(f"{path}: row {n}: duplicate id {qid!r}")
        gold[qid] = [", ".join(values)]
    return some(path, gold)
