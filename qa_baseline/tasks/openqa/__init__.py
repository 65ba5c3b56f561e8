"""NLPCC 2014 English open-domain QA (openqa-en): formats in formats.py, the answer-extraction pipeline in
pipeline.py (shared with qac through qa_baseline/answers)."""
from __future__ import annotations

from dataclasses import dataclass

from ...answers.settings import AnswerSettings
from ...core.errors import UserError
from ..base import Components, RetrievalSettings, Task, option
from . import formats, pipeline


@dataclass(frozen=True)
class OpenQASettings(AnswerSettings, RetrievalSettings):
    system: str = option("qa_baseline", "the System name written on every submission line")


class OpenQA(Task[OpenQASettings]):
    title = "NLPCC 2014 English open-domain QA"
    lang = "en"
    Settings = OpenQASettings
    measures = ("MRR", *(f"accuracy@{k}" for k in range(1, formats.MAX_ANSWERS + 1)), "has_answer_accuracy")
    formats, pipeline = formats, pipeline

    def read_input(self, path: str) -> dict[str, str]:
        return formats.read_questions(path)

    def open(self, settings: OpenQASettings) -> Components:
        if settings.lang and settings.lang != self.lang:
            raise UserError(f"openqa-en answers English questions: --lang {settings.lang} does not apply")
        return super().open(settings)

    def submission_name(self, settings: OpenQASettings) -> str:
        return "submission.txt"

    def write_submission(self, path: str, answers: dict[str, list[str]], settings: OpenQASettings) -> None:
        formats.write_submission(path, answers, system=settings.system)
