"""The mention rules: what of a parsed passage can be a short answer, and the words a question is matched with.
Their output (Sentences, question keys) is what the parse store keeps per rules_version(), a checksum of this
module's code and numbers.py's: a change here derives the stored passages again; the Parser (candidates.py)
applies them.

A mention is a span of a sentence that could be a short answer:
- `ent`: a named entity of the language's spaCy pipeline, labelled with its OntoNotes label (GiNZA's
  extended named entities mapped by `ginza.ent_label_ontonotes`; GiNZA's classes without an OntoNotes
  counterpart, such as animals, diseases or elements, are `OTHERS`), and the country of a Japanese
  nationality, language or product (イギリス人, イタリア語, 日本製 -> イギリス, イタリア, 日本: GPE, fine label Country), and the
  prefecture and municipalities of an address written as one token (東京都渋谷区千駄ヶ谷 -> 東京都, 渋谷区);
- `np`: a noun phrase (spaCy noun chunks; in Japanese also every maximal run of nouns (by GiNZA's part of
  speech or by the dictionary's tag: フグ, which GiNZA may tag PRON), numbers and noun suffixes, its parts,
  `AのB`, `AのBのC`, `AとB`, and GiNZA's bunsetu phrases ending in a noun; a word GiNZA keeps with its kana
  reading, 律動（りつどう）, also without it), or the text inside quotes (「…」『…』“…”), without function words at
  its edges, labelled `NP` (or with the entity label of the same span);
- `num`: a number, date or quantity with its unit found by rule (`numbers.spans`).
Words are the keys the closeness of a mention to the question's words is measured with: the lower-cased
lemma of each content word ("" for stop words and punctuation)."""
from __future__ import annotations

import ast
import bisect
import functools
import hashlib
import json
import re
import zlib
from sys import intern
from typing import Any, NamedTuple

from . import numbers

_CONTENT_POS = {"NOUN", "PROPN", "VERB", "ADJ", "NUM", "X", "ADV"}
_EDGE_POS = {"DET", "ADP", "CCONJ", "SCONJ", "PART", "PUNCT", "AUX", "PRON", "SPACE", "SYM", "INTJ"}
_JA_RUN_POS = {"NOUN", "PROPN", "NUM"}
WH_WORDS = {"who", "whom", "whose", "what", "which", "when", "where", "how", "why", "誰", "だれ", "いつ", "どこ",
            "どの", "どれ", "どう", "いくら", "いくつ", "どちら", "どんな", "なに", "なん"}
WH_PREFIXES = {"ja": "何"}


class Mention(NamedTuple):
    text: str
    label: str   # OntoNotes label, "NP" for a plain noun phrase
    kind: str    # ent | np | num
    start: int   # first word (index into Sentence.words)
    end: int     # one past the last word
    before: str = ""  # the lower-cased token before it in its sentence ("" at the start)
    after: str = ""   # the token after it ("" at the end)
    fine: str = ""    # the entity's fine label: GiNZA's Extended Named Entity label (Sekine's hierarchy:
                      # Province, Mountain, Company ...) in Japanese, the OntoNotes label in English; "" for others


class Sentence(NamedTuple):
    text: str
    words: tuple[str, ...]      # content-word keys, "" for the others
    mentions: tuple[Mention, ...]
    inside: tuple[bool, ...] = ()  # per mention: does it lie inside a longer mention of the sentence (inside())


def word_key(token: Any) -> str:
    """The matching key of a token: its lower-cased lemma for content words, "" otherwise."""
    if token.is_punct or token.is_space or token.is_stop or token.pos_ not in _CONTENT_POS:
        return ""
    return (token.lemma_ or token.text).lower()


def _clean(text):
    """A mention's surface form: whitespace runs (newlines too) as one space, none at the edges."""
    return " ".join(text.split())


def _neighbours(sent, start, end):
    """The lower-cased tokens just before and after tokens [START, END) of a sentence."""
    return (sent[start - 1].lower_ if start > 0 else "", sent[end].lower_ if end < len(sent) else "")


def _ent_label(span, lang):
    if lang == "ja":
        from ginza import ent_label_ontonotes
        return ent_label_ontonotes(span[0]).partition("-")[2] or "OTHERS"
    return span.label_


