"""MCQA questions in Hugging Face schemas (read by tasks/hf.py): ARC (id, question, choices {text, label},
answerKey; also AI2's JSON lines with question {stem, choices}), OpenBookQA (id, question_stem, choices,
answerKey), CMMLU / C-Eval (Question or question, A, B, C, D, Answer or answer; id when given, else the row
number) -> Question; four options only."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.errors import UserError
from ..hf import Row, Schema, plain, read_rows, row_id, schema_of, some, text, with_gold
from .formats import LABELS, Question, gold_label


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


SCHEMAS: list[tuple[Schema, Callable[[Row], Read]]] = [  # a schema, the reader of its rows
    (Schema("ARC (id, question, choices {text, label}, answerKey)",
            lambda c: {"question", "choices"} <= c or ("question" in c and "answerKey" in c),
            gold=("answerKey",), reads=("question", "choices")), _arc),
    (Schema("OpenBookQA (id, question_stem, choices {text, label}, answerKey)",
            lambda c: {"question_stem", "choices"} <= c, gold=("answerKey",), reads=("question_stem", "choices")), _arc),
    (Schema("CMMLU / C-Eval (Question or question, A, B, C, D, Answer or answer)",
            lambda c: bool({"Question", "question"} & c) and set(LABELS) <= c, gold=("Answer", "answer"),
            reads=("Question", "question", *LABELS)), _letters),
]


def questions(path: str) -> list[Question]:
    """The questions of PATH in an MCQA schema, with gold when the file has answers."""
    rows = read_rows(path)
    schema = schema_of(path, rows, [s for s, _ in SCHEMAS])
    read = next(reader for s, reader in SCHEMAS if s is schema)
    out: list[Question] = []
    first: dict[str, int] = {}
    has_gold = None
    for n, row in enumerate(rows, 1):
        qid = row_id(row, n)
        where = f"{path}: row {n} (id {qid!r})"
        question, options, labels, answer = read(row)
        if len(options) != 4:
            raise UserError(f"{where}: {len(options)} options, expected 4 (A-D) (fix: keep only questions "
                            "with four options)")
        if not question:
            raise UserError(f"{where}: empty question")
        for label, option in zip(LABELS, options):
            if not option:
                raise UserError(f"{where}: empty option {label}")
        if answer is not None:  # the answer by its option's label (ARC: A-D or 1-4); CMMLU / C-Eval, MMLU also 0-3
            lettered = labels == list(LABELS) or not any(labels)  # A-D, or options without labels (MMLU's list)
            letter = LABELS[labels.index(answer)] if answer in labels else gold_label(answer) if lettered else None
            if letter is None:
                raise UserError(f"{where}: answer {answer!r} is not one of the options' labels "
                                f"({', '.join(labels)})")
            answer = letter
        if has_gold is None:
            has_gold = answer is not None
        elif has_gold != (answer is not None):
            raise UserError(f"{where}: answer missing here but present on other rows, or the reverse "
                            "(fix: give every row its answer, or none)")
        if qid in first:
            raise UserError(f"{where}: duplicate id (first on row {first[qid]})")
        first[qid] = n
        out.append(Question(qid, question, options, answer, n))
    return some(path, out)


def gold(path: str) -> list[Question]:
    return with_gold(path, questions(path), lambda q: q.gold is not None, "no answers (answerKey or Answer)")
