"""Where indexes live and what describes them: folders, fingerprints, manifests, the indexed passage text;
the hints that say how to build them (and how long a dense build takes).

Every index kind (Lucene BM25, faiss dense, the KB store) keeps one folder per corpus and setting under
`indexes_root()`, with `manifest.json` beside its files; retrievers depend on this module only, never on
the modules that build indexes. CORPUS is a corpus config's name, or for a corpus file (and a KB store) the
file's name plus a short checksum of its absolute path (`config.file_index_name`) or `index --name`: files of
one name never share an index, a run opens the one built from its own file (`built_dir`), and a build never
replaces an index of another file (`check_owner`).

An index folder such as `indexes/CORPUS/bm25-default` is a symbolic link to its current version
`.bm25-default.v-STAMP-PID` beside it, replaced in one rename when a build finishes (fileio.replace_dir).
Builds of one folder hold its lock `.NAME.lock` (`build_lock`: a second build waits, naming the first's
pid) and first remove what killed builds left (fileio.tidy_dir). Readers resolve the link once
(`open_index`), so the manifest and the files they read are of one build."""
import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any, TypeVar

from ..core.config import WORKSPACE, CorpusConfig, encoder_config
from ..core.errors import UserError
from ..core.fileio import locked, read_json, sha256_file, tidy_dir
from ..core.hints import command, plural, requires, span
from ..core.process import threads
from ..lucene.analysis import ANALYZERS

FORMAT = 1  # bump when the indexed text of a passage changes
SEARCH_DEFAULTS = {"hnsw": {"ef_search": 128}, "ivfpq": {"nprobe": 16}, "flat": {}}  # faiss search settings
SHARD_SIZE = 8192  # passages per encoded shard of a dense index (--shard-size)
T = TypeVar("T")

# passages per second of a dense build with all-MiniLM-L6-v2 on 2 CPU cores, from the slowest machine measured
# to the fastest: a 2-core AVX2 EPYC (bench/dense_encode.py on shared-en's passages, 2026-11-28: PyTorch 15.6;
# shared-en's whole minilm-onnx build 30.2, 3,168 s) and an AVX-512 Xeon (PyTorch 38.1, ONNX 73.1)
DENSE_RATES = {"pytorch": (15, 38, "minilm"),  # sentence-transformers on PyTorch
               "onnx": (30, 73, "minilm-onnx")}  # the ONNX Runtime engine


def indexes_root() -> str:
    """Where indexes live: $QA_BASELINE_INDEXES, else indexes/ in the workspace (the project's checkout, or
    the current folder for an installed package; beside runs/)."""
    return os.environ.get("QA_BASELINE_INDEXES") or os.path.join(WORKSPACE, "indexes")


def corpus_home(cfg: CorpusConfig, root: str | None = None) -> str:
    """The folder of a corpus's indexes: INDEXES/NAME for a corpus config, INDEXES/FILE-CHECKSUM (or --name)
    for a corpus file (CorpusConfig.index)."""
    return os.path.join(root or indexes_root(), cfg.index)


def bm25_dir(cfg: CorpusConfig, analyzer: str | None = None, root: str | None = None, built: bool = False) -> str:
    """INDEXES/CORPUS/bm25-ANALYZER; BUILT: where a run finds it (built_dir)."""
    sub = f"bm25-{analyzer or cfg.analyzer}"
    return built_dir(cfg, sub, root) if built else os.path.join(corpus_home(cfg, root), sub)


def dense_dir(cfg: CorpusConfig, encoder_name: str, root: str | None = None, built: bool = False) -> str:
    """INDEXES/CORPUS/dense-ENCODER; BUILT: where a run finds it (built_dir)."""
    sub = f"dense-{encoder_name}"
    return built_dir(cfg, sub, root) if built else os.path.join(corpus_home(cfg, root), sub)


def built_from(manifest: dict[str, Any]) -> list[str | None]:
    """The source files an index's MANIFEST says it was built from."""
    return [s.get("file") for s in manifest.get("sources") or []]


def entries(folder: str) -> list[str]:
    """The names in FOLDER that are not hidden (versions, locks and builds in progress are), sorted; [] when
    FOLDER cannot be listed."""
    try:
        return sorted(e for e in os.listdir(folder) if not e.startswith("."))
    except OSError:
        return []


