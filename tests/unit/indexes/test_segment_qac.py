"""qac-1 end to end over a segmented corpus config: passages `DOCID#k` are retrieved and parsed, and the
submission names each answer's document (DOCID), which MRR_supported checks against the gold documents."""
import json
import os

from conftest import FIXTURES, cli


def test_qac1_over_a_segmented_corpus_submits_document_ids(index_root, tmp_path, monkeypatch):
    from qa_baseline.core.config import corpus_config
    from qa_baseline.corpus import read_corpus
    from qa_baseline.core.errors import Problems
    from qa_baseline.indexes.lucene import build_bm25
    configs = tmp_path / "configs"
    (configs / "corpora").mkdir(parents=True)
    (configs / "corpora" / "seg-ja.yaml").write_text(
        "lang: ja\nsources:\n  - reader: jsonl\n"
        f"    path: {os.path.join(FIXTURES, 'answers-corpus-ja.jsonl')}\n"
        "    segment: {sentences: 1, stride: 1}\n", encoding="utf-8")
    monkeypatch.setenv("QA_BASELINE_CONFIGS", str(configs))
    cfg = corpus_config("seg-ja")
    ids = [p["id"] for p in read_corpus(cfg, Problems())]
    assert ids == ["itasenpara#0", "itasenpara#1", "itasenpara#2", "taiyo#0", "taiyo#1", "tsuyu#0", "tsuyu#1"]
    build_bm25(cfg)
    out = tmp_path / "run"
    p = cli("run", "--task", "qac-1", "--data", os.path.join(FIXTURES, "answers-qac-ja.tsv"), "--corpus", "seg-ja",
            "--trace", "--out", str(out))
    assert p.returncode == 0, p.stderr
    sub = [line.split("\t") for line in (out / "submission.txt").read_text(encoding="utf-8").splitlines()]
    assert sub[0][:4] == ["J1", sub[0][1], "1974年6月", "itasenpara"] and sub[1][2:4] == ["石原慎太郎", "taiyo"]
    assert all("#" not in doc for line in sub for doc in line[3::2])  # documents, never passages
    trace = [json.loads(line) for line in (out / "trace.jsonl").read_text(encoding="utf-8").splitlines()]
    assert trace[0]["passages"][0]["docid"] == "itasenpara#2"  # the passage that holds the answer
    row = json.loads((out / "row.json").read_text())
    assert row["metrics"]["MRR_supported"] == row["metrics"]["MRR"] > 0
