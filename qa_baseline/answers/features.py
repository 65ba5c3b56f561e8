"""Candidates of one question with their features: mentions found in the retrieved passages, merged when
their strings are equal under the scorer's normalisation (`metrics.normalize`).

Per passage (rank r, retrieval score s), a weight w: s / the best score of the question's passages when all
scores are positive (BM25, cosine of relevant passages), else 1 / (1 + r). Per mention, in its sentence:
`overlap`, the weighted share of the question's content words found in the sentence, and `closeness`, the
same share with each found word counted 1 / (1 + its distance in tokens to the mention). A candidate's
features (FEATURES):

- support: sum over the passages it occurs in of w; passages: log(1 + their number); mentions: log(1 + its
  mentions); best: the w of its best passage;
- overlap, closeness: their maxima over its mentions; evidence: sum over passages of w times the best
  (0.1 + closeness + overlap / 2) of its mentions in that passage (redundancy weighted by sentence match);
  window: the weighted share of the question's words within WINDOW tokens of a mention; best_sentence: w
  times the overlap of its sentence over the best sentence overlap of all passages; order: the share of the
  matched question words standing on the same side of it as of the wh-word in the question, times overlap;
  marker: overlap when a mention carries the wh-phrase's case marker (どこで -> Xで, in what year -> in X);
  question-word weights are multiplied by their inverse sentence frequency in the retrieved passages;
- type_match: 1 when one of its mentions has a label of the question's expected type; type_mismatch: 1 when
  the question is typed and none has; unit_match / unit_missing: the expected unit ("years", 人, 色) is / is
  not in the candidate (English: or right after one of its mentions: 275 of "275 kibbutz"); untyped_number:
  an untyped question and a candidate that is only a number;
- inside: 1 when every mention of it lies inside a longer mention; is_person ... is_other: its label groups
  (LABEL_GROUPS); entity / number: 1 when one of its mentions is a named entity / a rule number; q_overlap:
  the share of its words (Japanese: characters) that occur in the question; length: log(1 + characters);
- fine_match: 1 when one of its mentions has a fine label (GiNZA's ENE label: Province, Mountain ...) of the
  question's fine type (answer_types: 何県 -> Province); fine_mismatch: the question has a fine type and the
  candidate's entity mentions have only other fine labels; documents: log(1 + the distinct documents of its
  passages, a passage id DOCID#k being of document DOCID); best_evidence: the best w times match of one
  passage; mean_match: the mean over its passages of their best match; digits: 1 when it holds a digit;
  dateless: a date question (when, 何年, いつ) and a candidate that names no point in time (English: no year,
  month or century: 3,000 years, age 50; Japanese: no digit: 昔);
  question_match: the best overlap of any sentence of the question's passages (the same for all its
  candidates: how well the passages match the question at all, for the has-answer decision);
  unnamed: 1 when a name or number of the question occurs in none of its passages (`unnamed`; the same for all
  its candidates: an entity or a year swapped for one the passages never name); unnamed_here: the share of
  those names and numbers that the candidate's best sentence lacks (a name swapped for one named elsewhere, or
  the answer's sentence about something else); negation (English): 1 when
  the question negates (not, never, n't, ...) and the candidate's sentence does not; both are cues of
  questions written to have no answer (SQuAD 2.0's entity-swap and negation questions);
  neural, neural_scored: the neural evidence of answers/neural.py (`--neural cross|e5`; 0 unless asked for);
  names_article: the w of the best retrieved passage whose title the candidate is (its article's subject:
  the answer of many encyclopaedic questions, 君沢形 for スクーナーが導入される契機は何, and the topic of many
  others), else 0;
- bracket: 1 when it holds a bracket or quote mark (1904年(明治37年, 『水滸伝: a span cut across a gloss or a
  title; 11 of ja-task1-dev's 799 questions have such an answer, 108 of its top-5 candidates were such);
  unit_end (Japanese): it ends with the unit a 何X question asks for (江西省 for 何省, not 江西省貴渓市);
  holds_type: one of its mentions, not of the question's expected type itself, holds a shorter mention that
  is (濃尾平野 holding the place 濃尾, 李明博 the person 李: the entity recogniser cut the name short);
- bigrams (Japanese): the largest share, over the sentences of its mentions, of the question's character
  bigrams (letters and digits, not both hiragana) that the sentence holds: a paraphrase keeps compounds that
  GiNZA's words split differently (English: 0; its word bigrams lowered the SQuAD stand-in's AFM);
- choice: 1 when the question offers options (`answer_types.choices`: "AとBのどちら", "X or Y") and the candidate
  is one of them or ends one of them (死亡 of "ドイツ兵の死亡と重傷"); not_choice: options offered, and it is none;
- wide: log(1 + how many of the question's wide retrieved passages (`--wide`: its top 50, a search of their
  own, in runs that fit a learned scorer; their text only, never parsed) hold the candidate in their
  normalised text (a substring: English "us" is in "business"): redundancy beyond the few passages parsed.

Candidates contained in the question (or in the context of a follow-up question) are dropped: their words
(Japanese: characters) form a contiguous part of it; the options of a choice question are kept."""
from __future__ import annotations

