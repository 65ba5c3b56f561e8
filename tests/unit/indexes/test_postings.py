"""postings.npz (indexes/postings.py): the index's own postings, read from Lucene; BM25.top_scores over them gives
Lucene's float scores bit for bit, on lossy length norms, repeated query terms (boosts), questions grouped with
their options, and every analyzer; a damaged file stops a run with one error line, as a damaged Lucene index does."""
import glob
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import FIXTURES
from qa_baseline import run as run_module
from qa_baseline.core.config import corpus_config
from qa_baseline.indexes import postings
from qa_baseline.indexes.lucene import build_bm25, run_anserini
from qa_baseline.lucene import bulk, jvm
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


def test_postings_are_the_indexs_own(zipf_cfg):
    """The file holds Lucene's postings of the index, numbered by Lucene's documents: each term's passages and
    counts, each passage's length norm and the field's statistics, as counted here from the texts (the analyzer
    keeps these words as they are)."""
    cfg, _, _ = zipf_cfg
    r = open_retriever("bm25", cfg, {})
    texts = {d["id"]: d["contents"].split() for d in map(json.loads, open(cfg.sources[0].file, encoding="utf-8"))}
    ids = [r._searcher.doc(i).get("id") for i in range(len(texts))]  # Lucene's document i: its passage's id
    small_float = jvm.start()("org.apache.lucene.util.SmallFloat")
    with np.load(os.path.join(r._folder, postings.FILE)) as z:
        words, offsets, docs, freqs = z["words"].tobytes().decode().split("\n"), z["offsets"], z["docs"], z["freqs"]
        assert z["norms"].tolist() == [small_float.intToByte4(len(texts[i])) & 0xFF for i in ids]
        assert (int(z["doc_count"]), int(z["sum_ttf"])) == (len(texts), sum(map(len, texts.values())))
    expected = {}
    for i, passage in enumerate(ids):
        for word in set(texts[passage]):
            expected.setdefault(word, []).append((i, texts[passage].count(word)))
    found = {w: list(zip(docs[a:b].tolist(), freqs[a:b].tolist())) for w, a, b in zip(words, offsets, offsets[1:])}
    assert found == expected and words == sorted(expected)  # Lucene's term order: its UTF-8 bytes' (ASCII here)


def test_postings_read_in_batches_are_the_same(zipf_cfg, tmp_path, monkeypatch):
    """The postings cross from the JVM in batches of lucene.bulk.BATCH postings (a term's whole when it has more)
    and chunks of CHUNK bytes: small ones (terms of up to 393 passages, 26,640 postings) write the build's file."""
    cfg, _, _ = zipf_cfg
    folder = open_retriever("bm25", cfg, {})._folder
    monkeypatch.setattr(bulk, "BATCH", 50)
    monkeypatch.setattr(bulk, "CHUNK", 36)
    assert postings.write(os.path.join(folder, "lucene"), str(tmp_path / "small.npz")) is True
    with np.load(os.path.join(folder, postings.FILE)) as built, np.load(tmp_path / "small.npz") as small:
        assert sorted(built.files) == sorted(small.files)
        assert all(np.array_equal(built[name], small[name]) for name in built.files)
        assert np.diff(built["offsets"]).max() > 50 and len(built["docs"]) > 20 * 50  # a term above a batch, batches


def test_an_index_of_several_segments_has_no_postings(zipf_cfg, tmp_path):
    """postings.write reads one segment (builds end in one); of several it writes nothing: Lucene searches."""
    cfg, _, _ = zipf_cfg
    docs = tmp_path / "docs"
    docs.mkdir()
    lines = open(cfg.sources[0].file, encoding="utf-8").readlines()
    for part in range(2):
        (docs / f"part-{part}.jsonl").write_text("".join(lines[part::2]), encoding="utf-8")
    assert run_anserini(str(docs), str(tmp_path / "lucene"), "default", 2, optimize=False) == len(lines)
    assert postings.write(str(tmp_path / "lucene"), str(tmp_path / "two.npz")) is False
    assert not (tmp_path / "two.npz").exists()


def flip(path, at=100, n=64):
    """N bytes of the file PATH inverted from AT on (a damaged disk, a bad copy): its size is unchanged."""
    data = bytearray(path.read_bytes())
    data[at:at + n] = bytes(b ^ 0xFF for b in data[at:at + n])
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["postings.npz: 64 bytes flipped", "lucene/_N.si removed"])
def test_a_damaged_index_stops_a_run_with_one_line_naming_the_rebuild(damage, tmp_path, monkeypatch, capsys):
    """Issue 52.4: an MCQA run (which scores through postings.npz) on an index whose derived file or whose Lucene
    segment is damaged: one error line naming the command that rebuilds it, never a traceback."""
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(tmp_path / "indexes"))
    tiny = os.path.join(FIXTURES, "tiny-en.jsonl")
    folder = build_bm25(corpus_config(tiny))
    if damage.startswith(postings.FILE):
        flip(Path(folder) / postings.FILE)
    else:
        os.remove(glob.glob(os.path.join(folder, "lucene", "*.si"))[0])  # the one segment's
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        run_module.main(["--task", "mcqa-en", "--data", os.path.join(FIXTURES, "mcqa-sample.csv"), "--corpus", tiny,
                         "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    cause = r"BadZipFile: Bad CRC-32 for file '\w+\.npy' of postings\.npz" if damage.startswith(postings.FILE) \
        else r"NoSuchFileException: lucene/_\d+\.si"
    assert stopped.value.code == 2 and re.fullmatch(
        rf"error: the index at \S+/bm25-default is damaged or incomplete \({cause}\) \(fix: rebuild it with: "
        rf"\S.*index --corpus {re.escape(tiny)} --force\)\n", err), err


def test_an_index_without_postings_searches_through_lucene(monkeypatch, tmp_path):
    """Above MAX_PASSAGES (or an index built before postings.npz) there is no file: top_scores is Lucene's."""
    monkeypatch.setattr(postings, "MAX_PASSAGES", 5)
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(tmp_path / "indexes"))
    cfg = corpus_config(os.path.join(FIXTURES, "tiny-en.jsonl"))
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
