"""DBQA groups in a Hugging Face schema (read by tasks/hf.py): WikiQA (question_id, question, answer or
sentence, label) -> one Group per run of consecutive rows of a question."""
from __future__ import annotations

from ...core.errors import UserError
from ..hf import Schema, binary, columns, read_rows, schema_of, some, text, with_gold
from .formats import Group

SCHEMAS = [Schema("WikiQA (question_id, question, answer or sentence, label)",
                  lambda c: "question" in c and bool({"answer", "sentence"} & c), ids=("question_id",),
                  gold=("label",), reads=("question", "answer", "sentence"))]


def groups(path: str) -> list[Group]:
    """The groups of PATH in the WikiQA schema: consecutive rows of the same question (question_id when given);
    labels 0/1 (False/True too)."""
    rows = read_rows(path)
    schema_of(path, rows, SCHEMAS)
    labelled = "label" in columns(rows)
    out: list[Group] = []
    key = None
    for n, row in enumerate(rows, 1):
        question, sentence = text(row, "question", strip=False), text(row, "answer", "sentence", strip=False)
        label = binary(row.get("label"))
        if labelled and label is None:
            raise UserError(f"{path}: row {n}: label {row.get('label')!r} is not 0 or 1")
        this = (row.get("question_id"), question)
        if not out or this != key:
            out.append(Group(question, [], [] if labelled else None, n))
            key = this
        out[-1].texts.append(sentence)
        if label is not None and labelled:
            out[-1].labels.append(label)  # type: ignore[union-attr]  # labelled: a list
    return some(path, out)


def gold(path: str) -> list[Group]:
    return with_gold(path, groups(path), lambda g: g.labels is not None, "no label column")
