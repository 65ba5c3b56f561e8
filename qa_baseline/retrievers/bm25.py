"""Lucene BM25 through Anserini's SimpleSearcher (the class pyserini's LuceneSearcher wraps), reached
directly with pyjnius: same scores as pyserini, 1-3 s start-up instead of 10-16 s (see jvm.py)."""
import json
import os

from .. import jvm
from ..analysis import LANGUAGE, pretokenize
from ..errors import UserError
from ..index.layout import bm25_dir, bm25_options, open_index


BATCH_MAX_K = 10
K1, B = 0.9, 0.4  # Anserini's BM25 defaults: the only place they are written down


class BM25:
    name = "bm25"

    def __init__(self, corpus_cfg, params):
        self.analyzer = params.get("analyzer") or corpus_cfg["analyzer"]
        self.k1, self.b = float(params.get("k1", K1)), float(params.get("b", B))
        if self.k1 < 0 or not 0 <= self.b <= 1:
            raise UserError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, not k1={self.k1} b={self.b}")
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

    def params(self):
        return {"analyzer": self.analyzer, "k1": self.k1, "b": self.b}

    def search(self, queries, k, batch=True):
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

    def title(self, docid):
        return json.loads(self._searcher.doc_raw(docid)).get("title", "")
