"""The openqa-en pipeline (NLPCC 2014 English open-domain QA): retrieve the top `--passages` passages of the
question from the corpus (any retriever), extract and rank short-answer candidates (qa_baseline/answers),
answer the best 5, or nothing (Has-Answer False) when the has-answer model says the collection has no
answer. The answer model is the rule unless `--train FILE` (NLPCC XML with answers) or `--folds K`
(cross-fitting on --data's own answers) fits the learned scorer (kept where it beats the rule on held-out
folds) and the has-answer threshold (for Has-Answer accuracy)."""
from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...answers import neural
from ...answers.answer_types import answer_type
from ...answers.scorers import LEARNERS
from ...answers.stage import ExtractionStage, ceilings, check_fitting, fit_models, keep_for, model_kind, \
    trace_record, wide_for
from ...core.errors import NoGold, UserError
from ..base import Prediction
from .formats import MAX_ANSWERS, parse_pairs, read_gold

if TYPE_CHECKING:
    from . import OpenQASettings


def _golds(path: str) -> dict[str, list[list[str]]]:
    """--folds only: the data's own answers, to cross-fit the answer model (question i answered by the model
    fitted on the other folds)."""
    try:
        return {qid: [[a] for a in answers] for qid, answers in read_gold(path).items()}
    except NoGold:
        raise UserError(f"{path}: --folds needs gold answers (<answer> elements) in the data") from None


def predict(questions: Mapping[str, str], components: Mapping[str, Any], settings: OpenQASettings) -> Prediction:
    started = time.time()
    corpus = components["corpus"]
    check_fitting(settings.train, settings.folds, len(questions))
    neural.check(settings.neural, corpus["lang"])
    stage = ExtractionStage(components["retriever"], corpus, corpus["lang"], settings.passages, settings.max_chars,
                            keep_for(settings.train, settings.folds, settings.neural, MAX_ANSWERS),
                            wide_for(settings))
    qids = list(questions)
    texts = [questions[q] for q in qids]
    passages, cands = stage.run(texts)
    neural.add(settings.neural, texts, cands)
    golds = _golds(components["data"]) if settings.folds else {}
    train_groups = None
    observed: dict[str, Any] = {}
    if settings.train:
        pairs = parse_pairs(settings.train)
        _, train_cands = stage.run([q for _, q, _ in pairs], progress=True, desc="training questions")
        neural.add(settings.neural, [q for _, q, _ in pairs], train_cands)
        train_groups = list(zip(train_cands, [[[a] for a in answers] for *_, answers in pairs]))
        observed["train_questions"] = len(pairs)
    models, fitted = fit_models(cands, train_groups, [golds.get(q, []) for q in qids], settings.folds,
                                "has_answer", False, MAX_ANSWERS, learn=settings.scorer != "rule",
                                kinds=LEARNERS[settings.learner])
    answers: dict[str, Any] = {}
    trace: list[dict[str, Any]] = []
    for qid, text, ps, cs, model in zip(qids, texts, passages, cands, models):
        chosen, scored, p = model.decide(cs, k=MAX_ANSWERS)
        answers[qid] = [c.text for c in chosen]
        if settings.trace:
            trace.append(trace_record(qid, text, text, ps, scored, chosen, p))
    seconds = round(time.time() - started, 2)
    observed.update({"answer_model": fitted, "stage_seconds": {k: round(v, 2) for k, v in stage.seconds.items()},
                     "passages_parsed": stage.parses(),
                     "questions_per_second": round(len(qids) / seconds, 2) if seconds else None})

    def diagnose(gold):  # after scoring, with the gold the driver read: how far retrieval and extraction got
        return {"ceiling": ceilings(passages, cands, [[[a] for a in gold.get(q, [])] for q in qids],
                                    [answer_type(t, corpus["lang"]).name for t in texts])}
    return Prediction(answers, settings={"lang": corpus["lang"], "answer_model": model_kind(settings)},
                      observed=observed, trace=trace if settings.trace else None, diagnose=diagnose)
