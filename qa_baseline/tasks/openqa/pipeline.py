"""The openqa-en pipeline (NLPCC 2014 English open-domain QA): retrieve the top `--passages` passages of the
question from the corpus (any retriever), extract and rank short-answer candidates (qa_baseline/answers),
answer the best 5, or nothing (Has-Answer False) when the has-answer model says the collection has no
answer. The answer model is the rule unless `--train FILE` (NLPCC XML with answers) or `--folds K`
(cross-fitting on --data's own answers) fits the learned scorer (kept where it beats the rule on held-out
folds) and the has-answer threshold (for Has-Answer accuracy)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ...answers.scorers import Gold
from ...answers.stage import Extract, Extracted, ExtractionStage, answer
from ...core.errors import UserError
from ..base import Components, Prediction
from .formats import MAX_ANSWERS, parse_pairs

if TYPE_CHECKING:
    from . import OpenQASettings


def _alone(texts: Sequence[str]) -> Extract:
    """The extraction of questions TEXTS, each retrieved with its own text."""
    def extract(stage: ExtractionStage, desc: str) -> Extracted:
        return Extracted(texts, texts, *stage.run(texts, desc=desc))
    return extract


def _golds(answers: Sequence[list[str]]) -> list[Gold]:
    """Each question's gold ANSWERS as the answer stage takes them: each answer one spelling."""
    return [[[a] for a in ans] for ans in answers]


def predict(questions: Mapping[str, str], components: Components, settings: OpenQASettings,
            folds_gold: Mapping[str, list[str]] | None = None) -> Prediction:
    """FOLDS_GOLD: --data's gold (read_gold), given with --folds only, to cross-fit the answer model on."""
    if settings.folds and folds_gold is None:
        raise UserError(f"{components.data}: --folds needs gold answers (<answer> elements) in the data")
    assert components.retriever is not None and components.corpus is not None  # Task.open
    qids = list(questions)

    def train(stage: ExtractionStage) -> tuple[Extracted, list[Gold]]:
        assert settings.train is not None  # called with --train only
        pairs = parse_pairs(settings.train)
        return _alone([q for _, q, _ in pairs])(stage, "training questions"), _golds([a for *_, a in pairs])

    done = answer(qids, _alone([questions[q] for q in qids]), train, components.retriever, components.corpus,
                  settings, ranked=MAX_ANSWERS, max_list=MAX_ANSWERS, lists=False, value="has_answer",
                  golds=_golds([(folds_gold or {}).get(q, []) for q in qids]), trace=settings.trace)
    return Prediction({qid: [c.text for c in chosen] for qid, chosen in zip(qids, done.chosen)},
                      settings=done.settings, observed=done.observed, trace=done.trace,
                      # after scoring, with the gold the driver read: how far retrieval and extraction got
                      diagnose=lambda gold: done.diagnose(_golds([gold.get(q, []) for q in qids])))
