"""What engine.py's operators share: a superlative's direction, the row of the largest or smallest value, the
rows over a threshold, the most common value, a computed number as an answer.

Rows are body rows (no summary rows) in table order; ties go to the earliest row. Directions: `direction`
turns a superlative cue and a column into max or min (rank columns reverse it: the best rank is the smallest;
`oldest` is the smallest date or year but the largest age; `fastest` is the smallest time but the largest
speed)."""
from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from . import terms

if TYPE_CHECKING:
    from .view import Column, TableView

COMPARE = {">": float.__gt__, ">=": float.__ge__, "<": float.__lt__, "<=": float.__le__}
TIME_HEADERS = {"time", "duration", "length", "dur", "retired"}
AGE_HEADERS = {"age", "ages"}
SPEED_HEADERS = {"speed", "mph", "kmh", "km/h", "pace"}


def direction(cue: str, col: Column) -> str:
    """'max' or 'min' for a superlative CUE ('max', 'min', 'best', 'worst', 'old', 'young', 'fast', 'slow') on
    COL."""
    stems = set(col.stems)
    if cue in ("old", "young"):
        small = (cue == "old") != bool(stems & AGE_HEADERS)
        return "min" if small else "max"
    if cue in ("fast", "slow"):
        small = (cue == "fast") != bool(stems & SPEED_HEADERS)
        return "min" if small else "max"
    if cue in ("best", "worst"):
        cue = "max" if cue == "best" else "min"
    if col.rank:
        return "min" if cue == "max" else "max"
    return cue


def values(view: TableView, rows: Sequence[int], j: int) -> list[tuple[int, float]]:
    """(row, value) of ROWS whose cell in column J has a sortable value."""
    return cast("list[tuple[int, float]]", [(i, view.value(i, j)) for i in rows if view.value(i, j) is not None])


def arg_extreme(view: TableView, rows: Sequence[int], j: int, how: str) -> int | None:
    """The row with the largest (how='max') or smallest value in column J; None when no row has a value."""
    vals = values(view, rows, j)
    if not vals:
        return None
    best = max(v for _, v in vals) if how == "max" else min(v for _, v in vals)
    return next(i for i, v in vals if v == best)


def threshold(view: TableView, rows: Sequence[int], j: int, op: str, bound: float) -> list[int]:
    """ROWS whose value in column J satisfies `value OP bound`."""
    return [i for i, v in values(view, rows, j) if COMPARE[op](float(v), float(bound))]


def most_common(view: TableView, rows: Sequence[int], j: int, how: str = "max") -> int | None:
    """The row of the first occurrence of the most (or least) frequent value of column J among ROWS."""
    cells = [(i, terms.norm(view.rows[i][j])) for i in rows if view.rows[i][j]]
    if not cells:
        return None
    counts = collections.Counter(c for _, c in cells)
    best = max(counts.values()) if how == "max" else min(counts.values())
    return next(i for i, c in cells if counts[c] == best)


def fmt(value: float | None) -> str:
    """A computed number as an answer string: integers without a decimal point, else up to 4 decimals."""
    if value is None:
        return ""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.4f}".rstrip("0").rstrip(".")
