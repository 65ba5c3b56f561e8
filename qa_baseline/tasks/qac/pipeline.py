"""The QAC pipelines (NTCIR-3 QAC-1 tasks 1-3) over any corpus and retriever: retrieve the top `--passages`
passages, extract and rank short-answer candidates (qa_baseline/answers), then
- qac-1: the best 5 answers, each with its support document (the passage it is best supported by);
- qac-2: one answer list: every candidate whose score is within the fitted ratio of the best (at most
  `--max-list`), empty when the has-answer model says the collection has no answer;
- qac-3: as qac-2, question by question in series order: a follow-up's retrieval query adds the series' first
  and previous questions, and its candidate extraction also matches their words and drops strings that are
  in them or in their best answers (the rule's top candidate), so a pronoun or an elided topic still finds
  its passages.
The answer model is the rule unless `--train FILE` (a QAC TSV with answers) or `--folds K` (cross-fitting
on --data's own answers) fits the learned scorer (kept where it beats the rule on held-out folds), the
has-answer threshold and the list ratio (both for the mean F-measure)."""
from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...answers import neural
from ...answers.answer_types import answer_type
from ...answers.scorers import LEARNERS, RuleScorer, ranked
from ...answers.stage import ExtractionStage, ceilings, check_fitting, fit_models, keep_for, model_kind, \
    trace_record, wide_for
from ...core.errors import NoGold, UserError
from ...corpus.segment import document_id
from ..base import Prediction
from .formats import TASK1_MAX, Gold, Question, read_gold, read_questions, score

if TYPE_CHECKING:
    from . import QACSettings


def _contexts(questions: Sequence[Question], stage: ExtractionStage, progress: bool = True
              ) -> tuple[list[Any], list[Any], list[str], list[str]]:
    """(passages, candidates, queries, contexts) per question, in waves of series position so that each
    follow-up sees the best answers of its earlier questions."""
    by_qid = {q.qid: q for q in questions}
    best: dict[str, str] = {}
    waves: defaultdict[int, list[int]] = defaultdict(list)
    for i, q in enumerate(questions):
        waves[len(q.prev)].append(i)
    n = len(questions)
    passages: list[Any] = [None] * n
    cands: list[Any] = [None] * n
    queries, contexts = [""] * n, [""] * n
    rule = RuleScorer()
    for position in sorted(waves):
        idx = waves[position]
        for i in idx:
            q = questions[i]
            earlier = list(dict.fromkeys([*q.prev[:1], *q.prev[-1:]]))  # the series' first and previous
            queries[i] = " ".join([q.question, *(by_qid[p].question for p in earlier)])
            contexts[i] = " ".join([*(by_qid[p].question for p in earlier), *(best[p] for p in q.prev if best.get(p))])
        got_p, got_c = stage.run([questions[i].question for i in idx], [queries[i] for i in idx],
                                 [contexts[i] for i in idx], progress=progress,
                                 desc=f"questions (series position {position + 1})" if len(waves) > 1 else "questions")
        for i, ps, cs in zip(idx, got_p, got_c):
            passages[i], cands[i] = ps, cs
            top = ranked(cs, rule)
            best[questions[i].qid] = top[0][0].text if top else ""
    return passages, cands, queries, contexts


def predict(items: Mapping[str, Question], components: Mapping[str, Any], settings: QACSettings,
            task: int = 1) -> Prediction:
    started = time.time()
    questions = list(items.values())
    corpus = components["corpus"]
    check_fitting(settings.train, settings.folds, len(questions))
    neural.check(settings.neural, corpus["lang"])
    lists = task != 1
    max_list = TASK1_MAX if task == 1 else settings.max_list
    if max_list < 1:
        raise UserError(f"--max-list must be at least 1, not {max_list}")
    value = None if task == 1 else "f"
    data_gold = _gold(components["data"]) if settings.folds else {}
    golds = [data_gold[q.qid].answers if q.qid in data_gold else [] for q in questions]
    if settings.folds and not data_gold:
        raise UserError(f"{components['data']}: --folds needs gold answers (answers_json, has_answer) in the data")
    stage = ExtractionStage(components["retriever"], corpus, corpus["lang"], settings.passages, settings.max_chars,
                            keep_for(settings.train, settings.folds, settings.neural, max_list),
                            wide_for(settings))
    passages, cands, queries, _ = _contexts(questions, stage)
    neural.add(settings.neural, [q.question for q in questions], cands)
    train_groups = None
    observed: dict[str, Any] = {}
    if settings.train:
        train_q = read_questions(settings.train)
        train_gold = read_gold(settings.train)
        _, train_cands, _, _ = _contexts(train_q, stage)
        neural.add(settings.neural, [q.question for q in train_q], train_cands)
        train_groups = [(c, train_gold[q.qid].answers) for q, c in zip(train_q, train_cands)]
        observed["train_questions"] = len(train_q)
    models, fitted = fit_models(cands, train_groups, golds, settings.folds, value, lists, max_list,
                                learn=settings.scorer != "rule",
                                kinds=LEARNERS[settings.learner])
    answers: dict[str, Any] = {}
    trace: list[dict[str, Any]] = []
    for q, query, ps, cs, model in zip(questions, queries, passages, cands, models):
        chosen, scored, p = model.decide(cs, k=TASK1_MAX, lists=lists)
        answers[q.qid] = [(c.text, document_id(c.docid, corpus)) for c in chosen]  # a passage's document
        if settings.trace:
            trace.append(trace_record(q.qid, q.question, query, ps, scored, chosen, p))
    seconds = round(time.time() - started, 2)
    observed.update({"answer_model": fitted, "stage_seconds": {k: round(v, 2) for k, v in stage.seconds.items()},
                     "passages_parsed": stage.parses(),
                     "questions_per_second": round(len(questions) / seconds, 2) if seconds else None})
    chose: dict[str, Any] = {"lang": corpus["lang"], "answer_model": model_kind(settings)}
    if task != 1:
        chose["max_list"] = max_list

    def diagnose(gold):  # after scoring, with the gold the driver read: how far retrieval and extraction got
        found = {"ceiling": ceilings(passages, cands, [gold[q.qid].answers if q.qid in gold else []
                                                        for q in questions],
                                     [answer_type(q.question, corpus["lang"]).name for q in questions])}
        if task != 1:  # the AFM of answering nothing (NTCIR's no-answer rule): the level a list must beat
            found["answer_nothing"] = score(gold, {qid: [] for qid in gold}, task)["metrics"]["AFM"]
        return found
    return Prediction(answers, settings=chose, observed=observed, trace=trace if settings.trace else None,
                      diagnose=diagnose)


def _gold(path: str) -> dict[str, Gold]:
    """--folds only: the data's gold ({} when it has none), to cross-fit the answer model (question i answered
    by the model fitted on the other folds)."""
    try:
        return read_gold(path)
    except NoGold:  # a malformed gold row is the UserError at its line
        return {}
