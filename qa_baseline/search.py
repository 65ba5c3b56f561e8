"""Search a corpus and write a TREC run file: `python -m qa_baseline.search --corpus NAME|PATH --topics FILE
--output RUN [--retriever bm25|dense|hybrid] [--k 1000]`, or print the hits of one `--query TEXT`.

Topics: one `qid<TAB>query` per line (UTF-8). Run lines: `qid Q0 docid rank score tag` (tag = --run-tag, default the retriever)."""
import argparse
from collections.abc import Sequence

from .core.config import DEFAULT_ANALYZER, corpus_config, known_corpora
from .core.errors import UserError, at, cli
from .core.hints import prog
from .core.settings import add_options, make_settings
from .core.textio import text_lines
from .retrievers import open_retriever, write_trec_run
from .retrievers.base import RetrieverSettings


def read_topics(path: str) -> tuple[list[str], list[str]]:
    qids: list[str] = []
    queries: list[str] = []
    seen: dict[str, int] = {}
    for n, line in text_lines(path):
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        qid, tab, query = line.partition("\t")
        if not tab or not qid.strip():
            raise at(path, n, "expected `qid<TAB>query`")
        if qid in seen:
            raise at(path, n, f"duplicate qid {qid!r} (first on line {seen[qid]})")
        seen[qid] = n
        qids.append(qid)
        queries.append(query)
    if not qids:
        raise UserError(f"{path}: no topics")
    return qids, queries


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog("search"), description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True, help=f"corpus config ({', '.join(known_corpora())}) or corpus file")
    ap.add_argument("--lang", choices=tuple(DEFAULT_ANALYZER), help="language of a corpus given as a file")
    add_options(ap, RetrieverSettings, exclude=("corpus", "trace"))
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--topics", help="TSV file of qid<TAB>query lines")
    what.add_argument("--query", help="one query: print its hits")
    ap.add_argument("--output", help="TREC run file to write (with --topics)")
    ap.add_argument("--k", type=int, default=1000, help="hits per query (default 1000)")
    ap.add_argument("--run-tag", help="the run's name in the last column of the run file (default: the retriever)")
    return ap


@cli
def main(argv: Sequence[str] | None = None) -> None:
    ap = parser()
    args = ap.parse_args(argv)
    if args.topics and not args.output:
        ap.error("--topics needs --output")
    if args.k < 1:
        raise UserError(f"--k must be at least 1, not {args.k}")
    settings = make_settings(RetrieverSettings, {}, vars(args))
    retriever = open_retriever(settings.retriever, corpus_config(args.corpus, args.lang), settings.retriever_params())
    if args.query is not None:
        for rank, (docid, score) in enumerate(retriever.search([args.query], args.k)[0], 1):
            print(f"{rank}\t{docid}\t{score:.6f}\t{retriever.title(docid)}")
        return
    qids, queries = read_topics(args.topics)
    write_trec_run(args.output, qids, retriever.search(queries, args.k), args.run_tag or settings.retriever)


if __name__ == "__main__":
    main()
