"""NLPCC 2014 English open-domain QA (openqa-en): gold reader, submission writer, validator, scorer.

Gold: `<QAPair id="QID"><question id="QID">...</question><answer id="1">...</answer>...</QAPair>` XML, with
or without an enclosing root element; the QID is the QAPair's id; the <answer>s are the acceptable answers
(none: the question has no answer). Submission: one tab-separated line per question,
`System\\tQID\\tHas-Answer\\tN\\tans1\\t...\\tansN`: the same System name on every line, Has-Answer True when
N > 0 and False when N = 0, at most 5 answers, best first. An answer is correct when it equals an acceptable
answer after `metrics.normalize` (Unicode NFKC, case, inner whitespace runs, leading and trailing whitespace
and punctuation). Metrics per question, averaged: MRR, accuracy@1..5 (a correct answer among the first N),
Has-Answer accuracy (Has-Answer equals whether the question has a gold answer)."""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from xml.etree.ElementTree import ParseError

import defusedxml.ElementTree as DET
from defusedxml import DefusedXmlException

from ...core.errors import NoGold, UserError, at, unread
from ...core.fileio import write_lines
from ...core.textio import looks_like, text_lines
from ...scoring.metrics import Judged, Scores, match_answers, score_questions
from ...scoring.validate import Errors, SubmissionFile, shape

MAX_ANSWERS = 5
LAYOUT = "System<TAB>QID<TAB>True|False<TAB>N<TAB>answer 1<TAB>...<TAB>answer N"
PAIR = '<QAPair id="QID"><question id="QID">...</question><answer id="1">...</answer></QAPair>'  # a gold question


def parse_pairs(path: str) -> list[tuple[str, str, list[str]]]:
    """(QID, question, [acceptable answers]) of each <QAPair>, in file order. Parsed with defusedxml: DOCTYPE
    and entity declarations (entity expansion, external entities) are refused. Answers in elements of other
    names (<Answer>, <answers>: errors.unread) are a UserError at the first, never a file without gold."""
    text = "".join(line for _, line in text_lines(path))
    # a root of our own around the pairs keeps line numbers: the XML declaration has no newline
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    if text.strip() and not text.lstrip().startswith("<"):  # another task's file, a TSV of the questions...
        first = text[:len(text) - len(text.lstrip())].count("\n") + 1
        raise at(path, first, f"not XML (looks like {looks_like(text)})", f"give the NLPCC 2014 XML file: {PAIR}")
    doctype = re.search(r"<!(DOCTYPE|ENTITY)", text)
    if doctype:
        raise at(path, text.count("\n", 0, doctype.start()) + 1, "DOCTYPE and entity declarations are not allowed "
                 "(they can expand entities or read other files)", "remove them")
    try:
        root = DET.fromstring(f"<root>{text}</root>")
    except ParseError as e:
        raise at(path, e.position[0], f"malformed XML ({e})") from None
    except DefusedXmlException as e:
        raise UserError(f"{path}: {e} (fix: remove DOCTYPE and entity declarations)") from None
    pairs: list[tuple[str, str, list[str]]] = []
    seen: set[str] = set()
    for pair in root.iter("QAPair"):
        qid = pair.get("id")
        if not qid or qid in seen:
            raise UserError(f"{path}: QAPair with {'a duplicate' if qid else 'no'} id {qid or ''}".rstrip())
        seen.add(qid)
        question = pair.find("question")
        pairs.append((qid, "" if question is None else "".join(question.itertext()).strip(),
                      [a.text.strip() for a in pair.iter("answer") if a.text and a.text.strip()]))
    if not pairs:
        raise UserError(f"{path}: no <QAPair> elements (fix: write each question as {PAIR})")
    tags = list(dict.fromkeys(e.tag for pair in root.iter("QAPair") for e in pair.iter() if e is not pair))
    lines = {tag: text.count("\n", 0, max(text.find(f"<{tag}"), 0)) + 1 for tag in tags}
    error = unread(path, lines, "<QAPair> elements", tags, ("question",), (), ("answer",), PAIR)
    if error:
        raise error
    return pairs