def _trim(tokens):
    """TOKENS (a span) without function words and punctuation at either edge; None when nothing is left."""
    start, end = 0, len(tokens)
    while start < end and tokens[start].pos_ in _EDGE_POS:
        start += 1
    while end > start and tokens[end - 1].pos_ in _EDGE_POS:
        end -= 1
    return tokens[start:end] if end > start else None


_JOINERS = {"・", "＝", "=", "·"}
_READING = re.compile(r"[（(][ぁ-ゖー・]+[）)]$")  # a reading in kana after a word, in brackets


def _script(text):
    """The script of a token: katakana, digit, latin or other (kanji, kana)."""
    c = text[:1]
    if "\u30a0" <= c <= "\u30ff" or c in _JOINERS:
        return "kata"
    if c.isdigit():
        return "digit"
    if c.isascii() and c.isalpha():
        return "latin"
    return "other"


def _is_run_token(tok):
    """A token that continues a Japanese compound: a noun, number, noun suffix or adjectival noun (知的); a
    noun by its dictionary tag too, whatever its part of speech in context (フグ PRON, ヴィエンチャン VERB,
    死亡 of 死亡し VERB, 合法 ADJ)."""
    return tok.pos_ in _JA_RUN_POS or tok.tag_.startswith(("接尾辞", "形状詞", "名詞"))


def _cut(a, b):
    """True when a compound may be cut between tokens A and B: the script changes (妃|ギュルチチェク) or a
    common noun meets a proper noun (大統領|李明博, 江西省|貴渓市); never at a middle dot."""
    if a.text in _JOINERS or b.text in _JOINERS:
        return False
    return _script(b.text) != _script(a.text) or _proper(a) != _proper(b)


def _proper(tok):
    """A proper noun, by its part of speech or its dictionary tag (三善 of 漢学者三善清行 is NOUN)."""
    return tok.pos_ == "PROPN" or tok.tag_.startswith("名詞-固有名詞")


def _runs(sent):
    """Japanese compounds: maximal runs of nouns, numbers, suffixes and adjectival nouns (a middle dot joins
    two of them: ユーリ・ガガーリン), and the parts of a run cut where the script changes or a common noun
    meets a proper noun (妃|ギュルチチェク・ハトゥン, イングランド国王|ヘンリー8世, 大統領|李明博), a run without its
    last noun suffix (第二次世界大戦|中), the items of a kanji list (麻疹・水痘・結核); also two runs joined by の
    (実用的電話の発明), over a closing quote too (『新喜楽』の1階), or by と / や / から (プロパティと値), and three
    joined by の (世界初の実用的電話の発明)."""
    toks = list(sent)
    runs, run = [], []
    for i, tok in enumerate(toks + [None]):
        if tok is not None and (_is_run_token(tok) or tok.text in _JOINERS and run and i + 1 < len(toks)
                                and _is_run_token(toks[i + 1])):
            run.append(tok)
            continue
        if run:
            runs.append(run)
        run = []
    doc = sent.doc
    for run in runs:
        yield doc[run[0].i:run[-1].i + 1]
        cuts = [j for j in range(1, len(run)) if _cut(run[j - 1], run[j])]
        for j in cuts:
            if not run[j].tag_.startswith("接尾辞"):
                yield doc[run[j].i:run[-1].i + 1]
                if run[j].pos_ != "NUM":
                    yield doc[run[0].i:run[j - 1].i + 1]
        if len(run) >= 2 and run[-1].tag_.startswith("接尾辞-名詞的") and "助数詞" not in run[-1].tag_ \
                and run[-2].pos_ != "NUM":
            yield doc[run[0].i:run[-2].i + 1]  # without a noun suffix: 第二次世界大戦|中, 政治哲学|書, リス|科
        parts: list[list[Any]] = [[]]
        for tok in run:
            if tok.text in _JOINERS:
                parts.append([])
            else:
                parts[-1].append(tok)
        if len(parts) >= 2 and all(p and _script(p[0].text) == "other" for p in parts):
            for part in parts:  # a list of kanji words: 麻疹・水痘・結核
                yield doc[part[0].i:part[-1].i + 1]
    gaps = [doc[a[-1].i + 1:b[0].i] for a, b in zip(runs, runs[1:])]  # what stands between two runs
    for a, b, gap in zip(runs, runs[1:], gaps):
        if len(a) + len(b) <= 6 and gap.text in ("の", "」の", "』の"):
            start = a[0].i - (gap[0].text != "の" and a[0].i > 0 and doc[a[0].i - 1].text in "「『")
            yield doc[start:b[-1].i + 1]
        elif len(a) + len(b) <= 4 and gap.text in ("と", "や", "から") and not any(
                t.text in _FORMAL_NOUNS or "副詞可能" in t.tag_ for t in (a[0], a[-1], b[0], b[-1])):
            yield doc[a[0].i:b[-1].i + 1]  # two coordinated words: プロパティと値, 社会性や政治性, 設計から施工
    for a, b, c, ab, bc in zip(runs, runs[1:], runs[2:], gaps, gaps[1:]):
        if len(a) + len(b) + len(c) <= 6 and ab.text == bc.text == "の":
            yield doc[a[0].i:c[-1].i + 1]  # 世界初の実用的電話の発明


