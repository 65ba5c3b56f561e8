"""The overview statistics (qa_baseline.scoring.tukey): the two-way ANOVA by hand and against a least-squares fit
(and statsmodels where installed), the randomised Tukey HSD test against its exact permutation distribution, the
compact letter display on hand-made p-value matrices, the minimum detectable difference against the paired t
test's power, the noncentral F and a simulation, wins/ties/losses."""
import itertools

import numpy as np
import pytest
from scipy import stats

from qa_baseline.scoring.tukey import anova, letters, min_detectable_difference, tukey_hsd, wins_ties_losses

# run means 6, 4, 2; question means 3, 6, 3, 4; grand mean 4; residuals 0 0 -1 1 / 0 0 1 -1 / 0 0 0 0
HAND = np.array([[5, 8, 4, 7], [3, 6, 4, 3], [1, 4, 1, 2]], dtype=float)


def test_anova_by_hand():
    a = anova(HAND)
    assert (a.runs.ss, a.runs.df, a.runs.ms, a.runs.f) == pytest.approx((32, 2, 16, 24))
    assert (a.questions.ss, a.questions.df, a.questions.ms, a.questions.f) == pytest.approx((18, 3, 6, 9))
    assert (a.residual.ss, a.residual.df, a.residual.ms, a.v_e) == pytest.approx((4, 6, 2 / 3, 2 / 3))
    assert (a.total.ss, a.total.df) == pytest.approx((54, 11))
    assert a.runs.p == pytest.approx(1 / 729)  # F(2, 6): P(F > f) = (1 + 2 f / 6) ** -3 = 9 ** -3
    assert a.residual.f is None and a.residual.p is None
    with pytest.raises(ValueError, match="runs >= 2, questions >= 2"):
        anova([[1, 2, 3]])
    with pytest.raises(ValueError, match="NaN"):
        anova([[1, np.nan], [0, 1]])


def test_anova_against_least_squares():
    rng = np.random.default_rng(3)
    X = rng.random((5, 12)) + np.linspace(0, 0.3, 5)[:, None]
    m, n = X.shape
    y = X.ravel()
    run, question = np.repeat(np.arange(m), n), np.tile(np.arange(n), m)

    def dummies(k, codes):  # one column per level but the first
        return (codes[:, None] == np.arange(1, k)).astype(float)

    def rss(*blocks):  # residual sum of squares of the least-squares fit of an intercept and BLOCKS
        return float(np.linalg.lstsq(np.column_stack([np.ones_like(y), *blocks]), y, rcond=None)[1][0])

    full = rss(dummies(m, run), dummies(n, question))
    a = anova(X)
    assert a.residual.ss == pytest.approx(full)
    assert a.runs.ss == pytest.approx(rss(dummies(n, question)) - full)
    assert a.questions.ss == pytest.approx(rss(dummies(m, run)) - full)
    assert a.runs.p == pytest.approx(stats.f.sf((rss(dummies(n, question)) - full) / (m - 1) / (full / 44), 4, 44))
    try:
        import pandas as pd
        from statsmodels.formula.api import ols
        from statsmodels.stats.anova import anova_lm
    except ImportError:
        return  # statsmodels is not a dependency: the least-squares fit above is the independent check
    table = anova_lm(ols("y ~ C(run) + C(question)", pd.DataFrame({"y": y, "run": run, "question": question})).fit())
    assert a.runs.f == pytest.approx(table.loc["C(run)", "F"])
    assert a.runs.p == pytest.approx(table.loc["C(run)", "PR(>F)"])
    assert a.questions.f == pytest.approx(table.loc["C(question)", "F"])
    assert a.v_e == pytest.approx(table.loc["Residual", "mean_sq"])


def exact_tukey(X):
    """p[i, j]: the fraction of all (m!)^n joint permutations of the questions' columns whose range of run means
    is >= |mean_i - mean_j|."""
    m, n = X.shape
    ranges = []
    for perms in itertools.product(itertools.permutations(range(m)), repeat=n):
        means = np.array([[X[perm[i], j] for j, perm in enumerate(perms)] for i in range(m)]).mean(axis=1)
        ranges.append(means.max() - means.min())
    ranges = np.array(ranges)
    d = np.abs(X.mean(axis=1)[:, None] - X.mean(axis=1)[None, :])
    return np.array([[(ranges >= d[i, j] - 1e-12).mean() for j in range(m)] for i in range(m)])


@pytest.mark.parametrize("X", [
    np.random.default_rng(5).random((3, 4)) + [[0.4], [0.1], [0]],
    # tenths: runs 2 and 3 have means equal but for rounding
    np.array([[0.9, 0.8, 0.7, 0.9], [0.1, 0.3, 0.2, 0.1], [0.3, 0.1, 0.1, 0.2]]),
])
def test_tukey_hsd_approximates_the_exact_permutation_test(X):
    exact = exact_tukey(X)  # 6 ** 4 = 1,296 joint permutations
    result = tukey_hsd(X, trials=20000)
    assert np.abs(result.p - exact).max() < 0.01
    assert exact.min() < 0.2  # the matrices do tell some runs apart
    assert (result.p == result.p.T).all() and (np.diag(result.p) == 1).all()
    again = tukey_hsd(X, trials=20000)
    assert (again.p == result.p).all()  # seeded
    assert not (tukey_hsd(X, trials=20000, seed=1).p == result.p).all()
    assert result.means == pytest.approx(X.mean(axis=1))
    assert result.effect == pytest.approx((X.mean(axis=1)[:, None] - X.mean(axis=1)) / np.sqrt(anova(X).v_e))


