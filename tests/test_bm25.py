"""Exact BM25 scores on the six-passage fixture index, against Lucene's BM25 formula computed here."""
import json
import math
import os

import numpy as np
import pytest

from conftest import FIXTURES
from qa_baseline import jvm
from qa_baseline.retrievers import open_retriever
from qa_baseline.retrievers.bm25 import BATCH_MAX_K


def lucene_tokens(text):
    autoclass = jvm.start()
    return list(autoclass("io.anserini.analysis.AnalyzerUtils").analyze(text).toArray())


def expected_bm25(query, k1=0.9, b=0.4):
    """Lucene 9 BM25Similarity in float32: idf = ln(1 + (N - df + .5) / (df + .5)),
    score = sum over query terms of boost * idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)).
    Every fixture passage is shorter than 24 tokens, so Lucene's one-byte length norm is exact.
    Anserini then rounds each score to 4 decimals (ScoreTiesAdjusterReranker) and breaks ties by docid."""
    with open(os.path.join(FIXTURES, "tiny-en.jsonl"), encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    toks = {d["id"]: lucene_tokens(d["title"] + "\n" + d["contents"]) for d in docs}
    assert max(len(t) for t in toks.values()) < 24
    n = len(docs)
    avgdl = np.float32(sum(len(t) for t in toks.values()) / n)
    qterms = lucene_tokens(query)
    scores = {}
    for docid, t in toks.items():
        s = np.float32(0)
        for term in dict.fromkeys(qterms):
            df = sum(term in d for d in toks.values())
            tf = t.count(term)
            if tf == 0:
                continue
            idf = np.float32(math.log(1 + (n - df + 0.5) / (df + 0.5)))
            boost = qterms.count(term)  # Anserini's bag-of-words query boosts a repeated term
            s += np.float32(boost * idf * tf / (tf + k1 * (1 - b + b * len(t) / avgdl)))
        if s > 0:
            scores[docid] = float(np.float32(round(float(s), 4)))
    return sorted(scores.items(), key=lambda x: (-x[1], x[0]))


@pytest.mark.parametrize("query", ["cat", "green plants sunlight", "the cat and the dog", "iron magnet iron",
                                   "light from the sun"])
def test_scores_match_lucene_formula(tiny_cfg, query):
    hits = open_retriever("bm25", tiny_cfg, {}).search([query], k=10)[0]
    want = expected_bm25(query)
    assert [d for d, _ in hits] == [d for d, _ in want]
    for (_, got), (_, exp) in zip(hits, want):
        assert got == pytest.approx(exp, rel=1e-6)


def test_pinned_scores(tiny_cfg):
    """Pinned like pyserini's tests: a change of analyzer, similarity or indexed text shows up here."""
    hits = open_retriever("bm25", tiny_cfg, {}).search(["cat"], k=10)[0]
    assert [d for d, _ in hits] == ["d1", "d2"]
    assert hits[0][1] == pytest.approx(0.8013, abs=1e-6)
    assert hits[1][1] == pytest.approx(0.5551, abs=1e-6)


def test_batch_equals_loop_and_k1_b_matter(tiny_cfg):
    queries = ["cat milk", "sun light", "water ice", "nothing matches zzz", ""]
    r = open_retriever("bm25", tiny_cfg, {})
    assert r.search(queries, k=3) == r.search(queries, k=3, batch=False)
    deep = r.search(queries, k=BATCH_MAX_K + 10)  # deep searches go one query at a time (heap), same hits
    assert [h[:3] for h in deep] == r.search(queries, k=3) and len(deep[0]) == 2
    assert r.search(["zzz"], k=3) == [[]] and r.search([""], k=3) == [[]]
    other = open_retriever("bm25", tiny_cfg, {"k1": 1.2, "b": 0.75}).search(["cat"], k=3)[0]
    assert other[0][1] != pytest.approx(0.8013, abs=1e-6)
    assert other[0][1] == pytest.approx(dict(expected_bm25("cat", 1.2, 0.75))["d1"], rel=1e-6)


def test_title_is_indexed_and_returned(tiny_cfg):
    r = open_retriever("bm25", tiny_cfg, {})
    assert r.search(["moon"], k=1)[0][0][0] == "d4"
    assert r.title("d4") == "Moon"
