"""Dense retrieval: queries encoded with the encoder the index was built with, searched in its faiss index.
Sim(q, d) = cosine of the L2-normalised query and passage vectors (inner product), as faiss returns it."""
import json
import os

from ..encoders import DEFAULTS, load_encoder
from ..errors import UserError
from ..index.layout import SEARCH_DEFAULTS, dense_dir, faiss_module, load_manifest


class Dense:
    name = "dense"

    def __init__(self, corpus_cfg, params):
        wanted = params.get("encoder") or (corpus_cfg.get("dense") or [DEFAULTS[corpus_cfg["lang"]]])[0]
        self.encoder = load_encoder(wanted, corpus_cfg["lang"])
        self.index_dir = dense_dir(corpus_cfg, self.encoder.name)
        self.manifest = load_manifest(corpus_cfg, self.index_dir, f" --dense {wanted}")
        built, now = self.manifest.get("encoder", {}), self.encoder.decides()
        differ = [k for k in dict.fromkeys([*now, *built]) if k != "package_versions" and built.get(k) != now.get(k)]
        if differ:
            raise UserError(f"the dense index at {self.index_dir} was built with encoder {built.get('name')} "
                            f"({built.get('dim')}-d), but queries would be encoded with {now['name']} "
                            f"({now['dim']}-d; differs in {', '.join(differ)}); rebuild it with: "
                            f".venv/bin/python -m qa_baseline.index {corpus_cfg['build']} --dense {wanted} --force")
        faiss = faiss_module()
        self.index = faiss.read_index(os.path.join(self.index_dir, "faiss.index"))
        if self.index.d != self.encoder.dim or self.index.ntotal != self.manifest["passages"]:
            raise UserError(f"{self.index_dir}: faiss.index holds {self.index.ntotal} {self.index.d}-d vectors, "
                            f"the manifest says {self.manifest['passages']} {self.encoder.dim}-d; rebuild with --force")
        self.kind = self.manifest["faiss"]["type"]
        self.search_params = {**SEARCH_DEFAULTS[self.kind],
                              **{k: int(params[k]) for k in SEARCH_DEFAULTS[self.kind] if params.get(k)}}
        if self.kind == "hnsw":
            self.index.hnsw.efSearch = self.search_params["ef_search"]
        elif self.kind == "ivfpq":
            self.index.nprobe = self.search_params["nprobe"]
        with open(os.path.join(self.index_dir, "docids.jsonl"), encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        self.docids = [r["id"] for r in rows]
        self.titles = {r["id"]: r["title"] for r in rows}

    def params(self):
        return {"encoder": self.encoder.name, "faiss": self.kind, **self.search_params}

    def search(self, queries, k):
        """Ranked (docid, cosine) hits per query; an empty query finds nothing."""
        results = [[] for _ in queries]
        asked = [i for i, q in enumerate(queries) if q.strip()]
        if asked and k > 0:
            vectors = self.encoder.encode([queries[i] for i in asked], "query")
            scores, rows = self.index.search(vectors, k)
            for i, s, r in zip(asked, scores, rows):
                results[i] = [(self.docids[j], float(x)) for j, x in zip(r, s) if j >= 0]
        return results

    def title(self, docid):
        return self.titles.get(docid, "")
