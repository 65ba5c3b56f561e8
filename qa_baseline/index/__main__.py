"""Build indexes: `python -m qa_baseline.index --corpus NAME|PATH [--analyzer A] [--dense [ENCODER] | --no-dense]`.

BM25 (Lucene, `index/lucene.py`) is always built; dense indexes (`index/dense.py`) are built for `--dense
ENCODER` and for the encoders the corpus config lists under `dense:` (unless `--no-dense`). Every build is
skipped when its index is up to date."""
import argparse
import sys

from ..analysis import ANALYZERS
from ..config import corpus_config, known_corpora
from ..errors import UserError, cli
from .layout import bm25_dir, read_manifest
from .lucene import build_bm25


def parser():
    ap = argparse.ArgumentParser(prog="python -m qa_baseline.index", description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", required=True,
                    help=f"corpus config name ({', '.join(known_corpora())}) or a corpus file; repeatable")
    ap.add_argument("--lang", choices=("en", "zh"), help="language of a corpus given as a file (default en)")
    ap.add_argument("--analyzer", choices=ANALYZERS, help="override the corpus config's analyzer")
    ap.add_argument("--threads", type=int, help="indexing threads (default: all cores)")
    ap.add_argument("--on-bad-record", choices=("stop", "skip"), default="stop",
                    help="stop at the first bad corpus record (default) or skip and count them")
    ap.add_argument("--force", action="store_true", help="rebuild even when the index is up to date")
    dense = ap.add_mutually_exclusive_group()
    dense.add_argument("--dense", nargs="?", const="", metavar="ENCODER",
                       help="also build a dense index with ENCODER (a configs/encoders name, model folder or cached "
                            "model id; without a name: the corpus config's first `dense` encoder, else the "
                            "language's default). The encoders a corpus config lists under `dense` are built too")
    dense.add_argument("--no-dense", action="store_true",
                       help="build BM25 only, not the dense indexes the corpus config lists")
    ap.add_argument("--faiss", default="auto", help="faiss index type: auto (default), flat, hnsw, ivfpq")
    ap.add_argument("--shard-size", type=int, help="passages per encoded shard (default 8192)")
    ap.add_argument("--part", metavar="I/M", help="encode only shards I, I+M, I+2M, ... (one of M machines) and "
                                                  "stop; then gather the shards and run again without --part")
    return ap


def encoders_wanted(cfg, args):
    """The dense encoders to build for this corpus: none with --no-dense; else the config's, plus --dense."""
    if args.no_dense:
        return []
    encoders = list(cfg.get("dense") or [])
    if args.dense is not None:
        wanted = args.dense or (encoders[0] if encoders else None)  # None: the language's default
        if wanted not in encoders:
            encoders.append(wanted)
    return encoders


def parse_part(text):
    if not text:
        return None
    i, _, m = text.partition("/")
    if not (i.isdigit() and m.isdigit() and int(i) < int(m)):
        raise UserError(f"--part must be I/M with 0 <= I < M, not {text!r}")
    return int(i), int(m)


@cli
def main(argv=None):
    args = parser().parse_args(argv)
    part = parse_part(args.part)
    for name in args.corpus:
        cfg = corpus_config(name, args.lang)
        build_bm25(cfg, args.analyzer, args.threads, args.on_bad_record, args.force)
        encoders = encoders_wanted(cfg, args)
        if not encoders:
            continue
        from .dense import SHARD_SIZE, build_dense  # numpy, faiss and the encoders only when needed
        passages = read_manifest(bm25_dir(cfg, args.analyzer)).get("passages")
        for encoder in encoders:
            if passages:
                print(f"dense index of {cfg['name']} with {encoder or 'the default encoder'}: {passages:,} passages "
                      f"to encode (384-d float32: {passages * 384 * 4 / 2**20:,.0f} MB of vectors; on 2 CPU cores "
                      "MiniLM encodes about 38 passages/s); --no-dense skips it", file=sys.stderr)
            build_dense(cfg, encoder, args.faiss, args.shard_size or SHARD_SIZE, args.on_bad_record, args.force,
                        part=part)


if __name__ == "__main__":
    main()
