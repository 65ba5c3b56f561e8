"""Neural rankers (qa_baseline/encoders/).

dense  cosine of the question (encoded as a query) and the sentence (as a passage) with a bi-encoder: --encoder,
       default encoders.DEFAULTS (minilm for English, e5-small for Chinese)
cross  the logit of the English ONNX cross-encoder ms-marco-MiniLM-L-12-v2 (int8) for (question, sentence);
       there is no Chinese cross-encoder"""
from collections.abc import Sequence

import numpy as np

from ..core.errors import UserError
from ..core.progress import tqdm
from ..encoders import CROSS_LANGS, load_cross_encoder, load_encoder
from .base import BaseRanker, Candidates, RankerSettings
from .tokens import Text


class Dense(BaseRanker):
    names, options = ("dense",), ("encoder",)

    def __init__(self, lang: str, settings: RankerSettings, text: Text) -> None:
        self.encoder = load_encoder(settings.get("encoder"), lang)

    def params(self) -> dict[str, object]:
        return {"encoder": self.encoder.name}

    def features(self, groups: Sequence[Candidates]) -> np.ndarray:
        texts = [s for g in groups for s in g.texts]
        with tqdm(total=len(groups) + len(texts), desc=f"encoding ({self.encoder.name})", unit=" texts") as bar:
            questions = self.encoder.encode([g.query for g in groups], "query", bar=bar)
            sentences = self.encoder.encode(texts, "passage", bar=bar)
        rows = np.repeat(np.arange(len(groups)), [len(g.texts) for g in groups])
        return np.einsum("ij,ij->i", questions[rows], sentences).astype(np.float64)[:, None]


class Cross(BaseRanker):
    names = ("cross",)

    def __init__(self, lang: str, settings: RankerSettings, text: Text) -> None:
        if lang not in CROSS_LANGS:
            raise UserError("--reranker cross is English only: no Chinese cross-encoder is installed (fix: use bm25, "
                            "overlap, dense or learned)")
        self.model = load_cross_encoder()

    def params(self) -> dict[str, object]:
        return {"cross_encoder": self.model.name}

    def features(self, groups: Sequence[Candidates]) -> np.ndarray:
        pairs = [(g.query, s) for g in groups for s in g.texts]
        with tqdm(total=len(pairs), desc=f"cross-encoding ({self.model.name})", unit=" pairs") as bar:
            return self.model.score(pairs, bar=bar).astype(np.float64)[:, None]
