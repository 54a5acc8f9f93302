"""The arithmetic of Weka's J48 in numba, summed in the order numpy sums it.

The readable C4.5 (:mod:`treebench.trees.c45`) adds class weights with ``np.bincount`` (row
order), ``ndarray.sum`` (numpy's pairwise summation) and ``np.cumsum`` (running sums).  With
fractional weights (missing values, ``sample_weight``) the order decides the last bits, and the
last bits of a distribution decide J48's ties; so every sum here repeats numpy's order:
:func:`pairwise` is numpy's ``pairwise_sum``, running sums are plain loops.

``x log2 x`` (:func:`xlog2x`) is read from a table of the whole numbers that numpy computed when
its argument is one (numpy's vectorised ``log`` and the C library's differ in the last bit on
some arguments); other arguments take the C library's ``log``, whose result can differ from
numpy's by one unit in the last place: a gain is then as exact as numpy's, and J48's 1e-6
slack in every comparison of gains absorbs the difference.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: ``weka.core.Utils.SMALL``: the slack of every Weka comparison.
SMALL = 1e-6
#: Consecutive sorted values closer than this are one value for a numeric cut.
SAME_VALUE = 1e-5
LOG2 = math.log(2.0)
#: numpy's ``PW_BLOCKSIZE``: longer runs are halved recursively.
_BLOCK = 128


@njit(cache=True)
def _block(a: np.ndarray) -> float:
    """numpy's ``pairwise_sum`` of at most 128 values: sequential below 8, else 8 running sums."""
    n = a.shape[0]
    if n < 8:
        s = 0.0
        for i in range(n):
            s += a[i]
        return s
    r0, r1, r2, r3, r4, r5, r6, r7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
    i = 8
    while i < n - n % 8:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        s += a[i]
        i += 1
    return s


@njit(cache=True)
def pairwise(a: np.ndarray) -> float:
    """``a.sum()`` as numpy adds it (``pairwise_sum``: blocks of up to 128 values, longer runs
    halved at a multiple of 8 and the halves' sums added).

    The halving is walked with an explicit stack: numba cannot cache a recursive function that
    another cached function calls.  (Callers pass slices: a constant argument would make numba
    compile one more copy per constant.)
    """
    n = a.shape[0]
    if n <= _BLOCK:
        return _block(a)
    # each level halves n, so 64 levels are more than any array holds
    starts = np.empty(64, dtype=np.int64)
    sizes = np.empty(64, dtype=np.int64)
    phase = np.empty(64, dtype=np.int64)  # 0: expand, 1: left done, 2: both done
    sums = np.empty(64)  # finished halves waiting for their sibling
    depth, held = 1, 0
    starts[0], sizes[0], phase[0] = 0, n, 0
    while depth > 0:
        top = depth - 1
        size = sizes[top]
        if size <= _BLOCK:
            sums[held] = _block(a[starts[top]:starts[top] + size])
            held += 1
            depth -= 1
            continue
        half = size // 2
        half -= half % 8
        if phase[top] == 0:
            phase[top] = 1
            starts[depth], sizes[depth], phase[depth] = starts[top], half, 0
            depth += 1
        elif phase[top] == 1:
            phase[top] = 2
            starts[depth], sizes[depth], phase[depth] = starts[top] + half, size - half, 0
            depth += 1
        else:
            held -= 1
            sums[held - 1] = sums[held - 1] + sums[held]
            depth -= 1
    return sums[0]


@njit(cache=True)
def xlog2x(v: float, tab: np.ndarray) -> float:
    """``v log2 v``, 0 below 1e-6 (``EntropyBasedSplitCrit.logFunc``); whole numbers from ``tab``."""
    if v < SMALL:
        return 0.0
    if v < tab.shape[0]:
        whole = int(v)
        if whole == v:
            return tab[whole]
    return v * math.log(v) / LOG2


@njit(cache=True)
def _xlog2x_block(a: np.ndarray, tab: np.ndarray) -> float:
    """:func:`_block` of ``x log2 x`` of at most 128 values, without storing them."""
    n = a.shape[0]
    if n < 8:
        s = 0.0
        for i in range(n):
            s += xlog2x(a[i], tab)
        return s
    r0, r1, r2, r3 = xlog2x(a[0], tab), xlog2x(a[1], tab), xlog2x(a[2], tab), xlog2x(a[3], tab)
    r4, r5, r6, r7 = xlog2x(a[4], tab), xlog2x(a[5], tab), xlog2x(a[6], tab), xlog2x(a[7], tab)
    i = 8
    while i < n - n % 8:
        r0 += xlog2x(a[i], tab)
        r1 += xlog2x(a[i + 1], tab)
        r2 += xlog2x(a[i + 2], tab)
        r3 += xlog2x(a[i + 3], tab)
        r4 += xlog2x(a[i + 4], tab)
        r5 += xlog2x(a[i + 5], tab)
        r6 += xlog2x(a[i + 6], tab)
        r7 += xlog2x(a[i + 7], tab)
        i += 8
    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        s += xlog2x(a[i], tab)
        i += 1
    return s


