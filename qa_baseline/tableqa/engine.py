"""Answer a question from a dataset's tables: analyse the question, link it to cells and columns, run the
operator it asks for, return a verbatim cell (or a computed number) with a trace.

The operator, in this order of precedence (each falls through when its parts are missing; each is a function of
`OPERATORS`, tried in that order, reading the question's links to the table from one `Linked`):
1. difference (`how many more`, `difference`): |a - b| over the two mentioned rows in the best numeric column;
2. comparison (`A or B`, `between A, B and C`): two or more rows mentioned in one column; the superlative cue
   picks one by the best value column, else the one whose row holds the question's other mentioned cell;
3. filters: the other mentioned cells are conditions (rows must match each condition column), cells after
   `other than`/`besides`/`except`/`not` exclude their rows, and thresholds (`more than N`) keep rows over
   the best numeric column (a year-like N: the year or date column);
4. count (`how many`, `number of`): how many filtered rows (distinct values with `different`), unless a
   numeric column is named and one row is mentioned (a lookup: `how many games did X play`), or `total`
   names a numeric column (its sum over the filtered rows);
5. average: the mean of the named numeric column over the filtered rows;
6. superlative: the filtered row with the largest / smallest value of the best value column (see
   `operators.direction`); a `most`/`least` that names no column counts the answer column's values instead;
7. next / previous: the row after / before the best mentioned row;
8. first / last: the first / last filtered row;
9. lookup: the best mentioned row (sum of its mention scores) among the filtered rows.
The answer column is the best by `column_score` (header named by the question, answer type, not a column
the question already fills); a lookup skips a cell whose text the question already contains."""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection, Iterable
from typing import Any, NamedTuple

from . import linking, operators, question as questions, terms
from ..collection.table import Table
from .linking import Mention
from .question import Question
from .view import TableView

STRONG = 0.5
BLANK = {"", "n/a", "na", "-", "—", "–", "?", "none", "tba", "tbd"}  # empty cells: next / previous skip them
EXCLUDE_CUES = ("other than", "besides", "beside", "except", "aside from", "apart from", "not", "excluding", "but")
VALUE_LEXICON = {  # superlative word -> header stems of the column it is about
    "tallest": {"height", "floor", "m", "ft", "storey", "elevation"}, "taller": {"height", "floor", "m", "ft"},
    "highest": {"height", "elevation", "m", "ft"}, "largest": {"area", "population", "size", "capacity", "total"},
    "biggest": {"area", "population", "size", "capacity"}, "smallest": {"area", "population", "size", "capacity"},
    "larger": {"area", "population", "size", "capacity"}, "greatest": {"population", "total", "area"},
    "longest": {"length", "time", "duration", "km", "distance", "mile", "day", "term"},
    "shortest": {"length", "time", "duration", "km", "distance", "day", "term"},
    "longer": {"length", "time", "duration", "km", "distance"},
    "old": {"year", "date", "age", "born", "built", "founded", "established", "season", "opened", "released"},
    "young": {"year", "date", "age", "born", "built", "founded", "established", "season", "opened", "released"},
    "fast": {"time", "speed", "mph", "retired"}, "slow": {"time", "speed", "mph", "retired"},
    "populous": {"population"}, "richest": {"income", "gdp", "revenue", "worth"}, "heaviest": {"weight"},
    "busiest": {"passenger", "traffic"}, "best": {"rank", "pos", "position", "place", "finish", "score", "point"},
    "worst": {"rank", "pos", "position", "place", "finish", "score", "point"},
    "earliest": {"year", "date", "season"}, "latest": {"year", "date", "season"},
    "newest": {"year", "date", "season", "built", "opened"}, "recent": {"year", "date", "season"},
}


@dataclasses.dataclass
class Answer:
    text: str
    operator: str = "none"
    score: float = 0.0
    rows: list[int] = dataclasses.field(default_factory=list)
    column: str = ""
    source: str = ""
    detail: str = ""

    def trace(self) -> dict[str, Any]:
        return {"answer": self.text, "operator": self.operator, "file": self.source, "rows": self.rows,
                "column": self.column, "detail": self.detail}


