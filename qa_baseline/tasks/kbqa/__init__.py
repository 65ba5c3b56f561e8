"""NLPCC KBQA (knowledge-base QA): formats in formats.py, the baseline (entity linking + predicate ranking
over the KB store, qa_baseline/kb/) in pipeline.py."""
from __future__ import annotations

from dataclasses import dataclass

from ...core.config import resolve_path
from ...core.errors import UserError
from ...core.hints import command
from ...core.textio import stem
from ...indexes.kb import open_kb
from ..base import Components, Settings, Task, option
from . import formats, pipeline
from .formats import Item


@dataclass(frozen=True)
class KBQASettings(Settings):
    kb: str | None = option(None, "the KB file (`subject ||| predicate ||| object` lines) whose store "
                                  "`python -m qa_baseline.index --kb FILE` built", metavar="FILE", file=True)
    train: str | None = option(None, "training questions with answers (the 2016 training file): the ranker is "
                                     "a logistic regression fitted on them; without it, the documented rule",
                               metavar="FILE", file=True)
    kb_name: str | None = option(None, "the KB's name in the row (default: the KB file's name)")


class KBQA(Task[KBQASettings]):
    title = "NLPCC KBQA"
    Settings = KBQASettings
    measures = ("precision", "recall", "F1")
    primary = "F1"  # NLPCC KBQA ranks systems by averaged F1
    formats, pipeline = formats, pipeline

    def method(self, settings: KBQASettings) -> str:
        return "learned" if settings.train else "rule"

    def read_input(self, path: str) -> dict[str, Item]:
        return formats.read_questions(path)  # question lines only: triples and answers never reach predict

    def open(self, settings: KBQASettings) -> Components:
        if not settings.kb:
            raise UserError(f"--task kbqa needs --kb FILE (fix: give the KB file whose store `{command('index')} --kb "
                            "FILE` built)")
        kb = open_kb(resolve_path(settings.kb))
        return Components(settings.kb_name or stem(settings.kb), kb=kb)

    def submission_name(self, settings: KBQASettings) -> str:
        return "submission.txt"
