"""Rankers of candidate texts for a query: each scores every text of a `Candidates` group (a question and
its candidate sentences in dbqa; a question and candidate predicates or answer sentences elsewhere).

A ranker is a class taking (lang, settings, text) (settings: k1, b, encoder, tokens, features; text: a shared
rankers.text.Text) with `names` (its feature columns), `features(groups)` -> float array (texts, columns),
`score(groups)` -> one float per text, `params()` -> what decides its scores, `options` -> the settings it
reads; the learned one also has `fit(groups)` (groups with labels). Texts are taken group by group, in order.

To add one, write the class in a module here and list it in RANKERS."""
import importlib
from collections import namedtuple

from ..errors import UserError
from .text import Text

# labels: 1/0 per text, or None; line: where the group starts in its file (or None)
Candidates = namedtuple("Candidates", "query texts labels line")
RANKERS = {"bm25": "lexical.BM25", "overlap": "lexical.Overlap", "dense": "neural.Dense",
           "cross": "neural.Cross", "learned": "learned.Learned"}


def make(name, lang, settings, text=None):
    """The ranker NAME for LANG; TEXT (tokenization and its cache) is shared when given."""
    if name not in RANKERS:
        raise UserError(f"unknown ranker {name!r}; known: {', '.join(RANKERS)}")
    module, cls = RANKERS[name].split(".")
    cls = getattr(importlib.import_module(f".{module}", __name__), cls)
    return cls(lang, settings, text or Text(lang, settings.get("tokens")))
