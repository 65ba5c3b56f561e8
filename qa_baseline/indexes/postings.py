"""A BM25 index's postings as numpy arrays (`postings.npz` beside the Lucene files), for BM25.top_scores: every
passage a query's terms occur in scored at once, with Lucene's own arithmetic, so a fresh process needs no JIT
warm-up (Lucene's first pass in a new JVM took 2-3x its later ones: docs/results.md).

Written by the index build (indexes/lucene.py) for corpora of at most MAX_PASSAGES passages: the indexed texts
are analysed again by the searcher's own Lucene analyzer (the one queries go through), and the arrays are kept
only when their statistics equal the index's (terms, postings, term occurrences, documents, each passage's
length norm): otherwise the build says so and top_scores keeps searching through Lucene. Larger corpora keep
Lucene's pruned search: scoring every matching passage was measured on shared-en (95,675 passages) only, and
the arrays of millions of passages would take the memory the scale bench keeps flat.

Scores equal Lucene's BM25Similarity (9.x) bit for bit: per posting, in float32, idf = (float) ln(1 + (N - df
+ 0.5) / (df + 0.5)), weight = boost * idf (boost: the term's count in the query, Anserini's
BagOfWordsQueryGenerator), score = weight - weight / (1 + freq * cache[norm]) with cache[i] = 1 / (k1 * ((1 -
b) + b * LENGTH_TABLE[i] / avgdl)); a passage's score is the sum of its terms' in double precision, cast to
float. A term's score has 24 significant bits, so the double sum is exact, in any order (Lucene's, or ours:
a question's terms summed once for its four options), while the terms' scores span less than 2^29; the 5,464 MCQA
option scores of shared-en equal Lucene's (bench/mcqa_speed.py checks them; tests/test_postings.py)."""
from __future__ import annotations

import functools
import itertools
import math
import os
import sys
from array import array
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np


FILE = "postings.npz"
MAX_PASSAGES = 250_000  # larger corpora keep Lucene's pruned search (see above)
FIELD = "contents"  # io.anserini.index.Constants.CONTENTS
BLOCK, SEPARATOR = 500, "qzxpassagebreakqzx"  # texts per analysing task, and the word between them


@functools.cache
def _java() -> tuple[Any, Any]:
    """Anserini's AnalyzerUtils and java.lang.String."""
    from jnius import autoclass
    return autoclass("io.anserini.analysis.AnalyzerUtils"), autoclass("java.lang.String")


def tokens(analyzer: Any, text: str) -> list[str]:
    """TEXT's terms as Lucene's ANALYZER makes them (Anserini's AnalyzerUtils.analyze: what its query generator
    counts), read in one call: the Java list's text `[a, b, c]` (a term never holds a space). Only static
    methods are called: pyjnius binds an instance method to one object at a time, so two threads calling one
    on different objects fail (a NullPointerException), and `analysed` runs on threads."""
    utils, string = _java()
    listed = string.valueOf(utils.analyze(analyzer, text))[1:-1]
    return listed.split(", ") if listed else []


def _block(analyzer: Any, texts: list[str], joined: bool) -> list[list[str]]:
    """tokens of each of TEXTS; JOINED: in one call, joined by the word SEPARATOR (half the time of a call per
    text: the calls, not the analysis, took the rest), text by text where the terms do not hold exactly one
    SEPARATOR between texts (a text that holds the word, an analyzer that changes it)."""
    if joined:
        terms = tokens(analyzer, f" {SEPARATOR} ".join(texts))
        cuts = [i for i, t in enumerate(terms) if t == SEPARATOR]
        if len(cuts) == len(texts) - 1:
            return [terms[a + 1:b] for a, b in zip([-1, *cuts], [*cuts, len(terms)])]
    return [tokens(analyzer, t) for t in texts]


