"""How messages word things: commands for the installation at hand, missing extras, counts and ranges.

Every hint that names a command to run (`build it with: ...`) writes it with `command(NAME)`: in a checkout
with its `.venv` (`make install`) `.venv/bin/python -m qa_baseline.NAME`, else (a wheel installed anywhere)
`qa-baseline NAME`, the console script that comes with the package. A hint to reinstall is `reinstall()`."""
import importlib
import os
from typing import Any, NoReturn

from .. import ROOT
from .errors import UserError

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


ENTRY: list[str] = []  # how the user called the `qa-baseline` entry point, set while it dispatches (__main__)


def prog(name: str) -> str:
    """Command NAME's usage name as it was called: `qa-baseline NAME`, `python -m qa_baseline NAME` or, by
    default, `python -m qa_baseline.NAME`."""
    return f"{ENTRY[-1]} {name}" if ENTRY else f"python -m qa_baseline.{name}"


def command(name: str) -> str:
    """The command NAME (index, run, score, report, search, eval) as a hint writes it."""
    return f".venv/bin/python -m qa_baseline.{name}" if checkout() else f"qa-baseline {name}"


def reinstall() -> str:
    """How a hint says to install what is missing from the installation."""
    return "run `make install`" if checkout() else "reinstall the qa_baseline wheel with its dependencies (pip install)"


def install_extra(extra: str) -> str:
    """How to install the EXTRA extra (dense, retrieval, plot, ...): the pip command, or in a checkout `make
    install`, which installs every extra at the versions of requirements/lock.txt."""
    return "run `make install`" if checkout() else f"pip install 'qa-baseline[{extra}]'"


def requires(extra: str, module: str) -> Any:
    """Import MODULE, which comes with the EXTRA extra of the package; if it is not installed, a UserError of
    one line with the pip command: `this needs the dense extra (faiss is not installed): pip install ...`. (The
    base install is the scoring side only: validators, score, eval, report's tables; the figure needs the plot
    extra; pyproject.toml lists the extras.)"""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        top = module.partition(".")[0]
        if e.name is not None and e.name.partition(".")[0] != top:  # MODULE is there, something it needs is broken
            raise
        missing_extra(extra, top)


def missing_extra(extra: str, package: str) -> NoReturn:
    """The one-line error of requires(): PACKAGE, which comes with the EXTRA extra, is not installed."""
    raise UserError(f"this needs the {extra} extra ({package} is not installed): {install_extra(extra)}") from None
