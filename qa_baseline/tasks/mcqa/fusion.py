"""`--scorer fused`: option-level fusion of BM25 and dense evidence. Each option has its BM25 option score and
its dense option score (each the published mean of the top n hits of its own retriever, 0 without hits); within
one question each retriever's four scores are normalised (`--normalise`: `z`, the z-score across the options;
`share`, each option's share of the question's total; `rank`, the option's rank among them as points, 3 for
the best of four: evidence.rank_points), and

    fused(option) = (1 - w) * bm25'(option) + w * dense'(option)

with w = `--weight`; the best option wins, ties to the earliest. Normalising per question, not per passage
list, is what the hybrid retrievers lack: they rescale each query's hits, so an option's top hits score alike
whatever its support; here the option scores keep their differences and only the retrievers' scales are made
comparable (`rank` keeps only their order).

Without --weight and --normalise a run takes the corpus's FITTED pair. `fit` picks them on questions with gold
(`--train FILE`): the normalisation of NORMALISERS (the one given with --normalise, else each) and the w of
WEIGHTS (0, 0.05, ..., 1) with the highest accuracy; ties to the earlier normalisation of NORMALISERS, then to
the w nearest 0.5, then the smaller."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from ...core.config import CorpusConfig
from ...core.errors import UserError
from .evidence import NORMALISERS, Evidence, choose, option_score
from .formats import LABELS

WEIGHTS = tuple(i / 20 for i in range(21))
# The default (--normalise, --weight) of each corpus, fitted (`fit`) on ai2-science 8thgr-train + elementary-train
# (720 questions) over that corpus: shared-en rank 0.5 (360 right; the best of share 359, of z 355: the three are
# within a few questions of each other there; BM25 alone 345, dense alone 335); vital-en share 0.65 (321; z 317,
# rank 309; BM25 alone 276, dense alone 287). Another corpus (shared-zh too: there is no Chinese training file)
# gets UNFITTED; refit with `--scorer fused --train FILE ...`.
FITTED = {"shared-en": ("rank", 0.5), "vital-en": ("share", 0.65)}
UNFITTED = ("z", 0.5)


def default(corpus: CorpusConfig) -> tuple[str, float]:
    """The (normalisation, weight) of a fused run that gives neither: the pair fitted on CORPUS (a corpus
    config), else UNFITTED."""
    return FITTED.get(corpus.name, UNFITTED)


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


def fit(evidence: Sequence[Evidence], n: int, normalise: str | None = None
        ) -> tuple[str, float, dict[str, dict[float, float]]]:
    """(the fitted normalisation, the fitted w, the accuracy of each normalisation tried and w of WEIGHTS) on
    EVIDENCE's questions (with gold); NORMALISE: the only normalisation tried (None: each of NORMALISERS)."""
    if not evidence:
        raise UserError("--train holds no questions to fit --weight on")
    curves = {name: {w: accuracy(evidence, n, w, name) for w in WEIGHTS}
              for name in ((normalise,) if normalise else tuple(NORMALISERS))}
    best = max(a for curve in curves.values() for a in curve.values())
    name = next(name for name, curve in curves.items() if best in curve.values())
    weight = min((w for w in WEIGHTS if curves[name][w] == best), key=lambda w: (abs(w - 0.5), w))
    return name, weight, curves