def analysed(analyzer: Any, texts: Iterable[str], joined: bool = True,
             threads: int = os.cpu_count() or 1) -> Iterator[list[str]]:
    """tokens(ANALYZER, text) of each of TEXTS, in order, analysed in blocks of BLOCK texts (_block) on
    THREADS threads (pyjnius leaves the GIL while Java runs: 1.6x on 2 cores), a few blocks ahead of the
    reader. Joined, a block's texts may analyse otherwise than alone where the analyzer looks across words
    (Japanese: Kuromoji's lattice); write compares the statistics with the index's."""
    def task(block: list[str]) -> list[list[str]]:
        from jnius import detach
        try:
            return _block(analyzer, block, joined)
        finally:
            detach()  # the pool's threads end with the generator: the JVM forgets them

    texts = iter(texts)
    blocks = iter(lambda: list(itertools.islice(texts, BLOCK)), [])
    _java()  # looked up once, before the threads
    with ThreadPoolExecutor(threads) as pool:
        ahead = deque(pool.submit(task, b) for b in itertools.islice(blocks, 2 * threads))
        while ahead:
            done = ahead.popleft().result()
            ahead.extend(pool.submit(task, b) for b in itertools.islice(blocks, 1))
            yield from done


def _index_stats(lucene_dir: str) -> tuple[tuple[int, ...], np.ndarray] | None:
    """The Lucene index's (terms, postings, occurrences, documents with terms, passages) of FIELD and how many
    passages have each length norm; None when it is not one segment (builds end in one: indexes/lucene.py)."""
    from jnius import autoclass
    reader = autoclass("org.apache.lucene.index.DirectoryReader").open(
        autoclass("org.apache.lucene.store.MMapDirectory")(autoclass("java.io.File")(lucene_dir).toPath()))
    try:
        if reader.leaves().size() != 1:
            return None
        leaf = reader.leaves().get(0).reader()
        field = leaf.terms(FIELD)
        norms, values, no_more = np.zeros(256, np.int64), leaf.getNormValues(FIELD), 2147483647
        while values.nextDoc() != no_more:
            norms[values.longValue() & 0xFF] += 1
        return (field.size(), field.getSumDocFreq(), field.getSumTotalTermFreq(), field.getDocCount(),
                reader.maxDoc()), norms
    finally:
        reader.close()


