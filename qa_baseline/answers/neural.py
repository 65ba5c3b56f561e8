"""Neural evidence for answer candidates (optional: `--neural cross`): the English ms-marco cross-encoder's
logit for (question, the candidate's sentence), as the features `cross` (its logistic value) and
`cross_scored` (1 where it was computed). Only each question's best TOP candidates by evidence are scored, each
distinct (question, sentence) pair once; the others keep 0 for both. The cross-encoder is loaded offline as
for `--reranker cross` (encoders.load_cross_encoder)."""
from __future__ import annotations

import math
from collections.abc import Sequence

from ..encoders import CROSS_LANGS
from ..errors import UserError
from ..progress import tqdm
from .features import Candidate

TOP = 15  # candidates per question whose sentence is scored
KINDS = ("none", "cross")


def check(kind: str, lang: str) -> None:
    """Refuse a neural evidence KIND the language has no model for, before any work."""
    if kind == "cross" and lang not in CROSS_LANGS:
        raise UserError(f"--neural cross is English only (the corpus is {lang}) (fix: leave --neural out)")


def add_cross(questions: Sequence[str], cands: Sequence[Sequence[Candidate]], top: int = TOP,
              progress: bool = True) -> None:
    """Set `cross` and `cross_scored` in the features of the best TOP candidates of each question (in place)."""
    from ..encoders import load_cross_encoder
    pairs = list(dict.fromkeys((q, c.sentence) for q, cs in zip(questions, cands) for c in cs[:top] if c.sentence))
    if not pairs:
        return
    model = load_cross_encoder()
    with tqdm(total=len(pairs), desc=f"cross-encoding ({model.name})", unit=" pairs",
              disable=None if progress else True) as bar:
        logits = dict(zip(pairs, model.score(pairs, bar=bar).tolist()))
    for q, cs in zip(questions, cands):
        for c in cs[:top]:
            if c.sentence:
                c.features["cross"] = 1.0 / (1.0 + math.exp(-logits[(q, c.sentence)]))
                c.features["cross_scored"] = 1.0
