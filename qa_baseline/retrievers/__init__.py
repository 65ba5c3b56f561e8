"""Retrievers. Every retriever answers `search(queries, k)` with, per query, a ranked list of
(docid, score) hits, best first; `params()` (its settings for the run row), `manifest` (its index's) and
`title(docid)`. `write_trec_run` writes any retriever's hits as a TREC run file.

To add one, write `retrievers/NAME.py` with a class taking (corpus config, params) and list it in RETRIEVERS."""
import importlib

from ..analysis import ANALYZERS
from ..errors import UserError
from ..fileio import atomic_write

RETRIEVERS = {"bm25": "BM25", "dense": "Dense", "hybrid": "Hybrid"}


def open_retriever(name, corpus_cfg, params):
    if name not in RETRIEVERS:
        raise UserError(f"unknown retriever {name!r}; known: {', '.join(RETRIEVERS)}")
    cls = getattr(importlib.import_module(f".{name}", __name__), RETRIEVERS[name])
    return cls(corpus_cfg, params)


def add_arguments(ap):
    """The command-line settings of the retrievers (run, search); `params(args)` collects the given ones."""
    ap.add_argument("--retriever", choices=sorted(RETRIEVERS), help="bm25 (default), dense or hybrid")
    ap.add_argument("--analyzer", choices=ANALYZERS, help="BM25 index analyzer (default: the corpus config's)")
    ap.add_argument("--k1", type=float, help="BM25 k1 (default 0.9)")
    ap.add_argument("--b", type=float, help="BM25 b (default 0.4)")
    ap.add_argument("--encoder", help="encoder of the dense/hybrid retriever and the dbqa dense reranker "
                                      "(default: the corpus config's, else the language's)")
    ap.add_argument("--fusion", choices=("rrf", "weighted"), help="hybrid: fusion rule (default rrf)")
    ap.add_argument("--weight", type=float, help="hybrid, weighted fusion: weight of the dense score (default 0.5)")


SETTINGS = ("analyzer", "k1", "b", "encoder", "fusion", "weight")


def params(args):
    return {k: getattr(args, k) for k in SETTINGS if getattr(args, k) is not None}


def write_trec_run(path, qids, hits, tag):
    """TREC run lines `qid Q0 docid rank score tag` (rank from 1), written atomically."""
    if any(c.isspace() for c in tag) or not tag:
        raise UserError(f"a TREC run tag must be one word, not {tag!r}")
    with atomic_write(path) as f:
        for qid, ranked in zip(qids, hits):
            for rank, (docid, score) in enumerate(ranked, 1):
                f.write(f"{qid} Q0 {docid} {rank} {score:.6f} {tag}\n")
