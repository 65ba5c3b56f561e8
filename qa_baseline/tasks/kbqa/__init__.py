"""NLPCC KBQA (knowledge-base QA): formats in formats.py."""
from ..base import Task
from . import formats


class KBQA(Task):
    id = "kbqa"
    title = "NLPCC KBQA"
    measures = ("precision", "recall", "F1")
    formats = formats

    def submission_name(self, settings):
        return "submission.txt"
