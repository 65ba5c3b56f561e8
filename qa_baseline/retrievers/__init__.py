"""Retrievers. Every retriever answers `search(queries, k)` with, per query, a ranked list of
(docid, score) hits, best first; `params()` (its settings for the run row), `manifest` (its index's) and
`title(docid)`: the `Retriever` protocol of retrievers/base.py, beside BM25's defaults. `top_scores` gives
any retriever's top scores without the hits (what the MCQA rule needs); `write_trec_run` writes any
retriever's hits as a TREC run file.

To add one, write `retrievers/NAME.py` with a class taking (corpus config, params) and list it in RETRIEVERS
(name -> "module:Class", qa_baseline/core/registry.py)."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..core.errors import UserError
from ..core.fileio import atomic_write
from ..core.registry import load

if TYPE_CHECKING:
    from ..core.config import CorpusConfig
    from .base import Hit, Retriever

RETRIEVERS = {"bm25": "bm25:BM25", "dense": "dense:Dense", "hybrid": "hybrid:Hybrid"}


def open_retriever(name: str, corpus_cfg: CorpusConfig, params: dict[str, Any]) -> Retriever:
    return load(RETRIEVERS, name, "retriever", __name__)(corpus_cfg, params)


def top_scores(retriever: Retriever, queries: Sequence[str], k: int) -> list[list[float]]:
    """Per query, the scores of its top K hits, best first: those of retriever.search, through the retriever's
    own top_scores where it has one (BM25: without reading the hits' passages)."""
    own = getattr(retriever, "top_scores", None)
    return own(queries, k) if own else [[score for _, score in hits] for hits in retriever.search(queries, k)]


def write_trec_run(path: str, qids: Iterable[str], hits: Iterable[Sequence[Hit]], tag: str) -> None:
    """TREC run lines `qid Q0 docid rank score tag` (rank from 1), written atomically."""
    if any(c.isspace() for c in tag) or not tag:
        raise UserError(f"a TREC run tag must be one word, not {tag!r}")
    with atomic_write(path) as f:
        for qid, ranked in zip(qids, hits):
            for rank, (docid, score) in enumerate(ranked, 1):
                f.write(f"{qid} Q0 {docid} {rank} {score:.6f} {tag}\n")
