"""NLPCC DBQA (document-based QA: answer sentence selection): gold reader, submission writer, validator, scorer.

Gold: `question\\tsentence\\tlabel` lines, label 1 when the sentence holds an answer, else 0. Consecutive lines
with the same question form one question's group (the same question later in the file is another group).
Submission: one score per line of the test file, same order and same line count; a finite decimal number,
higher = more likely an answer. Within a group sentences are ranked by score; equal scores keep the order
of the test file. Metrics per question, averaged: MRR, MAP (NLPCC AveP, divided by min(m, n)), ACC@1."""
from collections import namedtuple

from ..errors import UserError, at
from ..fileio import atomic_write
from ..metrics import average_precision, hit_at, rank_by_score, reciprocal_rank, summarise
from ..validate import SubmissionFile, gold_lines

Group = namedtuple("Group", "question labels line")


def read_gold(path):
    groups = []
    for n, line in gold_lines(path):
        fields = line.split("\t")
        if len(fields) != 3:
            raise at(path, n, f"expected 3 tab-separated fields (question, sentence, label), found {len(fields)}")
        question, _, label = fields
        if label not in ("0", "1"):
            raise at(path, n, f"label {label!r} is not 0 or 1")
        if not groups or groups[-1].question != question:
            groups.append(Group(question, [], n))
        groups[-1].labels.append(int(label))
    if not groups:
        raise UserError(f"{path}: no lines")
    return groups


def write_submission(path, scores):
    with atomic_write(path) as f:
        for s in scores:
            f.write(f"{float(s)!r}\n")


def read_submission(path, groups, errors):
    """The scores, one per line; problems go to ERRORS."""
    sub = SubmissionFile(path, errors)
    scores = [sub.number(n, text) for n, text in sub.lines()]
    expected = sum(len(g.labels) for g in groups)
    if len(scores) != expected:
        sub.error(None, f"{len(scores)} lines, but the test file has {expected}",
                  "write exactly one score per line of the test file, in its order")
    return scores


def score(groups, scores):
    per_question = {"MRR": [], "MAP": [], "ACC@1": []}
    start = 0
    for g in groups:
        rels = [g.labels[i] for i in rank_by_score(scores[start:start + len(g.labels)])]
        start += len(g.labels)
        per_question["MRR"].append(reciprocal_rank(rels))
        per_question["MAP"].append(average_precision(rels, sum(g.labels)))
        per_question["ACC@1"].append(hit_at(rels, 1))
    return summarise(per_question)
