"""BM25 indexes: `python -m qa_baseline.index --corpus NAME|PATH [--analyzer ...]`.

The BM25 index is a Lucene index built by Anserini's IndexCollection (in-process, through pyjnius):
passages are written as JSON lines by a Python thread into one named pipe per indexing thread (Anserini
parallelises per input file) while Anserini reads them (stream_and_index), indexed into a temporary folder,
and put in place as `indexes/CORPUS/bm25-ANALYZER/` only when complete, in one atomic swap
(fileio.replace_dir), with `manifest.json` beside the Lucene files. A second run on unchanged input and
settings does nothing."""
from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ..core.progress import tqdm  # a bar on a terminal, a line every 30 s in a log

from ..core.config import CorpusConfig
from ..core.errors import Problems, UserError
from ..core.fileio import build_dir, replace_dir, write_json
from ..core.hints import plural
from ..core.textio import forget_reads, read_position
from ..core.versions import versions
from ..corpus import read_corpus
from ..lucene import jvm
from ..lucene.analysis import ANALYZERS, LANGUAGE, pretokenize
from ..lucene.javalog import java_log, show_tail
from ..lucene.searcher import nio_directory
from . import postings
from .layout import FORMAT, bm25_dir, build_lock, check_owner, fingerprint, passage_text, read_manifest


# Memory flat in the corpus's size (bench/scale.py): Lucene flushes a segment whenever its RAM buffer holds
# BUFFER_MB of postings, so the buffer fills within the first 100k passages; the heap is what any build fills
# (old segments' garbage is kept until the heap is full): with 256 MB, a 100k build ended before filling it and
# the 1M build's anonymous memory was 1.56x the 100k one's; 128 MB is full at 100k passages too, and indexes 1M
# passages as fast (89-91 s against 88-90 s). Twice the buffer (Lucene's stall point) fits in it.
HEAP = "128m"  # -Xmx of an indexing process (QA_BASELINE_INDEX_HEAP)
BUFFER_MB = "48"  # Lucene's RAM buffer in MB (QA_BASELINE_INDEX_BUFFER)


def write_shards(cfg: CorpusConfig, analyzer: str, folder: str, shards: int, problems: Problems) -> int:
    """Passages as Anserini JsonCollection lines, dealt round-robin over SHARDS files; returns the count.
    Progress is over the bytes of the corpus's files (their total is known up front, the passages' is not),
    with the passages so far beside it."""
    files = [open(os.path.join(folder, f"part-{i:03d}.jsonl"), "w", encoding="utf-8") for i in range(shards)]
    sources = [s.file for s in cfg.sources]
    forget_reads(sources)
    n = 0
    try:
        with tqdm(total=sum(os.path.getsize(s) for s in sources), desc=f"reading {cfg.name}", unit="B",
                  unit_scale=True, mininterval=1.0, disable=None) as bar:
            for p in read_corpus(cfg, problems):
                doc = {"id": p["id"], "contents": pretokenize(passage_text(p, cfg), analyzer), "title": p["title"]}
                if analyzer == "jieba":
                    doc["text"] = p["contents"]
                files[n % shards].write(json.dumps(doc, ensure_ascii=False) + "\n")
                n += 1
                if not n & 0x3FF:
                    bar.set_postfix_str(f"{n:,} passages", refresh=False)
                    bar.update(min(bar.total, sum(read_position(s) for s in sources)) - bar.n)
            bar.set_postfix_str(plural(n, "passage"), refresh=False)
            bar.update(bar.total - bar.n)
    finally:
        for f in files:
            f.close()
    return n


def stream_and_index(cfg: CorpusConfig, analyzer: str, docs: str, index_dir: str, threads: int,
                     problems: Problems) -> tuple[int, int]:
    """write_shards into THREADS named pipes in DOCS on a Python thread while run_anserini reads them into
    INDEX_DIR: reading the corpus (gzip, JSON, segmenting, ~5 s for shared-en) overlaps the indexing instead
    of preceding it (pyjnius releases the GIL during the Java call). Returns (passages written, indexed); the
    writer's error, if any, is raised after Anserini has finished."""
    pipes = [os.path.join(docs, f"part-{i:03d}.jsonl") for i in range(threads)]
    for pipe in pipes:
        os.mkfifo(pipe)
    written: list[int] = []
    failed: list[BaseException] = []

    def write() -> None:
        try:
            written.append(write_shards(cfg, analyzer, docs, threads, problems))
        except BaseException as e:  # noqa: BLE001  (raised in the caller's thread below)
            failed.append(e)

    writer = threading.Thread(target=write, name="write_shards", daemon=True)
    writer.start()
    indexed = 0
    try:
        indexed = run_anserini(docs, index_dir, analyzer, threads)
    finally:
        while writer.is_alive():  # Anserini did not open a pipe, or stopped reading it: let the writer out
            for pipe in pipes:
                os.close(os.open(pipe, os.O_RDONLY | os.O_NONBLOCK))  # its open returns, its writes fail
            writer.join(0.05)
    if failed and isinstance(failed[0], BrokenPipeError):
        show_tail(os.path.join(os.path.dirname(index_dir), "anserini.log"))
        raise UserError(f"Anserini stopped reading the passages after indexing {indexed:,} (the end of its log is "
                        "above, if it logged why); the previous index is untouched")
    if failed:
        raise failed[0]
    return written[0], indexed


