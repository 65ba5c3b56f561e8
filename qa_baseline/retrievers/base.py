"""What a retriever is (the `Retriever` protocol) and the retrievers' settings: BM25's defaults K1 and B, here so
that tasks, rankers and Data Search import them without starting the JVM that retrievers/bm25.py needs."""
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.errors import UserError
from ..core.settings import option
from ..lucene.analysis import ANALYZERS
from . import RETRIEVERS

K1, B = 0.9, 0.4  # Anserini's BM25 defaults: the only place they are written down

Hit = tuple[str, float]  # (docid, score)


class Retriever(Protocol):
    """A retriever, made by its class from (corpus config, params) and listed in retrievers.RETRIEVERS."""
    name: str
    manifest: dict[str, Any]  # its index's manifest (hybrid: one per part)

    def search(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        """Per query, its ranked hits (at most K), best first."""
        ...

    def params(self) -> dict[str, object]:
        """Its settings, for the run row."""
        ...

    def title(self, docid: str) -> str:
        """The title of the passage DOCID ("" when it has none)."""
        ...


def bm25_params(params: Mapping[str, Any]) -> tuple[float, float]:
    """(k1, b) of PARAMS (default K1, B), else a UserError when they are out of BM25's range."""
    k1, b = float(params.get("k1", K1)), float(params.get("b", B))
    if k1 < 0 or not 0 <= b <= 1:
        raise UserError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, not k1={k1} b={b}")
    return k1, b


@dataclass(frozen=True)
class RetrieverSettings:
    """What a retrieval reads: the corpus, the retriever and its settings; the command-line options of `search`
    and of the tasks that retrieve (tasks/base.py RetrievalSettings)."""
    corpus: str | None = option(None, "corpus config name or corpus file", metavar="NAME|PATH", named=True)
    retriever: str = option("bm25", "bm25, dense or hybrid", choices=tuple(sorted(RETRIEVERS)), named=True)
    analyzer: str | None = option(None, "BM25 index analyzer (default: the corpus config's)",
                                  choices=ANALYZERS)
    k1: float = option(K1, f"BM25 k1 (default {K1})")
    b: float = option(B, f"BM25 b (default {B})")
    encoder: str | None = option(None, "dense/hybrid encoder (default: the corpus config's, else the language's)")
    fusion: str = option("rrf", "hybrid: fusion rule", choices=("rrf", "weighted"))
    weight: float = option(0.5, "hybrid, weighted fusion: weight of the dense score")
    rrf_k: float = option(60.0, "hybrid, rrf: the constant k of 1/(k + rank)", cli=False)
    depth: int = option(100, "hybrid: depth of both lists", cli=False)

    def retriever_params(self) -> dict[str, Any]:
        """What the retriever reads (analyzer only when set: else the corpus config's)."""
        names = ("analyzer", "k1", "b", "encoder", "fusion", "weight", "rrf_k", "depth")
        return {k: getattr(self, k) for k in names if getattr(self, k) is not None}
