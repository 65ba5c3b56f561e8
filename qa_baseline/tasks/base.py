"""What a task is, written down once: its settings, its formats and its pipeline.

A task (one folder under qa_baseline/tasks, one line in the registry, tasks/__init__.py) is a `Task` subclass:
  - `Settings`: a frozen dataclass of everything that changes its output. Each field is also a command-line
    option (`--name`; declared with `option(...)`); values come from the dataclass defaults, then the task's
    YAML (qa_baseline/configs/tasks/ID.yaml), then the command line, merged once by `make_settings`
    (qa_baseline/core/settings.py). A task sees only its own options. Tasks that retrieve passages use
    `RetrievalSettings` (corpus, retriever, BM25, dense, hybrid).
  - formats: `read_input` (what the pipeline may see: never gold answers), `read_gold`, `gold_for` (the
    gold of the items a run answered, None without gold), `submission_name`, `write_submission`,
    `read_submission` (the strict validator: every problem into a scoring.validate.Errors) and `score` ->
    {"metrics": name -> mean, "per_question": name -> values}, over the measures it lists in `measures`
    (names declared in metrics.MEASURES); `references(gold)`, the levels a figure draws across its panel
    (chance, answering nothing).
  - the pipeline: `open(settings)` -> Components (the retriever, a KB, a collection), then
    `predict(items, components, settings[, folds_gold])` -> Prediction (the answers `write_submission`
    writes); only a run that fits on --data's gold (--folds) is given it, as FOLDS_GOLD.

The run driver (run.py) and the scorer (score.py) only call these; no task-specific branch lives there."""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from ..core.config import CorpusConfig, corpus_config
from ..core.errors import NoGold, UserError
from ..core.hints import command
from ..core.settings import option
from ..retrievers import open_retriever
from ..retrievers.base import Retriever, RetrieverSettings

if TYPE_CHECKING:
    from ..collection.metadata import Collection
    from ..indexes.kb import KB
    from ..scoring.validate import Errors


@dataclass(frozen=True)
class Settings:
    """Base of every task's settings."""
    trace: bool = option(False, "also write trace.jsonl: per question what the pipeline saw and scored",
                         identifies=False)


@dataclass(frozen=True)
class RetrievalSettings(Settings, RetrieverSettings):
    """Settings of tasks that retrieve passages from a corpus: the retrievers' own (retrievers/base.py) and
    the task's."""


@dataclass(frozen=True)
class Reference:
    """A level a figure draws across a task's panel as a dashed line: LABEL ("chance", "answer nothing") and
    VALUE, a fraction as the task's scores are."""
    label: str
    value: float


S = TypeVar("S", bound=Settings)  # a task's Settings class (Task[MCQASettings]); in Task, `Settings` is the class variable


@dataclass(frozen=True)
class Components:
    """What a task's `open` gives its `predict`: CORPUS_NAME, the row's Corpus and the run folder's (None: the
    task's `source`); a retrieval task's CORPUS config and RETRIEVER; the KB of kbqa; the COLLECTION of
    datasearch. DATA, the data file's path, is set by the driver for messages (FILE:LINE); a pipeline never reads
    gold from it: a run that fits on --data's gold (--folds) is handed it (predict's FOLDS_GOLD)."""
    corpus_name: str | None = None
    corpus: CorpusConfig | None = None
    retriever: Retriever | None = None
    kb: KB | None = None
    collection: Collection | None = None
    data: str = ""


@dataclass
class Prediction:
    """What a pipeline returns: ANSWERS for write_submission; REFERENCE, the items they answer when not all
    of the input (a held-out part); SETTINGS, what the pipeline resolved that identifies the run beyond its
    Settings (the detected language, the answer model's kind: short scalars) and OBSERVED, what the run found
    (timings, fitted weights, held-out scores), for the row's parts of the same names; TRACE, one record per
    question for --trace; FILES, extra files of the run: name -> writer(file object); DIAGNOSE, gold ->
    figures for the row's `observed` (e.g. how often the answer was in the retrieved passages), called by the
    driver after scoring: the gold reaches the task's diagnostics, never its predictions."""
    answers: Any
    reference: Any = None
    settings: dict = field(default_factory=dict)
    observed: dict = field(default_factory=dict)
    trace: list | None = None
    files: dict[str, Callable] = field(default_factory=dict)
    diagnose: Callable[[Any], dict] | None = None


