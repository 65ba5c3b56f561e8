"""Passages, not articles: a source's documents cut into overlapping windows of sentences, the way Anserini's
segmented MS MARCO v2.1 collections are (10 sentences, stride 5, ids `DOCID#k`).

A source of a corpus config turns it on with `segment: {sentences: N, stride: S}` (off when absent; stride
defaults to half the window, rounded up): each document the source's reader yields becomes the passages
`DOCID#0`, `DOCID#1`, ... (k from 0; a document of N sentences or fewer is the one passage `DOCID#0`), window k
holding sentences kS .. kS+N-1 of the document (the last window ends at its last sentence), so consecutive
passages share N - S sentences. A passage's text is its span of the document's text, as written; its title is
the document's. The setting is a source's, like `split`, so it is in the index fingerprint: changing it rebuilds.

Sentences (`sentence_spans`): a light rule, no parser. A sentence ends after 。, ！ or ？ (Japanese, Chinese;
closing brackets and quotes stay with it, and a quotation's 。」 followed by と, って or 、 ends nothing), after
. ! ? followed by white space and no lower-case letter (not after a single capital letter, as in initials and
U.S., or a common abbreviation: Mr., Dr., St., No., ...), and at a line break.

The support document of a passage is `document_id(passage id, corpus config)`: the id without its `#k` when a
source of the corpus is segmented (an unsegmented corpus's ids are returned as they are). `best_passages`
aggregates a ranked list of passages to documents by their best passage (MaxP), for whatever ranks documents."""
from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import TypeGuard

from ..core.config import CorpusConfig, Source
from ..core.errors import UserError

SEP = "#"  # DOCID#k
_CLOSE = r"[」』）】〕》”’\"')\]]"
_CJK_END = rf"[。！？]+(?:{_CLOSE}+(?![とっ、，]|{_CLOSE})|(?!{_CLOSE}))"  # 「…。」と言った goes on
_LATIN_END = r"[.!?]+[\"'”’)\]]*(?=\s+[^\sa-z])"
_BOUNDARY = re.compile(rf"{_CJK_END}|{_LATIN_END}|\s*\n\s*")
_ABBREVIATION = re.compile(r"(?:^|[\s(\"'“])(?:[A-Z]|(?:[A-Za-z]\.)+[A-Za-z]|Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|Mt|"
                           r"No|Nos|Vol|Fig|vs|cf|ca|Gen|Col|Lt|Sgt|Capt|Gov|Sen|Rev|Jan|Feb|Mar|Apr|Jun|Jul|"
                           r"Aug|Sep|Sept|Oct|Nov|Dec)\.$")
_SEGMENT_ID = re.compile(rf"{SEP}\d+$")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of TEXT, white space around it left out; empty sentences dropped."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if m.group().startswith(".") and _ABBREVIATION.search(text[max(start, m.start() - 12):m.start() + 1]):
            continue
        _add(spans, text, start, m.end())
        start = m.end()
    _add(spans, text, start, len(text))
    return spans


def _add(spans: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    if piece.strip():
        lead = len(piece) - len(piece.lstrip())
        spans.append((start + lead, start + len(piece.rstrip())))


def sentences(text: str) -> list[str]:
    """The sentences of TEXT (sentence_spans)."""
    return [text[s:e] for s, e in sentence_spans(text)]


def windows(n: int, size: int, stride: int) -> list[tuple[int, int]]:
    """(start, end) of windows of SIZE over N units, one every STRIDE, the last one ending at N (none when N is
    0): what segmentation takes of sentences and the `words` split of corpus.cut of words."""
    out: list[tuple[int, int]] = []
    start = 0
    while start < n:
        out.append((start, min(start + size, n)))
        if start + size >= n:
            break
        start += stride
    return out


def settings(src: Source) -> tuple[int, int] | None:
    """(sentences, stride) of a source's `segment`, None when it has none; a bad value is a UserError."""
    seg = src.segment
    if seg is None or seg is False:
        return None
    fix = "(fix: write segment: {sentences: 3, stride: 2}, stride at most sentences, or drop it)"
    if not isinstance(seg, dict) or set(seg) - {"sentences", "stride"} or "sentences" not in seg:
        raise UserError(f"{src.file}: segment must name sentences and optionally stride, not {seg!r} {fix}")
    size = seg["sentences"]  # as the YAML wrote them: checked here
    stride = seg["stride"] if "stride" in seg else (size + 1) // 2 if _whole(size) else None
    if not (_whole(size) and _whole(stride) and stride <= size):
        raise UserError(f"{src.file}: segment sentences {size!r}, stride {stride!r}: not whole numbers with "
                        f"1 <= stride <= sentences {fix}")
    return int(size), int(stride)


def _whole(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def segment(doc: dict[str, str], size: int, stride: int) -> list[dict[str, str]]:
    """The passages of the document DOC ({"id", "title", "contents"}): windows of SIZE sentences every STRIDE."""
    text = doc["contents"]
    spans = sentence_spans(text)
    return [{"id": f"{doc['id']}{SEP}{k}", "title": doc["title"], "contents": text[spans[a][0]:spans[b - 1][1]]}
            for k, (a, b) in enumerate(windows(len(spans), size, stride))]


def segmented(cfg: CorpusConfig) -> bool:
    """Does a source of the corpus config CFG segment its documents?"""
    return any(settings(src) for src in cfg.sources)


def document_id(pid: str, cfg: CorpusConfig) -> str:
    """The document of passage PID of the corpus CFG: PID without `#k` when the corpus is segmented."""
    return _document(pid, segmented(cfg))


def _document(pid: str, on: bool) -> str:
    return strip_segment(pid) if on and pid else pid


@functools.lru_cache(maxsize=1 << 16)  # the same passages' ids, question after question
def strip_segment(pid: str) -> str:
    """PID without a segment suffix `#k` (a passage id's document where the corpus is segmented)."""
    return _SEGMENT_ID.sub("", pid)


def best_passages(hits: Iterable[tuple[str, float]], cfg: CorpusConfig, k: int | None = None
                  ) -> list[tuple[str, float]]:
    """Ranked (passage id, score) HITS as ranked (document id, score): each document scored by its best passage
    (MaxP), best first, equal scores in the order the documents first appear; the first K (all when K is None)."""
    best: dict[str, float] = {}
    on = segmented(cfg)
    for pid, score in hits:
        doc = _document(pid, on)
        if doc not in best or score > best[doc]:
            best[doc] = score
    ranked = sorted(best.items(), key=lambda x: -x[1])  # stable: equal scores keep their first place
    return ranked[:k] if k is not None else ranked