def found_or_own(own: str, folders: Iterable[str], built_here: Callable[[dict[str, Any]], bool]) -> str:
    """The index a run opens: OWN when it exists; else the first of FOLDERS whose manifest BUILT_HERE accepts
    (an index of the same file built under another name); else OWN."""
    if os.path.lexists(own):
        return own
    return next((folder for folder in folders if built_here(read_manifest(folder))), own)


def built_dir(cfg: CorpusConfig, sub: str, root: str | None = None) -> str:
    """The index SUB (`bm25-default`, `dense-minilm`) a run opens: the one in the corpus's own folder; for a
    corpus file that has none there, an index built from the same file under another name (`index --name`,
    or the file's bare name, as indexes were named before names had checksums)."""
    own = os.path.join(corpus_home(cfg, root), sub)
    if not cfg.from_file:
        return own
    root = root or indexes_root()
    files = [s.file for s in cfg.sources]
    # a corpus file's index says the file's name as its corpus; a corpus config's says the config's name
    return found_or_own(own, (os.path.join(root, entry, sub) for entry in entries(root)),
                        lambda manifest: manifest.get("corpus") == cfg.name and built_from(manifest) == files)


def check_owner(cfg: CorpusConfig, root: str | None = None) -> None:
    """Before a build of a corpus FILE's index: a UserError when the corpus's folder (its `--name`) holds an
    index built from another file, which the build would replace."""
    if not cfg.from_file:
        return  # a corpus config's indexes follow its config
    home, files = corpus_home(cfg, root), [s.file for s in cfg.sources]
    for entry in entries(home):
        other = built_from(read_manifest(os.path.join(home, entry)))
        if other and other != files:
            raise UserError(f"{home} holds an index of {', '.join(map(str, other))}, not of {', '.join(files)}, "
                            "and a build never replaces it (fix: give this corpus another --name, or none)")


def fingerprint(cfg: CorpusConfig, **settings: object) -> tuple[str, list[dict[str, object]]]:
    """What decides an index's contents: source files and checksums, reader settings, indexed-text format
    (FORMAT: bump it when a reader's output or the indexed text changes) and SETTINGS (analyzer and Anserini
    version; encoder and shard size). Returns (hex digest, sources with checksums)."""
    sources = [{**{k: v for k, v in s.as_dict().items() if k != "path"}, "sha256": sha256_file(s.file)}
               for s in cfg.sources]
    spec = {"format": FORMAT, "sources": sources, "title_in_contents": cfg.title_in_contents, **settings}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest(), sources


def passage_text(p: dict[str, str], cfg: CorpusConfig) -> str:
    """The text that is indexed and encoded: title + newline + passage (unless the corpus says otherwise)."""
    return p["title"] + "\n" + p["contents"] if cfg.title_in_contents and p["title"] else p["contents"]


def partial_dir(final: str) -> str:
    """Where a dense index's shards are encoded until it is complete: `.dense-ENCODER.partial` beside it."""
    return os.path.join(os.path.dirname(final), f".{os.path.basename(final)}.partial")


def read_manifest(index_dir: str) -> dict[str, Any]:
    """The index's manifest, or {} when there is none or it is unreadable (then the index is rebuilt)."""
    return read_json(os.path.join(index_dir, "manifest.json"))


def build_hint(build: str, options: str = "") -> str:
    """The command that builds an index with the `index` options BUILD (CorpusConfig.build, `--kb FILE`) and
    OPTIONS, as this installation runs it (hints.command)."""
    return f"{command('index')} {build}{options}"


def bm25_options(cfg: CorpusConfig, analyzer: str) -> str:
    """The index options that build only the BM25 index of CFG with ANALYZER: `--analyzer A` when not the
    corpus's own, and `--no-dense` when the corpus config lists dense encoders (which `index` builds too,
    for many minutes, unless told not to)."""
    return (f" --analyzer {analyzer}" if analyzer != cfg.analyzer else "") + (" --no-dense" if cfg.dense else "")