class Task(ABC, Generic[S]):
    """One shared task (or sub-task): id, settings, formats, measures and pipeline. The formats default to
    the functions of the task's `formats` module (read_gold, write_submission, read_submission, score) and
    the pipeline to its `pipeline` module's predict; a task overrides what differs."""
    id: str  # the registry's name of the task, given when it is made
    title: str  # a task made from its id may give its own (mcqa-en)
    Settings: ClassVar[type] = Settings
    measures: tuple[str, ...]
    primary: ClassVar[str | None] = None  # the measure leaderboards rank by (default: the first of measures)
    formats: Any  # the task's formats module
    pipeline: Any = None  # a module with predict(items, components, settings[, folds_gold]); None: scorer only
    multi_file: ClassVar[bool] = False  # score: several --gold/--submission pairs (mcqa)
    source: ClassVar[str] = "-"  # the row's Corpus when the task opens no corpus: where its candidates come from

    def __init__(self, task_id: str):
        self.id = task_id

    @property
    def main_measure(self) -> str:
        """The measure a leaderboard ranks by and a figure shows."""
        return self.primary or self.measures[0]

    @property
    def uses_retriever(self) -> bool:
        return issubclass(self.Settings, RetrievalSettings)

    # --- formats -----------------------------------------------------------------------------------------
    def read_input(self, path: str) -> Any:
        """The items of a data file as the pipeline sees them (no gold)."""
        raise self.no_pipeline()

    def read_gold(self, path: str) -> Any:
        """The gold of a data file; NoGold when it has none, a UserError at FILE:LINE when a gold row is malformed."""
        return self.formats.read_gold(path)

    def gold_for(self, path: str, reference: Any, settings: S) -> Any | None:
        """The gold of the answered items REFERENCE, from the data file PATH (or a file SETTINGS name), read as
        strictly as `score --gold` reads it; None when the file has no gold at all (read_gold raises NoGold)."""
        try:
            return self.read_gold(path)
        except NoGold:  # a test file; gold with a malformed row is the UserError at its line
            return None

    @abstractmethod
    def submission_name(self, settings: S) -> str:
        """File name of the submission in the run folder."""

    def write_submission(self, path: str, answers: Any, settings: S) -> None:
        """Write ANSWERS in the official format, atomically."""
        self.formats.write_submission(path, answers)

    def read_submission(self, path: str, reference: Any, errors: Errors) -> Any:
        """The strict validator: the submission's answers for the items of REFERENCE (input items or gold);
        every problem goes to ERRORS."""
        return self.formats.read_submission(path, reference, errors)

    def score(self, gold: Any, submission: Any) -> dict[str, Any]:
        """{"metrics", "per_question"} over self.measures."""
        return self.formats.score(gold, submission)

    def gold_rows(self, gold: Any) -> list[tuple[str, str]]:
        """(question id, its gold answer as text) in the order `score` lists the questions: what a results
        page shows beside each question's values."""
        return self.formats.gold_rows(gold)

    def score_files(self, pairs: list[tuple[str, str, Any, Any]]) -> dict[str, Any]:
        """Score (gold path, submission path, gold, submission) PAIRS; one pair unless multi_file."""
        (_, _, gold, submission), = pairs
        return self.score(gold, submission)

    def references(self, gold: Any | None) -> list[Reference]:
        """The reference levels of the main measure (its per-part values, accuracy[en], too) over GOLD (read_gold;
        None when it is not at hand): none by default."""
        return []

    # --- the pipeline ------------------------------------------------------------------------------------
    @property
    def has_pipeline(self) -> bool:
        return self.pipeline is not None

    def method(self, settings: S) -> str:
        """The name of the run's method (the row's Retriever column): the retriever by default."""
        return getattr(settings, "retriever", "baseline")

    def open(self, settings: S) -> Components:
        """The components PREDICT uses: the corpus and retriever of a retrieval task."""
        if not self.uses_retriever:
            return Components()
        retrieval = cast(RetrievalSettings, settings)  # uses_retriever: self.Settings is a RetrievalSettings
        if not retrieval.corpus:
            raise UserError(f"task {self.id}: no corpus (fix: give --corpus NAME|PATH, or `corpus:` in its task "
                            "config)")
        # the language of a corpus given as a file: --lang where the task has it, else the task's own
        corpus = corpus_config(retrieval.corpus, getattr(settings, "lang", None) or getattr(self, "lang", None))
        retriever = open_retriever(retrieval.retriever, corpus, retrieval.retriever_params())
        return Components(corpus.name, corpus, retriever)

    def predict(self, items: Any, components: Components, settings: S, folds_gold: Any | None = None) -> Prediction:
        """The answers to ITEMS. FOLDS_GOLD, --data's gold, is given only to a run whose settings fit on it
        (option(reads_gold=True): --folds), by the pipelines that take it; None in every other run."""
        if self.pipeline is None:
            raise self.no_pipeline()
        gold = () if folds_gold is None else (folds_gold,)  # only the pipelines that fit on it take it
        return self.pipeline.predict(items, components, settings, *gold)

    def no_pipeline(self) -> UserError:
        return UserError(f"task {self.id} has a scorer but no pipeline yet (fix: score submissions with "
                         f"`{command('score')} --task {self.id}`)")
