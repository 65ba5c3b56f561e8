"""What a ranker is: `Candidates` (a query and its candidate texts), the `Ranker` protocol (and `Learner`, a
ranker that is fitted first), the settings rankers read (`RankerSettings`), and `BaseRanker`, the base class of
the rankers here (a score is one of the feature columns)."""
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol, TypedDict

import numpy as np

from .tokens import Text


class Candidates(NamedTuple):
    """A query and its candidate texts (dbqa: a question and its sentences)."""
    query: str
    texts: list[str]
    labels: list[int] | None  # 1/0 per text, or None (unlabelled)
    line: int | None  # where the group starts in its file (or None)


class RankerSettings(TypedDict, total=False):
    """The settings rankers read (each ranker its `options`; a task's command-line options of the same names)."""
    k1: float  # bm25 (default retrievers.base.K1)
    b: float  # bm25 (default retrievers.base.B)
    tokens: str  # bm25, overlap: Chinese tokens, char|bigram|jieba (rankers/tokens.py)
    encoder: str  # dense: a bi-encoder (default encoders.DEFAULTS of the language)
    features: Sequence[str]  # learned: the rankers whose features it combines
    learner: str  # learned: a learning.MODELS kind (logistic, lambdamart)


class Ranker(Protocol):
    """A ranker, made by its class (a RankerClass) and listed in rankers.RANKERS. Texts are taken group by group,
    in order."""
    names: tuple[str, ...]  # its feature columns
    options: tuple[str, ...]  # the settings it reads

    def features(self, groups: Sequence[Candidates]) -> np.ndarray:
        """float array (texts, len(names))."""
        ...

    def score(self, groups: Sequence[Candidates]) -> np.ndarray:
        """One float per text: the higher, the better."""
        ...

    def params(self) -> dict[str, object]:
        """What decides its scores (the run row's settings)."""
        ...

    def fitted(self) -> dict[str, object]:
        """What fitting found (learned weights): the run row's `observed`, not its settings."""
        ...


class Learner(Ranker, Protocol):
    """A ranker fitted on labelled groups before it scores."""

    def fit(self, groups: Sequence[Candidates]) -> "Learner": ...


RankerClass = Callable[[str, RankerSettings, Text], Ranker]  # (lang, settings, a shared tokens.Text) -> a ranker


class BaseRanker:
    """The base of the rankers here: score(groups) is the feature column `main`; no params, nothing fitted."""
    names: tuple[str, ...] = ()
    main = 0
    options: tuple[str, ...] = ()

    def features(self, groups: Sequence[Candidates]) -> np.ndarray:
        raise NotImplementedError

    def score(self, groups: Sequence[Candidates]) -> np.ndarray:
        return self.features(groups)[:, self.main]

    def params(self) -> dict[str, object]:
        return {}

    def fitted(self) -> dict[str, object]:
        """What fitting found (learned weights): the row's `observed`, not its settings."""
        return {}
