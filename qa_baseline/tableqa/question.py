"""What a question asks for, from its words alone (no table): the answer type, the target noun, the numbers it
names, and the cue words of each operator.

Cues (first match in the question, lower-cased, accents dropped):
- count: `how many` (not `how many more`), `number of`, `count`; `different`/`distinct`/`unique` = distinct values.
- difference: `how many more|fewer|less`, `how much more|less|higher|...`, `difference`.
- sum / average: `total|combined|altogether|in all|sum` / `average|mean`.
- superlative: a max word (most, highest, largest, longest, ...) or a min word (least, lowest, fewest,
  smallest, shortest, ...); `top`, `best`, `worst`, `oldest`, `youngest`, `newest`, `fastest`, `slowest` keep
  their word so the column decides the direction (rank columns reverse max and min; time columns make
  `fastest` a min).
- first / last: first, earliest listed, top of, initial, debut / last, final, bottom, latest listed.
- next / previous: after, next, following, below, behind / before, previous, preceding, prior, above.
  `after`/`before` followed by a number is a threshold instead (`after 2010` = > 2010).
- threshold: `more than N`, `over N`, `at least N`, `N or more`, `less than N`, `under N`, `at most N`, ...
- exclusion: `other than X`, `besides X`, `except X`, `aside from X`, `apart from X`, `not`, `without`.
- comparison: ` or ` between two names, `between`, `which is ...er`."""
from __future__ import annotations

import dataclasses
import re

from . import terms

MAX_WORDS = {"most", "highest", "largest", "biggest", "greatest", "longest", "tallest", "maximum", "max", "heaviest",
             "more", "higher", "larger", "bigger", "greater", "longer", "taller", "heavier", "widest", "deepest",
             "richest", "latest", "newest", "recent", "farthest", "furthest", "strongest", "busiest", "oftenest",
             "highest-ranked", "largest-populated", "warmest", "hottest", "populous", "max."}
MIN_WORDS = {"least", "lowest", "smallest", "fewest", "shortest", "minimum", "min", "lightest", "less", "fewer",
             "lower", "smaller", "shorter", "earliest", "closest", "nearest", "cheapest", "poorest", "coldest",
             "narrowest", "shallowest", "weakest", "lowest-ranked"}
DIRECTED = {"top": "best", "best": "best", "better": "best", "worst": "worst", "worse": "worst",
            "oldest": "old", "older": "old", "youngest": "young", "younger": "young", "fastest": "fast",
            "faster": "fast", "quickest": "fast", "quicker": "fast", "slowest": "slow", "slower": "slow",
            "first-place": "best", "winningest": "best"}
FIRST_WORDS = {"first", "initial", "debut", "1st", "earliest", "opening", "premier"}
LAST_WORDS = {"last", "final", "bottom", "latest", "lst", "finally", "recently"}
NEXT_WORDS = {"after", "next", "following", "below", "behind", "succeeding", "subsequent", "afterwards", "later",
              "underneath", "beneath"}
PREV_WORDS = {"before", "previous", "preceding", "prior", "above", "preceded", "previously", "earlier"}
ORDINALS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
            "tenth": 10, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "7th": 7, "8th": 8, "9th": 9, "10th": 10}
NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "hundred": 100, "thousand": 1000,
                "once": 1, "twice": 2, "single": 1}
GT = r"(?:more than|greater than|higher than|larger than|bigger than|longer than|over|above|exceeding|in excess of|" \
     r"after|beyond|upwards of|\>)"
GE = r"(?:at least|no less than|no fewer than|a minimum of|minimum of|or more|or greater|or higher|or over|\+|>=)"
LT = r"(?:less than|fewer than|lower than|smaller than|shorter than|under|below|before|beneath|\<)"
LE = r"(?:at most|no more than|a maximum of|maximum of|or less|or fewer|or lower|or under|or below|<=)"
NUMBER = r"(\$?\d[\d,]*(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r")"
WH = (("how many", "count"), ("how much", "amount"), ("what year", "when"), ("which year", "when"),
      ("what date", "when"), ("when", "when"), ("who", "who"), ("whom", "who"), ("whose", "who"),
      ("where", "where"), ("what", "what"), ("which", "which"), ("name", "which"), ("list", "which"),
      ("tell me", "which"))
