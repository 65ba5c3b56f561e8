"""Ranking candidates and deciding whether a question has an answer.

Scorers (score(candidates) -> one positive number per candidate):
- `rule`: evidence (features.py) times 0.15 when the question is typed and the candidate does not match the
  type, times 1.5 when it carries the expected unit, times 0.3 when it lacks it or is a bare number for an
  untyped question, times 0.5 when a date question's candidate names no point in time (`dateless`), times
  (0.1 + neural) where the neural evidence was computed (`--neural`), times (0.5 + best_sentence +
  window), times (1 - q_overlap / 2) (a candidate that mostly
  repeats the question is a poor answer), times 0.7 when it only occurs inside longer mentions, times 0.5
  when longer than 40 characters; for a choice question, times 3 for an option (no q_overlap factor) and
  0.3 for any other candidate.
- `learned`: a model over FEATURES plus log(evidence), log(support), the rule score and each GRADED feature's
  rank among the question's candidates (`matrix`), labels 1 for candidates equal to a gold answer after
  `metrics.normalize`, learned from each question's best TRAIN_TOP candidates: `logistic`
  (qa_baseline/rankers/learning.py: liblinear, random_state 0, standardised features; its score the probability) or
  `lambdamart` (LightGBM lambdarank over the questions' lists; its score the logistic function of the ranking
  score). `--learner` says which are tried (LEARNERS; logistic by default: LambdaMART
  did not beat it on the dev files). One is kept only when its MRR beats the rule's on held-out folds of the
  training questions (learning.keep_if_better: question i in fold i mod K), the better of them with
  `--learner best`; otherwise the rule ranks.

Answer decisions (`AnswerModel`), fitted on questions with gold answers:
- has-answer: a logistic regression over the features of the best candidates (top score, second score,
  their margin, the top candidate's features, log(1 + candidates)) predicts "the collection has an answer"
  (Has-Answer accuracy) or "answering is worth it: the answer list's F-measure is above 0" (the F-measure);
  the threshold on its probability is the one that maximises the task's own per-question value on the
  training questions (Has-Answer accuracy for openqa-en, the F-measure with the no-answer rule for qac);
  below it the question gets no answers. Its C (regularisation) is the one of HAS_C whose model and
  threshold, fitted on K-1 folds of the training questions, give the held-out folds the best value (ties:
  the larger C; 1 with fewer than 2K questions): fitted on ~140-270 questions over ~45 features, C = 1
  followed each sample's noise (SQuAD stand-in qac-2 AFM 0.484 against 0.500 with C = 0.01, mean over 8
  question orders; docs/tasks.md). Without training data every question with a candidate is answered.
- list ratio (qac-2/3): the answer list is every candidate whose score is at least ratio x the best score
  (at most `max_list`), ratio fitted on the training questions for the mean F-measure (default 1.0: the best
  candidate only)."""
from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

import numpy as np

from ..rankers import learning
from ..scoring.metrics import match_answers, mean, normalize, qac_f, reciprocal_rank
from .features import FEATURES, Candidate, Features, in_order

RATIOS = (1.0, 0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2)
HAS_C = (0.001, 0.01, 0.1, 1.0)  # the has-answer model's C, chosen by held-out value on the training questions

Gold = list[list[str]]  # a question's gold answers, each a list of spellings
Group = tuple[list[Candidate], Gold]  # a question's candidates and gold
Scored = list[tuple[Candidate, float]]  # (candidate, score), best first


RULE_READS = ("evidence", "type_mismatch", "unit_match", "dateless", "neural_scored", "neural", "unit_missing",
              "untyped_number", "best_sentence", "window", "inside", "choice", "q_overlap", "not_choice", "length")
_RULE = [FEATURES.index(k) for k in RULE_READS]
_LONG = math.log1p(40)  # the length (log(1 + characters)) of a candidate too long to be a short answer


