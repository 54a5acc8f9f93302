"""Compiled split search of the minimum entropy-of-error tree (paper 001).

One call scores every (feature, class set, orientation, threshold) of a node.
Each feature is sorted once; its distinct values ("levels") get cumulative
per-class counts, from which a class set's left count at every level is a
sum over the set's few classes, and the error entropy at a level is three
table look-ups of ``k ln k``.  The convex/concave rule reads the same
entropies at the grid points, so a concave curve costs ``O(points)`` and only
convex curves are scanned threshold by threshold.

The grid spans either the node's range of the feature or a given range (the
paper's "whole feature range": the training set's); grid points below the
node's smallest value send no case left.  With ``must_lower`` (the default
reading, :class:`treebench.trees.mee.MEETreeClassifier`) a threshold is a
candidate only below the curve's ends, the error entropies of not splitting;
without it every threshold of a convex curve is one (the former default).
With ``envelope`` the rule is applied once per class set and feature, to the
lower envelope of the two orientations' grid curves, and its verdict holds
for both orientations (``convexity_test="envelope"``); without it each
orientation's curve is judged on its own (the default).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# TIE_TOLERANCE here is an absolute slack: two error entropies closer than it
# count as tied (the first one wins), as in treebench.trees.mee.reference_best_split.
from treebench.kernels.tolerances import CONVEX_TOLERANCE, TIE_TOLERANCE


def xlogx_table(n: int) -> np.ndarray:
    """``k ln k`` for ``k = 0..n`` (``0 ln 0 = 0``)."""
    k = np.arange(n + 1, dtype=np.float64)
    return np.where(k > 0, k * np.log(np.where(k > 0, k, 1.0)), 0.0)


@njit(cache=True, inline="always")
def _entropy(plus: int, minus: int, n: int, xlogx: np.ndarray) -> float:
    # H = ln n - sum_k (n_k ln n_k) / n over the three error counts
    return (xlogx[n] - xlogx[plus] - xlogx[minus] - xlogx[n - plus - minus]) / n


@njit(cache=True, inline="always")
def _entropy_printed(plus: int, minus: int, n: int, p: float, log_wp: float, log_wm: float, xlogx: np.ndarray) -> float:
    # The paper's printed rates: a = P(e=2) = w+ plus, b = P(e=-2) = w- minus
    # with w+ = p/n, w- = (1-p)/n.  a ln a = w+ (plus ln plus + plus ln w+):
    # table look-ups, so only the e = 0 term needs a logarithm.
    wp, wm = p / n, (1.0 - p) / n
    a, b = wp * plus, wm * minus
    h = -wp * (xlogx[plus] + plus * log_wp) - wm * (xlogx[minus] + minus * log_wm)
    c = 1.0 - a - b
    if c > 0.0:
        h -= c * math.log(c)
    return h


@njit(cache=True, inline="always")
def _h(
    plus: int, minus: int, n: int, p: float, printed: bool, log_wp: float, log_wm: float, xlogx: np.ndarray
) -> float:
    if printed:
        return _entropy_printed(plus, minus, n, p, log_wp, log_wm, xlogx)
    return _entropy(plus, minus, n, xlogx)


@njit(cache=True, inline="always")
def _errors(orientation: int, s_left: int, left: int, n_set: int, n: int):
    """(count of e = 2, count of e = -2) of one coded split."""
    if orientation == 0:  # left side assigned to the class set
        return n_set - s_left, left - s_left
    return s_left, (n - n_set) - (left - s_left)  # right side assigned to the class set


@njit(cache=True)
def best_mee_split(
    X: np.ndarray,
    y: np.ndarray,
    set_classes: np.ndarray,
    set_sizes: np.ndarray,
    n_classes: int,
    points: int,
    min_child: int,
    printed: bool,
    xlogx: np.ndarray,
    whole: bool,
    span_low: np.ndarray,
    span_high: np.ndarray,
    must_lower: bool,
    envelope: bool = False,
):
    """Lowest error entropy over the node's usable curves.

    Parameters
    ----------
    X:
        The node's cases, shape ``(n, d)``, no NaN.
    y:
        Their class indices in ``0..n_classes-1``.
    set_classes, set_sizes:
        Candidate class sets, one row each, padded with -1 (already filtered
        for the minimum number of cases).
    points:
        Grid size of the convex/concave rule.
    min_child:
        Thresholds leaving fewer cases on either side are not candidates.
    printed:
        Use the paper's printed error rates (``p n_{1,-1}/n``) instead of
        the joint frequencies.
    xlogx:
        :func:`xlogx_table` of at least ``n``.
    whole, span_low, span_high:
        ``whole``: lay feature ``f``'s grid over ``[span_low[f], span_high[f]]``
        (the whole training set's range) instead of the node's range.
    must_lower:
        Only splits below the error entropy of not splitting (the curve's
        ends) are candidates: the default reading of the text's "valid split".
    envelope:
        Judge a class set's convexity once, on the pointwise minimum of its
        two orientations' grid curves, for both orientations (the reading
        ``convexity_test="envelope"``); false: each orientation on its own.

    Returns
    -------
    (H, set, feature, orientation, low, high):
        ``set = -1`` when no curve is usable; otherwise the split sends
        ``x <= low`` left, ``high`` is the next observed value (for midpoints).
    """
    n, d = X.shape
    n_sets = set_classes.shape[0]
    best_h = np.inf
    best_set, best_feature, best_orientation = -1, -1, -1
    best_low, best_high = 0.0, 0.0
    totals = np.zeros(n_classes, np.int64)
    for i in range(n):
        totals[y[i]] += 1
    n_set = np.zeros(n_sets, np.int64)
    for s in range(n_sets):
        for a in range(set_sizes[s]):
            n_set[s] += totals[set_classes[s, a]]
    lo_c, hi_c = points // 5, (4 * points) // 5
    levels = np.empty(n, np.float64)
    cum = np.empty((n, n_classes), np.int64)
    left = np.empty(n, np.int64)
    s_left = np.empty(n, np.int64)
    grid_level = np.empty(points, np.int64)
    s_grid = np.empty(points, np.int64)
    for f in range(d):
        values = X[:, f].copy()
        order = np.argsort(values)
        # -- levels and cumulative class counts (count of x <= level) ---------
        m = 0
        running = np.zeros(n_classes, np.int64)
        for r in range(n):
            v = values[order[r]]
            if r > 0 and v != levels[m - 1]:
                cum[m - 1, :] = running
            if r == 0 or v != levels[m - 1]:
                levels[m] = v
                m += 1
            running[y[order[r]]] += 1
        cum[m - 1, :] = running
        if m < 2:
            continue  # constant feature: no split
        for j in range(m):
            left[j] = 0
            for k in range(n_classes):
                left[j] += cum[j, k]
        # -- grid point -> last level <= grid value ---------------------------
        if whole:
            low_v, high_v = span_low[f], span_high[f]
        else:
            low_v, high_v = levels[0], levels[m - 1]
        j = -1  # -1: below the node's smallest value, nothing goes left
        for i in range(points):
            g = low_v + (high_v - low_v) * (i / (points - 1))
            if i == points - 1:
                g = high_v
            while j + 1 < m and levels[j + 1] <= g:
                j += 1
            grid_level[i] = j
        for s in range(n_sets):
            ns = n_set[s]
            p = ns / n
            # both logs finite: a candidate set and its complement are non-empty
            log_wp, log_wm = math.log(p / n), math.log((1.0 - p) / n)
            # the set's left counts, first at the grid levels only: most
            # curves are concave and need no more
            for i in range(points):
                acc = 0
                if grid_level[i] >= 0:
                    for a in range(set_sizes[s]):
                        acc += cum[grid_level[i], set_classes[s, a]]
                s_grid[i] = acc
            have_levels = False
            envelope_concave = False
            if envelope:
                # -- the rule once, on the lower envelope of both orientations --
                central, ends = 0.0, 0.0
                for i in range(points):
                    jj = grid_level[i]
                    n_left = left[jj] if jj >= 0 else 0
                    plus, minus = _errors(0, s_grid[i], n_left, ns, n)
                    h = _h(plus, minus, n, p, printed, log_wp, log_wm, xlogx)
                    plus, minus = _errors(1, s_grid[i], n_left, ns, n)
                    h = min(h, _h(plus, minus, n, p, printed, log_wp, log_wm, xlogx))
                    if lo_c <= i < hi_c:
                        central += h
                    else:
                        ends += h
                central /= hi_c - lo_c
                ends /= points - (hi_c - lo_c)
                envelope_concave = central > ends + CONVEX_TOLERANCE
            for orientation in range(2):
                if envelope:
                    if envelope_concave:
                        break  # the set's one verdict: neither orientation splits
                else:
                    # -- the crude convex/concave rule on the grid ----------------
                    central, ends = 0.0, 0.0
                    for i in range(points):
                        jj = grid_level[i]
                        n_left = left[jj] if jj >= 0 else 0
                        plus, minus = _errors(orientation, s_grid[i], n_left, ns, n)
                        h = _h(plus, minus, n, p, printed, log_wp, log_wm, xlogx)
                        if lo_c <= i < hi_c:
                            central += h
                        else:
                            ends += h
                    central /= hi_c - lo_c
                    ends /= points - (hi_c - lo_c)
                    if central > ends + CONVEX_TOLERANCE:
                        continue  # concave: its minimum is useless
                # The ends of the curve (every case on one side) are the error
                # entropies of not splitting; under ``must_lower`` a split must go below both.
                unsplit = np.inf
                if must_lower:
                    unsplit = min(
                        _h(ns, 0, n, p, printed, log_wp, log_wm, xlogx),
                        _h(0, n - ns, n, p, printed, log_wp, log_wm, xlogx),
                    )
                if not have_levels:
                    for j in range(m):
                        acc = 0
                        for a in range(set_sizes[s]):
                            acc += cum[j, set_classes[s, a]]
                        s_left[j] = acc
                    have_levels = True
                for jj in range(m - 1):  # the last level sends everything left
                    if left[jj] < min_child or n - left[jj] < min_child:
                        continue
                    plus, minus = _errors(orientation, s_left[jj], left[jj], ns, n)
                    h = _h(plus, minus, n, p, printed, log_wp, log_wm, xlogx)
                    if h < unsplit - TIE_TOLERANCE and h < best_h - TIE_TOLERANCE:
                        best_h = h
                        best_set, best_feature, best_orientation = s, f, orientation
                        best_low, best_high = levels[jj], levels[jj + 1]
    return best_h, best_set, best_feature, best_orientation, best_low, best_high
