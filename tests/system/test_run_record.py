"""What a run records. It reads the gold of its data file as strictly as `score --gold` does: a malformed gold
row is one error line FILE:LINE: what (fix: how), exit status 2, and nothing is written (no run folder, no row
with empty metrics); a data file without any gold (a test file) still runs, with a row without metrics. Its
row keeps what identifies the run (`settings`) apart from what the run observed (`observed`)."""
import json
import os

import pytest

from conftest import FIXTURES, cli

QAC_HEADER = "qid\tquestion\tanswers_json\thas_answer\n"
GOOD_QAC = "Q1\tイタセンパラが天然記念物に指定されたのはいつですか?\t[[\"1974年6月\"]]\t1\n"


def qac(tmp_path, bad):
    path = tmp_path / "qac.tsv"
    path.write_text(QAC_HEADER + GOOD_QAC + f"Q2\t「太陽の季節」を書いたのは誰ですか?\t{bad}\n", encoding="utf-8")
    return path


KBQA_BAD = ("<question id=1>\t《高等数学》这本书的作者是谁？\n<answer id=1>\t同济大学数学系\n=====\n"
            "<question id=2>\t你知道陈俊的信仰是什么吗？\n=====\n")  # question 2 lacks its answer line


CASES = {  # task id -> (file name, text, extra options, the line and words of the error)
    "qac-1 unclosed answers_json": ("qac-1", "qac.tsv", QAC_HEADER + GOOD_QAC + 'Q2\tq?\t[["a"\t1\n', (),
                                    ":3: ", "is not a JSON list of lists of strings"),
    "qac-1 answers_json an object": ("qac-1", "qac.tsv", QAC_HEADER + GOOD_QAC + 'Q2\tq?\t{"a":1}\t1\n', (),
                                     ":3: ", "is not a JSON list of lists of strings"),
    "qac-2 has_answer yes": ("qac-2", "qac.tsv", QAC_HEADER + GOOD_QAC + 'Q2\tq?\t[["a"]]\tyes\n', (),
                             ":3: ", "has_answer 'yes' is not 0 or 1 (fix: "),
    "qac-3 has_answer disagrees": ("qac-3", "qac.tsv", QAC_HEADER + GOOD_QAC + 'Q2\tq?\t[]\t1\n', (),
                                   ":3: ", "has_answer 1 disagrees with 0 answers (fix: "),
    "kbqa answer line missing": ("kbqa", "kbqa.txt", KBQA_BAD, ("--kb", os.path.join(FIXTURES, "kbqa-tiny.kb")),
                                 ":4: ", "question 2 has no <answer id=2> line (fix: "),
    "mcqa-en label E": ("mcqa-en", "mcqa.csv", "id,question,A,B,C,D,correct\nq1,Q?,a,b,c,d,0\nq2,Q?,a,b,c,d,E\n",
                        (), ":3: ", "correctAnswer 'E' is not 0, 1, 2, 3"),
    "dbqa label 2": ("dbqa", "dbqa.tsv", "q?\ta\t1\nq?\tb\t2\n", (), ":2: ", "label '2' is not 0 or 1"),
    "openqa-en malformed XML": ("openqa-en", "openqa.xml",
                                '<QAPair id="1"><question>Q?</question><answer>a</answer></QAPair>\n'
                                '<QAPair id="2"><question>Q?</question><answer>b</QAPair>\n', (),
                                ":2: ", "malformed XML"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_malformed_gold_row_stops_the_run_before_anything_is_written(tmp_path, case):
    task, name, text, options, where, what = CASES[case]
    data = tmp_path / name
    data.write_text(text, encoding="utf-8")
    out = tmp_path / "run"
    p = cli("run", "--task", task, "--data", str(data), "--out", str(out), *options)
    assert p.returncode == 2, p.stdout + p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {data}{where}") and what in lines[0], p.stderr
    assert not out.exists()  # nothing half-written
    scored = cli("score", "--task", task, "--gold", str(data), "--submission", str(data))
    assert scored.returncode == 2 and f"{data}{where}" in scored.stderr  # the same reader, the same line


def test_a_malformed_datasearch_gold_file_stops_the_run_before_anything_is_written(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("ds-1\t13,510,000\nds-2\n", encoding="utf-8")
    out = tmp_path / "run"
    p = cli("run", "--task", "datasearch", "--data", os.path.join(FIXTURES, "datasearch-questions.tsv"),
            "--gold", str(gold), "--collection", os.path.join(FIXTURES, "datasearch-collection"), "--out", str(out))
    assert p.returncode == 2 and p.stderr.startswith(f"error: {gold}:2: expected qid<TAB>answer"), p.stderr
    assert not out.exists()


@pytest.mark.parametrize("task, name, text, options", [
    ("kbqa", "kbqa.txt", "<question id=1>\t《高等数学》这本书的作者是谁？\n=====\n",
     ("--kb", os.path.join(FIXTURES, "kbqa-tiny.kb"))),
    ("dbqa", "dbqa.tsv", "q?\ta\nq?\tb\n", ()),
])
def test_a_data_file_without_gold_runs_without_metrics(tmp_path, index_root, task, name, text, options):
    data = tmp_path / name
    data.write_text(text, encoding="utf-8")
    if task == "kbqa":
        built = cli("index", "--kb", options[1], env={"QA_BASELINE_INDEXES": index_root})
        assert built.returncode == 0, built.stderr
    out = tmp_path / "run"
    p = cli("run", "--task", task, "--data", str(data), "--out", str(out), *options,
            env={"QA_BASELINE_INDEXES": index_root})
    assert p.returncode == 0, p.stderr
    row = json.loads((out / "row.json").read_text())
    assert row["metrics"] == {} and row["per_question"] == {}


def test_two_reruns_of_one_command_are_one_row_of_the_report(tiny_cfg, index_root, tmp_path):
    """Settings identify a run, observations (timings) do not: the same command run into two --out folders is
    one table row (the newer), and its label carries no timing, None or False."""
    data = os.path.join(FIXTURES, "mcqa-sample.csv")
    for out in ("a", "b"):
        p = cli("run", "--task", "mcqa-en", "--data", data, "--corpus", tiny_cfg.sources[0].path, "--trace",
                "--out", str(tmp_path / "runs" / out), env={"QA_BASELINE_INDEXES": index_root})
        assert p.returncode == 0, p.stderr
    rows = [json.loads((tmp_path / "runs" / out / "row.json").read_text()) for out in ("a", "b")]
    assert rows[0]["settings"] == rows[1]["settings"] and "seconds" in rows[0]["observed"]
    report = cli("report", str(tmp_path / "runs"))
    assert report.returncode == 0, report.stderr
    table = report.stdout[:report.stdout.index("Reproducibility")]
    lines = [line for line in table.splitlines() if line.startswith("|") and "100.0" in line]
    assert len(lines) == 1 and "| bm25 |" in lines[0] and "seconds" not in table
    assert f"{tmp_path / 'runs' / 'b' / 'row.json'}, is shown" in report.stderr


def test_report_of_a_missing_folder(tmp_path):
    p = cli("report", str(tmp_path / "nowhere"))
    assert p.returncode == 2 and p.stderr.startswith(f"error: {tmp_path / 'nowhere'}: no such folder (fix: ")


def test_a_short_answer_task_without_a_corpus_is_one_line(tmp_path):
    """openqa-en and qac open their corpus through Task.open: no corpus is one error line, not a traceback."""
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "openqa-en.yaml").write_text("passages: 10\n")  # a task config without `corpus:`
    data = tmp_path / "q.xml"
    data.write_text('<QAPair id="1"><question>Who?</question><answer>a</answer></QAPair>\n', encoding="utf-8")
    p = cli("run", "--task", "openqa-en", "--data", str(data), "--out", str(tmp_path / "run"),
            env={"QA_BASELINE_CONFIGS": str(tmp_path)})
    assert p.returncode == 2 and p.stderr.strip() == ("error: task openqa-en: no corpus (fix: give --corpus "
                                                      "NAME|PATH, or `corpus:` in its task config)"), p.stderr


def python(*args):
    """Run `python ARGS` from the project root; the completed process."""
    import subprocess
    import sys
    from qa_baseline import ROOT
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.mark.parametrize("command", ["run", "index", "search", "score", "report", "eval"])
def test_help_names_the_command_as_it_was_called(command):
    """The console script (qa-baseline = qa_baseline.__main__:main, called here with its argv[0]) says
    `usage: qa-baseline COMMAND`, in --help and in a usage error; `python -m qa_baseline COMMAND` and
    `python -m qa_baseline.COMMAND` say theirs."""
    def script(*args):
        return python("-c", "import sys; from qa_baseline.__main__ import main; "
                            f"sys.argv = ['qa-baseline', *{list(args)!r}]; sys.exit(main())")
    shown = script(command, "--help")
    assert shown.returncode == 0 and shown.stdout.startswith(f"usage: qa-baseline {command} ["), shown.stdout[:200]
    wrong = script(command, "--no-such-option")
    assert wrong.returncode == 2 and f"\nqa-baseline {command}: error: " in wrong.stderr, wrong.stderr
    package = python("-m", "qa_baseline", command, "--help")
    assert package.returncode == 0 and package.stdout.startswith(f"usage: python -m qa_baseline {command} [")
    module = cli(command, "--help")
    assert module.returncode == 0 and module.stdout.startswith(f"usage: python -m qa_baseline.{command} [")


@pytest.mark.parametrize("folds", [None, "2"])
def test_predict_is_handed_the_gold_only_in_a_run_that_fits_on_it(tmp_path, monkeypatch, folds):
    """The driver reads the gold; predict gets it (FOLDS_GOLD) only with --folds, the option declared
    reads_gold, and its components never hold it: a run without --folds provably sees no gold."""
    from qa_baseline import run, tasks
    from qa_baseline.tasks.base import Components, Prediction
    task, seen = tasks.get("openqa-en"), []

    def predict(self, items, components, settings, folds_gold=None):
        seen.append((components, folds_gold))
        return Prediction({qid: [] for qid in items})
    monkeypatch.setattr(tasks, "get", lambda task_id: task)
    monkeypatch.setattr(type(task), "open", lambda self, settings: Components("a corpus"))
    monkeypatch.setattr(type(task), "predict", predict)
    data = os.path.join(FIXTURES, "answers-openqa.xml")
    folding = ["--folds", folds] if folds else []
    run.main(["--task", "openqa-en", "--data", data, "--out", str(tmp_path / "run"), *folding])
    gold = {"1": ["July 23, 1995", "1995"], "2": ["Jacksonville"], "3": ["Limp Bizkit"], "4": []}
    assert seen == [(Components("a corpus", data=data), gold if folds else None)]


def test_what_identifies_a_run_is_declared_on_its_options(tmp_path):
    """option(identifies=False) keeps a setting out of the run's identity, folder name and row settings;
    option(named=True) out of the folder name and row settings only (the row's corpus or method names it)."""
    from dataclasses import dataclass

    from qa_baseline import run
    from qa_baseline.core.settings import option
    from qa_baseline.tasks.base import Prediction, Settings

    @dataclass(frozen=True)
    class Mine(Settings):
        source: str | None = option(None, "named by the row's corpus", named=True)
        quiet: bool = option(False, "which files, not which answers", identifies=False)
        k: int | None = option(None, "an answer-changing setting")

    class Fake:
        id, Settings, uses_retriever = "fake", Mine, False
    data = tmp_path / "data.txt"
    data.write_text("x\n", encoding="utf-8")
    given = {"source": "wiki", "quiet": True, "k": 3, "trace": True}
    assert run.variant("rule", Fake, given) == "rule-k=3"
    assert run.identity(Fake, str(data), given)["options"] == {"k": 3, "source": "wiki"}
    settings = run.run_settings(Fake, Mine(**given), str(data), "0" * 64, "wiki", "rule", None, Prediction([]))
    assert settings == {"task": "fake", "data": "data.txt", "data_sha256": "0" * 64, "corpus": "wiki",
                        "method": "rule", "k": 3}
