"""IJCNLP-2017 Task 5 formats: the question CSV, the `id,X` submission, its validator, accuracy.

Input: CSV `id,"question","A","B","C","D"[,correctAnswer]` (UTF-8 with or without BOM; quoted fields may
hold newlines; an optional header row whose first field is `id` is skipped). correctAnswer is 0, 1, 2 or 3
as in the official files (for options A-D), or the letter A-D as in some stand-ins. Output:
`TEAMID_en.csv` / `TEAMID_zh.csv` with lines `id,X` (X one of A, B, C, D), every test id exactly once.
Scored by accuracy per file, per language and over all questions."""
from __future__ import annotations

import csv
from collections import namedtuple
from collections.abc import Iterable, Mapping, Sequence

from ...core.errors import NoGold, UserError, at
from ...core.fileio import write_lines
from ...core.textio import text_lines
from ...scoring.metrics import Judged, Scores, score_questions, summarise
from ...scoring.validate import Errors, SubmissionFile, shape

LABELS = "ABCD"
FIELDS = "id, question, A, B, C, D"  # the fields of a question line, less the answer
Question = namedtuple("Question", "id question options gold line")


def gold_label(text: str) -> str | None:
    """The gold label as a letter: 0-3 (official) or A-D; None for anything else."""
    text = text.strip().upper()
    return LABELS[int(text)] if text in ("0", "1", "2", "3") else text if text in tuple(LABELS) else None


def read(path: str) -> list[Question]:
    """Questions of an IJCNLP-2017 T5 CSV file, validated; errors name the file and line."""
    questions: list[Question] = []
    first_line: dict[str, int] = {}
    has_gold = None
    widths: list[int] = []  # the field count of each question row so far (6: no answers, 7: with them)
    reader = csv.reader((text for _, text in text_lines(path)), strict=True)
    end = 0
    try:
        for rec in reader:
            line, end = end + 1, reader.line_num
            if not rec or (not questions and rec[0].strip().lower() == "id"):
                continue
            if len(rec) not in (6, 7):
                raise at(path, line, f"{len(rec)} fields, expected 7 ({FIELDS}, answer) or, in a file without "
                         f"answers, 6", f"write the line as {FIELDS}, answer (quote a field that holds a comma)")
            if widths and len(rec) != widths[0]:  # an unlabelled test file has 6 fields on every line
                if len(rec) == 6 or len(widths) == 1:  # the 6-field line is the odd one
                    raise at(path, line if len(rec) == 6 else questions[0].line,
                             f"6 fields, expected 7 ({FIELDS}, answer)",
                             f"add the answer (0-3 or A-D) as the 7th field, as on line "
                             f"{questions[0].line if len(rec) == 6 else line}")
                raise at(path, line, f"7 fields, expected 6 ({FIELDS}) as on the lines before (a file without "
                         "answers)", "remove the 7th field, or give every line its answer")
            widths.append(len(rec))
            qid, text, *options = (x.strip() for x in rec[:6])
            gold: str | None = rec[6].strip() if len(rec) == 7 else ""
            if not qid:
                raise at(path, line, "empty id")
            if qid in first_line:
                raise at(path, line, f"duplicate id {qid!r} (first on line {first_line[qid]})")
            if not text:
                raise at(path, line, "empty question")
            for label, opt in zip(LABELS, options):
                if not opt:
                    raise at(path, line, f"empty option {label}")
            if gold and gold_label(gold) is None:
                raise at(path, line, f"correctAnswer {gold!r} is not 0, 1, 2, 3 (or A, B, C, D)")
            gold = gold and gold_label(gold)
            if has_gold is None:
                has_gold = bool(gold)
            elif has_gold != bool(gold):
                raise at(path, line, "gold label missing here but present on other lines, or the reverse",
                         "give every line its answer (0-3 or A-D), or none")
            first_line[qid] = line
            questions.append(Question(qid, text, options, gold or None, line))
    except csv.Error as e:
        raise at(path, end + 1, f"malformed CSV ({e})") from None
    if not questions:
        raise UserError(f"{path}: no questions (fix: write one line per question: id,\"question\",\"A\",\"B\","
                        "\"C\",\"D\"[,answer])")
    return questions


def write_submission(path: str, answers: Mapping[str, str]) -> None:
    """`id,X` lines, written atomically; answers maps id -> label, in question order."""
    write_lines(path, (f"{qid},{label}" for qid, label in answers.items()))


def read_gold(path: str) -> list[Question]:
    questions = read(path)
    if not questions[0].gold:
        raise NoGold(f"{path}: no gold labels (the 7th field, correct) (fix: pass the answer key as --gold)")
    return questions


def read_submission(path: str, questions: Iterable[Question], errors: Errors) -> dict[str, str]:
    """{id: label} of an `id,X` submission; problems go to ERRORS."""
    sub = SubmissionFile(path, errors, [q.id for q in questions], line="id,X (X one of A, B, C, D)", shape=SHAPE)
    answers = {}
    for n, text in sub.lines():
        fields = sub.fields(n, text, 2, "id,X", sep=",")
        if fields and sub.take(n, fields[0]):
            if fields[1] in LABELS:
                answers[fields[0]] = fields[1]
            else:
                sub.error(n, f"answer {fields[1]!r} is not one of A, B, C, D", "write one capital letter A-D")
    sub.missing()
    return answers


def score(questions: Iterable[Question], answers: Mapping[str, str]) -> Scores:
    """Accuracy: each question's chosen option, one judged item."""
    return score_questions(("accuracy",), [Judged.binary([int(answers.get(q.id) == q.gold)], 1) for q in questions])


def gold_rows(questions: Iterable[Question]) -> list[tuple[str, str]]:
    """(id, gold letter) in the order score lists the questions."""
    return [(q.id, q.gold) for q in questions]


def score_files(files: Iterable[tuple[str, str, Sequence[Question], Mapping[str, str]]]) -> Scores:
    """Accuracy over all questions, per language when there are several, per file when there are several;
    FILES: (lang, name, questions, answers) tuples."""
    pooled: list[float] = []
    by_lang: dict[str, list[float]] = {}
    by_file: dict[str, list[float]] = {}
    for lang, name, questions, answers in files:
        values = score(questions, answers)["per_question"]["accuracy"]
        pooled += values
        by_lang.setdefault(f"accuracy[{lang}]", []).extend(values)
        by_file[f"accuracy[{name}]"] = values
    return summarise({"accuracy": pooled, **(by_lang if len(by_lang) > 1 else {}),
                      **(by_file if len(by_file) > 1 else {})})


def _answer_lines(lines: list[str]) -> bool:
    """Whether LINES are `id,X` lines, X one letter: the submission's shape."""
    return all("\t" not in line and len(fields := line.split(",")) == 2 and len(fields[1].strip()) == 1
               and fields[1].strip().isalpha() for line in lines)


SHAPE = shape("mcqa", "id,X lines", _answer_lines)  # told from other tasks' submissions (scoring.validate.Shape)
