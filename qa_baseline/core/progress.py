"""Progress of long steps: a tqdm bar on a terminal, one plain line every 30 s in a log.

`tqdm(...)` here is a drop-in for `tqdm.tqdm(...)` (same arguments, an iterable or `total=` plus
`update()`), with one rule for where its output goes:
  - stderr is a terminal: tqdm's own bar (`disable=None` as usual);
  - stderr is a file or a pipe (`make results > log 2>&1`, CI): no bar, but a line such as
    `encoding vital-en (minilm): 4096/10033 passages (41%) [01:48<02:36, 37.88 passages/s]` every
    QA_BASELINE_PROGRESS_SECONDS seconds (default 30) while the step runs, and a final line when it ends. A step
    that ends within that time prints nothing, so short steps stay out of the log;
  - `disable=True` (a caller that was asked for no progress) prints nothing either way.
QA_BASELINE_PROGRESS=bar|log|off forces one behaviour."""
import os
import sys
from typing import Any

from tqdm import tqdm as _tqdm

EVERY = 30.0  # seconds between log lines


def mode() -> str:
    """bar, log or off: QA_BASELINE_PROGRESS when set, else bar on a terminal and log otherwise."""
    forced = os.environ.get("QA_BASELINE_PROGRESS", "").strip().lower()
    if forced in ("bar", "log", "off"):
        return forced
    return "bar" if sys.stderr.isatty() else "log"


def every() -> float:
    try:
        return max(0.0, float(os.environ.get("QA_BASELINE_PROGRESS_SECONDS", EVERY)))
    except ValueError:
        return EVERY


def tqdm(*args: Any, **kwargs: Any) -> _tqdm:
    """A tqdm bar (terminal), a LogProgress (file or pipe) or a silent one (disable=True or mode off)."""
    how = mode()
    if kwargs.get("disable") is True or how == "off":
        return _tqdm(*args, **{**kwargs, "disable": True})
    if how == "bar":
        return _tqdm(*args, **{**kwargs, "disable": False})
    return LogProgress(*args, **kwargs)


class _Sink:
    """Where tqdm's own terminal output goes in log mode: nowhere (LogProgress writes whole lines itself)."""

    def write(self, text):
        pass

    def flush(self):
        pass


class LogProgress(_tqdm):
    """tqdm that writes one whole line to stderr at most every `every()` seconds, and a last one at the end
    (when it wrote any before or the step took longer than that)."""

    def __init__(self, *args, **kwargs):
        seconds = every()
        bar_format = ("{desc}: {n_fmt}/{total_fmt}{unit} ({percentage:.0f}%) [{elapsed}<{remaining}, {rate_fmt}"
                      "{postfix}]" if kwargs.get("total") is not None or _has_len(args) else
                      "{desc}: {n_fmt}{unit} [{elapsed}, {rate_fmt}{postfix}]")
        kwargs.update(disable=False, file=_Sink(), mininterval=seconds, maxinterval=max(seconds, 1.0),
                      delay=seconds, bar_format=kwargs.get("bar_format") or bar_format, dynamic_ncols=False,
                      ncols=None, ascii=True, leave=True)
        kwargs.setdefault("desc", "progress")
        super().__init__(*args, **kwargs)

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        if msg == "":  # tqdm clearing its line
            return True
        print(msg or str(self), file=sys.stderr, flush=True)
        return True


def _has_len(args):
    try:
        return bool(args) and len(args[0]) >= 0
    except TypeError:
        return False
