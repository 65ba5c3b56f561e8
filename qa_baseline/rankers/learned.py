"""learned: logistic regression over other rankers' features (default bm25 + the four overlap shares;
`--features` adds dense and/or cross), standardised, fitted on the labelled lines of the training groups
(qa_baseline/learning.py: liblinear, C = 1, random_state 0: deterministic). A sentence's score is the model's
logit."""
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import learning
from ..errors import UserError
from . import RANKERS, make
from .base import BaseRanker, Candidates, RankerSettings
from .tokens import Text

DEFAULT_FEATURES = ("bm25", "overlap")
MODEL = "logistic", {"solver": "liblinear", "random_state": 0}  # a learning.MODELS kind and its options


class Learned(BaseRanker):
    def __init__(self, lang: str, settings: RankerSettings, text: Text) -> None:
        self.features_of = list(settings.get("features") or DEFAULT_FEATURES)
        bad = [f for f in self.features_of if f not in RANKERS or f == "learned"]
        if bad or len(set(self.features_of)) < len(self.features_of):
            raise UserError(f"--features {','.join(self.features_of)}: not distinct names of rankers (fix: give "
                            f"distinct names among {', '.join(r for r in RANKERS if r != 'learned')})")
        self.parts = [make(f, lang, settings, text) for f in self.features_of]
        self.names = tuple(n for p in self.parts for n in p.names)
        self.options = ("features", *(o for p in self.parts for o in p.options))
        self.model: Any = None  # a learning.Logistic once fitted

    def features(self, groups: Sequence[Candidates]) -> np.ndarray:
        return np.hstack([p.features(groups) for p in self.parts])

    def fit(self, groups: Sequence[Candidates]) -> "Learned":
        labels = [y for g in groups for y in g.labels or ()]
        if not learning.two_classes(labels):
            raise UserError("the learned ranker needs training lines labelled 1 and lines labelled 0")
        kind, options = MODEL
        self.model = learning.make(kind, **options).fit(self.features(groups), np.array(labels),
                                                        [len(g.texts) for g in groups])
        return self

    def score(self, groups: Sequence[Candidates]) -> np.ndarray:
        return self.model.score(self.features(groups))

    def params(self) -> dict[str, Any]:
        return {**{k: v for p in self.parts for k, v in p.params().items()}, "features": ",".join(self.features_of)}

    def fitted(self) -> dict[str, Any]:
        coef: Any = self.model.coefficients() if self.model else ()
        return {"weights": {n: round(float(w), 6) for n, w in zip(self.names, coef)}}