import functools
import heapq
import math
import operator
import re
import sys
import unicodedata
from array import array
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..corpus.segment import strip_segment
from ..scoring.metrics import normalize
from .answer_types import NUMERIC, AnswerType
from .passages import Passage

if TYPE_CHECKING:
    from .mentions import Sentence

FEATURES = ("support", "passages", "mentions", "best", "overlap", "closeness", "evidence", "type_match",
            "type_mismatch", "unit_match", "unit_missing", "untyped_number", "window", "best_sentence", "inside",
            "order", "marker", "is_person", "is_place", "is_org", "is_time", "is_number", "is_other", "entity",
            "number", "q_overlap", "length", "choice", "not_choice", "fine_match", "fine_mismatch", "documents",
            "best_evidence", "mean_match", "digits", "dateless", "question_match", "unnamed", "unnamed_here",
            "negation", "neural", "neural_scored", "names_article", "bracket", "unit_end", "holds_type", "bigrams",
            "wide")
LABEL_GROUPS = {"person": {"PERSON"}, "place": {"GPE", "LOC", "FAC"}, "org": {"ORG", "NORP"},
                "time": {"DATE", "TIME"}, "number": {"CARDINAL", "QUANTITY", "MONEY", "PERCENT", "ORDINAL"},
                "other": {"OTHERS", "PRODUCT", "WORK_OF_ART", "EVENT", "LAW", "LANGUAGE"}}
WINDOW = (6, 10)  # tokens around a mention that count as near it (English, Japanese: shorter tokens)
_WORDS = re.compile(r"\w+")
_EN_WORD, _DIGIT = re.compile(r"[^\W_][\w'’.-]*[^\W_]|[^\W_]"), re.compile(r"\d")
_BRACKET = re.compile(r"[()\[\]{}「」『』【】〈〉《》〔〕“”\"]")  # after normalize (NFKC: （ -> ()
_JA_NUMBER = re.compile(r"[0-9０-９]+")
_NEGATION = re.compile(r"\b(?:not|never|no|none|nobody|nothing|neither|nor|without|cannot)\b|n't\b", re.I)
# a point in time, what a date question asks for (English: a year, a month, a century; Japanese: any digit)
_POINT_IN_TIME = (re.compile(r"\b(?:1\d{3}|20\d{2})s?\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
                             r"\d(?:st|nd|rd|th)?[- ]century", re.I), re.compile(r"\d"))


_INDEX = {k: i for i, k in enumerate(FEATURES)}
_IN_ORDER = operator.itemgetter(*FEATURES)
_NUMBER_ONLY, _NUMBER_LABELS = NUMERIC | {"ORDINAL", "NP"}, NUMERIC | {"ORDINAL"}  # untyped_number's
# metrics.normalize of mention texts, remembered: the passages of one question recur in others (~4 calls per
# mention, 17 of 156 s of a qac-1 run at 20 passages); interned, so the candidates of all questions share
# one copy of each string
_normalize = functools.lru_cache(maxsize=1 << 17)(lambda text: sys.intern(normalize(text)))