@njit(cache=True)
def _tab_block(a: np.ndarray, tab: np.ndarray) -> float:
    """:func:`_xlog2x_block` of whole numbers within ``tab``: each ``x log2 x`` read directly."""
    n = a.shape[0]
    if n < 8:
        s = 0.0
        for i in range(n):
            s += tab[int(a[i])]
        return s
    r0, r1, r2, r3 = tab[int(a[0])], tab[int(a[1])], tab[int(a[2])], tab[int(a[3])]
    r4, r5, r6, r7 = tab[int(a[4])], tab[int(a[5])], tab[int(a[6])], tab[int(a[7])]
    i = 8
    while i < n - n % 8:
        r0 += tab[int(a[i])]
        r1 += tab[int(a[i + 1])]
        r2 += tab[int(a[i + 2])]
        r3 += tab[int(a[i + 3])]
        r4 += tab[int(a[i + 4])]
        r5 += tab[int(a[i + 5])]
        r6 += tab[int(a[i + 6])]
        r7 += tab[int(a[i + 7])]
        i += 8
    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        s += tab[int(a[i])]
        i += 1
    return s


@njit(cache=True)
def fsum(a: np.ndarray) -> float:
    """:func:`pairwise` with the short case (up to 128 values) in a small function LLVM can inline."""
    if a.shape[0] <= _BLOCK:
        return _block(a)
    return pairwise(a)


@njit(cache=True)
def xlog2x_sum(a: np.ndarray, tab: np.ndarray, scratch: np.ndarray) -> float:
    """``_xlog2x(a).sum()`` (``scratch`` holds at least ``len(a)`` values, used beyond 128)."""
    n = a.shape[0]
    if n <= _BLOCK:
        return _xlog2x_block(a, tab)
    for i in range(n):
        scratch[i] = xlog2x(a[i], tab)
    return pairwise(scratch[:n])


@njit(cache=True)
def tab_sum(a: np.ndarray, tab: np.ndarray, scratch: np.ndarray) -> float:
    """:func:`xlog2x_sum` of whole numbers below ``len(tab)``, the same value: ``xlog2x`` of such a
    number is ``tab`` at it (0 at 0), here read without the tests."""
    n = a.shape[0]
    if n <= _BLOCK:
        return _tab_block(a, tab)
    for i in range(n):
        scratch[i] = tab[int(a[i])]
    return pairwise(scratch[:n])


@njit(cache=True)
def max_class(per_class: np.ndarray) -> int:
    """``Distribution.maxClass``: the first class beating the running best by more than 1e-6."""
    top, best = 0.0, 0
    for c in range(per_class.shape[0]):
        if per_class[c] - top > SMALL:
            top, best = per_class[c], c
    return best


@njit(cache=True)
def column_sums(dist: np.ndarray, k: int, out: np.ndarray) -> None:
    """``dist.sum(axis=0)`` of a ``(n_bags, k)`` block stored row by row: bags added in order."""
    n_bags = dist.shape[0] // k
    for c in range(k):
        out[c] = dist[c]
    for b in range(1, n_bags):
        for c in range(k):
            out[c] += dist[b * k + c]


@njit(cache=True)
def num_incorrect(dist: np.ndarray, k: int, scratch: np.ndarray) -> float:
    """``Distribution.numIncorrect`` of a ``(n_bags, k)`` block: weight not of the majority class
    (``scratch``: ``k`` values)."""
    per_class = scratch[:k]
    column_sums(dist, k, per_class)
    return pairwise(per_class) - per_class[max_class(per_class)]


@njit(cache=True)
def added_errors(n: float, errors: float, confidence: float, z: float) -> float:
    """:func:`treebench.trees.pruning.added_errors` (Weka's ``Stats.addErrs``), same operations."""
    if errors < 1:
        base = n * (1.0 - confidence ** (1.0 / n))
        if errors == 0:
            return base
        one = 1.0
        if one + 0.5 >= n:
            at_one = max(n - one, 0.0)
        else:
            f = (one + 0.5) / n
            upper = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
            at_one = upper * n - one
        return base + errors * (at_one - base)
    if errors + 0.5 >= n:
        return max(n - errors, 0.0)
    f = (errors + 0.5) / n
    upper = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
    return upper * n - errors


@njit(cache=True)
def estimated_errors(dist: np.ndarray, k: int, confidence: float, z: float, scratch: np.ndarray) -> float:
    """Pessimistic errors of a leaf holding the ``(n_bags, k)`` block ``dist``
    (``getEstimatedErrorsForDistribution``)."""
    total = pairwise(dist)
    if abs(total) < SMALL:
        return 0.0
    wrong = num_incorrect(dist, k, scratch)
    return wrong + added_errors(total, wrong, confidence, z)


@njit(cache=True)
def last_below(values: np.ndarray, cut: float, slack: float) -> int:
    """Index of the last of the sorted ``values`` with ``value - cut < slack``, -1 when none."""
    lo, hi = 0, values.shape[0]
    while lo < hi:  # the predicate is monotone in value
        mid = (lo + hi) // 2
        if values[mid] - cut < slack:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1
