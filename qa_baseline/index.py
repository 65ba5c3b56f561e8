"""Build indexes: `python -m qa_baseline.index --corpus NAME|PATH [--analyzer A] [--dense [ENCODER] | --no-dense]`
or the KB store of a KBQA knowledge base: `python -m qa_baseline.index --kb FILE [--mention2id FILE]`,
or the parse store of a corpus (answers/parse_store.py): `python -m qa_baseline.index --corpus C --parse [--force]`.

BM25 (Lucene, `indexes/lucene.py`) is always built; dense indexes (`indexes/dense.py`) are built for `--dense
ENCODER` and for the encoders the corpus config lists under `dense:` (unless `--no-dense`). Every build is
skipped when its index is up to date. `--ray [auto|ADDRESS]` builds on a Ray cluster (the `scale` extra): BM25
in parallel tasks merged into one index (`indexes/merge.py`), dense vectors by an actor pool
(`indexes/distributed.py`)."""
from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from .answers.candidates import Parser
from .answers.parse_store import fill_store
from .core.config import DEFAULT_ANALYZER, CorpusConfig, corpus_config, known_corpora
from .core.errors import UserError, cli
from .core.hints import prog
from .indexes.dense import SHARD_SIZE, build_dense
from .indexes.kb import build_kb
from .indexes.lucene import build_bm25
from .lucene.analysis import ANALYZERS


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog("index"), description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", default=[],
                    help=f"corpus config name ({', '.join(known_corpora())}) or a corpus file; repeatable")
    ap.add_argument("--kb", metavar="FILE", help="build the KB store of this KBQA knowledge base (`subject ||| "
                                                 "predicate ||| object` lines; plain, .gz or .bz2)")
    ap.add_argument("--mention2id", metavar="FILE", help="with --kb: the alias file (`mention ||| subject` lines)")
    ap.add_argument("--name", metavar="NAME",
                    help="the name of the index of a corpus FILE or of the KB store (default: the file's name plus a "
                         "short checksum of its path, e.g. kb-3f2a9c1d); a run with the same file finds it. A build "
                         "never replaces an index of another file")
    ap.add_argument("--lang", choices=tuple(DEFAULT_ANALYZER), help="language of a corpus given as a file (default en)")
    ap.add_argument("--analyzer", choices=ANALYZERS, help="override the corpus config's analyzer")
    ap.add_argument("--threads", type=int, help="BM25 indexing threads (default: the cores less one, which reads "
                                                "the corpus)")
    ap.add_argument("--on-bad-record", choices=("stop", "skip"), default="stop",
                    help="stop at the first bad corpus record or KB line (default) or skip and count them")
    ap.add_argument("--force", action="store_true", help="rebuild even when the index is up to date")
    ap.add_argument("--parse", action="store_true",
                    help="fill the corpus's parse store instead of building indexes: every passage parsed by the "
                         "answer extraction's spaCy/GiNZA model (runs of openqa-en and qac-1/2/3 then load the "
                         "parses; they also fill it as they go). With --force: emptied first")
    dense = ap.add_mutually_exclusive_group()
    dense.add_argument("--dense", nargs="?", const="", metavar="ENCODER",
                       help="also build a dense index with ENCODER (an encoder config name, model folder or cached "
                            "model id; without a name: the corpus config's first `dense` encoder, else the "
                            "language's default). The encoders a corpus config lists under `dense` are built too")
    dense.add_argument("--no-dense", action="store_true",
                       help="build BM25 only, not the dense indexes the corpus config lists")
    ap.add_argument("--faiss", default="auto", choices=("auto", "flat", "hnsw", "ivfpq"),
                    help="faiss index type (default auto: by size)")
    ap.add_argument("--shard-size", type=int, help="passages per encoded shard (default 8192)")
    ap.add_argument("--ray", nargs="?", const="auto", metavar="auto|ADDRESS",
                    help="build on a Ray cluster (needs pip install '.[scale]'): BM25 in parallel tasks merged into one "
                         "index, dense vectors by a pool of encoding actors (one per GPU, else per --ray-cpus CPUs). "
                         "auto (default): the cluster in RAY_ADDRESS or started by `ray start` here, else a local one")
    ap.add_argument("--ray-actors", type=int, metavar="N",
                    help="with --ray: encoding actors (default: one per GPU of the cluster, else one per --ray-cpus CPUs)")
    ap.add_argument("--ray-cpus", type=int, default=1, metavar="C",
                    help="with --ray: CPUs (threads) per CPU encoding actor and per BM25 indexing task (default 1); "
                         "--threads sets the number of BM25 parts (default: the cluster's CPUs / C)")
    return ap


