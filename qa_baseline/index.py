"""Build indexes: `python -m qa_baseline.index --corpus NAME|PATH [--lang en|zh] [--analyzer ...]`.

The BM25 index is a Lucene index built by Anserini's IndexCollection (in-process, through pyjnius):
passages are written as JSON lines into one shard file per thread (Anserini parallelises per input file),
indexed into a temporary folder, and moved into `indexes/CORPUS/bm25-ANALYZER/` only when complete, with
`manifest.json` beside the Lucene files. A second run on unchanged input and settings does nothing."""
import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time

from tqdm import tqdm

from . import ROOT, jvm
from .analysis import ANALYZERS, pretokenize
from .config import corpus_config, known_corpora
from .corpus import read_corpus
from .errors import Problems, UserError, cli
from .fileio import UMASK, read_json, replace_dir, sha256_file, write_json


def indexes_root():
    """Where indexes live: $QA_BASELINE_INDEXES, else indexes/ in the project."""
    return os.environ.get("QA_BASELINE_INDEXES") or os.path.join(ROOT, "indexes")


FORMAT = 1  # bump when the indexed text of a passage changes


def bm25_dir(cfg, analyzer=None, root=None):
    return os.path.join(root or indexes_root(), cfg["name"], f"bm25-{analyzer or cfg['analyzer']}")


def fingerprint(cfg, **settings):
    """What decides an index's contents: source files and checksums, reader settings, indexed-text format
    (FORMAT: bump it when a reader's output or the indexed text changes) and SETTINGS (analyzer and Anserini
    version; encoder and shard size). Returns (hex digest, sources with checksums)."""
    sources = [{**{k: v for k, v in s.items() if k != "path"}, "sha256": sha256_file(s["file"])}
               for s in cfg["sources"]]
    spec = {"format": FORMAT, "sources": sources, "title_in_contents": cfg["title_in_contents"], **settings}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest(), sources


def passage_text(p, cfg):
    """The text that is indexed and encoded: title + newline + passage (unless the corpus says otherwise)."""
    return p["title"] + "\n" + p["contents"] if cfg["title_in_contents"] and p["title"] else p["contents"]


def write_shards(cfg, analyzer, folder, shards, problems):
    """Passages as Anserini JsonCollection lines, dealt round-robin over SHARDS files; returns the count."""
    files = [open(os.path.join(folder, f"part-{i:03d}.jsonl"), "w", encoding="utf-8") for i in range(shards)]
    n = 0
    try:
        for p in tqdm(read_corpus(cfg, problems), desc=f"reading {cfg['name']}", unit=" passages",
                      mininterval=1.0, disable=None):
            doc = {"id": p["id"], "contents": pretokenize(passage_text(p, cfg), analyzer), "title": p["title"]}
            if analyzer == "jieba":
                doc["text"] = p["contents"]
            files[n % shards].write(json.dumps(doc, ensure_ascii=False) + "\n")
            n += 1
    finally:
        for f in files:
            f.close()
    return n