def rule_score(f: Mapping[str, float]) -> float:
    """The rule's score of a candidate's features F: Features (read by position: a run scores ~1M candidates)
    or a mapping of RULE_READS at least (features.rule_inputs')."""
    values = [f.row[i] for i in _RULE] if isinstance(f, Features) else [f[k] for k in RULE_READS]
    (s, type_mismatch, unit_match, dateless, neural_scored, neural, unit_missing, untyped_number, best_sentence,
     window, inside, choice, q_overlap, not_choice, length) = values
    if type_mismatch:
        s *= 0.15
    if unit_match:
        s *= 1.5
    if dateless:
        s *= 0.5
    if neural_scored:
        s *= 0.1 + neural
    if unit_missing or untyped_number:
        s *= 0.3
    s *= 0.5 + best_sentence + window
    if inside:
        s *= 0.7
    if choice:
        s *= 3.0
    else:
        s *= 1 - q_overlap / 2
    if not_choice:
        s *= 0.3
    if length > _LONG:
        s *= 0.5
    return s


class RuleScorer:
    name = "rule"

    def score(self, cands: Sequence[Candidate]) -> list[float]:
        return [rule_score(c.features) for c in cands]

    def params(self) -> dict[str, Any]:
        return {"scorer": "rule"}


def vector(f: Mapping[str, float]) -> list[float]:
    return [*in_order(f), math.log(f["evidence"] + 1e-3), math.log(f["support"] + 1e-3), rule_score(f)]


# the graded features (neither 0/1 nor the same for all of a question's candidates): a learned scorer also sees
# each one's rank among the question's candidates, since a value means little alone (evidence 0.8 is the best
# of one question and the tenth of another); ranks, not values over the best, kept more answers at the top
GRADED = ("support", "passages", "mentions", "best", "overlap", "closeness", "evidence", "window", "best_sentence",
          "order", "marker", "q_overlap", "length", "documents", "best_evidence", "mean_match", "bigrams")
_GRADED_COLUMNS = [FEATURES.index(k) for k in GRADED]
NAMES = [*FEATURES, "log_evidence", "log_support", "rule", *(f"rank_{k}" for k in GRADED)]  # matrix()'s columns


def matrix(cands: Sequence[Candidate], top: int | None = None) -> np.ndarray:
    """The rows a learned scorer sees for one question's candidates (in their list's order; the first TOP, all
    by default): vector(features), then for each GRADED feature log(1 + its rank among all of the question's
    candidates), 0 for the highest value, equal values ranked in the list's order. Only the ranks need every
    candidate: fitting reads the best TRAIN_TOP rows of each question, many times over (held-out folds).
    Within `remembered()` each list's rows are computed once (the first TOP of them are the same numbers)."""
    memo = _remembered
    hit = memo.lists.get(id(cands)) if memo is not None else None
    if hit is None:
        if memo is None or memo.rows + len(cands) > REMEMBERED_ROWS:
            return _matrix(cands, top)
        hit = memo.lists[id(cands)] = (cands, _matrix(cands))
        memo.rows += len(cands)
    return hit[1][:top]


def _matrix(cands: Sequence[Candidate], top: int | None = None) -> np.ndarray:
    graded = np.array([in_order(c.features) for c in cands])[:, _GRADED_COLUMNS]
    ranks = np.argsort(np.argsort(-graded, axis=0, kind="stable"), axis=0, kind="stable")[:top]
    return np.hstack([np.array([vector(c.features) for c in cands[:top]]), np.log1p(ranks)])


class _Memo:
    """remembered()'s: id of a candidate list -> (the list, its rows), and how many rows that is. The list is
    held, so no other object can take its id while the memo lasts."""

    def __init__(self) -> None:
        self.lists: dict[int, tuple[Sequence[Candidate], np.ndarray]] = {}
        self.rows = 0


_remembered: _Memo | None = None
REMEMBERED_ROWS = 300_000  # the most rows remembered() keeps (~160 MB: qac-1's 799 questions hold 246,064 at 5
# passages, 958,950 at 20; beyond it the rows of further lists are computed each time, as outside it)


@contextmanager
def remembered() -> Iterator[None]:
    """Within it `matrix` computes the rows of each candidate list once, keyed by the list (which must not
    change meanwhile): cross-fitting with --folds K asks for each question's rows ~K² times (28 for K = 5:
    each fold chooses its scorer on K inner folds), a third of a qac-1 --folds 5 run. Costs ~0.5 KB per
    candidate (REMEMBERED_ROWS at most) until it ends."""
    global _remembered
    outer = _remembered
    _remembered = _Memo() if outer is None else outer
    try:
        yield
    finally:
        _remembered = outer