class Features(MutableMapping[str, float]):
    """A candidate's FEATURES -> value, kept as one array of doubles: a run keeps every question's candidates
    until its answer model is fitted (~1,000 per question at 20 passages), and a dict of FEATURES took about
    four times the memory. The values are the same floats; features cannot be added or removed."""
    __slots__ = ("row",)

    def __init__(self, values: Mapping[str, float]) -> None:
        """VALUES: FEATURES -> value (all of them, in any order)."""
        self.row = array("d")
        self.row.fromlist(list(_IN_ORDER(values)))  # twice as fast as array("d", ...)

    def __getitem__(self, key: str) -> float:
        return self.row[_INDEX[key]]

    def __setitem__(self, key: str, value: float) -> None:
        self.row[_INDEX[key]] = value

    def __delitem__(self, key: str) -> None:
        raise TypeError(f"a candidate's features are FEATURES: {key!r} cannot be removed")

    def __iter__(self) -> Iterator[str]:
        return iter(FEATURES)

    def __len__(self) -> int:
        return len(FEATURES)

    def __repr__(self) -> str:
        return repr(dict(self))


def in_order(f: Mapping[str, float]) -> Sequence[float]:
    """The values of FEATURES in their order: a Features' own row (no lookup per feature; learned scorers read
    millions of candidates), else each looked up."""
    return f.row if isinstance(f, Features) else [f[k] for k in FEATURES]


_LABEL_SETS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _one(labels: tuple[str, ...]) -> tuple[str, ...]:
    """One tuple per distinct label set, shared by the candidates that have it."""
    return _LABEL_SETS.setdefault(labels, labels)


class Candidate(NamedTuple):
    text: str        # the most frequent surface form (the first seen among equals)
    key: str         # metrics.normalize(text)
    docid: str       # the passage that supports it best
    labels: tuple[str, ...]    # the labels of its mentions, sorted
    features: MutableMapping[str, float]   # FEATURES -> value (Features)
    sentence: str = ""  # the sentence of its best mention (best match times passage weight)


def passage_weights(passages: Sequence[Passage]) -> list[float]:
    scores = [p.score for p in passages]
    if scores and min(scores) > 0:
        top = max(scores)
        return [s / top for s in scores]
    return [1.0 / (1 + r) for r in range(len(passages))]


@functools.lru_cache(maxsize=1 << 17)  # candidate strings recur across questions
def _units(text: str, lang: str) -> tuple[str, ...]:
    """Comparable units of a string: characters (Japanese, no spaces or punctuation) or lower-case words."""
    norm = _normalize(text)
    if lang == "ja":
        return tuple(c for c in norm if c.isalnum())
    return tuple(_WORDS.findall(norm))


def contained(key: str, question: str, lang: str) -> bool:
    """True when the candidate's units form a contiguous run of QUESTION's (or it has none): as strings, the
    units joined (Japanese: characters, no separator; English: words, which hold no space, between spaces)
    are a substring of the question's joined alike."""
    return _joined(key, lang) in _joined(question, lang)


@functools.lru_cache(maxsize=1 << 17)  # mention strings recur across questions; a question's is asked ~1,000 times
def _joined(text: str, lang: str) -> str:
    """TEXT's units joined as `contained` compares them ("" without units: in any string)."""
    sep = "" if lang == "ja" else " "
    units = _units(text, lang)
    return f"{sep}{sep.join(units)}{sep}" if units else ""


def is_option(key: str, options: Collection[Sequence[str]], lang: str) -> bool:
    """True when KEY (normalised) is one of OPTIONS (their unit lists) or ends one of them."""
    if not options:
        return False
    units = _units(key, lang)
    return bool(units) and any(o[len(o) - len(units):] == units for o in options)


