"""The shared pieces of the rankers: BM25 in memory (rankers/bm25mem.py) and learning (rankers/learning.py)."""
import math

import numpy as np
import pytest

from qa_baseline.rankers import learning
from qa_baseline.rankers.bm25mem import BM25Index, idf


# --- BM25 in memory -----------------------------------------------------------------------------------------

def test_bm25_by_hand():
    docs = [["a", "b", "a"], ["b", "c"], []]
    index = BM25Index(docs, k1=0.9, b=0.4)
    avgdl = 5 / 3
    norm = [0.9 * (1 - 0.4 + 0.4 * dl / avgdl) for dl in (3, 2)]
    want_a = idf(3, 1) * 2 / (2 + norm[0])
    assert idf(3, 1) == math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    assert index.scores([("a", 1)]) == {0: pytest.approx(want_a)}
    got = index.scores([("b", 1), ("zzz", 1)])  # an unknown term adds nothing; the empty document is absent
    assert set(got) == {0, 1} and got[1] == pytest.approx(idf(3, 2) * 1 / (1 + norm[1]))
    weighted, repeated = index.scores([("a", 2)]), index.scores([("a", 1), ("a", 1)])
    assert weighted[0] == pytest.approx(2 * want_a) == repeated[0]  # a repeated term counts each time
    assert len(index) == 3 and BM25Index([], 0.9, 0.4).scores([("a", 1)]) == {}


# --- learning -----------------------------------------------------------------------------------------------

def test_folds_are_i_mod_k():
    assert learning.folds(5, 2) == [[0, 2, 4], [1, 3]]
    assert learning.split(list("abcde"), 2, 1) == (["a", "c", "e"], ["b", "d"])
    assert [learning.fold_of(i, 3) for i in range(5)] == [0, 1, 2, 0, 1]


def test_logistic_is_the_scaled_pipeline():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), np.array([0, 1] * 20)
    X[y == 1, 0] += 1.0
    model = learning.make("logistic", solver="liblinear", random_state=0).fit(X, y, [4] * 10)
    plain = make_pipeline(StandardScaler(), LogisticRegression(solver="liblinear", random_state=0)).fit(X, y)
    assert model.score(X).tolist() == plain.decision_function(X).tolist()  # bit for bit
    assert model.probability(X).tolist() == plain.predict_proba(X)[:, 1].tolist()
    assert model.coefficients().tolist() == plain[-1].coef_[0].tolist() and model.intercept() == plain[-1].intercept_[0]
    assert [v.tolist() for v in model.scaling()] == [plain[0].mean_.tolist(), plain[0].scale_.tolist()]
    assert learning.two_classes([0, 1, 1]) and not learning.two_classes([1, 1])


def test_keep_if_better_on_held_out_folds():
    items = list(range(10))
    seen = []

    def value(model, held):
        return sum(model(x) for x in held) / len(held)

    def fit(train):
        seen.append(list(train))
        return None if train[0] == 1 else lambda x: 1.0  # without items 0 and 5 (fold 0) it cannot be fitted

    kept, cv = learning.keep_if_better(items, 5, lambda x: 0.5, fit, value)
    assert kept(0) == 1.0 and seen[-1] == items and seen[0] == [1, 2, 3, 4, 6, 7, 8, 9]
    assert cv == (0.5, pytest.approx((2 * 0.5 + 8 * 1.0) / 10))  # the baseline stands in where fitting fails
    kept, cv = learning.keep_if_better(items, 5, lambda x: 2.0, lambda train: lambda x: 1.0, value)
    assert kept(0) == 2.0 and cv == (2.0, 1.0)


def test_lambdamart_ranks_within_groups_and_is_deterministic():
    """LambdaMART learns an order inside question groups: each group's positive is the row with the largest
    first feature (the other features are noise), so the fitted ranker puts it first in held-out groups, the
    same scores come out of two fits, and the first feature has the largest gain."""
    rng = np.random.default_rng(0)
    def groups(n):
        X = rng.normal(size=(n * 8, 3))
        y = np.zeros(n * 8, dtype=int)
        for g in range(n):
            y[g * 8 + int(np.argmax(X[g * 8:(g + 1) * 8, 0]))] = 1
        return X, y
    X, y = groups(60)
    a = learning.make("lambdamart").fit(X, y, [8] * 60)
    b = learning.make("lambdamart").fit(X, y, [8] * 60)
    Xt, yt = groups(20)
    s = a.score(Xt)
    assert (s == b.score(Xt)).all()
    top = [int(np.argmax(s[g * 8:(g + 1) * 8])) for g in range(20)]
    gold = [int(np.argmax(yt[g * 8:(g + 1) * 8])) for g in range(20)]
    assert sum(t == g for t, g in zip(top, gold)) >= 15  # trees cut a continuous argmax in steps
    assert int(np.argmax(a.importances())) == 0
    with pytest.raises(ValueError, match="GROUPS"):
        learning.make("lambdamart").fit(X, y)
