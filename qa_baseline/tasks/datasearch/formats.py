"""NTCIR Data Search QA: questions reader, gold reader, run-file writer, validator, scorer.

Questions: `qid\\tquestion\\tdataset_id` lines (the dataset id may be left out: the ad-hoc setting).
Gold: `qid\\tanswer[\\talternative ...]` lines, the acceptable answers of each question.
Run file: first line `<SYSDESC>a short description of the system</SYSDESC>`, then `QID\\tANSWER`, one line per
question (an empty ANSWER means no answer). Metrics per question, best over the acceptable answers,
averaged over questions: EM, exact match after `metrics.normalize` (NFKC, case, whitespace,
leading/trailing punctuation), and F1 of token sets (`metrics.tokens`)."""
from __future__ import annotations

import collections
import re
from collections.abc import Mapping

from ...core.errors import UserError, at
from ...core.fileio import write_lines
from ...core.textio import text_lines
from ...scoring.metrics import Answered, Scores, score_questions
from ...scoring.validate import Errors, SubmissionFile, gold_lines, shape

SYSDESC = re.compile(r"<SYSDESC>(.*)</SYSDESC>")


def read_gold(path: str) -> dict[str, list[str]]:
    """{qid: [acceptable answers]} in file order."""
    gold: dict[str, list[str]] = {}
    for n, line in gold_lines(path):
        qid, *answers = line.split("\t")
        if not qid or not answers or not all(a.strip() for a in answers):
            raise at(path, n, "expected qid<TAB>answer[<TAB>alternative ...] with non-empty fields")
        if qid in gold:
            raise at(path, n, f"duplicate qid {qid!r}")
        gold[qid] = answers
    if not gold:
        raise UserError(f"{path}: no questions (fix: write one line per question: qid<TAB>answer[<TAB>alternative "
                        "...])")
    return gold


def write_submission(path: str, answers: Mapping[str, str], description: str = "qa_baseline") -> None:
    write_lines(path, [f"<SYSDESC>{description}</SYSDESC>", *(f"{qid}\t{answer}" for qid, answer in answers.items())])


def read_submission(path: str, gold: Mapping[str, list[str]], errors: Errors) -> dict[str, str]:
    """{qid: answer}; problems go to ERRORS."""
    sub = SubmissionFile(path, errors, gold, line="QID<TAB>ANSWER, after a first line <SYSDESC>...</SYSDESC>",
                         shape=SHAPE)
    answers: dict[str, str] = {}
    lines = list(sub.lines())
    if lines and SYSDESC.fullmatch(lines[0][1]):
        lines = lines[1:]
    else:
        sub.error(1, "the first line is not <SYSDESC>...</SYSDESC>",
                  "start the file with <SYSDESC>a short description of the system</SYSDESC>")
    for n, text in lines:
        fields = sub.fields(n, text, 2, "QID<TAB>ANSWER")
        if fields and sub.take(n, fields[0]):
            answers[fields[0]] = fields[1]
    sub.missing()
    return answers


def score(gold: Mapping[str, list[str]], answers: Mapping[str, str]) -> Scores:
    return score_questions(("EM", "token_F1"),
                           [Answered(answers[qid], acceptable) for qid, acceptable in gold.items()])


def gold_rows(gold: Mapping[str, list[str]]) -> list[tuple[str, str]]:
    """(qid, its acceptable answers) in the order score lists the questions."""
    return [(qid, " | ".join(answers)) for qid, answers in gold.items()]


Question = collections.namedtuple("Question", "id question dataset")


def read_questions(path: str) -> dict[str, Question]:
    """{qid: Question(id, question, dataset)} of a questions file, lines `qid<TAB>question[<TAB>dataset_id]`
    (no dataset id, or an empty one: the dataset is searched for); a malformed line is a UserError at FILE:LINE."""
    out: dict[str, Question] = {}
    for n, line in text_lines(path):
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) not in (2, 3) or not fields[0].strip() or not fields[1].strip():
            raise at(path, n, f"expected qid<TAB>question[<TAB>dataset_id] with a non-empty qid and question, "
                              f"found {len(fields)} field(s)")
        qid = fields[0].strip()
        if qid in out:
            raise at(path, n, f"duplicate qid {qid!r}")
        out[qid] = Question(qid, fields[1].strip(), fields[2].strip() if len(fields) == 3 else "")
    if not out:
        raise UserError(f"{path}: no questions (fix: write one line per question: qid<TAB>question[<TAB>dataset_id])")
    return out


# told from other tasks' submissions (scoring.validate.Shape): the first line
SHAPE = shape("datasearch", "a <SYSDESC>...</SYSDESC> line, then QID<TAB>ANSWER lines",
              lambda lines: bool(SYSDESC.fullmatch(lines[0])))