def answer(question: str, tables: Iterable[Table], views: dict[int, TableView] | None = None) -> Answer:
    """The best Answer to QUESTION over TABLES (the highest score; ties: the first table). VIEWS: an optional
    cache {id(table): TableView}."""
    q = questions.analyse(question)
    best: Answer | None = None
    for table in tables:
        if views is not None:
            view = views.get(id(table)) or views.setdefault(id(table), TableView(table))
        else:
            view = TableView(table)
        if not view.rows or not view.header:
            continue
        a = answer_view(q, view)
        if best is None or a.score > best.score:
            best = a
    return best or Answer("", "none", detail="no table")


def mention_positions(q: Question, view: TableView, ms: Iterable[Mention]) -> dict[Mention, int]:
    """{mention: index of its first word in the question} for exact mentions (-1 when not found)."""
    out: dict[Mention, int] = {}
    for m in ms:
        ws = terms.words(view.rows[m.row][m.col])
        n = len(ws)
        out[m] = next((k for k in range(len(q.words) - n + 1) if q.words[k:k + n] == ws), -1) if m.exact else -1
    return out


def column_score(q: Question, view: TableView, j: int, avoid: Collection[int] = (), key: int | None = None) -> float:
    """How likely column J holds the answer (see the module docstring)."""
    col = view.columns[j]
    score = linking.header_score(q, col)
    stems = set(col.stems)
    if q.wh == "who":
        score += 1.0 * bool(stems & linking.PERSON) + linking.personish(view, j)
        score -= 1.0 * (col.numeric or col.date)
    elif q.wh == "when":
        score += 1.5 * bool(stems & linking.WHEN or col.date)
    elif q.wh == "where":
        score += 1.5 * bool(stems & linking.WHERE)
    elif q.wh in ("count", "amount"):
        score += 0.5 * col.numeric
    if q.wh in ("which", "who") and col.numeric:
        score -= 1.0  # "which X": an entity, rarely a number
    if j in avoid:
        score -= 1.5
    if col.rank and not ({"rank", "position", "place", "pos", "rk"} & q.stems):
        score -= 0.6
    if j == key:
        score += 0.3
    if not col.header.strip():
        score -= 0.2
    return score


def value_column(q: Question, view: TableView, avoid: Collection[int] = (),
                 numeric_only: bool = False) -> tuple[int | None, float]:
    """The column a superlative / threshold / sum is about: a numeric or date column, best by header score
    plus the superlative word's lexicon; None when no such column. Returns (column, score)."""
    lexicon = VALUE_LEXICON.get(q.super_word, set()) | VALUE_LEXICON.get(q.superlative, set())
    best: int | None = None
    best_score: float | None = None
    for col in view.columns:
        if not (col.numeric or (col.date and not numeric_only)) or col.index in avoid:
            continue
        score = linking.header_score(q, col) + 0.8 * bool(lexicon & set(col.stems))
        if best_score is None or score > best_score:
            best, best_score = col.index, score
    return best, best_score or 0.0


def excluded_mentions(q: Question, ms: Iterable[Mention], pos: dict[Mention, int]) -> set[Mention]:
    """The mentions that follow an exclusion cue (`other than X`, `except X`): their rows are left out."""
    if not q.exclude:
        return set()
    return {m for m in ms if pos[m] > 0 and any(tuple(q.words[max(0, pos[m] - len(c.split())):pos[m]]) ==
                                                 tuple(c.split()) for c in EXCLUDE_CUES)}


def counting(q: Question) -> bool:
    """The question asks for a count, a sum or an average (steps 4-5)."""
    return q.count or q.average or (q.total and q.wh in ("count", "amount", "what"))


class Filtered(NamedTuple):
    """Step 3: ROWS, the body rows the exclusions, thresholds and conditions keep; CONDS, {column: rows} of the
    strong mentions; AVOID, the columns the answer is not in (conditions, the threshold column); NARROWED,
    whether the conditions left out rows."""
    rows: list[int]
    conds: dict[int, set[int]]
    avoid: set[int]
    narrowed: bool


