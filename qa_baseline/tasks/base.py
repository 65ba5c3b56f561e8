"""What a task is, written down once: its settings, its formats and its pipeline.

A task (one folder under qa_baseline/tasks, one line in the registry, tasks/__init__.py) is a `Task` subclass:
  - `Settings`: a frozen dataclass of everything that changes its output. Each field is also a command-line
    option (`--name`; declared with `option(...)`); values come from the dataclass defaults, then the task's
    YAML (qa_baseline/configs/tasks/ID.yaml), then the command line, merged once by `make_settings`. A task sees only its
    own options. Tasks that retrieve passages use `RetrievalSettings` (corpus, retriever, BM25, dense, hybrid).
  - formats: `read_input` (what the pipeline may see: never gold answers), `read_gold`, `gold_for` (the
    gold of the items a run answered, None without gold), `submission_name`, `write_submission`,
    `read_submission` (the strict validator: every problem into a validate.Errors) and `score` ->
    {"metrics": name -> mean, "per_question": name -> values}, over the measures it lists in `measures`
    (names declared in metrics.MEASURES).
  - the pipeline: `open(settings)` -> components (the retriever, a KB, a collection), then
    `predict(items, components, settings)` -> Prediction (the answers `write_submission` writes).

The run driver (run.py) and the scorer (score.py) only call these; no task-specific branch lives there."""
from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping

from ..analysis import ANALYZERS
from ..errors import NoGold, UserError
from ..retrievers import RETRIEVERS
from ..retrievers.bm25 import B, K1


def option(default=None, help="", choices=None, metavar=None, file=False, cli=True):
    """A Settings field that is also the command-line option --NAME (FILE: a path, recorded with its checksum;
    CLI False: set in the task YAML only)."""
    return field(default=default, metadata={"help": help, "choices": choices, "metavar": metavar, "file": file,
                                            "cli": cli})


@dataclass(frozen=True)
class Settings:
    """Base of every task's settings."""
    trace: bool = option(False, "also write trace.jsonl: per question what the pipeline saw and scored")


@dataclass(frozen=True)
class RetrievalSettings(Settings):
    """Settings of tasks that retrieve passages from a corpus."""
    corpus: str | None = option(None, "corpus config name or corpus file", metavar="NAME|PATH")
    retriever: str = option("bm25", "bm25, dense or hybrid", choices=tuple(sorted(RETRIEVERS)))
    analyzer: str | None = option(None, "BM25 index analyzer (default: the corpus config's)",
                                  choices=ANALYZERS)
    k1: float = option(K1, f"BM25 k1 (default {K1})")
    b: float = option(B, f"BM25 b (default {B})")
    encoder: str | None = option(None, "dense/hybrid encoder (default: the corpus config's, else the language's)")
    fusion: str = option("rrf", "hybrid: fusion rule", choices=("rrf", "weighted"))
    weight: float = option(0.5, "hybrid, weighted fusion: weight of the dense score")
    rrf_k: float = option(60.0, "hybrid, rrf: the constant k of 1/(k + rank)", cli=False)
    depth: int = option(100, "hybrid: depth of both lists", cli=False)

    def retriever_params(self):
        """What the retriever reads (analyzer only when set: else the corpus config's)."""
        names = ("analyzer", "k1", "b", "encoder", "fusion", "weight", "rrf_k", "depth")
        return {k: getattr(self, k) for k in names if getattr(self, k) is not None}


def kind_of(f):
    """The Python type of a settings field's values: float, int, bool or str."""
    annotation = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    return {"float": float, "int": int, "bool": bool}.get(annotation.split(" ")[0], str)


def add_options(ap, cls, exclude=(), config=None):
    """One --NAME option per command-line field of the settings class CLS (default None: not given); the help
    shows the default that applies: the task config's (CONFIG) where it sets one, else the field's."""
    for f in dataclasses.fields(cls):
        if f.metadata.get("cli") and f.name not in exclude:
            kind = kind_of(f)
            value = (config or {}).get(f.name, f.default)
            default = f" (default {value})" if value is not None and f"default {value}" not in \
                f.metadata["help"] and f.metadata["help"] else ""
            if kind is bool:
                ap.add_argument(f"--{f.name.replace('_', '-')}", dest=f.name, action="store_true", default=None,
                                help=f.metadata["help"])
            else:
                ap.add_argument(f"--{f.name.replace('_', '-')}", dest=f.name, type=kind,
                                choices=f.metadata["choices"], metavar=f.metadata["metavar"],
                                help=f.metadata["help"] + default)