def write_postings(lucene_dir: str, count: int) -> str:
    """postings.npz beside LUCENE_DIR, from the postings Lucene wrote, when the index's COUNT passages are at
    most postings.MAX_PASSAGES; what the build line says of it."""
    if count > postings.MAX_PASSAGES:
        return f", no {postings.FILE} above {plural(postings.MAX_PASSAGES, 'passage')}"
    written = postings.write(lucene_dir, os.path.join(os.path.dirname(lucene_dir), postings.FILE))
    return f", with {postings.FILE}" if written else ""


def start_jvm() -> Callable[[str], Any]:
    """jvm.start with an indexing process's heap (a no-op if the JVM runs already)."""
    return jvm.start(os.environ.get("QA_BASELINE_INDEX_HEAP", HEAP))


def anserini_indexer(input_dir: str, index_dir: str, analyzer: str, threads: int, optimize: bool = True) -> Any:
    """Anserini's IndexCollection on a folder of JSON-lines files, constructed (its IndexWriter open), not run;
    OPTIMIZE: merge its segments into one at the end."""
    autoclass = start_jvm()
    args = autoclass("io.anserini.index.IndexCollection$Args")()
    # a fixed RAM buffer (Anserini's default is 4 GB), within half the heap the JVM actually has
    half = autoclass("java.lang.Runtime").getRuntime().maxMemory() // (2 << 20)
    buffer = os.environ.get("QA_BASELINE_INDEX_BUFFER", BUFFER_MB)
    if not buffer.isdigit():
        raise UserError(f"QA_BASELINE_INDEX_BUFFER={buffer}: not a number of MB (fix: e.g. {BUFFER_MB}, or unset it)")
    args.memoryBuffer = max(16, min(int(buffer), half))
    args.collectionClass, args.generatorClass = "JsonCollection", "DefaultLuceneDocumentGenerator"
    args.input, args.index, args.threads = input_dir, index_dir, threads
    args.storeRaw = True
    args.optimize = optimize  # one segment, as indexes/merge.py's and Anserini's prebuilt indexes: same scores, a
    # fresh process's MCQA pass 5-9% faster on shared-en (each term looked up once, not per segment)
    if analyzer in LANGUAGE:
        args.language = LANGUAGE[analyzer]
    elif analyzer == "jieba":
        args.pretokenized = True
    return autoclass("io.anserini.index.IndexCollection")(args)


def run_anserini(input_dir: str, index_dir: str, analyzer: str, threads: int, optimize: bool = True) -> int:
    """anserini_indexer run, its segments read unmapped (read_unmapped) unless QA_BASELINE_INDEX_MAPPED=1;
    returns the number of documents indexed."""
    start_jvm()  # before java_log, which needs Anserini's classes
    with java_log(os.path.join(os.path.dirname(index_dir), "anserini.log")):  # ~35 INFO lines: to the file
        indexer = anserini_indexer(input_dir, index_dir, analyzer, threads, optimize)
        if os.environ.get("QA_BASELINE_INDEX_MAPPED") != "1":
            read_unmapped(indexer, index_dir)
        indexer.run()
    return indexer.getCounters().indexed.get()


@functools.cache
def _writer_field() -> Any:
    """AbstractIndexer's protected `writer` field, made readable and writable (java.lang.reflect.Field: pyjnius's
    own jnius.reflect.Field declares no get or set; this class, a superset of it, takes its place)."""
    from jnius import JavaClass, JavaMethod, MetaJavaClass, autoclass, cast

    class Field(JavaClass, metaclass=MetaJavaClass):
        __javaclass__ = "java/lang/reflect/Field"
        getName = JavaMethod("()Ljava/lang/String;")
        toString = JavaMethod("()Ljava/lang/String;")
        getType = JavaMethod("()Ljava/lang/Class;")
        getModifiers = JavaMethod("()I")
        setAccessible = JavaMethod("(Z)V")
        get = JavaMethod("(Ljava/lang/Object;)Ljava/lang/Object;")
        set = JavaMethod("(Ljava/lang/Object;Ljava/lang/Object;)V")

    field = cast(Field, autoclass("java.lang.Class").forName("io.anserini.index.AbstractIndexer")
                 .getDeclaredField("writer"))
    field.setAccessible(True)
    return field


def indexer_writer(indexer: Any) -> Any:
    """The IndexWriter of an Anserini indexer (IndexCollection)."""
    from jnius import cast
    return cast("org.apache.lucene.index.IndexWriter", _writer_field().get(indexer))


