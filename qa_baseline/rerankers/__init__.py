"""Rerankers for answer-sentence selection (dbqa): each scores every sentence of a question's group.

A reranker is a class taking (lang, settings, text) (settings: k1, b, encoder, features; text: a shared
rerankers.text.Text) with `names` (its feature columns), `features(groups)` -> float array (lines, columns),
`score(groups)` -> one float per line, `params()` -> what decides its scores, `options` -> the settings it
reads; the learned one also has `fit(groups)`. Groups are qa_baseline.tasks.dbqa.Group tuples, lines in group order.

To add one, write the class in a module here and list it in RERANKERS."""
import importlib

from ..errors import UserError
from .text import Text

RERANKERS = {"bm25": "lexical.BM25", "overlap": "lexical.Overlap", "dense": "neural.Dense",
             "cross": "neural.Cross", "learned": "learned.Learned"}


def make(name, lang, settings, text=None):
    """The reranker NAME for LANG; TEXT (tokenization and its cache) is shared when given."""
    if name not in RERANKERS:
        raise UserError(f"unknown reranker {name!r}; known: {', '.join(RERANKERS)}")
    module, cls = RERANKERS[name].split(".")
    cls = getattr(importlib.import_module(f".{module}", __name__), cls)
    return cls(lang, settings, text or Text(lang, settings.get("tokens")))
