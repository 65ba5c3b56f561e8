"""Tokens for the lexical rankers, cached per text.

English: Anserini's default English analyzer (Lucene: Porter stemming, Lucene's English stop words), the
analyzer of the English BM25 index, called through the JVM (about 25,000 sentences/s here, so no Python
stand-in is needed). Chinese, three variants (`--tokens`), after Unicode NFKC (full-width letters and digits
as ASCII): `char` (each CJK character a token), `bigram` (overlapping bigrams of each run of CJK characters, a
lone character as itself, as Lucene's CJKAnalyzer) and `jieba` (rjieba words, qa_baseline.lucene.analysis); runs of
other letters and digits are lowercase words in `char` and `bigram`. The default, `char`, measured best on
the cmrc2018 stand-in (MRR on the --holdout 5 part, bm25 / overlap / learned: char .865 / .876 / .869,
bigram .852 / .877 / .865, jieba .847 / .846 / .880; bm25 on all 926 questions: .858, .845, .826).

Character units (the overlap ranker's `char` features), both languages, after NFKC: CJK characters one by
one; every other word (lowercased) as the character trigrams of `#word#`."""
from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable

from ..core.errors import UserError
from ..lucene import jvm
from ..lucene.analysis import jieba_tokens

ZH_TOKENS = ("char", "bigram", "jieba")
DEFAULT_ZH = "char"
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_RUNS = re.compile(f"([{CJK}]+)|([^\\W_{CJK}]+)")
_HAS_CJK = re.compile(f"[{CJK}]")


def detect_lang(questions: Iterable[str]) -> str:
    """zh when most questions hold a CJK character, else en."""
    questions = list(questions)
    return "zh" if 2 * sum(bool(_HAS_CJK.search(q)) for q in questions) > len(questions) else "en"


def runs(text: str) -> list[tuple[str, str]]:
    """(cjk, other) runs of word characters, lowercased: ('天空', None) or (None, 'nexon')."""
    return _RUNS.findall(unicodedata.normalize("NFKC", text).lower())


def chars(text: str) -> list[str]:
    return [t for cjk, other in runs(text) for t in (cjk or [other])]


def bigrams(text: str) -> list[str]:
    return [t for cjk, other in runs(text)
            for t in ([cjk[i:i + 2] for i in range(max(1, len(cjk) - 1))] if cjk else [other])]


def char_units(text: str) -> frozenset[str]:
    units: set[str] = set()
    for cjk, other in runs(text):
        padded = f"#{other}#"
        units.update(cjk or (padded[i:i + 3] for i in range(len(padded) - 2)))
    return frozenset(units)


class Text:
    """words(text): the token tuple of the language's tokenization; units(text): its set of character units.
    For English the JVM starts at the first words() call."""
    tokens: str
    words: Callable[[str], tuple[str, ...]]
    units: Callable[[str], frozenset[str]]
    _analyze: Callable[[str], list[str]] | None

    def __init__(self, lang: str, tokens: str | None = None) -> None:
        if lang == "en":
            if tokens:
                raise UserError(f"--tokens {tokens} is for Chinese; English goes through Lucene's English analyzer")
            self.tokens, split, self._analyze = "lucene-english", self._lucene, None
        else:
            self.tokens = tokens or DEFAULT_ZH
            if self.tokens not in ZH_TOKENS:
                raise UserError(f"unknown Chinese tokens {self.tokens!r} (fix: use one of {', '.join(ZH_TOKENS)})")
            split = {"char": chars, "bigram": bigrams,
                     "jieba": lambda text: jieba_tokens(unicodedata.normalize("NFKC", text))}[self.tokens]
        self.words = functools.lru_cache(maxsize=None)(lambda text: tuple(split(text)))
        self.units = functools.lru_cache(maxsize=None)(char_units)

    def _lucene(self, text: str) -> list[str]:
        if self._analyze is None:
            autoclass = jvm.start()
            analyzer = autoclass("io.anserini.analysis.DefaultEnglishAnalyzer").newDefaultInstance()
            analyze = autoclass("io.anserini.analysis.AnalyzerUtils").analyze
            self._analyze = lambda t: list(analyze(analyzer, t))
        return self._analyze(text)
