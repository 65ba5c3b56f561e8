"""Where indexes live and what describes them: folders, fingerprints, manifests, the indexed passage text.

Every index kind (Lucene BM25, faiss dense, the KB store) keeps one folder per corpus and setting under
`indexes_root()`, with `manifest.json` beside its files; retrievers depend on this module only, never on
the modules that build indexes."""
import hashlib
import json
import os

from .. import ROOT
from ..errors import UserError
from ..fileio import read_json, sha256_file

FORMAT = 1  # bump when the indexed text of a passage changes
SEARCH_DEFAULTS = {"hnsw": {"ef_search": 128}, "ivfpq": {"nprobe": 16}, "flat": {}}  # faiss search settings


def indexes_root():
    """Where indexes live: $QA_BASELINE_INDEXES, else indexes/ in the project."""
    return os.environ.get("QA_BASELINE_INDEXES") or os.path.join(ROOT, "indexes")


def bm25_dir(cfg, analyzer=None, root=None):
    return os.path.join(root or indexes_root(), cfg["name"], f"bm25-{analyzer or cfg['analyzer']}")


def dense_dir(cfg, encoder_name, root=None):
    return os.path.join(root or indexes_root(), cfg["name"], f"dense-{encoder_name}")


def fingerprint(cfg, **settings):
    """What decides an index's contents: source files and checksums, reader settings, indexed-text format
    (FORMAT: bump it when a reader's output or the indexed text changes) and SETTINGS (analyzer and Anserini
    version; encoder and shard size). Returns (hex digest, sources with checksums)."""
    sources = [{**{k: v for k, v in s.items() if k != "path"}, "sha256": sha256_file(s["file"])}
               for s in cfg["sources"]]
    spec = {"format": FORMAT, "sources": sources, "title_in_contents": cfg["title_in_contents"], **settings}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest(), sources


def passage_text(p, cfg):
    """The text that is indexed and encoded: title + newline + passage (unless the corpus says otherwise)."""
    return p["title"] + "\n" + p["contents"] if cfg["title_in_contents"] and p["title"] else p["contents"]


def read_manifest(index_dir):
    """The index's manifest, or {} when there is none or it is unreadable (then the index is rebuilt)."""
    return read_json(os.path.join(index_dir, "manifest.json"))


def build_hint(cfg, options=""):
    return f".venv/bin/python -m qa_baseline.index {cfg['build']}{options}"


def load_manifest(cfg, index_dir, options=""):
    """The manifest of a complete index built from this corpus config's files, else a UserError naming
    the command (with OPTIONS) that builds it."""
    hint = build_hint(cfg, options)
    manifest = read_manifest(index_dir)
    if not manifest:
        raise UserError(f"no index at {index_dir}; build it with: {hint}")
    built_from = [s.get("file") for s in manifest.get("sources", [])]
    if built_from != [s["file"] for s in cfg["sources"]]:
        raise UserError(f"the index at {index_dir} was built from {', '.join(map(str, built_from))}, "
                        f"not from this corpus; rebuild it with: {hint}")
    return manifest


def faiss_module():
    """faiss, with as many threads as the encoders use (QA_BASELINE_THREADS)."""
    from ..encoders import threads
    try:
        import faiss
    except ImportError:
        raise UserError("dense retrieval needs faiss-cpu (run `make install`)") from None
    faiss.omp_set_num_threads(threads())
    return faiss