def _lr(C: float = 1.0) -> Any:
    return learning.make("logistic", solver="liblinear", random_state=0, max_iter=1000, C=C)


KINDS = tuple(learning.MODELS)  # the learned scorers there are
LEARNERS = {"logistic": ("logistic",), "lambdamart": ("lambdamart",), "best": KINDS}  # --learner: the kinds
# choose_scorer tries; logistic by default: LambdaMART did not beat it on the dev files (qac-1 ja-task1-dev,
# openqa-en trecqa, the SQuAD 2.0 stand-in) and choosing per fit between them was noisier than either
TRAIN_TOP = 100  # a learned scorer learns from each question's best TRAIN_TOP candidates by evidence (the
# answers of lower ones seldom reach the top 5, and fitting on all of them took 5-8 times longer on qac-1)


def _labels(cands: Sequence[Candidate], gold: Gold) -> list[int]:
    keys = set().union(*(_norm(a) for a in gold)) if gold else set()
    return [int(c.key in keys) for c in cands]


class LearnedScorer:
    """A learned model over `vector(features)`: `logistic` (its score the probability of being an answer) or
    `lambdamart` (LightGBM lambdarank over the questions' candidate lists that hold an answer; its score the
    logistic function of the ranking score, so that scores stay positive for the answer-list ratio); both
    learn from each question's best TRAIN_TOP candidates by evidence."""
    name = "learned"

    def __init__(self, model: Any, kind: str = "logistic") -> None:
        self.model, self.kind = model, kind

    @classmethod
    def fit(cls, groups: Sequence[Group], kind: str = "logistic") -> LearnedScorer | None:
        """GROUPS: [(candidates, gold)] with gold a list of gold answers, each a list of spellings."""
        X: list[np.ndarray] = []
        y: list[int] = []
        sizes: list[int] = []
        for cands, gold in groups:
            labels = _labels(cands[:TRAIN_TOP], gold)
            if not cands or kind != "logistic" and not any(labels):
                continue  # a list without an answer teaches a ranker nothing
            X.append(matrix(cands, TRAIN_TOP))  # ranked among all of the question's candidates, as in score()
            y.extend(labels)
            sizes.append(len(labels))
        if not learning.two_classes(y):
            return None
        model = _lr() if kind == "logistic" else learning.make(kind)
        return cls(model.fit(np.vstack(X), np.array(y), sizes), kind)

    def score(self, cands: Sequence[Candidate]) -> list[float]:
        if not cands:
            return []
        X = matrix(cands)
        if self.kind == "logistic":
            return list(self.model.probability(X))
        return list(1.0 / (1.0 + np.exp(-self.model.score(X))))

    def params(self) -> dict[str, Any]:
        if self.kind != "logistic":
            gains = sorted(zip(self.model.importances(), NAMES), key=lambda x: (-x[0], x[1]))
            return {"scorer": "learned", "kind": self.kind,
                    "gain": {n: round(float(g), 2) for g, n in gains[:10] if g > 0}}
        return {"scorer": "learned", "kind": self.kind,
                "weights": {n: round(float(w), 4) for n, w in zip(NAMES, self.model.coefficients())},
                "intercept": round(float(self.model.intercept()), 4)}


Scorer = RuleScorer | LearnedScorer  # what ranks the candidates


def _norm(spellings: Iterable[str]) -> set[str]:
    return {normalize(s) for s in spellings}


def ranked(cands: Sequence[Candidate], scorer: Scorer, k: int | None = None) -> Scored:
    """(candidate, score) pairs, best first (the best K only, when given); equal scores keep the candidates'
    order."""
    scores = scorer.score(cands)
    by_score = lambda i: -scores[i]  # noqa: E731
    order = sorted(range(len(cands)), key=by_score) if k is None else heapq.nsmallest(k, range(len(cands)), by_score)
    return [(cands[i], float(scores[i])) for i in order]


def mrr(groups: Iterable[Group], scorer: Scorer, k: int = 5) -> float:
    return mean(reciprocal_rank(match_answers([c.text for c, _ in ranked(cands, scorer)[:k]], gold))
                for cands, gold in groups)