def dense_rate(encoder: str | None = None) -> tuple[int, int, str]:
    """(slow, fast passages/s, the encoder measured) of a dense build with ENCODER on 2 CPU cores: its config's
    own `build_rate` where it was measured, else its engine's."""
    try:
        cfg = encoder_config(encoder) if encoder else {}
    except Exception:  # an unknown encoder: its error comes where it is loaded
        cfg = {}
    if cfg.get("build_rate"):
        slow, fast = cfg["build_rate"]
        return slow, fast, str(encoder)
    return DENSE_RATES["onnx" if cfg.get("engine") == "onnx" else "pytorch"]


def dense_time(passages: int, encoder: str | None = None) -> str:
    """An estimate of how long encoding PASSAGES takes, as words: `an estimated 42–106 min for 95,675 passages, at
    the 15–38 passages/s measured with minilm on 2 CPU cores; more cores or a GPU are faster`."""
    low_rate, high_rate, measured = dense_rate(encoder)
    slow, fast = passages / low_rate, passages / high_rate
    unit, name = (1, "s") if slow < 90 else (60, "min") if slow < 7200 else (3600, "h")
    show = lambda x: f"{x:.1f}" if unit == 3600 and x < 10 else f"{max(1, round(x)):,}"  # noqa: E731
    low, high = show(fast / unit), show(slow / unit)
    return (f"an estimated {span(low, high)} {name} for {plural(passages, 'passage')}, at "
            f"the {span(low_rate, high_rate)} passages/s measured with {measured} on 2 CPU cores; more cores or a "
            "GPU are faster")


def dense_note(cfg: CorpusConfig, root: str | None = None, encoder: str | None = None) -> str:
    """What a dense build of CFG will take, for the hint that asks for one (`; it takes an estimated 42–106 min
    ...`): an estimate from the passages of its BM25 index (dense_time), or the measured rate when no BM25
    index says how many there are."""
    for analyzer in dict.fromkeys([cfg.analyzer, *ANALYZERS]):
        if passages := read_manifest(bm25_dir(cfg, analyzer, root, built=True)).get("passages"):
            return f"; it takes {dense_time(passages, encoder)}"
    slow, fast, measured = dense_rate(encoder)
    return f"; it encodes about {span(slow, fast)} passages/s, an estimate measured with {measured} on 2 CPU cores"


def dense_options(final: str, encoder: str) -> str:
    """The index options that build the dense index FINAL with ENCODER: `--dense ENCODER`, and `--shard-size N`
    when a build in progress (its .partial folder) or the built index uses another than the default, so that
    following the hint resumes the finished shards instead of discarding them."""
    size = read_json(os.path.join(partial_dir(final), "spec.json")).get("shard_size") or \
        read_manifest(final).get("shard_size")
    return f" --dense {encoder}" + (f" --shard-size {size}" if size and size != SHARD_SIZE else "")


