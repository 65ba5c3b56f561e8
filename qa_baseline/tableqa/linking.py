"""Which cells and columns of a table a question talks about.

A cell is *mentioned* when its words occur in the question: score 1 + 0.1 per word when its whole text occurs
as a phrase (word boundaries, after `terms.norm`), else the share of its content stems found in the question
(at least half, and at least one stem of three letters or more), times 0.8. A cell that is a plain number is
mentioned when the question names that value (numbers that are thresholds, `more than 5`, do not count).
A year named by the question mentions the date cells of that year (score 0.6). Notes in brackets (`[1]`,
`[citation needed]`) are not part of a cell's words. Cells of one word that is a stop word, one-character
cells other than digits, and the label cells of summary rows are never mentioned.

A column's *header score* is the number of its header's content stems found among the question's content
stems, plus 2 per stem of the target noun phrase (`which athlete`); header stems match through SYNONYMS too."""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from . import terms

if TYPE_CHECKING:
    from .question import Question
    from .view import Column, TableView

NOTE = re.compile(r"\[[^]]*\]")

SYNONYMS = {  # question word -> header stems it may name (small, generic table vocabulary)
    "country": {"nation", "nationality", "country", "team", "noc"}, "nation": {"country", "nationality", "team", "noc"},
    "nationality": {"nation", "country"}, "player": {"name", "player"}, "athlete": {"name", "athlete", "player"},
    "person": {"name"}, "who": {"name"}, "team": {"club", "team", "school", "squad", "name"},
    "club": {"team", "club"}, "school": {"school", "team", "institution", "college", "university"},
    "song": {"single", "title", "song", "track"}, "single": {"single", "title", "song"},
    "track": {"title", "song", "track"}, "film": {"title", "film", "movie"}, "movie": {"title", "film"},
    "album": {"album", "title"}, "game": {"title", "game", "opponent"}, "show": {"title", "show", "program"},
    "book": {"title"}, "episode": {"title", "episode"}, "year": {"year", "season", "date"},
    "season": {"season", "year"}, "date": {"date", "year", "dat"}, "when": {"date", "year", "season"},
    "competition": {"competition", "tournament", "event", "championship"},
    "tournament": {"tournament", "competition", "event"}, "event": {"event", "competition", "tournament"},
    "location": {"location", "venue", "city", "place"}, "venue": {"venue", "location", "stadium", "place"},
    "where": {"location", "venue", "city", "place", "country", "site", "stadium"},
    "city": {"city", "location", "town", "venue"}, "town": {"town", "city", "location"},
    "place": {"venue", "location", "place"}, "population": {"population", "pop", "inhabitant", "resident"},
    "resident": {"population"}, "people": {"population", "attendance"}, "attendance": {"attendance", "crowd"},
    "driver": {"driver", "name"}, "rider": {"rider", "name"}, "racer": {"rider", "driver", "name"},
    "runner": {"athlete", "name"}, "swimmer": {"swimmer", "name"}, "competitor": {"athlete", "name", "competitor"},
    "winner": {"winner", "champion"}, "champion": {"champion", "winner"}, "coach": {"coach", "head", "manager"},
    "leader": {"leader", "president", "chairman"}, "building": {"name", "building"}, "car": {"car", "model", "name"},
    "company": {"company", "manufacturer", "maker"}, "manufacturer": {"manufacturer", "make", "constructor"},
    "make": {"make", "manufacturer"}, "medal": {"medal"}, "score": {"score", "result", "points"},
    "point": {"point", "pts", "score"}, "goal": {"goal", "gls"}, "vote": {"vote"},
    "region": {"region", "area", "province"}, "area": {"area", "region", "district"}, "district": {"district"},
    "illustrator": {"illustrator"}, "opponent": {"opponent", "opposition", "against"},
    "release": {"released", "release", "date"},
    "length": {"length", "time", "duration"}, "long": {"length", "time", "duration"},
    "tall": {"height", "floors", "m", "ft"}, "height": {"height", "elevation"}, "age": {"age"},
}
PERSON = {"name", "player", "athlete", "driver", "rider", "winner", "artist", "actor", "actress", "coach", "captain",
          "manager", "candidate", "member", "competitor", "person", "runner", "swimmer", "skater", "wrestler",
          "cyclist", "author", "director", "president", "leader", "champion", "representative", "governor",
          "minister", "judge", "senator", "incumbent", "nominee", "recipient", "holder", "performer", "singer",
          "composer", "writer", "chairman", "mayor", "owner", "boxer", "golfer", "jockey", "pilot", "racer",
          "laureate", "contestant", "illustrator", "scorer", "goalkeeper", "opponent", "surname", "king", "ruler"}
