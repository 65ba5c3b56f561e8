"""A dataset's table: a header (one label per column) and rows of cell strings, all the same width.

`from_grid` turns the raw grid of a data file (CSV rows, a worksheet) into a Table: ragged rows are padded with
empty cells, empty rows and trailing empty columns dropped, leading title lines (one filled cell in a wider
grid) kept as the caption, and the header rows detected (`header_rows`), several header rows being joined
column by column into one label."""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence

NUMBER = re.compile(r"^[-+−]?[$€£¥]?\d[\d,]*(\.\d+)?%?$")


@dataclasses.dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    source: str = ""
    caption: str = ""

    @property
    def width(self) -> int:
        return len(self.header)


def is_number(cell: str) -> bool:
    """A cell that is a plain number (thousands separators, sign, currency, percent allowed)."""
    return bool(NUMBER.match(cell.strip().replace(" ", "")))


def square(grid: Iterable[Iterable[object]]) -> list[list[str]]:
    """Rows as stripped strings, padded to one width; empty rows and trailing empty columns dropped."""
    rows = [[("" if c is None else str(c)).strip() for c in row] for row in grid]
    rows = [r for r in rows if any(r)]
    width = max((max((i + 1 for i, c in enumerate(r) if c), default=0) for r in rows), default=0)
    return [(r + [""] * width)[:width] for r in rows]


def _numeric_columns(rows):
    """Columns whose cells are numbers in at least 2/3 of the filled cells of ROWS (and in 2 rows at least)."""
    out = set()
    for j in range(len(rows[0]) if rows else 0):
        filled = [r[j] for r in rows if r[j]]
        if len(filled) >= 2 and sum(map(is_number, filled)) >= 2 * len(filled) / 3:
            out.add(j)
    return out


def _has_spans(row):
    """A header row of merged cells exported flat: an empty cell right of a filled one, or a label repeated in
    adjacent columns."""
    return any((not b and a) or (a and a == b) for a, b in zip(row, row[1:]))


def _year(cell):
    return cell.isdigit() and len(cell) == 4 and 1800 <= int(cell) <= 2100


def header_rows(rows: Sequence[Sequence[str]], max_rows: int = 3) -> int:
    """How many leading rows form the header. The first row always does; a following row joins it when the row
    above has spans (`_has_spans`), the row itself holds no number but years (`2015`, `2020` under
    `Population`), and it labels at least one column whose cells below are numeric (a sub-header over data).
    At most MAX_ROWS."""
    n = 1
    while n < min(max_rows, len(rows) - 1) and _has_spans(rows[n - 1]):
        row, body = rows[n], rows[n + 1:]
        numeric = _numeric_columns(body)
        if any(is_number(c) and not _year(c) for c in row if c) or not any(row[j] for j in numeric):
            break
        n += 1
    return n


def join_header(head: Sequence[Sequence[str]]) -> list[str]:
    """One label per column from header rows: a spanning label is carried right over the empty cells after it
    (within that row), then the distinct parts are joined top to bottom with a space."""
    filled: list[list[str]] = []
    for row in head:
        carried: list[str] = []
        last = ""
        for cell in row:  # carried only in upper rows (spans); the last row names single columns
            last = cell or (last if row is not head[-1] else "")
            carried.append(last)
        filled.append(carried)
    labels: list[str] = []
    for j in range(len(head[0]) if head else 0):
        parts: list[str] = []
        for row in filled:
            if row[j] and row[j] not in parts:
                parts.append(row[j])
        labels.append(" ".join(parts))
    return labels


def from_grid(grid: Iterable[Iterable[object]], source: str = "") -> Table | None:
    """A Table from a raw grid (see the module docstring); None when the grid has no cell."""
    rows = square(grid)
    if not rows:
        return None
    caption: list[str] = []
    while len(rows) > 1 and len(rows[0]) > 1 and rows[0][0] and not any(rows[0][1:]):
        caption.append(rows.pop(0)[0])  # a title line: one filled cell over a wider grid
    n = header_rows(rows)
    header = join_header(rows[:n])
    return Table(header=header, rows=rows[n:], source=source, caption=" / ".join(caption))
