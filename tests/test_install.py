"""Issue 24.1: the base install is the scoring side only. The wheel, installed with its dependencies from the
package registries into a fresh virtualenv, validates and scores a submission of every task, ranks a folder of
them, runs `report` on a saved row and `eval`; torch is not there, and `run` says in one line which extra it
needs. Prints the base install's size and install time (docs/usage.md records them). Skips when the package
registry cannot be reached."""
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import FIXTURES
from test_packaging import wheel  # noqa: F401  (the fixture: the wheel of the repository's package files)

SCORING = os.path.join(FIXTURES, "scoring")
BOARD = os.path.join(FIXTURES, "leaderboard")
PYTHON = shutil.which("python3.11") or sys.executable


def du_mb(path):
    return int(subprocess.run(["du", "-sm", str(path)], capture_output=True, text=True).stdout.split()[0])


@pytest.fixture(scope="module")
def base(wheel, tmp_path_factory):  # noqa: F811
    """The python of a fresh virtualenv with the base wheel and its dependencies installed."""
    path, _ = wheel
    tmp = tmp_path_factory.mktemp("base")
    venv = tmp / "venv"
    subprocess.run([PYTHON, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    probe = subprocess.run([str(python), "-m", "pip", "download", "-q", "--no-deps", "-d", str(tmp / "probe"),
                            "defusedxml==0.7.1"], capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        pytest.skip(f"the package registry cannot be reached: {probe.stderr.strip().splitlines()[-1:]}")
    start = time.monotonic()
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(path)],
                          capture_output=True, text=True, timeout=900)
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-3000:]
    (site,) = (venv / "lib").glob("python3.*/site-packages")
    print(f"\nbase install: {du_mb(site)} MB in site-packages, {seconds:.0f} s to install", file=sys.stderr)
    return python, site


def run(python, *args, cwd):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(python), "-m", "qa_baseline", *args], capture_output=True, text=True, cwd=cwd,
                          env={**env, "QA_BASELINE_PROGRESS": "off"}, timeout=300)


def write(folder, name, text):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_base_install_is_small(base):
    _, site = base
    assert du_mb(site) <= 250
    names = {p.name.split("-")[0].lower() for p in site.iterdir()}
    assert not names & {"torch", "pyserini", "ray", "spacy", "jnius", "pyjnius", "sudachidict_core", "faiss"}