def _sentence_match(hits, mention, qweights, total, window, sides):
    """(overlap, closeness, window share, order) of a mention in its sentence, HITS: (position, key) of the
    sentence's words that are question words, in order; order: the weighted share of the matched question
    words that stand on the same side of the mention as they stand of the wh-word in the question (0.5 when
    the question has no wh-word or nothing matches). One pass over the words, one over the nearest of each
    (~1.2M mentions in a qac-1 run at 20 passages: the sums add in the order `sum` would)."""
    if not hits or not total:
        return 0.0, 0.0, 0.0, 0.5
    start, end = mention.start, mention.end
    best: dict[str, tuple[int, int]] = {}  # key -> (distance, side)
    for i, key in hits:
        if i < start:
            d, s = start - i, 1
        elif i >= end:
            d, s = i - end + 1, -1
        else:
            continue
        if key not in best or d < best[key][0]:
            best[key] = (d, s)
    if not best:
        return 0.0, 0.0, 0.0, 0.5
    overlap = closeness = near = sided = same = 0.0
    for k, (d, s) in best.items():
        q = qweights[k]
        overlap += q
        closeness += q / (1 + d)
        if d <= window:
            near += q
        if k in sides:
            sided += q
            if s == sides[k]:
                same += q
    return overlap / total, closeness / total, near / total, same / sided if sided else 0.5


def local_idf(qkeys: Mapping[str, float], sentences: Sequence[Sentence]) -> dict[str, float]:
    """Question-word weights times their inverse sentence frequency among the retrieved passages' sentences,
    log(1 + S / (1 + sentences containing the word)): a word found everywhere (the passage topic) says
    little about which sentence holds the answer."""
    df: defaultdict[str, int] = defaultdict(int)
    for sentence in sentences:
        for k in set(sentence.words):
            if k in qkeys:
                df[k] += 1
    n = len(sentences)
    return {k: w * math.log1p(n / (1 + df[k])) for k, w in qkeys.items()}


def sentence_overlap(sentence: Sentence, qweights: Mapping[str, float], total: float) -> float:
    """The weighted share of the question's words in a sentence, summed in the order the words first occur
    (a set's order changes with each process's string hashing, and with it the sum's last bit)."""
    return sum(qweights[k] for k in dict.fromkeys(sentence.words) if k in qweights) / total if total else 0.0


def names(question: str, lang: str) -> tuple[str, ...]:
    """The names and numbers of QUESTION, NFKC-normalised and lower-cased: English, a word holding a digit or a
    capitalised word after the first, without its 's; Japanese, a number."""
    if lang == "ja":
        found = _JA_NUMBER.findall(question)
    else:
        words = _EN_WORD.findall(question)
        found = [re.sub(r"['’]s?$", "", w) for i, w in enumerate(words) if i and w[0].isupper() or _DIGIT.search(w)]
    return tuple(_fold(n) for n in found)


@functools.lru_cache(maxsize=1 << 14)  # a sentence, read for each of its candidates
def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _missing(wanted: Sequence[str], text: str) -> float:
    """The share of WANTED (a question's `names`) not in TEXT (0 when the question names nothing)."""
    if not wanted:
        return 0.0
    folded = _fold(text)
    return sum(n not in folded for n in wanted) / len(wanted)


def unnamed(question: str, passages: Sequence[Passage], lang: str) -> bool:
    """True when a name or number of QUESTION (`names`) occurs in none of PASSAGES (title or text)."""
    return _missing(names(question, lang), " ".join(f"{p.title} {p.text}" for p in passages)) > 0


