"""Predicate ranking: every (mention, subject, predicate, object) candidate of a question, its features, a score.

Candidates: each linked subject (qa_baseline.kb.link) with each of its triples. Features (FEATURES, in order):
  mention_len, single_char   characters of the question span that names the subject; is it one character
  len_gap           characters by which the longest span among the question's mentions is longer
  inside_longer     the span lies inside a longer span that names another subject exactly (中国 in 中国银行)
  name, base, alias the span is the subject's name / its name without (qualifier) / an alias (exact matches)
  sound, typo, partial, fuzzy_len   fuzzy matches (link.MATCHES); the span's length when fuzzy
  start             where the span starts, as a fraction of the question's length
  log_degree        log(1 + triples of the subject)
  overlap, jaccard, bigram   characters of the normalised predicate found in the question minus the span
                    (share of the predicate's characters; Jaccard of the two character sets; share of its
                    character bigrams)
  verbatim          the normalised predicate occurs in the question minus the span
  assoc_max, assoc_mean, assoc_char   association of the question's character uni- and bigrams (minus the
                    span) with the predicate, learned from the training questions: P(predicate | n-gram) =
                    c(n-gram, predicate) / c(n-gram), its maximum and mean over the question's n-grams seen at
                    least twice; and per character of the predicate its best P(character | n-gram), averaged
                    (this one also speaks for predicates never seen in training: 出生日期 ~ 生日)
  object_in_question  the object (normalised, two or more characters) occurs in the question minus the span
  overlap_gap, assoc_gap, assoc_char_gap   overlap, assoc_mean and assoc_char minus the best value among the
                    same subject's triples (a linear model cannot compare a triple with its siblings otherwise)
With --train, a model (qa_baseline/rankers/learning.py, LEARNERS: a logistic regression, standardised features, lbfgs,
C = 1, the default; or LambdaMART, LightGBM lambdarank with each question's candidates one query) trained on the
training questions' candidates, label = the candidate's object is a gold answer; the association counts for
each training question come from the other folds (5 folds, question i in fold i mod 5), so its features look
like a test question's.
Without --train, the rule: spans not inside a longer exact span first, then longer spans (a fuzzy span counts
one character less), exact before sound before typo before partial matches, predicate verbatim in the question,
more predicate bigrams, more predicate characters, higher degree.
Ties (equal scores) go to the earlier candidate in link order (better match, longer span, earlier span, subject
name), then to the triple's place in the KB: the ranking is deterministic."""
from __future__ import annotations

import math
from collections import Counter, defaultdict, namedtuple
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import UserError
from ..indexes.kb import ALIAS, BASE, NAME
from ..rankers import learning
from .link import MATCHES, link
from .normalise import normalise

if TYPE_CHECKING:
    from ..indexes.kb import KB
    from .link import Mention

FEATURES = ("mention_len", "single_char", "len_gap", "inside_longer", "name", "base", "alias", "sound", "typo",
            "partial", "fuzzy_len", "start", "log_degree", "overlap", "jaccard", "bigram", "verbatim", "assoc_max",
            "assoc_mean", "assoc_char", "object_in_question", "overlap_gap", "assoc_gap", "assoc_char_gap")
ASSOC = ("assoc_max", "assoc_mean", "assoc_char")
GAPS = (("overlap", "overlap_gap"), ("assoc_mean", "assoc_gap"), ("assoc_char", "assoc_char_gap"))
Candidate = namedtuple("Candidate", "mention predicate object features order")
FOLDS = 5


def _bigrams(text):
    return {text[i:i + 2] for i in range(len(text) - 1)}


def rest_parts(nq: str, mention: Mention) -> tuple[str, str]:
    """The question minus the mention's span, as its two sides."""
    return nq[:mention.start], nq[mention.end:]


def rest_grams(parts: Iterable[str]) -> set[str]:
    """Character uni- and bigrams of the question minus the span (none across the gap)."""
    grams: set[str] = set()
    for part in parts:
        grams.update(part)
        grams.update(_bigrams(part))
    return grams


