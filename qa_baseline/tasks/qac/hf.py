"""QAC questions and gold in a Hugging Face schema (read by tasks/hf.py): SQuAD 2.0 (id, title, context,
question, answers {text, answer_start}) -> Question and Gold (the texts are one answer's accepted spellings; an
empty answers.text is no answer). The context is dropped, since qac retrieves from a corpus: the corpus given
to `run` must hold those contexts."""
from __future__ import annotations

from typing import Any

from ...core.errors import NoGold, UserError
from ..hf import Row, Schema, columns, question_rows, read_rows, schema_of
from .formats import Gold, Question

SCHEMAS = [Schema("SQuAD 2.0 (id, title, context, question, answers {text, answer_start})",
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
    schema_of(path, rows, SCHEMAS)
    if not rows:
        raise UserError(f"{path}: no rows")
    return rows, "answers" in columns(rows)


def items(path: str) -> list[tuple[str, str, list[list[str]] | None]]:
    """(qid, question, gold answers or None) of PATH in the SQuAD 2.0 schema, with the qac readers' checks."""
    rows, has_gold = _squad_rows(path)
    out: list[tuple[str, str, list[list[str]] | None]] = []
    for n, row, qid, question in question_rows(path, rows):
        out.append((qid, question, _squad_answers(path, n, row.get("answers")) if has_gold else None))
    return out


def questions(path: str) -> list[Question]:
    """qac's Questions of a SQuAD 2.0 file (no series). The context is not read: qac answers from a corpus, so
    the corpus given to `run` must hold the contexts (e.g. one document per distinct context)."""
    return [Question(qid, question, "", []) for qid, question, _ in items(path)]


def gold(path: str) -> dict[str, Gold]:
    """{qid: qac Gold} of a SQuAD 2.0 file: an empty answers.text is no answer (has_answer 0); no supporting
    documents (SQuAD names none), so qac-1's MRR_supported is not computed."""
    found = items(path)
    if found[0][2] is None:
        raise NoGold(f"{path}: no answers column (fix: pass the file with answers as --gold)")
    return {qid: Gold(answers, set(), False) for qid, _, answers in found}