def candidates(question: str, qkeys: Mapping[str, float], atype: AnswerType, passages: Sequence[Passage],
               parsed: Mapping[str, Sequence[Sentence]], lang: str, context: str = "",
               sides: Mapping[str, int] | None = None, marker: str = "", options: Sequence[str] = (),
               best: tuple[int, Callable[[Mapping[str, float]], float]] | None = None, wide: Sequence[str] = ()
               ) -> list[Candidate]:
    """Candidates of QUESTION (text; qkeys: {content-word key: weight}) from PASSAGES (ranked Passage list;
    PARSED: passage id -> Sentences), best first by `evidence`, with their FEATURES; OPTIONS: the options the
    question offers (strings); WIDE: the normalised texts of its wide passages (the `wide` feature). BEST,
    (K, score): only the best K by SCORE (a function of RULE_INPUTS: the rule), best first, equal scores in the
    order of all of them; the others get only rule_inputs (at 20 passages a question has ~1,000 candidates, and
    a run that fits no answer model uses its best few: `Best`)."""
    units = [u for u in (_units(o, lang) for o in options) if u]
    qkeys = local_idf(qkeys, [s for p in passages for s in parsed.get(p.docid, ())])
    found, asked = collect(question, qkeys, passages, parsed, lang, context, sides or {}, marker, units, atype.labels)
    asked = asked._replace(wide=wide)
    q_set = set(_units(question, lang))
    labelled = [(key, c, _one(tuple(sorted(c.labels)))) for key, c in found.items() if c is not None]
    if best is not None:  # ranked by (-score, -evidence, seen): the rule's ranking of all of them (scorers.ranked)
        k, score = best
        heads = []
        for i, (key, c, labels) in enumerate(labelled):
            f = rule_inputs(key, c, labels, atype, lang, q_set, units)[1]
            heads.append((-score(f), -f["evidence"], i))
        kept = [labelled[i] for *_, i in heapq.nsmallest(k, heads)]
        return Best([_candidate(key, c, labels, atype, lang, q_set, units, asked) for key, c, labels in kept],
                    frozenset(key for key, _, _ in labelled))
    out = [_candidate(key, c, labels, atype, lang, q_set, units, asked) for key, c, labels in labelled]
    out.sort(key=lambda c: -c.features["evidence"])  # equal evidence: the order first seen (labelled's)
    return out


def _candidate(key: str, c: Gathered, labels: tuple[str, ...], atype: AnswerType, lang: str, q_set: Collection[str],
               options: Collection[Sequence[str]], asked: Asked) -> Candidate:
    text, f = featurise(key, c, labels, atype, lang, q_set, options, asked)
    ps = c.passages
    docid = max(ps, key=lambda d: (ps[d][0] * ps[d][1], -ps[d][2])) if len(ps) > 1 else next(iter(ps))
    return Candidate(text, key, docid, labels, Features(f), c.sentence)


class Best(list[Candidate]):
    """A question's best K candidates (`candidates`' BEST), best first, with the keys of all of them
    (`all_keys`, for the extraction ceiling): all that a run which fits no answer model uses of its candidates
    (the rule's answers, answer lists and trace rank these the same: the rule scores each candidate alone)."""

    def __init__(self, cands: Iterable[Candidate], all_keys: frozenset[str]) -> None:
        super().__init__(cands)
        self.all_keys = all_keys


class Asked(NamedTuple):
    """What holds for all of a question's candidates: question_match, the best sentence overlap among its
    passages; unnamed: unnamed(); names: names(); negates: the (English) question negates; wide: the
    normalised texts of its wide passages."""
    question_match: float
    unnamed: bool
    names: tuple[str, ...]
    negates: bool
    wide: Sequence[str] = ()


class Gathered:
    """What `collect` gathers of one candidate's mentions (featurise makes its FEATURES of it): SEEN, how
    many keys were seen before it; forms, surface text -> mentions; the labels, fine labels, kinds and the
    words after its mentions; passages, {passage id: (best match, passage weight, rank)}; the maxima over its
    mentions (inside: the minimum); sentence, the best match times weight and the sentence of that mention."""
    __slots__ = ("seen", "forms", "labels", "fines", "kinds", "afters", "passages", "mentions", "overlap",
                 "closeness", "window", "best_sentence", "inside", "order", "marker", "names_article", "holds_type",
                 "bigrams", "best_match", "sentence")

    def __init__(self, seen: int) -> None:
        self.seen = seen
        self.forms: dict[str, int] = {}
        self.labels: set[str] = set()
        self.fines: set[str] = set()
        self.kinds: set[str] = set()
        self.afters: set[str] = set()
        self.passages: dict[str, tuple[float, float, int]] = {}
        self.mentions = 0
        self.overlap = self.closeness = self.window = self.best_sentence = self.order = self.marker = 0.0
        self.names_article = self.holds_type = self.bigrams = 0.0
        self.inside = 1.0
        self.best_match, self.sentence = -1.0, ""


