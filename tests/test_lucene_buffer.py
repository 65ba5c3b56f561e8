"""index/lucene.py: Lucene's RAM buffer is a fixed size (BUFFER_MB, QA_BASELINE_INDEX_BUFFER), not a share of
the heap, so a build's memory does not grow with the corpus (bench/scale.py)."""
import json
import os

import pytest

from conftest import FIXTURES
from qa_baseline.config import corpus_config
from qa_baseline.errors import UserError
from qa_baseline.index import lucene


def test_defaults_are_a_fixed_buffer_within_the_heap():
    assert lucene.HEAP == "256m" and int(lucene.BUFFER_MB) == 64


def test_a_bad_buffer_setting_is_one_line_and_a_small_one_builds(tmp_path, monkeypatch):
    cfg = corpus_config(os.path.join(FIXTURES, "tiny-en.jsonl"))
    monkeypatch.setenv("QA_BASELINE_INDEX_BUFFER", "64MB")
    with pytest.raises(UserError, match=r"^QA_BASELINE_INDEX_BUFFER=64MB: not a number of MB \(fix: e\.g\. 64"):
        lucene.build_bm25(cfg, root=str(tmp_path))
    monkeypatch.setenv("QA_BASELINE_INDEX_BUFFER", "16")
    folder = lucene.build_bm25(cfg, root=str(tmp_path))
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        assert json.load(f)["passages"] == 6
