"""Compiled split search of one MEE node on presorted rows (paper 001).

A feature's levels at a node and their cumulative class counts come from
the feature's level table (class counts by value rank, kept by the node loop
of :mod:`treebench.kernels.mee_grow`), with no sort and no pass over the
node's rows (:func:`table_levels`).  The search
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

#: Levels per block scanned threshold by threshold; larger ranges are bounded first.
LEAF_BLOCK = 8
#: Slack of the pruning bound: a block is skipped only when its bound is this far
#: past the acceptance limit, far above the rounding error of an error entropy
#: (a few 1e-15), so a skipped threshold could never have been accepted.
PRUNE_MARGIN = 1e-12


@njit(cache=True)
def table_levels(tab, tot, act_row, n_act, f, base, level_values, present, n_present, running, cum, lefts, levels,
                 level_rank):
    """Levels of one feature at a node and the cumulative counts of its present classes, from its level table.

    Parameters
    ----------
    tab, tot:
        ``tab[base + r, k]`` the node's cases of class code ``k`` at the
        feature's value of rank ``r``, ``tot[base + r]`` all of them (see
        :mod:`treebench.kernels.mee_grow`).
    act_row, n_act, f:
        ``act_row[:n_act[f]]``: ascending ranks that may hold cases (a superset
        of the node's levels); ranks found empty are dropped in place -- along
        a chain a table only loses cases, so they stay empty.
    base, level_values:
        ``level_values[base + r]`` is the value of rank ``r``.
    present, n_present:
        The class codes present at the node.
    running:
        Scratch of length ``n_present``.
    cum, lefts, levels, level_rank:
        Output: ``cum[j, q]`` cases of the ``q``-th present class with
        ``x <= levels[j]``, ``lefts[j]`` all cases with ``x <= levels[j]``,
        ``level_rank[j]`` the rank of ``levels[j]``.

    Returns
    -------
    int
        ``m``, the number of levels.
    """
    for q in range(n_present):
        running[q] = 0
    m = 0
    seen = 0
    for i in range(n_act[f]):
        r = act_row[i]
        t = tot[base + r]
        if t == 0:
            continue
        act_row[m] = r
        for q in range(n_present):
            running[q] += tab[base + r, present[q]]
            cum[m, q] = running[q]
        seen += t
        lefts[m] = seen
        levels[m] = level_values[base + r]
        level_rank[m] = r
        m += 1
    n_act[f] = m
    return m


@njit(cache=True)
def split_position(rank_row, start, end, r) -> int:
    """First position of ``[start, end)`` whose rank is above ``r`` (the rows are sorted by rank)."""
    while start < end:
        middle = (start + end) // 2
        if rank_row[middle] <= r:
            start = middle + 1
        else:
            end = middle
    return start


@njit(cache=True, inline="always")
def _set_count(cum, j, set_pos, row, size) -> int:
    """Cases of the class set ``row`` with ``x <= levels[j]``."""
    total = 0
    for a in range(size):
        total += cum[j, set_pos[row, a]]
    return total


@njit(cache=True)
def _block_bound(orientation, s_a, left_a, s_b, left_b, ns, n, p, printed, log_wp, log_wm, xlogx) -> float:
    """A lower bound of the error entropy at every threshold of a block of levels.

    Along the levels each error count moves one way (under orientation 0 the
    ``e = 2`` count falls and the ``e = -2`` count rises), so the block's
    counts lie in the box spanned by its two ends; the error entropy is
    concave in the two counts, so over the box it is lowest at a corner.
    """
    plus_a, minus_a = _errors(orientation, s_a, left_a, ns, n)
    plus_b, minus_b = _errors(orientation, s_b, left_b, ns, n)
    plus_lo, plus_hi = min(plus_a, plus_b), max(plus_a, plus_b)
    minus_lo, minus_hi = min(minus_a, minus_b), max(minus_a, minus_b)
    return min(
        min(_h(plus_lo, minus_lo, n, p, printed, log_wp, log_wm, xlogx),
            _h(plus_lo, minus_hi, n, p, printed, log_wp, log_wm, xlogx)),
        min(_h(plus_hi, minus_lo, n, p, printed, log_wp, log_wm, xlogx),
            _h(plus_hi, minus_hi, n, p, printed, log_wp, log_wm, xlogx)),
    )


@njit(cache=True)
def _grid_convex(orientation, s_grid, left_grid, points, ns, n, p, printed, log_wp, log_wm, xlogx) -> bool:
    """The crude convex/concave rule on the grid, summed in grid order as the per-node kernel."""
    lo_c, hi_c = points // 5, (4 * points) // 5
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
    return not central > ends + CONVEX_TOLERANCE


@njit(cache=True)
def _curve_verdict(envelope, set_verdict, orientation, s_grid, left_grid, points, ns, n, p, printed, log_wp, log_wm,
                   xlogx):
    """The curve's verdict (1 convex, -1 concave) and the class set's verdict carried to its other orientation.

    ``envelope``: one verdict per class set, judged once on both orientations' lower envelope
    (``set_verdict`` 0 until then); otherwise each orientation's curve is judged on its own.
    """
    if envelope:
        if set_verdict == 0:
            convex = _grid_convex_envelope(s_grid, left_grid, points, ns, n, p, printed, log_wp, log_wm, xlogx)
            set_verdict = 1 if convex else -1
        return set_verdict, set_verdict
    convex = _grid_convex(orientation, s_grid, left_grid, points, ns, n, p, printed, log_wp, log_wm, xlogx)
    return (1 if convex else -1), set_verdict


@njit(cache=True)
def _grid_convex_envelope(s_grid, left_grid, points, ns, n, p, printed, log_wp, log_wm, xlogx) -> bool:
    """The crude rule once for a class set: on the pointwise lower envelope of its two orientations' grid curves."""
    lo_c, hi_c = points // 5, (4 * points) // 5
    central, ends = 0.0, 0.0
    for i in range(points):
        plus, minus = _errors(0, s_grid[i], left_grid[i], ns, n)
        h = _h(plus, minus, n, p, printed, log_wp, log_wm, xlogx)
        plus, minus = _errors(1, s_grid[i], left_grid[i], ns, n)
        h = min(h, _h(plus, minus, n, p, printed, log_wp, log_wm, xlogx))
        if lo_c <= i < hi_c:
            central += h
        else:
            ends += h
    central /= hi_c - lo_c
    ends /= points - (hi_c - lo_c)
    return not central > ends + CONVEX_TOLERANCE


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
    tab, tot, act, n_act, rank, level_values, level_start, lo, hi, n, present, n_present,
    set_pos, set_size, set_parent, first_row, end_row, set_rows, n_rows, set_n, xlogx, points, min_child, printed,
    whole, span_low, span_high, must_lower, envelope, running, cum, lefts, levels, level_rank, grid_level, cum_grid,
    left_grid, s_grid, block_lo, block_hi, s_first, s_last, unsplit_of, survives, best_left,
):
    """Lowest error entropy over the node's usable curves (the rule of ``best_mee_split``).

    Parameters
    ----------
    tab, tot, act, n_act:
        The node's level tables (:func:`table_levels`; ``act[f]`` is feature ``f``'s rank list).
    rank, lo, hi:
        ``(d, n)`` sorted value ranks of every feature and the node's range in
        them (only the split feature's, to find where its right child begins).
    level_values, level_start:
        Feature ``f``'s distinct values by rank start at ``level_start[f]``.
    present, n_present:
        The class codes present at the node.
    set_pos, set_size, set_parent, first_row, end_row, set_rows, n_rows, set_n:
        Candidate class sets as rows of positions into the present classes:
        the node's table is rows ``first_row`` to ``end_row``, ``set_parent``
        the row of a set less its last class (-1 for one class),
        ``set_rows[:n_rows]`` the rows that passed the minimum-cases test (in
        the enumeration order) and ``set_n[row]`` their case counts.
    xlogx, points, min_child, printed, whole, span_low, span_high, must_lower, envelope:
        As in :func:`treebench.kernels.mee.best_mee_split`.
    running, cum, lefts, levels, level_rank, grid_level, cum_grid, left_grid, s_grid, block_lo, block_hi:
        Scratch buffers (see :func:`table_levels`; the block stack holds 2 * 64 ranges).
    s_first, s_last, unsplit_of, survives:
        Scratch per table row (set counts at the first and last candidate) and
        per usable set (the no-split error entropy, the screen's verdicts).
    best_left:
        Output: the chosen split's left counts per present class.

    Returns
    -------
    (H, set row, feature, orientation, low, high, n_left, position):
        ``set row = -1`` when no curve is usable; ``position`` is where the
        split feature's rows of the right child begin.

    Notes
    -----
    A curve's thresholds are visited in order, but a block of them whose
    lower bound (:func:`_block_bound`) cannot beat the best split so far is
    skipped, halving blocks down to :data:`LEAF_BLOCK` levels.  The
    convex/concave rule only gates thresholds, so it is evaluated when the
    first block survives: a curve none of whose thresholds could win is never
    drawn on the grid.  Candidates are accepted by the same comparisons in the
    same order as the per-node kernel, so the result is the same.
    """
    d = rank.shape[0]
    best_h = np.inf
    best_row, best_feature, best_orientation = -1, -1, -1
    best_low, best_high = 0.0, 0.0
    best_n_left, best_rank = 0, -1
    for k in range(n_rows):
        unsplit_of[k] = np.inf
        if must_lower:
            ns = set_n[set_rows[k]]
            p = ns / n
            log_wp, log_wm = math.log(p / n), math.log((1.0 - p) / n)
            unsplit_of[k] = min(
                _h(ns, 0, n, p, printed, log_wp, log_wm, xlogx),
                _h(0, n - ns, n, p, printed, log_wp, log_wm, xlogx),
            )
    for f in range(d):
        base = level_start[f]
        m = table_levels(tab, tot, act[f], n_act, f, base, level_values, present, n_present, running, cum, lefts,
                         levels, level_rank)
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
        have_grid_levels = False
        _screen(cum, lefts, first, last, set_pos, set_size, set_parent, first_row, end_row, set_rows, n_rows, set_n,
                n, best_h, unsplit_of, printed, xlogx, s_first, s_last, survives)
        for k in range(n_rows):
            if not (survives[k, 0] or survives[k, 1]):
                continue
            row = set_rows[k]
            ns = set_n[row]
            p = ns / n
            # both logs finite: a candidate set and its complement are non-empty
            log_wp, log_wm = math.log(p / n), math.log((1.0 - p) / n)
            size = set_size[row]
            have_grid = False
            unsplit = unsplit_of[k]
            set_verdict = 0  # ``envelope``: the set's one verdict, shared by both orientations
            for orientation in range(2):
                if set_verdict < 0:
                    break  # the envelope is concave: neither orientation splits
                if not survives[k, orientation]:
                    continue
                verdict = 0  # convexity: 0 not yet drawn, 1 convex, -1 concave
                block_lo[0], block_hi[0] = first, last
                top = 1
                while top > 0:
                    top -= 1
                    a, b = block_lo[top], block_hi[top]
                    limit = min(best_h, unsplit) - TIE_TOLERANCE
                    if limit < np.inf:
                        bound = _block_bound(
                            orientation, _set_count(cum, a, set_pos, row, size), lefts[a],
                            _set_count(cum, b, set_pos, row, size), lefts[b], ns, n, p, printed, log_wp, log_wm,
                            xlogx,
                        )
                        if bound >= limit + PRUNE_MARGIN:
                            continue  # no threshold of the block can be accepted
                        if b - a >= LEAF_BLOCK:
                            middle = (a + b) // 2
                            block_lo[top], block_hi[top] = middle + 1, b  # the right half after the left
                            block_lo[top + 1], block_hi[top + 1] = a, middle
                            top += 2
                            continue
                    if verdict == 0:
                        # -- the crude convex/concave rule on the grid, drawn once per set --
                        if not have_grid:
                            if not have_grid_levels:
                                _fill_grid(levels, lefts, cum, m, n_present, whole, span_low[f], span_high[f],
                                           points, grid_level, cum_grid, left_grid)
                                have_grid_levels = True
                            _set_grid(cum_grid, set_pos, row, size, points, s_grid)
                            have_grid = True
                        verdict, set_verdict = _curve_verdict(envelope, set_verdict, orientation, s_grid, left_grid,
                                                              points, ns, n, p, printed, log_wp, log_wm, xlogx)
                    if verdict < 0:
                        break  # concave: its minimum is useless
                    for jj in range(a, b + 1):
                        plus, minus = _errors(orientation, _set_count(cum, jj, set_pos, row, size), lefts[jj], ns, n)
                        h = _h(plus, minus, n, p, printed, log_wp, log_wm, xlogx)
                        if h < unsplit - TIE_TOLERANCE and h < best_h - TIE_TOLERANCE:
                            best_h = h
                            best_row, best_feature, best_orientation = row, f, orientation
                            best_low, best_high = levels[jj], levels[jj + 1]
                            best_n_left, best_rank = lefts[jj], level_rank[jj]
                            for q in range(n_present):
                                best_left[q] = cum[jj, q]
    best_position = 0
    if best_row >= 0:
        best_position = split_position(rank[best_feature], lo[best_feature], hi[best_feature], best_rank)
    return best_h, best_row, best_feature, best_orientation, best_low, best_high, best_n_left, best_position