def collect(question: str, qkeys: Mapping[str, float], passages: Sequence[Passage],
            parsed: Mapping[str, Sequence[Sentence]], lang: str, context: str, sides: Mapping[str, int], marker: str,
            options: Collection[Sequence[str]], typed: Collection[str] = ()) -> tuple[dict[str, Gathered | None], Asked]:
    """({normalised mention: what its mentions show (Gathered), or None for one contained in the question or
    its CONTEXT and not an option}, in the order first seen; what holds for all of them); QKEYS: weights
    after local_idf. One pass over the mentions of the question's passages (~1.4M in a qac-1 run at 20
    passages)."""
    weights = passage_weights(passages)
    total = sum(qkeys.values())
    window = WINDOW[lang == "ja"]
    s_overlaps = [[sentence_overlap(sentence, qkeys, total) for sentence in parsed.get(p.docid, ())]
                  for p in passages]
    best_overlap = max((o for row in s_overlaps for o in row), default=0.0)
    asked = Asked(best_overlap, unnamed(question, passages, lang), names(question, lang),
                  lang == "en" and bool(_NEGATION.search(question)))
    top_overlap = best_overlap or 1.0
    q_bigrams = _bigrams(question) if lang == "ja" else frozenset()
    acc: dict[str, Gathered | None] = {}
    for rank, (p, w) in enumerate(zip(passages, weights)):
        for sentence, s_overlap in zip(parsed.get(p.docid, ()), s_overlaps[rank]):
            hits = [(i, k) for i, k in enumerate(sentence.words) if k in qkeys]  # the question's words in it
            holding = _holds_type(sentence, typed) if typed else ()
            s_bigrams = _share(q_bigrams, _alnum(sentence.text)) if q_bigrams else 0.0
            s_best = s_overlap / top_overlap * w
            for j, (m, inside) in enumerate(zip(sentence.mentions, sentence.inside)):
                key = _normalize(m.text)
                if not key:
                    continue
                c = acc.get(key)
                if c is None:
                    if key in acc:  # dropped
                        continue
                    dropped = (contained(key, question, lang) or context and contained(key, context, lang)) and \
                        not is_option(key, options, lang)
                    c = acc[key] = None if dropped else Gathered(len(acc))
                    if c is None:
                        continue
                overlap, closeness, near, order = _sentence_match(hits, m, qkeys, total, window, sides)
                if (near > 0 or overlap > 0) and order * overlap > c.order:
                    c.order = order * overlap
                if marker and overlap > c.marker and (m.after if lang == "ja" else m.before) == marker:
                    c.marker = overlap
                if near > c.window:
                    c.window = near
                if not inside:
                    c.inside = 0.0
                if s_bigrams > c.bigrams:
                    c.bigrams = s_bigrams
                if holding and holding[j]:
                    c.holds_type = 1.0
                if s_best > c.best_sentence:
                    c.best_sentence = s_best
                c.forms[m.text] = c.forms.get(m.text, 0) + 1
                c.labels.add(m.label)
                c.fines.add(m.fine)
                c.afters.add(m.after)
                c.kinds.add(m.kind)
                c.mentions += 1
                if overlap > c.overlap:
                    c.overlap = overlap
                if closeness > c.closeness:
                    c.closeness = closeness
                match = 0.1 + closeness + overlap / 2
                if match * w > c.best_match:
                    c.best_match, c.sentence = match * w, sentence.text
                if match > c.passages.get(p.docid, (0, 0, 0))[0]:
                    c.passages[p.docid] = (match, w, rank)
    for p, w in zip(passages, weights):  # a candidate that names a retrieved article: its best passage weight
        if (c := acc.get(_normalize(p.title))) and w > c.names_article:
            c.names_article = w
    return acc, asked


