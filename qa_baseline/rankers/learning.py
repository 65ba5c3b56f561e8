"""Learning, written once for every learned ranker (rankers/learned.py, answers/scorers.py, kb/predicates.py):
models by kind name, the i-mod-K fold split, and keep-if-better on held-out folds.

A model kind (MODELS; `make(kind, **options)`) is a class with
  fit(X, y, groups=None) -> self   X: (rows, features) floats; y: 0/1 labels; groups: the number of rows of
                                   each question, the rows of a question consecutive (for a ranker that learns
                                   within questions; the logistic regression does not use it)
  score(X) -> float array          higher ranks first
`logistic` standardises each feature (StandardScaler) and fits scikit-learn's LogisticRegression with the
OPTIONS it is made with (solver, C, max_iter, random_state: each learned ranker states its own, and liblinear
with a fixed random_state is deterministic). Its score is the logit; it also gives probability(X) (P(y = 1))
and, for rows and traces, coefficients(), intercept() and scaling(). `lambdamart` is LightGBM's lambdarank over
question groups (GROUPS is required: the rows of each question are one query); deterministic (one thread,
`deterministic=True`, fixed seeds); its score is the ranking score, comparable within a question only, and
importances() gives each feature's total gain.

Folds: item i (in file order) is in fold i mod K. `keep_if_better` cross-validates a fitted model against a
baseline on those folds and keeps it only where it wins."""
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

import numpy as np
from ..core.hints import requires

T = TypeVar("T")
M = TypeVar("M")


class Model(Protocol):
    def fit(self, X: np.ndarray, y: np.ndarray, groups: Sequence[int] | None = None) -> "Model": ...

    def score(self, X: np.ndarray) -> np.ndarray: ...


class Logistic:
    """Standardised features, then a logistic regression (OPTIONS: LogisticRegression's keyword arguments)."""
    kind = "logistic"

    def __init__(self, **options: object) -> None:
        self.options = options
        self.pipeline: Any = None  # the fitted sklearn pipeline

    def fit(self, X: np.ndarray, y: np.ndarray, groups: Sequence[int] | None = None) -> "Logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        self.pipeline = make_pipeline(StandardScaler(), LogisticRegression(**self.options))
        self.pipeline.fit(X, y)
        return self

    def score(self, X: np.ndarray) -> np.ndarray:
        """The logit of each row."""
        return self.pipeline.decision_function(X)

    def probability(self, X: np.ndarray) -> np.ndarray:
        """P(y = 1) of each row."""
        return self.pipeline.predict_proba(X)[:, 1]

    def coefficients(self) -> np.ndarray:
        """The weight of each (standardised) feature."""
        return self.pipeline[-1].coef_[0]

    def intercept(self) -> float:
        return self.pipeline[-1].intercept_[0]

    def scaling(self) -> tuple[np.ndarray, np.ndarray]:
        """(mean, scale) of each feature in the training rows."""
        return self.pipeline[0].mean_, self.pipeline[0].scale_


class LambdaMART:
    """LightGBM's LGBMRanker (objective lambdarank) over question groups; OPTIONS override DEFAULTS."""
    kind = "lambdamart"
    DEFAULTS: dict[str, object] = {"n_estimators": 200, "learning_rate": 0.05, "num_leaves": 15,
                                "min_child_samples": 10, "subsample": 1.0, "colsample_bytree": 1.0,
                                "random_state": 0, "n_jobs": 1, "deterministic": True, "force_row_wise": True,
                                "verbosity": -1}

    def __init__(self, **options: object) -> None:
        self.options = {**self.DEFAULTS, **options}
        self.model: Any = None  # the fitted lightgbm.LGBMRanker

    def fit(self, X: np.ndarray, y: np.ndarray, groups: Sequence[int] | None = None) -> "LambdaMART":
        if groups is None or sum(groups) != len(y):
            raise ValueError("lambdamart needs GROUPS: the number of rows of each question, summing to len(y)")
        lightgbm = requires("retrieval", "lightgbm")
        self.model = lightgbm.LGBMRanker(objective="lambdarank", **self.options)
        self.model.fit(np.asarray(X, dtype=float), np.asarray(y, dtype=int), group=list(groups))
        return self

    def score(self, X: np.ndarray) -> np.ndarray:
        """The ranking score of each row (comparable within one question)."""
        return self.model.predict(np.asarray(X, dtype=float))

    def importances(self) -> np.ndarray:
        """Each feature's total gain over the trees."""
        return self.model.booster_.feature_importance(importance_type="gain")


MODELS: dict[str, type] = {"logistic": Logistic, "lambdamart": LambdaMART}
# each kind's options where a ranker states none of its own (liblinear with a fixed seed: deterministic)
OPTIONS: dict[str, dict[str, object]] = {"logistic": {"solver": "liblinear", "random_state": 0}, "lambdamart": {}}


def make(kind: str, **options: object) -> Model:
    """An unfitted model of KIND (a name in MODELS) with OPTIONS."""
    return MODELS[kind](**options)


def two_classes(y: Iterable[Hashable]) -> bool:
    """Do the labels Y hold both classes (what fitting needs)?"""
    return len(set(y)) >= 2


def fold_of(i: int, k: int) -> int:
    """The fold of item I among K folds."""
    return i % k


def folds(n: int, k: int) -> list[list[int]]:
    """The item indices of each of K folds of N items."""
    return [[i for i in range(n) if fold_of(i, k) == f] for f in range(k)]


def split(items: Sequence[T], k: int, fold: int) -> tuple[list[T], list[T]]:
    """(the items outside FOLD, the items in it) of ITEMS in K folds, each in order."""
    return ([x for i, x in enumerate(items) if fold_of(i, k) != fold],
            [x for i, x in enumerate(items) if fold_of(i, k) == fold])


def heldout(items: Sequence[T], k: int, fit: Callable[[Sequence[T]], M | None], value: Callable[[M, list[T]], float],
            fallback: Any = None) -> float:
    """The mean over ITEMS of VALUE(model, held items), each model FIT on the other K-1 folds of ITEMS (FALLBACK
    where FIT returns None)."""
    total = []
    for f in range(k):
        train, held = split(items, k, f)
        model = fit(train)
        total.append(value(fallback if model is None else model, held) * len(held))
    return sum(total) / len(items)


def keep_if_better(items: Sequence[T], k: int, baseline: M, fit: Callable[[Sequence[T]], M | None],
                   value: Callable[[M, list[T]], float]) -> tuple[M, tuple[float, float]]:
    """BASELINE, or FIT(ITEMS) where a model fitted on K-1 folds beats BASELINE on the held-out fold, over the K
    folds of ITEMS. FIT returns a model or None (one it cannot fit: BASELINE stands in); VALUE(model, held
    items) is the mean value on them (higher is better). Returns (the model kept, (BASELINE's value, the
    fitted models' value)), each value the mean over all ITEMS."""
    cv = heldout(items, k, lambda _: baseline, value), heldout(items, k, fit, value, baseline)
    if cv[1] > cv[0]:
        model = fit(items)
        if model is not None:
            return model, cv
    return baseline, cv
