"""The baseline table: bootstrap intervals, one row per (task, data, corpus, retriever variant), the
reproducibility manifest, LaTeX that compiles, and per-question values saved by task runs."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import FIXTURES, cli
from qa_baseline import report
from qa_baseline.errors import UserError
from qa_baseline.tasks.mcqa import formats as mcqa


def row(task="mcqa-en", data="/d/set_1.csv", analyzer="default", values=(1, 0, 1, 1, 0, 1, 1, 1), **extra):
    values = [float(v) for v in values]
    return {"task": task, "data": data, "data_sha256": "ab" * 32, "corpus": "vital-en", "retriever": "bm25",
            "params": {"analyzer": analyzer, "k1": 0.9}, "questions": len(values),
            "metrics": {"accuracy": sum(values) / len(values)}, "per_question": {"accuracy": values},
            "index_manifest": {"fingerprint": "f" * 64, "versions": {"pyserini": "1.6.0", "anserini": "1.7.1"}},
            "config": {"team_id": "a_b", "n": 3}, "git_commit": "0123456789abcdef-dirty", **extra}


def save(folder, rows):
    for i, r in enumerate(rows):
        (folder / f"run{i}").mkdir(parents=True)
        (folder / f"run{i}" / "row.json").write_text(json.dumps(r))
    return str(folder)


def test_bootstrap_contains_the_estimate_and_is_reproducible():
    values = [(i * 7 % 11) / 10 for i in range(50)]  # mean 0.49, many distinct resample means
    low, high = report.bootstrap_ci(values)
    assert low < sum(values) / len(values) < high and 0.3 < low and high < 0.7
    assert report.bootstrap_ci(values) == (low, high)
    assert report.bootstrap_ci(values, seed=1) != (low, high)
    assert report.bootstrap_ci([0.5] * 10) == (0.5, 0.5)
    assert report.bootstrap_ci([]) is None


def test_markdown_report(tmp_path, capsys):
    runs = save(tmp_path, [row(), row(analyzer="cjk", values=(0, 0, 1, 0)),
                           row(task="dbqa", data="/d/wikiqa.tsv", per_question=None,
                               metrics={"MRR": 0.5, "MAP": 0.25})])
    assert report.main([runs]) == 0
    out = capsys.readouterr().out
    low, high = report.bootstrap_ci([1, 0, 1, 1, 0, 1, 1, 1])
    assert f"| set_1.csv | vital-en | bm25 analyzer=default | 8 | 0.750 [{low:.3f}, {high:.3f}] |" in out
    assert "| set_1.csv | vital-en | bm25 analyzer=cjk | 4 | 0.250 [" in out
    assert "| wikiqa.tsv | vital-en | bm25 | 8 | 0.500 | 0.250 |" in out  # no per-question values: no interval
    assert out.index("**dbqa") < out.index("**mcqa-en") < out.index("**Reproducibility manifest**")
    assert ("| mcqa-en / set_1.csv / vital-en / bm25 analyzer=cjk | 0123456789ab-dirty | abababababab | ffffffffffff | "
            "anserini 1.7.1, pyserini 1.6.0 | analyzer=cjk k1=0.9 | {\"n\":3,\"team_id\":\"a_b\"} |") in out


def test_newest_row_wins_and_rows_without_metrics_are_left_out(tmp_path, capsys):
    runs = save(tmp_path, [row(values=(1, 1)), row(metrics={}, data="/d/test.csv")])
    newer = tmp_path / "later" / "row.json"
    newer.parent.mkdir()
    newer.write_text(json.dumps(row(values=(0, 0))))
    rows = report.load_rows(runs)
    assert [r["metrics"]["accuracy"] for r in rows] == [0.0]
    err = capsys.readouterr().err
    assert "has no metrics" in err and "replaces an older row" in err


def test_csv_records_carry_the_whole_manifest(tmp_path, capsys):
    assert report.main([save(tmp_path, [row()]), "--format", "csv", "--resamples", "200", "--seed", "3"]) == 0
    header, line = capsys.readouterr().out.splitlines()
    record = dict(zip(header.split(","), line.split(",", 17)))
    low, high = report.bootstrap_ci([1, 0, 1, 1, 0, 1, 1, 1], resamples=200, seed=3)
    assert (float(record["ci_low"]), float(record["ci_high"])) == pytest.approx((low, high))
    assert record["index_fingerprint"] == "f" * 64 and record["git_commit"] == "0123456789abcdef-dirty"


def test_report_cli_exit_codes(tmp_path):
    empty = cli("report", str(tmp_path))
    assert empty.returncode == 2 and "no row.json with metrics" in empty.stderr
    done = cli("report", save(tmp_path, [row()]), "--format", "csv")
    assert done.returncode == 0 and done.stdout.startswith("task,data,corpus,retriever,variant,questions,metric,")
    assert cli("report", str(tmp_path), "--resamples", "0").returncode == 2


def test_report_errors(tmp_path):
    with pytest.raises(UserError, match="no row.json with metrics"):
        report.load_rows(str(tmp_path))
    (tmp_path / "row.json").write_text("{")
    with pytest.raises(UserError, match="not JSON"):
        report.load_rows(str(tmp_path))
    (tmp_path / "row.json").write_text('{"task": "x"}')
    with pytest.raises(UserError, match="not a run row"):
        report.load_rows(str(tmp_path))


def test_latex_escapes_and_compiles(tmp_path, capsys):
    special = row(data="/d/50%_of_#1&{x}~^\\.csv")
    assert report.main([save(tmp_path / "runs", [special]), "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert r"50\%\_of\_\#1\&\{x\}\textasciitilde{}\textasciicircum{}\textbackslash{}.csv" in tex
    assert r"\toprule" in tex and r"\bottomrule" in tex and r"a\_b" in tex
    if not shutil.which("pdflatex"):
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended)")
    doc = tmp_path / "table.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + tex +
                   "\n\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "table.pdf").exists()


class FixedRetriever:
    """Every option query of the fixture gets one hit; option B's scores highest for e2 only."""

    def search(self, queries, k):
        return [[("d", 2.0 if "100 C" in q else 1.0)] for q in queries]


def test_mcqa_predictions_give_per_question_values(tmp_path):
    from qa_baseline import tasks
    task, path = tasks.get("mcqa-en"), os.path.join(FIXTURES, "scoring", "mcqa-en.csv")
    prediction = task.predict(task.read_input(path), {"retriever": FixedRetriever()}, task.Settings())
    result = task.score(task.read_gold(path), prediction.answers)
    # ties go to A: e1 right (A), e2 right (B), e3 wrong (C)
    assert result["per_question"] == {"accuracy": [1.0, 1.0, 0.0]}
    assert result["metrics"] == {"accuracy": pytest.approx(2 / 3)}
