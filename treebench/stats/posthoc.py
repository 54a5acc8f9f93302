"""Pairwise post-hoc tests after Friedman with Shaffer's or Bergmann-Hommel's correction.

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
* ``"bergmann-hommel"`` — Bergmann & Hommel's (1988) procedure as given by
  García & Herrera (2008, Sect. 3.3): the exhaustive sets of pairwise
  hypotheses are those induced by the partitions of the ``k`` algorithms
  (``H_ij`` is in the set iff ``i`` and ``j`` share a block), and
  ``p_i' = min(1, max{|I| · min_{j∈I} p_j : I exhaustive, H_i ∈ I})``,
  followed by the running maximum in the order of the raw p-values (as in
  scmamp's ``adjustBergmannHommel``) so that a smaller raw p-value never gets
  a larger adjusted one.  Never less powerful than Shaffer; the number of
  partitions (the Bell number) limits it to ``k <= 9`` (21147 partitions);
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
POSTHOC_CORRECTIONS = ("shaffer", "bergmann-hommel", "holm", "bonferroni", "none")

#: Largest number of algorithms :func:`bergmann_hommel` accepts (Bell(9) = 21147 partitions, Bell(10) = 115975).
BERGMANN_HOMMEL_MAX_K = 9


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


@cache
def partitions(k: int) -> np.ndarray:
    """All set partitions of ``k`` items as restricted growth strings, one per row.

    Row ``r`` gives the block of each item: item 0 is in block 0 and item ``i``
    is in a block at most one more than the largest block among items
    ``0..i-1``.  There are Bell(k) rows (1, 1, 2, 5, 15, 52, ... for k = 0, 1, 2, ...).

    Examples
    --------
    >>> partitions(3).tolist()
    [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [0, 1, 2]]
    """
    if k < 0:
        raise TreebenchError(f"the number of algorithms must be at least 0, got {k}")
    if k == 0:
        return np.zeros((1, 0), dtype=np.int8)
    rows = np.zeros((1, 1), dtype=np.int8)
    top = np.zeros(1, dtype=np.int8)  # largest block label in each row
    for _ in range(1, k):
        reps = (top + 2).astype(np.intp)  # the next item joins block 0..top, or opens block top + 1
        idx = np.repeat(np.arange(len(rows)), reps)
        new = (np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)).astype(np.int8)
        rows = np.column_stack([rows[idx], new])
        top = np.maximum(top[idx], new)
    rows.setflags(write=False)
    return rows


@cache
def exhaustive_sets(k: int) -> np.ndarray:
    """The exhaustive sets of the ``k(k-1)/2`` pairwise hypotheses, as a boolean matrix.

    One row per partition of the ``k`` algorithms into blocks with at least one
    block of two or more (García & Herrera 2008, Sect. 3.3): ``H_ij`` (columns in
    :func:`itertools.combinations` order) is in the set iff ``i`` and ``j`` are in
    the same block — exactly the sets of hypotheses that can be true together.

    Examples
    --------
    >>> exhaustive_sets(3).astype(int).tolist()  # pairs (0,1), (0,2), (1,2)
    [[1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    """
    rows = partitions(k)
    pairs = list(itertools.combinations(range(k), 2))
    if not pairs:
        return np.zeros((0, 0), dtype=bool)
    i, j = (np.array(c) for c in zip(*pairs))
    same = rows[:, i] == rows[:, j]
    same = same[same.any(axis=1)]
    same.setflags(write=False)
    return same


def bergmann_hommel(p_values, k: int, monotone: bool = True) -> np.ndarray:
    """Bergmann-Hommel-adjusted p-values of all ``k(k-1)/2`` pairwise tests, in input order.

    Bergmann & Hommel's (1988) procedure for all pairwise comparisons, as
    described by García & Herrera (2008, JMLR 9:2677-2694, Sect. 3.3): ``H_i``
    is rejected at level ``alpha`` unless it belongs to an exhaustive set ``I``
    whose hypotheses are all retained by Bonferroni within ``I``
    (``min_{j∈I} p_j > alpha / |I|``).  The adjusted p-value is therefore

    ``p_i' = min(1, max{|I| · min_{j∈I} p_j : I exhaustive, H_i ∈ I})``,

    where the exhaustive sets are those induced by partitions of the ``k``
    algorithms (:func:`exhaustive_sets`).

    Parameters
    ----------
    p_values
        The raw p-values of every pair of ``k`` algorithms, in
        ``itertools.combinations(range(k), 2)`` order: (0,1), (0,2), ..., (k-2,k-1).
    k
        Number of algorithms, 2 to :data:`BERGMANN_HOMMEL_MAX_K`.
    monotone
        Take the running maximum in the order of the raw p-values (ties in
        input order), as scmamp's ``adjustBergmannHommel`` does, so that the
        adjusted p-values are ordered like the raw ones.  This can only raise
        a value, so the family-wise error rate stays controlled.  ``False``
        returns the closed-test values above, which may be out of order
        (e.g. k = 4: a larger raw p can get a smaller adjusted p).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, each at least the raw one, at most Shaffer's and at most 1.

    Raises
    ------
    TreebenchError
        For ``k`` above :data:`BERGMANN_HOMMEL_MAX_K` or p-values that are not
        the ``k(k-1)/2`` pairs.

    References
    ----------
    G. Bergmann and G. Hommel (1988), Improvements of general multiple test
    procedures for redundant systems of hypotheses.  In P. Bauer, G. Hommel and
    E. Sonnemann (eds.), *Multiple Hypothesenprüfung*, Springer, 100-115.
    S. García and F. Herrera (2008), An extension on "Statistical comparisons of
    classifiers over multiple data sets" for all pairwise comparisons.  JMLR 9,
    2677-2694.

    Examples
    --------
    >>> bergmann_hommel([0.01, 0.02, 0.04], 3).tolist()  # exhaustive sets: all three pairs, or one
    [0.03, 0.03, 0.04]
    """
    if k > BERGMANN_HOMMEL_MAX_K:
        raise TreebenchError(
            f"Bergmann-Hommel enumerates the partitions of the algorithms and is limited to "
            f"{BERGMANN_HOMMEL_MAX_K} algorithms (got {k}); use --correction shaffer or holm")
    p = np.asarray(p_values, dtype=float)
    m = math.comb(k, 2)
    if k < 2 or p.shape != (m,) or np.isnan(p).any():
        raise TreebenchError(f"Bergmann-Hommel's procedure needs the {m} p-values of all pairs of {k} algorithms")
    sets = exhaustive_sets(k)
    value = sets.sum(axis=1) * np.where(sets, p, np.inf).min(axis=1)  # |I| · min_{j∈I} p_j
    adj = np.where(sets, value[:, None], 0.0).max(axis=0)
    if monotone:
        order = np.argsort(p, kind="mergesort")
        adj[order] = np.maximum.accumulate(adj[order])
    return np.minimum(1.0, adj)


def adjust_pairwise(p_values, k: int, correction: str) -> np.ndarray:
    """Adjust the p-values of all pairs of ``k`` algorithms with one of :data:`POSTHOC_CORRECTIONS`."""
    if correction not in POSTHOC_CORRECTIONS:
        raise one_of(correction, POSTHOC_CORRECTIONS, "post-hoc correction")
    if correction == "shaffer":
        return shaffer(p_values, k)
    if correction == "bergmann-hommel":
        return bergmann_hommel(p_values, k)
    return multiple.adjust(p_values, correction)


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
        One of :data:`POSTHOC_CORRECTIONS`: ``"shaffer"`` (default),
        ``"bergmann-hommel"`` (at most :data:`BERGMANN_HOMMEL_MAX_K` algorithms),
        ``"holm"``, ``"bonferroni"`` or ``"none"``.

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
    adj = adjust_pairwise(p, k, correction)
    return pd.DataFrame({
        "a": [a for a, _ in pairs],
        "b": [b for _, b in pairs],
        "z": [abs(ranks[a] - ranks[b]) / se for a, b in pairs],
        "p": p,
        "p_adjusted": adj,
    })
