"""A wheel built from the repository works outside the checkout: configs inside it, the console script, `python
-m qa_baseline`, --version, user configs overriding the packaged ones; LICENSE and CITATION.cff exist."""
import filecmp
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from qa_baseline import ROOT, __version__
from qa_baseline.__main__ import COMMANDS, main


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel of a copy of the repository's package files (the build never writes into the checkout)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(os.path.join(ROOT, name), src / name)
    shutil.copytree(os.path.join(ROOT, "qa_baseline"), src / "qa_baseline",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                           "-w", str(tmp / "dist"), str(src)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = (tmp / "dist").glob("qa_baseline-*.whl")
    site = tmp / "site"
    with zipfile.ZipFile(path) as z:
        z.extractall(site)
    return path, site


def installed(site, *args, env=None, cwd=None):
    """`python ARGS` with the unpacked wheel first on the path, from a folder that is not the checkout."""
    env = {**os.environ, "PYTHONPATH": str(site), **(env or {})}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd or site.parent,
                          timeout=300)


def test_wheel_contents(wheel):
    path, _ = wheel
    names = zipfile.ZipFile(path).namelist()
    for config in ("tasks/mcqa-en.yaml", "tasks/dbqa.yaml", "corpora/vital-en.yaml", "encoders/minilm.yaml"):
        assert f"qa_baseline/configs/{config}" in names
    info = f"qa_baseline-{__version__}.dist-info"
    meta = zipfile.ZipFile(path).read(f"{info}/METADATA").decode()
    assert f"Version: {__version__}" in meta and "License-Expression: Apache-2.0" in meta and "Author" in meta
    assert f"{info}/licenses/LICENSE" in names
    scripts = zipfile.ZipFile(path).read(f"{info}/entry_points.txt").decode()
    assert "[console_scripts]\nqa-baseline = qa_baseline.__main__:main" in scripts
    assert not any(n.startswith(("tests/", "indexes/", "runs/")) for n in names)


def test_installed_copy_runs_outside_the_checkout(wheel, tmp_path):
    _, site = wheel
    where = installed(site, "-c", "import qa_baseline, qa_baseline.core.config as c; print(qa_baseline.__file__); "
                                  "print(c.WORKSPACE)", cwd=tmp_path)
    package, workspace = where.stdout.split()
    assert package.startswith(str(site)) and workspace == str(tmp_path)  # outputs go to the current folder
    version = installed(site, "-m", "qa_baseline", "--version")
    assert version.returncode == 0 and version.stdout == f"qa_baseline {__version__}\n"
    # the console script qa-baseline calls qa_baseline.__main__:main
    script = installed(site, "-c", "import sys; from qa_baseline.__main__ import main; "
                                   "sys.argv = ['qa-baseline', '--version']; sys.exit(main())")
    assert script.stdout == version.stdout
    index = installed(site, "-m", "qa_baseline", "index", "--help")
    assert index.returncode == 0 and "vital-en" in index.stdout and "shared-zh" in index.stdout  # packaged configs
    run = installed(site, "-m", "qa_baseline", "run", "--task", "mcqa-en", "--help")
    assert run.returncode == 0 and "--corpus NAME|PATH" in run.stdout
    for command in COMMANDS:
        assert installed(site, "-m", "qa_baseline", command, "--help").returncode == 0, command


