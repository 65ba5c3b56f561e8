"""Where indexes live and what describes them: folders, fingerprints, manifests, the indexed passage text.

Every index kind (Lucene BM25, faiss dense, the KB store) keeps one folder per corpus and setting under
`indexes_root()`, with `manifest.json` beside its files; retrievers depend on this module only, never on
the modules that build indexes.

An index folder such as `indexes/CORPUS/bm25-default` is a symbolic link to its current version
`.bm25-default.v-STAMP-PID` beside it, replaced in one rename when a build finishes (fileio.replace_dir).
Builds of one folder hold its lock `.NAME.lock` (`build_lock`: a second build waits, naming the first's
pid) and first remove what killed builds left (fileio.tidy_dir). Readers resolve the link once
(`open_index`), so the manifest and the files they read are of one build."""
import contextlib
import hashlib
import json
import os

from ..config import WORKSPACE
from ..errors import UserError
from ..fileio import locked, read_json, sha256_file, tidy_dir

FORMAT = 1  # bump when the indexed text of a passage changes
SEARCH_DEFAULTS = {"hnsw": {"ef_search": 128}, "ivfpq": {"nprobe": 16}, "flat": {}}  # faiss search settings
SHARD_SIZE = 8192  # passages per encoded shard of a dense index (--shard-size)


def indexes_root():
    """Where indexes live: $QA_BASELINE_INDEXES, else indexes/ in the workspace (the project's checkout, or
    the current folder for an installed package; beside runs/)."""
    return os.environ.get("QA_BASELINE_INDEXES") or os.path.join(WORKSPACE, "indexes")


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


def partial_dir(final):
    """Where a dense index's shards are encoded until it is complete: `.dense-ENCODER.partial` beside it."""
    return os.path.join(os.path.dirname(final), f".{os.path.basename(final)}.partial")


def read_manifest(index_dir):
    """The index's manifest, or {} when there is none or it is unreadable (then the index is rebuilt)."""
    return read_json(os.path.join(index_dir, "manifest.json"))


def build_hint(cfg, options=""):
    return f".venv/bin/python -m qa_baseline.index {cfg['build']}{options}"


def dense_options(final, encoder):
    """The index options that build the dense index FINAL with ENCODER: `--dense ENCODER`, and `--shard-size N`
    when a build in progress (its .partial folder) or the built index uses another than the default, so that
    following the hint resumes the finished shards instead of discarding them."""
    size = read_json(os.path.join(partial_dir(final), "spec.json")).get("shard_size") or \
        read_manifest(final).get("shard_size")
    return f" --dense {encoder}" + (f" --shard-size {size}" if size and size != SHARD_SIZE else "")


def load_manifest(cfg, index_dir, options="", shown=None):
    """The manifest of a complete index built from this corpus config's files, else a UserError naming
    the command (with OPTIONS) that builds it. SHOWN: the folder named in messages (default INDEX_DIR)."""
    hint, shown = build_hint(cfg, options), shown or index_dir
    manifest = read_manifest(index_dir)
    if not manifest:
        raise UserError(f"no index at {shown}; build it with: {hint}")
    built_from = [s.get("file") for s in manifest.get("sources", [])]
    if built_from != [s["file"] for s in cfg["sources"]]:
        raise UserError(f"the index at {shown} was built from {', '.join(map(str, built_from))}, "
                        f"not from this corpus; rebuild it with: {hint}")
    return manifest


def open_index(cfg, index_dir, options, opener, attempts=5):
    """(manifest, opener(folder, manifest)) of the index at INDEX_DIR. The link INDEX_DIR is resolved once, so
    the manifest and the files OPENER reads are of one build. When OPENER fails because a build replaced
    that version meanwhile (the link now points elsewhere), it is tried again on the new one; when it fails on
    an unchanged version, the index is damaged: a UserError naming the command that rebuilds it, never a
    traceback."""
    for _ in range(attempts):
        folder = os.path.realpath(index_dir)
        manifest = load_manifest(cfg, folder, options, shown=index_dir)
        try:
            return manifest, opener(folder, manifest)
        except UserError:
            raise
        except Exception as e:  # a Java exception from Lucene, a RuntimeError from faiss, an OSError, bad JSON
            if os.path.realpath(index_dir) != folder:
                continue  # swapped by a build while it was being opened: open the new version
            raise UserError(f"the index at {index_dir} is damaged or incomplete ({_cause(e, folder)}); rebuild it "
                            f"with: {build_hint(cfg, options)} --force") from None
    raise UserError(f"the index at {index_dir} kept changing while it was opened ({attempts} builds); "
                    "wait for the builds to finish and run again")


def _cause(error, folder):
    """The innermost cause of ERROR in a few words, paths inside FOLDER shown relative to it: for a Lucene
    index missing a file, `NoSuchFileException: lucene/_0.si`."""
    stack = [line.strip() for line in getattr(error, "stacktrace", None) or [] if line.strip()]
    causes = [stack[i + 1] for i, line in enumerate(stack[:-1]) if line == "Caused by:"]
    if causes:  # a Java exception: its root cause, `java.nio.file.NoSuchFileException: PATH`
        kind, _, message = causes[-1].partition(": ")
        text = f"{kind.rsplit('.', 1)[-1]}: {message}"
    elif getattr(error, "classname", None):
        text = f"{error.classname.rsplit('.', 1)[-1]}: {getattr(error, 'innermessage', '')}"
    else:
        text = f"{type(error).__name__}: {next((x for x in str(error).splitlines() if x.strip()), '')}"
    return text.replace(folder + os.sep, "").strip()[:160]


@contextlib.contextmanager
def build_lock(final):
    """Hold the build lock of the index folder FINAL (`.NAME.lock` beside it; a second build of the same
    folder waits, naming the first's pid) and remove what killed builds left beside it (fileio.tidy_dir)."""
    os.makedirs(os.path.dirname(final), exist_ok=True)
    lock = os.path.join(os.path.dirname(final), f".{os.path.basename(final)}.lock")
    with locked(lock, f"{final}: another build is running"):
        tidy_dir(final)
        yield


def faiss_module():
    """faiss, with as many threads as the encoders use (QA_BASELINE_THREADS)."""
    from ..encoders import threads
    try:
        import faiss
    except ImportError:
        raise UserError("dense retrieval needs faiss-cpu (run `make install`)") from None
    faiss.omp_set_num_threads(threads())
    return faiss
