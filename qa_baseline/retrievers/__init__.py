"""Retrievers. Every retriever answers `search(queries, k)` with, per query, a ranked list of
(docid, score) hits, best first; `params()` (its settings for the run row), `manifest` (its index's) and
`title(docid)`. `write_trec_run` writes any retriever's hits as a TREC run file.

To add one, write `retrievers/NAME.py` with a class taking (corpus config, params) and list it in RETRIEVERS."""
import importlib

from ..errors import UserError
from ..fileio import atomic_write

RETRIEVERS = {"bm25": "BM25", "dense": "Dense", "hybrid": "Hybrid"}


def open_retriever(name, corpus_cfg, params):
    if name not in RETRIEVERS:
        raise UserError(f"unknown retriever {name!r}; known: {', '.join(RETRIEVERS)}")
    cls = getattr(importlib.import_module(f".{name}", __name__), RETRIEVERS[name])
    return cls(corpus_cfg, params)


def write_trec_run(path, qids, hits, tag):
    """TREC run lines `qid Q0 docid rank score tag` (rank from 1), written atomically."""
    if any(c.isspace() for c in tag) or not tag:
        raise UserError(f"a TREC run tag must be one word, not {tag!r}")
    with atomic_write(path) as f:
        for qid, ranked in zip(qids, hits):
            for rank, (docid, score) in enumerate(ranked, 1):
                f.write(f"{qid} Q0 {docid} {rank} {score:.6f} {tag}\n")
