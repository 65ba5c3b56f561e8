"""sentence-transformers models run by PyTorch (kind `sentence-transformers`, the default engine `torch`), on
the CPU or on QA_BASELINE_DEVICE (qa_baseline.core.process)."""
from typing import Any

import numpy as np

from ..core.errors import UserError
from ..core.process import device, threads
from ..core.versions import dist_version
from .base import Encoder, require


def quiet_loading() -> None:
    """No progress bar of transformers' own while a model loads (`Loading weights: 100%|...|`, from transformers
    5): runs and logs show qa_baseline's progress lines only. Nothing is downloaded, so no bar is lost."""
    from transformers.utils import logging as transformers_logging
    transformers_logging.disable_progress_bar()


class STEncoder(Encoder):
    def __init__(self, name: str, cfg: dict[str, Any]) -> None:
        SentenceTransformer = require(name, "sentence_transformers", "sentence-transformers").SentenceTransformer
        quiet_loading()
        import torch
        torch.set_num_threads(threads())
        try:
            self.model = SentenceTransformer(cfg["path"], device=device(),
                                             local_files_only=True)
        except (OSError, ValueError) as e:
            raise UserError(f"encoder {name}: cannot load {cfg['model']} offline ({str(e).splitlines()[0]}) (fix: "
                            "give a local model folder or a model in the local cache)") from None
        if cfg.get("max_length"):
            self.model.max_seq_length = int(cfg["max_length"])
        super().__init__(name, cfg)

    def _encode(self, texts: list[str], kind: str) -> np.ndarray:
        return self.model.encode(texts, batch_size=len(texts), convert_to_numpy=True, show_progress_bar=False)

    def versions(self) -> dict[str, str | None]:
        return {d: dist_version(d) for d in ("sentence-transformers", "torch", "transformers")}
