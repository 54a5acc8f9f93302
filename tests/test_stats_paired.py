"""Per-dataset paired tests: the plain paired t-test against scipy and the
corrected resampled t-test against a hand-worked instance of Weka's formula."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from treebench.errors import TreebenchError
from treebench.stats.paired import (
    DEFAULT_TEST_TRAIN_RATIO,
    corrected_ttest,
    paired_ttest,
    ratio_from_protocol,
    run_paired,
    weka_mark,
)

# Ten folds of 10-fold CV; accuracies in percent.  Differences A - B:
#   d = [2, 1, 3, 0, 2, 4, 1, 2, 3, 2]
A = np.array([86.0, 85.0, 88.0, 84.0, 87.0, 89.0, 85.0, 86.0, 88.0, 87.0])
B = np.array([84.0, 84.0, 85.0, 84.0, 85.0, 85.0, 84.0, 84.0, 85.0, 85.0])


def test_worked_example_of_wekas_corrected_resampled_t_test():
    # Hand computation (Weka's PairedStatsCorrected.calculateDerived):
    #   k = 10, mean(d) = 20 / 10 = 2.0
    #   squared deviations from 2: 0,1,1,4,0,4,1,0,1,0 -> sum 12; var(d) = 12 / 9 = 1.333333
    #   n_test / n_train = 1/9 for 10-fold CV
    #   t = 2.0 / sqrt((1/10 + 1/9) * 1.333333) = 2.0 / sqrt(0.281481) = 2.0 / 0.530548 = 3.769685
    #   df = 9; two-sided p = 2 * P(T_9 > 3.769685) = 0.0044186  (Weka: FProbability(t^2, 1, 9))
    d = A - B
    assert d.tolist() == [2, 1, 3, 0, 2, 4, 1, 2, 3, 2]
    res = corrected_ttest(A, B, 1 / 9)
    assert res.k == 10 and res.df == 9
    assert res.mean_diff == pytest.approx(2.0)
    assert res.statistic == pytest.approx(3.769685, abs=1e-6)
    assert res.p_value == pytest.approx(0.0044186, abs=1e-7)
    # Weka obtains p from the F distribution with (1, k-1) df: the same number.
    assert res.p_value == pytest.approx(stats.f.sf(res.statistic**2, 1, 9), rel=1e-12)
    assert weka_mark(res, 0.05, higher_is_better=True) == "v"
    assert weka_mark(res, 0.001, higher_is_better=True) == ""


def test_plain_paired_t_test_matches_scipy_and_the_hand_value():
    # Plain: t = 2.0 / sqrt(1.333333 / 10) = 5.477226, p = 0.00039157
    res = paired_ttest(A, B)
    ref = stats.ttest_rel(A, B)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.statistic == pytest.approx(5.477226, abs=1e-6)
    rng = np.random.default_rng(3)
    for _ in range(5):
        x, y = rng.normal(0.8, 0.05, 15), rng.normal(0.79, 0.05, 15)
        ref = stats.ttest_rel(x, y)
        got = paired_ttest(x, y)
        assert got.statistic == pytest.approx(ref.statistic, rel=1e-10)
        assert got.p_value == pytest.approx(ref.pvalue, rel=1e-10)


def test_corrected_with_zero_ratio_is_the_plain_test_and_correction_widens():
    assert corrected_ttest(A, B, 0.0).p_value == pytest.approx(paired_ttest(A, B).p_value)
    assert corrected_ttest(A, B).p_value > paired_ttest(A, B).p_value
    assert DEFAULT_TEST_TRAIN_RATIO == pytest.approx(1 / 9)


def test_weka_conventions_for_degenerate_differences():
    same = corrected_ttest(A, A)
    assert same.p_value == 1.0 and weka_mark(same, 0.05, True) == ""
    shifted = corrected_ttest(A + 1.0, A)  # constant non-zero difference
    assert shifted.p_value == 0.0 and weka_mark(shifted, 0.05, True) == "v"
    one = paired_ttest(A[:1], B[:1])  # a single pair cannot be tested
    assert one.p_value == 1.0 and not one.significant(0.05)


def test_marks_follow_the_metric_direction():
    res = paired_ttest(A, B)  # A larger
    assert weka_mark(res, 0.05, higher_is_better=True) == "v"
    assert weka_mark(res, 0.05, higher_is_better=False) == "*"  # larger error is worse


def test_dispatch_and_errors():
    assert run_paired("ttest", A, B).statistic == pytest.approx(paired_ttest(A, B).statistic)
    with pytest.raises(TreebenchError, match="accepted: corrected-ttest, ttest"):
        run_paired("ztest", A, B)
    with pytest.raises(TreebenchError):
        corrected_ttest(A, B, -1.0)


@pytest.mark.parametrize(
    ("label", "ratio"),
    [("cv10x1", 1 / 9), ("cv5x2", 1 / 4), ("holdout0.3x10", 0.3 / 0.7), ("ordered0.8", 0.25),
     ("loo", 0.0), ("10-fold", 1 / 9), ("fixed:split", 1 / 9), (None, 1 / 9)],
)
def test_ratio_from_the_runners_protocol_labels(label, ratio):
    assert ratio_from_protocol(label) == pytest.approx(ratio)
    assert not math.isnan(ratio_from_protocol(label))
