"""The NLPCC KBQA baseline: link the question's KB subjects, rank their (predicate, object) triples, answer
with the best triple's object (no candidate: no answer).

The KB store (qa_baseline/indexes/kb.py, built by `python -m qa_baseline.index --kb FILE`) holds the triples
and the names; linking (kb/link.py) finds every name, alias, homophone, one-edit typo and suffix variant of a
name in the question; ranking (kb/predicates.py) scores each candidate with a logistic regression trained on
--train (the 2016 training questions; label: the candidate's object is a gold answer), or without --train
with the documented rule. Only the questions of --data reach this module (formats.read_questions)."""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.progress import tqdm
from ...kb.predicates import FEATURES, Ranker, train
from ..base import Components, Prediction
from .formats import Item, read_gold

if TYPE_CHECKING:
    from . import KBQASettings

TRACE_TOP = 5  # candidates per question in trace.jsonl


def model_summary(model: Any) -> dict[str, Any]:
    """The trained ranker in numbers: per feature its standardisation (mean, scale) and weight, the intercept."""
    learned = model.learned
    return {"features": {k: {"mean": float(m), "scale": float(s), "weight": float(w)}
                         for k, m, s, w in zip(FEATURES, *learned.scaling(), learned.coefficients())},
            "intercept": float(learned.intercept()), "training": model.stats}


def trace_record(qid: str, question: str, ranked: Sequence[Any], scores: Sequence[float],
                 answers: Sequence[str]) -> dict[str, Any]:
    subjects: dict[str, Any] = {}
    for c in ranked:
        subjects.setdefault(c.mention.subject, c.mention.match)
    return {"id": qid, "question": question, "answer": answers,
            "subjects": [{"subject": s, "match": m} for s, m in subjects.items()],
            "top": [{"subject": c.mention.subject, "name": c.mention.key, "match": c.mention.match,
                     "span": [c.mention.start, c.mention.end], "predicate": c.predicate, "object": c.object,
                     "score": round(s, 6), "features": {k: round(v, 6) for k, v in zip(FEATURES, c.features)}}
                    for c, s in zip(ranked[:TRACE_TOP], scores[:TRACE_TOP])]}


def predict(items: Mapping[str, Item], components: Components, settings: KBQASettings) -> Prediction:
    kb = components.kb
    assert kb is not None  # KBQA.open
    observed: dict[str, Any] = {"kb": {k: kb.manifest[k] for k in ("triples", "subjects", "names", "aliases")}}
    model = None
    if settings.train:
        gold = read_gold(settings.train)
        t0 = time.perf_counter()
        model = train(kb, [(g.question, g.answers) for g in gold.values()],
                      progress=lambda xs: tqdm(xs, desc="training questions", unit=" q", disable=None))
        observed["train_stats"] = model.stats
        print(f"trained on {len(gold):,} questions in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    ranker = Ranker(kb, model)
    answers: dict[str, tuple[str, list[str]]] = {}
    trace: list[dict[str, Any]] | None = [] if settings.trace else None
    t0 = time.perf_counter()
    for qid, item in tqdm(items.items(), desc="questions", unit=" q", disable=None):
        got, ranked, scores = ranker.answer(item.question)
        answers[qid] = (item.question, got)
        if trace is not None:
            trace.append(trace_record(qid, item.question, ranked, scores, got))
    seconds = time.perf_counter() - t0
    print(f"answered {len(items):,} questions in {seconds:.1f} s ({len(items) / max(seconds, 1e-9):.1f} questions/s)",
          file=sys.stderr)
    files = {"model.json": lambda f: json.dump(model_summary(model), f, ensure_ascii=False, indent=2)} if model else {}
    observed["questions_per_second"] = round(len(items) / max(seconds, 1e-9), 2)
    return Prediction(answers, observed=observed, trace=trace, files=files)
