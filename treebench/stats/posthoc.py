"""Pairwise post-hoc tests after Friedman with Shaffer's static correction.

Following García & Herrera (2008, JMLR 9:2677-2694) and Demšar (2006): the
average ranks ``R_i`` of ``k`` algorithms on ``N`` datasets give, for each
pair, ``z = (R_i - R_j) / sqrt(k(k+1) / (6N))`` and a two-sided normal
p-value (the Siegel-Castellan / Demšar rank z-test, as in scikit-posthocs'
``posthoc_siegel_friedman``).  The ``m = k(k-1)/2`` p-values are then adjusted:

* ``"shaffer"`` — Shaffer's (1986) static procedure S1: like Holm, but the
  ``i``-th smallest p-value is multiplied by ``t_i``, the largest number of
  hypotheses that can still be true when ``i - 1`` are false.  For pairwise
  comparisons these numbers are the set ``S(k) = ∪_{j=1..k} {C(j,2) + s : s ∈ S(k-j)}``
  (``S(0) = S(1) = {0}``), so ``t_i = max{s ∈ S(k) : s ≤ m - i + 1}``; the
  running maximum makes the sequence monotone and it is capped at 1.
  Shaffer is never less powerful than Holm;
* ``"holm"``, ``"bonferroni"``, ``"none"`` — see :mod:`treebench.stats.multiple`.
"""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np
import pandas as pd
from scipy import stats

from treebench.errors import TreebenchError, one_of
from treebench.stats import multiple
from treebench.stats.across import average_ranks

#: Corrections :func:`friedman_posthoc` accepts.
POSTHOC_CORRECTIONS = ("shaffer", "holm", "bonferroni", "none")


@cache
def shaffer_counts(k: int) -> frozenset[int]:
    """Possible numbers of true hypotheses among the pairwise equalities of ``k`` means (Shaffer 1986).

    Examples
    --------
    >>> sorted(shaffer_counts(4))
    [0, 1, 2, 3, 6]
    """
    if k < 0:
        raise TreebenchError(f"the number of algorithms must be at least 0, got {k}")
    if k <= 1:
        return frozenset({0})
    out: set[int] = set()
    for j in range(1, k + 1):
        out |= {math.comb(j, 2) + s for s in shaffer_counts(k - j)}
    return frozenset(out)


def shaffer(p_values, k: int) -> np.ndarray:
    """Shaffer-adjusted p-values (static procedure) of all ``k(k-1)/2`` pairwise tests, in input order.

    Parameters
    ----------
    p_values
        The raw p-values of every pair of ``k`` algorithms (any order).
    k
        Number of algorithms.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, each at least the raw one and at most 1.
    """
    p = np.asarray(p_values, dtype=float)
    m = math.comb(k, 2)
    if p.shape != (m,) or np.isnan(p).any():
        raise TreebenchError(f"Shaffer's procedure needs the {m} p-values of all pairs of {k} algorithms")
    counts = np.array(sorted(shaffer_counts(k)))
    order = np.argsort(p, kind="mergesort")
    t = np.array([counts[counts <= m - i].max() for i in range(m)], dtype=float)
    stepped = np.maximum.accumulate(t * p[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


def rank_z_pvalues(means: pd.DataFrame, higher_is_better: bool = True) -> pd.DataFrame:
    """Unadjusted two-sided p-values of the rank z-test for every pair (a symmetric matrix, 1 on the diagonal)."""
    k, n = means.shape[1], means.shape[0]
    if k < 2 or n < 1:
        raise TreebenchError("pairwise rank tests need at least 2 algorithms and 1 dataset")
    ranks = average_ranks(means, higher_is_better)
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    names = list(ranks.index)
    out = pd.DataFrame(1.0, index=names, columns=names)
    for a, b in itertools.combinations(names, 2):
        z = abs(ranks[a] - ranks[b]) / se
        out.loc[a, b] = out.loc[b, a] = min(1.0, float(2.0 * stats.norm.sf(z)))
    return out


def friedman_posthoc(means: pd.DataFrame, higher_is_better: bool = True, correction: str = "shaffer") -> pd.DataFrame:
    """Pairwise rank z-tests after Friedman, adjusted for all ``k(k-1)/2`` pairs.

    Parameters
    ----------
    means
        Datasets x algorithms matrix of mean scores (complete rows).
    correction
        One of :data:`POSTHOC_CORRECTIONS`.

    Returns
    -------
    DataFrame
        One row per pair: ``a, b, z, p, p_adjusted`` (``a`` before ``b`` in column order).
    """
    if correction not in POSTHOC_CORRECTIONS:
        raise one_of(correction, POSTHOC_CORRECTIONS, "post-hoc correction")
    raw = rank_z_pvalues(means, higher_is_better)
    k, n = means.shape[1], means.shape[0]
    ranks = average_ranks(means, higher_is_better)
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    pairs = list(itertools.combinations(list(raw.index), 2))
    p = np.array([raw.loc[a, b] for a, b in pairs])
    adj = shaffer(p, k) if correction == "shaffer" else multiple.adjust(p, correction)
    return pd.DataFrame({
        "a": [a for a, _ in pairs],
        "b": [b for _, b in pairs],
        "z": [abs(ranks[a] - ranks[b]) / se for a, b in pairs],
        "p": p,
        "p_adjusted": adj,
    })
