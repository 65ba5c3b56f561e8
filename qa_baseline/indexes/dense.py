"""Dense indexes: `python -m qa_baseline.index --corpus NAME --dense [ENCODER] [--faiss TYPE]`.

Passages (the same title + newline + passage text the BM25 index holds) are encoded in shards of
`--shard-size` passages (length-sorted batches inside a shard) into `indexes/CORPUS/.dense-ENCODER.partial/`;
every finished shard is saved at once, so an interrupted build resumes at the first missing shard. When
all are done, a faiss index is built from the shards and the folder is put in place, in one atomic swap
(fileio.replace_dir), as `indexes/CORPUS/dense-ENCODER/`: `shards/NNNNN.npy` (float32 vectors, kept on
disk), `docids.jsonl` (id and title per row), `faiss.index`, `spec.json` (what the shards were encoded
with) and `manifest.json` (encoder spec, dimension, passage count, corpus checksums, faiss type and
parameters).

faiss types (inner product of L2-normalised vectors = cosine): `flat` exact search; `hnsw` (M=32,
efConstruction=80, efSearch=128); `ivfpq` (nlist about 4 sqrt(n), dim/8 sub-quantizers of 8 bits,
nprobe=16, trained on an evenly spaced sample of about 64 x nlist vectors, k-means seed fixed). `auto`
picks flat up to 1M passages, hnsw up to 5M, ivfpq above (memory: flat and hnsw keep 4 x dim bytes per
passage in RAM, hnsw 256 more for its graph, ivfpq about dim/8 + 8)."""
from __future__ import annotations

import glob
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
from ..core.progress import tqdm  # a bar on a terminal, a line every 30 s in a log

from ..core.config import CorpusConfig
from ..core.errors import Problems, UserError
from ..core.fileio import UMASK, atomic_write, read_json, replace_dir, write_json
from ..core.hints import plural
from ..corpus import read_corpus
from ..encoders import DEFAULTS, Encoder, decides, load_encoder, resolve
from ..lucene.analysis import ANALYZERS
from .layout import (SEARCH_DEFAULTS, SHARD_SIZE, bm25_dir, build_lock, check_owner, dense_dir, dense_time,
                     faiss_module, fingerprint, partial_dir, passage_text, read_manifest)

FAISS_TYPES = ("auto", "flat", "hnsw", "ivfpq")


def choose_type(kind: str, n: int) -> str:
    if kind == "auto":
        return "flat" if n <= 1_000_000 else "hnsw" if n <= 5_000_000 else "ivfpq"
    if kind == "ivfpq" and n < 10_000:
        raise UserError(f"ivfpq needs at least 10,000 passages to train its quantizers, this corpus has {n:,} "
                        "(fix: use --faiss flat or hnsw)")
    return kind


def shard_files(folder: str) -> list[str]:
    return sorted(glob.glob(os.path.join(folder, "shards", "*.npy")))


