"""The presorts' stable sort order (treebench.kernels.sort_order) is numpy's stable argsort.

Whole numbers of a narrow span take the radix path, anything else numpy's own sort; the cases
cover both sides of every condition of the shortcut (span, fractions, NaN, infinities, -0.0).
"""

from __future__ import annotations

import numpy as np
import pytest

from treebench.kernels.sort_order import RADIX_SPAN, stable_order


@pytest.mark.parametrize("seed", range(40))
def test_stable_order_is_numpys_stable_argsort(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 400))
    kind = seed % 8
    if kind == 0:
        column = rng.integers(-6, 7, n).astype(float)  # negative whole numbers
    elif kind == 1:
        column = rng.normal(size=n)  # fractions: numpy's own sort
    elif kind == 2:
        column = rng.integers(0, RADIX_SPAN + 2, n).astype(float)  # a span one too wide for uint16
    elif kind == 3:
        column = rng.integers(0, 4, n).astype(float)
        column[rng.random(n) < 0.3] = np.nan  # NaN last, in row order
    elif kind == 4:
        column = rng.integers(-2, 3, n).astype(float)
        column[rng.random(n) < 0.2] = -0.0  # equal to 0.0: row order between them
        column[rng.random(n) < 0.05] = np.inf
    elif kind == 5:
        column = np.full(n, np.nan)
    elif kind == 6:
        column = rng.integers(10**15, 10**15 + 300, n).astype(float)  # large, narrow span
    else:
        column = rng.integers(0, RADIX_SPAN + 1, n).astype(float)  # the widest span sorted as uint16
        if n:
            column[0], column[-1] = 0.0, float(RADIX_SPAN)
    np.testing.assert_array_equal(stable_order(column), np.argsort(column, kind="stable"))
