"""Measures, each declared once as a `Measure` (the ir_measures shape: a name, a function of one question, a
per-cent flag, cutoffs, a definition). A system's score is the mean of its per-question values over all
questions of the test set (trec_eval's counts are summed and gm_map is a geometric mean: `kind`).

One shape, two namespaces, because the names collide with different definitions (`recall` is KBQA's
answer-set recall and trec_eval's recall at a cutoff; `MAP`'s AveP divides by min(m, n), trec_eval's `map` by
m): `MEASURES`, the shared tasks' measures by the names rows, `score`, the report and the leaderboard print;
`TREC_EVAL`, trec_eval 9's measures by trec_eval's names (`python -m qa_baseline.eval`). What the two share
is written once: reciprocal rank, the precision sum of average precision, hit at N.

A question is measured in one of two shapes: `Judged`, the items a system returned (ranked, or a set) with
the relevance of each and the number of gold items (every measure but EM and token_F1); `Answered`, an answer
string and its acceptable gold strings (EM, token_F1). Task modules (qa_baseline/tasks) turn each question's
prediction into one of them and score with `score_questions` (or `values` and `summarise`).

Ranked lists given as plain lists are `rels`: 1 or 0 for each returned item, best first (see
`rank_by_score`)."""
from __future__ import annotations

import math
import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, cast

NONPOOL, UNJUDGED = -1, -2  # trec_eval's relevance values of a retrieved document not in / unjudged in qrels
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = tuple(i / 10 for i in range(11))
MIN_GEO_MEAN = 0.00001
Scores = dict[str, dict[str, Any]]  # {"metrics": name -> mean, "per_question": name -> values}


@dataclass(frozen=True)
class Measure:
    """A measure: NAME (as rows, `score`, the report and trec_eval print it), DEFINITION (what it is), FN (its
    value for one question: fn(question), or fn(question, cutoff) for kind "cut", fn(question, levels) -> one
    value per level for kind "level"), PERCENT (papers give it in per cent: accuracy, EM; else as a fraction:
    MRR, MAP, F1) and CUTOFFS (trec_eval's default cutoffs or recall levels). KIND: "float" (averaged), "count"
    (summed over questions, printed as a whole number), "cut" or "level" (one figure per cutoff)."""
    name: str
    definition: str
    fn: Callable[..., Any] | None = None
    percent: bool = False
    cutoffs: tuple[float, ...] = ()
    kind: str = "float"


# --- one question -------------------------------------------------------------------------------------------

@dataclass
class Judged:
    """One question's returned items as the measures see them: RELS, the relevance value of each item in rank
    order (trec_eval: NONPOOL, UNJUDGED or the qrels level; tasks: 1 or 0); LEVELS, the levels (>= 0) of all
    judged items (tasks: 1 per gold item); LEVEL, the relevance threshold."""
    rels: list[int]
    levels: list[int]
    level: int = 1

    def __post_init__(self) -> None:
        self.hits = [r >= self.level for r in self.rels]
        self.num_rel = sum(1 for x in self.levels if x >= self.level)
        self.num_nonrel = sum(1 for x in self.levels if 0 <= x < self.level)
        self.num_ret = len(self.rels)
        self.num_rel_ret = sum(self.hits)

    @cached_property
    def ranks(self) -> list[int]:
        """The ranks (from 1) of the relevant items: what trec_eval's measures of a long ranking walk over."""
        return [k for k, hit in enumerate(self.hits, 1) if hit]

    def hits_at(self, k: int | None) -> int:
        """Relevant items among the first K (all when K is None)."""
        return len(self.ranks) if k is None else bisect_right(self.ranks, k)

    @classmethod
    def binary(cls, rels: Iterable[int], m: int) -> Judged:
        """RELS (1 or 0 per returned item, best first) against M gold items."""
        return cls(list(rels), [1] * m)

    @classmethod
    def answer_set(cls, pred: Iterable[Any], gold: Iterable[Any]) -> Judged:
        """The set PRED against the set GOLD (the order of PRED does not matter to set measures)."""
        gold = set(gold)
        return cls.binary([int(x in gold) for x in set(pred)], len(gold))


class Answered(NamedTuple):
    """One question's answer string TEXT and its acceptable gold answers GOLDS."""
    text: str
    golds: list[str]


# --- means --------------------------------------------------------------------------------------------------