def choose_scorer(groups: Sequence[Group], k: int = 5, kinds: Sequence[str] = ("logistic",)
                  ) -> tuple[Scorer, dict[str, float]]:
    """The rule, or the learned scorer of KINDS whose held-out MRR (K folds) is best when it beats the rule's;
    returns (scorer, {"rule": MRR, KIND: MRR, ...}) with the chosen learned scorer refitted on all GROUPS."""
    rule: Scorer = RuleScorer()
    if len(groups) < 2 * k:
        return rule, {}
    cv: dict[str, float] = {}
    best: tuple[float, Scorer] = (-1.0, rule)
    for kind in kinds:
        fit: Callable[[Sequence[Group]], Scorer | None] = partial(LearnedScorer.fit, kind=kind)
        scorer, (rule_mrr, kind_mrr) = learning.keep_if_better(groups, k, rule, fit, lambda s, held: mrr(held, s))
        cv["rule"], cv[kind] = rule_mrr, kind_mrr
        if scorer is not rule and kind_mrr > best[0]:
            best = (kind_mrr, scorer)
    return best[1], cv


def top_vector(scored: Scored) -> list[float] | None:
    """Features of the best candidates of one question (for the has-answer decision)."""
    if not scored:
        return None
    (c, s1), s2 = scored[0], scored[1][1] if len(scored) > 1 else 0.0
    return [s1, s2, s1 - s2, math.log1p(len(scored))] + [c.features[k] for k in FEATURES]


def answer_list(scored: Scored, ratio: float, max_list: int) -> list[Candidate]:
    """The candidates whose score is at least RATIO x the best score, at most MAX_LIST."""
    if not scored:
        return []
    best = scored[0][1]
    return [c for c, s in scored[:max_list] if s >= ratio * best]


class AnswerModel:
    """Scorer + has-answer threshold + list ratio; `decide(candidates)` -> (ranked answers, has_answer)."""

    def __init__(self, scorer: Scorer | None = None, has: Any = None, threshold: float | None = None, ratio: float = 1.0,
                 max_list: int = 5, cv: dict[str, float] | None = None) -> None:
        self.scorer: Scorer = scorer or RuleScorer()
        self.has, self.threshold = has, threshold
        self.ratio, self.max_list, self.cv = ratio, max_list, cv or {}
        self.has_c: float | None = None  # the has-answer model's C (HAS_C), when one is fitted

    def p_answer(self, scored: Scored) -> float:
        """Probability that the question has an answer (1 when no has-answer model is fitted)."""
        if not scored:
            return 0.0
        if self.has is None:
            return 1.0
        return float(self.has.probability(np.array([top_vector(scored)]))[0])

    def decide(self, cands: Sequence[Candidate], k: int = 5, lists: bool = False) -> tuple[list[Candidate], Scored, float]:
        """The answers for one question: the top K ranked (lists=False) or the ratio list (lists=True), empty
        when the has-answer probability is below the threshold; returns (answers, scored, p_answer)."""
        scored = ranked(cands, self.scorer)
        p = self.p_answer(scored)
        if not scored or self.threshold is not None and p < self.threshold:
            return [], scored, p
        chosen = answer_list(scored, self.ratio, self.max_list) if lists else [c for c, _ in scored[:k]]
        return chosen, scored, p

    @classmethod
    def fit(cls, groups: Sequence[Group], value: str | None = "has_answer", lists: bool = False, k_folds: int = 5,
            max_list: int = 5, learn: bool = True, kinds: Sequence[str] = ("logistic",)) -> AnswerModel:
        """Fit on GROUPS [(candidates, gold)]; VALUE: the per-question value the threshold maximises:
        "has_answer" (Has-Answer accuracy), "f" (QAC F-measure with the no-answer rule) or None (no
        threshold); KINDS: the learned scorers tried against the rule (choose_scorer)."""
        scorer: Scorer
        cv: dict[str, float]
        scorer, cv = choose_scorer(groups, k_folds, kinds) if learn else (RuleScorer(), {})
        model = cls(scorer, max_list=max_list, cv=cv)
        scored = [ranked(cands, scorer) for cands, _ in groups]
        if lists:
            answered = [(s, g) for s, (_, g) in zip(scored, groups) if g and s]
            model.ratio = max(RATIOS, key=lambda r: (mean(_f(answer_list(s, r, max_list), g) for s, g in answered),
                                                     r)) if answered else 1.0
        if value is None:
            return model  # every question with a candidate is answered (MRR cannot gain from silence)
        gain = _gains(scored, groups, value, lists, model.ratio, max_list)
        # "has_answer": does the question have an answer; "f": is answering worth it (its F-measure above 0)
        y = [int(bool(g)) if value == "has_answer" else int(a > 0) for (a, _), (_, g) in zip(gain, groups)]
        items: list[HasItem] = list(zip(map(top_vector, scored), y, gain))
        if not learning.two_classes([t for x, t, _ in items if x is not None]):
            return model  # all answered (or none): no threshold to learn
        C = max(HAS_C, key=lambda c: (learning.heldout(items, k_folds, partial(_has_answer, C=c), _value), c)) \
            if len(items) >= 2 * k_folds else 1.0
        fitted = _has_answer(items, C)
        assert fitted is not None  # both labels are there
        model.has, model.has_c = fitted[0], C
        model.threshold = _threshold([model.p_answer(s) for s in scored], gain)  # as decide() computes them
        return model

    def params(self) -> dict[str, Any]:
        out = {**self.scorer.params(), "ratio": self.ratio, "max_list": self.max_list}
        if self.threshold is not None:
            out["has_answer_threshold"] = round(self.threshold, 4)
        if self.has_c is not None:
            out["has_answer_C"] = self.has_c
        if self.cv:
            out["heldout_mrr"] = {k: round(v, 4) for k, v in self.cv.items()}
        return out