def _bigrams(text: str) -> frozenset[str]:
    """The character bigrams of a Japanese TEXT (NFKC, lower case) of letters and digits, not both hiragana."""
    chars = _alnum(text)
    return frozenset(a + b for a, b in zip(chars, chars[1:]) if not ("ぁ" <= a <= "ゟ" and "ぁ" <= b <= "ゟ"))


@functools.lru_cache(maxsize=1 << 15)  # a passage's sentences, met again by the other questions that retrieve it
def _alnum(text: str) -> str:
    """The letters and digits of TEXT (NFKC, lower case): its bigrams are the strings of two of them in a row."""
    return "".join(ch for ch in _fold(text) if ch.isalnum())


def _share(bigrams: Collection[str], alnum: str) -> float:
    """The share of BIGRAMS that are bigrams of the text whose letters and digits are ALNUM (`_bigrams` of it
    less those of two hiragana, which BIGRAMS hold none of): as large as their sets' intersection."""
    return sum(b in alnum for b in bigrams) / len(bigrams)


def _holds_type(sentence: Sentence, typed: Collection[str]) -> list[bool]:
    """Per mention of SENTENCE: does it hold a shorter mention of a TYPED label without being of one itself
    (濃尾平野 holding the place 濃尾, 李明博 the person 李)?"""
    inner = [(m.start, m.end) for m in sentence.mentions if m.label in typed]
    return [m.label not in typed and any(m.start <= s and e <= m.end and (s, e) != (m.start, m.end)
                                         for s, e in inner) for m in sentence.mentions]


RULE_INPUTS = ("support", "best", "evidence", "type_match", "type_mismatch", "unit_match", "unit_missing",
               "untyped_number", "window", "best_sentence", "inside", "q_overlap", "length", "choice", "not_choice",
               "dateless", "neural", "neural_scored")  # rule_inputs' features: what scorers.rule_score reads
# (scorers.RULE_READS) and three computed with them (support, best, type_match)


def rule_inputs(key: str, c: Gathered, labels: tuple[str, ...], atype: AnswerType, lang: str,
                q_set: Collection[str], options: Collection[Sequence[str]]) -> tuple[str, dict[str, float]]:
    """(surface text, RULE_INPUTS -> value) of the candidate KEY from what `collect` gathered, C (LABELS: its
    labels, sorted); Q_SET: the question's units. A run that keeps only the rule's best few candidates
    (`candidates`' BEST) computes only these for the others."""
    forms = c.forms
    text = max(forms, key=forms.__getitem__) if len(forms) > 1 else next(iter(forms))  # ties keep the first seen
    type_match = not atype.labels.isdisjoint(labels)
    units = _units(text, lang)
    unit_match = bool(atype.unit) and (atype.unit[:1] in _normalize(text) if lang == "ja" else
                                       any(u.startswith(atype.unit.rstrip("s")) for u in units) or
                                       any(a.startswith(atype.unit.rstrip("s")) for a in c.afters if a))
    support, best, evidence = _spread(c.passages)
    option = is_option(key, options, lang)
    return text, {
        "support": support,
        "best": best,
        "evidence": evidence,
        "type_match": float(type_match),
        "type_mismatch": float(bool(atype.labels) and not type_match),
        "unit_match": float(unit_match),
        "unit_missing": float(bool(atype.unit) and not unit_match),
        "untyped_number": float(not atype.labels and _NUMBER_ONLY.issuperset(labels)
                                and not _NUMBER_LABELS.isdisjoint(labels)),
        "window": c.window,
        "best_sentence": c.best_sentence,
        "inside": c.inside,
        "q_overlap": sum(map(q_set.__contains__, units)) / len(units) if units else 0.0,
        "length": math.log1p(len(text)),
        "choice": float(option),
        "not_choice": float(bool(options) and not option),
        "dateless": float(atype.name == "date" and not _POINT_IN_TIME[lang == "ja"].search(text)),
        "neural": 0.0, "neural_scored": 0.0,  # set by answers/neural.py when asked for
    }