def test_tukey_hsd_hand_matrix():
    result = tukey_hsd(HAND, trials=2000)
    assert result.effect[0, 2] == pytest.approx(4 / np.sqrt(2 / 3)) and result.effect[2, 0] == -result.effect[0, 2]
    assert result.anova.runs.f == pytest.approx(24) and result.trials == 2000
    assert (tukey_hsd(np.ones((4, 6)), trials=100).p == 1).all()
    with pytest.raises(ValueError, match="trials"):
        tukey_hsd(HAND, trials=0)


def pmatrix(m, different):
    """An m x m p-value matrix: 0.001 for the pairs in DIFFERENT, 0.5 elsewhere, 1 on the diagonal."""
    p = np.full((m, m), 0.5)
    np.fill_diagonal(p, 1)
    for i, j in different:
        p[i, j] = p[j, i] = 0.001
    return p


def test_letters():
    assert letters([0.3, 0.2, 0.1], pmatrix(3, [])) == ["a", "a", "a"]
    assert letters([0.5, 0.9, 0.1], pmatrix(3, [(0, 1), (0, 2), (1, 2)])) == ["b", "a", "c"]
    assert letters([0.3, 0.2, 0.1], pmatrix(3, [(0, 2)])) == ["a", "ab", "b"]  # not transitive
    assert letters([0.1, 0.2, 0.3], pmatrix(3, [(0, 2)])) == ["b", "ab", "a"]  # letters follow the means
    assert letters([4, 3, 2, 1], pmatrix(4, [(0, 2), (0, 3), (1, 3)])) == ["a", "ab", "bc", "c"]
    # not significant: 0-1-2, 1-3-4, 2-3-5 (triangles) and so 1-2-3: insert-and-absorb gives the four maximal
    # cliques; the sweep drops {1, 2, 3}, whose pairs the other three letters already cover
    different = [(0, 3), (0, 4), (0, 5), (1, 5), (2, 4), (4, 5)]
    assert letters([6, 5, 4, 3, 2, 1], pmatrix(6, different)) == ["a", "ab", "ac", "bc", "b", "c"]
    p = pmatrix(3, [(0, 2)])
    p[0, 2] = p[2, 0] = 0.05
    assert letters([0.3, 0.2, 0.1], p) == ["a", "a", "a"]  # p = alpha is not significant
    assert letters([0.3, 0.2, 0.1], p, alpha=0.06) == ["a", "ab", "b"]
    with pytest.raises(ValueError, match="m x m"):
        letters([1, 2], np.eye(3))


def test_letters_of_a_tukey_test():
    X = np.array([[1, 1, 1, 1, 1, 1, 1, 0], [1, 0, 1, 0, 1, 1, 0, 1], [0, 0, 0, 0, 0, 1, 0, 0]], dtype=float)
    result = tukey_hsd(X, trials=5000)
    assert letters(result.means, result.p) == ["a", "ab", "b"] and 0.05 < result.p[0, 1] and result.p[0, 2] < 0.05


def test_min_detectable_difference_two_runs_is_the_paired_t_test():
    v_e, n = 0.03, 25
    d = min_detectable_difference(v_e, n, 2)
    delta, df = d * np.sqrt(n) / np.sqrt(2 * v_e), n - 1  # the differences have variance 2 V_E
    critical = stats.t.isf(0.025, df)
    assert stats.nct.sf(critical, df, delta) + stats.nct.cdf(-critical, df, delta) == pytest.approx(0.8, abs=1e-6)
    assert 0.1 < d < 0.2


def test_min_detectable_difference_more_runs():
    v_e, n, m = 0.05, 50, 10
    d = min_detectable_difference(v_e, n, m)
    phi_a, phi_e = m - 1, (m - 1) * (n - 1)
    assert stats.ncf.sf(stats.f.isf(0.05, phi_a, phi_e), phi_a, phi_e, n * d * d / (2 * v_e)) == pytest.approx(0.8)
    assert min_detectable_difference(v_e, 2 * n, m) < d < min_detectable_difference(v_e, n, 2 * m)
    assert min_detectable_difference(v_e, n, m, power=0.9) > d
    with pytest.raises(ValueError, match="v_e > 0"):
        min_detectable_difference(0, n, m)


def test_min_detectable_difference_simulated():
    """Runs whose best and worst differ by minD (the others in the middle), question effects, normal residuals of
    variance V_E: the ANOVA rejects at 0.05 in about 80% of 2,000 seeded samples (3 standard errors: 0.027)."""
    v_e, n, m = 0.04, 15, 4
    d = min_detectable_difference(v_e, n, m)
    rng = np.random.default_rng(11)
    runs = np.array([d / 2, 0, 0, -d / 2])[:, None]
    rejected = [anova(runs + rng.normal(0, 0.3, n) + rng.normal(0, np.sqrt(v_e), (m, n))).runs.p < 0.05
                for _ in range(2000)]
    assert np.mean(rejected) == pytest.approx(0.8, abs=0.027)


def test_wins_ties_losses():
    assert wins_ties_losses([1, 0.5, 0, 1, 0.3], [0, 0.5, 1, 0.2, 0.3]) == (2, 2, 1)
    with pytest.raises(ValueError, match="equally long"):
        wins_ties_losses([1, 0], [1])
