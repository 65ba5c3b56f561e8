"""Lucene BM25 through Anserini's SimpleSearcher (the class pyserini's LuceneSearcher wraps), reached
directly with pyjnius: same scores as pyserini, 1-3 s start-up instead of 10-16 s (see jvm.py)."""
import json
import os
from collections.abc import Sequence
from typing import Any

from .. import jvm
from ..analysis import LANGUAGE, pretokenize
from ..index.layout import bm25_dir, bm25_options, open_index
from .base import Hit, bm25_params

BATCH_MAX_K = 10


class BM25:
    name = "bm25"

    def __init__(self, corpus_cfg: dict[str, Any], params: dict[str, Any]) -> None:
        self.analyzer = params.get("analyzer") or corpus_cfg["analyzer"]
        self.k1, self.b = bm25_params(params)  # K1, B by default (retrievers/base.py)
        self.index_dir = bm25_dir(corpus_cfg, self.analyzer, built=True)
        autoclass = jvm.start()
        Searcher = autoclass("io.anserini.search.SimpleSearcher")

        def searcher(folder, manifest):  # a damaged index (a missing or corrupt Lucene file) raises here
            lucene = os.path.join(folder, "lucene")
            if self.analyzer == "jieba":  # text was segmented in Python; Lucene only splits on whitespace
                return Searcher(lucene, autoclass("org.apache.lucene.analysis.core.WhitespaceAnalyzer")())
            return Searcher(lucene)

        self.manifest, self._searcher = open_index(corpus_cfg, self.index_dir, bm25_options(corpus_cfg, self.analyzer),
                                                   searcher)
        if self.analyzer in LANGUAGE:
            self._searcher.set_language(LANGUAGE[self.analyzer])
        self._searcher.set_bm25(self.k1, self.b)
        self._ArrayList = autoclass("java.util.ArrayList")
        self.threads = os.cpu_count() or 1

    def params(self) -> dict[str, Any]:
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

    def title(self, docid: str) -> str:
        return json.loads(self._searcher.doc_raw(docid)).get("title", "")