TARGET_SKIP = {"is", "was", "are", "were", "the", "a", "an", "did", "does", "do", "has", "had", "have", "of", "in",
               "other", "only", "one", "two", "kind", "type", "sort", "many", "much", "me", "each", "all", "be",
               "different", "distinct", "unique", "total", "of", "following"}


def _value(word):
    word = word.replace("$", "").replace(",", "")
    return float(NUMBER_WORDS[word]) if word in NUMBER_WORDS else float(word)


@dataclasses.dataclass
class Question:
    text: str
    norm: str = ""
    words: tuple[str, ...] = ()
    stems: frozenset[str] = frozenset()
    content: frozenset[str] = frozenset()
    numbers: list[float] = dataclasses.field(default_factory=list)   # values named in the question
    wh: str = ""
    target: tuple[str, ...] = ()          # stems of the noun phrase asked for ("which athlete" -> ("athlete",))
    count: bool = False
    distinct: bool = False
    difference: bool = False
    total: bool = False
    average: bool = False
    superlative: str = ""       # "max", "min" or a DIRECTED word class ("best", "old", ...)
    super_word: str = ""
    ordinal: str = ""           # "first" / "last"
    neighbour: int = 0          # +1 next, -1 previous
    thresholds: list[tuple[str, float]] = dataclasses.field(default_factory=list)   # (op, value)
    exclude: bool = False
    compare: bool = False
    only: bool = False
    same: bool = False
    nth: int = 0                # "second", "3rd" as a position


CUES = {  # Question flag -> its cue, searched in " the question's words "
    "difference": r" how (many|much) (more|fewer|less|higher|lower|longer|shorter|bigger|larger|greater|older|"
                  r"younger)\b| difference | differ | gap | margin ",
    "distinct": r" (different|distinct|unique|various) ",
    "total": r" (total|combined|altogether|in all|sum|overall|cumulative) ",
    "average": r" (average|mean|avg) ",
    "exclude": r" (other than|besides|beside|except|aside from|apart from|not|without|excluding|but) ",
    "only": r" only ",
    "same": r" (same|also|as well) ",
    "compare": r" or | between | versus | vs | of the following ",
}


def analyse(question: str) -> Question:
    """The Question of a question string (see the module docstring)."""
    q = Question(question)
    q.norm = terms.norm(question)
    q.words = ws = terms.words(question)
    q.stems = frozenset(terms.stem(w) for w in ws)
    q.content = frozenset(terms.stem(w) for w in ws if w not in terms.STOP)
    low = " " + " ".join(ws) + " "
    q.numbers, q.nth = _numbers(q.norm, ws)
    q.wh = next((wh for cue, wh in WH if f" {cue} " in low), "")
    q.target = _target(ws)
    for flag, cue in CUES.items():
        setattr(q, flag, bool(re.search(cue, low)))
    q.compare = q.compare or ":" in q.norm
    q.superlative, q.super_word = _superlative(ws, q.difference)
    q.count = not q.difference and (q.wh == "count" or (bool(re.search(r" number of | count ", low))
                                                          and not q.superlative))
    q.thresholds = _thresholds(" " + re.sub(r"[^\w\s,.$<>+]", " ", q.norm) + " ")
    if q.thresholds and q.super_word in {"more", "less", "fewer", "higher", "lower", "over", "under"}:
        q.superlative = q.super_word = ""
    q.ordinal = _ordinal(ws, low, q.super_word)
    q.neighbour = _neighbour(ws)
    return q


def _numbers(norm, ws):
    """(the values the question names: numbers in digits, number words, ordinals; the first ordinal's position)."""
    numbers, nth = [], 0
    for m in re.finditer(r"(?<![\w.])\$?\d[\d,]*(?:\.\d+)?(?=st\b|nd\b|rd\b|th\b|s\b|[^\w]|$)", norm):
        try:
            numbers.append(float(m.group(0).replace("$", "").replace(",", "").rstrip(".")))
        except ValueError:
            pass
    for w in ws:
        if w in NUMBER_WORDS and w not in {"once", "single", "one"}:
            numbers.append(float(NUMBER_WORDS[w]))
        if w in ORDINALS:
            numbers.append(float(ORDINALS[w]))
            nth = nth or ORDINALS[w]
    return numbers, nth


