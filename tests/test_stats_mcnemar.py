"""McNemar's test against hand-computed values and statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from treebench.errors import TreebenchError
from treebench.stats.mcnemar import mcnemar


def _predictions(b: int, c: int, both: int, neither: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    truth = np.zeros(b + c + both + neither, dtype=int)
    a = np.concatenate([np.zeros(b), np.ones(c), np.zeros(both), np.ones(neither)]).astype(int)
    bb = np.concatenate([np.ones(b), np.zeros(c), np.zeros(both), np.ones(neither)]).astype(int)
    return truth, a, bb


def test_exact_p_by_hand():
    truth, a, b = _predictions(b=7, c=1, both=30, neither=2)
    result = mcnemar(truth, a, b)
    assert (result.a_only, result.b_only, result.better) == (7, 1, "A")
    tail = sum(math.comb(8, k) for k in range(0, 2)) / 2**8  # P(X <= 1), X ~ Bin(8, 1/2)
    assert result.p_value == pytest.approx(2 * tail)


@pytest.mark.parametrize("counts", [(7, 1, 30, 2), (20, 35, 100, 10), (3, 3, 5, 0), (0, 9, 4, 4)])
def test_equal_to_statsmodels(counts):
    sm = pytest.importorskip("statsmodels.stats.contingency_tables")
    truth, a, b = _predictions(*counts)
    b_only, c_only, both, neither = counts
    table = [[both, b_only], [c_only, neither]]
    assert mcnemar(truth, a, b).p_value == pytest.approx(sm.mcnemar(table, exact=True).pvalue)
    assert mcnemar(truth, a, b, exact=False).p_value == pytest.approx(
        sm.mcnemar(table, exact=False, correction=True).pvalue)


def test_no_discordant_case_and_mismatched_cases():
    truth, a, b = _predictions(0, 0, 5, 1)
    assert mcnemar(truth, a, b).p_value == 1.0
    with pytest.raises(TreebenchError, match="the same cases"):
        mcnemar(np.zeros(3), np.zeros(3), np.zeros(4))
