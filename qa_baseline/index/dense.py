"""Dense indexes: `python -m qa_baseline.index --corpus NAME --dense [ENCODER] [--faiss TYPE]`.

Passages (the same title + newline + passage text the BM25 index holds) are encoded in shards of
`--shard-size` passages (length-sorted batches inside a shard) into `indexes/CORPUS/.dense-ENCODER.partial/`;
every finished shard is saved at once, so an interrupted build resumes at the first missing shard. When
all are done, a faiss index is built from the shards and the folder is moved to
`indexes/CORPUS/dense-ENCODER/`: `shards/NNNNN.npy` (float32 vectors, kept on disk), `docids.jsonl`
(id and title per row), `faiss.index` and `manifest.json` (encoder spec, dimension, passage count,
corpus checksums, faiss type and parameters).

faiss types (inner product of L2-normalised vectors = cosine): `flat` exact search; `hnsw` (M=32,
efConstruction=80, efSearch=128); `ivfpq` (nlist about 4 sqrt(n), dim/8 sub-quantizers of 8 bits,
nprobe=16, trained on an evenly spaced sample of about 64 x nlist vectors, k-means seed fixed). `auto`
picks flat up to 1M passages, hnsw up to 5M, ivfpq above (memory: flat and hnsw keep 4 x dim bytes per
passage in RAM, hnsw 256 more for its graph, ivfpq about dim/8 + 8)."""
import glob
import json
import os
import shutil
import sys
import time

import numpy as np
from tqdm import tqdm

from ..corpus import read_corpus
from ..encoders import load_encoder
from ..errors import Problems, UserError
from ..fileio import UMASK, atomic_write, read_json, replace_dir, write_json
from .layout import SEARCH_DEFAULTS, dense_dir, faiss_module, fingerprint, passage_text

FAISS_TYPES = ("auto", "flat", "hnsw", "ivfpq")
SHARD_SIZE = 8192


def choose_type(kind, n):
    if kind == "auto":
        return "flat" if n <= 1_000_000 else "hnsw" if n <= 5_000_000 else "ivfpq"
    if kind == "ivfpq" and n < 10_000:
        raise UserError(f"ivfpq needs at least 10,000 passages to train its quantizers, this corpus has {n}; "
                        "use --faiss flat or hnsw")
    return kind


def shard_files(folder):
    return sorted(glob.glob(os.path.join(folder, "shards", "*.npy")))


def build_faiss(kind, dim, vectors, n):
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


def encode_shards(cfg, encoder, folder, shard_size, problems, progress=True, part=(0, 1)):
    """Encode the corpus into FOLDER/shards/NNNNN.npy (+ .jsonl ids and titles), skipping finished shards
    and, with PART (i, m), shards whose number modulo m is not i. Holds one shard of passages and vectors in
    memory at a time; returns the passage count."""
    os.makedirs(os.path.join(folder, "shards"), exist_ok=True)
    count, shard, batch = 0, 0, []
    bar = tqdm(desc=f"encoding {cfg['name']} ({encoder.name})", unit=" passages", disable=not progress or None,
               mininterval=1.0)

    def flush():
        base = os.path.join(folder, "shards", f"{shard:05d}")
        if shard % part[1] != part[0] or os.path.exists(base + ".npy"):  # finished shards are kept
            bar.update(len(batch))
        else:
            vectors = encoder.encode([passage_text(p, cfg) for p in batch], bar=bar)
            with atomic_write(base + ".jsonl") as f:
                f.writelines(json.dumps({"id": p["id"], "title": p["title"]}, ensure_ascii=False) + "\n"
                             for p in batch)
            with atomic_write(base + ".npy", "wb") as f:  # written last: its presence marks the shard done
                np.save(f, vectors)

    for p in read_corpus(cfg, problems):
        batch.append(p)
        count += 1
        if len(batch) == shard_size:
            flush()
            shard, batch = shard + 1, []
    if batch:
        flush()
    bar.close()
    return count


def build_dense(cfg, encoder_name=None, faiss_type="auto", shard_size=SHARD_SIZE, on_bad_record="stop",
                force=False, root=None, part=None):
    """Build (or find up to date, or resume) the dense index of a corpus with an encoder; returns its folder.
    PART (i, m): only encode every m-th shard starting at i (one machine's share) and stop before faiss."""
    if faiss_type not in FAISS_TYPES:
        raise UserError(f"unknown faiss type {faiss_type!r}; known: {', '.join(FAISS_TYPES)}")
    if shard_size < 1:
        raise UserError(f"--shard-size must be at least 1, not {shard_size}")
    encoder = load_encoder(encoder_name, cfg["lang"])
    final = dense_dir(cfg, encoder.name, root)
    fp, sources = fingerprint(cfg, encoder=encoder.decides(), shard_size=shard_size)
    old = read_json(os.path.join(final, "manifest.json"))
    if not force and old.get("fingerprint") == fp and old.get("faiss", {}).get("requested") == faiss_type:
        print(f"{final}: up to date", file=sys.stderr)
        return final
    work = os.path.join(os.path.dirname(final), f".{os.path.basename(final)}.partial")
    if force or read_json(os.path.join(work, "spec.json")).get("fingerprint") != fp:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        os.chmod(work, 0o777 & ~UMASK)
        write_json(os.path.join(work, "spec.json"), {"fingerprint": fp})
    elif done := len(shard_files(work)):
        print(f"{work}: resuming after {done} finished shards", file=sys.stderr)
    started = time.time()
    problems = Problems(on_bad_record)
    count = encode_shards(cfg, encoder, work, shard_size, problems, part=part or (0, 1))
    if problems.count:
        print(problems.summary(), file=sys.stderr)
    if part:
        print(f"{work}: part {part[0]} of {part[1]} encoded; gather the shards/ folders of all parts here and "
              "run the same command without --part to build the index", file=sys.stderr)
        return work
    if count == 0:
        raise UserError(f"corpus {cfg['name']}: no passages to encode")
    encode_s = time.time() - started
    kind = choose_type(faiss_type, count)
    files = shard_files(work)
    with atomic_write(os.path.join(work, "docids.jsonl")) as out:
        for path in files:
            with open(path[:-len(".npy")] + ".jsonl", encoding="utf-8") as f:
                shutil.copyfileobj(f, out)
    print(f"building the faiss {kind} index over {count} vectors", file=sys.stderr)
    index = build_faiss(kind, encoder.dim, lambda: (np.load(p) for p in files), count)
    faiss_module().write_index(index, os.path.join(work, "faiss.index"))
    os.remove(os.path.join(work, "spec.json"))
    write_json(os.path.join(work, "manifest.json"), {
        "corpus": cfg["name"], "lang": cfg["lang"], "sources": sources, "fingerprint": fp, "passages": count,
        "skipped_bad_records": problems.count, "encoder": encoder.spec(), "dim": encoder.dim, "shard_size": shard_size,
        "faiss": {"requested": faiss_type, "type": kind, "search": SEARCH_DEFAULTS[kind]},
        "title_in_contents": cfg["title_in_contents"],
        "seconds": {"encode": round(encode_s, 2), "total": round(time.time() - started, 2)},
    })
    replace_dir(work, final)
    print(f"{final}: {count} passages encoded with {encoder.name} ({encoder.dim}-d, faiss {kind})", file=sys.stderr)
    return final
