"""NLPCC KBQA (knowledge-base QA): gold reader, submission writer, validator, scorer.

Gold and submission share one layout, blocks of tab-separated tagged lines:
    <question id=N>\\tquestion text
    <triple id=N>\\tsubject ||| predicate ||| object      (gold; optional and ignored in a submission)
    <answer id=N>\\tanswer[ ||| answer ...]
    ==================================================    (separator lines of '=', optional)
Several answers go on the one answer line, separated by ' ||| ' (the KB's own field separator, so no KB
value contains it; the spaces are optional); each answer is stripped of surrounding whitespace, empty ones
are dropped, and an empty answer line means no answer. A submission answers every test question once, with
the question text of the test file. Answers match by exact string (after that stripping). Metrics: precision, recall and F1 of the answer set per question,
averaged over questions (F1 = 0 for an empty or disjoint answer set)."""
from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Iterable, Mapping, Sequence

from ...core.errors import NoGold, UserError
from ...core.fileio import write_lines
from ...scoring.metrics import Judged, Scores, score_questions
from ...scoring.validate import Errors, Report, SubmissionFile, gold_error, gold_lines, shape

SEP = " ||| "
Item = namedtuple("Item", "question answers line")
TAG = re.compile(r"<(question|triple|answer) id=(\d+)>\t(.*)")
LAYOUT = "<question id=N>\\tquestion, then <answer id=N>\\tanswer[ ||| answer...]"


def parse(lines: Iterable[tuple[int, str]], report: Report) -> dict[str, Item]:
    """{id: Item} from numbered lines; each problem goes to report(line, message, fix)."""
    items: dict[str, Item] = {}
    answered: set[str] = set()
    current: str | None = None
    for n, text in lines:
        m = TAG.fullmatch(text)
        if m is None:
            if text.strip().strip("="):  # blank and ===== lines are separators
                report(n, f"not a <question|triple|answer id=N> line: {text[:40]!r}", f"write the lines as {LAYOUT}")
            continue
        tag, qid, value = m.groups()
        if tag == "question" and qid in items:
            report(n, f"duplicate question id {qid} (first on line {items[qid].line})", "give each question once")
            current = None  # its other lines are skipped below
        elif tag == "question":
            current = qid
            items[qid] = Item(value.strip(), [], n)
        elif current is None and qid in items:
            continue
        elif qid != current:
            report(n, f"<{tag} id={qid}> does not follow <question id={qid}>", f"write each block as {LAYOUT}")
        elif tag == "answer" and qid in answered:
            report(n, f"second <answer id={qid}> line", f"put all answers on one line, separated by {SEP!r}")
        elif tag == "answer":
            answered.add(qid)
            items[qid].answers.extend(a.strip() for a in value.split(SEP.strip()) if a.strip())
    for qid, item in items.items():
        if qid not in answered:
            report(item.line, f"question {qid} has no <answer id={qid}> line",
                   f"add <answer id={qid}> after it (with nothing after the tab for no answer)")
    return items


def read_gold(path: str) -> dict[str, Item]:
    lines = list(gold_lines(path))  # read once: looked through for answers, then parsed (a gold file, not the KB)
    if not any(text.startswith("<answer id=") for _, text in lines):
        raise NoGold(f"{path}: no <answer id=N> lines (a test file without gold) (fix: pass the file with answers as "
                     "--gold)")
    items = parse(lines, gold_error(path))
    if not items:
        raise UserError(f"{path}: no questions (fix: write each question as {LAYOUT})")
    return items


def write_submission(path: str, items: Mapping[str, tuple[str, Sequence[str]]]) -> None:
    """ITEMS: {id: (question, [answers])}."""
    write_lines(path, (f"<question id={qid}>\t{question}\n<answer id={qid}>\t{SEP.join(answers)}\n{'=' * 50}"
                       for qid, (question, answers) in items.items()))


def read_submission(path: str, gold: Mapping[str, Item], errors: Errors) -> dict[str, Item]:
    """{id: Item}; problems go to ERRORS."""
    sub = SubmissionFile(path, errors, gold, line=LAYOUT, shape=SHAPE)
    items = parse(sub.lines(), sub.error)
    for qid, item in items.items():
        if sub.take(item.line, qid) and item.question != gold[qid].question:
            sub.error(item.line, f"question {qid} differs from the test file's: {item.question[:40]!r}",
                      "copy the question line of the test file")
    sub.missing()
    return items


def score(gold: Mapping[str, Item], items: Mapping[str, Item]) -> Scores:
    judged = [Judged.answer_set(items[qid].answers, item.answers) for qid, item in gold.items()]
    return score_questions(("precision", "recall", "F1"), judged)


def gold_rows(gold: Mapping[str, Item]) -> list[tuple[str, str]]:
    """(id, the gold answers) in the order score lists the questions."""
    return [(qid, SEP.join(item.answers)) for qid, item in gold.items()]


ANY_TAG = re.compile(r"<(question|triple|answer) id=([^>]*)>\t?(.*)")


def read_questions(path: str) -> dict[str, Item]:
    """{id: Item(question, [], line)}: the input of a run. Only `<question id=N>` lines are kept: the
    `<triple>` and `<answer>` lines a test file may carry are gold, checked for their place in the block (after
    their question) and dropped here, so they never reach the pipeline. The first problem (a line that is not a
    tagged line, a non-numeric id, a duplicate question id, a triple or answer before its question) is a
    UserError at FILE:LINE."""
    items: dict[str, Item] = {}
    current = None
    report = gold_error(path)
    for n, text in gold_lines(path):
        m = ANY_TAG.fullmatch(text)
        if m is None:
            if text.strip().strip("="):
                report(n, f"not a <question|triple|answer id=N> line: {text[:40]!r}", f"write the lines as {LAYOUT}")
            continue
        tag, qid, value = m.groups()
        if not qid.isdigit():
            report(n, f"id {qid!r} of <{tag}> is not a number", "number the questions 1, 2, 3...")
        if not TAG.fullmatch(text):
            report(n, f"no tab after <{tag} id={qid}>", f"write the lines as {LAYOUT}")
        if tag == "question":
            if qid in items:
                report(n, f"duplicate question id {qid} (first on line {items[qid].line})", "give each question once")
            current = qid
            items[qid] = Item(value.strip(), [], n)
        elif qid != current:
            report(n, f"<{tag} id={qid}> before its <question id={qid}>" if qid not in items else
                   f"<{tag} id={qid}> does not follow <question id={qid}>", f"write each block as {LAYOUT}")
    if not items:
        raise UserError(f"{path}: no <question id=N> lines (fix: write each question as <question id=N>\\tquestion)")
    return items


# told from other tasks' submissions (scoring.validate.Shape): tagged lines and ===== separators
SHAPE = shape("kbqa", "<question id=N> and <answer id=N> lines",
              lambda lines: all(ANY_TAG.match(line) or not line.strip("= ") for line in lines))
