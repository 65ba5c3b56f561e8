"""`--scorer fused`: option-level fusion of BM25 and dense evidence. Each option has its BM25 option score and
its dense option score (each the published mean of the top n hits of its own retriever, 0 without hits); within
one question each retriever's four scores are normalised (`--normalise`: `z`, the z-score across the options,
default; `share`, each option's share of the question's total), and

    fused(option) = (1 - w) * bm25'(option) + w * dense'(option)

with w = `--weight` (default FITTED, of the corpus, fitted as below); the best option wins, ties to
the earliest. Normalising per question, not per passage list, is what the hybrid retrievers lack: they rescale
each query's hits, so an option's top hits score alike whatever its support; here the option scores keep
their differences and only the retrievers' scales are made comparable.

`fit_weight` picks w on questions with gold (`--train FILE`): the w of WEIGHTS (0, 0.05, ..., 1) with the
highest accuracy, ties to the w nearest 0.5, then the smaller."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...errors import UserError
from .evidence import NORMALISERS, Evidence, choose, option_score
from .formats import LABELS

WEIGHTS = tuple(i / 20 for i in range(21))
# The default --weight of each corpus (z-scores), fitted (fit_weight) on ai2-science 8thgr-train + elementary-train
# (720 questions) over that corpus: vital-en 0.55 (44.03% there against 38.33% for BM25 alone, w 0, and 39.86% for
# dense alone, w 1); shared-en 0.5. Another corpus (shared-zh too: there is no Chinese training file) gets equal
# weights, UNFITTED; refit with `--scorer fused --train FILE --train FILE`.
FITTED = {"vital-en": 0.55, "shared-en": 0.5}
UNFITTED = 0.5


def default_weight(corpus: dict[str, Any]) -> float:
    """The --weight of a fused run that gives none: the one fitted on CORPUS (a corpus config), else UNFITTED."""
    return FITTED.get(corpus.get("name", ""), UNFITTED)


def part_scores(ev: Evidence, n: int) -> tuple[list[float], list[float]]:
    """(BM25, dense) option scores of the question's options."""
    return ([option_score(h, n) for h in ev.hits["bm25"]], [option_score(h, n) for h in ev.hits["dense"]])


def fuse(bm25: Sequence[float], dense: Sequence[float], weight: float, normalise: str) -> list[float]:
    """The fused scores of a question's options from their BM25 and dense option scores."""
    norm = normaliser(normalise)
    return [(1 - weight) * b + weight * d for b, d in zip(norm(bm25), norm(dense))]


def normaliser(name: str) -> Callable[[Sequence[float]], list[float]]:
    if name not in NORMALISERS:
        raise UserError(f"--normalise must be one of {', '.join(NORMALISERS)}, not {name!r}")
    return NORMALISERS[name]


def check_weight(weight: float) -> float:
    if not 0 <= weight <= 1:
        raise UserError(f"--weight must be between 0 and 1 (the dense score's share), not {weight}")
    return weight


def accuracy(evidence: Sequence[Evidence], n: int, weight: float, normalise: str) -> float:
    """The share of EVIDENCE's questions (with gold) whose fused choice is the gold."""
    right = sum(LABELS[choose(fuse(*part_scores(ev, n), weight, normalise))] == ev.question.gold for ev in evidence)
    return right / len(evidence) if evidence else 0.0


def fit_weight(evidence: Sequence[Evidence], n: int, normalise: str) -> tuple[float, dict[float, float]]:
    """(the fitted w, the accuracy of each w of WEIGHTS) on EVIDENCE's questions (with gold)."""
    if not evidence:
        raise UserError("--train holds no questions to fit --weight on")
    curve = {w: accuracy(evidence, n, w, normalise) for w in WEIGHTS}
    best = max(curve.values())
    return min((w for w in WEIGHTS if curve[w] == best), key=lambda w: (abs(w - 0.5), w)), curve