def test_sample_data_ships_and_runs_outside_the_checkout(wheel, tmp_path):
    """Issue 21.8: mcqa-en's sample questions are package data, so the task config's default data resolves to
    the file inside the installed package and `qa-baseline run --task mcqa-en` runs outside a checkout; there,
    hints name `qa-baseline index`, never `.venv/bin/python`."""
    path, site = wheel
    assert "qa_baseline/examples/mcqa-en-science-sample.csv" in zipfile.ZipFile(path).namelist()
    code = ("from qa_baseline.core.config import task_config; from qa_baseline.run import default_data; "
            "print(default_data('mcqa-en', task_config('mcqa-en')['data']))")
    found = installed(site, "-c", code, cwd=tmp_path).stdout.strip()
    assert found == str(site / "qa_baseline" / "examples" / "mcqa-en-science-sample.csv")
    assert filecmp.cmp(found, os.path.join(ROOT, "examples", "mcqa-en-science-sample.csv"), shallow=False)
    corpus = tmp_path / "tiny.jsonl"
    shutil.copy(os.path.join(ROOT, "tests", "fixtures", "tiny-en.jsonl"), corpus)
    env = {"QA_BASELINE_INDEXES": str(tmp_path / "indexes"), "QA_BASELINE_PROGRESS": "off"}
    run = ["-m", "qa_baseline", "run", "--task", "mcqa-en", "--corpus", str(corpus)]
    missing = installed(site, *run, env=env, cwd=tmp_path)
    assert missing.returncode == 2 and f"(fix: build it with: qa-baseline index --corpus {corpus})\n" in missing.stderr
    assert ".venv" not in missing.stderr
    built = installed(site, "-m", "qa_baseline", "index", "--corpus", str(corpus), env=env, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    done = installed(site, *run, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("mcqa-en\tmcqa-en-science-sample.csv\ttiny\tbm25\t")
    assert list((tmp_path / "runs" / "mcqa-en").iterdir())  # outputs in the current folder


def test_user_configs_override_packaged_ones(wheel, tmp_path):
    _, site = wheel
    mine = tmp_path / "mine" / "corpora"
    mine.mkdir(parents=True)
    (mine / "my-corpus.yaml").write_text("sources:\n  - {reader: jsonl, path: corpus.jsonl}\n")
    (mine / "vital-en.yaml").write_text("lang: en\nsources:\n  - {reader: jsonl, path: mine.jsonl}\n")
    code = ("import qa_baseline.core.config as c; print(c.known_corpora()); "
            "print(c.corpus_config('vital-en')['sources'][0]['file'])")
    done = installed(site, "-c", code, env={"QA_BASELINE_CONFIGS": str(tmp_path / "mine")}, cwd=tmp_path)
    known, source = done.stdout.splitlines()
    assert "'my-corpus'" in known and "'shared-en'" in known
    assert source == str(tmp_path / "mine.jsonl")  # relative to the workspace: the current folder
    local = tmp_path / "configs" / "corpora"  # ./configs counts too
    local.mkdir(parents=True)
    (local / "here.yaml").write_text("sources:\n  - {reader: jsonl, path: x.jsonl}\n")
    assert "'here'" in installed(site, "-c", "import qa_baseline.core.config as c; print(c.known_corpora())",
                                 cwd=tmp_path).stdout


def test_dispatcher(capsys):
    assert main(["--version"]) == 0 and capsys.readouterr().out == f"qa_baseline {__version__}\n"
    assert main([]) == 2 and "commands:" in capsys.readouterr().err
    assert main(["--help"]) == 0 and "  eval" in capsys.readouterr().out
    assert main(["frobnicate"]) == 2 and "unknown command 'frobnicate'" in capsys.readouterr().err
    assert main(["eval", os.path.join(ROOT, "tests", "fixtures", "eval", "run.trec"),
                 os.path.join(ROOT, "tests", "fixtures", "eval", "qrels.txt"), "-m", "map"]) == 0
    assert capsys.readouterr().out == "map                   \tall\t0.5278\n"


def test_project_files():
    license_text = open(os.path.join(ROOT, "LICENSE"), encoding="utf-8").read()
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    citation = open(os.path.join(ROOT, "CITATION.cff"), encoding="utf-8").read()
    assert "cff-version: 1.2.0" in citation and f'version: "{__version__}"' in citation
    assert "## [Unreleased]" in open(os.path.join(ROOT, "CHANGELOG.md"), encoding="utf-8").read()


def test_run_help_points_to_the_task_options():
    from conftest import cli
    general = cli("run", "--help").stdout
    assert "`--task TASK --help` lists a task's own options." in general and "--n N" not in general
    assert "--n N" in cli("run", "--task", "mcqa-en", "--help").stdout


def test_make_baseline_reuses_an_up_to_date_row(tmp_path):
    """`make baseline` reruns the baseline only when an input is newer than the saved row (issue: it redid
    the 11.8 s run every time)."""
    import time
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    files = {name: tmp_path / name for name in ("installed", "vital", "data.csv", "baseline.tsv")}
    now = time.time()
    for name, path in files.items():
        path.write_text("x\n")
        shifted = now + {"installed": 0, "vital": 1, "data.csv": 1, "baseline.tsv": 100}[name]
        os.utime(path, (shifted, shifted))
    make = ["make", "--no-print-directory", "-n", "baseline",  # also inside `make test` (MAKELEVEL > 0)
            f"STAMP={files['installed']}", f"VITAL={files['vital']}",
            f"BASELINE={files['baseline.tsv']}", f"MCQA_EN_DATA={files['data.csv']}", f"INDEXES={tmp_path}"]
    fresh = subprocess.run(make, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert fresh.returncode == 0 and fresh.stdout.splitlines() == [f"cat {files['baseline.tsv']}"]
    os.utime(files["data.csv"], (now + 200, now + 200))  # newer data: the run is made again
    stale = subprocess.run(make, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "-m qa_baseline.run --task mcqa-en >" in stale.stdout and "qa_baseline.index" not in stale.stdout
