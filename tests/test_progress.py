"""Quiet, informative logs: periodic one-line progress when stderr is not a terminal, nothing for short steps,
and Anserini's INFO lines in the index folder's anserini.log instead of on the console."""
import os

import pytest

from conftest import FIXTURES
from qa_baseline import progress


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
    from qa_baseline.config import corpus_config
    from qa_baseline.index.lucene import build_bm25
    cfg = corpus_config(os.path.join(FIXTURES, "tiny-en.jsonl"))
    capfd.readouterr()
    folder = build_bm25(cfg, force=True)
    out, err = capfd.readouterr()
    assert "INFO" not in out + err and "AbstractIndexer" not in out + err  # the ~35 lines Anserini prints
    assert err.strip().endswith("6 passages indexed (default analyzer; Anserini's log: anserini.log)")
    log = open(os.path.join(folder, "anserini.log"), encoding="utf-8").read()
    assert "Indexing Complete! 6 documents indexed" in log and "Using DefaultEnglishAnalyzer" in log


def test_a_failed_step_shows_the_log_tail(index_root, tmp_path, capsys):
    from qa_baseline import jvm
    from qa_baseline.javalog import java_log
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
    assert f"last 1 lines of the Java log {path}:" in err and "step 1 done" in err