_QUOTED = re.compile(r"「([^「」]{1,30})」|『([^『』]{1,30})』|“([^“”]{1,30})”|\"([^\"]{1,30})\"")


def _quoted(text):
    """Character spans (start, end) of the text inside quotes and title brackets: 「…」, 『…』, “…”, "…"."""
    for m in _QUOTED.finditer(text):
        g = next(i for i in range(1, 5) if m.group(i) is not None)
        yield m.start(g), m.end(g)


_PHRASE_NOT_FIRST = {"VERB", "AUX", "ADP", "SCONJ", "CCONJ", "PART", "PUNCT"}
_FORMAL_NOUNS = {"ため", "こと", "もの", "とき", "よう", "ところ", "うち", "ほう", "わけ"}  # (いた江上, ため戸田村)


def _phrases(sent):
    """GiNZA's bunsetu phrases (the content part of each bunsetu: NPO法人知的資源イニシアティブ) that end
    with a noun, number or suffix and do not start with a verb, function word or formal noun."""
    from ginza import bunsetu_phrase_spans
    if "bunsetu_heads" not in sent.doc.user_data:
        return
    for span in bunsetu_phrase_spans(sent):
        if _is_run_token(span[-1]) and span[-1].pos_ != "ADJ" and not (
                len(span) > 1 and (span[0].pos_ in _PHRASE_NOT_FIRST or span[0].text in _FORMAL_NOUNS)):
            yield span


_NAME_AFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "dr", "dr."}


def _ent_parts(ent, lang):
    """Sub-spans of an entity that may be the answer alone: an English person's surname (Horace Deets -> Deets,
    Lady Murasaki Shikibu -> Shikibu) and given name (Murasaki)."""
    if lang != "en" or ent.label_ != "PERSON":
        return
    words = [t for t in ent if t.is_alpha and t.lower_ not in _NAME_AFFIXES]
    if len(words) >= 2:
        yield ent.doc[words[-1].i:words[-1].i + 1]
        yield ent.doc[words[-2].i:words[-2].i + 1]


# GiNZA keeps a country and its suffix in one token: イギリス人 (Nationality), イタリア語 (National_Language), 日本製
# (Country); the country alone answers "どの国"
_COUNTRY_SUFFIXES = {"Nationality": "人", "National_Language": "語", "Country": "製産初領"}


def _country(ent):
    """The country an entity of one of _COUNTRY_SUFFIXES' labels names with its suffix (イギリス人 -> イギリス), or
    None."""
    text = ent.text.strip()
    if len(text) >= 3 and text[-1] in _COUNTRY_SUFFIXES.get(ent.label_, ""):
        return text[:-1]
    return None


_PREFECTURE = "北海道|東京都|京都府|大阪府|" + "|".join(f"{name}県" for name in (
    "青森 岩手 宮城 秋田 山形 福島 茨城 栃木 群馬 埼玉 千葉 神奈川 新潟 富山 石川 福井 山梨 長野 岐阜 静岡 愛知 三重 滋賀 兵庫 "
    "奈良 和歌山 鳥取 島根 岡山 広島 山口 徳島 香川 愛媛 高知 福岡 佐賀 長崎 熊本 大分 宮崎 鹿児島 沖縄").split())
_MUNICIPALITY = re.compile(r"[^\W\d_]{1,6}?[市区郡町村]")
_ADDRESS = re.compile(rf"({_PREFECTURE})((?:{_MUNICIPALITY.pattern})*)")


