"""learned: a model over other rankers' features (default bm25 + the four overlap shares; `--features` adds
dense and/or cross), fitted on the labelled lines of the training groups. The model is a qa_baseline/rankers/learning.py
kind (`learner` setting, else `default_learner`; MODELS holds each kind's options): logistic (standardised
features, liblinear, C = 1, random_state 0; a sentence's score is its logit) or lambdamart (LightGBM lambdarank
over the groups; its score is the ranking score). Both are deterministic."""
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.errors import UserError
from . import learning
from . import RANKERS, make
from .base import BaseRanker, Candidates, RankerSettings
from .tokens import Text

DEFAULT_FEATURES = ("bm25", "overlap")
MODELS = learning.OPTIONS  # learning.MODELS kinds and their options here


def default_learner(features: Sequence[str]) -> str:
    """The model kind where `learner` is not given: lambdamart over the cross-encoder's feature, logistic
    otherwise (WikiQA dev, trained on WikiQA train: MAP 0.797 against 0.791 with cross, scored one pair per
    call; 0.669 against 0.689 without; bench/dbqa_learners.py)."""
    return "lambdamart" if "cross" in features else "logistic"


class Learned(BaseRanker):
    def __init__(self, lang: str, settings: RankerSettings, text: Text) -> None:
        self.features_of = list(settings.get("features") or DEFAULT_FEATURES)
        bad = [f for f in self.features_of if f not in RANKERS or f == "learned"]
        if bad or len(set(self.features_of)) < len(self.features_of):
            raise UserError(f"--features {','.join(self.features_of)}: not distinct names of rankers (fix: give "
                            f"distinct names among {', '.join(r for r in RANKERS if r != 'learned')})")
        self.parts = [make(f, lang, settings, text) for f in self.features_of]
        self.names = tuple(n for p in self.parts for n in p.names)
        self.learner = settings.get("learner") or default_learner(self.features_of)
        if self.learner not in MODELS:
            raise UserError(f"--learner {self.learner}: unknown (fix: use one of {', '.join(MODELS)})")
        self.options = ("features", "learner", *(o for p in self.parts for o in p.options))
        self.model: Any = None  # a learning model (Logistic or LambdaMART) once fitted

    def features(self, groups: Sequence[Candidates]) -> np.ndarray:
        return np.hstack([p.features(groups) for p in self.parts])

    def fit(self, groups: Sequence[Candidates]) -> "Learned":
        labels = [y for g in groups for y in g.labels or ()]
        if not learning.two_classes(labels):
            raise UserError("the learned ranker needs training lines labelled 1 and lines labelled 0")
        model = learning.make(self.learner, **MODELS[self.learner])
        self.model = model.fit(self.features(groups), np.array(labels), [len(g.texts) for g in groups])
        return self

    def score(self, groups: Sequence[Candidates]) -> np.ndarray:
        return self.model.score(self.features(groups))

    def params(self) -> dict[str, object]:
        return {**{k: v for p in self.parts for k, v in p.params().items()}, "features": ",".join(self.features_of),
                "learner": self.learner}

    def fitted(self) -> dict[str, object]:
        """logistic: each feature's weight; lambdamart: each feature's total gain over the trees."""
        if self.model is None:
            return {}
        if self.learner == "lambdamart":
            return {"gains": {n: round(float(g), 6) for n, g in zip(self.names, self.model.importances())}}
        return {"weights": {n: round(float(w), 6) for n, w in zip(self.names, self.model.coefficients())}}
