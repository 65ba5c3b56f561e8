"""Neural evidence for answer candidates (optional: `--neural KIND`), the score of (question, the candidate's
sentence) as the features `neural` and `neural_scored` (1 where it was computed):
- `cross`: the English ms-marco cross-encoder's logit, through the logistic function (encoders.load_cross_encoder);
- `e5`: multilingual-e5-small's cosine between the question ("query: ") and the sentence ("passage: "), as
  (1 + cosine) / 2 (in 0..1, so the rule's factor 0.1 + neural stays positive) (any language: Japanese, Chinese,
  English; encoders.load_encoder("e5-small")).
Only each question's best TOP candidates by evidence are scored, each distinct (question, sentence) pair once
(e5: each distinct text once); the others keep 0 for both. Models load offline from their wheels."""
from __future__ import annotations

import math
from collections.abc import Sequence

from ..core.errors import UserError
from ..core.progress import tqdm
from ..encoders import CROSS_LANGS, load_cross_encoder, load_encoder
from .features import Candidate

TOP = 15  # candidates per question whose sentence is scored
KINDS = ("none", "cross", "e5")
E5 = "e5-small"  # the multilingual bi-encoder config of `--neural e5`


def check(kind: str, lang: str) -> None:
    """Refuse a neural evidence KIND the language has no model for, before any work."""
    if kind == "cross" and lang not in CROSS_LANGS:
        raise UserError(f"--neural cross is English only (the corpus is {lang}) "
                        "(fix: --neural e5, the multilingual bi-encoder, or leave --neural out)")


def _cross(pairs: list[tuple[str, str]], progress: bool) -> list[float]:
    model = load_cross_encoder()
    with tqdm(total=len(pairs), desc=f"cross-encoding ({model.name})", unit=" pairs",
              disable=None if progress else True) as bar:
        return [1.0 / (1.0 + math.exp(-x)) for x in model.score(pairs, bar=bar).tolist()]


def _e5(pairs: list[tuple[str, str]], progress: bool) -> list[float]:
    model = load_encoder(E5)
    questions = list(dict.fromkeys(q for q, _ in pairs))
    sentences = list(dict.fromkeys(s for _, s in pairs))
    with tqdm(total=len(questions) + len(sentences), desc=f"encoding sentences ({model.name})", unit=" texts",
              disable=None if progress else True) as bar:
        qv = dict(zip(questions, model.encode(questions, "query", bar=bar)))
        sv = dict(zip(sentences, model.encode(sentences, "passage", bar=bar)))
    return [(1.0 + float(qv[q] @ sv[s])) / 2.0 for q, s in pairs]


SCORERS = {"cross": _cross, "e5": _e5}


def add(kind: str, questions: Sequence[str], cands: Sequence[Sequence[Candidate]], top: int = TOP,
        progress: bool = True) -> None:
    """Set `neural` and `neural_scored` in the features of the best TOP candidates of each question (in place)
    with the evidence of KIND (KINDS; "none" does nothing)."""
    if kind == "none":
        return
    pairs = list(dict.fromkeys((q, c.sentence) for q, cs in zip(questions, cands) for c in cs[:top] if c.sentence))
    if not pairs:
        return
    scores = dict(zip(pairs, SCORERS[kind](pairs, progress)))
    for q, cs in zip(questions, cands):
        for c in cs[:top]:
            if c.sentence:
                c.features["neural"] = scores[(q, c.sentence)]
                c.features["neural_scored"] = 1.0