def _address_parts(text):
    """(part, fine label) of a Japanese address written as one token (東京都渋谷区千駄ヶ谷 -> 東京都 Province, 渋谷区
    City): a prefecture and the municipalities after it; nothing for a lone prefecture or other text."""
    m = _ADDRESS.match(text)
    if not m or not m.group(2):
        return []
    return [(m.group(1), "Province")] + [(x, "County" if x.endswith("郡") else "City")
                                         for x in _MUNICIPALITY.findall(m.group(2))]


def _chunk_parts(chunk):
    """Sub-spans of a noun chunk of several words that may be the answer alone: its head noun and the nouns and
    adjectives modifying it (heavyweight title -> heavyweight, title; rock band -> rock)."""
    words = [t for t in chunk if t.pos_ in ("NOUN", "PROPN", "ADJ") and not t.is_stop]
    if len(words) < 2:
        return
    for t in words:
        if t.i == chunk.root.i or t.dep_ in ("compound", "amod") and t.head.i == chunk.root.i:
            yield chunk.doc[t.i:t.i + 1]


def sentence_mentions(sent: Any, lang: str) -> tuple[Mention, ...]:
    """The mentions of one spaCy sentence span, de-duplicated on (start, end, label), in order."""
    base = sent.start
    found: dict[tuple[int, int, str], Mention] = {}

    def add(span, label, kind, fine=""):
        if span is None or not span.text.strip() or all(t.is_stop and not t.like_num or t.is_punct or t.is_space
                                                              for t in span):
            return  # nothing left, or only stop words ("part", こと, とき)
        key = (span.start - base, span.end - base)
        if label == "NP" and any(k[:2] == key for k in found):
            return  # the same span as an entity: keep the entity only
        text = _clean(span.text)
        found.setdefault((*key, label), Mention(text, label, kind, *key, *_neighbours(sent, *key), fine))
        bare = _READING.sub("", text) if lang == "ja" else text
        if bare != text and bare:  # GiNZA keeps a word and its reading in one token: 律動（りつどう） -> 律動
            found.setdefault((*key, label + "-bare"), Mention(bare, label, kind, *key, *_neighbours(sent, *key),
                                                              fine))

    def add_place(text, start, end, fine, tag):  # a place named inside a token or an entity, kept under TAG
        found.setdefault((start, end, tag),
                         Mention(text, "GPE", "ent", start, end, *_neighbours(sent, start, end), fine))

    for ent in sent.ents:
        label = _ent_label(ent, lang)
        add(_trim(ent) if lang == "en" else ent, label, "ent", ent.label_)
        for part in _ent_parts(ent, lang):
            add(part, label, "ent", ent.label_)
        country = _country(ent) if lang == "ja" else None
        if country:
            add_place(country, ent.start - base, ent.end - base, "Country", "country")
    for chunk in sent.doc.noun_chunks if sent.doc.has_annotation("DEP") else ():
        if chunk.start >= sent.start and chunk.end <= sent.end:
            add(_trim(chunk), "NP", "np")
            for part in _chunk_parts(chunk) if lang == "en" else ():
                add(part, "NP", "np")
    if lang == "ja":
        for run in _runs(sent):
            add(run, "NP", "np")
        for tok in sent:
            for n, (part, fine) in enumerate(_address_parts(tok.text)):
                add_place(part, tok.i - base, tok.i + 1 - base, fine, f"address{n}")
        for phrase in _phrases(sent):
            add(phrase, "NP", "np")
    starts = [t.idx - sent.start_char for t in sent]
    for s, e in _quoted(sent.text):
        first = max(bisect.bisect_right(starts, s) - 1, 0)
        last = max(bisect.bisect_left(starts, e), first + 1)
        if (first, last) != (0, len(sent)):
            found.setdefault((first, last, "NP"), Mention(_clean(sent.text[s:e]), "NP", "np", first, last,
                                                          *_neighbours(sent, first, last)))
    for s, e, label in numbers.spans(sent.text, lang):
        first = max(bisect.bisect_right(starts, s) - 1, 0)
        last = max(bisect.bisect_left(starts, e), first + 1)
        found.setdefault((first, last, label), Mention(_clean(sent.text[s:e]), label, "num", first, last,
                                                       *_neighbours(sent, first, last)))
    return tuple(sorted(found.values(), key=lambda m: (m.start, m.end, m.label)))


