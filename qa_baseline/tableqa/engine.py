"""Answer a question from a dataset's tables: analyse the question, link it to cells and columns, run the
operator it asks for, return a verbatim cell (or a computed number) with a trace.

The operator, in this order of precedence (each falls through when its parts are missing):
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
import dataclasses

from . import linking, operators, question as questions, text
from .view import TableView

STRONG = 0.5
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
    rows: list = dataclasses.field(default_factory=list)
    column: str = ""
    source: str = ""
    detail: str = ""

    def trace(self):
        return {"answer": self.text, "operator": self.operator, "file": self.source, "rows": self.rows,
                "column": self.column, "detail": self.detail}


def answer(question, tables, views=None):
    """The best Answer to QUESTION over TABLES (the highest score; ties: the first table). VIEWS: an optional
    cache {id(table): TableView}."""
    q = questions.analyse(question)
    best = None
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


def mention_positions(q, view, ms):
    """{mention: index of its first word in the question} for exact mentions (-1 when not found)."""
    out = {}
    for m in ms:
        ws = text.words(view.rows[m.row][m.col])
        n = len(ws)
        out[m] = next((k for k in range(len(q.words) - n + 1) if q.words[k:k + n] == ws), -1) if m.exact else -1
    return out


def column_score(q, view, j, avoid=(), key=None):
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


def value_column(q, view, avoid=(), numeric_only=False):
    """The column a superlative / threshold / sum is about: a numeric or date column, best by header score
    plus the superlative word's lexicon; None when no such column. Returns (column, score)."""
    lexicon = VALUE_LEXICON.get(q.super_word, set()) | VALUE_LEXICON.get(q.superlative, set())
    best, best_score = None, None
    for col in view.columns:
        if not (col.numeric or (col.date and not numeric_only)) or col.index in avoid:
            continue
        score = linking.header_score(q, col) + 0.8 * bool(lexicon & set(col.stems))
        if best_score is None or score > best_score:
            best, best_score = col.index, score
    return best, best_score or 0.0


