"""What opens a Lucene index through the JVM: its directory read without memory-mapping, and Anserini's
searcher with the query analyzer the index was built with."""
from typing import Any

from . import jvm
from .analysis import LANGUAGE


def nio_directory(path: str) -> Any:
    """The Lucene directory at PATH read through positional reads into buffers (NIOFSDirectory), not
    memory-mapped: what index builds merge through and what BM25.top_scores reads postings through."""
    autoclass = jvm.start()
    return autoclass("org.apache.lucene.store.NIOFSDirectory")(autoclass("java.io.File")(path).toPath())


def simple_searcher(lucene_dir: str, analyzer: str) -> Any:
    """Anserini's SimpleSearcher on the Lucene index at LUCENE_DIR, with the Lucene analyzer of ANALYZER (its
    language's, or whitespace for text segmented in Python) for queries, as the index was built with it."""
    autoclass = jvm.start()
    searcher = autoclass("io.anserini.search.SimpleSearcher")
    if analyzer == "jieba":
        return searcher(lucene_dir, autoclass("org.apache.lucene.analysis.core.WhitespaceAnalyzer")())
    searcher = searcher(lucene_dir)
    if analyzer in LANGUAGE:
        searcher.set_language(LANGUAGE[analyzer])
    return searcher
