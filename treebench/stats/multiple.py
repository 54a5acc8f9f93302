"""Multiple-comparison corrections of a family of p-values.

:func:`holm` is Holm's (1979) step-down procedure: sort the ``m`` p-values
``p_(1) <= ... <= p_(m)``, multiply the ``i``-th smallest by ``m - i + 1``,
make the sequence non-decreasing (running maximum) and cap it at 1.  Rejecting
the hypotheses whose adjusted p-value is at most ``alpha`` controls the
family-wise error rate at ``alpha`` under any dependence between the tests.
:func:`bonferroni` multiplies every p-value by ``m``; :func:`adjust` applies
one of :data:`CORRECTIONS` (or ``"auto"``: Holm when ``m > 1``).

:data:`PAIRWISE_CORRECTIONS` (Shaffer, Bergmann-Hommel) exploit the logical
relations among the hypotheses of *all* pairwise comparisons of ``k``
algorithms and are applied by :mod:`treebench.stats.posthoc` to the rank tests
after Friedman; on any other family (the marks against a baseline, the
pairwise Wilcoxon tests) they resolve to Holm, which is what both reduce to
when no hypotheses are logically related.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from treebench.errors import one_of


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


#: Corrections for all pairwise comparisons after Friedman (:mod:`treebench.stats.posthoc`); Holm elsewhere.
PAIRWISE_CORRECTIONS = ("shaffer", "bergmann-hommel")

#: ``--correction`` choices; ``"auto"`` means Holm for a family of two or more tests, else none.
CORRECTIONS = ("holm", "bonferroni", "none", *PAIRWISE_CORRECTIONS)


def bonferroni(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Bonferroni-adjusted p-values, in the input order.

    Each p-value is multiplied by the family size ``m`` (NaN entries do not
    count) and capped at 1.

    Parameters
    ----------
    p_values
        Raw p-values of one family of tests.

    Returns
    -------
    numpy.ndarray
        ``min(1, m * p)``; NaN stays NaN.
    """
    p = np.asarray(p_values, dtype=float)
    m = int(np.count_nonzero(~np.isnan(p)))
    return np.minimum(1.0, p * m)


def family_size(p_values: Sequence[float] | np.ndarray) -> int:
    """Number of tests in a family: the p-values that are not NaN."""
    return int(np.count_nonzero(~np.isnan(np.asarray(p_values, dtype=float))))


def resolve(method: str, m: int) -> str:
    """The correction to apply to a family of ``m`` tests.

    ``"auto"`` is Holm when ``m > 1`` and ``"none"`` otherwise; a single test
    needs no correction, whatever the method.  The pairwise-only corrections
    (:data:`PAIRWISE_CORRECTIONS`) are Holm here: this function serves the
    families they do not apply to.

    Raises
    ------
    TreebenchError
        For an unknown method.
    """
    if method not in (*CORRECTIONS, "auto"):
        raise one_of(method, CORRECTIONS, "correction")
    if m <= 1:
        return "none"
    return "holm" if method in ("auto", *PAIRWISE_CORRECTIONS) else method


def adjust(p_values: Sequence[float] | np.ndarray, method: str) -> np.ndarray:
    """Adjust one family of p-values.

    Parameters
    ----------
    p_values
        Raw p-values; NaN marks a test that was not run.
    method
        ``"holm"``, ``"bonferroni"``, ``"none"`` or ``"auto"`` (see :func:`resolve`).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order (a copy of the input for ``"none"``).
    """
    p = np.asarray(p_values, dtype=float)
    method = resolve(method, family_size(p))
    if method == "holm":
        return holm(p)
    if method == "bonferroni":
        return bonferroni(p)
    return p.copy()


def label(method: str) -> str:
    """Display name of a resolved correction."""
    return {"holm": "Holm", "bonferroni": "Bonferroni", "none": "none"}[method]
