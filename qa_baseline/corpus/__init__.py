"""Corpus readers. Every reader yields the same passage records: {"id", "title", "contents"}.

One module per source format; `read_corpus(cfg, problems)` chains the sources of a corpus config, and cuts the
documents of a source with `segment:` into overlapping passages of sentences, ids `DOCID#k` (corpus/segment.py).
To add a format, write `corpus/NAME.py` with `read(source, problems)` and list it in READERS."""
from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType

from ..core.config import CorpusConfig, Source
from ..core.errors import Problems, UserError
from . import segment
from .ids import UniqueIds

READERS = ("jsonl", "parquet", "vital", "wikipedia")

Passage = dict[str, str]  # {"id", "title", "contents"}
Where = tuple[str, int | str]  # (file, line number or "entry N"/"page N"): where a record is, for a problem


def reader(name: str) -> ModuleType:
    if name not in READERS:
        raise UserError(f"unknown corpus reader {name!r}; known: {', '.join(READERS)}")
    return importlib.import_module(f".{name}", __name__)


def read_corpus(cfg: CorpusConfig, problems: Problems) -> Iterator[Passage]:
    """All passages of a corpus config, source after source, ids made unique with each source's id_prefix; the
    documents of a source with `segment:` as their passages (segment.segment)."""
    seen = UniqueIds()  # bounded memory whatever the corpus's size (corpus/ids.py)
    try:
        yield from _read(cfg, problems, seen)
    finally:
        seen.close()


def _read(cfg: CorpusConfig, problems: Problems, seen: UniqueIds) -> Iterator[Passage]:
    segmenting = segment.segmented(cfg)
    for src in cfg.sources:
        mod = reader(src.reader)
        prefix = src.id_prefix or ""
        seg = segment.settings(src)
        check = not getattr(mod, "UNIQUE_IDS", False)  # dump readers make unique ids by construction
        where: Where
        p: Passage
        for where, p in mod.read(src, problems):
            pid = prefix + p["id"]
            if check:
                if not seen.add(pid):
                    problems.report(*where, f"duplicate id {pid!r}")
                    continue
            if segmenting and not seg and segment.strip_segment(pid) != pid:
                problems.report(*where, f"id {pid!r} ends like a passage of a segmented source (DOCID#k), so it "
                                        "would be taken for one (fix: rename the id, or segment this source "
                                        "too)")
                continue
            p["id"] = pid
            if seg:
                yield from segment.segment(p, *seg)
            else:
                yield p


def split_settings(src: Source, splits: tuple[str, ...]) -> tuple[str, int, int]:
    """(split, words, min_chars) of a source that cuts articles into passages (split: one of SPLITS; words:
    the passage length of `words`; min_chars: shorter passages are dropped); a bad value is a UserError."""
    path = src.file
    split = "paragraph" if src.split is None else src.split
    words = 100 if src.words is None else src.words
    min_chars = 20 if src.min_chars is None else src.min_chars
    if split not in splits:
        raise UserError(f"{path}: unknown split {split!r} (fix: use {' or '.join(splits)})")
    if not isinstance(words, int) or words < 1:
        raise UserError(f"{path}: words must be a positive whole number, not {words!r}")
    return split, words, min_chars


def cut(paragraphs: list[str], split: str, words: int, min_chars: int) -> list[str]:
    """An article's PARAGRAPHS as passages: the paragraphs, or windows of WORDS words (split `words`); passages
    shorter than MIN_CHARS are dropped."""
    if split == "words":
        tokens = " ".join(paragraphs).split()
        paragraphs = [" ".join(tokens[a:b]) for a, b in segment.windows(len(tokens), words, words)]
    return [p for p in paragraphs if p and len(p) >= min_chars]
