"""The counting presort (treebench.kernels.counted_row) writes the row the sort and fill write.

Each case fills one feature's sorted row both ways -- ``fill_counted_row``, and numpy's stable
argsort followed by ``fill_sorted_row`` -- and compares sample ids, ranks, labels and the NaN
rank; the cases cover fractions, NaN, ``-0.0`` beside ``0.0``, infinities, an all-NaN column,
and both sides of the distinct-value limit.
"""

from __future__ import annotations

import numpy as np
import pytest

from treebench.kernels.counted_row import MAX_COUNTED, fill_counted_row
from treebench.kernels.partition import fill_sorted_row


def _rows(column: np.ndarray, labels: np.ndarray, counted: bool, rank_dtype=np.int32):
    n = column.shape[0]
    index = np.full(n, -7, np.int32)
    rank = np.zeros(n, rank_dtype)
    label = np.zeros(n, labels.dtype)
    if counted:
        levels = fill_counted_row(column, column.view(np.uint64), labels, index, rank, label, np.empty(n, np.int64))
    else:
        levels = fill_sorted_row(column, np.argsort(column, kind="stable"), labels, False, index, rank, label)
    return levels, index, rank, label


def _column(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    kind = seed % 7
    if kind == 0:
        return rng.integers(0, 101, n) / 100.0  # rates: fractions, few of them
    if kind == 1:
        column = rng.integers(-3, 4, n).astype(float)
        column[rng.random(n) < 0.3] = -0.0  # equal to 0.0: one rank, row order between them
        column[rng.random(n) < 0.2] = np.nan
        return column
    if kind == 2:
        column = rng.choice([-np.inf, np.inf, 1e300, -1e-300, 5e-324], n)
        column[rng.random(n) < 0.1] = np.nan
        return column
    if kind == 3:
        return np.full(n, np.nan)
    if kind == 4:
        return np.full(n, 2.5)
    if kind == 5:
        return rng.normal(size=n).round(2)  # a few hundred distinct values
    return rng.integers(10**15, 10**15 + 50, n).astype(float)


@pytest.mark.parametrize("seed", range(35))
def test_counted_row_is_the_sorted_row(seed):
    column = _column(seed)
    labels = np.random.default_rng(seed + 100).integers(0, 5, column.shape[0]).astype(np.uint8)
    counted = _rows(column, labels, True)
    assert counted[0] >= 0
    for got, expected in zip(counted, _rows(column, labels, False)):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("extra", [0, 1])
def test_the_distinct_value_limit(extra):
    """At the limit the row is counted (into uint16 ranks); one value more and it is refused."""
    rng = np.random.default_rng(extra)
    column = rng.permutation(np.repeat(np.arange(MAX_COUNTED + extra) * 0.5, 2))
    labels = rng.integers(0, 3, column.shape[0]).astype(np.uint8)
    counted = _rows(column, labels, True, np.uint16)
    if extra:
        assert counted[0] == -1
        return
    assert counted[0] == MAX_COUNTED
    for got, expected in zip(counted, _rows(column, labels, False, np.uint16)):
        np.testing.assert_array_equal(got, expected)
