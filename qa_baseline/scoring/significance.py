"""Confidence intervals and significance tests over questions, for the paper table (reporting/report.py) and
the leaderboard (reporting/leaderboard.py). Every measure here is a mean of per-question values (metrics.py), so both
resample questions.

- `bootstrap_ci`: 95% percentile bootstrap interval of the mean. The questions are resampled with replacement
  RESAMPLES times (default 1,000) by numpy's default_rng(SEED) (default 0); the interval runs from the 2.5th to
  the 97.5th percentile of the resampled means.
- `randomisation_test`: the paired approximate randomisation test (Noreen 1989; Yeh 2000) of two systems'
  per-question values A and B on the same questions: under the null hypothesis the two systems' values of a
  question are exchangeable, so each permutation swaps them in every question with probability 1/2 (the sign
  of the difference flips); p = (1 + #permutations whose |mean difference| >= the observed one) /
  (1 + PERMUTATIONS), two-sided, PERMUTATIONS default 10,000, default_rng(SEED).
- `holm`: Holm-Bonferroni adjusted p-values (Holm 1979) for a family of tests (every pair of teams): the
  i-th smallest of m p-values (i from 1) times m - i + 1, never below the adjusted value before it, at most 1;
  an adjusted p below alpha rejects with the family-wise error rate held at alpha."""
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

RESAMPLES, PERMUTATIONS, SEED, LEVEL, ALPHA = 1000, 10000, 0, 0.95, 0.05
CHUNK = 100  # resamples drawn at a time: memory CHUNK x questions


def bootstrap_ci(values: npt.ArrayLike, resamples: int = RESAMPLES, seed: int = SEED,
                 level: float = LEVEL) -> tuple[float, float] | None:
    """(low, high) percentile bootstrap interval of the mean of VALUES; None without values."""
    values = np.asarray(values, dtype=float)
    if not len(values):
        return None
    rng = np.random.default_rng(seed)
    means = np.concatenate([values[rng.integers(0, len(values), size=(min(CHUNK, resamples - start), len(values)))]
                            .mean(axis=1) for start in range(0, resamples, CHUNK)])
    low, high = np.percentile(means, [(100 - 100 * level) / 2, (100 + 100 * level) / 2])  # 2.5, 97.5 exactly
    return float(low), float(high)


def randomisation_test(a: npt.ArrayLike, b: npt.ArrayLike, permutations: int = PERMUTATIONS,
                       seed: int = SEED) -> float:
    """Two-sided p-value of the paired approximate randomisation test of the mean difference of A and B
    (per-question values of two systems, same questions in the same order)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape or not len(a):
        raise ValueError("randomisation_test needs two equally long, non-empty lists of per-question values")
    diff = a - b
    observed = abs(diff.mean())
    if observed == 0:
        return 1.0
    rng = np.random.default_rng(seed)
    tolerance = 1e-12 * max(1.0, float(np.abs(diff).max()))  # equal means computed in another order count
    extreme = 0
    for start in range(0, permutations, CHUNK):
        signs = rng.integers(0, 2, size=(min(CHUNK, permutations - start), len(diff)), dtype=np.int8) * 2 - 1
        extreme += int((np.abs(signs @ diff) / len(diff) >= observed - tolerance).sum())
    return (extreme + 1) / (permutations + 1)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted PVALUES, in the order given."""
    adjusted, running = [1.0] * len(pvalues), 0.0
    for i, index in enumerate(sorted(range(len(pvalues)), key=lambda k: pvalues[k])):
        running = max(running, min(1.0, (len(pvalues) - i) * pvalues[index]))
        adjusted[index] = running
    return adjusted
