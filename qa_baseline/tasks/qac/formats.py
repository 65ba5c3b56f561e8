"""NTCIR-3 QAC-1 (question answering challenge): gold reader, submission writer, validator, scorer.

Gold: TSV with a header naming at least `qid`, `answers_json` (a JSON list of answers, each a list of
accepted spellings) and `has_answer` (0: no answer in the collection, answers_json is []); the supporting
documents come from `gold_doc_ids_json` (JSON list) or else `source_doc_id`.
Submission: one tab-separated line per question, `QID\\tN\\tanswer 1\\tdoc 1\\t...\\tanswer N\\tdoc N`, answers
best first, each followed by the id of a document that supports it (may be empty); N = 0 says "no answer".
Task 1 allows N <= 5. An answer is correct when it equals an accepted spelling of a gold answer not matched
by an earlier answer, after `metrics.normalize` (NFKC, case, whitespace, leading/trailing punctuation); with
`require_doc` (the QAC-2 rule) its document must also be one of the question's gold documents.
Metrics: Task 1 MRR (and MRR_supported, the QAC-2 rule); Tasks 2 and 3 AFM, the average F-measure with the
no-answer rule (Task 3 over the follow-up questions of each series)."""
from __future__ import annotations

import json
from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ...core.errors import NoGold, UserError, at, unread
from ...core.fileio import write_lines
from ...scoring.metrics import Judged, Scores, match_answers, score_questions, summarise, values
from ...scoring.validate import Errors, SubmissionFile, gold_lines, shape

TASK1_MAX = 5
Gold = namedtuple("Gold", "answers docs followup")  # followup: a series question after its first
LAYOUT = "QID<TAB>N<TAB>answer 1<TAB>doc 1<TAB>...<TAB>answer N<TAB>doc N"


