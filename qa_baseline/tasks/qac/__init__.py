"""NTCIR-3 QAC-1: qac-1 (ranked answers, MRR), qac-2 (answer lists, AFM), qac-3 (follow-up questions of a
series, AFM). Formats in formats.py."""
from ..base import Task
from . import formats


class QAC(Task):
    title = "NTCIR-3 QAC-1"
    formats = formats

    def __init__(self, number):
        self.id, self.number = f"qac-{number}", number
        self.title = f"{QAC.title} task {number}: " + {1: "ranked answers", 2: "answer lists",
                                                        3: "follow-up questions"}[number]
        self.measures = ("MRR", "MRR_supported") if number == 1 else ("AFM",)

    def submission_name(self, settings):
        return "submission.txt"

    def read_submission(self, path, reference, errors):
        return formats.read_submission(path, reference, errors, task=self.number)

    def score(self, gold, submission):
        return formats.score(gold, submission, task=self.number)
