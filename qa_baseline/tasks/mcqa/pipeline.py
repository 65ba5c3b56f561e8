"""The published IJCNLP-2017 Task 5 baseline: for each option, query = question + " " + option; search the
index; score(q, a) = the mean of the scores of the top n (n <= 3) hits, 0 when nothing is found; the
highest-scoring option wins. Ties go to the earliest option (A before B before C before D).

`--scorer` chooses how options are scored: `rule` (default, the above with --retriever), `fused` (BM25 and
dense option scores normalised within the question and weighted: fusion.py) or `learned` (a ranking model over
option features fitted on --train files, kept where it beats the rule on held-out folds: learned.py)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...core.progress import tqdm  # a bar on a terminal, a line every 30 s in a log

from ...core.errors import UserError
from ...retrievers import top_scores
from ..base import Components, Prediction
from .evidence import choose, option_score, rule_score  # noqa: F401  (benches and tests: pipeline.option_score)
from .formats import LABELS, Question
from .scorers import predict_beyond

if TYPE_CHECKING:
    from . import MCQASettings

CHUNK = 250  # questions per batched search call


def predict(questions: Sequence[Question], components: Components, settings: MCQASettings) -> Prediction:
    n, retriever = settings.n, components.retriever
    assert retriever is not None  # a retrieval task (Task.open)
    if n < 1:
        raise UserError(f"--n must be at least 1, not {n}")
    if settings.scorer not in (None, "rule"):
        return predict_beyond(questions, components, settings)
    answers: dict[str, str] = {}
    trace: list[dict[str, Any]] = []
    with tqdm(total=len(questions), desc="questions", unit=" q", disable=None) as bar:
        for start in range(0, len(questions), CHUNK):
            chunk = questions[start:start + CHUNK]
            queries = [f"{q.question} {opt}" for q in chunk for opt in q.options]
            if settings.trace:  # the trace shows each option's hits
                hits = retriever.search(queries, k=n)
                found = [[score for _, score in h] for h in hits]
            else:
                found = top_scores(retriever, queries, n)
            for i, q in enumerate(chunk):
                scores = [rule_score(s, n) for s in found[4 * i:4 * i + 4]]
                answers[q.id] = LABELS[choose(scores)]
                if settings.trace:
                    trace.append({"id": q.id, "question": q.question, "answer": answers[q.id],
                                  "options": [{"label": label, "text": opt, "score": s,
                                               "hits": [{"docid": d, "score": sc, "title": retriever.title(d)}
                                                        for d, sc in h]}
                                              for label, opt, s, h in zip(LABELS, q.options, scores, hits[4 * i:4 * i + 4])]})
            bar.update(len(chunk))
    return Prediction(answers, settings={"n": n}, trace=trace if settings.trace else None)
