"""indexes/lucene.py: a build's memory does not grow with the corpus (bench/scale.py). Lucene's RAM buffer is a fixed
size (BUFFER_MB, QA_BASELINE_INDEX_BUFFER) within a small heap, and the segments a merge reads are not mapped
into the process (read_unmapped)."""
import json
import os

import pytest

from conftest import FIXTURES
from qa_baseline.core.config import corpus_config
from qa_baseline.core.errors import UserError
from qa_baseline.indexes import lucene


def test_defaults_are_a_fixed_buffer_within_the_heap():
    # Lucene stalls indexing threads once flushing and active buffers reach twice the buffer: within the heap
    assert lucene.HEAP == "128m" and 2 * int(lucene.BUFFER_MB) < 128


def settings(writer):
    """The lines of an IndexWriter's configuration that are settings (not the writer or a listener object)."""
    return [line for line in writer.getConfig().toString().splitlines()
            if not line.startswith(("writer=", "eventListener="))]


def test_the_build_reads_its_segments_unmapped_with_anserinis_settings(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    with open(os.path.join(FIXTURES, "tiny-en.jsonl"), encoding="utf-8") as f:
        (docs / "part.jsonl").write_text(f.read(), encoding="utf-8")
    anserini = lucene.anserini_indexer(str(docs), str(tmp_path / "a"), "default", 1)
    ours = lucene.anserini_indexer(str(docs), str(tmp_path / "b"), "default", 1)
    before = lucene.indexer_writer(ours)
    lucene.read_unmapped(ours, str(tmp_path / "b"))
    mapped, unmapped = lucene.indexer_writer(anserini), lucene.indexer_writer(ours)
    try:
        assert not before.isOpen() and unmapped.isOpen()
        assert mapped.getDirectory().getClass().getName() == "org.apache.lucene.store.MMapDirectory"
        assert unmapped.getDirectory().getClass().getName() == "org.apache.lucene.store.NIOFSDirectory"
        assert "ramBufferSizeMB=48.0" in settings(unmapped) and "useCompoundFile=false" in settings(unmapped)
        assert settings(unmapped) == settings(mapped)  # analyzer, similarity, codec, buffer, merge policy...
    finally:
        mapped.rollback()
        unmapped.rollback()


def test_a_bad_buffer_setting_is_one_line_and_a_small_one_builds(tmp_path, monkeypatch):
    cfg = corpus_config(os.path.join(FIXTURES, "tiny-en.jsonl"))
    monkeypatch.setenv("QA_BASELINE_INDEX_BUFFER", "64MB")
    with pytest.raises(UserError, match=r"^QA_BASELINE_INDEX_BUFFER=64MB: not a number of MB \(fix: e\.g\. 48"):
        lucene.build_bm25(cfg, root=str(tmp_path))
    monkeypatch.setenv("QA_BASELINE_INDEX_BUFFER", "16")
    folder = lucene.build_bm25(cfg, root=str(tmp_path))
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        assert json.load(f)["passages"] == 6


def test_mapped_reading_is_kept_on_request(tmp_path, monkeypatch):
    swapped = []
    monkeypatch.setattr(lucene, "read_unmapped", lambda indexer, folder: swapped.append(folder))
    cfg = corpus_config(os.path.join(FIXTURES, "tiny-en.jsonl"))
    lucene.build_bm25(cfg, root=str(tmp_path / "a"))
    monkeypatch.setenv("QA_BASELINE_INDEX_MAPPED", "1")
    lucene.build_bm25(cfg, root=str(tmp_path / "b"))
    assert len(swapped) == 1 and str(tmp_path / "a") in swapped[0]


def test_a_build_ends_in_one_segment(tmp_path):
    """Two indexing threads write a segment each (10,000 passages in two shards, so that both run at once);
    the build merges them into one (as indexes/merge.py's Ray route and Anserini's prebuilt indexes do): each
    term is looked up once per query, not once per segment."""
    corpus = tmp_path / "many.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "contents": f"word{i % 97} text {i}"}) + "\n"
                              for i in range(10_000)), encoding="utf-8")
    folder = lucene.build_bm25(corpus_config(str(corpus)), threads=2, root=str(tmp_path))
    assert len([f for f in os.listdir(os.path.join(folder, "lucene")) if f.endswith(".si")]) == 1
