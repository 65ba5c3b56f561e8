"""KBQA's predicate ranker with either learning.MODELS kind (kb/predicates.py LEARNERS): LambdaMART gets each
training question's candidates as one query group."""
import os

import pytest

from conftest import FIXTURES
from qa_baseline.indexes.kb import build_kb, open_kb
from qa_baseline.kb import predicates
from qa_baseline.rankers import learning
from qa_baseline.tasks.kbqa.formats import read_gold

KB = os.path.join(FIXTURES, "kbqa-tiny.kb")
TRAIN = os.path.join(FIXTURES, "kbqa-tiny-train.txt")


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("kbstores"))
    build_kb(KB, os.path.join(FIXTURES, "kbqa-tiny.mention2id"), root=root)
    store = open_kb(KB, root=root)
    yield store
    store.close()


def test_lambdamart_is_fitted_over_each_questions_candidates(kb, monkeypatch):
    items = [(g.question, g.answers) for g in read_gold(TRAIN).values()]
    made = []

    def spy(kind, **options):
        model = learning.MODELS[kind](**options)
        fit = model.fit
        model.fit = lambda X, y, groups=None: (made.append((kind, options, len(y), groups)), fit(X, y, groups))[1]
        return model
    monkeypatch.setattr(learning, "make", spy)
    model = predicates.train(kb, items, learner="lambdamart")
    sizes = [n for n in (len(predicates.candidates(kb, q)[1]) for q, _ in items) if n]  # counted independently
    assert made == [("lambdamart", {}, 15, sizes)] and sum(sizes) == model.stats["candidates"] == 15
    predicates.train(kb, items)
    assert made[1][:2] == ("logistic", {"C": 1.0, "max_iter": 2000})  # the default kind, as before
    scores = predicates.Ranker(kb, model).answer(items[0][0])[2]
    again = predicates.Ranker(kb, predicates.train(kb, items, learner="lambdamart")).answer(items[0][0])[2]
    assert scores == again  # deterministic