class Assoc:
    """Association of question n-grams with predicates: counts c(gram, predicate), c(gram, predicate character)
    and c(gram) over the training questions."""

    def __init__(self) -> None:
        self.pair: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.char: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.gram: Counter[str] = Counter()

    def add(self, grams: Iterable[str], predicate: str) -> None:
        chars = set(predicate)
        for g in grams:
            self.pair[g][predicate] += 1
            self.char[g].update(chars)
            self.gram[g] += 1

    def score(self, grams: Iterable[str], predicate: str) -> tuple[float, float, float]:
        """(max, mean) of P(predicate | gram) over GRAMS seen at least twice, and the mean over the predicate's
        characters of their highest P(character in the predicate | gram)."""
        seen = [g for g in grams if self.gram.get(g, 0) >= 2]
        if not seen:
            return 0.0, 0.0, 0.0
        values = [self.pair[g][predicate] / self.gram[g] for g in seen]
        chars = set(predicate)
        by_char = [max(self.char[g][c] / self.gram[g] for g in seen) for c in chars] if chars else [0.0]
        return max(values), sum(values) / len(values), sum(by_char) / len(by_char)


LEARNERS: dict[str, dict[str, object]] = {"logistic": {"C": 1.0, "max_iter": 2000},
                                       "lambdamart": {}}  # learning.MODELS kinds and their options here
# logistic: lambdamart's F1 on the 2016 test set (mini-KB, trained on the 2016 training set) is only 0.002 higher
# (0.9753 against 0.9733, bench/kbqa_learners.py), it answers slower, and it learns nothing from a few questions
DEFAULT_LEARNER = "logistic"


class Model:
    """A trained ranker: association counts and a learning model (LEARNERS) over FEATURES."""

    def __init__(self, assoc: Assoc, learned: learning.Model, stats: dict[str, int]) -> None:
        self.assoc, self.learned, self.stats = assoc, learned, stats

    def scores(self, X: np.ndarray) -> np.ndarray:
        return self.learned.score(X)


def featurise(kb: KB, nq: str, mentions: Sequence[Mention], assoc: Assoc | None = None) -> list[Candidate]:
    """[Candidate] of the linked MENTIONS of the normalised question NQ, in link order then KB order; without
    ASSOC (no trained model) the association features are 0."""
    if not mentions:
        return []
    longest = max(m.end - m.start for m in mentions)
    exact_spans = [(m.start, m.end) for m in mentions if m.match == "exact"]
    out: list[Candidate] = []
    for rank, m in enumerate(mentions):
        length = m.end - m.start
        inside = any(s <= m.start and m.end <= e and e - s > length for s, e in exact_spans)
        parts = rest_parts(nq, m)
        rest = parts[0] + "\n" + parts[1]
        rest_chars, rest_bigrams = set(rest) - {"\n"}, _bigrams(parts[0]) | _bigrams(parts[1])
        grams = rest_grams(parts) if assoc is not None else set()
        triples = kb.triples(m.subject)
        fuzzy = m.match != "exact"
        head = [length, float(length == 1), longest - length, float(inside),
                float(not fuzzy and m.kind == NAME), float(not fuzzy and m.kind == BASE),
                float(not fuzzy and m.kind == ALIAS),
                float(m.match == "sound"), float(m.match == "typo"), float(m.match == "partial"),
                length if fuzzy else 0, m.start / max(len(nq), 1), math.log1p(len(triples))]
        group: list[Candidate] = []
        for place, (predicate, obj) in enumerate(triples):
            p = normalise(predicate)
            chars = set(p)
            common = len(chars & rest_chars)
            pb = _bigrams(p)
            no = normalise(obj)
            associated = assoc.score(grams, p) if assoc is not None else (0.0, 0.0, 0.0)
            features = head + [common / len(chars) if chars else 0.0,
                               common / len(chars | rest_chars) if chars else 0.0,
                               len(pb & rest_bigrams) / len(pb) if pb else float(bool(p) and p in rest_chars),
                               float(bool(p) and p in rest), *associated,
                               float(len(no) >= 2 and no in rest), 0.0, 0.0, 0.0]
            group.append(Candidate(m, predicate, obj, features, (rank, place)))
        for name, gap in GAPS:  # how far each triple is from its subject's best one
            i, j = FEATURES.index(name), FEATURES.index(gap)
            best = max(c.features[i] for c in group)
            for c in group:
                c.features[j] = c.features[i] - best
        out.extend(group)
    return out


