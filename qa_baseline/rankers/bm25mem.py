"""BM25 in memory over token lists, as Lucene (>= 8) and Anserini score it: the sentence ranker's groups
(rankers/lexical.py) and the ad-hoc search over Data Search metadata (collection/metadata_search.py).

N = documents, df(t) = those that contain t, idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)), avgdl = their mean
length in tokens (exact: Lucene stores a length in one byte, exact up to 40 tokens). A query is a sequence of
(term, weight) pairs; a document's score sums, in the query's order, over the pairs whose term it holds,
weight * idf(t) * tf / (tf + k1 * (1 - b + b * dl / avgdl)) (no (k1 + 1) factor). A repeated query term counts
each time, as in Anserini's bag-of-words query: once with its count as weight (`Counter(tokens).items()`) or
once per occurrence (`(t, 1) for t in tokens`); the two sums agree up to rounding."""
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence


def idf(n: int, df: int) -> float:
    """Lucene's BM25 idf of a term found in DF of N documents."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


class BM25Index:
    """An in-memory BM25 index of DOCS (token lists), documents numbered from 0 in order."""

    def __init__(self, docs: Iterable[Sequence[str]], k1: float, b: float) -> None:
        self.tf = [Counter(d) for d in docs]
        lengths = [sum(counts.values()) for counts in self.tf]
        n = len(lengths)
        avgdl = (sum(lengths) / n if n else 0.0) or 1.0
        self.norm = [k1 * (1 - b + b * dl / avgdl) for dl in lengths]
        df = Counter(t for counts in self.tf for t in counts)
        self.idf = {t: idf(n, d) for t, d in df.items()}
        self.postings: dict[str, list[int]] = defaultdict(list)
        for k, counts in enumerate(self.tf):
            for t in counts:
                self.postings[t].append(k)

    def __len__(self) -> int:
        return len(self.tf)

    def scores(self, query: Iterable[tuple[str, float]]) -> dict[int, float]:
        """{document: score} of the documents that hold a term of QUERY, (term, weight) pairs."""
        out: dict[int, float] = defaultdict(float)
        for t, weight in query:
            w = self.idf.get(t)
            if w is None:
                continue
            for d in self.postings[t]:
                tf = self.tf[d][t]
                out[d] += weight * w * tf / (tf + self.norm[d])
        return out
