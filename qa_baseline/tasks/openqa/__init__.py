"""NLPCC 2014 English open-domain QA (openqa-en): formats in formats.py."""
from ..base import Task
from . import formats


class OpenQA(Task):
    id = "openqa-en"
    title = "NLPCC 2014 English open-domain QA"
    measures = ("MRR", *(f"accuracy@{k}" for k in range(1, formats.MAX_ANSWERS + 1)), "has_answer_accuracy")
    formats = formats

    def read_input(self, path):
        return formats.read_questions(path)

    def submission_name(self, settings):
        return "submission.txt"
