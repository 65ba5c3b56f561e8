"""Parquet corpora (qa_baseline/corpus/parquet.py): a file or a folder of shards in the layout of the Wikipedia
dumps published as datasets (id, url, title, text), written here with pyarrow and `datasets`; nothing downloaded.
The six fixture passages as Parquet give the same BM25 hits and the same mcqa run as the JSON-lines fixture."""
import json
import os
from dataclasses import replace

import pytest
from conftest import FIXTURES, cli

from qa_baseline.core.config import corpus_config
from qa_baseline.core.errors import Problems, UserError
from qa_baseline.corpus import read_corpus

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

QUERIES = ["cat", "green plants sunlight", "the cat and the dog", "iron magnet iron", "light from the sun"]


def tiny_rows():
    with open(os.path.join(FIXTURES, "tiny-en.jsonl"), encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    return {"id": [d["id"] for d in docs], "url": [f"https://en.wikipedia.org/wiki?curid={d['id']}" for d in docs],
            "title": [d["title"] for d in docs], "text": [d["contents"] for d in docs]}


def tiny_parquet(path):
    """The six fixture passages as one Parquet file of three row groups (pyarrow)."""
    pq.write_table(pa.table(tiny_rows()), path, row_group_size=2)
    return str(path)


def tiny_shards(folder):
    """The six fixture passages as a folder of two Parquet shards written by `datasets`, plus a file to ignore."""
    datasets = pytest.importorskip("datasets")
    rows = tiny_rows()
    folder.mkdir()
    for i, part in enumerate((slice(0, 4), slice(4, 6))):
        datasets.Dataset.from_dict({k: v[part] for k, v in rows.items()}).to_parquet(
            str(folder / f"train-{i:05d}-of-00002.parquet"))
    (folder / "README.md").write_text("not a shard\n", encoding="utf-8")
    return str(folder)


def options(cfg, **source):
    """CFG with its source's reader options SOURCE."""
    return replace(cfg, sources=(replace(cfg.sources[0], **source),))


def jsonl_passages():
    return list(read_corpus(corpus_config(os.path.join(FIXTURES, "tiny-en.jsonl")), Problems()))


def test_file_and_shards_read_like_the_jsonl(tmp_path):
    want = [{**p, "id": p["id"] + "-0"} for p in jsonl_passages()]  # one paragraph each: passage 0 of its row
    file_cfg = corpus_config(tiny_parquet(tmp_path / "tiny.parquet"))
    assert file_cfg.sources[0].reader == "parquet"
    assert list(read_corpus(file_cfg, Problems())) == want
    folder_cfg = corpus_config(tiny_shards(tmp_path / "shards"))
    assert folder_cfg.sources[0].reader == "parquet" and folder_cfg.name == "shards"
    assert list(read_corpus(folder_cfg, Problems())) == want
    assert list(read_corpus(options(file_cfg, split="row"), Problems())) == jsonl_passages()


def test_paragraphs_words_and_bad_rows(tmp_path):
    path = tmp_path / "wiki.parquet"
    article = "Anarchism is a political philosophy.\nIt has a long history.\n\nHistory\n\n" \
              "Humans lived in societies without hierarchies long before states."
    pq.write_table(pa.table({"id": ["12", None, "13", "14", "12"], "url": ["u"] * 5,
                             "title": ["Anarchism", "X", "Empty", None, "Again"],
                             "text": [article, "text without id", "  ", "A short article with no title.", "dup"]}),
                   path, row_group_size=2)
    problems = Problems("skip")
    cfg = corpus_config(str(path))
    got = list(read_corpus(cfg, problems))
    assert got == [
        {"id": "12-0", "title": "Anarchism", "contents": "Anarchism is a political philosophy. It has a long history."},
        {"id": "12-1", "title": "Anarchism",
         "contents": "Humans lived in societies without hierarchies long before states."},  # "History": too short
        {"id": "14-0", "title": "", "contents": "A short article with no title."}]
    assert problems.count == 2  # row 2 without an id, row 3 without text; row 5's only paragraph is too short
    with pytest.raises(UserError, match="row 2: empty or missing id"):
        list(read_corpus(cfg, Problems("stop")))
    words = options(cfg, split="words", words=4, min_chars=1)
    assert [p["contents"] for p in read_corpus(words, Problems("skip"))][:3] == [
        "Anarchism is a political", "philosophy. It has a", "long history. History Humans"]
    row = options(cfg, split="row")  # row ids are trusted unique (UNIQUE_IDS)
    assert [p["id"] for p in read_corpus(row, Problems("skip"))] == ["12", "14", "12"]


def test_errors_are_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="is a folder, not a corpus file"):
        corpus_config(str(tmp_path / "empty"))
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet", encoding="utf-8")
    with pytest.raises(UserError, match="cannot read it as Parquet"):
        list(read_corpus(corpus_config(str(bad)), Problems()))
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"key": ["1"], "body_text": ["x"]}), other)
    with pytest.raises(UserError, match="no id column"):
        list(read_corpus(corpus_config(str(other)), Problems()))
    with pytest.raises(UserError, match="unknown split"):
        list(read_corpus(options(corpus_config(str(other)), split="x"), Problems()))


def test_bm25_hits_and_mcqa_run_match_the_jsonl(tiny_cfg, index_root, tmp_path):
    from qa_baseline import run
    from qa_baseline.indexes.lucene import build_bm25
    from qa_baseline.retrievers import open_retriever
    file = tiny_parquet(tmp_path / "tiny.parquet")
    folder = tiny_shards(tmp_path / "shards")
    built = cli("index", "--corpus", folder)  # the child inherits the tests' index folder
    assert built.returncode == 0, built.stderr
    file_cfg = corpus_config(file)
    build_bm25(file_cfg)
    want = open_retriever("bm25", tiny_cfg, {}).search(QUERIES, k=10)
    for cfg in (file_cfg, corpus_config(folder)):
        got = open_retriever("bm25", cfg, {}).search(QUERIES, k=10)
        assert [[(d.removesuffix("-0"), s) for d, s in hits] for hits in got] == want
    sample = os.path.join(FIXTURES, "mcqa-sample.csv")
    rows = {}
    for name, corpus in (("jsonl", tiny_cfg.sources[0].file), ("file", file), ("folder", folder)):
        run.main(["--task", "mcqa-en", "--data", sample, "--corpus", corpus, "--out", str(tmp_path / name)])
        with open(tmp_path / name / "row.json", encoding="utf-8") as f:
            rows[name] = json.load(f)
        with open(rows[name]["files"]["submission"], encoding="utf-8") as f:
            rows[name]["answers"] = f.read()
    assert rows["jsonl"]["answers"] == rows["file"]["answers"] == rows["folder"]["answers"] == "q1,A\nq2,B\nq3,C\nq4,A\n"
    assert rows["jsonl"]["metrics"] == rows["file"]["metrics"] == rows["folder"]["metrics"]
