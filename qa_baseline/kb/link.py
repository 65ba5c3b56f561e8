"""Entity linking: the KB subjects a question may be about, each with the question span that names it.

The question is normalised (qa_baseline.kb.normalise) and every substring of it up to MAX_NAME characters is
looked up in the store's indexed name table in one batched query (a B-tree lookup per substring: O(length²)
lookups per question, independent of the KB's size, and no memory beyond SQLite's page cache; a pyahocorasick
automaton over the names takes about 130 MB per million names and 2 s per million to build at every start,
over a gigabyte for the full KB's 8.7M subjects: bench/kb_build.py). Matches, best first (MATCHES):
  exact    the substring is a subject's name, its name without a (qualifier), or an alias (kind)
  sound    the substring sounds like a name (same toneless pinyin, two or more Han characters): 陈俊 -> 陈军
  typo     one character replaced, inserted, deleted or two neighbours swapped (names of >= MIN_TYPO chars):
           one edit leaves the first or the second half of the name as written, so names are looked up by
           their indexed halves (with their length) in one batched query and checked by one_edit
  partial  a team or company written with another suffix: X队 / X / X足球俱乐部, X公司 / X有限公司
A subject found several ways keeps its best match (better match, then longer span, then earlier). All exact
matches are kept, and at most MAX_FUZZY fuzzy ones (longest spans first)."""
from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

from ..indexes.kb import MIN_TYPO
from .normalise import normalise, sound

if TYPE_CHECKING:
    from ..indexes.kb import KB

MAX_NAME = 64
MAX_FUZZY = 30  # fuzzy subjects kept per question: the longest spans (a dense KB has many one-edit neighbours)
MATCHES = ("exact", "sound", "typo", "partial")
# names written with one suffix in the question and another in the KB; "" = the bare name
SUFFIX_GROUPS = [("", "队", "足球队", "篮球队", "足球俱乐部", "篮球俱乐部", "俱乐部", "足球会"),
                 ("有限公司", "股份有限公司", "有限责任公司", "公司", "集团")]

Mention = namedtuple("Mention", "subject key kind match start end")


def one_edit(a: str, b: str) -> bool:
    """True when A and B differ by exactly one edit: a replaced, inserted or deleted character, or two
    neighbouring characters swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i, n = 0, min(len(a), len(b))
    while i < n and a[i] == b[i]:
        i += 1
    if len(a) > len(b):
        return a[i + 1:] == b[i:]
    if len(a) < len(b):
        return a[i:] == b[i + 1:]
    return a[i + 1:] == b[i + 1:] or (i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i]
                                      and a[i + 2:] == b[i + 2:])


def _partial_keys(s):
    """The other spellings of S under SUFFIX_GROUPS (a stem of at least two characters)."""
    out = []
    for group in SUFFIX_GROUPS:
        for a in group:
            if s.endswith(a) and len(s) - len(a) >= 2:
                out.extend(s[:len(s) - len(a)] + b for b in group if b != a)
    return out


def spans(text: str, max_len: int = MAX_NAME) -> dict[str, tuple[int, int]]:
    """{substring: first (start, end)} of every substring of TEXT up to MAX_LEN characters."""
    out: dict[str, tuple[int, int]] = {}
    for i in range(len(text)):
        for j in range(i + 1, min(len(text), i + max_len) + 1):
            out.setdefault(text[i:j], (i, j))
    return out


def link(kb: KB, question: str, fuzzy: bool = True) -> tuple[str, list[Mention]]:
    """(normalised question, [Mention]) for QUESTION against the open store KB, one Mention per subject."""
    nq = normalise(question)
    where = spans(nq)
    found: dict[str, Mention] = {}

    def add(subject, key, kind, match, span):
        m = Mention(subject, key, kind, match, *span)
        old = found.get(subject)
        if old is None or _better(m, old):
            found[subject] = m

    for key, subject, kind in kb.names(where):
        add(subject, key, kind, "exact", where[key])
    if fuzzy:
        sounds: dict[str, str] = {}
        for s in where:
            if len(s) >= 2:
                spoken = sound(s)
                if spoken:
                    sounds.setdefault(spoken, s)
        for spoken, key, subject, kind in kb.sounding(sounds):
            s = sounds[spoken]
            if key != s:
                add(subject, key, kind, "sound", where[s])
        heads: dict[str, list[str]] = {}
        tails: dict[str, list[str]] = {}
        for s in where:
            if len(s) >= MIN_TYPO - 1:
                for m in (len(s) - 1, len(s), len(s) + 1):
                    if m >= MIN_TYPO:
                        heads.setdefault(f"{m}:{s[:m // 2]}", []).append(s)
                        tails.setdefault(f"{m}:{s[len(s) - (m - m // 2):]}", []).append(s)
        typos: dict[str, str] = {}
        for key in kb.halves(heads, tails):
            m = len(key)
            for group in (heads.get(f"{m}:{key[:m // 2]}", ()), tails.get(f"{m}:{key[m // 2:]}", ())):
                for s in group:
                    if one_edit(s, key):
                        typos.setdefault(key, s)
        for key, subject, kind in kb.names(typos):
            add(subject, key, kind, "typo", where[typos[key]])
        partial: dict[str, str] = {}
        for s in where:
            for other in _partial_keys(s):
                partial.setdefault(other, s)
        for key, subject, kind in kb.names(partial):
            if key not in where:
                add(subject, key, kind, "partial", where[partial[key]])
    ranked = sorted(found.values(), key=_order)
    exact = [m for m in ranked if m.match == "exact"]
    return nq, exact + sorted((m for m in ranked if m.match != "exact"), key=_fuzzy_order)[:MAX_FUZZY]


def _fuzzy_order(m):
    """Fuzzy mentions kept first: longer spans, then the better match."""
    return (-(m.end - m.start), MATCHES.index(m.match), m.start, m.kind, m.subject)


def _order(m):
    return (MATCHES.index(m.match), -(m.end - m.start), m.start, m.kind, m.subject)


def _better(m, old):
    return _order(m) < _order(old)
