"""BM25 at scale: Lucene indexes of parts of a corpus, built in parallel, merged into one index.

BM25 needs corpus-wide statistics (document frequencies, document count, average length): parts searched
apart would each score with their own IDF. Merged, the index holds every part's segments as they were
written (postings, stored fields, doc values and the one-byte length norms are copied, not recomputed) and
Lucene computes the statistics over all of them, so every score equals a single build's
(tests/unit/indexes/test_scale.py).
  merge_indexes(parts, out)  Lucene's IndexWriter.addIndexes(Directory...) through pyjnius, then
                             forceMerge(1) (one segment) and commit.
  ray_indexer(address, ...)  an indexer for lucene.build_bm25 (run_anserini's contract): each JSON-lines
                             file of the build becomes one Ray task that runs Anserini's IndexCollection on its
                             node; the part indexes come back through Ray's object store (no shared file system)
                             and are merged here. With `--ray`, `python -m qa_baseline.index` splits the corpus
                             into one file per CPU of the cluster (or --threads files)."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence

from ..core.errors import UserError
from ..core.hints import plural
from ..lucene import jvm
from ..lucene.searcher import nio_directory  # read as the single build reads: not memory-mapped
from .lucene import run_anserini


def merge_indexes(parts: Sequence[str], out: str) -> int:
    """Merge the Lucene indexes in the folders PARTS into a new index at OUT (one segment); returns its
    document count."""
    autoclass = jvm.start(os.environ.get("QA_BASELINE_INDEX_HEAP", "2g"))
    config = autoclass("org.apache.lucene.index.IndexWriterConfig")()
    config.setOpenMode(autoclass("org.apache.lucene.index.IndexWriterConfig$OpenMode").CREATE)
    from jnius import cast
    sources = [cast("org.apache.lucene.store.Directory", nio_directory(p)) for p in parts]  # Directory[]
    target = nio_directory(out)
    writer = autoclass("org.apache.lucene.index.IndexWriter")(target, config)
    try:
        writer.addIndexes(*sources)  # Java varargs: one argument per directory
        writer.forceMerge(1)
        writer.commit()
        count = writer.getDocStats().numDocs
    finally:
        writer.close()
        for d in [*sources, target]:
            d.close()
    return count


def index_part(data: bytes, analyzer: str, threads: int) -> tuple[int, dict[str, bytes], str]:
    """A Ray task: index the JSON lines DATA (bytes) with Anserini in a temporary folder on this node;
    returns (documents indexed, {file name: bytes} of the Lucene index, Anserini's log)."""
    with tempfile.TemporaryDirectory(prefix="qa_baseline-bm25-part-") as tmp:
        docs, index = os.path.join(tmp, "docs"), os.path.join(tmp, "lucene")
        os.makedirs(docs)
        with open(os.path.join(docs, "part.jsonl"), "wb") as f:
            f.write(data)
        count = run_anserini(docs, index, analyzer, threads, optimize=False)  # merge_indexes makes one segment
        files: dict[str, bytes] = {}
        for name in os.listdir(index):
            if name != "write.lock":
                with open(os.path.join(index, name), "rb") as f:
                    files[name] = f.read()
        with open(os.path.join(tmp, "anserini.log"), encoding="utf-8", errors="replace") as f:
            log = f.read()
    return count, files, log


def ray_indexer(address: str = "auto", cpus: int = 1, env: dict[str, str] | None = None) -> Callable[[str, str, str, int], int]:
    """An indexer for lucene.build_bm25 (see the module's docstring): one Ray task with CPUS CPUs per
    JSON-lines file, the parts merged into the index folder; returns the merged index's document count."""

    def indexer(input_dir: str, index_dir: str, analyzer: str, threads: int) -> int:
        from .distributed import connect, worker_env  # defers ray to the Ray indexer
        ray = connect(address)
        files = sorted(f for f in os.listdir(input_dir) if f.endswith(".jsonl"))
        task = ray.remote(index_part).options(num_cpus=cpus, runtime_env={"env_vars": worker_env("cpu", cpus, env)})
        refs = {}
        for i, name in enumerate(files):
            with open(os.path.join(input_dir, name), "rb") as part:
                refs[task.remote(part.read(), analyzer, cpus)] = i
        print(f"Ray: indexing {len(files)} parts in parallel tasks ({cpus} CPU{'s' * (cpus > 1)} each)", file=sys.stderr)
        parts = os.path.join(os.path.dirname(index_dir), "parts")
        indexed = 0
        try:
            pending = list(refs)
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                try:
                    count, index_files, log = ray.get(ready[0])
                except ray.exceptions.RayError as e:
                    from .distributed import first_line  # defers ray to the Ray indexer
                    raise UserError(f"Ray: indexing part {refs[ready[0]]} failed: {first_line(e)}") from None
                folder = os.path.join(parts, f"{refs[ready[0]]:05d}")
                os.makedirs(folder)
                for name, data in index_files.items():
                    with open(os.path.join(folder, name), "wb") as out:
                        out.write(data)
                indexed += count
                with open(os.path.join(os.path.dirname(index_dir), "anserini.log"), "a", encoding="utf-8") as logf:
                    logf.write(f"--- part {refs[ready[0]]} ({plural(count, 'document')}) ---\n{log}")  # kept with the index
            print(f"merging {plural(len(files), 'Lucene index', 'Lucene indexes')} ({plural(indexed, 'document')}) into "
                  "one", file=sys.stderr)
            merged = merge_indexes([os.path.join(parts, f"{i:05d}") for i in range(len(files))], index_dir)
        finally:
            shutil.rmtree(parts, ignore_errors=True)
        if merged != indexed:
            raise UserError(f"the merged index holds {plural(merged, 'document')}, its parts {indexed:,}")
        return merged

    return indexer
