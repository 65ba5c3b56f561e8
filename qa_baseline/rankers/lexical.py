"""Lexical rankers, with the statistics of the question's own sentence group: N = sentences in the group,
df(t) = those that contain t, idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)) (Lucene's), avgdl = their mean
length in tokens. Tokens and character units: rankers/text.py.

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

import numpy as np

from ..errors import UserError
from ..retrievers.bm25 import B, K1
from .bm25mem import BM25Index, idf


class Ranker:
    """features(groups) -> float array (lines, len(names)); score(groups) -> the `main` column; options: the
    settings it reads."""
    names, main, options = (), 0, ()

    def score(self, groups):
        return self.features(groups)[:, self.main]

    def params(self):
        return {}

    def fitted(self):
        """What fitting found (learned weights): the row's `observed`, not its settings."""
        return {}


def group_idf(docs):
    """idf(t) with the statistics of DOCS (token collections), a function."""
    n, df = len(docs), Counter(t for d in docs for t in set(d))
    return lambda t: idf(n, df[t])


class BM25(Ranker):
    names, options = ("bm25",), ("tokens", "k1", "b")

    def __init__(self, lang, settings, text):
        self.text, self.k1, self.b = text, float(settings.get("k1", K1)), float(settings.get("b", B))
        if self.k1 < 0 or not 0 <= self.b <= 1:
            raise UserError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, not k1={self.k1} b={self.b}")

    def params(self):
        return {"tokens": self.text.tokens, "k1": self.k1, "b": self.b}

    def group(self, question, sentences):
        found = BM25Index([self.text.words(s) for s in sentences], self.k1, self.b).scores(
            Counter(self.text.words(question)).items())
        return [found.get(i, 0.0) for i in range(len(sentences))]

    def features(self, groups):
        return np.array([s for g in groups for s in self.group(g.query, g.texts)], dtype=np.float64)[:, None]


def shares(question, docs):
    """(plain, idf-weighted) share of the set QUESTION found in each of DOCS (sets); 0 for an empty question."""
    idf_of = group_idf(docs)
    weight = math.fsum(map(idf_of, question))
    return [(len(question & d) / len(question) if question else 0.0,
             math.fsum(map(idf_of, question & d)) / weight if weight else 0.0) for d in docs]


class Overlap(Ranker):
    names, main, options = ("word", "word_idf", "char", "char_idf"), 1, ("tokens",)

    def __init__(self, lang, settings, text):
        self.text = text

    def params(self):
        return {"tokens": self.text.tokens}

    def features(self, groups):
        rows = []
        for g in groups:
            words = shares(set(self.text.words(g.query)), [set(self.text.words(s)) for s in g.texts])
            units = shares(self.text.units(g.query), [self.text.units(s) for s in g.texts])
            rows += [w + u for w, u in zip(words, units)]
        return np.array(rows, dtype=np.float64).reshape(-1, len(self.names))