def _json_list(path: str, n: int, text: str, depth: int) -> list[Any]:
    """A JSON list of strings (depth 1) or of non-empty lists of strings (depth 2)."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    ok = isinstance(value, list) and all(isinstance(x, str) if depth == 1 else
                                         isinstance(x, list) and x and all(isinstance(s, str) for s in x)
                                         for x in value)
    if not ok:
        raise at(path, n, f"{text[:40]!r} is not a JSON list of {'strings' if depth == 1 else 'lists of strings'}")
    return value


GOLD = ("answers_json", "has_answer")  # the gold's columns; then the questions', the documents' and the series'
READS = ("qid", "question", "answer_type", "gold_doc_ids_json", "source_doc_id", "series_id", "prev_qids_json", "source")


def read_header(path: str, lines: Iterator[tuple[int, str]]) -> list[str]:
    """The header's column names (the first of LINES); a UserError when they hold answers under names the
    readers do not read (an `answer` column: errors.unread), which would make a run without scores."""
    names = next(lines, (1, ""))[1].split("\t")
    error = unread(path, 1, "columns", names, READS, (), GOLD,
                   "qid, question, answers_json (a JSON list of answers, each a list of spellings), has_answer")
    if error:
        raise error
    return names


def read_gold(path: str) -> dict[str, Gold]:
    """{qid: Gold(answers, docs)} in file order."""
    lines = gold_lines(path)
    header = read_header(path, lines)
    if not {"answers_json", "has_answer"} & set(header):
        raise NoGold(f"{path}: no gold (the header names no answers_json and has_answer columns) (fix: pass the "
                     "file with answers as --gold)")
    if not {"qid", "answers_json", "has_answer"} <= set(header):
        raise at(path, 1, "the header must name the columns qid, answers_json and has_answer")
    gold: dict[str, Gold] = {}
    for n, line in lines:
        fields = line.split("\t")
        if len(fields) != len(header):
            raise at(path, n, f"expected {len(header)} tab-separated fields as in the header, found {len(fields)}")
        row = dict(zip(header, fields))
        answers = _json_list(path, n, row["answers_json"], 2)
        if row["has_answer"] not in ("0", "1"):
            raise at(path, n, f"has_answer {row['has_answer']!r} is not 0 or 1 (fix: 1 when answers_json lists "
                              "answers, 0 when it is [])")
        if row["has_answer"] != str(int(bool(answers))):
            raise at(path, n, f"has_answer {row['has_answer']} disagrees with {len(answers)} answer"
                              f"{'s' * (len(answers) != 1)} (fix: 1 when answers_json lists answers, 0 when it is [])")
        if row["qid"] in gold:
            raise at(path, n, f"duplicate qid {row['qid']!r}")
        docs = (_json_list(path, n, row["gold_doc_ids_json"], 1) if "gold_doc_ids_json" in row
                else [row["source_doc_id"]] if "source_doc_id" in row else [])
        gold[row["qid"]] = Gold(answers, set(docs), row.get("prev_qids_json", "[]").strip() not in ("", "[]"))
    if not gold:
        raise UserError(f"{path}: no questions (fix: write one line per question under the header, with the header's "
                        "tab-separated columns)")
    return gold


Question = namedtuple("Question", "qid question series prev")  # series: series id or ""; prev: earlier qids


def read_questions(path: str) -> list[Question]:
    """The input of a run, [Question] in file order, from a TSV whose header names at least `qid` and
    `question` (`series_id` and `prev_qids_json`, the earlier questions of a series, for Task 3); gold
    columns are not read. A wrong field count, an empty question, a duplicate qid or a prev qid that is not
    an earlier question is FILE:LINE: what is wrong."""
    lines = gold_lines(path)
    header = read_header(path, lines)
    if not {"qid", "question"} <= set(header):
        raise at(path, 1, "the header must name the columns qid and question (tab-separated)")
    questions: list[Question] = []
    seen: set[str] = set()
    for n, line in lines:
        fields = line.split("\t")
        if len(fields) != len(header):
            raise at(path, n, f"expected {len(header)} tab-separated fields as in the header, found {len(fields)}")
        row = dict(zip(header, fields))
        qid, question = row["qid"].strip(), row["question"].strip()
        if not qid or not question:
            raise at(path, n, f"empty {'qid' if not qid else 'question'}")
        if qid in seen:
            raise at(path, n, f"duplicate qid {qid!r}")
        prev = _json_list(path, n, row["prev_qids_json"], 1) if row.get("prev_qids_json", "").strip() else []
        unknown = [q for q in prev if q not in seen]
        if unknown:
            raise at(path, n, f"prev_qids_json names {unknown[0]!r}, which is not an earlier question of the file")
        seen.add(qid)
        questions.append(Question(qid, question, row.get("series_id", "").strip(), prev))
    if not questions:
        raise UserError(f"{path}: no questions (fix: write one line per question under the header, with the header's "
                        "tab-separated columns)")
    return questions


def write_submission(path: str, answers: Mapping[str, Sequence[tuple[str, str]]]) -> None:
    """ANSWERS: {qid: [(answer, doc id or ""), ...] best first}."""
    write_lines(path, ("\t".join([qid, str(len(ranked)), *(x for pair in ranked for x in pair)])
                       for qid, ranked in answers.items()))


def read_submission(path: str, gold: Mapping[str, Gold], errors: Errors, task: int = 1) -> dict[str, list[tuple[str, ...]]]:
    """{qid: [(answer, doc)]}; problems go to ERRORS."""
    sub = SubmissionFile(path, errors, gold, line=LAYOUT, shape=SHAPE)
    answers = {}
    for n, text in sub.lines():
        fields = text.split("\t")
        if len(fields) < 2:
            sub.fields(n, text, 2, LAYOUT)
            continue
        ranked = sub.ranked(n, fields[1:], LAYOUT, width=2, limit=TASK1_MAX if task == 1 else None)
        if sub.take(n, fields[0]):
            answers[fields[0]] = [tuple(pair) for pair in ranked or []]
    sub.missing()
    return answers


def score(gold: Mapping[str, Gold], answers: Mapping[str, Sequence[tuple[str, ...]]], task: int = 1) -> Scores:
    """Task 1: MRR, and MRR_supported (an answer counts only with a gold supporting document: the QAC-2
    rule) when the gold names documents. Task 2: AFM over all questions. Task 3: AFM over the follow-up
    questions of the series (all questions when the gold has no series)."""
    def judged(keep: Callable[[Gold, str], bool] = lambda g, doc: True) -> list[Judged]:  # each question's answers; KEEP: whether an answer may match
        return [Judged.binary(match_answers([a if keep(g, d) else None for a, d in answers[qid]], g.answers),
                              len(g.answers)) for qid, g in gold.items()]

    if task == 1:
        per_question = {"MRR": values("MRR", judged())}
        if any(g.docs for g in gold.values()):
            per_question["MRR_supported"] = values("MRR_supported", judged(lambda g, doc: doc in g.docs))
        return summarise(per_question)
    keep = set(scored(gold, task))
    return score_questions(("AFM",), [q for q, qid in zip(judged(), gold) if qid in keep])


def answer_nothing(gold: Mapping[str, Gold], task: int) -> float:
    """Tasks 2 and 3: the AFM of the empty submission (NTCIR's no-answer rule: a question without a gold
    answer scores 1 for no answer), the level an answer list must beat."""
    return score(gold, {qid: [] for qid in gold}, task)["metrics"]["AFM"]


def scored(gold: Mapping[str, Gold], task: int) -> list[str]:
    """The qids TASK's score counts, in order: every question; for task 3 with series, the follow-ups only."""
    series = task == 3 and any(g.followup for g in gold.values())
    return [qid for qid, g in gold.items() if g.followup or not series]


def gold_rows(gold: Mapping[str, Gold], task: int = 1) -> list[tuple[str, str]]:
    """(qid, its answers, one spelling each; `(no answer)` for none) in the order score lists the questions."""
    return [(qid, " | ".join(a[0] for a in gold[qid].answers) or "(no answer)") for qid in scored(gold, task)]


def _ranked(line: str) -> bool:
    """Whether LINE is `QID<TAB>N` and N answer<TAB>doc pairs: the submission's shape."""
    fields = line.split("\t")
    return len(fields) >= 2 and fields[1].isascii() and fields[1].isdigit() and len(fields) == 2 + 2 * int(fields[1])


# told from other tasks' submissions (scoring.validate.Shape)
SHAPE = shape("qac", "QID<TAB>N<TAB>answer<TAB>doc... lines", lambda lines: all(map(_ranked, lines)))
