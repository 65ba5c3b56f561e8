"""NLPCC DBQA (answer-sentence selection): formats in formats.py, the ranking pipeline in pipeline.py."""
from __future__ import annotations

from dataclasses import dataclass

from ...rankers import RANKERS
from ...rankers.learning import MODELS
from ...rankers.tokens import ZH_TOKENS
from ..base import Settings, Task, option
from ..hf import is_dataset
from . import formats, hf, pipeline
from .formats import Group


@dataclass(frozen=True)
class DBQASettings(Settings):
    reranker: str = option(pipeline.AUTO, "how sentences are scored (auto, English: learned over bm25, overlap "
                                          "and cross with --train or --holdout, else cross; Chinese: learned "
                                          "over bm25 and overlap with training data, else bm25)",
                           choices=(pipeline.AUTO, *RANKERS), named=True)
    train: str | None = option(None, "labelled file the learned ranker is fitted on", metavar="FILE", file=True)
    holdout: int | None = option(None, "evaluate groups i of --data with i %% K == K-1, train the learned "
                                       "ranker on the others", metavar="K")
    features: str | None = option(None, "learned: comma-separated rankers whose features it combines "
                                        "(default bm25,overlap; also dense, cross)")
    learner: str | None = option(None, "learned: its model (default lambdamart with the cross feature, else "
                                       "logistic)", choices=tuple(MODELS))
    tokens: str | None = option(None, "Chinese tokens of bm25 and overlap (default char)", choices=ZH_TOKENS)
    lang: str | None = option(None, "language of the data (default: detected)", choices=("en", "zh"))
    allow_empty: bool = option(False, "rank lines with an empty question or sentence instead of stopping")
    k1: float | None = option(None, "bm25 ranker: k1 (default 0.9)")
    b: float | None = option(None, "bm25 ranker: b (default 0.4)")
    encoder: str | None = option(None, "dense ranker: encoder (default minilm for English, e5-small for Chinese)")


class DBQA(Task[DBQASettings]):
    title = "NLPCC DBQA answer-sentence selection"
    Settings = DBQASettings
    measures = ("MRR", "MAP", "ACC@1")
    formats, pipeline = formats, pipeline
    source = "given sentences"  # the candidates are the data file's own sentences

    def method(self, settings: DBQASettings) -> str:
        return settings.reranker

    def read_input(self, path: str) -> list[Group]:
        # labels stay: --holdout trains on the labelled groups it does not evaluate; predict scores texts only
        return hf.groups(path) if is_dataset(path) else formats.read(path)

    def read_gold(self, path: str) -> list[Group]:
        return hf.gold(path) if is_dataset(path) else formats.read_gold(path)

    def gold_for(self, path: str, reference: list[Group], settings: DBQASettings) -> list[Group] | None:
        return reference if reference[0].labels is not None else None

    def submission_name(self, settings: DBQASettings) -> str:
        return "submission.txt"
