"""Corpus readers (JSON lines, the embedded Vital Articles) and the bad-record policy."""
import gzip
import hashlib
import json
import os

import pytest

from conftest import FIXTURES
from qa_baseline.core.config import WORKSPACE, CorpusConfig, Source, corpus_config
from qa_baseline.core.errors import Problems, UserError
from qa_baseline.corpus import read_corpus
from qa_baseline.indexes.layout import fingerprint


def jsonl_cfg(path, **source):
    return CorpusConfig("t", "en", (Source("jsonl", str(path), str(path), **source),), "default", "t", "--corpus t")


def test_jsonl_field_names_gzip_and_blank_lines(tmp_path):
    p = tmp_path / "c.jsonl.gz"
    with gzip.open(p, "wt", encoding="utf-8") as f:
        f.write(json.dumps({"doc_id": "a", "title": "T", "text": " body "}) + "\n\n")
        f.write(json.dumps({"doc_id": 7, "text": "more"}) + "\n")
    assert list(read_corpus(jsonl_cfg(p), Problems())) == [
        {"id": "a", "title": "T", "contents": "body"}, {"id": "7", "title": "", "contents": "more"}]
    p2 = tmp_path / "c.jsonl"
    p2.write_text(json.dumps({"key": "k", "head": "H", "para": "P"}) + "\n", encoding="utf-8")
    cfg = jsonl_cfg(p2, id_field="key", title_field="head", text_field="para", id_prefix="x:")
    assert list(read_corpus(cfg, Problems())) == [{"id": "x:k", "title": "H", "contents": "P"}]


BAD = ['{"id": "1", "contents": "ok"}',
       '{"id": "2", "contents": "broken',
       '{"id": "3"}',
       '{"id": " ", "contents": "no id"}',
       '{"id": "1", "contents": "again"}',
       '["not", "an", "object"]',
       '{"id": "4", "contents": "fine"}']


@pytest.mark.parametrize("line, reason", [(2, "invalid JSON"), (3, "missing or empty text"),
                                          (4, "empty or missing id"), (5, "duplicate id '1'"),
                                          (6, "a record must be a JSON object")])
def test_bad_records_stop_names_file_and_line(tmp_path, line, reason):
    p = tmp_path / "bad.jsonl"
    p.write_text("\n".join(BAD[:1] + BAD[line - 1:line]) + "\n", encoding="utf-8")
    with pytest.raises(UserError) as e:
        list(read_corpus(jsonl_cfg(p), Problems("stop")))
    assert str(e.value).startswith(f"{p}:2: {reason}")


