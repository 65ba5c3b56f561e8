"""Lucene BM25 through Anserini's SimpleSearcher (the class pyserini's LuceneSearcher wraps), reached
directly with pyjnius: same scores as pyserini, 1-3 s start-up instead of 10-16 s (see lucene/jvm.py)."""
import functools
import json
import math
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..core.config import CorpusConfig
from ..indexes import postings
from ..indexes.layout import bm25_dir, bm25_options, open_index
from ..lucene import jvm
from ..lucene.analysis import pretokenize
from ..lucene.searcher import nio_directory, simple_searcher
from .base import Hit, bm25_params

BATCH_MAX_K = 10
# Lucene refuses a query of more than 1,024 terms (IndexSearcher.TooManyClauses): a long question, or a Chinese
# one of 1,000 characters (as many bigrams), would stop the run; its full query is scored instead
MAX_CLAUSES = 1 << 16
# top_scores maps postings (.doc files) up to this size, and reads larger ones into buffers (bench/mcqa_speed.py,
# bench/scale.py): mapped, a run keeps the pages it read resident (at most this much); buffered, a fresh process
# searched shared-en's 9 MB ~14% slower
MAPPED_POSTINGS_MB = 64


class BM25:
    name = "bm25"

    def __init__(self, corpus_cfg: CorpusConfig, params: dict[str, Any]) -> None:
        self.analyzer = params.get("analyzer") or corpus_cfg.analyzer
        self.k1, self.b = bm25_params(params)  # K1, B by default (retrievers/base.py)
        self.index_dir = bm25_dir(corpus_cfg, self.analyzer, built=True)
        autoclass = jvm.start()
        autoclass("org.apache.lucene.search.IndexSearcher").setMaxClauseCount(MAX_CLAUSES)  # for every searcher

        def searcher(folder, manifest):  # a damaged index (a missing or corrupt Lucene file) raises here,
            postings.check(folder)  # as does a postings.npz that does not read whole: a file derived from it
            return simple_searcher(os.path.join(folder, "lucene"), self.analyzer), folder

        self.manifest, (self._searcher, self._folder) = open_index(
            corpus_cfg, self.index_dir, bm25_options(corpus_cfg, self.analyzer), searcher)
        self._searcher.set_bm25(self.k1, self.b)
        self._ArrayList = autoclass("java.util.ArrayList")
        self.threads = os.cpu_count() or 1
        self._lucene: Any = None  # (IndexSearcher, query builder), opened by lucene_top_scores

    def params(self) -> dict[str, object]:
        return {"analyzer": self.analyzer, "k1": self.k1, "b": self.b}

    def search(self, queries: Sequence[str], k: int, batch: bool = True) -> list[list[Hit]]:
        """Ranked (docid, score) hits per query. Shallow searches (k <= BATCH_MAX_K) go through Anserini's
        multi-threaded batch_search; deep ones, or batch=False, one Lucene search per query: Anserini's hits
        carry their stored passages, and a batch of deep searches over long passages exhausts the heap (20
        Chinese queries at k=100 did in 512 MB) while one query at a time is as fast."""
        texts = [pretokenize(q, self.analyzer) for q in queries]
        hits = lambda docs: [(d.docid, d.score) for d in docs]  # noqa: E731  (frees the Java hits at once)
        if not batch or len(texts) == 1 or k > BATCH_MAX_K:
            return [hits(self._searcher.search(t, k)) for t in texts]
        jq, jid = self._ArrayList(), self._ArrayList()
        for i, t in enumerate(texts):
            jq.add(t)
            jid.add(str(i))
        result = self._searcher.batch_search(jq, jid, k, self.threads)
        return [hits(result.get(str(i))) for i in range(len(texts))]

    @functools.cached_property
    def postings_npz(self) -> postings.Postings | None:
        """The index's postings.npz, read on first use (None: the index has none)."""
        return postings.load(self._folder, self.k1, self.b)

    def top_scores(self, queries: Sequence[str], k: int) -> list[list[float]]:
        """Per query, the scores of its top K hits exactly as search() gives them, without the hits: all the
        published MCQA rule needs. Through the index's postings.npz where the build wrote one (corpora of at
        most postings.MAX_PASSAGES passages; loaded on the first call): every passage a query's terms occur
        in, scored with Lucene's arithmetic in numpy, no JIT warm-up; else lucene_top_scores. Anserini's
        rounding and tie adjustment follow (anserini_scores)."""
        if self.postings_npz is None:
            return self.lucene_top_scores(queries, k)
        analyzer = self._searcher.get_analyzer()
        terms = [postings.tokens(analyzer, pretokenize(q, self.analyzer)) for q in queries]
        return [anserini_scores(scores) for scores in self.postings_npz.top_scores(terms, k)]

    def lucene_top_scores(self, queries: Sequence[str], k: int) -> list[list[float]]:
        """top_scores through Lucene: Lucene keeps its own top K by score (skipping passages that cannot enter
        it) on self.threads Python threads (pyjnius leaves the GIL while Lucene runs), ~25% faster on a fresh
        JVM than search(), which has Anserini sort every match by score then docid and read each hit's stored
        passage. A passage's score is the sum of its terms' float scores in double precision, cast to float,
        under either collector: the same K scores (tests/test_bm25.py; bench/mcqa_speed.py compares the 5,464
        MCQA queries). The index is memory-mapped, but postings (.doc) over MAPPED_POSTINGS_MB are read into
        buffers (NIOFSDirectory): mapped, the postings a run reads stay in its resident memory (397 of 607 MB
        after the 146 dev questions on 5M passages, 2x the run's on 100k: bench/scale.py); buffered,
        shared-en's first pass was ~14% slower (docs/results.md)."""
        texts = [pretokenize(q, self.analyzer) for q in queries]
        if self._lucene is None:
            autoclass = jvm.start()
            from jnius import cast
            folder = os.path.join(self.index_dir, "lucene")
            directory = autoclass("org.apache.lucene.store.MMapDirectory")(autoclass("java.io.File")(folder).toPath())
            if sum(e.stat().st_size for e in os.scandir(folder) if e.name.endswith(".doc")) > MAPPED_POSTINGS_MB << 20:
                postings = autoclass("java.util.HashSet")()
                postings.add("doc")
                directory = autoclass("org.apache.lucene.store.FileSwitchDirectory")(
                    postings, nio_directory(folder), directory, True)
            reader = autoclass("org.apache.lucene.index.DirectoryReader").open(directory)
            lucene = autoclass("org.apache.lucene.search.IndexSearcher")(cast("org.apache.lucene.index.IndexReader", reader))
            lucene.setSimilarity(self._searcher.get_similarity())
            generator, analyzer = autoclass("io.anserini.search.query.BagOfWordsQueryGenerator")(), self._searcher.get_analyzer()
            field = autoclass("io.anserini.index.Constants").CONTENTS
            self._lucene = lucene, lambda text: generator.buildQuery(field, analyzer, text)
        lucene, query = self._lucene

        def part(lo: int, hi: int) -> list[list[float]]:
            from jnius import detach
            try:
                return [anserini_scores([d.score for d in lucene.search(query(t), k).scoreDocs]) for t in texts[lo:hi]]
            finally:
                detach()  # this pool's thread ends after the call: the JVM forgets it

        step = math.ceil(len(texts) / self.threads) or 1
        with ThreadPoolExecutor(self.threads) as pool:
            parts = list(pool.map(part, range(0, len(texts), step), range(step, len(texts) + step, step)))
        return [scores for p in parts for scores in p]

    def title(self, docid: str) -> str:
        return json.loads(self._searcher.doc_raw(docid)).get("title", "")


def anserini_scores(scores: Sequence[float]) -> list[float]:
    """Lucene's scores of a ranked list, best first, as Anserini's hits carry them (ScoreTiesAdjusterReranker):
    each rounded to 4 decimals (in double precision, then float), and each score within 1e-4 of the one above
    it lowered by 1e-6 times its place in that run of ties."""
    out: list[float] = []
    dup = 0
    for i, score in enumerate(scores):
        rounded = float(np.float32(math.floor(score * 1e4 + 0.5) / 1e4))
        if i == 0 or out[-1] - rounded > 1e-4:
            dup = 0
        else:
            dup += 1
            rounded = float(np.float32(rounded - 1e-6 * dup))
        out.append(rounded)
    return out