def answer_view(q, view):
    ms = linking.mentions(q, view)
    pos = mention_positions(q, view, ms)
    key = view.key_column()
    excluded = set()
    if q.exclude:
        low_words = q.words
        for m in ms:
            k = pos[m]
            if k > 0 and any(tuple(low_words[max(0, k - len(c.split())):k]) == tuple(c.split())
                             for c in EXCLUDE_CUES):
                excluded.add(m)
    strong = [m for m in ms if m.score >= STRONG and m not in excluded]
    link_score = sum(m.score for m in strong[:3])
    mentioned_cols = {m.col for m in strong}

    def finish(a):
        a.score = link_score + a.score
        a.source = view.table.source
        return a

    # 1-2: two or more rows mentioned in one column
    groups = {}
    for m in ms:
        if m.score >= 0.4 and m not in excluded:
            groups.setdefault(m.col, {}).setdefault(text.norm(view.rows[m.row][m.col]), m)
    multi = {}
    for j, g in groups.items():
        exact = [m for m in g.values() if m.exact]
        if len(g) >= 2:
            multi[j] = exact if len(exact) >= 2 else list(g.values())
    if multi and (q.difference or q.compare):
        j_ent = max(multi, key=lambda j: (sum(m.score for m in multi[j]), -j))
        ents = sorted(multi[j_ent], key=lambda m: (pos[m] if pos[m] >= 0 else 99, m.row))
        if q.difference:
            c, _ = value_column(q, view, avoid={j_ent}, numeric_only=True)
            if c is not None:
                a_, b_ = view.value(ents[0].row, c), view.value(ents[1].row, c)
                if a_ is not None and b_ is not None:
                    return finish(Answer(operators.fmt(abs(a_ - b_)), "difference", 1.0,
                                         [ents[0].row, ents[1].row], view.header[c]))
        else:
            rows = [m.row for m in ents]
            if q.superlative:
                c, _ = value_column(q, view, avoid={j_ent})
                if c is None and view.columns[j_ent].numeric:
                    c = j_ent
                if c is not None:
                    how = operators.direction(q.superlative, view.columns[c])
                    r = operators.arg_extreme(view, rows, c, how)
                    if r is not None:
                        return finish(Answer(view.rows[r][j_ent], "compare", 1.0, [r], view.header[j_ent],
                                             detail=f"{how} {view.header[c]}"))
            others = [m for m in strong if m.col != j_ent]
            if others:
                hits = [r for r in rows if any(m.row == r for m in others)]
                pick = [r for r in rows if r not in hits] if (" not " in f" {' '.join(q.words)} ") else hits
                if pick:
                    return finish(Answer(view.rows[pick[0]][j_ent], "compare", 0.8, [pick[0]],
                                         view.header[j_ent], detail="condition"))

    # 3: filters
    avoid = set(mentioned_cols)
    rows = list(view.body)
    conds = {}
    for m in strong:
        conds.setdefault(m.col, set()).add(m.row)
    if excluded:
        gone = {m.row for m in excluded}
        rows = [i for i in rows if i not in gone]
    thr_col = None
    if q.thresholds:
        year_like = all(1000 <= v <= 2100 and float(v).is_integer() for _, v in q.thresholds)
        thr_col, s = value_column(q, view, numeric_only=True)
        if year_like and s <= 0:
            dated = [c.index for c in view.columns if {"year", "season", "date"} & set(c.stems) or c.date]
            thr_col = dated[0] if dated else thr_col
        if thr_col is not None:
            for op, bound in q.thresholds:
                kept = operators.threshold(view, rows, thr_col, op, bound)
                rows = kept
            avoid.add(thr_col)
    cond_rows = rows
    for j in sorted(conds, key=lambda j: -max(m.score for m in strong if m.col == j)):
        kept = [i for i in cond_rows if i in conds[j]]
        if kept:
            cond_rows = kept
    filtered = bool(conds) and cond_rows != rows
    rows_f = cond_rows

    def pick_column():
        entity = q.wh in ("which", "who")  # an entity: text columns before numeric ones
        return sorted(range(len(view.columns)),
                      key=lambda j: (entity and view.columns[j].numeric, -column_score(q, view, j, avoid, key), j))

    # 4-5: count, sum, average
    if q.count or q.average or (q.total and q.wh in ("count", "amount", "what")):
        c, c_score = value_column(q, view, avoid=set(), numeric_only=True)
        named = c is not None and linking.header_score(q, view.columns[c]) >= 1
        if q.average and named:
            vals = [v for _, v in operators.values(view, rows_f, c)]
            if vals:
                return finish(Answer(operators.fmt(sum(vals) / len(vals)), "average", 0.5, rows_f, view.header[c]))
        if named and c in conds:
            named = False  # the named column holds the condition: "how many players had a total of 4"
        if named and (len(rows_f) == 1 or (filtered and not q.total)):
            r = rows_f[0]
            return finish(Answer(view.rows[r][c], "lookup-number", 0.6, [r], view.header[c]))
        if named and q.total and not q.thresholds:
            summary = [i for i in range(len(view.rows)) if view.summary[i]]
            if not filtered and summary and view.value(summary[-1], c) is not None:
                return finish(Answer(view.rows[summary[-1]][c], "total-row", 0.5, [summary[-1]], view.header[c]))
            vals = [v for _, v in operators.values(view, rows_f, c)]
            if vals:
                return finish(Answer(operators.fmt(sum(vals)), "sum", 0.5, rows_f, view.header[c]))
        if q.count:
            j = pick_column()[0] if q.distinct else None
            return finish(Answer(operators.fmt(operators.count(view, rows_f, j, q.distinct)),
                                 "count-distinct" if q.distinct else "count", 0.5, rows_f[:50],
                                 view.header[j] if j is not None else ""))

    order = pick_column()
    ans_col = order[0]

    # 6: superlative
    if q.superlative and rows_f:
        c, c_score = value_column(q, view, avoid={ans_col} if linking.header_score(q, view.columns[ans_col]) == 0
                                  else set())
        freq = q.super_word in ("most", "least", "fewest") and c_score <= 0
        if freq and view.columns[ans_col].distinct < len(view.body):
            r = operators.most_common(view, rows_f, ans_col, "max" if q.superlative == "max" else "min")
            if r is not None:
                return finish(Answer(view.rows[r][ans_col], "most-common", 0.4, [r], view.header[ans_col]))
        if c is None or (c_score <= 0 and q.superlative in ("best", "worst")):
            ranks = [col.index for col in view.columns if col.rank and col.numeric]
            c = ranks[0] if ranks else c
        if c is not None:
            if c == ans_col and linking.header_score(q, view.columns[c]) == 0 and len(order) > 1:
                ans_col = order[1]
            how = operators.direction(q.superlative, view.columns[c])
            r = operators.arg_extreme(view, rows_f, c, how)
            if r is not None:
                return finish(Answer(view.rows[r][ans_col], f"superlative-{how}", 0.5, [r], view.header[ans_col],
                                     detail=view.header[c]))

    # 7: next / previous
    if q.neighbour and strong:
        anchor = strong[0]
        j = ans_col
        if linking.header_score(q, view.columns[j]) <= 0:
            j = anchor.col
        r = operators.neighbour(view, anchor.row, q.neighbour, j)
        if r is not None:
            return finish(Answer(view.rows[r][j], "next" if q.neighbour > 0 else "previous", 0.5, [r],
                                 view.header[j], detail=f"after row {anchor.row}"))

    # 8: first / last (in time when the question names a date column: "the first ship launched")
    if q.ordinal and rows_f:
        dated = sorted((c.index for c in view.columns if (c.date or {"year", "date"} & set(c.stems))
                        and linking.header_score(q, c) > 0 and c.index != ans_col),
                       key=lambda j: -linking.header_score(q, view.columns[j]))
        if dated:
            how = "min" if q.ordinal == "first" else "max"
            r = operators.arg_extreme(view, rows_f, dated[0], how)
            if r is not None:
                return finish(Answer(view.rows[r][ans_col], q.ordinal + "-in-time", 0.4, [r], view.header[ans_col],
                                     detail=f"{how} {view.header[dated[0]]}"))
        r = rows_f[0] if q.ordinal == "first" else rows_f[-1]
        return finish(Answer(view.rows[r][ans_col], q.ordinal, 0.4, [r], view.header[ans_col]))

    # 9: lookup
    row_score = {}
    for m in strong:
        row_score.setdefault(m.row, {}).setdefault(m.col, m.score)
    candidates = [r for r in rows_f if r in row_score] or ([r for r in rows_f] if (filtered or q.thresholds)
                                                           else [])
    if not candidates:
        candidates = sorted(row_score, key=lambda r: -sum(row_score[r].values())) or rows_f[:1]
    if not candidates:
        return finish(Answer("", "none", -1.0))
    r = max(candidates, key=lambda r: (sum(row_score.get(r, {}).values()), -r))
    qtext = " " + " ".join(q.words) + " "
    for j in order[:4]:
        cell = view.rows[r][j]
        ws = text.words(cell)
        if cell and not (ws and f" {' '.join(ws)} " in qtext):
            return finish(Answer(cell, "lookup", 0.3, [r], view.header[j]))
    return finish(Answer(view.rows[r][order[0]], "lookup", 0.1, [r], view.header[order[0]]))