_QUALIFIED = re.compile(r"(.+)\[[^\]]*\]")  # accuracy[en], accuracy[gaokao-history]: a measure over a part


def measure(name: str) -> Measure:
    """The Measure of a metric name (also of NAME[part]); KeyError for undeclared names."""
    m = _QUALIFIED.fullmatch(name)
    return MEASURES[m.group(1) if m else name]


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def summarise(per_question: dict[str, list[float]]) -> Scores:
    """{"metrics": metric -> mean, "per_question": metric -> values in question order}; every name is a
    declared measure (MEASURES)."""
    for name in per_question:
        measure(name)
    return {"metrics": {name: mean(values) for name, values in per_question.items()}, "per_question": per_question}


def values(name: str, questions: Iterable[Any]) -> list[Any]:
    """The values of the measure NAME (MEASURES) for each of QUESTIONS (Judged or Answered, as it reads)."""
    fn = cast(Callable[..., Any], measure(name).fn)  # None only for trec_eval's num_q, never asked here
    return [fn(q) for q in questions]


def score_questions(names: Iterable[str], questions: Sequence[Any]) -> Scores:
    """`summarise` of the measures NAMES over QUESTIONS, in the order of NAMES."""
    return summarise({name: values(name, questions) for name in names})


# --- ranked lists -------------------------------------------------------------------------------------------

def rank_by_score(scores: Sequence[float]) -> list[int]:
    """Positions of SCORES, highest score first; equal scores keep their input order (a stable sort)."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def reciprocal_rank(rels: Iterable[Any]) -> float:
    """1/rank of the first relevant item, 0 when there is none (MRR is its mean)."""
    return next((1.0 / k for k, rel in enumerate(rels, 1) if rel), 0.0)


def precision_sum(rels: Iterable[Any]) -> float:
    """Sum of the precision at the rank of each relevant item (the numerator of both average precisions)."""
    found, total = 0, 0.0
    for k, rel in enumerate(rels, 1):
        if rel:
            found += 1
            total += found / k
    return total


def average_precision(rels: Sequence[Any], m: int) -> float:
    """NLPCC DBQA AveP(C, A) = sum_k P(k) rel(k) / min(m, n); m = correct items in all, n = len(rels);
    0 when min(m, n) is 0. (trec_eval's AP divides by m: they differ when fewer than m items are ranked.)"""
    denominator = min(m, len(rels))
    return precision_sum(rels) / denominator if denominator else 0.0


def hit_at(rels: Sequence[Any], n: int) -> float:
    """Accuracy@N: 1 when a relevant item is among the first N (ACC@1 is hit_at(rels, 1))."""
    return float(any(rels[:n]))


# --- trec_eval's measures of a Judged query -----------------------------------------------------------------

def trec_average_precision(q: Judged, cut: int | None = None) -> float:
    """trec_eval's AP: the precision sum over the first CUT documents / all relevant documents (R)."""
    if not q.num_rel:
        return 0.0
    total = 0.0  # precision_sum over the relevant ranks alone (the same additions in the same order)
    for found, k in enumerate(q.ranks[:q.hits_at(cut)], 1):
        total += found / k
    return total / q.num_rel


def precision_at(q: Judged, k: int) -> float:
    return q.hits_at(k) / k


def recall_at(q: Judged, k: int) -> float:
    return q.hits_at(k) / q.num_rel if q.num_rel else 0.0


def r_precision(q: Judged) -> float:
    return q.hits_at(q.num_rel) / q.num_rel if q.num_rel else 0.0


def bpref(q: Judged) -> float:
    """trec_eval's bpref: per relevant retrieved document, 1 - min(nonrelevant above it, R) / min(N, R)."""
    nonrel_so_far, total = 0, 0.0
    for hit in [r >= q.level for r in q.rels if r >= 0]:  # not in the pool, or unjudged: skipped
        if not hit:
            nonrel_so_far += 1
        else:
            total += 1.0 - min(nonrel_so_far, q.num_rel) / min(q.num_nonrel, q.num_rel) if nonrel_so_far else 1.0
    return total / q.num_rel if q.num_rel else 0.0


def ndcg(q: Judged, cut: int | None = None) -> float:
    """DCG / ideal DCG with gain = the qrels level (any level, not only relevant ones) and discount log2(rank+1)."""
    ideal = sorted(q.levels, reverse=True)[:cut]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal) if g > 0)
    gains = [(i, g) for i, g in enumerate(q.rels[:cut]) if g > 0]  # the nonzero terms, in rank order
    return sum(g / math.log2(i + 2) for i, g in gains) / idcg if idcg > 0 else 0.0


