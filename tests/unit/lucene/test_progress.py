"""Quiet, informative logs: periodic one-line progress when stderr is not a terminal, nothing for short steps,
and Anserini's INFO lines in the index folder's anserini.log instead of on the console."""
import os

import pytest

from conftest import FIXTURES
from qa_baseline.core import progress


def test_log_lines_when_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setenv("QA_BASELINE_PROGRESS", "log")
    monkeypatch.setenv("QA_BASELINE_PROGRESS_SECONDS", "0")  # a line at every update
    with progress.tqdm(total=4, desc="encoding x", unit=" passages") as bar:
        for _ in range(2):
            bar.update(2)
    for _ in progress.tqdm(iter(range(3)), desc="reading", unit=" lines"):
        pass
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("encoding x: 0/4 passages (0%) [")
    assert "encoding x: 4/4 passages (100%) [" in lines[2]
    assert any(line.startswith("reading: 3 lines [") for line in lines)
    assert all("\r" not in line and "|" not in line for line in lines)  # whole lines, no bar drawing


def test_short_steps_and_disabled_bars_print_nothing(monkeypatch, capsys):
    monkeypatch.setenv("QA_BASELINE_PROGRESS", "log")
    monkeypatch.delenv("QA_BASELINE_PROGRESS_SECONDS", raising=False)  # 30 s: this step is shorter
    assert sum(progress.tqdm(range(1000), desc="quick")) == 499500
    with progress.tqdm(total=3, desc="asked for none", disable=True) as bar:
        bar.update(3)
    monkeypatch.setenv("QA_BASELINE_PROGRESS", "off")
    for _ in progress.tqdm(range(3), desc="off"):
        pass
    assert capsys.readouterr().err == ""


def test_mode_follows_the_terminal(monkeypatch):
    monkeypatch.delenv("QA_BASELINE_PROGRESS", raising=False)
    assert progress.mode() == "log"  # pytest captures stderr: not a terminal
    monkeypatch.setenv("QA_BASELINE_PROGRESS", "bar")  # forced, as on a terminal
    assert progress.mode() == "bar" and not isinstance(progress.tqdm(total=1, desc="x"), progress.LogProgress)


def test_anserini_log_goes_to_a_file(index_root, capfd):
    from qa_baseline.core.config import corpus_config
    from qa_baseline.indexes.lucene import build_bm25
    cfg = corpus_config(os.path.join(FIXTURES, "tiny-en.jsonl"))
    capfd.readouterr()
    folder = build_bm25(cfg, force=True)
    out, err = capfd.readouterr()
    assert "INFO" not in out + err and "AbstractIndexer" not in out + err  # the ~35 lines Anserini prints
    assert err.strip().endswith("6 passages indexed (default analyzer, with postings.npz; Anserini's log: anserini.log)")
    log = open(os.path.join(folder, "anserini.log"), encoding="utf-8").read()
    assert "Indexing Complete! 6 documents indexed" in log and "Using DefaultEnglishAnalyzer" in log


def test_a_failed_step_shows_the_log_tail(index_root, tmp_path, capsys):
    from qa_baseline.lucene import jvm
    from qa_baseline.lucene.javalog import java_log
    autoclass = jvm.start()
    logger = autoclass("org.apache.logging.log4j.LogManager").getContext(
        autoclass("java.lang.Class").forName("io.anserini.index.IndexCollection").getClassLoader(), False
    ).getLogger("io.anserini.test")
    path = str(tmp_path / "java.log")
    with pytest.raises(RuntimeError):
        with java_log(path):
            logger.info("step 1 done")
            raise RuntimeError("boom")
    err = capsys.readouterr().err
    assert f"last 1 line of the Java log {path}:" in err and "step 1 done" in err


def test_index_progress_lines_carry_a_total_and_a_percentage(tmp_path, monkeypatch, capsys):
    """Issue 21.8: every progress line of an index build says how far it is of what: the BM25 read over the
    corpus files' bytes (the passages are not known up front), the dense encoding over the passages (from the
    BM25 index, else counted)."""
    import gzip
    import re
    from qa_baseline.core.config import corpus_config
    from qa_baseline.indexes import dense
    from qa_baseline.indexes.lucene import build_bm25
    import numpy as np
    from qa_baseline import encoders

    class FakeEncoder(encoders.Encoder):  # a 4-d stand-in: the build's bookkeeping without loading a model
        def _encode(self, texts, kind):
            return np.array([[len(t), t.count("a"), t.count("e"), 1.0] for t in texts], dtype=np.float32)
    monkeypatch.setenv("QA_BASELINE_PROGRESS", "log")
    monkeypatch.setenv("QA_BASELINE_PROGRESS_SECONDS", "0")  # a line at every update
    monkeypatch.setattr(dense, "load_encoder", lambda name, lang: FakeEncoder("minilm", {"kind": "fake"}))
    corpus = tmp_path / "c.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as f:
        f.writelines(f'{{"id": "{i}", "contents": "passage {i} about cats"}}\n' for i in range(3000))
    cfg = corpus_config(str(corpus))
    root = str(tmp_path / "ix")
    dense.build_dense(cfg, "minilm", shard_size=1000, root=root)  # before BM25: the passages are counted
    folder = build_bm25(cfg, root=root)
    dense.build_dense(cfg, "minilm", shard_size=1000, root=root, force=True)  # the BM25 index's count
    with monkeypatch.context() as m:  # known from the BM25 index, without reading the corpus
        m.setattr(dense, "read_corpus", None)
        assert dense.passage_count(cfg, os.path.join(os.path.dirname(folder), ".dense-minilm.partial")) == 3000
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith(("reading c", "encoding c"))]
    assert any(line.startswith("reading c") for line in lines) and any(line.startswith("encoding c") for line in lines)
    shape = re.compile(r"^(reading c: [\d.]+k?/[\d.]+kB|encoding c \(minilm\): \d+/3000 passages) \(\d+%\) \[")
    assert all(shape.match(line) for line in lines), [line for line in lines if not shape.match(line)]
    assert any(line.startswith("encoding c (minilm): 3000/3000 passages (100%)") for line in lines)
    assert any("(100%)" in line and "3,000 passages" in line for line in lines if line.startswith("reading"))
