"""How messages word things: commands for the installation at hand, counts, how long a dense build takes.

Every hint that names a command to run (`build it with: ...`) writes it with `command(NAME)`: in a checkout
with its `.venv` (`make install`) `.venv/bin/python -m qa_baseline.NAME`, else (a wheel installed anywhere)
`qa-baseline NAME`, the console script that comes with the package. A hint to reinstall is `reinstall()`."""
import importlib
import os
from typing import Any, NoReturn

from . import ROOT

# passages per second of a dense build with all-MiniLM-L6-v2 on 2 CPU cores: 38.1 on a quiet machine
# (bench/dense_encode.py), about 27 under the load of other work (README, Speed and memory)
DENSE_RATES = {"pytorch": (27, 38, "minilm"),  # sentence-transformers on PyTorch
               "onnx": (68, 73, "minilm-onnx")}  # the ONNX Runtime engine (bench/dense_encode.py, docs/results.md)


def dense_rate(encoder: str | None = None) -> tuple[int, int, str]:
    """(slow, fast passages/s, the encoder measured) of a dense build with ENCODER on 2 CPU cores: its config's
    own `build_rate` where it was measured, else its engine's."""
    from .config import encoder_config
    try:
        cfg = encoder_config(encoder) if encoder else {}
    except Exception:  # an unknown encoder: its error comes where it is loaded
        cfg = {}
    if cfg.get("build_rate"):
        slow, fast = cfg["build_rate"]
        return slow, fast, str(encoder)
    return DENSE_RATES["onnx" if cfg.get("engine") == "onnx" else "pytorch"]


def span(low: object, high: object) -> str:
    """A range as words: `68–73`, or `128` when both ends read the same."""
    return f"{low}" if f"{low}" == f"{high}" else f"{low}–{high}"


def plural(n: int, word: str, words: str = "") -> str:
    """`1 entry`, `2 entries`: N and WORD, or WORDS (default WORD + s) when N is not 1."""
    return f"{n:,} {word if n == 1 else words or word + 's'}"


def checkout() -> bool:
    """Whether qa_baseline runs from a checkout of its repository that has its virtual environment `.venv`."""
    return (os.path.exists(os.path.join(ROOT, ".git")) or os.path.isfile(os.path.join(ROOT, "pyproject.toml"))) \
        and os.path.exists(os.path.join(ROOT, ".venv", "bin", "python"))


def command(name: str) -> str:
    """The command NAME (index, run, score, report, search, eval) as a hint writes it."""
    return f".venv/bin/python -m qa_baseline.{name}" if checkout() else f"qa-baseline {name}"


def reinstall() -> str:
    """How a hint says to install what is missing from the installation."""
    return "run `make install`" if checkout() else "reinstall the qa_baseline wheel with its dependencies (pip install)"


def install_extra(extra: str) -> str:
    """The pip command that installs the EXTRA extra (dense, retrieval, ...): in a checkout into its `.venv`."""
    return f".venv/bin/pip install -e '.[{extra}]'" if checkout() else f"pip install 'qa-baseline[{extra}]'"


def requires(extra: str, module: str) -> Any:
    """Import MODULE, which comes with the EXTRA extra of the package; if it is not installed, a UserError of
    one line with the pip command: `this needs the dense extra (faiss is not installed): pip install ...`. (The
    base install is the scoring side only: validators, score, eval, report; pyproject.toml lists the extras.)"""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        top = module.partition(".")[0]
        if e.name is not None and e.name.partition(".")[0] != top:  # MODULE is there, something it needs is broken
            raise
        missing_extra(extra, top)


def missing_extra(extra: str, package: str) -> NoReturn:
    """The one-line error of requires(): PACKAGE, which comes with the EXTRA extra, is not installed."""
    from .errors import UserError
    raise UserError(f"this needs the {extra} extra ({package} is not installed): {install_extra(extra)}") from None


def dense_time(passages: int, encoder: str | None = None) -> str:
    """An estimate of how long encoding PASSAGES takes, as words: `an estimated 42–59 min for 95,675 passages, at
    the 27–38 passages/s measured with minilm on 2 CPU cores; more cores or a GPU are faster`."""
    low_rate, high_rate, measured = dense_rate(encoder)
    slow, fast = passages / low_rate, passages / high_rate
    unit, name = (1, "s") if slow < 90 else (60, "min") if slow < 7200 else (3600, "h")
    show = lambda x: f"{x:.1f}" if unit == 3600 and x < 10 else f"{max(1, round(x)):,}"  # noqa: E731
    low, high = show(fast / unit), show(slow / unit)
    return (f"an estimated {span(low, high)} {name} for {plural(passages, 'passage')}, at "
            f"the {span(low_rate, high_rate)} passages/s measured with {measured} on 2 CPU cores; more cores or a "
            "GPU are faster")