WHEN = {"date", "year", "season", "released", "release", "dates", "years", "period", "term", "founded", "built",
        "established", "opened", "born", "time", "day", "first", "elected", "launched", "aired", "air"}
WHERE = {"venue", "location", "city", "country", "site", "stadium", "arena", "hometown", "place", "town", "state",
         "region", "province", "county", "ground", "address", "nation", "circuit", "track", "host"}


@dataclasses.dataclass(frozen=True)
class Mention:
    row: int
    col: int
    score: float
    exact: bool


def mentions(q: Question, view: TableView) -> list[Mention]:
    """Mentioned cells of VIEW, best first (score, then table order)."""
    qtext = " " + " ".join(q.words) + " "
    numbers = set(q.numbers) - {v for _, v in q.thresholds}
    years = {int(v) for v in numbers if 1000 <= v <= 2100 and float(v).is_integer()}
    out: list[Mention] = []
    for i, row in enumerate(view.rows):
        for j, cell in enumerate(row):
            if not cell or (view.summary[i] and j <= 1):
                continue
            ws = terms.words(NOTE.sub(" ", cell))
            if not ws or (len(" ".join(ws)) < 2 and not ws[0].isdigit()) or (len(ws) == 1 and ws[0] in terms.STOP):
                continue
            if f" {' '.join(ws)} " in qtext:
                if view.columns[j].numeric and view.columns[j].numbers[i] is not None and \
                        view.columns[j].numbers[i] not in numbers:
                    continue  # a number that is a threshold or part of a longer number
                out.append(Mention(i, j, 1 + 0.1 * len(ws), True))
                continue
            value = view.columns[j].numbers[i]
            if value is not None and value in numbers and len(ws) <= 3:
                out.append(Mention(i, j, 1.0, True))
                continue
            if years and view.columns[j].date and terms.year_of(cell) in years:
                out.append(Mention(i, j, 0.6, False))  # the year of a date cell
                continue
            cont = [terms.stem(w) for w in ws if w not in terms.STOP]
            if not cont:
                continue
            hit = [s for s in cont if s in q.stems]
            if hit and len(hit) * 2 >= len(cont) and any(len(s) >= 3 and not s.isdigit() for s in hit):
                out.append(Mention(i, j, 0.8 * len(hit) / len(cont), False))
    out.sort(key=lambda m: (-m.score, m.row, m.col))
    return out


def header_score(q: Question, col: Column, extra: Iterable[str] = ()) -> float:
    """How well COL's header matches the question (see the module docstring); EXTRA: more stems to match."""
    stems = {s for s in col.stems if s not in terms.STOP}
    if not stems:
        return 0.0
    named: set[str] = set()
    for s in q.content | set(extra):
        if s in stems or SYNONYMS.get(s, set()) & stems:
            named.add(s)
    score = float(len(named))
    for s in q.target:
        if s in stems or SYNONYMS.get(s, set()) & stems:
            score += 2
    return score / (1 + 0.25 * max(0, len(stems) - 2))


def personish(view: TableView, j: int) -> float:
    """Share of a column's body cells that look like person names: 2 to 4 capitalised words, no digits."""
    cells = [view.rows[i][j] for i in view.body if view.rows[i][j]]
    if not cells:
        return 0.0
    def ok(c: str) -> bool:
        ws = c.split()
        return 2 <= len(ws) <= 5 and not any(ch.isdigit() for ch in c) and sum(w[:1].isupper() for w in ws) >= 2
    return sum(map(ok, cells)) / len(cells)


def table_match(q: Question, view: TableView) -> float:
    """How well a table matches a question (to choose among datasets): the sum of its 3 best cell mention
    scores plus half the sum of its 2 best header scores."""
    cells = sum(m.score for m in mentions(q, view)[:3])
    headers = sorted((header_score(q, col) for col in view.columns), reverse=True)[:2]
    return cells + 0.5 * sum(headers)
