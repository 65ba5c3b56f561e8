"""Rankers of candidate texts for a query: each scores every text of a `Candidates` group (a question and
its candidate sentences in dbqa; a question and candidate predicates or answer sentences elsewhere).

A ranker is a class taking (lang, settings, text) (settings: k1, b, encoder, tokens, features; text: a shared
rankers.tokens.Text) with `names` (its feature columns), `features(groups)` -> float array (texts, columns),
`score(groups)` -> one float per text, `params()` -> what decides its scores, `options` -> the settings it
reads; the learned one also has `fit(groups)` (groups with labels). Texts are taken group by group, in order.
The interface is the `Ranker` protocol of rankers/base.py, with `Candidates` and the settings.

To add one, write the class in a module here and list it in RANKERS (name -> "module:Class",
qa_baseline/core/registry.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.registry import load
from .tokens import Text

if TYPE_CHECKING:
    from .base import Ranker, RankerSettings

RANKERS = {"bm25": "lexical:BM25", "overlap": "lexical:Overlap", "dense": "neural:Dense",
           "cross": "neural:Cross", "learned": "learned:Learned"}


def make(name: str, lang: str, settings: RankerSettings, text: Text | None = None) -> Ranker:
    """The ranker NAME for LANG; TEXT (tokenization and its cache) is shared when given."""
    return load(RANKERS, name, "ranker", __name__)(lang, settings, text or Text(lang, settings.get("tokens")))
