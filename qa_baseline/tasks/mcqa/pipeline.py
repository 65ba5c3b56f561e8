"""The published IJCNLP-2017 Task 5 baseline: for each option, query = question + " " + option; search the
index; score(q, a) = the mean of the scores of the top n (n <= 3) hits, 0 when nothing is found; the
highest-scoring option wins. Ties go to the earliest option (A before B before C before D)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...progress import tqdm  # a bar on a terminal, a line every 30 s in a log

from ...errors import UserError
from ..base import Prediction
from .formats import LABELS, Question

if TYPE_CHECKING:
    from . import MCQASettings

CHUNK = 250  # questions per batched search call


def option_score(hits: Sequence[tuple[str, float]], n: int) -> float:
    """The published rule: mean score of the top n hits, 0.0 when there are none."""
    top = [score for _, score in hits[:n]]
    return sum(top) / len(top) if top else 0.0


def choose(scores: Sequence[float]) -> int:
    """Index of the best option; the earliest wins a tie."""
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


def predict(questions: Sequence[Question], components: Mapping[str, Any], settings: MCQASettings) -> Prediction:
    n, retriever = settings.n, components["retriever"]
    if n < 1:
        raise UserError(f"--n must be at least 1, not {n}")
    answers: dict[str, str] = {}
    trace: list[dict[str, Any]] = []
    with tqdm(total=len(questions), desc="questions", unit=" q", disable=None) as bar:
        for start in range(0, len(questions), CHUNK):
            chunk = questions[start:start + CHUNK]
            hits = retriever.search([f"{q.question} {opt}" for q in chunk for opt in q.options], k=n)
            for i, q in enumerate(chunk):
                option_hits = hits[4 * i:4 * i + 4]
                scores = [option_score(h, n) for h in option_hits]
                answers[q.id] = LABELS[choose(scores)]
                if settings.trace:
                    trace.append({"id": q.id, "question": q.question, "answer": answers[q.id],
                                  "options": [{"label": label, "text": opt, "score": s,
                                               "hits": [{"docid": d, "score": sc, "title": retriever.title(d)}
                                                        for d, sc in h]}
                                              for label, opt, s, h in zip(LABELS, q.options, scores, option_hits)]})
            bar.update(len(chunk))
    return Prediction(answers, settings={"n": n}, trace=trace if settings.trace else None)