def build_faiss(kind: str, dim: int, vectors: Callable[[], Iterable[np.ndarray]], n: int) -> Any:
    """A faiss index over the float32 matrices that VECTORS() yields (twice for ivfpq: train, then add)."""
    faiss = faiss_module()
    if kind == "flat":
        index = faiss.IndexFlatIP(dim)
    elif kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 80
    else:
        nlist = int(min(4 * np.sqrt(n), n // 39))
        m = next(m for m in (dim // 8, dim // 4, dim // 2, dim) if dim % m == 0)
        index = faiss.IndexIVFPQ(faiss.IndexFlatIP(dim), dim, nlist, m, 8, faiss.METRIC_INNER_PRODUCT)
        index.cp.seed = 1234
        every = max(1, n // min(n, 64 * nlist))  # an evenly spaced sample, gathered shard by shard
        index.train(np.ascontiguousarray(np.concatenate([block[::every] for block in vectors()])))
    for block in vectors():
        index.add(block)
    return index


def corpus_shards(cfg: CorpusConfig, shard_size: int, problems: Problems) -> Iterator[tuple[int, list[dict[str, str]]]]:
    """(shard number, passages) of the corpus cut into shards of SHARD_SIZE passages in corpus order: the
    numbering every encoding route (here or on Ray) shares, so that their shards are interchangeable."""
    shard = 0
    batch: list[dict[str, str]] = []
    for p in read_corpus(cfg, problems):
        batch.append(p)
        if len(batch) == shard_size:
            yield shard, batch
            shard, batch = shard + 1, []
    if batch:
        yield shard, batch


def shard_done(folder: str, shard: int) -> bool:
    return os.path.exists(os.path.join(folder, "shards", f"{shard:05d}.npy"))


def write_shard(folder: str, shard: int, passages: Iterable[dict[str, str]], vectors: np.ndarray) -> None:
    """Save one encoded shard: NNNNN.jsonl (id and title per row), then NNNNN.npy (float32 vectors), written
    last so that its presence marks the shard done."""
    base = os.path.join(folder, "shards", f"{shard:05d}")
    with atomic_write(base + ".jsonl") as f:
        f.writelines(json.dumps({"id": p["id"], "title": p["title"]}, ensure_ascii=False) + "\n" for p in passages)
    with atomic_write(base + ".npy", "wb") as f:
        np.save(f, vectors)


def passage_count(cfg: CorpusConfig, folder: str) -> int:
    """The passages of the corpus, for the progress of its encoding into FOLDER (its `.dense-ENCODER.partial`
    beside the BM25 indexes): as a BM25 index of the same files there counted them (any analyzer), else counted
    by reading the corpus (seconds, against the minutes or hours of encoding)."""
    home, files = os.path.dirname(os.path.abspath(folder)), [s.file for s in cfg.sources]
    for analyzer in dict.fromkeys([cfg.analyzer, *ANALYZERS]):
        manifest = read_manifest(os.path.join(home, f"bm25-{analyzer}"))
        if manifest.get("passages") and [s.get("file") for s in manifest.get("sources", [])] == files:
            return manifest["passages"]
    return sum(1 for _ in read_corpus(cfg, Problems("skip")))


def encode_shards(cfg: CorpusConfig, encoder: Encoder, folder: str, shard_size: int, problems: Problems,
                  progress: bool = True) -> int:
    """Encode the corpus into FOLDER/shards/NNNNN.npy (+ .jsonl ids and titles) in this process, skipping
    finished shards. Holds one shard of passages and vectors in memory at a time; returns the passage count.
    (indexes/distributed.py's ray_encoder is a drop-in that encodes the missing shards on a Ray cluster.)"""
    os.makedirs(os.path.join(folder, "shards"), exist_ok=True)
    count = 0
    bar = tqdm(total=passage_count(cfg, folder), desc=f"encoding {cfg.name} ({encoder.name})", unit=" passages",
               disable=not progress or None, mininterval=1.0)
    for shard, batch in corpus_shards(cfg, shard_size, problems):
        count += len(batch)
        if shard_done(folder, shard):  # finished shards are kept
            bar.update(len(batch))
        else:
            write_shard(folder, shard, batch, encoder.encode([passage_text(p, cfg) for p in batch], bar=bar))
    bar.close()
    return count


def build_dense(cfg: CorpusConfig, encoder_name: str | None = None, faiss_type: str = "auto",
                shard_size: int = SHARD_SIZE, on_bad_record: str = "stop", force: bool = False,
                root: str | None = None, encode: Callable[..., int] | None = None) -> str:
    """Build (or find up to date, or resume) the dense index of a corpus with an encoder; returns its folder.
    ENCODE: what encodes the shards, with encode_shards's arguments and result (default: encode_shards).
    The build holds the folder's lock (a second build of it waits: both would write the same .partial
    folder) and first removes what killed builds left (layout.build_lock)."""
    if faiss_type not in FAISS_TYPES:
        raise UserError(f"unknown faiss type {faiss_type!r}; known: {', '.join(FAISS_TYPES)}")
    if shard_size < 1:
        raise UserError(f"--shard-size must be at least 1, not {shard_size}")
    name, encoder_cfg = resolve(encoder_name or DEFAULTS[cfg.lang])
    check_owner(cfg, root)  # a corpus file's --name folder holding another file's index is never replaced
    final = dense_dir(cfg, name, root)
    old = read_json(os.path.join(final, "manifest.json"))
    if not force and old.get("faiss", {}).get("requested") == faiss_type and not os.path.isdir(partial_dir(final)) \
            and old.get("fingerprint") == fingerprint(cfg, encoder=decides(name, encoder_cfg, old.get("dim")),
                                                      shard_size=shard_size)[0]:
        print(f"{final}: up to date", file=sys.stderr)  # known without loading the model
        return final
    encoder = load_encoder(encoder_name, cfg.lang)
    with build_lock(dense_dir(cfg, encoder.name, root)):
        check_owner(cfg, root)
        return _build_dense(cfg, encoder, faiss_type, shard_size, on_bad_record, force, root, encode)


def _build_dense(cfg, encoder, faiss_type, shard_size, on_bad_record, force, root, encode):
    final = dense_dir(cfg, encoder.name, root)
    fp, sources = fingerprint(cfg, encoder=encoder.decides(), shard_size=shard_size)
    old = read_json(os.path.join(final, "manifest.json"))
    work = partial_dir(final)
    spec = os.path.join(work, "spec.json")
    if not force and old.get("fingerprint") == fp and old.get("faiss", {}).get("requested") == faiss_type:
        if os.path.isdir(work) and read_json(spec).get("fingerprint") in (fp, None):  # of no further use
            shutil.rmtree(work, ignore_errors=True)
            print(f"{work}: removed (left by a build of the index that is now complete)", file=sys.stderr)
        print(f"{final}: up to date", file=sys.stderr)
        return final
    if force or read_json(spec).get("fingerprint") != fp:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        os.chmod(work, 0o777 & ~UMASK)
        write_json(spec, {"fingerprint": fp, "shard_size": shard_size})  # kept: a killed build resumes by it
    else:
        for stale in glob.glob(os.path.join(work, ".*.tmp")) + glob.glob(os.path.join(work, "shards", ".*.tmp")):
            os.remove(stale)  # a file a killed build was writing (fileio.atomic_write)
        if done := len(shard_files(work)):
            print(f"{work}: resuming after {plural(done, 'finished shard')}", file=sys.stderr)
    if passages := read_manifest(bm25_dir(cfg, root=root)).get("passages"):  # known when the BM25 index is built
        print(f"{final}: {plural(passages, 'passage')} to encode with {encoder.name} ({encoder.dim}-d "
              f"float32: {passages * encoder.dim * 4 / 2**20:,.0f} MB of vectors; {dense_time(passages, encoder.name)}; "
              "`index --no-dense` skips dense indexes)", file=sys.stderr)
    started = time.time()
    problems = Problems(on_bad_record)
    count = (encode or encode_shards)(cfg, encoder, work, shard_size, problems)
    if problems.count:
        print(problems.summary(), file=sys.stderr)
    if count == 0:
        raise UserError(f"corpus {cfg.name}: no passages to encode")
    encode_s = time.time() - started
    kind = choose_type(faiss_type, count)
    files = shard_files(work)
    with atomic_write(os.path.join(work, "docids.jsonl")) as out:
        for path in files:
            with open(path[:-len(".npy")] + ".jsonl", encoding="utf-8") as f:
                shutil.copyfileobj(f, out)
    print(f"building the faiss {kind} index over {plural(count, 'vector')}", file=sys.stderr)
    index = build_faiss(kind, encoder.dim, lambda: (np.load(p) for p in files), count)
    faiss_module().write_index(index, os.path.join(work, "faiss.index"))
    write_json(os.path.join(work, "manifest.json"), {
        "corpus": cfg.name, "lang": cfg.lang, "sources": sources, "fingerprint": fp, "passages": count,
        "skipped_bad_records": problems.count, "encoder": encoder.spec(), "dim": encoder.dim, "shard_size": shard_size,
        "faiss": {"requested": faiss_type, "type": kind, "search": SEARCH_DEFAULTS[kind]},
        "title_in_contents": cfg.title_in_contents,
        "seconds": {"encode": round(encode_s, 2), "total": round(time.time() - started, 2)},
    })
    replace_dir(work, final)
    print(f"{final}: {plural(count, 'passage')} encoded with {encoder.name} ({encoder.dim}-d, faiss {kind})",
          file=sys.stderr)
    return final