def read_unmapped(indexer: Any, index_dir: str) -> None:
    """Swap INDEXER's IndexWriter (an IndexCollection, before run) for one with the same settings on
    nio_directory(INDEX_DIR). Anserini opens FSDirectory.open, a memory-mapped directory, and the segments a
    merge reads, once mapped, count in the build's resident memory: 1.3 GB of a 5M-passage build's 1.7 GB
    peak (bench/scale.py); read into small buffers instead, they do not. The cost: 10-20% more indexing time
    (docs/results.md); QA_BASELINE_INDEX_MAPPED=1 keeps Anserini's mapped directory."""
    autoclass = jvm.start()
    old = indexer_writer(indexer)
    live = old.getConfig()
    config = autoclass("org.apache.lucene.index.IndexWriterConfig")(live.getAnalyzer())
    config.setOpenMode(live.getOpenMode())
    config.setSimilarity(live.getSimilarity())
    config.setCodec(live.getCodec())
    config.setRAMBufferSizeMB(live.getRAMBufferSizeMB())
    config.setUseCompoundFile(live.getUseCompoundFile())
    config.setMergePolicy(live.getMergePolicy())
    old.rollback()  # nothing written yet; releases the folder's write lock
    _writer_field().set(indexer, autoclass("org.apache.lucene.index.IndexWriter")(nio_directory(index_dir), config))


def default_threads(indexer: Callable[[str, str, str, int], int] | None) -> int:
    """Indexing threads when --threads is not given: in this process, every core but the one that reads the
    corpus into the pipes (stream_and_index); one file per core for another INDEXER. On shared-en (2 cores),
    one indexing thread writes one segment and needs no merge: 30 s of CPU against 45 s for two threads, whose
    two segments -optimize merges (bench/index_throughput.py)."""
    cores = os.cpu_count() or 1
    return cores if indexer else max(1, cores - 1)


def build_bm25(cfg: CorpusConfig, analyzer: str | None = None, threads: int | None = None, on_bad_record: str = "stop",
               force: bool = False, root: str | None = None, indexer: Callable[[str, str, str, int], int] | None = None) -> str:
    """Build (or find up to date) the BM25 index of a corpus config; returns its folder. The build holds the
    folder's lock (a second build of it waits) and first removes what killed builds left (layout.build_lock).
    INDEXER: what indexes the THREADS JSON-lines files, with run_anserini's arguments and result (default
    run_anserini, in this process; indexes/merge.py's ray_indexer indexes them on Ray and merges)."""
    analyzer = analyzer or cfg.analyzer
    if analyzer not in ANALYZERS:
        raise UserError(f"unknown analyzer {analyzer!r}; known: {', '.join(ANALYZERS)}")
    with build_lock(bm25_dir(cfg, analyzer, root)):
        check_owner(cfg, root)  # a corpus file's --name folder holding another file's index is never replaced
        return _build_bm25(cfg, analyzer, threads, on_bad_record, force, root, indexer)


def _build_bm25(cfg, analyzer, threads, on_bad_record, force, root, indexer):
    final = bm25_dir(cfg, analyzer, root)
    fp, sources = fingerprint(cfg, analyzer=analyzer, anserini=versions()["anserini"])
    if not force and read_manifest(final).get("fingerprint") == fp:
        print(f"{final}: up to date", file=sys.stderr)
        return final
    threads = threads or default_threads(indexer)
    if threads < 1:
        raise UserError(f"--threads must be at least 1, not {threads}")
    problems = Problems(on_bad_record)
    tmp = build_dir(final)
    try:
        started = time.time()
        docs = os.path.join(tmp, "docs")
        os.makedirs(docs)
        if indexer is None:
            count, indexed = stream_and_index(cfg, analyzer, docs, os.path.join(tmp, "lucene"), threads, problems)
        else:  # another process or machine indexes: the files first
            count = write_shards(cfg, analyzer, docs, threads, problems)
            indexed = indexer(docs, os.path.join(tmp, "lucene"), analyzer, threads) if count else 0
        if problems.count:
            print(problems.summary(), file=sys.stderr)
        if count == 0:
            raise UserError(f"corpus {cfg.name}: no passages to index")
        if indexed != count:
            show_tail(os.path.join(tmp, "anserini.log"))
            raise UserError(f"Anserini indexed {indexed:,} of {plural(count, 'passage')} (the end of its log is above, "
                            "if it logged why); the previous index is untouched")
        indexed_at = time.time()
        written = write_postings(os.path.join(tmp, "lucene"), count)
        postings_s = time.time() - indexed_at
        shutil.rmtree(docs)
        write_json(os.path.join(tmp, "manifest.json"), {
            "corpus": cfg.name, "lang": cfg.lang, "sources": sources, "fingerprint": fp,
            "passages": count, "skipped_bad_records": problems.count, "analyzer": analyzer,
            "title_in_contents": cfg.title_in_contents, "format": FORMAT, "versions": versions(),
            "threads": threads, "seconds": {"index": round(indexed_at - started, 2),
                                            "postings": round(postings_s, 2), "total": round(time.time() - started, 2)},
        })
        replace_dir(tmp, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{final}: {plural(count, 'passage')} indexed ({analyzer} analyzer{written}; Anserini's log: anserini.log)",
          file=sys.stderr)
    return final
