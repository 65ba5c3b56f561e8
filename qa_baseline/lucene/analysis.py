"""Text analysis that happens in Python, before Lucene: Chinese word segmentation for the `jieba` analyzer.

The other analyzers run inside Lucene: `default` is Anserini's English analyzer (Porter stemming, Lucene's
English stop words), `cjk` is Lucene's CJKAnalyzer (overlapping character bigrams), `ja` is Lucene's
JapaneseAnalyzer (Kuromoji morphological analysis, base forms, Japanese stop words and stop tags)."""
import re

from ..core.hints import requires

ANALYZERS = ("default", "cjk", "jieba", "ja")
LANGUAGE = {"cjk": "zh", "ja": "ja"}  # analyzers Anserini selects by language code (AnalyzerMap)
_WORD = re.compile(r"\w", re.UNICODE)


def jieba_tokens(text: str) -> list[str]:
    """rjieba (Rust port of jieba, same segmentation) words, lowercased, punctuation-only tokens dropped."""
    rjieba = requires("retrieval", "rjieba")
    return [t.lower() for t in rjieba.cut(text) if _WORD.search(t)]


def pretokenize(text: str, analyzer: str) -> str:
    """The text as Lucene should see it: whitespace-joined words for `jieba`, unchanged otherwise."""
    return " ".join(jieba_tokens(text)) if analyzer == "jieba" else text
