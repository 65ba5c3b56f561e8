"""Hybrid retrieval: BM25 and dense hits fused per query.

fusion `rrf` (default): reciprocal-rank fusion, score(d) = sum over the two lists of 1 / (rrf_k + rank(d)),
rrf_k = 60 (Cormack et al. 2009). fusion `weighted`: each list's scores min-max normalised to [0, 1] over
its top `depth` hits (a document missing from a list gets 0 there), score(d) = (1 - weight) * bm25 + weight *
dense, weight = 0.5. Both lists are `depth` (100) deep; ties go to the smaller docid."""
from collections.abc import Sequence
from typing import Any

from ..core.config import CorpusConfig
from ..core.errors import UserError
from .base import Hit
from .bm25 import BM25
from .dense import Dense


def rrf(runs: Sequence[list[Hit]], rrf_k: float) -> dict[str, float]:
    fused: dict[str, float] = {}
    for hits in runs:
        for rank, (docid, _) in enumerate(hits, 1):
            fused[docid] = fused.get(docid, 0.0) + 1.0 / (rrf_k + rank)
    return fused


def weighted(runs: Sequence[list[Hit]], weights: Sequence[float]) -> dict[str, float]:
    fused: dict[str, float] = {}
    for hits, w in zip(runs, weights):
        if not hits:
            continue
        top, bottom = hits[0][1], hits[-1][1]
        for docid, s in hits:
            fused[docid] = fused.get(docid, 0.0) + w * ((s - bottom) / (top - bottom) if top > bottom else 1.0)
    return fused


class Hybrid:
    name = "hybrid"

    def __init__(self, corpus_cfg: CorpusConfig, params: dict[str, Any]) -> None:
        self.fusion = params.get("fusion", "rrf")
        self.rrf_k, self.weight = float(params.get("rrf_k", 60)), float(params.get("weight", 0.5))
        self.depth = int(params.get("depth", 100))
        if self.fusion not in ("rrf", "weighted"):
            raise UserError(f"fusion must be rrf or weighted, not {self.fusion!r}")
        if not 0 <= self.weight <= 1 or self.rrf_k < 0 or self.depth < 1:
            raise UserError(f"hybrid needs 0 <= weight <= 1, rrf_k >= 0, depth >= 1 "
                            f"(not {self.weight}, {self.rrf_k}, {self.depth})")
        self.bm25, self.dense = BM25(corpus_cfg, params), Dense(corpus_cfg, params)
        self.manifest = {"bm25": self.bm25.manifest, "dense": self.dense.manifest}

    def params(self) -> dict[str, object]:
        mine = {"rrf_k": self.rrf_k} if self.fusion == "rrf" else {"weight": self.weight}
        return {**self.bm25.params(), **self.dense.params(), "fusion": self.fusion, **mine, "depth": self.depth}

    def search(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        depth = max(k, self.depth)
        results = []
        for runs in zip(self.bm25.search(queries, depth), self.dense.search(queries, depth)):
            fused = rrf(runs, self.rrf_k) if self.fusion == "rrf" else weighted(runs, (1 - self.weight, self.weight))
            results.append(sorted(fused.items(), key=lambda x: (-x[1], x[0]))[:k])
        return results

    def title(self, docid: str) -> str:
        return self.dense.title(docid)