def featurise(key: str, c: Gathered, labels: tuple[str, ...], atype: AnswerType, lang: str, q_set: Collection[str],
              options: Collection[Sequence[str]], asked: Asked) -> tuple[str, dict[str, float]]:
    """(surface text, FEATURES -> value) of the candidate KEY from what `collect` gathered, C (LABELS: its
    labels, sorted), and ASKED: rule_inputs' and the others; Q_SET: the question's units."""
    text, f = rule_inputs(key, c, labels, atype, lang, q_set, options)
    return text, {
        **f,
        "passages": math.log1p(len(c.passages)),
        "mentions": math.log1p(c.mentions),
        "overlap": c.overlap,
        "closeness": c.closeness,
        "order": c.order,
        "marker": c.marker,
        **_groups(labels),
        "entity": float("ent" in c.kinds),
        "number": float("num" in c.kinds or not NUMERIC.isdisjoint(labels)),
        **redundancy(c.passages, c.fines - {""}, atype),
        "digits": float(any(map(str.isdigit, text))),
        "question_match": asked.question_match,
        "unnamed": float(asked.unnamed),
        "unnamed_here": _missing(asked.names, c.sentence),
        "negation": float(asked.negates and not _NEGATION.search(c.sentence)),
        "names_article": c.names_article,
        "bracket": float(bool(_BRACKET.search(key))),
        "unit_end": float(lang == "ja" and bool(atype.unit) and key.endswith(_normalize(atype.unit))),
        "holds_type": c.holds_type,
        "bigrams": c.bigrams,
        "wide": math.log1p(sum(key in t for t in asked.wide)),
    }


@functools.lru_cache(maxsize=1 << 10)  # a few hundred label sets
def _groups(labels: tuple[str, ...]) -> dict[str, float]:
    """is_person ... is_other of a candidate with LABELS (LABEL_GROUPS); the caller copies the dict."""
    return {f"is_{name}": float(not group.isdisjoint(labels)) for name, group in LABEL_GROUPS.items()}


def _spread(ps: Mapping[str, tuple[float, float, int]]) -> tuple[float, float, float]:
    """(support: the sum of the passage weights, best: the largest, evidence: the sum of match times weight)
    of PS, {passage id: (best match, passage weight, rank)}; one passage (most candidates) without a loop."""
    if len(ps) == 1:
        match, w, _ = next(iter(ps.values()))
        return w, w, match * w
    return sum(w for _, w, _ in ps.values()), max(w for _, w, _ in ps.values()), \
        sum(match * w for match, w, _ in ps.values())


def redundancy(ps: Mapping[str, tuple[float, float, int]], fines: Collection[str], atype: AnswerType
               ) -> dict[str, float]:
    """Evidence across passages and the fine type of one candidate: PS, {passage id: (best match, passage
    weight, rank)}; FINES, its mentions' fine labels (see the module docstring)."""
    fine_match = bool(atype.fine) and bool(set(fines) & atype.fine)
    fine = {"fine_match": float(fine_match),
            "fine_mismatch": float(bool(atype.fine) and bool(fines) and not fine_match)}
    if len(ps) == 1:  # most candidates
        match, w, _ = next(iter(ps.values()))
        return {**fine, "documents": math.log1p(1), "best_evidence": match * w, "mean_match": match}
    return {**fine, "documents": math.log1p(len({strip_segment(d) for d in ps})),
            "best_evidence": max(match * w for match, w, _ in ps.values()),
            "mean_match": sum(match for match, _, _ in ps.values()) / len(ps)}