def encoders_wanted(cfg: CorpusConfig, args: argparse.Namespace) -> list[str | None]:
    """The dense encoders to build for this corpus: none with --no-dense; else the config's, plus --dense."""
    if args.no_dense:
        return []
    encoders: list[str | None] = list(cfg.dense)
    if args.dense is not None:
        wanted = args.dense or (encoders[0] if encoders else None)  # None: the language's default
        if wanted not in encoders:
            encoders.append(wanted)
    return encoders


def on_ray(args: argparse.Namespace) -> tuple[int | None, Callable[[str, str, str, int], int] | None,
                                             Callable[..., int] | None]:
    """(BM25 parts, indexer, encode) for lucene.build_bm25 and dense.build_dense: on the Ray cluster of --ray,
    else (--threads, None, None): in this process."""
    if not args.ray:
        if args.ray_actors or args.ray_cpus != 1:
            raise UserError("--ray-actors and --ray-cpus go with --ray")
        return args.threads, None, None
    try:
        from .indexes import distributed, merge  # defers ray (the scale extra) to --ray
    except ImportError as e:
        raise UserError(f"--ray needs Ray ({e.name} is missing): pip install '.[scale]'") from None
    ray = distributed.connect(args.ray)
    parts = args.threads or max(1, int(ray.cluster_resources().get("CPU", 1)) // max(1, args.ray_cpus))
    return (parts, merge.ray_indexer(args.ray, args.ray_cpus),
            distributed.ray_encoder(args.ray, args.ray_actors, args.ray_cpus))


def fill_parse_stores(args: argparse.Namespace) -> None:
    """--parse: fill the parse store of each --corpus (answers/parse_store.py), and build nothing else."""
    unused = [o for o, v in (("--ray", args.ray), ("--dense", args.dense is not None), ("--no-dense", args.no_dense),
                             ("--analyzer", args.analyzer), ("--kb", args.kb)) if v]
    if not args.corpus:
        raise UserError("--parse goes with --corpus NAME|PATH (the corpus whose passages to parse)")
    if unused:
        raise UserError(f"{unused[0]} does not go with --parse (it fills the parse store only)")
    for name in args.corpus:
        fill_store(corpus_config(name, args.lang, index_name=args.name), Parser, args.force, args.on_bad_record)


@cli
def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if not args.corpus and not args.kb:
        raise UserError("give --corpus NAME|PATH (a passage index) or --kb FILE (a KB store)")
    if args.mention2id and not args.kb:
        raise UserError("--mention2id goes with --kb FILE")
    if args.name is not None and len(args.corpus) + bool(args.kb) != 1:
        raise UserError("--name names one index: give it with one --corpus FILE or with --kb FILE alone")
    if args.threads is not None and args.threads < 1:
        raise UserError(f"--threads must be at least 1, not {args.threads}")
    if args.shard_size is not None and args.shard_size < 1:
        raise UserError(f"--shard-size must be at least 1, not {args.shard_size}")
    if args.kb and not args.corpus:
        unused = [o for o, v in (("--ray", args.ray), ("--dense", args.dense is not None), ("--analyzer", args.analyzer),
                                 ("--lang", args.lang), ("--faiss", args.faiss != "auto")) if v]
        if unused:
            raise UserError(f"{unused[0]} goes with --corpus (a passage index), not with --kb alone")
    if args.kb:
        build_kb(args.kb, args.mention2id, args.on_bad_record, args.force, name=args.name)
    if args.parse:
        return fill_parse_stores(args)
    threads, indexer, encode = on_ray(args) if args.corpus else (None, None, None)
    for name in args.corpus:
        cfg = corpus_config(name, args.lang, index_name=args.name)
        build_bm25(cfg, args.analyzer, threads, args.on_bad_record, args.force, indexer=indexer)
        encoders = encoders_wanted(cfg, args)
        if not encoders:
            continue
        for encoder in encoders:
            build_dense(cfg, encoder, args.faiss, args.shard_size or SHARD_SIZE, args.on_bad_record, args.force,
                        encode=encode)


if __name__ == "__main__":
    main()
