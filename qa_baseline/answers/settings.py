"""The answer stage's settings (stage.answer): how many passages candidates come from, the answer model and how it
is fitted, neural evidence. The command-line options of the short-answer tasks (openqa-en, qac-1/2/3), beside the
retrievers' own (retrievers/base.py RetrieverSettings)."""
from __future__ import annotations

from dataclasses import dataclass

from ..core.settings import option
from ..rankers.learning import MODELS
from . import neural


@dataclass(frozen=True)
class AnswerSettings:
    """Settings of the short-answer tasks (openqa-en, qac-1/2/3): a task's Settings class lists it before
    RetrievalSettings (class S(AnswerSettings, RetrievalSettings)), so its options follow the retrievers'."""
    passages: int = option(10, "retrieved passages per question that candidates are taken from")
    wide: int = option(50, "retrieved passages per question whose text (not parsed) is searched for each "
                           "candidate: the `wide` feature of the learned scorer, how many of them hold it (a "
                           "search of their own, only in runs that fit one; 0: off)")
    train: str | None = option(None, "data with gold answers the answer model is fitted on", metavar="FILE",
                               file=True)
    folds: int | None = option(None, "fit the answer model on --data's own gold by cross-fitting: question i "
                                     "is answered by the model fitted on the questions of the other folds "
                                     "(i mod K)", metavar="K", reads_gold=True)
    scorer: str = option("auto", "auto: the learned scorer where it beats the rule on held-out folds of the "
                                 "training data; rule: always the rule", choices=("auto", "rule"))
    learner: str = option("logistic", "the learned scorer tried against the rule: logistic, lambdamart (LightGBM "
                                      "lambdarank) or best (the better of both on held-out folds, per fit)",
                          choices=(*MODELS, "best"))
    max_chars: int = option(4000, "characters of a passage that are parsed for candidates", cli=False)
    neural: str = option("none", "neural evidence for the answer candidates, the score of each best candidate's "
                                 "sentence against the question: cross (English: the ms-marco cross-encoder) or "
                                 "e5 (any language: multilingual-e5-small's cosine)", choices=neural.KINDS)
    lang: str | None = option(None, "language of a corpus given as a file (default en; a named corpus says "
                                    "its own)", choices=("en", "ja"))