def _superlative(ws, difference):
    """(superlative, its word) of the first superlative word: "max", "min" or a DIRECTED class; ("", "") without
    one. `at least`, `the top of` and, in a difference question, more/less/fewer are none."""
    for k, w in enumerate(ws):
        if k and ws[k - 1] == "at" and w in {"least", "most", "top", "bottom"}:
            continue  # "at least 5", "at the top" (below) are no superlatives
        if w == "top" and k and ws[k - 1] == "the" and (k + 1 == len(ws) or ws[k + 1] in {"of", "list", "row"}):
            continue
        if w in DIRECTED:
            return DIRECTED[w], w
        if w in MAX_WORDS or w in MIN_WORDS:
            if w in {"more", "less", "fewer"} and difference:
                continue
            return ("max" if w in MAX_WORDS else "min"), w
    return "", ""


def _ordinal(ws, low, super_word):
    """"first", "last" or "" from the first first/last word (not `earliest` when it is the superlative) or a
    top/bottom phrase."""
    ordinal = next(("first" if w in FIRST_WORDS else "last" for w in ws if w in FIRST_WORDS or w in LAST_WORDS), "")
    if ordinal == "first" and super_word == "earliest":
        ordinal = ""
    if re.search(r" (at|on) the top | top of the | top (row|entry|name)", low):
        return "first"
    if re.search(r" (at|on) the bottom | bottom of the ", low):
        return "last"
    return ordinal


def _neighbour(ws):
    """+1 (next) or -1 (previous) from the first next/previous word not followed by a number or year (that is a
    threshold: `after 2010`); 0 without one."""
    for i, w in enumerate(ws):
        follows = ws[i + 1] if i + 1 < len(ws) else ""
        if w == "following" and i and ws[i - 1] == "the":
            continue  # "which of the following": a list, not the next row
        if w in NEXT_WORDS | PREV_WORDS and not re.fullmatch(r"\d[\d,]*|the|year|\$?\d.*", follows):
            return 1 if w in NEXT_WORDS else -1
    return 0


def _thresholds(low):
    out = []
    year = r"(?:the )?(?:year |season )?"
    for pattern, op in ((rf" {GT} (?:than )?{year}{NUMBER}\b", ">"), (rf" {GE} {NUMBER}\b", ">="),
                        (rf" {LT} (?:than )?{year}{NUMBER}\b", "<"), (rf" {LE} {NUMBER}\b", "<="),
                        (rf"\b{NUMBER} (?:or more|or greater|or higher|or over|or above|plus)\b", ">="),
                        (rf"\b{NUMBER} (?:or less|or fewer|or lower|or under|or below)\b", "<=")):
        for m in re.finditer(pattern, low):
            try:
                out.append((op, _value(m.group(1))))
            except ValueError:
                continue
    return out


def _target(ws):
    """Stems of the words after the question word up to the first verb-like word (an auxiliary, a preposition,
    a word in -ed): `which athlete was` -> (athlete,); `what is the name of the team` -> (team,);
    `how many gold medals` -> (gold, medal)."""
    start = None
    for i, w in enumerate(ws):
        if w in {"which", "what", "whose", "many", "much", "name", "list"}:
            start = i + 1
            break
    if start is None:
        return ()
    out = []
    for w in ws[start:start + 6]:
        if w in TARGET_SKIP or w in {"name", "names"} and not out:
            if out:
                break
            continue
        if w in {"did", "does", "do", "was", "were", "is", "are", "has", "had", "have", "in", "on", "at", "for",
                 "with", "from", "by", "that", "to", "who", "of", "listed", "and", "won", "after", "before"} or \
                (out and len(w) > 4 and w.endswith("ed")):  # a past-tense verb ends the noun phrase
            break
        out.append(terms.stem(w))
    return tuple(out)
