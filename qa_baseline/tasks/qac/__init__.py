"""NTCIR-3 QAC-1: qac-1 (ranked answers, MRR), qac-2 (answer lists, AFM), qac-3 (follow-up questions of a
series, AFM). Formats in formats.py, the answer-extraction pipeline in pipeline.py (shared with openqa-en
through qa_baseline/answers)."""
from dataclasses import dataclass

from ..base import Task, option
from ..openqa import AnswerSettings, open_corpus
from . import formats, pipeline


@dataclass(frozen=True)
class QACSettings(AnswerSettings):
    max_list: int = option(5, "qac-2/3: the longest answer list")


class QAC(Task):
    title = "NTCIR-3 QAC-1"
    Settings = QACSettings
    formats = formats
    pipeline = pipeline

    def __init__(self, number):
        self.id, self.number = f"qac-{number}", number
        self.title = f"{QAC.title} task {number}: " + {1: "ranked answers", 2: "answer lists",
                                                        3: "follow-up questions"}[number]
        self.measures = ("MRR", "MRR_supported") if number == 1 else ("AFM",)

    def read_input(self, path):
        return {q.qid: q for q in formats.read_questions(path)}

    def open(self, settings):
        return open_corpus(self, settings)

    def submission_name(self, settings):
        return "submission.txt"

    def read_submission(self, path, reference, errors):
        return formats.read_submission(path, reference, errors, task=self.number)

    def score(self, gold, submission):
        return formats.score(gold, submission, task=self.number)

    def predict(self, items, components, settings):
        return pipeline.predict(items, components, settings, task=self.number)
