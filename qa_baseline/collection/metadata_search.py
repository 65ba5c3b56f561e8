"""BM25 over a collection's metadata, to pick the dataset of a question that comes without one (the NTCIR
Data Search ad-hoc setting).

A dataset's text is its title, description and column names (`collection.text_fields`). Terms: lower-cased
NFKC words with accents dropped, English stop words removed, plural -s stripped; runs of CJK characters become
overlapping character bigrams (a lone character stays a unigram). Score: Lucene's BM25 (rankers/bm25mem.py),
k1 = 0.9, b = 0.4 (Anserini's defaults); ties go to the dataset listed first."""
from __future__ import annotations

import re
import unicodedata
from typing import Any

from ..rankers.bm25mem import BM25Index
from ..retrievers.base import B, K1
from .metadata import text_fields

WORD = re.compile(r"[^\W_]+")
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]+")
STOP = frozenset("""a an the of in on at to for from by with as and or is are was were be been has have had do does
did what which who whom whose when where why how that this these those it its he she they them their his her
there than then so if not no only also all each any some other same me my we our you your i into over under
about many much more most""".split())


def terms(text: str) -> list[str]:
    """Index terms of TEXT (see the module docstring)."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    out: list[str] = []
    for word in WORD.findall(text):
        pos = 0
        for m in CJK.finditer(word):
            out.extend(_latin(word[pos:m.start()]))
            run = m.group(0)
            out.extend(run if len(run) == 1 else [run[k:k + 2] for k in range(len(run) - 1)])
            pos = m.end()
        out.extend(_latin(word[pos:]))
    return out


def _latin(word):
    if not word or word in STOP:
        return []
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return [word]


class MetadataBM25:
    """An in-memory BM25 index (rankers/bm25mem.py) of metadata records {id: record}."""

    def __init__(self, records: dict[str, dict[str, Any]], k1: float = K1, b: float = B) -> None:
        self.ids = list(records)
        self.index = BM25Index([terms(" ".join(text_fields(records[i]))) for i in self.ids], k1, b)

    def search(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """[(dataset id, score)] of the K best datasets for QUERY, best first (ties: collection order)."""
        scores = self.index.scores((t, 1) for t in terms(query))  # a repeated term counts again, as in Lucene
        best = sorted(scores.items(), key=lambda x: (-x[1], x[0]))[:k]
        return [(self.ids[d], s) for d, s in best]
