"""`--scorer learned --train FILE [--train FILE ...]`: a ranking model over the four options of a question,
fitted on the training files' questions (with their answers), kept only where it beats the published rule on
held-out folds (learning.keep_if_better, FOLDS folds: question i in fold i mod FOLDS); else the rule answers.

Option features (`names`), each computed per option of one question:
  bm25, dense               the option score of each retriever (the published mean of the top n hits)
  *_z, *_share              that score normalised across the question's options (evidence.zscore, share)
  *_top1, *_top3            the score of the option query's first and third hit (0 when missing)
  *_rank                    the option's rank among the question's options under that retriever (1-4)
  cross, cross_z            English only: the ms-marco cross-encoder's logit of (question + option, best
                            passage) and its z-score in the question; the best passage is the option query's
                            top dense hit (BM25's where dense finds none), its title + newline + its first
                            PASSAGE_CHARS characters (the cost is one pair of short texts per option)
  cross_bm25, cross_bm25_z  the same for the option query's top BM25 hit (0 without one): the evidence of both
                            retrievers' best passages (held-out accuracy on the ai2 train files, 16 fold
                            assignments: 369.25 of 720 against 364.75 without, higher in 14 of 16)
  overlap                   the share of the option's words (Chinese: characters) that are in the question
The model (`--learner`): `logistic` (learning.Logistic: standardised features, liblinear, random_state 0, C of
C_GRID chosen by held-out accuracy on the training questions: `fit`)
over option rows labelled 1 for the answer, or `lambdamart` (learning.LambdaMART, the question's options one
group); both deterministic. The best-scoring option wins, ties to the earliest."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ...answers.passages import PassageStore
from ...core.config import CorpusConfig
from ...core.errors import UserError
from ...core.progress import tqdm
from ...encoders import load_cross_encoder
from ...rankers import learning
from ...rankers.tokens import chars
from .evidence import PARTS, Evidence, choose, features, zscore
from .formats import LABELS

FOLDS = 5
C_GRID = (0.001, 0.01, 0.1, 1.0)  # logistic regression's C, chosen by held-out accuracy on the training questions
LEARNERS = learning.OPTIONS  # learning.MODELS kinds and their options here
CROSS_ENCODER = "ms-marco-cross"
PASSAGE_CHARS = 600  # of the best passage, for the cross-encoder (about 130 word pieces: 3-4x faster than 512)


CROSS_FEATURES = ("cross", "cross_z", "cross_bm25", "cross_bm25_z")


def names(lang: str) -> tuple[str, ...]:
    """The feature names of a language, in column order."""
    per_part = [f"{p}{s}" for p in PARTS for s in ("", "_z", "_share", "_top1", "_top3", "_rank")]
    return (*per_part, *(CROSS_FEATURES if lang == "en" else ()), "overlap")


def overlap(question: str, option: str) -> float:
    """The share of the option's words (Chinese: characters) that occur in the question; 0 without words."""
    words, asked = set(chars(option)), set(chars(question))
    return len(words & asked) / len(words) if words else 0.0


class Featurizer:
    """The option features of questions' evidence (the cross-encoder and passage texts loaded once)."""

    def __init__(self, lang: str, corpus_cfg: CorpusConfig, n: int) -> None:
        self.lang, self.n, self.names = lang, n, names(lang)
        self.cross: Any = None
        if lang == "en":
            self.cross, self.store = load_cross_encoder(CROSS_ENCODER), PassageStore(corpus_cfg)

    def rows(self, evidence: Sequence[Evidence]) -> list[list[dict[str, float]]]:
        """Per question, per option, its features by name."""
        rows = [features(ev, self.n) for ev in evidence]
        for ev, options in zip(evidence, rows):
            for opt, f in zip(ev.question.options, options):
                f["overlap"] = overlap(ev.question.question, opt)
        if self.cross is not None:
            self._add_cross(evidence, rows)
        return rows

    def _add_cross(self, evidence: Sequence[Evidence], rows: list[list[dict[str, float]]]) -> None:
        """cross, cross_bm25 and their z-scores of every option: one call over the distinct (query,
        passage) pairs."""
        sources = {"cross": ("dense", "bm25"), "cross_bm25": ("bm25",)}  # where each feature's passage comes from
        wanted: list[dict[str, list[tuple[str, str] | None]]] = []  # per question, per feature, per option: its pair
        for ev in evidence:
            tops = {name: [next((ev.hits[p][i][0][0] for p in parts if ev.hits[p][i]), None)
                           for i in range(len(ev.question.options))] for name, parts in sources.items()}
            texts = {p.docid: f"{p.title}\n{p.text[:PASSAGE_CHARS]}"
                     for p in self.store.passages((d, 0.0) for d in dict.fromkeys(sum(tops.values(), []))
                                                  if d is not None)}
            wanted.append({name: [(f"{ev.question.question} {opt}", texts[d]) if d in texts else None
                                  for opt, d in zip(ev.question.options, docs)] for name, docs in tops.items()})
        pairs = list(dict.fromkeys(pair for q in wanted for per in q.values() for pair in per if pair is not None))
        with tqdm(total=len(pairs), desc=f"cross-encoding ({self.cross.name})", unit=" pairs", disable=None) as bar:
            logits = dict(zip(pairs, self.cross.score(pairs, bar=bar).tolist())) if pairs else {}
        for per_feature, options in zip(wanted, rows):
            for name, per_option in per_feature.items():
                cross = [logits[p] if p is not None else 0.0 for p in per_option]
                for f, c, z in zip(options, cross, zscore(cross)):
                    f[name], f[f"{name}_z"] = c, z

    def matrix(self, rows: Sequence[dict[str, float]]) -> np.ndarray:
        return np.array([[r[name] for name in self.names] for r in rows], dtype=float)


