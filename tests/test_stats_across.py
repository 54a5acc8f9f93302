"""Across-dataset tests: Wilcoxon, Friedman, average ranks, Nemenyi CD (Demšar 2006)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from treebench.errors import TreebenchError
from treebench.stats.across import (
    average_ranks,
    cd_groups,
    critical_difference,
    friedman,
    nemenyi_q,
    pairwise_wilcoxon,
    wilcoxon,
)

# Demšar (2006), Table 5(a): two-tailed Nemenyi critical values q_alpha.
DEMSAR_Q05 = {2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 7: 2.949, 8: 3.031, 9: 3.102, 10: 3.164}
DEMSAR_Q10 = {2: 1.645, 3: 2.052, 4: 2.291, 5: 2.459, 6: 2.589, 7: 2.693, 8: 2.780, 9: 2.855, 10: 2.920}


@pytest.mark.parametrize("k", range(2, 11))
def test_nemenyi_q_matches_demsar_table(k):
    assert nemenyi_q(k, 0.05) == pytest.approx(DEMSAR_Q05[k], abs=1.5e-3)
    assert nemenyi_q(k, 0.10) == pytest.approx(DEMSAR_Q10[k], abs=1.5e-3)


def test_critical_difference_of_demsars_example():
    # Demšar section 3.2.4: 4 classifiers on 14 data sets, CD = 2.569 * sqrt(4*5 / (6*14)) = 1.25.
    assert critical_difference(4, 14, 0.05) == pytest.approx(1.25, abs=5e-3)
    assert nemenyi_q(4) == pytest.approx(2.569, abs=1e-3)


def test_wilcoxon_hand_example_and_scipy():
    # d = x - y = [0.5, 1.5, -1, 2, 3, 4]; ranks of |d|: 1, 3, 2, 4, 5, 6 -> R- = 2, R+ = 19.
    # Exact two-sided p: sums <= 2 come from {}, {1}, {2}: 3 of 2^6 -> 2 * 3/64 = 0.09375.
    x = np.array([1.5, 2.5, 0.0, 3.0, 4.0, 5.0])
    y = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    r = wilcoxon(x, y, "x", "y")
    assert r.statistic == 2.0
    assert r.p_value == pytest.approx(0.09375)
    assert (r.wins, r.ties, r.losses) == (5, 0, 1)
    ref = stats.wilcoxon(x, y)
    assert r.p_value == pytest.approx(ref.pvalue)


def test_wilcoxon_with_ties_splits_zero_ranks_like_demsar():
    x = np.array([0.9, 0.8, 0.7, 0.6, 0.95, 0.85, 0.75])
    y = np.array([0.9, 0.7, 0.65, 0.5, 0.9, 0.8, 0.7])
    r = wilcoxon(x, y, "x", "y")
    ref = stats.wilcoxon(x, y, zero_method="zsplit")
    assert r.p_value == pytest.approx(ref.pvalue) and r.statistic == pytest.approx(ref.statistic)
    assert r.ties == 1
    lower_better = wilcoxon(x, y, "x", "y", higher_is_better=False)
    assert (lower_better.wins, lower_better.losses) == (0, 6)
    assert wilcoxon(x, x, "x", "x").p_value == 1.0


@pytest.mark.parametrize("seed", range(6))
def test_wilcoxon_with_ties_or_zeros_on_few_pairs_equals_scipys_permutation_test(seed):
    """Up to 13 pairs with ties or zeros scipy runs a permutation test over all sign flips; treebench
    computes the same distribution at once (``_exact_sign_flips``): same statistic, same p-value."""
    rng = np.random.default_rng(seed)
    checked = 0
    for n in range(2, 14):
        # accuracy-like differences on a coarse grid: ties and zeros are common, as between trees
        d = rng.integers(-4, 5, size=n) / 40 + np.where(rng.random(n) < 0.3, 0.0, 1e-9 * rng.integers(0, 2, size=n))
        if np.all(d == 0):
            continue
        x, y = 0.5 + d, np.full(n, 0.5)
        ours = wilcoxon(x, y, "x", "y")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = stats.wilcoxon(x, y, zero_method="zsplit")
        assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12, abs=1e-12)
        assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-15)
        checked += 1
    assert checked >= 10


def _matrix() -> pd.DataFrame:
    return pd.DataFrame(
        {"a": [0.90, 0.80, 0.70, 0.85, 0.60, 0.75],
         "b": [0.88, 0.80, 0.69, 0.80, 0.55, 0.74],
         "c": [0.85, 0.75, 0.71, 0.79, 0.50, 0.70],
         "d": [0.80, 0.74, 0.60, 0.70, 0.52, 0.69]},
        index=[f"ds{i}" for i in range(6)],
    )


def test_average_ranks_average_ties_and_follow_direction():
    m = _matrix()
    r = average_ranks(m)
    # ds1 ties a and b for first: both get 1.5.
    by_hand = np.array([[1, 2, 3, 4], [1.5, 1.5, 3, 4], [2, 3, 1, 4], [1, 2, 3, 4], [1, 2, 4, 3], [1, 2, 3, 4]])
    assert r.to_numpy() == pytest.approx(by_hand.mean(axis=0))
    assert average_ranks(m, higher_is_better=False).to_numpy() == pytest.approx(5 - by_hand.mean(axis=0))


def test_friedman_matches_scipy_and_the_rank_formula():
    m = _matrix()
    f = friedman(m)
    ref = stats.friedmanchisquare(*[m[c] for c in m])
    assert f.statistic == pytest.approx(ref.statistic) and f.p_value == pytest.approx(ref.pvalue)
    n, k = m.shape
    # Iman-Davenport from the chi-square, Demšar eq. after (2).
    ff = (n - 1) * f.statistic / (n * (k - 1) - f.statistic)
    assert f.iman_davenport == pytest.approx(ff)
    assert f.iman_davenport_p == pytest.approx(stats.f.sf(ff, k - 1, (k - 1) * (n - 1)))
    assert f.cd == pytest.approx(critical_difference(k, n))
    # Nemenyi p-values: symmetric, 1 on the diagonal, small where ranks differ by more than CD.
    assert f.nemenyi_p.loc["a", "d"] < 0.05 < f.nemenyi_p.loc["a", "b"]
    assert (abs(f.ranks["a"] - f.ranks["d"]) > f.cd) == (f.nemenyi_p.loc["a", "d"] < 0.05)


def test_friedman_needs_three_algorithms_and_two_datasets():
    with pytest.raises(TreebenchError, match="at least 3 algorithms"):
        friedman(_matrix()[["a", "b"]])
    with pytest.raises(TreebenchError, match="at least 2 datasets"):
        friedman(_matrix().iloc[:1])


def test_cd_groups_are_maximal_runs():
    ranks = pd.Series({"a": 1.0, "b": 1.5, "c": 3.0, "d": 3.2})
    assert cd_groups(ranks, 1.0) == [("a", "b"), ("c", "d")]
    assert cd_groups(ranks, 1.6) == [("a", "b"), ("b", "c"), ("c", "d")]
    assert cd_groups(ranks, 1.8) == [("a", "b"), ("b", "c", "d")]
    assert cd_groups(ranks, 0.1) == []
    assert cd_groups(ranks, 5.0) == [("a", "b", "c", "d")]


def test_pairwise_wilcoxon_covers_every_pair():
    res = pairwise_wilcoxon(_matrix())
    assert [(r.a, r.b) for r in res] == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