class Linked:
    """QUESTION linked to one table VIEW, as every operator reads it: its mentions (strong ones are conditions,
    excluded ones remove their rows) and, computed on first use (an operator that answers spares the rest),
    the entity column, the filtered rows, the column order and the answer column."""

    def __init__(self, q: Question, view: TableView) -> None:
        self.q, self.view = q, view
        self.mentions = linking.mentions(q, view)
        self.pos = mention_positions(q, view, self.mentions)
        self.key = view.key_column()
        self.excluded = excluded_mentions(q, self.mentions, self.pos)
        self.strong = [m for m in self.mentions if m.score >= STRONG and m not in self.excluded]
        self.link_score = sum(m.score for m in self.strong[:3])

    @functools.cached_property
    def entities(self) -> tuple[int, list[Mention]] | None:
        """(column, its mentions in question order) of the best column in which the question mentions two or
        more rows (exact mentions when there are two); None without one."""
        view, pos = self.view, self.pos
        groups: dict[int, dict[str, Mention]] = {}
        for m in self.mentions:
            if m.score >= 0.4 and m not in self.excluded:
                groups.setdefault(m.col, {}).setdefault(terms.norm(view.rows[m.row][m.col]), m)
        multi: dict[int, list[Mention]] = {}
        for j, g in groups.items():
            exact = [m for m in g.values() if m.exact]
            if len(g) >= 2:
                multi[j] = exact if len(exact) >= 2 else list(g.values())
        if not multi:
            return None
        j_ent = max(multi, key=lambda j: (sum(m.score for m in multi[j]), -j))
        return j_ent, sorted(multi[j_ent], key=lambda m: (pos[m] if pos[m] >= 0 else 99, m.row))

    def threshold_column(self) -> int | None:
        """The column thresholds compare with: the best numeric one; for a year-like bound without a named
        numeric column, the first year, season or date column."""
        q, view = self.q, self.view
        year_like = all(1000 <= v <= 2100 and float(v).is_integer() for _, v in q.thresholds)
        col, score = value_column(q, view, numeric_only=True)
        if year_like and score <= 0:
            dated = [c.index for c in view.columns if {"year", "season", "date"} & set(c.stems) or c.date]
            col = dated[0] if dated else col
        return col

    @functools.cached_property
    def filters(self) -> Filtered:
        """Step 3 (see Filtered); conditions apply strongest first, each only when it keeps a row."""
        q, view, strong = self.q, self.view, self.strong
        avoid = {m.col for m in strong}
        conds: dict[int, set[int]] = {}
        for m in strong:
            conds.setdefault(m.col, set()).add(m.row)
        gone = {m.row for m in self.excluded}
        rows = [i for i in view.body if i not in gone]
        col = self.threshold_column() if q.thresholds else None
        if col is not None:
            for op, bound in q.thresholds:
                rows = operators.threshold(view, rows, col, op, bound)
            avoid.add(col)
        kept = rows
        for j in sorted(conds, key=lambda j: -max(m.score for m in strong if m.col == j)):
            narrowed = [i for i in kept if i in conds[j]]
            if narrowed:
                kept = narrowed
        return Filtered(kept, conds, avoid, bool(conds) and kept != rows)

    @functools.cached_property
    def order(self) -> list[int]:
        """Columns best first by column_score (an entity question: text columns before numeric ones)."""
        q, view, avoid, key = self.q, self.view, self.filters.avoid, self.key
        entity = q.wh in ("which", "who")
        return sorted(range(len(view.columns)),
                      key=lambda j: (entity and view.columns[j].numeric, -column_score(q, view, j, avoid, key), j))

    @functools.cached_property
    def ans_col(self) -> int:
        """The answer column: the first of `order` (the superlative operator may move it to the second, and the
        operators after it keep that)."""
        return self.order[0]

    @functools.cached_property
    def number_column(self) -> tuple[int | None, bool]:
        """(the numeric column a count, sum or average is about, whether the question names it)."""
        c, _ = value_column(self.q, self.view, avoid=set(), numeric_only=True)
        return c, c is not None and linking.header_score(self.q, self.view.columns[c]) >= 1


# --- the operators: each returns an Answer (its own score, before the link score) or None to fall through ------

def difference(link: Linked) -> Answer | None:
    """1: |a - b| over the first two mentioned rows in the best numeric column."""
    q, view = link.q, link.view
    if not (q.difference and link.entities):
        return None
    j_ent, ents = link.entities
    c, _ = value_column(q, view, avoid={j_ent}, numeric_only=True)
    if c is None:
        return None
    a_, b_ = view.value(ents[0].row, c), view.value(ents[1].row, c)
    if a_ is None or b_ is None:
        return None
    return Answer(operators.fmt(abs(a_ - b_)), "difference", 1.0, [ents[0].row, ents[1].row], view.header[c])


