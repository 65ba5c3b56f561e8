"""faiss search: queries/s of each index type and recall@10 of HNSW and IVF-PQ against exact search.

Vectors: the shards of a built dense index (default indexes/shared-en/dense-minilm; build it with
`.venv/bin/python -m qa_baseline.index --corpus shared-en --dense minilm`). Queries: the MCQA queries
(question + " " + option) of ai2-science 8thgr-train, encoded with the index's encoder. Each type is built as
qa_baseline.indexes.dense.build_faiss builds it (flat; hnsw M=32 efConstruction=80; ivfpq nlist ~4 sqrt(n),
dim/8 x 8-bit codes), then searched at k=10 with its default search setting and a few others, in batches of
all queries, --repeats times (median). Recall@10 = |top-10 ∩ exact top-10| / 10, averaged over queries.

Run: .venv/bin/python bench/faiss_search.py [--corpus shared-en] [--encoder minilm] [--repeats 3]
"""
import argparse
import glob
import json
import os
import time

import numpy as np

from _common import data_dir, load_info, median, result_line, table


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="shared-en")
    ap.add_argument("--encoder", default="minilm")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from qa_baseline.core.config import corpus_config
    from qa_baseline.indexes.dense import build_faiss
    from qa_baseline.indexes.layout import dense_dir
    from qa_baseline.encoders import load_encoder
    from qa_baseline.tasks.mcqa import formats
    folder = dense_dir(corpus_config(args.corpus), args.encoder)
    files = sorted(glob.glob(os.path.join(folder, "shards", "*.npy")))
    if not files:
        raise SystemExit(f"bench: no dense index at {folder}; build it with "
                         f".venv/bin/python -m qa_baseline.index --corpus {args.corpus} --dense {args.encoder}")
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        dim = json.load(f)["dim"]
    n = sum(np.load(p, mmap_mode="r").shape[0] for p in files)
    questions = formats.read(data_dir("tasks", "mcqa-en", "ai2-science-ai2-8thgr-ndmc-feb2016-train.csv"))
    queries = load_encoder(args.encoder).encode([f"{q.question} {o}" for q in questions for o in q.options], "query")
    vectors = lambda: (np.load(p) for p in files)  # noqa: E731
    rows, exact = [], None
    for kind in ("flat", "hnsw", "ivfpq"):
        t0 = time.perf_counter()
        index = build_faiss(kind, dim, vectors, n)
        build_s = time.perf_counter() - t0
        settings = {"flat": [None], "hnsw": [32, 128, 512], "ivfpq": [4, 16, 64]}[kind]
        for s in settings:
            if kind == "hnsw":
                index.hnsw.efSearch = s
            elif kind == "ivfpq":
                index.nprobe = s
            qps = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                _, ids = index.search(queries, 10)
                qps.append(len(queries) / (time.perf_counter() - t0))
            if kind == "flat":
                exact = ids
            recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(ids, exact)])
            label = {"flat": "", "hnsw": f"efSearch={s}", "ivfpq": f"nprobe={s}"}[kind]
            rows.append([kind, label, build_s, median(qps), recall])
    print(f"faiss over {n} x {dim} vectors of {args.corpus} ({args.encoder}), {len(queries)} MCQA queries, k=10, "
          f"{load_info()}")
    table(["type", "search setting", "build s", "queries/s", "vs flat", "recall@10"],
          [[k, label, f"{b:.1f}", f"{q:,.0f}", f"{q / rows[0][3]:.2f}x", f"{r:.3f}"] for k, label, b, q, r in rows])
    result_line({f"{k}{'_' + label if label else ''}": {"build_s": b, "queries_per_s": q, "recall_at_10": r}
                 for k, label, b, q, r in rows},
                {f"{k}{'_' + label if label else ''}_vs_flat": q / rows[0][3] for k, label, b, q, r in rows[1:]})


if __name__ == "__main__":
    main()
