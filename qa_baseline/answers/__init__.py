"""Short-answer extraction shared by the open-domain factoid tasks (openqa-en, qac-1/2/3).

One stage, independent of any task's formats (stage.answer, the tasks' entry point; its options in
settings.py): given a question, its retrieved passages (`Passage`: docid, title, text, retrieval score, best
first) and the language, `Extractor.candidates` returns the answer candidates with their features
(mentions.py: the rules finding spaCy/GiNZA entities, noun phrases and rule-based numbers; candidates.py: the
Parser applying them; answer_types.py: the expected answer type; features.py: support, type match,
closeness, merged by `metrics.normalize`); `scorers.AnswerModel` ranks them (rule or learned scorer) and
decides whether the question has an answer and how long its answer list is. `passages.PassageStore` gives
any retriever's hits their text. Each distinct passage is parsed once per Extractor, and once per corpus
with the corpus's parse store (parse_store.py)."""
from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from ..core.config import CorpusConfig
from ..scoring.metrics import normalize
from . import features
from .candidates import Parser
from .scorers import rule_score
from .features import Candidate
from .passages import Passage
from .answer_types import AnswerType, answer_type, choices

__all__ = ["Extractor", "Passage", "Candidate", "answer_in_passages", "answer_in_candidates"]

CONTEXT_WEIGHT = 0.5  # weight of a context word (an earlier question of a series) against a question word


class Extractor:
    def __init__(self, lang: str, model: str | None = None, max_chars: int | None = None,
                 corpus: CorpusConfig | None = None) -> None:
        """CORPUS: the config of the corpus the passages come from, whose parse store keeps their parses
        (answers/parse_store.py); without it every passage is parsed."""
        self.lang = lang
        self.parser = Parser(lang, model, **({"max_chars": max_chars} if max_chars else {}), corpus=corpus)

    def parse(self, passages: Iterable[Passage], progress: bool = False) -> dict[str, int]:
        """Parse (or load from the parse store) the given passages now (in batches, with a progress bar):
        candidates() then finds them. With a store and more distinct passages than the parser keeps in memory
        (Parser.CACHED), the new ones are only parsed into the store: candidates() loads each question's own,
        so none is decoded twice. Returns the passages parsed and loaded so far ({"parsed", "loaded"})."""
        passages = list(passages)
        if self.parser.store is not None and len({p.docid for p in passages}) > self.parser.CACHED:
            self.parser.fill(passages, progress)
        else:
            self.parser.parse(passages, progress)
        return dict(self.parser.counts)

    def question_keys(self, question: str, context: str = "") -> tuple[dict[str, float], dict[str, int], str]:
        """({content-word key: weight}, {key: side of the wh-word}, the wh-phrase's case marker): the
        question's words weigh 1, words only in CONTEXT CONTEXT_WEIGHT."""
        words, sides, marker = self.parser.question(question)
        keys = dict.fromkeys(words, 1.0)
        if context:
            for k in self.parser.question(context)[0]:
                keys.setdefault(k, CONTEXT_WEIGHT)
        return keys, sides, marker

    def candidates(self, question: str, passages: Sequence[Passage], context: str = "",
                   atype: AnswerType | None = None, keep: int | None = None, wide: Sequence[Passage] = ()
                   ) -> list[Candidate]:
        """Candidates of QUESTION from PASSAGES (ranked Passage list), best first by evidence. CONTEXT (earlier
        questions and answers of a series) adds words to match and strings that are no answers; ATYPE
        overrides the expected answer type; KEEP: only the best KEEP by the rule, best first (features.Best);
        WIDE: more retrieved passages whose text is searched for each candidate (the `wide` feature)."""
        self.parser.parse(passages)
        atype = atype or answer_type(question, self.lang)
        keys, sides, marker = self.question_keys(question, context)
        return features.candidates(question, keys, atype, passages, self.parser.cache, self.lang, context, sides,
                                   marker, choices(question, self.lang), None if keep is None else (keep, rule_score),
                                   [normalized_text(p.text) for p in wide])


@functools.lru_cache(maxsize=1 << 12)
def normalized_text(text: str) -> str:
    """`metrics.normalize` of a passage's text, kept for the few thousand passages seen last."""
    return normalize(text)


def _spellings(gold: Iterable[Iterable[str]]) -> set[str]:
    return {normalize(s) for answer in gold for s in answer} - {""}


def answer_in_passages(passages: Iterable[Passage], gold: Iterable[Iterable[str]]) -> float:
    """1 when a gold spelling occurs in one of the passages' normalised text (the retrieval ceiling)."""
    keys = _spellings(gold)
    return float(any(k in normalized_text(p.text) for p in passages for k in keys))


def answer_in_candidates(cands: Iterable[Candidate], gold: Iterable[Iterable[str]]) -> float:
    """1 when a gold spelling is one of the candidates (the extraction ceiling; of all of them when CANDS is
    a features.Best list)."""
    held = getattr(cands, "all_keys", None)
    return float(not _spellings(gold).isdisjoint(held if held is not None else {c.key for c in cands}))