def _arrays(analyzer: Any, texts: Iterable[str], joined: bool) -> tuple[dict[str, Any], tuple[int, ...]]:
    """FILE's arrays of TEXTS (analysed JOINED or not) but its statistics, and what _index_stats counts."""
    from jnius import autoclass
    vocab: defaultdict[str, int] = defaultdict(itertools.count().__next__)  # a term's number: its first place
    terms, lengths = array("i"), array("i")
    for ts in analysed(analyzer, texts, joined):
        terms.extend(map(vocab.__getitem__, ts))
        lengths.append(len(ts))
    n = len(lengths)
    # a key per term occurrence, term * passages + passage, sorted: a posting per run of one key
    keys = np.frombuffer(terms, np.int32).astype(np.int64) * n
    keys += np.repeat(np.arange(n, dtype=np.int64), np.frombuffer(lengths, np.int32))
    keys.sort()
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    freqs, keys = np.diff(np.append(starts, len(keys))).astype(np.int32), keys[starts]
    small_float = autoclass("org.apache.lucene.util.SmallFloat")
    encode = {int(x): small_float.intToByte4(int(x)) & 0xFF for x in np.unique(lengths)}
    words = "\n".join(vocab).encode()  # in the order of their numbers
    arrays: dict[str, Any] = {
        "words": np.frombuffer(words, np.uint8), "docs": (keys % n).astype(np.int32),
        "offsets": np.searchsorted(keys // n, np.arange(len(vocab) + 1)), "freqs": freqs,
        "norms": np.array([encode[x] for x in lengths], np.uint8),
        "length_table": np.array([small_float.byte4ToInt(i - 256 if i > 127 else i) for i in range(256)], np.float32)}
    return arrays, (len(vocab), len(starts), len(terms), int(np.count_nonzero(np.frombuffer(lengths, np.int32))), n)


def write(lucene_dir: str, texts: Callable[[], Iterable[str]], analyzer: Any, out: str) -> bool:
    """Write OUT (FILE) of the Lucene index at LUCENE_DIR from the TEXTS() it indexed (field FIELD, any order)
    as ANALYZER analyses them; False (nothing written, the reason on stderr) when the result is not the
    index's. Texts are analysed joined in blocks, and one at a time when those statistics differ."""
    index = _index_stats(lucene_dir)
    if index is None:
        print(f"{FILE} not written: the index is not one segment", file=sys.stderr)
        return False
    for joined in (True, False):
        arrays, ours = _arrays(analyzer, texts(), joined)
        norms = arrays["norms"]
        if ours == index[0] and np.array_equal(index[1], np.bincount(norms[norms > 0], minlength=256)):
            with open(out, "wb") as f:  # inside the build's folder, which is put in place whole
                np.savez(f, allow_pickle=False, **arrays, doc_count=ours[3], sum_ttf=ours[2])
            return True
    print(f"{FILE} not written: analysing the passages again gave other statistics than the index's (terms, "
          f"postings, occurrences, documents, passages: {ours} against {index[0]}, or other length norms); "
          "searches go through Lucene", file=sys.stderr)
    return False


class Postings:
    """The arrays of FILE with BM25's K1 and B: top_scores of analysed queries."""

    def __init__(self, path: str, k1: float, b: float) -> None:
        with np.load(path) as z:
            words = z["words"].tobytes().decode().split("\n")
            self.offsets, self.docs, norms = z["offsets"], z["docs"], z["norms"]
            doc_count, sum_ttf = int(z["doc_count"]), int(z["sum_ttf"])
            f32 = np.float32
            avgdl = f32(sum_ttf / doc_count)
            cache = f32(1) / (f32(k1) * ((f32(1) - f32(b)) + f32(b) * z["length_table"] / avgdl))
            self.tf_norm = z["freqs"].astype(f32) * cache[norms][self.docs]  # freq * normInverse, per posting
        self.vocab = {w: i for i, w in enumerate(words)}
        df = np.diff(self.offsets)
        self.idf = np.array([math.log(1 + (doc_count - d + 0.5) / (d + 0.5)) for d in df.tolist()]).astype(f32)
        self.unit = np.repeat(self.idf, df)  # each posting's score at boost 1
        self.unit -= self.unit / (f32(1) + self.tf_norm)
        self.passages = len(norms)

    def counts(self, terms: Sequence[str]) -> dict[int, int]:
        """{term number: its count} of a query's TERMS in the index (others match nothing)."""
        out: dict[int, int] = {}
        for t in terms:
            if (i := self.vocab.get(t)) is not None:
                out[i] = out.get(i, 0) + 1
        return out

    def size(self, counts: dict[int, int]) -> int:
        """The postings COUNTS' terms have."""
        return sum(int(self.offsets[i + 1] - self.offsets[i]) for i in counts)

    def sums(self, counts: dict[int, int]) -> np.ndarray:
        """Per passage, the double sum of the float32 scores of COUNTS' terms (term number: boost)."""
        if not counts:
            return np.zeros(self.passages)
        spans = [slice(self.offsets[i], self.offsets[i + 1]) for i in counts]
        parts = []
        for s, (i, boost) in zip(spans, counts.items()):
            if boost == 1:
                parts.append(self.unit[s])
            else:
                weight = np.float32(boost) * self.idf[i]
                parts.append(weight - weight / (np.float32(1) + self.tf_norm[s]))
        return np.bincount(np.concatenate([self.docs[s] for s in spans]), np.concatenate(parts),
                           minlength=self.passages)

    def top_scores(self, queries: Sequence[Sequence[str]], k: int) -> list[list[float]]:
        """Per query (its analysed terms), the float scores of its best K passages, best first, as Lucene's
        IndexSearcher gives them. Consecutive queries that share most of their postings (an MCQA question with
        each of its options) are grouped: the terms all of them hold with the same count are summed once."""
        groups: list[tuple[dict[int, int], list[dict[int, int]]]] = []  # (the terms shared, the queries)
        for c in map(self.counts, queries):
            if groups:
                shared = {i: n for i, n in groups[-1][0].items() if c.get(i) == n}
                if 2 * self.size(shared) >= self.size(c):
                    groups[-1][1].append(c)
                    groups[-1] = (shared, groups[-1][1])
                    continue
            groups.append((c, [c]))
        out = []
        for shared, members in groups:
            base = self.sums(shared) if len(members) > 1 else None
            for c in members:
                total = self.sums({i: n for i, n in c.items() if i not in shared} if base is not None else c)
                if base is not None:
                    total += base
                top = []
                for _ in range(k):
                    j = int(total.argmax())
                    if total[j] <= 0:
                        break
                    top.append(float(np.float32(total[j])))
                    total[j] = 0
                out.append(top)
        return out


def load(index_dir: str, k1: float, b: float) -> Postings | None:
    """The Postings of the BM25 index at INDEX_DIR, or None when it has none (built before them, too large, or
    its analysis differed)."""
    path = os.path.join(index_dir, FILE)
    return Postings(path, k1, b) if os.path.isfile(path) else None
