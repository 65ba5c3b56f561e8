"""The statistics of a shared-task overview over a score matrix X of shape (runs m, questions n), one row per run
holding its per-question values of the ranking measure (as NTCIR overviews report them: Carterette 2012, "Multiple
testing in statistical analysis of systems-based IR experiments", TOIS 30(1); Sakai 2018, "Laboratory Experiments
in Information Retrieval", ch. 4-6).

- `anova(X) -> Anova`: two-way ANOVA without replication (runs x questions): for each of `runs`, `questions`,
  `residual`, `total` a `Source` (ss, df, ms; f and p for runs and questions, else None). `Anova.v_e` is
  V_E = MS_residual, the variance that the effect sizes and the topic set size design use.
- `tukey_hsd(X, trials=5000, seed=0) -> TukeyResult`: the randomised Tukey HSD test of every pair of runs (Sakai
  2018 §4.5; Carterette 2012). Under the null hypothesis the m values of a question are exchangeable across runs:
  each trial permutes every question's column independently (numpy default_rng(SEED)), takes the run means and
  records their range max - min. p[i, j] = #trials whose range >= |mean_i - mean_j| / TRIALS (Sakai's Discpower
  convention: no +1 in numerator and denominator; means that are equal but summed in another order count, within
  a relative 1e-10). The diagonal is 1, the matrix symmetric; the family-wise error rate over all pairs is held,
  so no further correction. Also the effect sizes ES_E[i, j] = (mean_i - mean_j) / sqrt(V_E) and the ANOVA.
- `letters(means, p, alpha=0.05) -> list[str]`: the compact letter display of the pairwise results (Piepho 2004,
  "An algorithm for a letter-based representation of all-pairwise comparisons", insert-and-absorb, then the
  sweep that drops redundant letters): runs that share a letter do not differ significantly (p >= alpha). Letters
  a, b, c... (then A-Z) come in order of first appearance with the runs sorted by mean, best first; each run's
  letters are in alphabetical order; the list is in the order of MEANS.
- `min_detectable_difference(v_e, n, m, alpha=0.05, power=0.8) -> float`: Sakai's topic set size design for
  ANOVA (Sakai 2016, "Topic set size design", Information Retrieval Journal 19; 2018 ch. 6): the smallest range
  minD between the best and the worst of M runs that the F test at ALPHA detects with probability POWER on N
  questions, for the two-way design without replication: Delta = minD^2 / (2 V_E), noncentrality lambda = n
  Delta, phi_A = m - 1, phi_E = (m - 1)(n - 1).
- `wins_ties_losses(a, b) -> (wins, ties, losses)`: questions where A > B, A == B (exactly), A < B.

Bad input (not a 2-D finite matrix, fewer than 2 runs or questions, ...) raises ValueError of one line. Needs
numpy; `anova` and `min_detectable_difference` also scipy (the F and noncentral F distributions, brentq), which
comes with the `stats` extra (a one-line error names it when missing): the base install ranks and tests pairs
without it."""
from dataclasses import dataclass
from string import ascii_letters

import numpy as np
import numpy.typing as npt

from ..core.hints import requires

TRIALS, SEED, ALPHA, POWER = 5000, 0, 0.05, 0.8
CHUNK_VALUES = 1_000_000  # values permuted at a time: trials per chunk = this // (m n); memory 8 MB per million
TOLERANCE = 1e-10  # relative: equal means computed in another order count as >=

Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Source:
    """One row of the ANOVA table: sum of squares, degrees of freedom, mean square, F and its p-value (None for
    the residual and total rows)."""
    ss: float
    df: int
    ms: float
    f: float | None = None
    p: float | None = None


@dataclass(frozen=True)
class Anova:
    """Two-way ANOVA without replication of a runs x questions matrix."""
    runs: Source
    questions: Source
    residual: Source
    total: Source

    @property
    def v_e(self) -> float:
        """V_E = MS_residual."""
        return self.residual.ms


