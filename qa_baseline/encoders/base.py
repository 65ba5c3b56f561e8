"""What every bi-encoder shares: `Encoder` (texts -> L2-normalised float32 vectors in length-sorted batches,
the spec recorded in an index's manifest) and `decides` (what decides its vectors)."""
import importlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..core.errors import UserError
from ..core.hints import install_extra
from ..core.process import deferred_interrupt


def decides(name: str, cfg: dict[str, Any], dim: int | None) -> dict[str, Any]:
    """What decides the vectors of encoder NAME with config CFG (name, dim and the config; not the engine's
    package versions, which may differ between the machines encoding one corpus): fingerprinted and checked
    when an index is searched. A function of the config, so that an index's freshness is checked without
    loading the model (the dim then comes from the index's manifest). Not the config's `lang`, `path` or
    `build_rate` (the measured speed that the hints' estimates use)."""
    return {"name": name, "dim": dim, **{k: v for k, v in cfg.items() if k not in ("lang", "path", "build_rate")}}


def missing(name: str, package: str) -> UserError:
    """The error of encoder NAME whose engine needs PACKAGE, which is not installed."""
    return UserError(f"encoder {name} needs the package {package}: this needs the dense extra (fix: "
                     f"{install_extra('dense')})")


def require(name: str, module: str, package: str) -> Any:
    """The module MODULE that the engine of encoder NAME runs on (imported when an encoder is loaded, not
    before), else missing(NAME, PACKAGE)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        cause: BaseException | None = e
        while cause is not None:  # Ctrl-C while a native module initialised: pybind11 makes it an ImportError
            if isinstance(cause, KeyboardInterrupt):
                raise KeyboardInterrupt from None
            cause = cause.__cause__ or cause.__context__
        raise missing(name, package) from None


def in_batches(order: list[int], size: int, run: Callable[[list[int]], np.ndarray], out: np.ndarray,
               bar: Any = None, workers: int = 1) -> np.ndarray:
    """OUT[idx] = RUN(idx) for each batch idx of SIZE consecutive indices of ORDER, in this thread or, with
    WORKERS > 1, that many batches at a time on Python threads (for engines that release the GIL, such as
    onnxruntime); BAR (a tqdm) is advanced by each batch's size. Returns OUT. On threads, Ctrl-C is deferred
    (process.deferred_interrupt): the batches not started are skipped, those running end, the threads are
    joined, then KeyboardInterrupt; an error of a batch cancels those not started (Executor.map)."""
    batches = [order[start:start + size] for start in range(0, len(order), size)]
    if workers <= 1:
        for idx in batches:
            out[idx] = run(idx)
            if bar is not None:
                bar.update(len(idx))
        return out
    with deferred_interrupt() as stop, ThreadPoolExecutor(workers) as pool:
        for idx, values in zip(batches, pool.map(lambda idx: None if stop.is_set() else run(idx), batches)):
            if values is not None:  # None: skipped after Ctrl-C
                out[idx] = values
                if bar is not None:
                    bar.update(len(idx))
    return out


class Encoder:
    """A bi-encoder: a subclass loads its model in __init__ (then calls this one, which probes the dimension)
    and encodes one batch of texts in `_encode(texts, kind)`."""
    batch_size = 32
    normalize = True
    workers = 1  # batches encoded at a time (OnnxEncoder: one-text calls side by side)

    def __init__(self, name: str, cfg: dict[str, Any]) -> None:
        self.name, self.cfg = name, cfg
        self.batch_size = int(cfg.get("batch_size") or type(self).batch_size)  # a config may set it (bge-small: 1)
        self.prefix = {"query": cfg.get("query_prefix", ""), "passage": cfg.get("passage_prefix", "")}
        self.dim = len(self._encode(["dimension probe"], "query")[0])

    def _encode(self, texts: list[str], kind: str) -> np.ndarray:
        raise NotImplementedError

    def decides(self) -> dict[str, Any]:
        return decides(self.name, self.cfg, self.dim)

    def spec(self) -> dict[str, Any]:
        """decides() plus the engine's package versions: recorded in a dense index's manifest."""
        return {**self.decides(), "package_versions": self.versions()}

    def versions(self) -> dict[str, str | None]:
        return {}

    def encode(self, texts: list[str], kind: str = "passage", batch_size: int | None = None,
               bar: Any = None) -> np.ndarray:
        """L2-normalised float32 vectors of TEXTS (kind: query or passage), in input order; BAR (a tqdm) is
        advanced by each batch's size."""
        if kind not in self.prefix:
            raise ValueError(f"kind must be query or passage, not {kind!r}")
        cut = int(self.cfg.get("max_chars") or 0) or None  # for engines that do not truncate themselves
        texts = [self.prefix[kind] + t[:cut] for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # longest first: memory peaks early
        in_batches(order, batch_size or self.batch_size, lambda idx: self._encode([texts[i] for i in idx], kind),
                   out, bar, self.workers)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1) if self.normalize else out
