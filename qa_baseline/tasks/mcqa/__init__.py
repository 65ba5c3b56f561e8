"""IJCNLP-2017 Task 5, multi-choice exam questions: mcqa-en, mcqa-zh (one language each) and mcqa-all
(scored over both languages' submissions). Formats in formats.py, the published baseline in pipeline.py; the
scorers beyond it (`--scorer fused|learned`) in scorers.py, over evidence.py (both retrievers' hits and option
features), fusion.py and learned.py."""
from __future__ import annotations

import dataclasses
import os
from typing import Any
from dataclasses import dataclass

from ...core.errors import UserError
from ...core.hints import command
from ...core.textio import stem
from ...rankers.learning import MODELS
from ...scoring.validate import Errors
from ..base import Components, Reference, RetrievalSettings, Task, option
from ..hf import is_dataset
from . import formats, hf, pipeline
from .evidence import Both
from .formats import Question


@dataclass(frozen=True)
class MCQASettings(RetrievalSettings):
    n: int = option(3, "score an option by the mean of its top-n hits (the published baseline: 3)")
    team: str = option("qa_baseline", "team id in the submission file name TEAMID_LANG.csv", identifies=False)
    # None: the published rule (so that its rows are as before)
    scorer: str | None = option(None, "how options are scored: rule (default: the published rule over --retriever), "
                                      "fused (BM25 and dense option scores normalised within the question, weighted) "
                                      "or learned (a model over option features, fitted on --train)",
                                choices=("rule", "fused", "learned"))
    # None: not given (fused then takes fusion.default; the hybrid retriever, which is not passed a None, its 0.5)
    weight: float | None = option(  # type: ignore[assignment]
        None, "fused: weight of the dense score, 0-1 (default: fitted on the corpus, shared-en 0.5, vital-en 0.65; "
        "else 0.5); hybrid weighted: weight of the dense score (default 0.5)")
    train: tuple[str, ...] | None = option(None, "fused: fit --weight and --normalise on this file's questions; "
                                                 "learned: fit the model on them (repeatable)", metavar="FILE",
                                           file=True, many=True)
    normalise: str | None = option(None, "fused: normalisation of each retriever's option scores within a "
                                         "question: z-score, share of the total or rank (default: fitted on the "
                                         "corpus, shared-en rank, vital-en share; else z)",
                                choices=("z", "share", "rank"))
    learner: str | None = option(None, "learned: the model (default logistic)", choices=tuple(MODELS))


class MCQA(Task[MCQASettings]):
    title = "IJCNLP-2017 Task 5 multi-choice exam QA"
    Settings = MCQASettings
    measures = ("accuracy",)
    formats = formats
    pipeline: Any = pipeline  # None for mcqa-all
    multi_file = True

    def __init__(self, task_id: str) -> None:
        super().__init__(task_id)
        self.lang = lang = task_id.split("-")[1]  # mcqa-en, mcqa-zh, mcqa-all
        self.title = f"{MCQA.title}, {dict(en='English', zh='Chinese', all='both languages')[lang]}"
        if lang == "all":  # scored over both languages' submissions, made by mcqa-en and mcqa-zh
            self.pipeline = None

    def method(self, settings: MCQASettings) -> str:
        """The row's Retriever column: the retriever, or the scorer beyond the rule (fused, learned)."""
        return settings.retriever if settings.scorer in (None, "rule") else settings.scorer

    def open(self, settings: MCQASettings) -> Components:
        """The rule's retriever; fused and learned: BM25 and the dense retriever of the corpus (evidence.Both)."""
        if settings.scorer not in (None, "rule") and settings.retriever != "bm25":
            raise UserError(f"--scorer {settings.scorer} reads both BM25 and dense retrieval (fix: leave out "
                            f"--retriever {settings.retriever})")
        components = super().open(settings)
        if settings.scorer not in (None, "rule"):
            assert components.corpus is not None and components.retriever is not None  # a retrieval task's
            return dataclasses.replace(components, retriever=Both(components.corpus, settings.retriever_params(),
                                                                  components.retriever))
        return components

    def no_pipeline(self) -> UserError:
        return UserError("mcqa-all is scored over both languages' submissions (fix: run --task mcqa-en and --task "
                         f"mcqa-zh, then `{command('score')} --task mcqa-all --gold EN.csv --submission "
                         "T_en.csv --gold ZH.csv --submission T_zh.csv`)")

    def read_input(self, path: str) -> list[Question]:
        questions = hf.questions(path) if is_dataset(path) else formats.read(path)
        return [q._replace(gold=None) for q in questions]  # the answer key never reaches predict

    def read_gold(self, path: str) -> list[Question]:
        return hf.gold(path) if is_dataset(path) else formats.read_gold(path)

    def submission_name(self, settings: MCQASettings) -> str:
        return f"{settings.team}_{self.lang}.csv"

    def read_submission(self, path: str, reference: list[Question], errors: Errors) -> dict[str, str]:
        self.language_of(path)  # mcqa-all: a file whose language cannot be told is a usage error, first
        return formats.read_submission(path, reference, errors)

    def score_files(self, pairs: list[tuple[str, str, Any, Any]]) -> dict[str, Any]:
        """Accuracy over all pairs, per language when there are several, per gold file when a language has
        several (one file per language: its accuracy[LANG] is the file's, not given twice)."""
        stems = [stem(gold_path) for gold_path, *_ in pairs]
        if len(set(stems)) < len(stems):
            raise UserError(f"gold files need distinct names to be told apart: {', '.join(stems)}")
        langs = [self.language_of(path) for _, path, *_ in pairs]
        result = formats.score_files([(lang, name, gold, answers)
                                      for (_, _, gold, answers), lang, name in zip(pairs, langs, stems)])
        if len(set(langs)) == len(langs) > 1:
            per_file = {f"accuracy[{name}]" for name in stems} - {f"accuracy[{lang}]" for lang in langs}
            result = {part: {k: v for k, v in values.items() if k not in per_file} for part, values in result.items()}
        return result

    def references(self, gold: list[Question] | None) -> list[Reference]:
        """Chance: the accuracy of guessing, one option of each question's (of four, A-D: 25%)."""
        chance = sum(1 / len(q.options) for q in gold) / len(gold) if gold else 1 / len(formats.LABELS)
        return [Reference("chance", chance)]

    def language_of(self, submission_path: str) -> str:
        """The task's language; for mcqa-all the submission's, from its official name TEAMID_en/zh.csv."""
        if self.lang != "all":
            return self.lang
        for lang in ("en", "zh"):
            if os.path.basename(submission_path).lower().endswith(f"_{lang}.csv"):
                return lang
        raise UserError(f"{submission_path}: cannot tell the language (fix: name the file TEAMID_en.csv or "
                        "TEAMID_zh.csv)")