@njit(cache=True)
def _screen(cum, lefts, first, last, set_pos, set_size, set_parent, first_row, end_row, set_rows, n_rows, set_n,
            n, best_h, unsplit_of, printed, xlogx, s_first, s_last, survives):
    """Every usable set's two curves on one feature, screened by their whole candidate range's bound.

    The bound is :func:`_block_bound`'s over ``[first, last]``, against the
    best split before the feature (the limit only falls during the feature,
    so a curve screened out stays out).  The set counts at the two ends come
    from the set less its last class, one addition per set.  Under the joint
    reading the bound is compared as ``n`` times the error entropy, which
    needs no division (the slack covers the rounding).
    """
    for row in range(first_row, end_row):
        q = set_pos[row, set_size[row] - 1]
        parent = set_parent[row]
        s_first[row] = cum[first, q] + (s_first[parent] if parent >= 0 else 0)
        s_last[row] = cum[last, q] + (s_last[parent] if parent >= 0 else 0)
    left_a, left_b = lefts[first], lefts[last]
    top = xlogx[n]
    for k in range(n_rows):
        limit = min(best_h, unsplit_of[k]) - TIE_TOLERANCE
        if limit == np.inf:
            survives[k, 0], survives[k, 1] = True, True
            continue
        row = set_rows[k]
        ns = set_n[row]
        s_a, s_b = s_first[row], s_last[row]
        if printed:
            p = ns / n
            log_wp, log_wm = math.log(p / n), math.log((1.0 - p) / n)
            for orientation in range(2):
                bound = _block_bound(orientation, s_a, left_a, s_b, left_b, ns, n, p, True, log_wp, log_wm, xlogx)
                survives[k, orientation] = bound < limit + PRUNE_MARGIN
            continue
        scaled = (limit + PRUNE_MARGIN) * n
        for orientation in range(2):
            plus_a, minus_a = _errors(orientation, s_a, left_a, ns, n)
            plus_b, minus_b = _errors(orientation, s_b, left_b, ns, n)
            plus_lo, plus_hi = min(plus_a, plus_b), max(plus_a, plus_b)
            minus_lo, minus_hi = min(minus_a, minus_b), max(minus_a, minus_b)
            # n * H = n ln n - sum of k ln k over the three error counts: lowest
            # at the corner whose sum is highest
            high = max(
                max(xlogx[plus_lo] + xlogx[minus_lo] + xlogx[n - plus_lo - minus_lo],
                    xlogx[plus_lo] + xlogx[minus_hi] + xlogx[n - plus_lo - minus_hi]),
                max(xlogx[plus_hi] + xlogx[minus_lo] + xlogx[n - plus_hi - minus_lo],
                    xlogx[plus_hi] + xlogx[minus_hi] + xlogx[n - plus_hi - minus_hi]),
            )
            survives[k, orientation] = top - high < scaled


@njit(cache=True)
def _set_grid(cum_grid, set_pos, row, size, points, s_grid):
    """``s_grid[i]``: the class set's (row ``row`` of ``set_pos``, ``size`` members) count left of grid point ``i``."""
    q0 = set_pos[row, 0]
    for i in range(points):
        s_grid[i] = cum_grid[q0, i]
    for member in range(1, size):
        qa = set_pos[row, member]
        for i in range(points):
            s_grid[i] += cum_grid[qa, i]


@njit(cache=True)
def _fill_grid(levels, lefts, cum, m, n_present, whole, span_low, span_high, points, grid_level, cum_grid, left_grid):
    """Class-major counts at the convexity grid's points (``x <= point``) of one feature."""
    if whole:
        low_v, high_v = span_low, span_high
    else:
        low_v, high_v = levels[0], levels[m - 1]
    grid_levels(levels, m, low_v, high_v, points, grid_level)
    for i in range(points):
        jj = grid_level[i]
        if jj >= 0:
            left_grid[i] = lefts[jj]
            for q in range(n_present):
                cum_grid[q, i] = cum[jj, q]
        else:
            left_grid[i] = 0
            for q in range(n_present):
                cum_grid[q, i] = 0
