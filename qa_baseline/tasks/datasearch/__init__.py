"""NTCIR Data Search QA: formats in formats.py."""
from ..base import Task
from . import formats


class DataSearch(Task):
    id = "datasearch"
    title = "NTCIR Data Search QA"
    measures = ("EM", "token_F1")
    formats = formats

    def submission_name(self, settings):
        return "submission.txt"
