"""Words and values of questions and cells.

`norm`: NFKC, case-folded, accents dropped (Björn = bjorn), quotes unified, whitespace collapsed.
`words`: the alphanumeric runs of `norm` (`#15` -> `15`, `5-5` -> `5 5`). `stem`: a light English suffix rule
(possessive 's, plural -ies/-es/-s) so that `medals` meets `Medal`. `STOP`: function words and question words,
never content. `number`: the value of a cell or question word (thousands separators, sign, currency, percent,
units after the number, h:m:s times as seconds), None when the text holds no leading number.
`date_key`: a sortable value of a date cell ("June 10, 1985", "30 September 1943", "1959-06-21")."""
from __future__ import annotations

import functools
import re
import unicodedata

WORD = re.compile(r"[^\W_]+", re.UNICODE)
NUM = re.compile(r"[-+−–]?\$?\d[\d,]*(?:\.\d+)?|[-+−–]?\.\d+")
TIME = re.compile(r"^[-+]?(\d+):(\d\d)(?::(\d\d(?:\.\d+)?))?$|^[-+]?(\d+):(\d\d(?:\.\d+)?)$")
MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9

STOP = frozenset("""
a an the of in on at to for from by with as and or but is are was were be been being has have had do does did
what which who whom whose when where why how that this these those it its he she they them their his her him
there here than then so if not no nor only also just any all each every some other others own same such very
can could will would should may might must shall me my we our you your i into over under about up down out off
again further once more most many much few less least whats whos name tell list give show listed table chart
amount one ones""".split())


@functools.lru_cache(maxsize=200_000)
def norm(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'").replace("“", '"')
    return " ".join(text.replace("”", '"').split())


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=200_000)
def words(text: str) -> tuple[str, ...]:
    """Normalised alphanumeric words of TEXT, in order (a tuple)."""
    return tuple(WORD.findall(norm(text)))


@functools.lru_cache(maxsize=200_000)
def stems(text: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in words(text))


def content(text: str) -> tuple[str, ...]:
    """Stems of TEXT's content words (no stop words), in order."""
    return tuple(stem(w) for w in words(text) if w not in STOP)


@functools.lru_cache(maxsize=200_000)
def number(text: str) -> float | None:
    """The number a cell or word states at its start (see the module docstring), else None."""
    t = norm(text).replace(" ", "").replace("−", "-").replace("–", "-")
    m = TIME.match(t.split("(")[0])
    if m:
        g = [float(x) if x else 0.0 for x in m.groups()]
        seconds = g[0] * 3600 + g[1] * 60 + g[2] if m.group(1) else g[3] * 60 + g[4]
        return -seconds if t.startswith("-") else seconds
    m = NUM.match(t)
    if not m:
        return None
    digits = m.group(0).replace("$", "").replace(",", "").replace("−", "-").replace("–", "-")
    try:
        return float(digits)
    except ValueError:
        return None


def plain_number(text: str) -> float | None:
    """The number of a cell that is nothing but a number (with separators, sign, currency, %, a unit word, a
    note in brackets), else None: `12`, `1,234.5`, `$3`, `45%`, `5 kW`, `+0.010`, `1:31:33.736`, `160 (525)`."""
    t = norm(text)
    value = number(t)
    if value is None:
        return None
    rest = NUM.sub("", t, count=1).strip() if not TIME.match(t.replace(" ", "")) else ""
    rest = re.sub(r"\([^)]*\)|\[[^]]*\]", "", rest).strip()  # 160 (525), 12[3]: a note after the number
    return value if len(rest) <= 4 and not any(ch.isdigit() for ch in rest) else None


@functools.lru_cache(maxsize=200_000)
def date_key(text: str) -> int | None:
    """A sortable number for a date cell (year*10000 + month*100 + day), else None."""
    t = norm(text)
    m = re.match(r"^(\d{4})-(\d\d)-(\d\d)", t)
    if m:
        return int(m.group(1)) * 10000 + int(m.group(2)) * 100 + int(m.group(3))
    ws = re.findall(r"[a-z]+|\d+", t)
    year = month = day = None
    for w in ws[:6]:
        if w in MONTHS and month is None:
            month = MONTHS[w]
        elif w.isdigit() and len(w) == 4 and year is None and 1000 <= int(w) <= 2100:
            year = int(w)
        elif w.isdigit() and len(w) <= 2 and day is None and 1 <= int(w) <= 31:
            day = int(w)
    if month is None:
        return None
    return (year or 0) * 10000 + month * 100 + (day or 0)


def year_of(text: str) -> int | None:
    """The first four-digit year (1000-2100) in TEXT, else None."""
    m = re.search(r"(?<!\d)(1\d{3}|20\d{2})(?!\d)", text)
    return int(m.group(1)) if m else None
