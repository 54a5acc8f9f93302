"""Multiple-comparison corrections of a family of p-values.

:func:`holm` is Holm's (1979) step-down procedure: sort the ``m`` p-values
``p_(1) <= ... <= p_(m)``, multiply the ``i``-th smallest by ``m - i + 1``,
make the sequence non-decreasing (running maximum) and cap it at 1.  Rejecting
the hypotheses whose adjusted p-value is at most ``alpha`` controls the
family-wise error rate at ``alpha`` under any dependence between the tests.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values, in the input order.

    NaN entries (tests that could not be run) stay NaN and do not count in
    the family size ``m``.

    Parameters
    ----------
    p_values
        Raw p-values of one family of tests.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, each at least its raw value and at most 1.
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    valid = np.nonzero(~np.isnan(p))[0]
    m = valid.size
    if m == 0:
        return out
    order = valid[np.argsort(p[valid], kind="mergesort")]
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out[order] = np.minimum(1.0, stepped)
    return out