def candidates(kb: KB, question: str, assoc: Assoc | None = None) -> tuple[str, list[Candidate]]:
    """(normalised question, [Candidate]) of QUESTION."""
    nq, mentions = link(kb, question)
    return nq, featurise(kb, nq, mentions, assoc)


def rule_key(c: Candidate) -> tuple[float, ...]:
    """The documented rule (smaller is better)."""
    f = dict(zip(FEATURES, c.features))
    fuzzy = c.mention.match != "exact"
    return (f["inside_longer"], -(f["mention_len"] - fuzzy), MATCHES.index(c.mention.match), -f["verbatim"],
            -f["bigram"], -f["overlap"], -f["log_degree"], c.order)


def rank(cands: Sequence[Candidate], model: Model | None = None) -> tuple[list[Candidate], list[float]]:
    """CANDS best first, with their scores (the model's decision value; without a model, minus the rule place)."""
    if not cands:
        return [], []
    if model is None:
        order = sorted(range(len(cands)), key=lambda i: rule_key(cands[i]))
        scores = [0.0] * len(cands)
        for place, i in enumerate(order):
            scores[i] = 0.0 - place
    else:
        scores = model.scores(np.array([c.features for c in cands], dtype=np.float64)).tolist()
        order = sorted(range(len(cands)), key=lambda i: (-scores[i], cands[i].order))
    return [cands[i] for i in order], [scores[i] for i in order]


class Ranker:
    """Answers questions from an open KB store with a trained Model (or the rule when MODEL is None)."""

    def __init__(self, kb: KB, model: Model | None = None) -> None:
        self.kb, self.model = kb, model

    def answer(self, question: str) -> tuple[list[str], list[Candidate], list[float]]:
        """([answer], ranked [Candidate], their scores): the best candidate's object, or no answer."""
        _, cands = candidates(self.kb, question, self.model.assoc if self.model else None)
        ranked, scores = rank(cands, self.model)
        return ([ranked[0].object] if ranked else []), ranked, scores


def train(kb: KB, items: Sequence[tuple[str, Sequence[str]]], progress: Callable[[Any], Iterable[Any]] | None = None,
          learner: str = DEFAULT_LEARNER) -> Model:
    """A Model (of the LEARNERS kind LEARNER) from ITEMS, [(question, [gold answers])] (the training questions;
    <triple> lines are not used)."""
    linked: list[tuple[str, list[Mention], set[str]]] = []
    pairs: list[tuple[set[str], str] | None] = []
    for question, answers in (progress(items) if progress else items):
        gold = {normalise(a) for a in answers}
        nq, mentions = link(kb, question)
        linked.append((nq, mentions, gold))
        # the association is learned from the question's best candidate that gives a gold answer
        positive = next(((m, p) for m in mentions for p, o in kb.triples(m.subject) if normalise(o) in gold), None)
        pairs.append((rest_grams(rest_parts(nq, positive[0])), normalise(positive[1])) if positive else None)
    full, by_fold = Assoc(), [Assoc() for _ in range(FOLDS)]
    for pair in filter(None, pairs):
        full.add(*pair)
    for k, assoc in enumerate(by_fold):  # fold k's counts: the questions of the other folds
        for pair in filter(None, learning.split(pairs, FOLDS, k)[0]):
            assoc.add(*pair)
    X: list[list[float]] = []
    y: list[float] = []
    sizes: list[int] = []  # candidates per question (questions without candidates left out)
    for i, (nq, mentions, gold) in enumerate(linked):
        cands = featurise(kb, nq, mentions, by_fold[learning.fold_of(i, FOLDS)])
        X.extend(c.features for c in cands)
        y.extend(float(normalise(c.object) in gold) for c in cands)
        if cands:
            sizes.append(len(cands))
    if not learning.two_classes(y):
        raise UserError("the training questions give no candidates with and without the gold answer (fix: give "
                        "the training file of this KB as --train)")
    learned = learning.make(learner, **LEARNERS[learner]).fit(np.array(X, dtype=np.float64), np.array(y), sizes)
    stats = {"questions": len(items), "candidates": len(X), "positives": int(sum(y)),
             "answerable": sum(1 for pair in pairs if pair)}
    return Model(full, learned, stats)