def compare(link: Linked) -> Answer | None:
    """2: one of the rows mentioned in one column: by the superlative's value column, else the row that holds
    (with `not`: lacks) another mentioned cell. Not tried for a difference question."""
    q, view = link.q, link.view
    if q.difference or not (q.compare and link.entities):
        return None
    j_ent, ents = link.entities
    rows = [m.row for m in ents]
    if q.superlative:
        c, _ = value_column(q, view, avoid={j_ent})
        if c is None and view.columns[j_ent].numeric:
            c = j_ent
        if c is not None:
            how = operators.direction(q.superlative, view.columns[c])
            r = operators.arg_extreme(view, rows, c, how)
            if r is not None:
                return Answer(view.rows[r][j_ent], "compare", 1.0, [r], view.header[j_ent],
                              detail=f"{how} {view.header[c]}")
    others = [m for m in link.strong if m.col != j_ent]
    if not others:
        return None
    hits = [r for r in rows if any(m.row == r for m in others)]
    pick = [r for r in rows if r not in hits] if (" not " in f" {' '.join(q.words)} ") else hits
    if not pick:
        return None
    return Answer(view.rows[pick[0]][j_ent], "compare", 0.8, [pick[0]], view.header[j_ent], detail="condition")


def average(link: Linked) -> Answer | None:
    """5: the mean of the named numeric column over the filtered rows."""
    if not link.q.average:
        return None
    c, named = link.number_column
    if not named or c is None:  # named: c is not None
        return None
    rows = link.filters.rows
    vals = [v for _, v in operators.values(link.view, rows, c)]
    if not vals:
        return None
    return Answer(operators.fmt(sum(vals) / len(vals)), "average", 0.5, rows, link.view.header[c])


def named_number(link: Linked) -> Answer | None:
    """4: a number of the named numeric column (unless it holds a condition: "how many players had a total of
    4"): the one (or the conditions') row's (`how many games did X play`), or with `total` the table's total
    row or the sum over the filtered rows."""
    q, view = link.q, link.view
    if not counting(q):
        return None
    c, named = link.number_column
    f = link.filters
    if not named or c is None or c in f.conds:  # named: c is not None
        return None
    if len(f.rows) == 1 or (f.narrowed and not q.total):
        r = f.rows[0]
        return Answer(view.rows[r][c], "lookup-number", 0.6, [r], view.header[c])
    if not q.total or q.thresholds:
        return None
    summary = [i for i in range(len(view.rows)) if view.summary[i]]
    if not f.narrowed and summary and view.value(summary[-1], c) is not None:
        return Answer(view.rows[summary[-1]][c], "total-row", 0.5, [summary[-1]], view.header[c])
    vals = [v for _, v in operators.values(view, f.rows, c)]
    return Answer(operators.fmt(sum(vals)), "sum", 0.5, f.rows, view.header[c]) if vals else None


def count(link: Linked) -> Answer | None:
    """4: how many filtered rows (with `different`: distinct filled values of the answer column)."""
    q, view, rows = link.q, link.view, link.filters.rows
    if not q.count:
        return None
    if q.distinct:
        j = link.order[0]
        distinct = len({terms.norm(view.rows[i][j]) for i in rows if view.rows[i][j]})
        return Answer(operators.fmt(distinct), "count-distinct", 0.5, rows[:50], view.header[j])
    return Answer(operators.fmt(len(rows)), "count", 0.5, rows[:50])


def superlative(link: Linked) -> Answer | None:
    """6: the filtered row with the largest / smallest value of the value column (a rank column for `best`
    without one); a `most`/`least` that names no column counts the answer column's values instead."""
    q, view, rows = link.q, link.view, link.filters.rows
    if not (q.superlative and rows):
        return None
    ans_col, order = link.ans_col, link.order
    c, c_score = value_column(q, view, avoid={ans_col} if linking.header_score(q, view.columns[ans_col]) == 0
                              else set())
    freq = q.super_word in ("most", "least", "fewest") and c_score <= 0
    if freq and view.columns[ans_col].distinct < len(view.body):
        r = operators.most_common(view, rows, ans_col, "max" if q.superlative == "max" else "min")
        if r is not None:
            return Answer(view.rows[r][ans_col], "most-common", 0.4, [r], view.header[ans_col])
    if c is None or (c_score <= 0 and q.superlative in ("best", "worst")):
        ranks = [col.index for col in view.columns if col.rank and col.numeric]
        c = ranks[0] if ranks else c
    if c is None:
        return None
    if c == ans_col and linking.header_score(q, view.columns[c]) == 0 and len(order) > 1:
        ans_col = link.ans_col = order[1]  # the value column is not the answer; kept when no row is found
    how = operators.direction(q.superlative, view.columns[c])
    r = operators.arg_extreme(view, rows, c, how)
    if r is None:
        return None
    return Answer(view.rows[r][ans_col], f"superlative-{how}", 0.5, [r], view.header[ans_col],
                  detail=view.header[c])