class Item(NamedTuple):
    """A training question: its option rows (4 x features) and the index of its answer."""
    X: np.ndarray
    gold: int


RULE = "rule"  # the published rule as keep_if_better's baseline: the options' bm25 column


def scores(model: Any, X: np.ndarray, columns: Sequence[str]) -> np.ndarray:
    """The option scores of rows X under MODEL (RULE: the bm25 option score)."""
    return X[:, list(columns).index("bm25")] if model == RULE else model.score(X)


def accuracy(model: Any, items: Sequence[Item], columns: Sequence[str]) -> float:
    if not items:
        return 0.0
    s = scores(model, np.vstack([it.X for it in items]), columns)
    return sum(choose(list(s[4 * i:4 * i + 4])) == it.gold for i, it in enumerate(items)) / len(items)


def fit(items: Sequence[Item], learner: str) -> Any:
    """A model of kind LEARNER fitted on ITEMS, None when they do not hold both labels. Logistic regression's
    C is the one of C_GRID whose models, fitted on FOLDS - 1 folds of ITEMS, answer the held-out folds best
    (ties: the larger C; 1 with fewer than 2 x FOLDS items): inside keep_if_better's folds, chosen again on
    each fold's training part."""
    options = dict(LEARNERS[learner])
    if learner == "logistic":
        options["C"] = max(C_GRID, key=lambda c: (heldout(items, learner, C=c), c)) if len(items) >= 2 * FOLDS else 1.0
    return _fit(items, learner, **options)


def heldout(items: Sequence[Item], learner: str, **options: Any) -> int:
    """Questions of ITEMS answered right by models of LEARNER (with OPTIONS) fitted on the other folds."""
    mean = learning.heldout(items, FOLDS, lambda train: _fit(train, learner, **options),
                            lambda model, held: accuracy(model, held, ()) if model is not None else 0.0)
    return round(mean * len(items))


def _fit(items: Sequence[Item], learner: str, **options: Any) -> Any:
    y = [int(i == it.gold) for it in items for i in range(4)]
    if not learning.two_classes(y):
        return None
    return learning.make(learner, **options).fit(np.vstack([it.X for it in items]), np.array(y), [4] * len(items))


def train_items(evidence: Sequence[Evidence], featurizer: Featurizer) -> list[Item]:
    """The training questions as Items (each needs its answer)."""
    missing = [ev.question for ev in evidence if ev.question.gold not in tuple(LABELS)]
    if missing:
        raise UserError(f"--train: question {missing[0].id} has no answer (fix: train on files with answers)")
    rows = featurizer.rows(evidence)
    return [Item(featurizer.matrix(r), LABELS.index(ev.question.gold)) for ev, r in zip(evidence, rows)]


def choose_model(items: Sequence[Item], learner: str, columns: Sequence[str]) -> tuple[Any, dict[str, Any]]:
    """(the model kept: fitted on all ITEMS, or RULE; what fitting found, for the row's observed)."""
    if learner not in LEARNERS:
        raise UserError(f"--learner must be one of {', '.join(LEARNERS)}, not {learner!r}")
    if len(items) < FOLDS:
        raise UserError(f"--train holds {len(items)} questions: at least {FOLDS} are needed for the held-out folds")
    model: Any
    model, (rule_cv, model_cv) = learning.keep_if_better(
        items, FOLDS, RULE, lambda part: fit(part, learner), lambda m, held: accuracy(m, held, columns))
    found: dict[str, Any] = {"kept": RULE if model == RULE else learner, "folds": FOLDS,
                             "heldout_accuracy": {"rule": round(rule_cv, 6), learner: round(model_cv, 6)},
                             "train_questions": len(items), "train_accuracy": round(accuracy(model, items, columns), 6)}
    if model != RULE:
        if learner == "logistic":
            found["C"] = model.options["C"]
        found["weights" if learner == "logistic" else "gain"] = {
            n: round(float(w), 6) for n, w in
            zip(columns, model.coefficients() if learner == "logistic" else model.importances())}
    return model, found
