"""The scorers beyond the published rule, `--scorer fused` (fusion.py) and `--scorer learned` (learned.py), over
the evidence of both retrievers (evidence.py; the task opens them as one `evidence.Both`). The row's settings
name the scorer and what decides its answers (fused: the weight and the normalisation; learned: the learner and
the model kept); its observed part holds what fitting found and the time of each stage."""
from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ...core.errors import NoGold, UserError
from ...core.config import CorpusConfig
from ..base import Components, Prediction
from . import fusion, learned
from .evidence import NORMALISERS, Both, Evidence, choose, gather, hit_records
from .formats import LABELS, Question, read_gold

if TYPE_CHECKING:
    from . import MCQASettings


class Stages:
    """Wall and CPU seconds of the named stages of a run (CPU: this process's, all its threads)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        wall, cpu = time.time(), time.process_time()
        yield
        self.wall[name] = self.wall.get(name, 0.0) + time.time() - wall
        self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - cpu

    def observed(self) -> dict[str, dict[str, float]]:
        return {"stage_seconds": {k: round(v, 2) for k, v in self.wall.items()},
                "stage_cpu_seconds": {k: round(v, 2) for k, v in self.cpu.items()}}


def train_files(settings: MCQASettings) -> list[str]:
    """The --train files (none, one or several)."""
    return list(settings.train or ())  # a repeatable setting: always a tuple (settings.make_settings)


def read_train(paths: Sequence[str]) -> list[Question]:
    """The questions of the --train files, each with its answer."""
    questions: list[Question] = []
    for path in paths:
        try:
            questions += read_gold(path)
        except NoGold:
            raise UserError(f"--train {path}: no answers (the 7th field, correct) to fit on (fix: train on a file "
                            "with answers)") from None
    return questions


def predict_beyond(questions: Sequence[Question], components: Components, settings: MCQASettings
                   ) -> Prediction:
    """The Prediction of --scorer fused or learned."""
    if settings.normalise:
        fusion.normaliser(settings.normalise)  # checked before any search
    trains = train_files(settings)
    if settings.scorer == "fused" and trains and settings.weight is not None:
        raise UserError("--scorer fused: give --weight or --train (to fit the weight), not both")
    if settings.scorer == "learned" and not trains:
        raise UserError("--scorer learned needs --train FILE (questions with answers to fit the model on)")
    both = components.retriever
    assert isinstance(both, Both) and components.corpus is not None  # opened for fused and learned (MCQA.open)
    parts, stage = both.parts, Stages()
    with stage("search"):
        evidence = gather(questions, parts, settings.n)
    with stage("train_search"):
        train = gather(read_train(trains), parts, settings.n, desc="training questions") if trains else []
    if settings.scorer == "fused":
        prediction = _fused(evidence, train, components.corpus, both, settings)
    else:
        prediction = _learned(evidence, train, components.corpus, both, settings, stage)
    if trains:
        prediction.observed["fitted_on"] = [os.path.basename(p) for p in trains]
    prediction.observed.update(stage.observed())
    return prediction


def _fused(evidence: Sequence[Evidence], train: Sequence[Evidence], corpus: CorpusConfig, both: Both,
           settings: MCQASettings) -> Prediction:
    n, observed, title = settings.n, {}, both.title
    if train:
        normalise, weight, curves = fusion.fit(train, n, settings.normalise)
        observed["train_accuracy"] = {name: {f"{w:.2f}": round(a, 6) for w, a in curve.items()}
                                      for name, curve in curves.items()}
    else:
        fitted_normalise, fitted_weight = fusion.default(corpus)
        normalise = settings.normalise or fitted_normalise
        weight = settings.weight if settings.weight is not None else fitted_weight
    fusion.check_weight(weight)
    norm = NORMALISERS[normalise]
    answers: dict[str, str] = {}
    trace: list[dict[str, Any]] = []
    for ev in evidence:
        bm25, dense = fusion.part_scores(ev, n)
        fused = fusion.fuse(bm25, dense, weight, normalise)
        q = ev.question
        answers[q.id] = LABELS[choose(fused)]
        if settings.trace:
            trace.append({"id": q.id, "question": q.question, "answer": answers[q.id], "options": [
                {"label": label, "text": opt, "score": s, "features": {"bm25": b, "dense": d, f"bm25_{normalise}": bn,
                                                                      f"dense_{normalise}": dn},
                 "hits": hit_records(ev, i, title)}
                for i, (label, opt, s, b, d, bn, dn) in enumerate(zip(LABELS, q.options, fused, bm25, dense,
                                                                      norm(bm25), norm(dense)))]})
    return Prediction(answers, settings={"n": n, "scorer": "fused", "weight": weight, "normalise": normalise},
                      observed=observed, trace=trace if settings.trace else None)


def _learned(evidence: Sequence[Evidence], train: Sequence[Evidence], corpus: CorpusConfig, both: Both,
             settings: MCQASettings, stage: Stages) -> Prediction:
    title = both.title
    learner = settings.learner or "logistic"
    featurizer = learned.Featurizer(corpus.lang, corpus, settings.n)
    with stage("train_features"):
        items = learned.train_items(train, featurizer)
    with stage("fit"):
        model, found = learned.choose_model(items, learner, featurizer.names)
    with stage("features"):  # the answered questions' features: what answering adds per question
        rows = featurizer.rows(evidence)
    answers: dict[str, str] = {}
    trace: list[dict[str, Any]] = []
    for ev, options in zip(evidence, rows):
        q = ev.question
        scores = learned.scores(model, featurizer.matrix(options), featurizer.names).tolist()
        answers[q.id] = LABELS[choose(scores)]
        if settings.trace:
            trace.append({"id": q.id, "question": q.question, "answer": answers[q.id], "options": [
                {"label": label, "text": opt, "score": s, "features": f, "hits": hit_records(ev, i, title)}
                for i, (label, opt, s, f) in enumerate(zip(LABELS, q.options, scores, options))]})
    return Prediction(answers, settings={"n": settings.n, "scorer": "learned", "learner": learner,
                                         "answer_model": found["kept"], "features": ",".join(featurizer.names)},
                      observed={"learned": found}, trace=trace if settings.trace else None)