def make_settings(cls, config, given, source="the task config"):
    """CLS from its defaults, then CONFIG (the task YAML, named SOURCE in errors; unknown keys are an error),
    then GIVEN (options set on the command line, None = not given)."""
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(config) - names)
    if unknown:
        raise UserError(f"{source}: unknown setting {unknown[0]!r}; known: {', '.join(sorted(names))}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for name, value in config.items():  # the YAML's values, checked as the command line checks its own
        kind, choices = kind_of(fields[name]), fields[name].metadata["choices"]
        ok = value is None or (isinstance(value, kind) and not (kind is int and isinstance(value, bool))) or \
            (kind is float and isinstance(value, int) and not isinstance(value, bool))
        if not ok or (choices and value is not None and value not in choices):
            want = f"one of {', '.join(map(str, choices))}" if choices else f"of type {kind.__name__}"
            raise UserError(f"{source}: setting {name!r} is {value!r}; it must be {want}")
    values = {**config, **{k: v for k, v in given.items() if v is not None and k in names}}
    return cls(**values)


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


class Task(ABC):
    """One shared task (or sub-task): id, settings, formats, measures and pipeline. The formats default to
    the functions of the task's `formats` module (read_gold, write_submission, read_submission, score) and
    the pipeline to its `pipeline` module's predict; a task overrides what differs."""
    id: ClassVar[str]
    title: ClassVar[str]
    Settings: ClassVar[type] = Settings
    measures: ClassVar[tuple[str, ...]]
    primary: ClassVar[str | None] = None  # the measure leaderboards rank by (default: the first of measures)
    formats: ClassVar[Any]
    pipeline: ClassVar[Any] = None  # a module with predict(items, components, settings); None: scorer only
    multi_file: ClassVar[bool] = False  # score: several --gold/--submission pairs (mcqa)
    source: ClassVar[str] = "-"  # the row's Corpus when the task opens no corpus: where its candidates come from

    @property
    def main_measure(self):
        """The measure a leaderboard ranks by and a figure shows."""
        return self.primary or self.measures[0]

    @property
    def uses_retriever(self):
        return issubclass(self.Settings, RetrievalSettings)

    # --- formats -----------------------------------------------------------------------------------------
    def read_input(self, path: str) -> Any:
        """The items of a data file as the pipeline sees them (no gold)."""
        raise self.no_pipeline()

    def read_gold(self, path: str) -> Any:
        """The gold of a data file; NoGold when it has none, a UserError at FILE:LINE when a gold row is malformed."""
        return self.formats.read_gold(path)

    def gold_for(self, path: str, reference: Any, settings: Settings) -> Any | None:
        """The gold of the answered items REFERENCE, from the data file PATH (or a file SETTINGS name), read as
        strictly as `score --gold` reads it; None when the file has no gold at all (read_gold raises NoGold)."""
        try:
            return self.read_gold(path)
        except NoGold:  # a test file; gold with a malformed row is the UserError at its line
            return None

    @abstractmethod
    def submission_name(self, settings: Settings) -> str:
        """File name of the submission in the run folder."""

    def write_submission(self, path: str, answers: Any, settings: Settings) -> None:
        """Write ANSWERS in the official format, atomically."""
        self.formats.write_submission(path, answers)

    def read_submission(self, path: str, reference: Any, errors) -> Any:
        """The strict validator: the submission's answers for the items of REFERENCE (input items or gold);
        every problem goes to ERRORS."""
        return self.formats.read_submission(path, reference, errors)

    def score(self, gold: Any, submission: Any) -> dict:
        """{"metrics", "per_question"} over self.measures."""
        return self.formats.score(gold, submission)

    def score_files(self, pairs: list[tuple[str, str, Any, Any]]) -> dict:
        """Score (gold path, submission path, gold, submission) PAIRS; one pair unless multi_file."""
        (_, _, gold, submission), = pairs
        return self.score(gold, submission)

    # --- the pipeline ------------------------------------------------------------------------------------
    @property
    def has_pipeline(self):
        return self.pipeline is not None

    def method(self, settings: Settings) -> str:
        """The name of the run's method (the row's Retriever column): the retriever by default."""
        return getattr(settings, "retriever", "baseline")

    def open(self, settings: Settings) -> dict[str, Any]:
        """The components PREDICT uses: the corpus and retriever of a retrieval task."""
        if not self.uses_retriever:
            return {}
        from ..config import corpus_config
        from ..retrievers import open_retriever
        if not settings.corpus:
            raise UserError(f"task {self.id}: no corpus (fix: give --corpus NAME|PATH, or `corpus:` in its task "
                            "config)")
        corpus = corpus_config(settings.corpus, getattr(self, "lang", None))
        return {"corpus": corpus, "retriever": open_retriever(settings.retriever, corpus, settings.retriever_params())}

    def predict(self, items: Any, components: Mapping[str, Any], settings: Settings) -> Prediction:
        if self.pipeline is None:
            raise self.no_pipeline()
        return self.pipeline.predict(items, components, settings)

    def no_pipeline(self):
        from ..hints import command
        return UserError(f"task {self.id} has a scorer but no pipeline yet (fix: score submissions with "
                         f"`{command('score')} --task {self.id}`)")