def neighbour(link: Linked) -> Answer | None:
    """7: the nearest body row after / before the best mentioned row whose cell is filled (not n/a, a dash) and
    differs from the mentioned row's: in the answer column when the question names it, else in the mention's."""
    q, view, body = link.q, link.view, link.view.body
    if not (q.neighbour and link.strong) or link.strong[0].row not in body:
        return None
    anchor = link.strong[0]
    j = link.ans_col
    if linking.header_score(q, view.columns[j]) <= 0:
        j = anchor.col
    here = terms.norm(view.rows[anchor.row][j])
    k = body.index(anchor.row) + q.neighbour
    while 0 <= k < len(body) and terms.norm(view.rows[body[k]][j]) in BLANK | {here}:
        k += q.neighbour
    if not 0 <= k < len(body):
        return None
    r = body[k]
    return Answer(view.rows[r][j], "next" if q.neighbour > 0 else "previous", 0.5, [r], view.header[j],
                  detail=f"after row {anchor.row}")


def first_last(link: Linked) -> Answer | None:
    """8: the first / last filtered row; in time when the question names a date column ("the first ship
    launched")."""
    q, view, rows = link.q, link.view, link.filters.rows
    if not (q.ordinal and rows):
        return None
    ans_col = link.ans_col
    dated = sorted((c.index for c in view.columns if (c.date or {"year", "date"} & set(c.stems))
                    and linking.header_score(q, c) > 0 and c.index != ans_col),
                   key=lambda j: -linking.header_score(q, view.columns[j]))
    if dated:
        how = "min" if q.ordinal == "first" else "max"
        r = operators.arg_extreme(view, rows, dated[0], how)
        if r is not None:
            return Answer(view.rows[r][ans_col], q.ordinal + "-in-time", 0.4, [r], view.header[ans_col],
                          detail=f"{how} {view.header[dated[0]]}")
    r = rows[0] if q.ordinal == "first" else rows[-1]
    return Answer(view.rows[r][ans_col], q.ordinal, 0.4, [r], view.header[ans_col])


def lookup(link: Linked) -> Answer:
    """9: the best mentioned row (sum of its mention scores) among the filtered rows, in the best column whose
    cell the question does not already contain. Always answers."""
    q, view, f, order = link.q, link.view, link.filters, link.order
    row_score: dict[int, dict[int, float]] = {}
    for m in link.strong:
        row_score.setdefault(m.row, {}).setdefault(m.col, m.score)
    candidates = [r for r in f.rows if r in row_score] or (list(f.rows) if (f.narrowed or q.thresholds) else [])
    if not candidates:
        candidates = sorted(row_score, key=lambda r: -sum(row_score[r].values())) or f.rows[:1]
    if not candidates:
        return Answer("", "none", -1.0)
    r = max(candidates, key=lambda r: (sum(row_score.get(r, {}).values()), -r))
    qtext = " " + " ".join(q.words) + " "
    for j in order[:4]:
        cell = view.rows[r][j]
        ws = terms.words(cell)
        if cell and not (ws and f" {' '.join(ws)} " in qtext):
            return Answer(cell, "lookup", 0.3, [r], view.header[j])
    return Answer(view.rows[r][order[0]], "lookup", 0.1, [r], view.header[order[0]])


# tried in this order; the first Answer wins (the average comes before the count's lookup, sum and count)
OPERATORS = (difference, compare, average, named_number, count, superlative, neighbour, first_last, lookup)


def answer_view(q: Question, view: TableView) -> Answer:
    """The Answer of the first operator of OPERATORS that finds one, its score raised by the link score (the
    question's three best strong mentions)."""
    link = Linked(q, view)
    a = next(a for a in (operator(link) for operator in OPERATORS) if a is not None)  # lookup always answers
    a.score = link.link_score + a.score
    a.source = view.table.source
    return a
