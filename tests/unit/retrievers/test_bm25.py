"""Exact BM25 scores on the six-passage fixture index, against Lucene's BM25 formula computed here."""
import json
import math
import os

import numpy as np
import pytest

from conftest import FIXTURES
from qa_baseline.core.config import corpus_config
from qa_baseline.indexes.lucene import build_bm25
from qa_baseline.lucene import jvm
from qa_baseline.retrievers import open_retriever
from qa_baseline.retrievers.bm25 import BATCH_MAX_K, anserini_scores


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


@pytest.mark.parametrize("limit_mb", [0, 64])
def test_top_scores_maps_small_postings_and_reads_large_ones_unmapped(tiny_cfg, monkeypatch, limit_mb):
    """Mapped, the postings a run reads stayed in its resident memory (bench/scale.py): .doc files over
    MAPPED_POSTINGS_MB are read through NIOFSDirectory, the terms dictionary, norms and the rest stay
    memory-mapped; the tiny index's postings (under 64 MB) are mapped with the rest."""
    from jnius import cast

    from qa_baseline.retrievers import bm25
    monkeypatch.setattr(bm25, "MAPPED_POSTINGS_MB", limit_mb)
    r = open_retriever("bm25", tiny_cfg, {})
    assert r.lucene_top_scores(["cat"], 1)[0] == [s for _, s in r.search(["cat"], 1)[0]]
    directory = cast("org.apache.lucene.index.DirectoryReader", r._lucene[0].getIndexReader()).directory()
    if limit_mb:
        assert directory.getClass().getName() == "org.apache.lucene.store.MMapDirectory"
        return
    directory = cast("org.apache.lucene.store.FileSwitchDirectory", directory)
    kinds = {f.rsplit(".", 1)[-1]: directory.getDirectory(f).getClass().getName().rsplit(".", 1)[-1]
             for f in directory.listAll() if "." in f}
    assert kinds.pop("doc") == "NIOFSDirectory" and {"tim", "tip", "nvd", "fdt"} <= set(kinds)
    assert set(kinds.values()) == {"MMapDirectory"}


def test_top_scores_are_the_scores_of_search(tiny_cfg, index_root, tmp_path):
    """top_scores (the index's postings.npz) and lucene_top_scores (Lucene's own top k, no stored passages read,
    on threads) give search's scores, ties too: passages with equal text score equal, and Anserini lowers each
    tied score by 1e-6 per place."""
    queries = ["cat milk", "sun light", "water ice", "nothing matches zzz", "", "iron magnet iron", "the cat"]
    r = open_retriever("bm25", tiny_cfg, {})
    for k in (1, 3, 10):
        assert r.top_scores(queries, k) == r.lucene_top_scores(queries, k) == [[s for _, s in h] for h in r.search(queries, k)]
    assert r.top_scores([], 3) == r.lucene_top_scores([], 3) == []
    src = tmp_path / "ties.jsonl"
    docs = [("t1", "Salt", "Salt is sodium chloride."), ("t2", "Salt", "Salt is sodium chloride."),
            ("t3", "Salt", "Salt is sodium chloride."), ("t4", "Sea", "Sea water holds salt."),
            ("t5", "Rock", "Rock salt is mined.")]
    src.write_text("".join(json.dumps({"id": i, "title": t, "contents": c}) + "\n" for i, t, c in docs))
    cfg = corpus_config(str(src))
    build_bm25(cfg)
    r = open_retriever("bm25", cfg, {})
    hits = r.search(["sodium chloride salt"], 5)[0]
    assert [d for d, _ in hits[:3]] == ["t1", "t2", "t3"]
    assert hits[0][1] - hits[1][1] == pytest.approx(1e-6, abs=2e-7) and hits[1][1] - hits[2][1] == pytest.approx(1e-6, abs=2e-7)
    queries = ["sodium chloride salt", "salt", "sea salt", "rock", "salt salt water"]
    for k in (1, 2, 3, 5):
        assert r.top_scores(queries, k) == r.lucene_top_scores(queries, k) == [[s for _, s in h] for h in r.search(queries, k)]


def test_anserini_scores_as_anserinis_reranker(tiny_cfg):
    """anserini_scores against Anserini's ScoreTiesAdjusterReranker itself, on 2,000 ranked lists with ties,
    near ties and scores half-way between two rounded values."""
    autoclass = jvm.start()
    from jnius import cast
    r = open_retriever("bm25", tiny_cfg, {})
    reader = autoclass("org.apache.lucene.index.DirectoryReader").open(autoclass("org.apache.lucene.store.FSDirectory").open(
        autoclass("java.io.File")(os.path.join(r.index_dir, "lucene")).toPath()))
    searcher = autoclass("org.apache.lucene.search.IndexSearcher")(cast("org.apache.lucene.index.IndexReader", reader))
    ScoreDoc, TopDocs = autoclass("org.apache.lucene.search.ScoreDoc"), autoclass("org.apache.lucene.search.TopDocs")
    hits = autoclass("org.apache.lucene.search.TotalHits")(6, autoclass("org.apache.lucene.search.TotalHits$Relation").EQUAL_TO)
    ties = autoclass("io.anserini.rerank.lib.ScoreTiesAdjusterReranker")()
    rng = np.random.default_rng(7)
    for _ in range(2000):
        s = rng.uniform(0, 30, rng.integers(1, 7))
        for i in range(1, len(s)):
            if rng.random() < 0.5:
                s[i] = s[i - 1] - rng.choice([0, 0, 1e-5, 5e-5, 1e-4, 1.5e-4])
        if rng.random() < 0.3:
            s = (np.floor(s * 1e4) + 0.5) / 1e4
        scores = sorted((float(np.float32(x)) for x in s), reverse=True)
        docs = autoclass("io.anserini.search.ScoredDocs").fromTopDocs(
            TopDocs(hits, [ScoreDoc(i, x) for i, x in enumerate(scores)]), searcher)
        assert anserini_scores(scores) == list(ties.rerank(docs, None).scores), scores
    # rounded in double precision: 16.17864990234375 * 1e4 is below the half, though in float it is the half
    assert anserini_scores([16.17864990234375]) == [float(np.float32(16.1786))]
    reader.close()


def test_a_query_of_more_than_1024_terms_is_scored(tiny_cfg):
    """Lucene's default limit of 1,024 clauses would stop the run with a Java error; the words that match
    nothing add nothing, so the long query scores as its one matching word."""
    r = open_retriever("bm25", tiny_cfg, {})
    long = "cat " + " ".join(f"w{i}x" for i in range(1500))
    assert len(set(lucene_tokens(long))) > 1024
    assert r.search([long, "cat"], 3) == [r.search(["cat"], 3)[0]] * 2 == r.search([long], 3, batch=False) * 2
    assert r.top_scores([long], 3) == r.lucene_top_scores([long], 3) == [[s for _, s in r.search(["cat"], 3)[0]]]
