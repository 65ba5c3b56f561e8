"""Passages as answer extraction takes them (Passage: docid, title, text, retrieval score), and their text for
retrieved hits, whatever the retriever: the corpus is read once, on first use, into {id: (title, passage)} (the
retrievers answer ids and scores only; a dense index keeps no text)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..core.config import CorpusConfig
from ..core.errors import Problems
from ..corpus import read_corpus


class Passage(NamedTuple):
    docid: str
    title: str
    text: str
    score: float


class PassageStore:
    def __init__(self, corpus_cfg: CorpusConfig) -> None:
        self.cfg = corpus_cfg
        self._texts: dict[str, tuple[str, str]] | None = None

    def _load(self) -> dict[str, tuple[str, str]]:
        if self._texts is None:
            self._texts = {p["id"]: (p["title"], p["contents"])
                           for p in read_corpus(self.cfg, Problems("skip"))}
        return self._texts

    def passages(self, hits: Iterable[tuple[str, float]]) -> list[Passage]:
        """Passage records for ranked (docid, score) HITS; ids missing from the corpus are skipped."""
        texts = self._load()
        return [Passage(d, *texts[d], float(s)) for d, s in hits if d in texts]
