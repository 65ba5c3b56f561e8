"""Dense retrieval: queries encoded with the encoder the index was built with, searched in its faiss index.
Sim(q, d) = cosine of the L2-normalised query and passage vectors (inner product), as faiss returns it."""
import json
import os
from collections.abc import Sequence
from typing import Any

from ..core.config import CorpusConfig
from ..core.errors import UserError
from ..encoders import DEFAULTS, load_encoder
from ..indexes.layout import (SEARCH_DEFAULTS, build_hint, dense_dir, dense_note, dense_options, faiss_module,
                             open_index)
from .base import Hit


class Dense:
    name = "dense"

    def __init__(self, corpus_cfg: CorpusConfig, params: dict[str, Any]) -> None:
        wanted = params.get("encoder") or (corpus_cfg.dense or [DEFAULTS[corpus_cfg.lang]])[0]
        self.encoder = load_encoder(wanted, corpus_cfg.lang)
        self.index_dir = dense_dir(corpus_cfg, self.encoder.name, built=True)
        options = dense_options(self.index_dir, wanted)
        faiss = faiss_module()

        def read(folder, manifest):  # a damaged index (a missing or truncated file) raises here
            built, now = manifest.get("encoder", {}), self.encoder.decides()
            differ = [k for k in dict.fromkeys([*now, *built])  # not the engine's versions or precision (spec():
                      if k not in ("package_versions", "precision") and built.get(k) != now.get(k)]  # fp16 GPUs)
            if differ:
                raise UserError(f"the dense index at {self.index_dir} was built with encoder {built.get('name')} "
                                f"({built.get('dim')}-d), but queries would be encoded with {now['name']} "
                                f"({now['dim']}-d; differs in {', '.join(differ)}) (fix: rebuild it with: "
                                f"{build_hint(corpus_cfg.build, options)} --force)")
            index = faiss.read_index(os.path.join(folder, "faiss.index"))
            if index.d != self.encoder.dim or index.ntotal != manifest["passages"]:
                raise UserError(f"{self.index_dir}: faiss.index holds {index.ntotal} {index.d}-d vectors, the "
                                f"manifest says {manifest['passages']} {self.encoder.dim}-d (fix: rebuild it with: "
                                f"{build_hint(corpus_cfg.build, options)} --force)")
            with open(os.path.join(folder, "docids.jsonl"), encoding="utf-8") as f:
                rows = [json.loads(line) for line in f]
            if len(rows) != index.ntotal:
                raise ValueError(f"docids.jsonl has {len(rows)} rows for {index.ntotal} vectors")
            return index, rows

        self.manifest, (self.index, rows) = open_index(corpus_cfg, self.index_dir, options, read,
                                                       note=dense_note(corpus_cfg, encoder=wanted))
        self.kind = self.manifest["faiss"]["type"]
        self.search_params = {**SEARCH_DEFAULTS[self.kind],
                              **{k: int(params[k]) for k in SEARCH_DEFAULTS[self.kind] if params.get(k)}}
        if self.kind == "hnsw":
            self.index.hnsw.efSearch = self.search_params["ef_search"]
        elif self.kind == "ivfpq":
            self.index.nprobe = self.search_params["nprobe"]
        self.docids = [r["id"] for r in rows]
        self.titles = {r["id"]: r["title"] for r in rows}

    def params(self) -> dict[str, object]:
        return {"encoder": self.encoder.name, "faiss": self.kind, **self.search_params}

    def search(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        """Ranked (docid, cosine) hits per query; an empty query finds nothing."""
        results: list[list[Hit]] = [[] for _ in queries]
        asked = [i for i, q in enumerate(queries) if q.strip()]
        if asked and k > 0:
            vectors = self.encoder.encode([queries[i] for i in asked], "query")
            scores, rows = self.index.search(vectors, k)
            for i, s, r in zip(asked, scores, rows):
                results[i] = [(self.docids[j], float(x)) for j, x in zip(r, s) if j >= 0]
        return results

    def title(self, docid: str) -> str:
        return self.titles.get(docid, "")
