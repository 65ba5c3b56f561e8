"""A Table prepared for question answering: per column its header words, its kind and the value of each cell.

A column is `numeric` when at least 70% of its filled cells are plain numbers (`terms.plain_number`), a `date`
column when 70% of them parse as dates with a month, a `rank` column when its header says rank, position,
place, # or No. (smaller is better). Summary rows (a first cell `Total`, `Totals`, `Sum`, `All`, `Average`)
are kept for lookup but left out of superlatives, counts, first/last and filters."""
from __future__ import annotations

import dataclasses
from collections.abc import Collection

from ..collection.table import Table
from . import terms

RANK_HEADERS = {"rank", "ranking", "pos", "position", "place", "placing", "finish", "no", "#", "seed", "standing",
                "rk", "pl", "order", "pick"}
SUMMARY = {"total", "totals", "sum", "all", "average", "overall", "total:"}


@dataclasses.dataclass
class Column:
    index: int
    header: str
    words: tuple[str, ...]
    stems: frozenset[str]
    numbers: list[float | None]        # float or None per row
    dates: list[int | None]          # date_key or None per row
    numeric: bool = False
    date: bool = False
    rank: bool = False
    distinct: int = 0


class TableView:
    """Cells, normalised cells and typed columns of a Table."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.header = table.header
        self.rows = table.rows
        self.norm = [[terms.norm(c) for c in row] for row in self.rows]
        self.cell_stems = [[frozenset(terms.stems(c)) for c in row] for row in self.rows]
        self.summary = [bool(row) and (terms.norm(row[0]).rstrip(":") in SUMMARY or
                                       (not row[0] and len(row) > 1 and terms.norm(row[1]).rstrip(":") in SUMMARY))
                        for row in self.rows]
        self.body = [i for i in range(len(self.rows)) if not self.summary[i]]
        self.columns = [self._column(j) for j in range(table.width)]

    def _column(self, j: int) -> Column:
        header = self.header[j]
        cells = [row[j] for row in self.rows]
        body = [cells[i] for i in self.body]
        numbers = [terms.plain_number(c) if c else None for c in cells]
        dates = [terms.date_key(c) if c else None for c in cells]
        filled = [i for i in self.body if cells[i]]
        n = max(len(filled), 1)
        words = terms.words(header)
        col = Column(j, header, words, frozenset(terms.stem(w) for w in words), numbers, dates)
        col.numeric = len(filled) >= 1 and sum(numbers[i] is not None for i in filled) >= 0.7 * n
        col.date = not col.numeric and len(filled) >= 1 and sum(dates[i] is not None for i in filled) >= 0.7 * n
        col.rank = header.strip() == "#" or (bool(words) and words[0] in RANK_HEADERS and len(words) <= 2
                                             and "of" not in words)
        col.distinct = len({terms.norm(c) for c in body if c})
        return col

    def value(self, i: int, j: int) -> float | None:
        """The sortable value of cell (i, j): its number, else its date key, else None."""
        col = self.columns[j]
        if col.numeric:
            return col.numbers[i]
        if col.date:
            return col.dates[i]
        return col.numbers[i] if col.numbers[i] is not None else col.dates[i]

    def key_column(self, exclude: Collection[int] = ()) -> int:
        """The column naming a row: the first text column (not numeric, date or rank) with the most distinct
        values among the first three such columns; else column 0."""
        texts = [c for c in self.columns if not (c.numeric or c.date or c.rank) and c.index not in exclude]
        if not texts:
            return 0
        return max(texts[:3], key=lambda c: (c.distinct, -c.index)).index