def file_source(path: str) -> dict[str, object]:
    """A source file as an index's manifest records it, to tell later whether it changed (sources_unchanged):
    its absolute path, size and modification time (its sha256 is added by the build that reads it)."""
    st = os.stat(path)
    return {"file": os.path.abspath(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def sources_unchanged(built: Sequence[Mapping[str, object]], paths: list[str]) -> bool:
    """Whether the files PATHS are the sources BUILT (a manifest's `sources`: file, size, mtime_ns, sha256),
    unchanged: the same files, of the same size, with the same modification time or else the same sha256."""
    if [s.get("file") for s in built] != [os.path.abspath(p) for p in paths]:
        return False
    for s, path in zip(built, paths):
        now = file_source(path)
        if now["size"] != s.get("size"):
            return False
        if now["mtime_ns"] != s.get("mtime_ns") and sha256_file(path) != s.get("sha256"):
            return False
    return True


def load_manifest(cfg: CorpusConfig, index_dir: str, options: str = "", shown: str | None = None,
                  note: str = "") -> dict[str, Any]:
    """The manifest of a complete index built from this corpus config's files, else a UserError naming
    the command (with OPTIONS) that builds it, and NOTE (how long the build takes). SHOWN: the folder named in
    messages (default INDEX_DIR)."""
    hint, shown = build_hint(cfg.build, options), shown or index_dir
    manifest = read_manifest(index_dir)
    if not manifest:
        raise UserError(f"no index at {shown} (fix: build it with: {hint}{note})")
    files = built_from(manifest)
    if files != [s.file for s in cfg.sources]:
        raise UserError(f"the index at {shown} was built from {', '.join(map(str, files))}, "
                        f"not from this corpus (fix: rebuild it with: {hint})")
    return manifest


def open_index(cfg: CorpusConfig, index_dir: str, options: str, opener: Callable[[str, dict[str, Any]], T],
               attempts: int = 5, note: str = "") -> tuple[dict[str, Any], T]:
    """(manifest, opener(folder, manifest)) of the corpus index at INDEX_DIR (open_version, with the manifest
    load_manifest checks and the command that builds it with OPTIONS)."""
    return open_version(index_dir, lambda folder: load_manifest(cfg, folder, options, shown=index_dir, note=note),
                        opener, build_hint(cfg.build, options), attempts=attempts)


def open_version(index_dir: str, load: Callable[[str], dict[str, Any]], opener: Callable[[str, dict[str, Any]], T],
                 rebuild: str, what: str = "index", attempts: int = 5) -> tuple[dict[str, Any], T]:
    """(manifest, opener(folder, manifest)) of the index at INDEX_DIR, LOAD(folder) its manifest (a UserError
    when there is none or it is not of the index wanted). The link INDEX_DIR is resolved once, so the manifest
    and the files OPENER reads are of one build. When OPENER fails because a build replaced that version
    meanwhile (the link now points elsewhere), it is tried again on the new one; when it fails on an unchanged
    version, the index is damaged: a UserError naming REBUILD, the command that rebuilds it, never a traceback.
    WHAT: the index in messages (`index`, `KB store`)."""
    for _ in range(attempts):
        folder = os.path.realpath(index_dir)
        manifest = load(folder)
        try:
            return manifest, opener(folder, manifest)
        except UserError:
            raise
        except Exception as e:  # a Java exception from Lucene, a RuntimeError from faiss, an OSError, bad JSON
            if os.path.realpath(index_dir) != folder:
                continue  # swapped by a build while it was being opened: open the new version
            raise UserError(f"the {what} at {index_dir} is damaged or incomplete ({_cause(e, folder)}) (fix: rebuild "
                            f"it with: {rebuild} --force)") from None
    raise UserError(f"the {what} at {index_dir} kept changing while it was opened ({attempts} builds) (fix: wait "
                    "for the builds to finish and run again)")


def _cause(error: BaseException, folder: str) -> str:
    """The innermost cause of ERROR in a few words, paths inside FOLDER shown relative to it: for a Lucene
    index missing a file, `NoSuchFileException: lucene/_0.si`."""
    stack = [line.strip() for line in getattr(error, "stacktrace", None) or [] if line.strip()]
    causes = [stack[i + 1] for i, line in enumerate(stack[:-1]) if line == "Caused by:"]
    if causes:  # a Java exception: its root cause, `java.nio.file.NoSuchFileException: PATH`
        kind, _, message = causes[-1].partition(": ")
        text = f"{kind.rsplit('.', 1)[-1]}: {message}"
    elif classname := getattr(error, "classname", None):
        text = f"{classname.rsplit('.', 1)[-1]}: {getattr(error, 'innermessage', '')}"
    else:
        text = f"{type(error).__name__}: {next((x for x in str(error).splitlines() if x.strip()), '')}"
    return text.replace(folder + os.sep, "").strip()[:160]


@contextlib.contextmanager
def build_lock(final: str) -> Iterator[None]:
    """Hold the build lock of the index folder FINAL (`.NAME.lock` beside it; a second build of the same
    folder waits, naming the first's pid) and remove what killed builds left beside it (fileio.tidy_dir)."""
    os.makedirs(os.path.dirname(final), exist_ok=True)
    lock = os.path.join(os.path.dirname(final), f".{os.path.basename(final)}.lock")
    with locked(lock, f"{final}: another build is running"):
        tidy_dir(final)
        yield


def faiss_module() -> ModuleType:
    """faiss, with as many threads as the encoders use (QA_BASELINE_THREADS: process.threads)."""
    faiss = requires("dense", "faiss")
    faiss.omp_set_num_threads(threads())
    return faiss
