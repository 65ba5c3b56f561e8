"""postings.npz (indexes/postings.py): BM25.top_scores over numpy arrays gives Lucene's float scores bit for bit,
on lossy length norms, repeated query terms (boosts), questions grouped with their options, and every analyzer."""
import json
import os

import numpy as np
import pytest

from qa_baseline.core.config import corpus_config
from qa_baseline.indexes import postings
from qa_baseline.indexes.lucene import build_bm25
from qa_baseline.retrievers import open_retriever


def lucene_raw(r, queries, k):
    """Lucene's own float scores of its top K per query (before Anserini's rounding), as lucene_top_scores
    searches them."""
    r.lucene_top_scores(["x"], 1)  # opens r._lucene
    lucene, query = r._lucene
    return [[d.score for d in lucene.search(query(q), k).scoreDocs] for q in queries]


def numpy_raw(r, queries, k):
    analyzer = r._searcher.get_analyzer()
    return r.postings_npz.top_scores([postings.tokens(analyzer, q) for q in queries], k)


@pytest.fixture(scope="module")
def zipf_cfg(tmp_path_factory, index_root):
    """400 passages of 1-300 words drawn from a Zipf vocabulary of 600 words (lengths over 24 words have lossy
    one-byte norms; frequent words occur many times in a passage and in most passages), three texts twice."""
    rng = np.random.default_rng(11)
    words = [f"w{i}x" for i in range(600)]
    p = 1 / np.arange(1, 601) ** 1.1
    texts = [" ".join(rng.choice(words, size=rng.integers(1, 300), p=p / p.sum())) for _ in range(397)]
    texts += texts[:3]
    src = tmp_path_factory.mktemp("zipf") / "zipf.jsonl"
    src.write_text("".join(json.dumps({"id": f"z{i}", "title": "", "contents": t}) + "\n" for i, t in enumerate(texts)))
    cfg = corpus_config(str(src))
    build_bm25(cfg)
    return cfg, words, rng


def test_numpy_scores_are_lucenes_bit_for_bit(zipf_cfg):
    cfg, words, rng = zipf_cfg
    r = open_retriever("bm25", cfg, {})
    assert r.postings_npz is not None
    queries = []
    for _ in range(60):  # MCQA's shape: a question, then the question with each of four options
        question = " ".join(rng.choice(words[:300], size=rng.integers(3, 15)))
        queries += [f"{question} {' '.join(rng.choice(words, size=rng.integers(1, 4)))}" for _ in range(4)]
    queries += ["w0x w0x w0x", "w5x w5x w7x w7x w7x w7x w7x", "unknown words only", "", "w599x"]
    for k in (1, 3, 10):
        raw = lucene_raw(r, queries, k)
        assert numpy_raw(r, queries, k) == raw
        assert numpy_raw(r, queries[::-1], k) == raw[::-1]  # other groups, the same scores
        searched = [[s for _, s in h] for h in r.search(queries, k)]
        assert r.top_scores(queries, k) == r.lucene_top_scores(queries, k) == searched
    assert any(len(set(s)) < len(s) for s in lucene_raw(r, queries, 10))  # ties (the texts held twice) were met


def test_postings_of_another_analysis_are_not_written(zipf_cfg, tmp_path):
    """Statistics that differ from the index's (here: one passage left out) write nothing: Lucene searches."""
    cfg, _, _ = zipf_cfg
    r = open_retriever("bm25", cfg, {})
    folder = os.path.join(r._folder, "lucene")
    texts = [json.loads(line)["contents"] for line in open(cfg["sources"][0]["file"], encoding="utf-8")]
    analyzer = r._searcher.get_analyzer()
    assert postings.write(folder, lambda: texts[:-1], analyzer, str(tmp_path / "short.npz")) is False
    assert not (tmp_path / "short.npz").exists()
    assert postings.write(folder, lambda: texts[::-1], analyzer, str(tmp_path / "whole.npz")) is True  # any order


def test_an_index_without_postings_searches_through_lucene(monkeypatch, tmp_path):
    """Above MAX_PASSAGES (or an index built before postings.npz) there is no file: top_scores is Lucene's."""
    monkeypatch.setattr(postings, "MAX_PASSAGES", 5)
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(tmp_path / "indexes"))
    cfg = corpus_config(os.path.join(os.path.dirname(__file__), "fixtures", "tiny-en.jsonl"))
    assert not os.path.exists(os.path.join(build_bm25(cfg), postings.FILE))
    r = open_retriever("bm25", cfg, {})
    assert r.postings_npz is None
    assert r.top_scores(["cat milk", "sun"], 3) == [[s for _, s in h] for h in r.search(["cat milk", "sun"], 3)]
    assert r._lucene is not None


@pytest.mark.parametrize("analyzer", ["ja", "cjk", "jieba"])
def test_numpy_scores_in_every_analyzer(analyzer, tmp_path):
    texts = {"ja": ["東京は日本の首都です。東京には多くの人が住んでいます。", "富士山は日本で一番高い山です。",
                    "京都は古い都で、寺が多い。東京から新幹線で行けます。"],
             "cjk": ["北京是中国的首都，也是政治中心。", "上海是中国最大的城市之一，经济发达。",
                     "长江是中国最长的河流，流经上海。"]}
    questions = {"ja": ["日本の首都はどこですか", "一番高い山 山", "東京 東京 京都"],
                 "cjk": ["中国的首都是哪里", "最长的河流 河流", "上海 上海 北京"]}
    lang = "ja" if analyzer == "ja" else "cjk"
    src = tmp_path / f"{lang}.jsonl"
    src.write_text("".join(json.dumps({"id": f"d{i}", "title": "", "contents": t}, ensure_ascii=False) + "\n"
                           for i, t in enumerate(texts[lang])), encoding="utf-8")
    cfg = corpus_config(str(src))
    build_bm25(cfg, analyzer=analyzer)
    r = open_retriever("bm25", cfg, {"analyzer": analyzer})
    assert r.postings_npz is not None
    queries = questions[lang]
    searched = [[s for _, s in h] for h in r.search(queries, 3)]
    assert r.top_scores(queries, 3) == r.lucene_top_scores(queries, 3) == searched and all(searched)
