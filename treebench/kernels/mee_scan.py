"""Compiled split search of one MEE node on presorted rows (paper 001).

The node owns the position range ``[start, end)`` of every feature's sorted
rows (sample ids, dense value ranks, class codes; see
:mod:`treebench.kernels.mee_grow`), so a feature's levels and cumulative
class counts come from one pass over its range, with no sort.  The search
then visits the candidates in the order of :func:`treebench.kernels.mee.best_mee_split`
-- feature, class set, orientation, threshold -- with the same arithmetic
(the same ``k ln k`` look-ups and the same order of every floating-point
sum), so it picks the same split bit for bit.

What changed from the per-node kernel is where the work goes:

* counts are kept class-major over the node's *present* classes only, so a
  class set's left counts at the grid points (or the levels) are a few
  contiguous vector additions, one per member class;
* a feature whose every threshold leaves fewer than ``min_child`` cases on a
  side is skipped before its curves are drawn (it has no candidate, so its
  convexity does not matter);
* the left counts of a set at the levels are summed only over the thresholds
  that are candidates, and only when one of its curves is convex.

Every buffer is allocated once per fit by the caller (:class:`MEEWork`
arrays); the loops allocate nothing.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.kernels.mee import _errors, _h
from treebench.kernels.tolerances import CONVEX_TOLERANCE, TIE_TOLERANCE


@njit(cache=True)
def feature_levels(rank_row, label_row, level_values, start, end, present, n_present, running, cum, lefts, levels):
    """Levels of one feature at a node and the cumulative counts of its present classes.

    Parameters
    ----------
    rank_row, label_row:
        The feature's sorted rows (dense value ranks, class codes).
    level_values:
        The feature's distinct training values by rank.
    start, end:
        The node's position range.
    present, n_present:
        The node's classes (ascending codes); ``cum`` row ``q`` is class ``present[q]``.
    running:
        Scratch of length ``n_classes``.
    cum, lefts, levels:
        Output: ``cum[q, j]`` cases of class ``present[q]`` with ``x <= levels[j]``,
        ``lefts[j]`` all cases with ``x <= levels[j]``.

    Returns
    -------
    int
        ``m``, the number of levels.
    """
    for q in range(n_present):
        running[present[q]] = 0
    m = 0
    previous = -1
    for p in range(start, end):
        r = np.int64(rank_row[p])
        if r != previous:
            if m > 0:
                for q in range(n_present):
                    cum[q, m - 1] = running[present[q]]
                lefts[m - 1] = p - start
            levels[m] = level_values[r]
            m += 1
            previous = r
        running[label_row[p]] += 1
    for q in range(n_present):
        cum[q, m - 1] = running[present[q]]
    lefts[m - 1] = end - start
    return m


@njit(cache=True)
def grid_levels(levels, m, low_v, high_v, points, grid_level):
    """``grid_level[i]``: the last level ``<=`` grid point ``i`` (-1 below the node's smallest value).

    The grid is ``low + (high - low) * (i / (points - 1))`` with its last point
    exactly ``high``, as :func:`treebench.criteria.mee.convexity_grid`.
    """
    j = -1
    for i in range(points):
        g = low_v + (high_v - low_v) * (i / (points - 1))
        if i == points - 1:
            g = high_v
        while j + 1 < m and levels[j + 1] <= g:
            j += 1
        grid_level[i] = j


@njit(cache=True)
def best_node_split(
    rank, label, level_values, level_start, start, end, present, n_present,
    set_pos, set_size, set_rows, n_rows, set_n, xlogx, points, min_child, printed, whole,
    span_low, span_high, must_lower, running, cum, lefts, levels, grid_level, cum_grid, left_grid,
    s_grid, s_left, best_left,
):
    """Lowest error entropy over the node's usable curves (the rule of ``best_mee_split``).

    Parameters
    ----------
    rank, label:
        ``(d, n)`` sorted rows of every feature; the node owns ``[start, end)``.
    level_values, level_start:
        Feature ``f``'s distinct values by rank start at ``level_start[f]``.
    present, n_present:
        The node's classes.
    set_pos, set_size, set_rows, n_rows, set_n:
        Candidate class sets as rows of positions into ``present``
        (``set_rows[:n_rows]`` are the rows that passed the minimum-cases
        test, in the enumeration order) and ``set_n[row]`` their case counts.
    xlogx, points, min_child, printed, whole, span_low, span_high, must_lower:
        As in :func:`treebench.kernels.mee.best_mee_split`.
    running, cum, lefts, levels, grid_level, cum_grid, left_grid, s_grid, s_left:
        Scratch buffers (see :func:`feature_levels`).
    best_left:
        Output: the chosen split's left counts per present class.

    Returns
    -------
    (H, set row, feature, orientation, low, high, n_left):
        ``set row = -1`` when no curve is usable.
    """
    d = rank.shape[0]
    n = end - start
    best_h = np.inf
    best_row, best_feature, best_orientation = -1, -1, -1
    best_low, best_high = 0.0, 0.0
    best_n_left = 0
    lo_c, hi_c = points // 5, (4 * points) // 5
    for f in range(d):
        base = level_start[f]
        m = feature_levels(
            rank[f], label[f], level_values[base:], start, end, present, n_present, running, cum, lefts, levels
        )
        if m < 2:
            continue  # constant feature: no split
        # candidate thresholds: the levels below the last whose both sides are
        # large enough; the counts grow with the level, so they are one run
        first, last = 0, m - 2
        while first <= last and lefts[first] < min_child:
            first += 1
        while last >= first and n - lefts[last] < min_child:
            last -= 1
        if first > last:
            continue  # no candidate: the feature's curves cannot matter
        if whole:
            low_v, high_v = span_low[f], span_high[f]
        else:
            low_v, high_v = levels[0], levels[m - 1]
        grid_levels(levels, m, low_v, high_v, points, grid_level)
        for i in range(points):
            jj = grid_level[i]
            if jj >= 0:
                left_grid[i] = lefts[jj]
                for q in range(n_present):
                    cum_grid[q, i] = cum[q, jj]
            else:
                left_grid[i] = 0
                for q in range(n_present):
                    cum_grid[q, i] = 0
        for k in range(n_rows):
            row = set_rows[k]
            ns = set_n[row]
            p = ns / n
            # both logs finite: a candidate set and its complement are non-empty
            log_wp, log_wm = math.log(p / n), math.log((1.0 - p) / n)
            size = set_size[row]
            # the set's left counts at the grid points: one vector sum per member
            q0 = set_pos[row, 0]
            for i in range(points):
                s_grid[i] = cum_grid[q0, i]
            for a in range(1, size):
                qa = set_pos[row, a]
                for i in range(points):
                    s_grid[i] += cum_grid[qa, i]
            have_levels = False
            for orientation in range(2):
                # -- the crude convex/concave rule on the grid (sums in grid order) --
                central, ends = 0.0, 0.0
                for i in range(points):
                    plus, minus = _errors(orientation, s_grid[i], left_grid[i], ns, n)
                    h = _h(plus, minus, n, p, printed, log_wp, log_wm, xlogx)
                    if lo_c <= i < hi_c:
                        central += h
                    else:
                        ends += h
                central /= hi_c - lo_c
                ends /= points - (hi_c - lo_c)
                if central > ends + CONVEX_TOLERANCE:
                    continue  # concave: its minimum is useless
                unsplit = np.inf
                if must_lower:
                    unsplit = min(
                        _h(ns, 0, n, p, printed, log_wp, log_wm, xlogx),
                        _h(0, n - ns, n, p, printed, log_wp, log_wm, xlogx),
                    )
                if not have_levels:
                    for j in range(first, last + 1):
                        s_left[j] = cum[q0, j]
                    for a in range(1, size):
                        qa = set_pos[row, a]
                        for j in range(first, last + 1):
                            s_left[j] += cum[qa, j]
                    have_levels = True
                for jj in range(first, last + 1):
                    plus, minus = _errors(orientation, s_left[jj], lefts[jj], ns, n)
                    h = _h(plus, minus, n, p, printed, log_wp, log_wm, xlogx)
                    if h < unsplit - TIE_TOLERANCE and h < best_h - TIE_TOLERANCE:
                        best_h = h
                        best_row, best_feature, best_orientation = row, f, orientation
                        best_low, best_high = levels[jj], levels[jj + 1]
                        best_n_left = lefts[jj]
                        for q in range(n_present):
                            best_left[q] = cum[q, jj]
    return best_h, best_row, best_feature, best_orientation, best_low, best_high, best_n_left