HasItem = tuple[list[float] | None, int, tuple[float, float]]  # (top_vector, label, (answer value, silence value))


def _has_answer(items: Sequence[HasItem], C: float) -> tuple[Any, float] | None:
    """A has-answer model with C fitted on ITEMS and its threshold; None when ITEMS hold one label only."""
    rows = [(x, t) for x, t, _ in items if x is not None]
    if not learning.two_classes([t for _, t in rows]):
        return None
    has = _lr(C).fit(np.array([x for x, _ in rows]), np.array([t for _, t in rows]))
    return has, _threshold(_probabilities(has, items), [g for *_, g in items])


def _probabilities(has: Any, items: Sequence[HasItem]) -> list[float]:
    """P(answer) of each of ITEMS under HAS (0 for a question without candidates, as AnswerModel.p_answer)."""
    xs = [x for x, _, _ in items if x is not None]
    probs = iter(has.probability(np.array(xs)) if xs else [])
    return [0.0 if x is None else float(next(probs)) for x, _, _ in items]


def _threshold(probs: Sequence[float], gain: Sequence[tuple[float, float]]) -> float:
    """The cut on PROBS that maximises the value of answering at or above it and staying silent below it."""
    cuts = sorted(set(probs)) + [1.01]
    return max(cuts, key=lambda t: (sum(a if p >= t else e for p, (a, e) in zip(probs, gain)), -t))


def _value(fitted: tuple[Any, float] | None, held: Sequence[HasItem]) -> float:
    """The mean value on HELD of a has-answer model and threshold (None: every question with a candidate
    answered)."""
    if fitted is None:
        return mean(a if x is not None else e for x, _, (a, e) in held)
    probs = _probabilities(fitted[0], held)
    return mean(a if p >= fitted[1] else e for p, (_, _, (a, e)) in zip(probs, held))


def _gains(scored: Sequence[Scored], groups: Sequence[Group], value: str, lists: bool, ratio: float,
           max_list: int) -> list[tuple[float, float]]:
    """(value of answering, value of staying silent) of each question: Has-Answer accuracy ("has_answer") or
    the F-measure of the answer list with the no-answer rule ("f")."""
    if value == "has_answer":
        return [(float(bool(g)), float(not g)) for _, g in groups]
    return [(_f(answer_list(s, ratio, max_list) if lists else [c for c, _ in s[:1]], g), float(not g))
            for s, (_, g) in zip(scored, groups)]


def _f(chosen: Sequence[Candidate], gold: Gold) -> float:
    rels = match_answers([c.text for c in chosen], gold)
    return qac_f(len(chosen), len(gold), sum(rels))

