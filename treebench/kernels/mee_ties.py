"""Random choice among tied split features of an MEE node (``feature_ties="random"``, paper 001).

The node's search (:func:`treebench.kernels.mee_scan.best_node_split`) finds
the ``first`` winner as always: the candidate (feature, class set,
orientation, threshold) kept by the strict comparison ``h < best - tol`` in
visiting order.  Only for a split, :func:`tied_node_split` then makes a
second pass over the other features.  A feature *ties* when one of its
candidates scores within the tie tolerance of the winner (``|h - h*| <= tol``,
the absolute slack of the MEE kernels) and passes every rule the first pass
applies (a convex curve, enough cases on both sides, ``must_lower``); its
split is the one the first rule keeps among those candidates (ties within a
feature keep the current order: class set, orientation, smallest
threshold).  The winner's feature and the tied ones are taken in column
order, each further one replacing the kept one with probability
``1 / (tied so far)`` (:func:`treebench.kernels.ties.replaces_tied`), so each
is chosen with the same probability.

The bound-pruned search cannot hide a tie: the second pass prunes a block
only when its lower bound is above ``h* + tol`` (plus the pruning margin),
so a pruned candidate is strictly worse than every tied one.

Draws come from a stream per node: the root's state is the estimator's tie
seed, and each child's is mixed from its parent's and its side
(:func:`child_key`).  The trees therefore do not depend on the order the
nodes are grown in, so the compiled node loop (larger child first) and the
per-node builder (left first) draw the same numbers at the same nodes.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.kernels.mee import _errors, _h
from treebench.kernels.mee_scan import (
    LEAF_BLOCK,
    PRUNE_MARGIN,
    _block_bound,
    _curve_verdict,
    _fill_grid,
    _screen,
    _set_count,
    _set_grid,
    split_position,
    table_levels,
)
from treebench.kernels.ties import next_u64, replaces_tied
from treebench.kernels.tolerances import TIE_TOLERANCE

#: Salts of a node's two children: mixed into the parent's state before the SplitMix64 step.
_SIDE_SALT = np.array([0x6D65655F6C656674, 0x6D65655F72696768], dtype=np.uint64)  # "mee_left", "mee_righ"


@njit(cache=True)
def child_key(key, side, scratch):
    """The stream state of child ``side`` (0 left, 1 right) of a node whose state is ``key``.

    ``scratch`` is a one-element uint64 array (overwritten).
    """
    scratch[0] = np.uint64(key) ^ _SIDE_SALT[side]
    return next_u64(scratch)


@njit(cache=True)
def tied_node_split(
    first_h, first_row, first_feature, first_orientation, first_low, first_high, first_n_left, first_position,
    state, tab, tot, act, n_act, rank, level_values, level_start, lo, hi, n, present, n_present,
    set_pos, set_size, set_parent, first_row_of_table, end_row, set_rows, n_rows, set_n, xlogx, points, min_child,
    printed, whole, span_low, span_high, must_lower, envelope, running, cum, lefts, levels, level_rank, grid_level,
    cum_grid, left_grid, s_grid, block_lo, block_hi, s_first, s_last, unsplit_of, survives, best_left, lefts_kept,
):
    """One of the features tied with the first winner, uniformly at random, and its split.

    Parameters
    ----------
    first_h, first_row, first_feature, first_orientation, first_low, first_high, first_n_left, first_position:
        The winner of :func:`treebench.kernels.mee_scan.best_node_split` (``first_row >= 0``);
        ``best_left`` holds its left counts on entry.
    state:
        The node's one-element SplitMix64 state (advanced: one draw per tied feature after the first).
    tab ... survives:
        As in :func:`treebench.kernels.mee_scan.best_node_split` (the same node; scratch buffers reused).
    best_left:
        In: the winner's left counts per present class; out: the chosen split's.
    lefts_kept:
        Scratch ``(3, n_classes)``: the winner's, the chosen and the candidate's left counts.

    Returns
    -------
    The tuple of :func:`treebench.kernels.mee_scan.best_node_split` for the chosen split.
    """
    d = rank.shape[0]
    ceiling = first_h + TIE_TOLERANCE  # a tie scores within the tolerance, either way
    floor = first_h - TIE_TOLERANCE
    for q in range(n_present):
        lefts_kept[0, q] = best_left[q]  # the winner's
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
    out_h, out_row, out_feature, out_orientation = first_h, first_row, first_feature, first_orientation
    out_low, out_high, out_n_left, out_rank = first_low, first_high, first_n_left, -1
    n_tied = 0
    for f in range(d):
        if f == first_feature:
            n_tied += 1
            if n_tied == 1 or replaces_tied(state, n_tied):
                out_h, out_row, out_feature, out_orientation = first_h, first_row, first_feature, first_orientation
                out_low, out_high, out_n_left, out_rank = first_low, first_high, first_n_left, -1
                for q in range(n_present):
                    lefts_kept[1, q] = lefts_kept[0, q]
            continue
        base = level_start[f]
        m = table_levels(tab, tot, act[f], n_act, f, base, level_values, present, n_present, running, cum, lefts,
                         levels, level_rank)
        if m < 2:
            continue
        first, last = 0, m - 2
        while first <= last and lefts[first] < min_child:
            first += 1
        while last >= first and n - lefts[last] < min_child:
            last -= 1
        if first > last:
            continue
        # the screen's limit is min(best, unsplit) - tol: the ceiling plus tol gives the pool's
        _screen(cum, lefts, first, last, set_pos, set_size, set_parent, first_row_of_table, end_row, set_rows, n_rows,
                set_n, n, ceiling + TIE_TOLERANCE, unsplit_of, printed, xlogx, s_first, s_last, survives)
        kept_h = np.inf
        kept_row, kept_orientation, kept_low, kept_high, kept_n_left, kept_rank = -1, -1, 0.0, 0.0, 0, -1
        have_grid_levels = False
        for k in range(n_rows):
            if not (survives[k, 0] or survives[k, 1]):
                continue
            row = set_rows[k]
            ns = set_n[row]
            p = ns / n
            log_wp, log_wm = math.log(p / n), math.log((1.0 - p) / n)
            size = set_size[row]
            have_grid = False
            unsplit = unsplit_of[k]
            set_verdict = 0  # ``envelope``: the set's one verdict, shared by both orientations
            for orientation in range(2):
                if set_verdict < 0:
                    break
                if not survives[k, orientation]:
                    continue
                verdict = 0
                block_lo[0], block_hi[0] = first, last
                top = 1
                while top > 0:
                    top -= 1
                    a, b = block_lo[top], block_hi[top]
                    limit = min(ceiling, min(kept_h, unsplit) - TIE_TOLERANCE)
                    bound = _block_bound(
                        orientation, _set_count(cum, a, set_pos, row, size), lefts[a],
                        _set_count(cum, b, set_pos, row, size), lefts[b], ns, n, p, printed, log_wp, log_wm, xlogx,
                    )
                    if bound >= limit + PRUNE_MARGIN:
                        continue  # every threshold of the block scores above any tie
                    if b - a >= LEAF_BLOCK:
                        middle = (a + b) // 2
                        block_lo[top], block_hi[top] = middle + 1, b
                        block_lo[top + 1], block_hi[top + 1] = a, middle
                        top += 2
                        continue
                    if verdict == 0:
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
                        break
                    for jj in range(a, b + 1):
                        plus, minus = _errors(orientation, _set_count(cum, jj, set_pos, row, size), lefts[jj], ns, n)
                        h = _h(plus, minus, n, p, printed, log_wp, log_wm, xlogx)
                        if (h < unsplit - TIE_TOLERANCE and h <= ceiling and h >= floor
                                and h < kept_h - TIE_TOLERANCE):
                            kept_h, kept_row, kept_orientation = h, row, orientation
                            kept_low, kept_high, kept_n_left, kept_rank = levels[jj], levels[jj + 1], lefts[jj], \
                                level_rank[jj]
                            for q in range(n_present):
                                lefts_kept[2, q] = cum[jj, q]
        if kept_row < 0:
            continue  # no tie on this feature
        n_tied += 1
        if n_tied == 1 or replaces_tied(state, n_tied):
            out_h, out_row, out_feature, out_orientation = kept_h, kept_row, f, kept_orientation
            out_low, out_high, out_n_left, out_rank = kept_low, kept_high, kept_n_left, kept_rank
            for q in range(n_present):
                lefts_kept[1, q] = lefts_kept[2, q]
    for q in range(n_present):
        best_left[q] = lefts_kept[1, q]
    position = first_position
    if out_feature != first_feature:
        position = split_position(rank[out_feature], lo[out_feature], hi[out_feature], out_rank)
    return out_h, out_row, out_feature, out_orientation, out_low, out_high, out_n_left, position

