import os
import subprocess
import sys

import pytest

from qa_baseline import ROOT

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SHARED = os.path.join(ROOT, "..", "shared", "data")
# No class-data-sharing archive work during the suite (class lists and a detached `java -Xshare:dump` in the
# developer's ~/.cache); tests/unit/lucene/test_jvm_cds.py turns it on in its own temporary cache folders.
os.environ["QA_BASELINE_JVM_CDS"] = "off"


@pytest.fixture(scope="session")
def shared():
    """The shared real-data folder ../shared/data; tests that need it skip without it."""
    if not os.path.isdir(SHARED):
        pytest.skip("needs ../shared/data (the shared real-data folder beside the project)")
    return SHARED


def session_folder(tmp_path_factory, variable, name):
    """A fresh temporary folder NAME in the environment variable VARIABLE while the fixture lives (a generator
    for a session fixture: yields the folder, then puts the variable back)."""
    root = str(tmp_path_factory.mktemp(name))
    old = os.environ.get(variable)
    os.environ[variable] = root
    yield root
    if old is None:
        os.environ.pop(variable, None)
    else:
        os.environ[variable] = old


@pytest.fixture(scope="session")
def index_root(tmp_path_factory):
    """Indexes built by tests go to a temporary folder, never to indexes/."""
    yield from session_folder(tmp_path_factory, "QA_BASELINE_INDEXES", "indexes")


@pytest.fixture(scope="session")
def tiny_cfg(index_root):
    """The hand-written six-passage English corpus, indexed."""
    from qa_baseline.core.config import corpus_config
    from qa_baseline.indexes.lucene import build_bm25
    cfg = corpus_config(os.path.join(FIXTURES, "tiny-en.jsonl"))
    build_bm25(cfg)
    return cfg


def cli(module, *args, env=None):
    """Run `python -m qa_baseline.MODULE ARGS` and return the completed process."""
    return subprocess.run([sys.executable, "-m", f"qa_baseline.{module}", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, cwd=ROOT, timeout=600)
