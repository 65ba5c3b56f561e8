"""results/results.yaml and its runner, results/check.py: docs/results.md and the README's results table are
what the file generates, every README figure is one of the file's, every command is a valid run, and the
runner judges reruns (OK, OKish, FAIL, SKIP) as it says."""
import importlib.util
import json
import os
import re
import shlex
import sys

import pytest

from qa_baseline import ROOT, tasks
from qa_baseline.run import parser

DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")


def load_check():
    spec = importlib.util.spec_from_file_location("results_check", os.path.join(ROOT, "results", "check.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


check = load_check()
RESULTS = check.load()


def read(*path):
    with open(os.path.join(ROOT, *path), encoding="utf-8") as f:
        return f.read()


def test_docs_results_md_is_generated_from_the_file():
    assert read("docs", "results.md") == check.markdown(RESULTS), \
        "docs/results.md differs from results/results.yaml (fix: .venv/bin/python results/check.py --write-docs)"


def test_readme_results_table_is_generated_from_the_file():
    assert check.readme_block(read("README.md")) == check.readme_table(RESULTS), \
        "README.md's results table differs from results/results.yaml (fix: .venv/bin/python results/check.py --write-docs)"


def test_every_readme_figure_is_an_expected_figure_of_the_file():
    figures = set()
    for row in RESULTS.rows:
        for value in row.expected.values():
            figures |= {f"{value:.{d}f}" for d in (1, 2, 3, 4)} | {f"{100 * value:.{d}f}" for d in (1, 2)}
    stated = DECIMAL.findall(check.readme_block(read("README.md")))
    assert len(stated) >= 20  # the table's figures, not an empty block
    assert [x for x in stated if x not in figures] == []


def test_every_command_is_a_run_of_its_task_and_expects_its_measures():
    for row in RESULTS.rows:
        argv = shlex.split(row.command)
        assert argv[:3] == [".venv/bin/python", "-m", "qa_baseline.run"], row.id
        task = tasks.get(row.task)
        args = parser(task).parse_args(argv[3:])  # an unknown or renamed option ends here
        assert args.task == row.task, row.id
        assert set(row.expected) <= set(task.measures), row.id
        assert "--out" not in argv, row.id  # check.py chooses the run folder


def row(expected, tolerance=0.0):
    return check.Row("r", "dbqa", "t", "label", "cmd", expected, tolerance, (), True, "why" if tolerance else None)


def test_compare_ok_at_the_printed_precision_okish_within_tolerance_else_fail():
    assert check.compare(row({"MRR": 0.7919}), {"MRR": 0.79186}, 4) == ("OK", "MRR 0.7919")
    assert check.compare(row({"MRR": 0.7919}), {"MRR": 0.79184}, 4) == (
        "FAIL", "MRR 0.7918 (expected 0.7919)")
    assert check.compare(row({"MRR": 0.7919}, 0.01), {"MRR": 0.7966}, 4) == (
        "OKish", "MRR 0.7966 (expected 0.7919 ± 0.01)")
    assert check.compare(row({"MRR": 0.7919, "MAP": 0.7845}, 0.01), {"MRR": 0.7919, "MAP": 0.7700}, 4) == (
        "FAIL", "MRR 0.7919  MAP 0.7700 (expected 0.7845 ± 0.01)")
    assert check.compare(row({"F1": 0.5}), {"MRR": 0.5}, 4) == ("FAIL", "row.json has no F1 (it has MRR)")


def fake_run(value):
    """A command that writes a row.json with accuracy VALUE into its --out folder."""
    code = ("import json,os,sys; out=sys.argv[sys.argv.index('--out')+1]; "
            f"json.dump({{'metrics': {{'accuracy': {value}}}}}, open(os.path.join(out,'row.json'),'w'))")
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def write_results(tmp_path, rows, needs=""):
    tables = "tables:\n  - {id: t, title: T, text: x}\n"
    path = tmp_path / "results.yaml"
    path.write_text(f"digits: 4\n{needs}{tables}results:\n{rows}", encoding="utf-8")
    return str(path)


def test_runner_prints_a_line_per_row_and_a_summary_and_fails_on_fail(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("QA_BASELINE_INDEXES", str(tmp_path / "indexes"))
    make = f"{sys.executable} -c \"import os; os.makedirs(os.environ['QA_BASELINE_INDEXES'] + '/made/bm25')\""
    needs = (f"needs:\n  made: {{index: made/bm25, build: [{json.dumps(make)}], minutes: 1}}\n"
             "  never: {index: never-*/bm25, build: ['.venv/bin/python -m qa_baseline.index --corpus never'], "
             "minutes: 40}\n")
    rows = "".join(f"  - {{id: {rid}, task: mcqa-en, table: t, label: l, command: {json.dumps(cmd)}, expected: {{accuracy: "
                   f"0.3538}}, tolerance: {tol}, why: w, needs: [{need}], quick: {quick}}}\n"
                   for rid, cmd, tol, need, quick in [
                       ("a/ok", fake_run(0.35384615), 0, "", "true"),
                       ("a/okish", fake_run(0.36), 0.01, "", "true"),
                       ("a/fail", fake_run(0.40), 0.01, "", "false"),
                       ("b/broken", f"{sys.executable} -c \"import sys; print('x'); sys.exit('boom: last line')\"",
                        0, "", "true"),
                       ("b/no-data", f"{fake_run(0.3538)} --data ../shared/data/no/such.csv", 0, "", "true"),
                       ("b/no-index", fake_run(0.3538), 0, "never", "true"),
                       ("c/built", fake_run(0.3538), 0, "made", "true")])
    path = write_results(tmp_path, rows, needs)
    assert check.main(["--results", path]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in lines[:7]] == [
        ["OK", "a/ok"], ["OKish", "a/okish"], ["FAIL", "a/fail"], ["FAIL", "b/broken"], ["SKIP", "b/no-data"],
        ["SKIP", "b/no-index"], ["SKIP", "c/built"]]
    assert "accuracy 0.3600 (expected 0.3538 ± 0.01)" in lines[1]
    assert "accuracy 0.4000 (expected 0.3538 ± 0.01)" in lines[2]
    assert "the command failed (exit 1): boom: last line" in lines[3]
    assert "needs ../shared/data/no/such.csv" in lines[4]
    assert lines[5].endswith("needs the index never-*/bm25 (~40 min): "
                             ".venv/bin/python -m qa_baseline.index --corpus never")
    assert lines[7].startswith("7 rows: 1 OK, 1 OKish, 2 FAIL, 3 SKIP in ")
    # --quick, --only with patterns, --build of the needs of at most 5 minutes: `made` is built, `never` is not
    assert check.main(["--results", path, "--quick", "--only", "a/*", "b/no-index", "c/*", "--build", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"building made (~1 min): {make}"
    assert [line.split()[:2] for line in lines[1:5]] == [
        ["OK", "a/ok"], ["OKish", "a/okish"], ["SKIP", "b/no-index"], ["OK", "c/built"]]
    assert lines[5].startswith("4 rows: 2 OK, 1 OKish, 0 FAIL, 1 SKIP in ")
    assert check.main(["--results", path, "--list", "--only", "a/ok"]) == 0
    assert capsys.readouterr().out == f"a/ok\tquick\taccuracy=0.3538\tneeds: -\t{fake_run(0.35384615)}\n"


def test_a_bad_results_file_is_one_line_naming_its_line(tmp_path, capsys):
    rows = ("  - {id: x, task: dbqa, table: t, label: l, command: c, expected: {MRR: 0.5}}\n"
            "  - {id: y, task: dbqa, table: t, label: l, command: c, expected: {MRR: 0.5}}\n"
            "  - {id: x, task: dbqa, table: t, label: l, command: c, expected: {MRR: 0.5}}\n")
    path = write_results(tmp_path, rows)
    assert check.main(["--results", path, "--list"]) == 2
    assert capsys.readouterr().err == f"{path}:7: id x is used twice (fix: give each row its own id)\n"
    assert check.main(["--results", write_results(tmp_path, rows.splitlines()[0]), "--only", "z"]) == 2
    assert "no row z (fix: `--list` lists the ids)" in capsys.readouterr().err


def test_readme_placeholders_show_percentages_and_decimals_and_mark_unchecked_figures():
    results = check.Results("f", 4, frozenset({"accuracy"}), {}, (), (), (
        check.Row("m", "mcqa-en", "t", "l", "c", {"accuracy": 0.3538}, 0, (), True, checked="here"),
        check.Row("d", "dbqa", "t", "l", "c", {"MRR": 0.6449, "MAP": 0.6368}, 0, (), True, checked="here"),
        check.Row("s", "datasearch", "t", "l", "c", {"EM": 0.5585}, 0, (), True)))
    assert check.score_text(results, "{m} · {d} / {d@MAP} · {s:%} EM") == "35.4 · 0.645 / 0.637 · 55.9† EM"