def read_questions(path: str) -> dict[str, str]:
    """{QID: question text}: the input of a run (the answers, when the file has them, are not read)."""
    return {qid: question for qid, question, _ in parse_pairs(path)}


def read_gold(path: str) -> dict[str, list[str]]:
    """{QID: [acceptable answers]} in file order (an empty list: the question has no answer); NoGold when no
    question of the file has an <answer> (a test file)."""
    gold = {qid: answers for qid, _, answers in parse_pairs(path)}
    if not any(gold.values()):
        raise NoGold(f"{path}: no <answer> elements (a test file without gold) (fix: pass the file with answers as "
                     "--gold)")
    return gold


def write_submission(path: str, answers: Mapping[str, Sequence[str]], system: str = "qa_baseline") -> None:
    """ANSWERS: {QID: [answers, best first]}."""
    write_lines(path, ("\t".join([system, qid, str(bool(ranked)), str(len(ranked)), *ranked])
                       for qid, ranked in answers.items()))


def read_submission(path: str, gold: Mapping[str, list[str]], errors: Errors) -> dict[str, list[str]]:
    """{QID: [answers]}; problems go to ERRORS."""
    sub = SubmissionFile(path, errors, gold, line=LAYOUT, shape=SHAPE)
    answers: dict[str, list[str]] = {}
    system: tuple[str, int] | None = None
    for n, text in sub.lines():
        fields = text.split("\t")
        if len(fields) < 4:
            sub.fields(n, text, 4, LAYOUT)
            continue
        name, qid, has_answer = fields[:3]
        ranked = sub.ranked(n, fields[3:], LAYOUT, limit=MAX_ANSWERS)
        if not name:
            sub.error(n, "empty System name", "write the run's name in the first field")
        elif not system:
            system = (name, n)
        elif name != system[0]:
            sub.error(n, f"System {name!r} differs from {system[0]!r} on line {system[1]}",
                      "use one System name on every line")
        if has_answer not in ("True", "False"):
            sub.error(n, f"Has-Answer {has_answer!r} is not True or False", "write True or False")
        elif ranked is not None and (has_answer == "True") != bool(ranked):
            sub.error(n, f"Has-Answer {has_answer} with N={len(ranked)}", "write True when N > 0, False when N = 0")
        if sub.take(n, qid):
            answers[qid] = [a for a, in ranked or []]
    sub.missing()
    return answers


def score(gold: Mapping[str, list[str]], answers: Mapping[str, Sequence[str]]) -> Scores:
    """Each question's answers against its one gold answer (none when ACCEPTABLE is empty)."""
    judged = [Judged.binary(match_answers(answers[qid], [acceptable]), int(bool(acceptable)))
              for qid, acceptable in gold.items()]
    return score_questions(("MRR", *(f"accuracy@{k}" for k in range(1, MAX_ANSWERS + 1)), "has_answer_accuracy"),
                           judged)


def gold_rows(gold: Mapping[str, list[str]]) -> list[tuple[str, str]]:
    """(QID, its acceptable answers) in the order score lists the questions."""
    return [(qid, " | ".join(acceptable)) for qid, acceptable in gold.items()]


def _answer_lines(lines: list[str]) -> bool:
    """Whether LINES are `System<TAB>QID<TAB>True|False<TAB>N...` lines: the submission's shape."""
    return all(len(fields := line.split("\t")) >= 4 and fields[2] in ("True", "False") and fields[3].isdigit()
               for line in lines)


# told from other tasks' submissions (scoring.validate.Shape)
SHAPE = shape("openqa-en", "System<TAB>QID<TAB>True|False<TAB>N<TAB>answers lines", _answer_lines)
