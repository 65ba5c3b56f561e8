"""NLPCC 2014 English open-domain QA (openqa-en): formats in formats.py, the answer-extraction pipeline in
pipeline.py (shared with qac through qa_baseline/answers)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...answers import neural
from ...core.errors import UserError
from ...rankers.learning import MODELS
from ..base import RetrievalSettings, Task, option
from . import formats, pipeline


@dataclass(frozen=True)
class AnswerSettings(RetrievalSettings):
    """Settings of the short-answer tasks (openqa-en, qac-1/2/3)."""
    passages: int = option(10, "retrieved passages per question that candidates are taken from")
    wide: int = option(50, "retrieved passages per question whose text (not parsed) is searched for each "
                           "candidate: the `wide` feature of the learned scorer, how many of them hold it (a "
                           "search of their own, only in runs that fit one; 0: off)")
    train: str | None = option(None, "data with gold answers the answer model is fitted on", metavar="FILE",
                               file=True)
    folds: int | None = option(None, "fit the answer model on --data's own gold by cross-fitting: question i "
                                     "is answered by the model fitted on the questions of the other folds "
                                     "(i mod K)", metavar="K")
    scorer: str = option("auto", "auto: the learned scorer where it beats the rule on held-out folds of the "
                                 "training data; rule: always the rule", choices=("auto", "rule"))
    learner: str = option("logistic", "the learned scorer tried against the rule: logistic, lambdamart (LightGBM "
                                      "lambdarank) or best (the better of both on held-out folds, per fit)",
                          choices=(*MODELS, "best"))
    max_chars: int = option(4000, "characters of a passage that are parsed for candidates", cli=False)
    neural: str = option("none", "neural evidence for the answer candidates, the score of each best candidate's "
                                 "sentence against the question: cross (English: the ms-marco cross-encoder) or "
                                 "e5 (any language: multilingual-e5-small's cosine)", choices=neural.KINDS)
    lang: str | None = option(None, "language of a corpus given as a file (default en; a named corpus says "
                                    "its own)", choices=("en", "ja"))


@dataclass(frozen=True)
class OpenQASettings(AnswerSettings):
    system: str = option("qa_baseline", "the System name written on every submission line")


class OpenQA(Task[OpenQASettings]):
    title = "NLPCC 2014 English open-domain QA"
    lang = "en"
    Settings = OpenQASettings
    measures = ("MRR", *(f"accuracy@{k}" for k in range(1, formats.MAX_ANSWERS + 1)), "has_answer_accuracy")
    formats, pipeline = formats, pipeline

    def read_input(self, path: str) -> dict[str, str]:
        return formats.read_questions(path)

    def open(self, settings: OpenQASettings) -> dict[str, Any]:
        if settings.lang and settings.lang != self.lang:
            raise UserError(f"openqa-en answers English questions: --lang {settings.lang} does not apply")
        return super().open(settings)

    def submission_name(self, settings: OpenQASettings) -> str:
        return "submission.txt"

    def write_submission(self, path: str, answers: dict[str, list[str]], settings: OpenQASettings) -> None:
        formats.write_submission(path, answers, system=settings.system)