@dataclass(frozen=True)
class TukeyResult:
    """The randomised Tukey HSD test of every pair of runs: run MEANS (m), P (m x m, symmetric, diagonal 1),
    EFFECT sizes ES_E (m x m, effect[i, j] = (means[i] - means[j]) / sqrt(V_E); +-inf when V_E is 0), the ANOVA
    and the number of TRIALS."""
    means: Matrix
    p: Matrix
    effect: Matrix
    anova: Anova
    trials: int


def _matrix(x: npt.ArrayLike) -> Matrix:
    X = np.asarray(x, dtype=float)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 2:
        raise ValueError(f"a score matrix needs shape (runs >= 2, questions >= 2), not {X.shape} "
                         "(fix: one row of per-question values per run)")
    if not np.isfinite(X).all():
        raise ValueError("the score matrix has NaN or infinite values (fix: give every run a value on every question)")
    return X


def _ratio(a: float, b: float) -> float:
    """A / B with B = 0 read as inf (or nan for 0 / 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def residual_variance(x: npt.ArrayLike) -> float:
    """V_E of X (runs x questions): the residual mean square of the two-way ANOVA without replication."""
    X = _matrix(x)
    residual = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0, keepdims=True) + X.mean()
    return float((residual ** 2).sum() / ((X.shape[0] - 1) * (X.shape[1] - 1)))


def anova(x: npt.ArrayLike) -> Anova:
    """Two-way ANOVA without replication of X (runs x questions)."""
    stats = requires("stats", "scipy.stats")
    X = _matrix(x)
    m, n = X.shape
    grand = X.mean()
    ss_total = float(((X - grand) ** 2).sum())
    ss_runs = float(n * ((X.mean(axis=1) - grand) ** 2).sum())
    ss_questions = float(m * ((X.mean(axis=0) - grand) ** 2).sum())
    df_e = (m - 1) * (n - 1)
    ms_e = residual_variance(X)
    ss_e = ms_e * df_e

    def effect(ss: float, df: int) -> Source:
        f = _ratio(ss / df, ms_e)
        return Source(ss, df, ss / df, f, float(stats.f.sf(f, df, df_e)))

    return Anova(effect(ss_runs, m - 1), effect(ss_questions, n - 1), Source(ss_e, df_e, ms_e),
                 Source(ss_total, m * n - 1, ss_total / (m * n - 1)))


def tukey_hsd(x: npt.ArrayLike, trials: int = TRIALS, seed: int = SEED) -> TukeyResult:
    """The randomised Tukey HSD test of every pair of runs of X (runs x questions), TRIALS permutations seeded by
    SEED (the module docstring has the convention)."""
    X = _matrix(x)
    if trials < 1:
        raise ValueError(f"trials must be at least 1, not {trials} (fix: e.g. trials={TRIALS})")
    m, n = X.shape
    means = X.mean(axis=1)
    rng = np.random.default_rng(seed)
    columns = np.ascontiguousarray(X.T)  # (n, m): each question's m values contiguous, permuted in place
    chunk = max(1, min(trials, CHUNK_VALUES // (m * n)))
    buffer = np.empty((chunk, n, m))
    ranges = np.empty(trials)
    for start in range(0, trials, chunk):
        block = buffer[:min(chunk, trials - start)]
        block[...] = columns
        rng.permuted(block, axis=2, out=block)
        sums = block.sum(axis=1)  # (trials in the chunk, m): each run's sum over the permuted questions
        ranges[start:start + len(block)] = (sums.max(axis=1) - sums.min(axis=1)) / n
    ranges.sort()
    diff = means[:, None] - means[None, :]
    tolerance = TOLERANCE * max(1.0, float(np.abs(X).max()))
    p = (trials - np.searchsorted(ranges, np.abs(diff) - tolerance, side="left")) / trials
    table = anova(X)
    with np.errstate(divide="ignore"):
        effect = np.divide(diff, np.sqrt(table.v_e), out=np.zeros_like(diff), where=diff != 0)
    return TukeyResult(means, p, effect, table, trials)


def letters(means: npt.ArrayLike, p: npt.ArrayLike, alpha: float = ALPHA) -> list[str]:
    """The compact letter display of runs with MEANS and pairwise p-values P (m x m; p < ALPHA: significantly
    different): one string of letters per run, in the order of MEANS."""
    mu, P = np.asarray(means, dtype=float), np.asarray(p, dtype=float)
    m = len(mu)
    if mu.ndim != 1 or P.shape != (m, m):
        raise ValueError(f"letters needs m means and an m x m p-value matrix, not {mu.shape} and {P.shape} "
                         "(fix: pass TukeyResult.means and TukeyResult.p)")
    differ = (P < alpha) | (P.T < alpha)
    np.fill_diagonal(differ, False)
    # insert-and-absorb: start with one letter shared by all; for each significant pair split every letter that
    # holds both into one without i and one without j, then drop letters contained in another
    columns: list[frozenset[int]] = [frozenset(range(m))]
    for i, j in zip(*(map(int, axis) for axis in np.nonzero(np.triu(differ)))):
        split = [c for c in columns if i in c and j in c]
        if not split:
            continue
        columns = [c for c in columns if not (i in c and j in c)]
        for c in split:
            for new in (c - {i}, c - {j}):
                if not any(new <= old for old in columns):
                    columns = [old for old in columns if not old <= new] + [new]
    order = sorted(range(m), key=lambda i: (-mu[i], i))
    rank = {run: r for r, run in enumerate(order)}

    def first_appearance(c: frozenset[int] | set[int]) -> list[int]:  # the ranks of its runs, best first
        return sorted(rank[i] for i in c)

    # sweep, in that order: take a run out of a letter when it still has another letter and shares another
    # letter with every run of this one; letters left empty go
    sets = [set(c) for c in sorted(columns, key=first_appearance)]
    for letter in sets:
        for i in sorted(letter, key=rank.__getitem__):
            others = [s for s in sets if s is not letter and i in s]
            if others and all(any(k in s for s in others) for k in letter - {i}):
                letter.discard(i)
    sets = sorted((s for s in sets if s), key=first_appearance)
    if len(sets) > len(ascii_letters):
        raise ValueError(f"{len(sets)} letters needed, more than the {len(ascii_letters)} of a-z and A-Z "
                         "(fix: report the p-value matrix instead)")
    return ["".join(ascii_letters[k] for k, s in enumerate(sets) if i in s) for i in range(m)]


def _power(lam: float, phi_a: int, phi_e: int, critical: float) -> float:
    return float(requires("stats", "scipy.stats").ncf.sf(critical, phi_a, phi_e, lam))


def min_detectable_difference(v_e: float, n: int, m: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """The minimum detectable range minD between the best and the worst of M runs on N questions with residual
    variance V_E: the F test of runs at ALPHA rejects with probability POWER when they differ by minD."""
    if not (v_e > 0 and n >= 2 and m >= 2 and 0 < alpha < power < 1):
        raise ValueError(f"min_detectable_difference needs v_e > 0, n >= 2, m >= 2 and 0 < alpha < power < 1, "
                         f"not v_e={v_e}, n={n}, m={m}, alpha={alpha}, power={power} (fix: e.g. v_e=Anova.v_e)")
    stats, optimize = requires("stats", "scipy.stats"), requires("stats", "scipy.optimize")
    phi_a, phi_e = m - 1, (m - 1) * (n - 1)
    critical = float(stats.f.isf(alpha, phi_a, phi_e))
    high = 1.0
    while _power(high, phi_a, phi_e, critical) < power:
        high *= 2
    lam = optimize.brentq(lambda x: _power(x, phi_a, phi_e, critical) - power, 0.0, high, xtol=1e-12, rtol=1e-12)
    return float(np.sqrt(2 * v_e * lam / n))


def wins_ties_losses(a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[int, int, int]:
    """How many questions A's value beats B's, equals it exactly, falls below it (same questions, same order)."""
    u, v = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if u.ndim != 1 or u.shape != v.shape:
        raise ValueError(f"wins_ties_losses needs two equally long lists of per-question values, not {u.shape} and "
                         f"{v.shape} (fix: the same questions in the same order)")
    return int((u > v).sum()), int((u == v).sum()), int((u < v).sum())
