"""NTCIR-3 QAC-1: qac-1 (ranked answers, MRR), qac-2 (answer lists, AFM), qac-3 (follow-up questions of a
series, AFM). Formats in formats.py, the answer-extraction pipeline in pipeline.py (shared with openqa-en
through qa_baseline/answers)."""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping

from ...answers.settings import AnswerSettings
from ..base import Components, Reference, RetrievalSettings, Task, option
from ..hf import is_dataset
from ...scoring.metrics import Scores
from ...scoring.validate import Errors
from ..base import Prediction
from . import formats, hf, pipeline
from .formats import Gold, Question


@dataclass(frozen=True)
class QACSettings(AnswerSettings, RetrievalSettings):
    max_list: int = option(5, "qac-2/3: the longest answer list")


class QAC(Task[QACSettings]):
    title = "NTCIR-3 QAC-1"
    Settings = QACSettings
    formats = formats
    pipeline = pipeline

    def __init__(self, task_id: str) -> None:
        super().__init__(task_id)
        self.number = number = int(task_id.split("-")[1])  # qac-1, qac-2, qac-3
        self.title = f"{QAC.title} task {number}: " + {1: "ranked answers", 2: "answer lists",
                                                        3: "follow-up questions"}[number]
        self.measures = ("MRR", "MRR_supported") if number == 1 else ("AFM",)

    def read_input(self, path: str) -> dict[str, Question]:
        questions = hf.questions(path) if is_dataset(path) else formats.read_questions(path)
        return {q.qid: q for q in questions}

    def read_gold(self, path: str) -> dict[str, Gold]:
        return hf.gold(path) if is_dataset(path) else formats.read_gold(path)

    def submission_name(self, settings: QACSettings) -> str:
        return "submission.txt"

    def read_submission(self, path: str, reference: Mapping[str, Gold], errors: Errors) -> dict[str, list[tuple[str, ...]]]:
        return formats.read_submission(path, reference, errors, task=self.number)

    def score(self, gold: Mapping[str, Gold], submission: Mapping[str, list[tuple[str, ...]]]) -> Scores:
        return formats.score(gold, submission, task=self.number)

    def gold_rows(self, gold: Mapping[str, Gold]) -> list[tuple[str, str]]:
        return formats.gold_rows(gold, task=self.number)

    def references(self, gold: Mapping[str, Gold] | None) -> list[Reference]:
        """qac-2/3: the AFM of answering nothing, where the gold is at hand."""
        return [Reference("answer nothing", formats.answer_nothing(gold, self.number))] \
            if gold and self.number != 1 else []

    def predict(self, items: Mapping[str, Question], components: Components, settings: QACSettings,
                folds_gold: Mapping[str, Gold] | None = None) -> Prediction:
        return pipeline.predict(items, components, settings, folds_gold, task=self.number)