def parse_doc(doc: Any, lang: str) -> tuple[Sentence, ...]:
    """A spaCy Doc as a tuple of Sentences, their strings interned: the same words and mentions recur across
    passages, and a run keeps thousands of passages' Sentences and every question's candidates (a third of
    the memory of a qac-1 run at 20 passages was copies of the same strings)."""
    out = []
    for s in doc.sents:
        mentions = tuple(Mention(intern(m.text), intern(m.label), m.kind, m.start, m.end, intern(m.before),
                                 intern(m.after), intern(m.fine)) for m in sentence_mentions(s, lang))
        out.append(Sentence(s.text, tuple(intern(word_key(t)) for t in s), mentions, inside(mentions)))
    return tuple(out)


def inside(mentions: tuple[Mention, ...]) -> tuple[bool, ...]:
    """Per mention: does another mention of its sentence span it and more (found once per passage, not once
    per question that retrieves it)?"""
    spans = {(m.start, m.end) for m in mentions}
    return tuple(any(a <= m.start and m.end <= b and (a, b) != (m.start, m.end) for a, b in spans)
                 for m in mentions)


@functools.cache
def rules_version() -> str:
    """The version under which the parse store keeps derived sentences (parse_store's `derived`): the
    code_checksum of the mention rules (this module and numbers.py)."""
    return code_checksum(__file__, numbers.__file__)


def code_checksum(*paths: str) -> str:
    """A checksum of the code of the Python files PATHS: of their syntax trees without docstrings, so that
    editing a comment, a docstring or the layout keeps what the store derived under it (re-deriving every
    passage of ja-qac takes ~30 s)."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                    isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:]  # type: ignore[attr-defined]
        digest.update(ast.dump(tree).encode("utf-8"))
    return digest.hexdigest()[:16]


def sentences_to_bytes(sentences: tuple[Sentence, ...]) -> bytes:
    """Sentences as stored in the parse store's `derived`: compressed JSON."""
    return zlib.compress(json.dumps(sentences, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 1)


def sentences_from_bytes(data: bytes) -> tuple[Sentence, ...]:
    """The Sentences of sentences_to_bytes, their strings interned (as parse_doc's)."""
    return tuple(Sentence(text, tuple(intern(w) for w in words),
                          tuple(Mention(intern(t), intern(lab), intern(k), a, b, intern(bef), intern(aft), intern(fine))
                                for t, lab, k, a, b, bef, aft, fine in mentions), tuple(flags))
                 for text, words, mentions, flags in json.loads(zlib.decompress(data)))


CASE_PARTICLES = {"が", "を", "に", "で", "の", "と", "から", "へ", "より", "まで"}
PREPOSITIONS = {"in", "on", "at", "by", "from", "to", "for", "of", "with", "into", "during", "since", "after",
                "before", "under", "near"}


def _case_marker(doc, wh, lang):
    """What marks the wh-phrase's role: the case particle after it (Japanese: どこで -> で, 誰が -> が; the
    wh-phrase runs on over nouns and suffixes: 何年に -> に) or the preposition before it (English: in what
    year -> in); "" when there is none. An answer in the same role carries the same marker."""
    if wh is None:
        return ""
    if lang == "ja":
        i = wh + 1
        while i < len(doc) and _is_run_token(doc[i]):
            i += 1
        return doc[i].text if i < len(doc) and doc[i].text in CASE_PARTICLES else ""
    return doc[wh - 1].lower_ if wh > 0 and doc[wh - 1].lower_ in PREPOSITIONS else ""


QuestionKeys = tuple[tuple[str, ...], dict[str, int], str]  # (content-word keys, {key: side}, case marker)


def question_keys(doc: Any, lang: str) -> QuestionKeys:
    """A parsed question's content-word keys (distinct, sorted: the order their weights are summed in, the same
    in every process and for parses from the store), the side of the wh-word each is on ({key: +1 before it,
    -1 after it}, empty when the question has no wh-word) and the wh-phrase's case marker (_case_marker)."""
    keys = [word_key(t) for t in doc]
    wh = next((t.i for t in doc if t.lower_ in WH_WORDS or t.text[:1] in WH_PREFIXES.get(lang, "")), None)
    sides = {} if wh is None else {k: 1 if i < wh else -1 for i, k in enumerate(keys) if k}
    return tuple(sorted({k for k in keys if k})), sides, _case_marker(doc, wh, lang)