def iprec_at_recall(q: Judged, levels: Sequence[float]) -> list[float]:
    """Interpolated precision at recall LEVELS, computed as trec_eval does (cutoff at int(level * R + 0.9)
    relevant documents; the max precision at any rank at or below it)."""
    if not q.num_ret:
        return [0.0] * len(levels)
    cutoffs = [int(p * q.num_rel + 0.9) for p in levels]
    found = [0.0] * len(levels)
    current = len(levels) - 1
    while current >= 0 and cutoffs[current] > q.num_rel_ret:
        current -= 1
    int_precis = q.num_rel_ret / q.num_ret
    # trec_eval walks every rank from the last; precision only peaks at a relevant rank, so walking those
    # (the Jth relevant at rank K: precision J / K) gives the same maxima
    for rel_so_far in range(q.num_rel_ret, 0, -1):
        int_precis = max(int_precis, rel_so_far / q.ranks[rel_so_far - 1])
        while current >= 0 and rel_so_far == cutoffs[current]:
            found[current] = int_precis
            current -= 1
    while current >= 0:
        found[current] = int_precis
        current -= 1
    return found


# --- answer sets --------------------------------------------------------------------------------------------

def prf(n_pred: int, n_gold: int, n_correct: int) -> tuple[float, float, float]:
    """(precision, recall, F1) from counts; all 0 when nothing is correct (so for an empty answer set too)."""
    if not n_correct:
        return 0.0, 0.0, 0.0
    p, r = n_correct / n_pred, n_correct / n_gold
    return p, r, 2 * p * r / (p + r)


def set_prf(pred: Iterable[Any], gold: Iterable[Any]) -> tuple[float, float, float]:
    """Precision, recall and F1 of the set PRED against the set GOLD."""
    pred, gold = set(pred), set(gold)
    return prf(len(pred), len(gold), len(pred & gold))


def qac_f(n_pred: int, n_gold: int, n_correct: int) -> float:
    """NTCIR QAC F-measure with the no-answer rule: a question without gold answer scores 1 for an empty
    answer list and 0 for any answer."""
    if not n_gold:
        return float(not n_pred)
    return prf(n_pred, n_gold, n_correct)[2]


# --- answer strings -----------------------------------------------------------------------------------------

def normalize(text: str) -> str:
    """Answer string for matching: Unicode NFKC, case-folded, inner whitespace runs as one space, leading and
    trailing whitespace and punctuation (Unicode categories P*: .,;:!?'"()[]-%#&*/@ 。、「」...) removed.
    Symbols ($, +, =) and inner punctuation are kept."""
    text = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    start, end = 0, len(text)
    while start < end and _strippable(text[start]):
        start += 1
    while end > start and _strippable(text[end - 1]):
        end -= 1
    return text[start:end]


def _strippable(char: str) -> bool:
    return char.isspace() or unicodedata.category(char).startswith("P")


def match_answers(answers: Iterable[str | None], gold: Iterable[Iterable[str]]) -> list[int]:
    """rels of a ranked answer list against GOLD, a list of gold answers each given as a list of accepted
    spellings: an answer is correct when it normalises to a spelling of a gold answer that no earlier answer
    matched (so a repeated answer counts once). None stands for an answer that must not match."""
    spellings = [{normalize(s) for s in accepted} for accepted in gold]
    matched, rels = set(), []
    for answer in answers:
        key = None if answer is None else normalize(answer)
        hit = next((j for j, s in enumerate(spellings) if j not in matched and key in s), None)
        if hit is not None:
            matched.add(hit)
        rels.append(int(hit is not None))
    return rels


def tokens(text: str) -> set[str]:
    """Token set: whitespace-separated tokens, each normalised; tokens that were only punctuation dropped."""
    return {t for t in (normalize(w) for w in text.split()) if t}


def exact_match(pred: str, golds: Iterable[str]) -> float:
    """1 when PRED normalises to one of the acceptable gold answers GOLDS."""
    return float(normalize(pred) in {normalize(g) for g in golds})


