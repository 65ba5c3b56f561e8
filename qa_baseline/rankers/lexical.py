"""Lexical rankers, with the statistics of the question's own sentence group: N = sentences in the group,
df(t) = those that contain t, idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)) (Lucene's), avgdl = their mean
length in tokens. Tokens and character units: rankers/tokens.py.

bm25     Lucene's BM25 (rankers/bm25mem.py) of the sentence for the question, each distinct token of the
         question weighted by its count (Anserini's bag-of-words query boosts a repeated token). k1, b: --k1,
         --b, default 0.9, 0.4 (Anserini's).
overlap  the share of the question's distinct words found in the sentence (`word`), the same weighted by idf
         (`word_idf`: found idf / all idf), and both for character units (`char`, `char_idf`). The row's score
         is `word_idf`, the best of the four on average over wikiqa-dev and the cmrc2018 held-out part (MRR
         .692 / .876; `word` .710 / .832, `char_idf` .682 / .876). Within a group a share ranks as the count
         does (Yang et al. 2015's Word Cnt and Wgt Word Cnt); shares make groups comparable for `learned`."""
import math
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from collections.abc import Set as AbstractSet

import numpy as np

from ..retrievers.base import bm25_params
from .base import BaseRanker, Candidates, RankerSettings
from .bm25mem import BM25Index, idf
from .tokens import Text


def group_idf(docs: Collection[Collection[str]]) -> Callable[[str], float]:
    """idf(t) with the statistics of DOCS (token collections), a function."""
    n, df = len(docs), Counter(t for d in docs for t in set(d))
    return lambda t: idf(n, df[t])


class BM25(BaseRanker):
    names, options = ("bm25",), ("tokens", "k1", "b")

    def __init__(self, lang: str, settings: RankerSettings, text: Text) -> None:
        self.text = text
        self.k1, self.b = bm25_params(settings)  # K1, B by default (retrievers/base.py)

    def params(self) -> dict[str, object]:
        return {"tokens": self.text.tokens, "k1": self.k1, "b": self.b}

    def group(self, question: str, sentences: Sequence[str]) -> list[float]:
        found = BM25Index([self.text.words(s) for s in sentences], self.k1, self.b).scores(
            Counter(self.text.words(question)).items())
        return [found.get(i, 0.0) for i in range(len(sentences))]

    def features(self, groups: Sequence[Candidates]) -> np.ndarray:
        return np.array([s for g in groups for s in self.group(g.query, g.texts)], dtype=np.float64)[:, None]


def shares(question: AbstractSet[str], docs: Sequence[AbstractSet[str]]) -> list[tuple[float, float]]:
    """(plain, idf-weighted) share of the set QUESTION found in each of DOCS (sets); 0 for an empty question."""
    idf_of = group_idf(docs)
    weight = math.fsum(map(idf_of, question))
    return [(len(question & d) / len(question) if question else 0.0,
             math.fsum(map(idf_of, question & d)) / weight if weight else 0.0) for d in docs]


class Overlap(BaseRanker):
    names, main, options = ("word", "word_idf", "char", "char_idf"), 1, ("tokens",)

    def __init__(self, lang: str, settings: RankerSettings, text: Text) -> None:
        self.text = text

    def params(self) -> dict[str, object]:
        return {"tokens": self.text.tokens}

    def features(self, groups: Sequence[Candidates]) -> np.ndarray:
        rows = []
        for g in groups:
            words = shares(set(self.text.words(g.query)), [set(self.text.words(s)) for s in g.texts])
            units = shares(self.text.units(g.query), [self.text.units(s) for s in g.texts])
            rows += [w + u for w, u in zip(words, units)]
        return np.array(rows, dtype=np.float64).reshape(-1, len(self.names))
