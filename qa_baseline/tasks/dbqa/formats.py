"""NLPCC DBQA (document-based QA: answer sentence selection) formats: reader, submission writer, validator,
scorer.

Data: `question\\tsentence\\tlabel` lines (UTF-8), label 1 when the sentence holds an answer, else 0; test files
have no label (`question\\tsentence`). Consecutive lines with the same question form one question's group (the
same question later in the file is another group); input order is kept. Submission: one score per line of the
test file, same order and same line count; a finite decimal number, higher = more likely an answer. Within a
group sentences are ranked by score; equal scores keep the order of the test file. Metrics per question,
averaged: MRR, MAP (NLPCC AveP, divided by min(m, n)), ACC@1."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TextIO, cast

from ...core.errors import NoGold, UserError, at
from ...core.fileio import write_lines
from ...core.hints import plural
from ...rankers.base import Candidates as Group  # query = the question, texts = its candidate sentences
from ...scoring.metrics import Judged, Scores, rank_by_score, score_questions
from ...scoring.validate import Errors, SubmissionFile, gold_lines, shape


def read(path: str) -> list[Group]:
    """The groups of a DBQA file, labelled or not (not a mix); errors name the file and line. Empty questions
    and sentences pass here (a gold file may have them); the pipeline stops at them (check_text)."""
    groups: list[Group] = []
    labelled = None
    for n, line in gold_lines(path):
        fields = line.split("\t")
        if len(fields) not in (2, 3):
            raise at(path, n, "expected 2 or 3 tab-separated fields (question, sentence[, label]), "
                              f"found {len(fields)}", "write the line as question<TAB>sentence[<TAB>label]")
        question, sentence, label = fields[0], fields[1], fields[2] if len(fields) == 3 else None
        if label is not None and label not in ("0", "1"):
            raise at(path, n, f"label {label!r} is not 0 or 1", "write 1 for an answer sentence, 0 for another")
        if labelled is None:
            labelled = label is not None
        elif labelled != (label is not None):
            raise at(path, n, "label missing here but present on other lines, or the reverse",
                     "give every line its label, or none")
        if not groups or groups[-1].query != question:
            groups.append(Group(question, [], [] if labelled else None, n))
        groups[-1].texts.append(sentence)
        if labelled:
            cast(list[int], groups[-1].labels).append(int(cast(str, label)))  # labelled: both given
    if not groups:
        raise UserError(f"{path}: no lines (fix: write one line per candidate sentence: "
                        "question<TAB>sentence[<TAB>label])")
    return groups


def check_text(path: str, groups: Iterable[Group]) -> None:
    """Stop at the first line of PATH with an empty question or sentence (a group's lines are consecutive)."""
    for g in groups:
        for i, sentence in enumerate(g.texts):
            for what, value in (("question", g.query), ("sentence", sentence)):
                if not value.strip():
                    raise at(path, cast(int, g.line) + i, f"empty {what}", "pass --allow-empty to rank such lines as they are")


def read_gold(path: str) -> list[Group]:
    groups = read(path)
    if groups[0].labels is None:
        raise NoGold(f"{path}: no labels (the third field) (fix: pass the labelled file as --gold)")
    return groups


def write_submission(path: str, scores: Iterable[float]) -> None:
    write_lines(path, (f"{float(s)!r}" for s in scores))


def read_submission(path: str, groups: Iterable[Group], errors: Errors) -> list[float | None]:
    """The scores, one per line; problems go to ERRORS."""
    sub = SubmissionFile(path, errors, line="a score per line of the test file, in its order, e.g. 0.5", shape=SHAPE)
    scores = [sub.number(n, text) for n, text in sub.lines()]
    expected = sum(len(g.texts) for g in groups)
    if len(scores) != expected:
        sub.error(None, f"{plural(len(scores), 'line')}, but the test file has {expected:,}",
                  "write exactly one score per line of the test file, in its order")
    return scores


def score(groups: Iterable[Group], scores: Sequence[float]) -> Scores:
    judged: list[Judged] = []
    start = 0
    for g in groups:
        labels = cast(list[int], g.labels)  # gold groups have labels
        rels = [labels[i] for i in rank_by_score(scores[start:start + len(labels)])]
        start += len(labels)
        judged.append(Judged.binary(rels, sum(labels)))
    return score_questions(("MRR", "MAP", "ACC@1"), judged)


def gold_rows(groups: Iterable[Group]) -> list[tuple[str, str]]:
    """(question, how many of its sentences are right) in the order score lists the questions."""
    return [(g.query, f"{sum(g.labels or [])} of {len(g.texts)} sentences") for g in groups]


def write_gold(f: TextIO, groups: Iterable[Group]) -> None:
    """GROUPS as DBQA lines (with labels when they have them) into the open file F."""
    for g in groups:
        for i, s in enumerate(g.texts):
            f.write("\t".join([g.query, s] + ([str(g.labels[i])] if g.labels else [])) + "\n")


def _scores(lines: list[str]) -> bool:
    """Whether LINES are numbers, one a line: the submission's shape."""
    try:
        list(map(float, lines))
    except ValueError:
        return False
    return True


SHAPE = shape("dbqa", "one score per line", _scores)  # told from other tasks' submissions (scoring.validate.Shape)
