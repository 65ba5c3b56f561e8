"""NTCIR Data Search QA: formats in formats.py, the rule-based table QA pipeline in pipeline.py.

`python -m qa_baseline.run --task datasearch --data QUESTIONS.tsv --collection DIR|FILE [--adhoc]`: the
collection is the metadata JSONL (plain or .bz2) with its data files (a folder or a tar archive,
qa_baseline/collection); the gold is read from `--gold FILE`, else from gold.tsv beside the questions file.
`--data wtq.parquet` (WikiTableQuestions, hf.py): each question's dataset is its row's table, the tables
an in-memory collection (no --collection), the gold the file's answers (unless --gold is given)."""
from __future__ import annotations

import os
from dataclasses import dataclass

from ...collection import open_collection
from ...core.errors import NoGold, UserError
from ...core.textio import stem
from ..base import Components, Settings, Task, option
from ..hf import is_dataset
from . import formats, hf, pipeline
from .formats import Question

SYSDESC = "qa_baseline rule-based table QA (lookup, superlative, count, compare, threshold operators)"


@dataclass(frozen=True)
class DataSearchSettings(Settings):
    collection: str | None = option(None, "the collection: a folder (metadata JSONL + data/ or a data tar "
                                          "archive) or its metadata file", metavar="DIR|FILE")
    gold: str | None = option(None, "gold answers (default: gold.tsv beside the questions file, if any)",
                              metavar="FILE", file=True)
    adhoc: bool = option(False, "ignore the questions' dataset ids and search the metadata for each dataset "
                                "(the ad-hoc setting; questions without an id are always searched)")
    select: str = option("bm25", "ad-hoc: how the dataset is chosen", choices=("bm25", "bm25+cells"))
    sheets: str = option("first", "XLSX: the first non-empty sheet or all sheets", choices=("first", "all"))
    sysdesc: str = option(SYSDESC, "the run file's <SYSDESC> line")


class DataSearch(Task[DataSearchSettings]):
    title = "NTCIR Data Search QA"
    Settings = DataSearchSettings
    measures = ("EM", "token_F1")
    formats, pipeline = formats, pipeline

    def method(self, settings: DataSearchSettings) -> str:
        return "rules"

    tables_from: str | None = None  # the WikiTableQuestions file read by read_input: open() takes its tables

    def read_input(self, path: str) -> dict[str, Question]:
        if is_dataset(path):
            self.tables_from = path
            return hf.questions(path)
        self.tables_from = None
        return formats.read_questions(path)

    def read_gold(self, path: str) -> dict[str, list[str]]:
        return hf.gold(path) if is_dataset(path) else formats.read_gold(path)

    def open(self, settings: DataSearchSettings) -> Components:
        if "\t" in settings.sysdesc or "\n" in settings.sysdesc or "</SYSDESC>" in settings.sysdesc:
            raise UserError("--sysdesc must be one line without tabs or </SYSDESC>")
        if self.tables_from is not None:
            if settings.collection:
                raise UserError(f"{self.tables_from}: WikiTableQuestions data holds its own tables (fix: leave out "
                                "--collection)")
            return Components(f"{stem(os.path.basename(self.tables_from))} tables",
                              collection=hf.collection(self.tables_from))
        if not settings.collection:
            raise UserError("--collection DIR|FILE is required (the metadata JSONL and its data files)")
        collection = open_collection(settings.collection)
        name = os.path.basename(os.path.normpath(settings.collection))  # the row's and run folder's corpus name
        return Components(stem(name) if os.path.isfile(settings.collection) else name, collection=collection)

    def gold_for(self, path: str, reference: dict[str, Question], settings: DataSearchSettings
                 ) -> dict[str, list[str]] | None:
        if not settings.gold and is_dataset(path):  # WikiTableQuestions: its own answers, when it has them
            try:
                return {qid: gold[qid] for gold in [hf.gold(path)] for qid in reference}
            except NoGold:
                return None
        gold_path = settings.gold or os.path.join(os.path.dirname(os.path.abspath(path)), "gold.tsv")
        if not os.path.isfile(gold_path):
            return None
        gold = self.read_gold(gold_path)
        missing = [qid for qid in reference if qid not in gold]
        if missing:
            raise UserError(f"{gold_path}: no gold answer for {len(missing):,} question{'s' * (len(missing) != 1)} of "
                            f"{path}, e.g. {missing[0]!r} (fix: pass the matching --gold FILE)")
        return {qid: gold[qid] for qid in reference}

    def submission_name(self, settings: DataSearchSettings) -> str:
        return "submission.txt"

    def write_submission(self, path: str, answers: dict[str, str], settings: DataSearchSettings) -> None:
        formats.write_submission(path, answers, settings.sysdesc)