def test_base_install_scores_every_task(base, tmp_path):
    python, _ = base
    gold = lambda name: os.path.join(SCORING, name)  # noqa: E731
    subs = {  # task -> (gold, submission text), as tests/test_score.py's round trips
        "mcqa-en": ("mcqa-en.csv", "e1,A\ne2,C\ne3,C\n"),
        "mcqa-zh": ("mcqa-zh.csv", "z1,D\nz2,B\n"),
        "dbqa": ("dbqa.tsv", "0.9\n0.5\n0.7\n0.1\n0.2\n0.8\n0.3\n0.3\n0.3\n0.4\n0.4\n"),
        "kbqa": ("kbqa.txt", None),
        "openqa-en": ("openqa.xml", None),
        "qac-1": ("qac.tsv", None),
        "qac-2": ("qac.tsv", None),
        "qac-3": ("qac.tsv", None),
        "datasearch": ("datasearch.tsv", "<SYSDESC>x</SYSDESC>\nnt-1\tKim Yu-na\nnt-2\tArizona\nnt-3\t1966\n"),
    }
    # kbqa, openqa and qac: written by the checkout's own writers (tests/test_score.py's round trips)
    from qa_baseline.tasks.kbqa import formats as kbqa
    from qa_baseline.tasks.openqa import formats as openqa
    from qa_baseline.tasks.qac import formats as qac
    questions = kbqa.read_gold(gold("kbqa.txt"))
    kbqa.write_submission(str(tmp_path / "kbqa"), {q: (g.question, g.answers[:1]) for q, g in questions.items()})
    openqa.write_submission(str(tmp_path / "openqa"), {"1": ["limp bizkit.", "Korn"], "2": ["x", "y", "at&t"],
                                                       "3": ["z"]}, system="run-1")
    qac.write_submission(str(tmp_path / "qac"), {"Q1": [("東京都", "D9")], "Q2": [("日本", "D2"), ("中国", "D2")],
                                                 "Q3": []})
    for task, name in [("kbqa", "kbqa"), ("openqa-en", "openqa"), ("qac-1", "qac"), ("qac-2", "qac"),
                       ("qac-3", "qac")]:
        subs[task] = (subs[task][0], (tmp_path / name).read_text(encoding="utf-8"))
    for task, (gold_name, text) in subs.items():
        sub = write(tmp_path, f"{task}.txt", text)
        done = run(python, "score", "--task", task, "--gold", gold(gold_name), "--submission", sub, "--format", "json",
                   cwd=tmp_path)
        assert done.returncode == 0, (task, done.stderr[-2000:])
        assert json.loads(done.stdout), task
    # mcqa-all: the English and Chinese files together
    en, zh = write(tmp_path, "team_en.csv", "e1,A\ne2,B\ne3,A\n"), write(tmp_path, "team_zh.csv", "z1,D\nz2,B\n")
    done = run(python, "score", "--task", "mcqa-all", "--gold", gold("mcqa-zh.csv"), "--submission", zh,
               "--gold", gold("mcqa-en.csv"), "--submission", en, "--format", "csv", cwd=tmp_path)
    assert done.returncode == 0 and "accuracy,0.6\n" in done.stdout, done.stderr[-2000:]
    # a leaderboard of a folder of submissions, with the figure
    board = run(python, "score", "--task", "mcqa-en", "--gold", os.path.join(BOARD, "gold.csv"), "--submissions",
                os.path.join(BOARD, "submissions"), "--plot", str(tmp_path / "board.png"), cwd=tmp_path)
    assert board.returncode == 0, board.stderr[-2000:]
    assert (tmp_path / "board.png").stat().st_size > 0
    # every pair by the randomisation test with effect sizes, and the results page, without scipy
    argv = ["score", "--task", "mcqa-en", "--gold", os.path.join(BOARD, "gold.csv"), "--submissions",
            os.path.join(BOARD, "submissions"), "--pairs", "all", "--permutations", "500"]
    board = run(python, *argv, "--html", str(tmp_path / "site"), cwd=tmp_path)
    assert board.returncode == 0 and "Holm-Bonferroni" in board.stdout, board.stderr[-2000:]
    assert (tmp_path / "site" / "index.html").is_file()
    tukey = run(python, *argv, "--test", "tukey", cwd=tmp_path)
    assert tukey.returncode == 2 and tukey.stderr.endswith(": pip install 'qa-baseline[stats]'\n"), tukey.stderr


def test_base_install_reports_and_evals(base, tmp_path):
    python, _ = base
    from test_report import row, save
    runs = save(tmp_path / "runs", [row()])
    report = run(python, "report", runs, "--plot", str(tmp_path / "overview.png"), cwd=tmp_path)
    assert report.returncode == 0 and "mcqa-en" in report.stdout, report.stderr[-2000:]
    assert (tmp_path / "overview.png").stat().st_size > 0
    trec = run(python, "eval", os.path.join(FIXTURES, "eval", "run.trec"), os.path.join(FIXTURES, "eval", "qrels.txt"),
               cwd=tmp_path)
    assert trec.returncode == 0 and "map" in trec.stdout, trec.stderr[-2000:]


def test_base_install_names_the_missing_extra(base, tmp_path):
    python, _ = base
    assert subprocess.run([str(python), "-c", "import torch"], capture_output=True).returncode != 0
    done = run(python, "run", "--task", "mcqa-en", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: this needs the retrieval extra ")
    assert done.stderr.endswith(": pip install 'qa-baseline[retrieval]'\n"), done.stderr