def token_f1(pred: str, golds: Iterable[str]) -> float:
    """Best F1 over GOLDS of token sets: P = |X & Y| / |X|, R = |X & Y| / |Y| (X predicted, Y gold tokens)."""
    return max(set_prf(tokens(pred), tokens(g))[2] for g in golds)


# --- the registry -------------------------------------------------------------------------------------------

def _rr(q: Judged) -> float:
    return reciprocal_rank(q.hits)


def _first_hit(q: Judged) -> float:
    return hit_at(q.hits, 1)


def _set_measure(i: int) -> Callable[[Judged], float]:
    return lambda q: prf(q.num_ret, q.num_rel, q.num_rel_ret)[i]


MEASURES = {m.name: m for m in (
    Measure("accuracy", "share of questions whose chosen option is the gold one (IJCNLP-2017 T5)", _first_hit,
            percent=True),
    Measure("MRR", "mean of 1/rank of the first correct item, 0 without one", _rr),
    Measure("MRR_supported", "MRR counting an answer only with a gold supporting document (the QAC-2 rule)", _rr),
    Measure("MAP", "mean NLPCC AveP: sum of precision at each correct item / min(m, n)",
            lambda q: average_precision(q.hits, q.num_rel)),
    Measure("ACC@1", "share of questions whose top-ranked item is correct (NLPCC DBQA)", _first_hit),
    *(Measure(f"accuracy@{k}", f"share of questions with a correct answer among the first {k}",
              lambda q, k=k: hit_at(q.hits, k)) for k in range(1, 6)),
    Measure("has_answer_accuracy", "share of questions whose Has-Answer equals whether a gold answer exists",
            lambda q: float(bool(q.num_ret) == bool(q.num_rel))),
    Measure("precision", "answer-set precision, averaged over questions (NLPCC KBQA)", _set_measure(0)),
    Measure("recall", "answer-set recall, averaged over questions (NLPCC KBQA)", _set_measure(1)),
    Measure("F1", "answer-set F1, averaged over questions (NLPCC KBQA)", _set_measure(2)),
    Measure("AFM", "average F-measure of answer lists with the no-answer rule (NTCIR QAC-1 tasks 2, 3)",
            lambda q: qac_f(q.num_ret, q.num_rel, q.num_rel_ret)),
    Measure("EM", "share of exact matches after normalisation (NTCIR Data Search)",
            lambda a: exact_match(a.text, a.golds), percent=True),
    Measure("token_F1", "token-set F1, best over the acceptable answers, averaged (NTCIR Data Search)",
            lambda a: token_f1(a.text, a.golds)),
)}

TREC_EVAL = {m.name: m for m in (
    Measure("num_q", "number of queries", kind="count"),
    Measure("num_ret", "documents retrieved", lambda q: q.num_ret, kind="count"),
    Measure("num_rel", "relevant documents (R)", lambda q: q.num_rel, kind="count"),
    Measure("num_rel_ret", "relevant documents retrieved", lambda q: q.num_rel_ret, kind="count"),
    Measure("map", "AP: sum of precision at each relevant document / R", trec_average_precision),
    Measure("gm_map", "geometric mean of AP (each at least 0.00001)",
            lambda q: math.log(max(trec_average_precision(q), MIN_GEO_MEAN))),
    Measure("Rprec", "precision at rank R", r_precision),
    Measure("bpref", "binary preference: relevant documents not outranked by judged non-relevant ones", bpref),
    Measure("recip_rank", "1/rank of the first relevant document, 0 without one", _rr),
    Measure("iprec_at_recall", "interpolated precision at recall levels", iprec_at_recall, cutoffs=RECALL_LEVELS,
            kind="level"),
    Measure("P", "precision at a cutoff", precision_at, cutoffs=CUTOFFS, kind="cut"),
    Measure("recall", "recall at a cutoff", recall_at, cutoffs=CUTOFFS, kind="cut"),
    Measure("success", "1 when a relevant document is among the first k", lambda q, k: hit_at(q.hits, k),
            cutoffs=(1, 5, 10), kind="cut"),
    Measure("ndcg", "normalised DCG, gain = the qrels level", ndcg),
    Measure("ndcg_cut", "ndcg at a cutoff", ndcg, cutoffs=CUTOFFS, kind="cut"),
    Measure("map_cut", "AP at a cutoff", trec_average_precision, cutoffs=CUTOFFS, kind="cut"),
)}
