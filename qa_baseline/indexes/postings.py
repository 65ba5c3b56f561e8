"""A BM25 index's postings as numpy arrays (`postings.npz` beside the Lucene files), for BM25.top_scores: every
passage a query's terms occur in scored at once, with Lucene's own arithmetic, so a fresh process needs no JIT
warm-up (Lucene's first pass in a new JVM took 2-3x its later ones: docs/results.md).

Written by the index build (indexes/lucene.py) for corpora of at most MAX_PASSAGES passages, from the postings
Lucene wrote: lucene/bulk.py reads the one segment's terms, postings and length norms in a few JNI calls, so the
arrays are the index's own (an index of several segments gets none: top_scores searches through Lucene). Larger
corpora keep Lucene's pruned search: scoring every matching passage was measured on shared-en (95,675 passages)
only, and the arrays of millions of passages would take the memory the scale bench keeps flat. The file is part
of the index: `check` reads it whole (each member's CRC-32) where the index is opened (retrievers/bm25.py).

Scores equal Lucene's BM25Similarity (9.x) bit for bit: per posting, in float32, idf = (float) ln(1 + (N - df
+ 0.5) / (df + 0.5)), weight = boost * idf (boost: the term's count in the query, Anserini's
BagOfWordsQueryGenerator), score = weight - weight / (1 + freq * cache[norm]) with cache[i] = 1 / (k1 * ((1 -
b) + b * LENGTH_TABLE[i] / avgdl)); a passage's score is the sum of its terms' in double precision, cast to
float. A term's score has 24 significant bits, so the double sum is exact, in any order (Lucene's, or ours:
a question's terms summed once for its four options), while the terms' scores span less than 2^29; the 5,464 MCQA
option scores of shared-en equal Lucene's (bench/mcqa_speed.py checks them; tests/unit/indexes/test_postings.py)."""
from __future__ import annotations

import contextlib
import functools
import math
import os
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from typing import IO, Any

import numpy as np

from ..core.fileio import atomic_write
from ..lucene import jvm
from ..lucene.bulk import read_field

FILE = "postings.npz"
MAX_PASSAGES = 250_000  # larger corpora keep Lucene's pruned search (see above)
FIELD = "contents"  # io.anserini.index.Constants.CONTENTS


@functools.cache
def _java() -> tuple[Any, Any]:
    """Anserini's AnalyzerUtils and java.lang.String."""
    autoclass = jvm.start()
    return autoclass("io.anserini.analysis.AnalyzerUtils"), autoclass("java.lang.String")


def tokens(analyzer: Any, text: str) -> list[str]:
    """TEXT's terms as Lucene's ANALYZER makes them (Anserini's AnalyzerUtils.analyze: what its query generator
    counts), read in one call: the Java list's text `[a, b, c]` (a term never holds a space). Only static
    methods are called: pyjnius binds an instance method to one object at a time, so two threads calling one
    on different objects fail (a NullPointerException)."""
    utils, string = _java()
    listed = string.valueOf(utils.analyze(analyzer, text))[1:-1]
    return listed.split(", ") if listed else []


def write(lucene_dir: str, out: str) -> bool:
    """Write OUT (FILE) of the Lucene index at LUCENE_DIR from its postings (field FIELD); False (nothing written,
    the reason on stderr) when the index is not one segment. np.savez's layout (a zip of .npy files, stored), the
    postings streamed from the JVM into it (lucene.bulk), so that the build never holds them whole: the
    documents into their member, the frequencies into a spool file until theirs."""
    with read_field(lucene_dir, FIELD) as field:
        if field is None:
            print(f"{FILE} not written: the index is not one segment", file=sys.stderr)
            return False
        small_float = jvm.start()("org.apache.lucene.util.SmallFloat")
        length_table = np.array([small_float.byte4ToInt(i - 256 if i > 127 else i) for i in range(256)], np.float32)
        postings = int(field.dfs.sum(dtype=np.int64))
        with atomic_write(out, "wb") as f, zipfile.ZipFile(f, "w") as z, tempfile.TemporaryFile(dir=os.path.dirname(
                os.path.abspath(out))) as spool:
            with _member(z, "docs", np.int32, postings) as docs:
                for doc_bytes, freq_bytes in field.postings():
                    docs.write(doc_bytes)
                    spool.write(freq_bytes)
            spool.seek(0)
            with _member(z, "freqs", np.int32, postings) as freqs:
                shutil.copyfileobj(spool, freqs)
            arrays = {"words": np.frombuffer(field.words[:-1], np.uint8),  # the terms joined by newlines
                      "offsets": np.concatenate([[0], np.cumsum(field.dfs, dtype=np.int64)]), "norms": field.norms,
                      "length_table": length_table, "doc_count": np.int64(field.doc_count),
                      "sum_ttf": np.int64(field.sum_ttf)}
            for name, array in arrays.items():
                with z.open(f"{name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)
    return True


@contextlib.contextmanager
def _member(z: zipfile.ZipFile, name: str, dtype: type, n: int) -> Iterator[IO[bytes]]:
    """The member NAME.npy of Z, open for the bytes of N values of DTYPE (its .npy header written)."""
    with z.open(f"{name}.npy", "w", force_zip64=True) as member:
        np.lib.format.write_array_header_1_0(member, {"descr": np.dtype(dtype).str, "fortran_order": False,
                                                      "shape": (n,)})
        yield member


def check(index_dir: str) -> None:
    """Read the index's FILE whole, when it has one: a zipfile.BadZipFile (or OSError) when a member's CRC-32 or
    the archive's structure is wrong (a damaged or truncated file)."""
    path = os.path.join(index_dir, FILE)
    if os.path.isfile(path):
        with zipfile.ZipFile(path) as z:
            if (bad := z.testzip()) is not None:
                raise zipfile.BadZipFile(f"Bad CRC-32 for file {bad!r} of {FILE}")


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
