"""Retrievers. Every retriever answers `search(queries, k)` with, per query, a ranked list of
(docid, score) hits, best first (ties by docid, as Anserini breaks them).

To add one, write `retrievers/NAME.py` with a class taking (corpus config, params) and list it in RETRIEVERS."""
import importlib

from ..errors import UserError

RETRIEVERS = {"bm25": "BM25"}


def open_retriever(name, corpus_cfg, params):
    if name not in RETRIEVERS:
        raise UserError(f"unknown retriever {name!r}; known: {', '.join(RETRIEVERS)}")
    cls = getattr(importlib.import_module(f".{name}", __name__), RETRIEVERS[name])
    return cls(corpus_cfg, params)
