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
            "print(c.corpus_config('vital-en').sources[0].file)")
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
            f"STAMP={files['installed']}", f"ROW_STAMP={files['installed']}", f"VITAL={files['vital']}",
            f"BASELINE={files['baseline.tsv']}", f"MCQA_EN_DATA={files['data.csv']}", f"INDEXES={tmp_path}"]
    fresh = subprocess.run(make, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert fresh.returncode == 0 and fresh.stdout.splitlines() == [f"cat {files['baseline.tsv']}"]
    os.utime(files["data.csv"], (now + 200, now + 200))  # newer data: the run is made again
    stale = subprocess.run(make, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "-m qa_baseline.run --task mcqa-en >" in stale.stdout and "qa_baseline.index" not in stale.stdout


# Issue 51: pyproject.toml keeps ranges, requirements/lock.txt the exact versions `make install` installs.
NO_DEPS = {"pyserini"}  # installed without its declared requirements: the project uses only its Anserini jar
TOOLS = {"pip"}  # locked so that the venv's installer is the tested one; no package requires it


def lock(name="lock.txt"):
    """{canonical name: Version} of a requirements file of exact pins, or [canonical name] of one of names."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import Version
    out = {}
    with open(os.path.join(ROOT, "requirements", name), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                req = Requirement(line.strip())
                pins = [s.version for s in req.specifier if s.operator == "=="]
                out[canonicalize_name(req.name)] = Version(pins[0]) if pins else None
    return out


def declared(extra=None):
    """The requirements of pyproject.toml's base install (EXTRA None) or of one extra, the package's own
    extras (qa_baseline[a,b]) expanded."""
    import tomllib
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    out = []
    for text in project["dependencies"] if extra is None else project["optional-dependencies"][extra]:
        req = Requirement(text)
        if canonicalize_name(req.name) == canonicalize_name(project["name"]):
            out += [r for e in sorted(req.extras) for r in declared(e)]
        else:
            out.append(req)
    return out


def closure(roots, locked):
    """The canonical names that the requirements ROOTS need, following each locked package's own requirements
    (read from the installed distribution, which must be the locked version) except those of NO_DEPS; every
    requirement met is checked to be locked at a version in its range."""
    import importlib.metadata
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import Version
    seen, todo = set(), list(roots)
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        assert name in locked, f"{req} is not in requirements/lock.txt"
        assert req.specifier.contains(locked[name], prereleases=True), f"lock.txt's {name} {locked[name]}: not {req}"
        if (name, tuple(sorted(req.extras))) in seen:
            continue
        seen.add((name, tuple(sorted(req.extras))))
        if name in NO_DEPS:
            continue
        dist = importlib.metadata.distribution(name)
        assert Version(dist.version) == locked[name], f"{name} {dist.version} installed, not the lock's (make install)"
        for text in dist.requires or []:
            sub = Requirement(text)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in (*req.extras, "")):
                todo.append(sub)
    return {name for name, _ in seen}


def test_lock_agrees_with_the_ranges():
    """Every requirement of the base install and of every extra is locked at a version in its range; so is every
    requirement of those (pyserini's aside), and the lock holds nothing else: `make install` installs exactly
    what `.[all,test,bench]` needs. The metadata has ranges, no exact pins."""
    import tomllib
    locked = lock()
    assert None not in locked.values()  # exact pins only
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        extras = list(tomllib.load(f)["project"]["optional-dependencies"])
    assert {"plot", "stats", "hf", "organizer", "all"} <= set(extras)
    for extra in (None, *extras):
        closure(declared(extra), locked)  # each extra resolves within the lock
        assert not [r for r in declared(extra) if any(s.operator in ("==", "===") for s in r.specifier)], extra
    needed = closure(declared() + declared("all") + declared("test") + declared("bench"), locked)
    assert needed | TOOLS == set(locked), f"locked but needed by none: {sorted(set(locked) - needed - TOOLS)}"
    assert not {"flask", "fastapi", "fastmcp", "uvicorn"} & set(locked)  # needed by pyserini alone
    # the base's, plot's and stats' lower bounds alone: tests/system/test_install.py installs them at those
    assert all([s.operator for s in r.specifier] == [">="] for r in declared() + declared("plot") + declared("stats"))
    assert {r.name for r in declared("organizer")} == {"scipy", "matplotlib", "datasets"}


def test_baseline_packages_need_nothing_else():
    """requirements/baseline.txt, what `make baseline` installs for the BM25 row, needs no other package (pyserini
    without its requirements), holds the base install, and neither torch nor the learned rankers."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    locked, names = lock(), set(lock("baseline.txt"))
    assert closure([Requirement(f"{n}=={locked[n]}") for n in names], locked) == names
    assert {canonicalize_name(r.name) for r in declared()} <= names
    assert "pyserini" in names and not names & {"torch", "transformers", "scikit-learn", "scipy", "matplotlib"}


def test_missing_extra_in_a_checkout_says_make_install():
    """In a checkout, the one-line error of a missing extra names `make install` (the lock's versions), not a pip
    command that would resolve the extra afresh."""
    from qa_baseline.core.errors import UserError
    from qa_baseline.core.hints import requires
    with pytest.raises(UserError) as e:
        requires("plot", "no_such_module_of_plot")
    assert str(e.value) == "this needs the plot extra (no_such_module_of_plot is not installed): run `make install`"