def run_anserini(input_dir, index_dir, analyzer, threads):
    """Anserini's IndexCollection on a folder of JSON-lines files; returns the number of documents indexed."""
    autoclass = jvm.start(os.environ.get("QA_BASELINE_INDEX_HEAP", "2g"))  # a no-op if the JVM runs already
    args = autoclass("io.anserini.index.IndexCollection$Args")()
    # Lucene's RAM buffer (Anserini's default is 4 GB) must fit in the heap the JVM actually has
    args.memoryBuffer = max(64, autoclass("java.lang.Runtime").getRuntime().maxMemory() // (2 << 20))
    args.collectionClass, args.generatorClass = "JsonCollection", "DefaultLuceneDocumentGenerator"
    args.input, args.index, args.threads = input_dir, index_dir, threads
    args.storeRaw = True
    if analyzer == "cjk":
        args.language = "zh"
    elif analyzer == "jieba":
        args.pretokenized = True
    indexer = autoclass("io.anserini.index.IndexCollection")(args)
    indexer.run()
    return indexer.getCounters().indexed.get()


def build_bm25(cfg, analyzer=None, threads=None, on_bad_record="stop", force=False, root=None):
    """Build (or find up to date) the BM25 index of a corpus config; returns its folder."""
    analyzer = analyzer or cfg["analyzer"]
    if analyzer not in ANALYZERS:
        raise UserError(f"unknown analyzer {analyzer!r}; known: {', '.join(ANALYZERS)}")
    final = bm25_dir(cfg, analyzer, root)
    fp, sources = fingerprint(cfg, analyzer=analyzer, anserini=jvm.versions()["anserini"])
    if not force and read_manifest(final).get("fingerprint") == fp:
        print(f"{final}: up to date", file=sys.stderr)
        return final
    threads = threads or os.cpu_count() or 1
    if threads < 1:
        raise UserError(f"--threads must be at least 1, not {threads}")
    problems = Problems(on_bad_record)
    os.makedirs(os.path.dirname(final), exist_ok=True)
    tmp = tempfile.mkdtemp(dir=os.path.dirname(final), prefix=f".{os.path.basename(final)}.tmp-")
    os.chmod(tmp, 0o777 & ~UMASK)  # mkdtemp makes a private folder; a shared index folder should not be
    try:
        started = time.time()
        docs = os.path.join(tmp, "docs")
        os.makedirs(docs)
        count = write_shards(cfg, analyzer, docs, threads, problems)
        if problems.count:
            print(problems.summary(), file=sys.stderr)
        if count == 0:
            raise UserError(f"corpus {cfg['name']}: no passages to index")
        read_s = time.time() - started
        indexed = run_anserini(docs, os.path.join(tmp, "lucene"), analyzer, threads)
        if indexed != count:
            raise UserError(f"Anserini indexed {indexed} of {count} passages; see its log above")
        shutil.rmtree(docs)
        write_json(os.path.join(tmp, "manifest.json"), {
            "corpus": cfg["name"], "lang": cfg["lang"], "sources": sources, "fingerprint": fp,
            "passages": count, "skipped_bad_records": problems.count, "analyzer": analyzer,
            "title_in_contents": cfg["title_in_contents"], "format": FORMAT, "versions": jvm.versions(),
            "threads": threads, "seconds": {"read": round(read_s, 2), "total": round(time.time() - started, 2)},
        })
        replace_dir(tmp, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{final}: {count} passages indexed ({analyzer} analyzer)", file=sys.stderr)
    return final


def read_manifest(index_dir):
    """The index's manifest, or {} when there is none or it is unreadable (then the index is rebuilt)."""
    return read_json(os.path.join(index_dir, "manifest.json"))


def load_manifest(cfg, index_dir, options=""):
    """The manifest of a complete index built from this corpus config's files, else a UserError naming
    the command (with OPTIONS) that builds it."""
    hint = f".venv/bin/python -m qa_baseline.index {cfg['build']}{options}"
    manifest = read_manifest(index_dir)
    if not manifest:
        raise UserError(f"no index at {index_dir}; build it with: {hint}")
    built_from = [s.get("file") for s in manifest.get("sources", [])]
    if built_from != [s["file"] for s in cfg["sources"]]:
        raise UserError(f"the index at {index_dir} was built from {', '.join(map(str, built_from))}, "
                        f"not from this corpus; rebuild it with: {hint}")
    return manifest


@cli
def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m qa_baseline.index", description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", required=True,
                    help=f"corpus config name ({', '.join(known_corpora())}) or a corpus file; repeatable")
    ap.add_argument("--lang", choices=("en", "zh"), help="language of a corpus given as a file (default en)")
    ap.add_argument("--analyzer", choices=ANALYZERS, help="override the corpus config's analyzer")
    ap.add_argument("--threads", type=int, help="indexing threads (default: all cores)")
    ap.add_argument("--on-bad-record", choices=("stop", "skip"), default="stop",
                    help="stop at the first bad corpus record (default) or skip and count them")
    ap.add_argument("--force", action="store_true", help="rebuild even when the index is up to date")
    ap.add_argument("--dense", nargs="?", const="", metavar="ENCODER",
                    help="also build a dense index with ENCODER (a configs/encoders name, model folder or cached "
                         "model id; without a name: the corpus config's first `dense` encoder, else the "
                         "language's default). Encoders listed in the corpus config's `dense` are always built")
    ap.add_argument("--faiss", default="auto", help="faiss index type: auto (default), flat, hnsw, ivfpq")
    ap.add_argument("--shard-size", type=int, help="passages per encoded shard (default 8192)")
    ap.add_argument("--part", metavar="I/M", help="encode only shards I, I+M, I+2M, ... (one of M machines) and "
                                                  "stop; then gather the shards and run again without --part")
    args = ap.parse_args(argv)
    part = None
    if args.part:
        i, _, m = args.part.partition("/")
        if not (i.isdigit() and m.isdigit() and int(i) < int(m)):
            raise UserError(f"--part must be I/M with 0 <= I < M, not {args.part!r}")
        part = (int(i), int(m))
    from .dense_index import SHARD_SIZE, build_dense  # numpy and faiss only when needed
    for name in args.corpus:
        cfg = corpus_config(name, args.lang)
        build_bm25(cfg, args.analyzer, args.threads, args.on_bad_record, args.force)
        encoders = list(cfg.get("dense") or [])
        if args.dense is not None:
            wanted = args.dense or (encoders[0] if encoders else None)  # None: the language's default
            if wanted not in encoders:
                encoders.append(wanted)
        for encoder in encoders:
            build_dense(cfg, encoder, args.faiss, args.shard_size or SHARD_SIZE, args.on_bad_record, args.force,
                        part=part)


if __name__ == "__main__":
    main()
