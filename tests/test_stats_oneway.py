"""Paper 001's protocol: Levene, then ANOVA + Tukey or Kruskal-Wallis + Dunn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from treebench.errors import TreebenchError
from treebench.stats.oneway import _adjust, dunn, oneway_protocol


def test_dunn_without_ties_by_hand():
    # Ranks are the values; mean ranks 2, 5, 8; N = 9: N(N+1)/12 = 7.5.
    # se = sqrt(7.5 * (1/3 + 1/3)) = sqrt(5); z_ab = 3/sqrt(5) = 1.3416, z_ac = 6/sqrt(5) = 2.6833.
    g = {"a": [1, 2, 3], "b": [4, 5, 6], "c": [7, 8, 9]}
    p = dunn(g, adjust="bonferroni")
    z_ab, z_ac = 3 / math.sqrt(5), 6 / math.sqrt(5)
    assert p.loc["a", "b"] == pytest.approx(min(1, 3 * 2 * stats.norm.sf(z_ab)))  # 0.5391
    assert p.loc["a", "c"] == pytest.approx(3 * 2 * stats.norm.sf(z_ac))  # 0.02188
    assert p.loc["a", "c"] == pytest.approx(0.02188, abs=1e-4)
    assert p.loc["c", "a"] == p.loc["a", "c"] and p.loc["b", "b"] == 1.0


def test_dunn_tie_correction_by_hand():
    # pooled [1,1,2,2,3,3] -> ranks 1.5,1.5,3.5,3.5,5.5,5.5; mean ranks 13/6 and 29/6.
    # ties: three blocks of 2 -> sum(t^3 - t) = 18; 18 / (12 * 5) = 0.3; 6*7/12 - 0.3 = 3.2
    # se = sqrt(3.2 * 2/3) = 1.460593; z = (29/6 - 13/6) / se = 1.825742; p = 0.067889 (one comparison)
    p = dunn({"a": [1, 1, 2], "b": [2, 3, 3]})
    assert p.loc["a", "b"] == pytest.approx(2 * stats.norm.sf((16 / 6) / math.sqrt(3.2 * 2 / 3)))
    assert p.loc["a", "b"] == pytest.approx(0.067889, abs=1e-6)


def test_holm_and_bonferroni_adjustments():
    p = np.array([0.01, 0.04, 0.03])
    assert _adjust(p, "bonferroni") == pytest.approx([0.03, 0.12, 0.09])
    # Holm: sorted 0.01*3, 0.03*2, 0.04*1 -> monotone 0.03, 0.06, 0.06
    assert _adjust(p, "holm") == pytest.approx([0.03, 0.06, 0.06])
    with pytest.raises(TreebenchError):
        dunn({"a": [1, 2], "b": [3, 4]}, adjust="sidak")


def test_equal_variances_choose_anova_and_tukey():
    rng = np.random.default_rng(0)
    g = {"cart": rng.normal(0.30, 0.02, 25), "c45": rng.normal(0.25, 0.02, 25), "mee": rng.normal(0.30, 0.02, 25)}
    res = oneway_protocol(g, higher_is_better=False)
    assert res.levene_p == pytest.approx(stats.levene(*g.values()).pvalue)
    assert res.levene_p >= 0.05 and res.test == "anova" and res.posthoc == "tukey"
    assert res.statistic == pytest.approx(stats.f_oneway(*g.values()).statistic)
    assert res.pairwise_p.to_numpy() == pytest.approx(stats.tukey_hsd(*g.values()).pvalue)
    # lower error is better: c45 is significantly best, the other two significantly worse than it
    assert res.best == ("c45",) and set(res.worst) == {"cart", "mee"}


def test_unequal_variances_choose_kruskal_and_dunn():
    rng = np.random.default_rng(1)
    g = {"a": rng.normal(0.9, 0.005, 30), "b": rng.normal(0.8, 0.15, 30), "c": rng.normal(0.5, 0.01, 30)}
    res = oneway_protocol(g, higher_is_better=True)
    assert res.levene_p < 0.05 and res.test == "kruskal" and res.posthoc == "dunn-bonferroni"
    assert res.statistic == pytest.approx(stats.kruskal(*g.values()).statistic)
    assert res.best == ("a",) and res.worst == ("c",)


def test_protocol_needs_two_groups_of_two():
    with pytest.raises(TreebenchError):
        oneway_protocol({"a": [1.0, 2.0]})
    with pytest.raises(TreebenchError):
        oneway_protocol({"a": [1.0], "b": [2.0, 3.0]})
    flat = oneway_protocol({"a": [1.0, 1.0], "b": [1.0, 1.0]})
    assert flat.p_value == 1.0 and flat.best == () and flat.worst == ()