def test_bad_records_skip_and_count(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text("\n".join(BAD) + "\n", encoding="utf-8")
    problems = Problems("skip")
    assert [r["id"] for r in read_corpus(jsonl_cfg(p), problems)] == ["1", "4"]
    assert problems.count == 5 and "skipped 5 bad records" in problems.summary()
    assert problems.examples[0].startswith(f"{p}:2: invalid JSON")


def test_not_utf8_is_reported(tmp_path):
    p = tmp_path / "latin.jsonl"
    p.write_bytes('{"id": "1", "contents": "caf\u00e9"}\n'.encode("latin-1"))
    with pytest.raises(UserError, match=r"latin.jsonl:1: not UTF-8 \(looks like Latin-1/Windows-1252\) "
                                        r"\(fix: save it as UTF-8\)$"):
        list(read_corpus(jsonl_cfg(p), Problems()))


def test_embedded_vital_articles():
    cfg = corpus_config("vital-en")
    passages = list(read_corpus(cfg, Problems("stop")))
    assert len(passages) == 10033 and len({p["id"] for p in passages}) == 10033
    by_id = {p["id"]: p for p in passages}
    assert by_id["2001:_A_Space_Odyssey"]["title"] == "2001: A Space Odyssey"
    assert by_id["2001:_A_Space_Odyssey"]["contents"].startswith("2001: A Space Odyssey is a 1968 epic")


def test_corpus_file_and_unknown_names(tmp_path):
    assert corpus_config(os.path.join("tests", "fixtures", "tiny-en.jsonl")).name == "tiny-en"
    with pytest.raises(UserError, match="known: .*vital-en"):
        corpus_config("no-such-corpus")
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(UserError, match="cannot tell the corpus format"):
        corpus_config(str(tmp_path / "x.txt"))


def test_bad_bytes_are_reported_on_their_own_line(tmp_path):
    """Decoding goes line by line: the error names the bad line, not the start of a decoded block."""
    p = tmp_path / "long.jsonl.gz"
    good = "".join(json.dumps({"id": str(i), "contents": "x" * 40}) + "\n" for i in range(500))
    with gzip.open(p, "wb") as f:
        f.write(good.encode() + '{"id": "bad", "contents": "caf\u00e9"}\n'.encode("latin-1"))
    with pytest.raises(UserError, match=r"long.jsonl.gz:501: not UTF-8 \(looks like Latin-1/Windows-1252\)"):
        list(read_corpus(jsonl_cfg(p), Problems()))
    damaged = tmp_path / "damaged.jsonl.gz"
    damaged.write_bytes(p.read_bytes()[:200])
    with pytest.raises(UserError, match=r"damaged.jsonl.gz:\d+: cannot read the file"):
        list(read_corpus(jsonl_cfg(damaged), Problems()))


def test_corpus_config_read_into_its_dataclass(tmp_path, monkeypatch):
    (tmp_path / "corpora").mkdir()
    (tmp_path / "corpora" / "mine.yaml").write_text(
        "lang: zh\ndense: [e5-small]\nsources:\n  - reader: jsonl\n    path: a.jsonl\n    id_prefix: 'a:'\n"
        "    segment: {sentences: 3}\n  - {reader: vital, path: /b.json, title_field: null}\n")
    monkeypatch.setenv("QA_BASELINE_CONFIGS", str(tmp_path))
    cfg = corpus_config("mine")
    a = Source("jsonl", "a.jsonl", os.path.join(WORKSPACE, "a.jsonl"), id_prefix="a:", segment={"sentences": 3})
    assert cfg == CorpusConfig(name="mine", lang="zh", sources=(a, Source("vital", "/b.json", "/b.json")),
                               analyzer="cjk", index="mine", build="--corpus mine", dense=("e5-small",))
    # what index fingerprints hash: the source as the YAML wrote it (null: left out), `file` added
    assert a.as_dict() == {"reader": "jsonl", "path": "a.jsonl", "file": os.path.join(WORKSPACE, "a.jsonl"),
                           "id_prefix": "a:", "segment": {"sentences": 3}}
    assert cfg.sources[1].as_dict() == {"reader": "vital", "path": "/b.json", "file": "/b.json"}


@pytest.mark.parametrize("text, line, message", [
    ("lang: en\nsource:\n  - {reader: jsonl, path: a.jsonl}\nsources: []\n", 2,
     "unknown key 'source' in a corpus config (fix: use one of description, lang, analyzer, title_in_contents, "
     "dense, sources)"),
    ("sources:\n  - {reader: jsonl, path: a.jsonl}\n  - reader: jsonl\n    path: b.jsonl\n    title-field: t\n", 5,
     "unknown key 'title-field' in a source (fix: use one of reader, path, id_prefix, id_field, text_field, "
     "title_field, split, words, min_chars, segment)"),
    ("dense: minilm\nsources: []\n", 1, "dense must be a list of encoder names, not 'minilm' (fix: e.g. dense: "
     "[minilm-onnx])")])
def test_corpus_config_unknown_keys_are_one_error_line(tmp_path, monkeypatch, text, line, message):
    (tmp_path / "corpora").mkdir()
    (tmp_path / "corpora" / "typo.yaml").write_text(text)
    monkeypatch.setenv("QA_BASELINE_CONFIGS", str(tmp_path))
    with pytest.raises(UserError) as e:
        corpus_config("typo")
    assert str(e.value) == f"{tmp_path / 'corpora' / 'typo.yaml'}:{line}: {message}"


def test_fingerprint_hashes_the_sources_as_the_config_dict_did(tmp_path, monkeypatch):
    """Index fingerprints are those of the corpus config's dict before it was a dataclass: built indexes stay
    up to date. Computed here from the JSON the dict gave."""
    tiny = os.path.join(FIXTURES, "tiny-en.jsonl")
    (tmp_path / "corpora").mkdir()
    (tmp_path / "corpora" / "t.yaml").write_text(
        f"title_in_contents: false\nsources:\n  - {{path: {tiny}, reader: jsonl, segment: {{sentences: 2}}}}\n")
    monkeypatch.setenv("QA_BASELINE_CONFIGS", str(tmp_path))
    sha = hashlib.sha256(open(tiny, "rb").read()).hexdigest()

    def expected(source, title_in_contents):
        spec = {"format": 1, "sources": [{**source, "file": tiny, "sha256": sha}],
                "title_in_contents": title_in_contents, "analyzer": "default", "anserini": "1.7.1"}
        return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()

    assert fingerprint(corpus_config(tiny), analyzer="default", anserini="1.7.1")[0] == \
        expected({"reader": "jsonl"}, True)
    assert fingerprint(corpus_config("t"), analyzer="default", anserini="1.7.1") == \
        (expected({"reader": "jsonl", "segment": {"sentences": 2}}, False),
         [{"reader": "jsonl", "segment": {"sentences": 2}, "file": tiny, "sha256": sha}])
