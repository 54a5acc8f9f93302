"""Compiled node loop of the minimum entropy-of-error tree (paper 001).

Every feature is sorted once, at the root, into parallel rows of sample ids,
dense value ranks and class codes (:func:`presort`); a node owns the same
position range in every row and a split *stably* partitions the rows
(:func:`treebench.kernels.partition.partition_two`), so no node copies or
sorts its cases.  MEE trees are often chains -- a split peels a few cases off
into a leaf and the rest goes on -- so the work per split is kept to what
the children need:

* a child's class counts come from the split's cumulative counts, so a child
  that is certainly a leaf (pure, or no class set with enough cases, or at
  ``max_depth``) is finished at once and its rows are never moved;
* the split feature is already partitioned (its left child is a prefix of the
  node's range); only the other features are, and only for the kept children.

The search at a node is :func:`treebench.kernels.mee_scan.best_node_split`.
The node value (the lowest error entropy of not splitting) is left to the
caller, which computes it with numpy from the smallest and largest class-set
size of every node (:func:`treebench.trees.mee.node_values`), so it is the
same number as the per-node builder's.

Candidate class sets come as a table per number of present classes ``c``
(rows ``set_first[c]`` to ``set_first[c + 1]``), each row the positions of
its classes among the node's present classes, in the order of
:func:`treebench.criteria.mee.class_sets`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebench.kernels.layout import (
    CHILD_START,
    DEPTH,
    FEATURE,
    KIND,
    LEAF,
    N_CHILDREN,
    N_FLOAT_FIELDS,
    N_INT_FIELDS,
    NUMERIC,
    SCORE,
    THRESHOLD,
)
from treebench.kernels.mee_scan import best_node_split


def presort(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every feature of ``X`` (n, d) sorted once: ``index``, ``rank`` and ``label`` rows (d, n).

    Ranks are dense over each feature's distinct values (``-0.0`` and ``0.0``
    are one value); ``level_values[level_start[f] + r]`` is feature ``f``'s
    value of rank ``r`` (its first occurrence in a stable sort).
    """
    n, d = X.shape
    index = np.empty((d, n), np.int32)
    rank = np.empty((d, n), np.int32)
    label = np.empty((d, n), np.uint8 if int(y.max(initial=0)) < 256 else np.int32)
    values, level_start = [], np.zeros(d + 1, np.int64)
    for f in range(d):
        column = np.ascontiguousarray(X[:, f])
        order = np.argsort(column, kind="stable")
        ordered = column[order]
        new = np.empty(n, bool)
        new[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        index[f] = order
        rank[f] = np.cumsum(new) - 1
        label[f] = y[order]
        values.append(ordered[new])
        level_start[f + 1] = level_start[f] + values[-1].size
    return index, rank, label, np.concatenate(values), level_start


@njit(cache=True)
def _grown(a: np.ndarray, rows: int) -> np.ndarray:
    """``a`` with room for ``rows`` rows (doubling), its rows kept."""
    if rows <= a.shape[0]:
        return a
    bigger = np.zeros((max(rows, 2 * a.shape[0]), a.shape[1]), a.dtype)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            bigger[i, j] = a[i, j]
    return bigger


@njit(cache=True)
def _summarise(counts_row, present, set_pos, set_size, set_first, min_class, set_n, set_rows, extremes):
    """A node's present classes, class-set sizes and usable sets, from its class counts.

    Returns ``(c, n_rows, first_row)``: ``c`` present classes (into
    ``present``), ``n_rows`` sets with at least ``min_class`` cases inside and
    outside (their rows into ``set_rows``), and the first table row of ``c``.
    ``extremes`` gets the smallest and largest set size (for the node value);
    with ``c < 2`` nothing else is filled.
    """
    n = 0
    c = 0
    for k in range(counts_row.shape[0]):
        if counts_row[k] > 0:
            present[c] = k
            c += 1
            n += counts_row[k]
    extremes[0], extremes[1] = -1, -1
    if c < 2:
        return c, 0, 0
    first_row = set_first[c]
    n_rows = 0
    low, high = n, 0
    for row in range(first_row, set_first[c + 1]):
        inside = 0
        for a in range(set_size[row]):
            inside += counts_row[present[set_pos[row, a]]]
        set_n[row] = inside
        low = min(low, inside)
        high = max(high, inside)
        if min(inside, n - inside) >= min_class:
            set_rows[n_rows] = row
            n_rows += 1
    extremes[0], extremes[1] = low, high
    return c, n_rows, first_row


@njit(cache=True)
def grow_mee_tree(
    index, rank, label, level_values, level_start, root_counts, set_pos, set_size, set_parent, set_first, xlogx,
    points, min_class, min_child, printed, whole, span_low, span_high, must_lower, max_depth, midpoint,
):
    """Grow an MEE tree depth-first; the children of a node get consecutive ids.

    Parameters
    ----------
    index, rank, label:
        :func:`presort` rows ``(d, n)``; partitioned in place.
    level_values, level_start:
        The features' distinct values by rank (:func:`presort`).
    root_counts:
        Class counts of all cases (``n_classes``).
    set_pos, set_size, set_parent, set_first:
        The class-set tables (module docstring).
    xlogx:
        ``k ln k`` for ``k = 0..n``.
    points, min_class, min_child, printed, whole, span_low, span_high, must_lower:
        The MEE parameters (see :func:`treebench.kernels.mee.best_mee_split`).
    max_depth:
        -1 for no limit.
    midpoint:
        Thresholds halfway to the next observed value instead of the observed one.

    Returns
    -------
    int_nodes, float_nodes, counts, split_rows, orientations, extremes
        Node arrays (see :mod:`treebench.kernels.layout`), the table row of each
        split's class set (-1 for a leaf), its orientation (-1 for a leaf) and
        each node's smallest and largest class-set size (-1 with fewer than two classes).
    """
    d, n = index.shape
    n_classes = root_counts.shape[0]
    # -- buffers, allocated once --------------------------------------------------
    capacity = 64
    ints = np.full((capacity, N_INT_FIELDS), -1, np.int64)
    floats = np.zeros((capacity, N_FLOAT_FIELDS), np.float64)
    counts = np.zeros((capacity, n_classes), np.int64)
    extras = np.full((capacity, 4), -1, np.int64)  # set row, orientation, smallest and largest set
    n_sets = set_pos.shape[0]
    set_n = np.zeros(n_sets, np.int64)
    set_rows = np.zeros(n_sets, np.int64)
    present = np.zeros(n_classes, np.int64)
    extremes = np.zeros(2, np.int64)
    running = np.zeros(n_classes, np.int64)
    cum = np.zeros((n, n_classes), np.int32)
    lefts = np.zeros(n, np.int64)
    levels = np.zeros(n, np.float64)
    level_rank = np.zeros(n, np.int64)
    grid_level = np.zeros(points, np.int64)
    cum_grid = np.zeros((n_classes, points), np.int64)
    left_grid = np.zeros(points, np.int64)
    s_grid = np.zeros(points, np.int64)
    block_lo = np.zeros(128, np.int64)
    block_hi = np.zeros(128, np.int64)
    best_left = np.zeros(n_classes, np.int64)
    s_first = np.zeros(n_sets, np.int64)
    s_last = np.zeros(n_sets, np.int64)
    unsplit_of = np.zeros(n_sets, np.float64)
    survives = np.zeros((n_sets, 2), np.bool_)
    side_of = np.zeros(n, np.uint8)
    dead = np.zeros(n, np.uint8)
    buf_index = np.empty(n, index.dtype)
    buf_rank = np.empty(n, rank.dtype)
    buf_label = np.empty(n, label.dtype)
    child_present = np.zeros(n_classes, np.int64)
    # level tables (module docstring): class counts by (feature, rank), the ranks in use, each case's ranks
    tab = np.zeros((level_start[d], n_classes), np.int32)
    tot = np.zeros(level_start[d], np.int32)
    act = np.zeros((d, n), np.int32)
    n_act = np.zeros(d, np.int64)
    rank_of = np.empty((d, n), np.int32)
    label_of = np.empty(n, np.int64)
    for g in range(d):
        for p in range(n):
            rank_of[g, index[g, p]] = rank[g, p]
    for p in range(n):
        label_of[index[0, p]] = label[0, p]
    # pending nodes: id, case count, whether its tables must be rebuilt, and each
    # feature's row range (depth-first: at most depth + 1)
    stack_node = np.zeros((64, 3), np.int64)
    stack_lo = np.zeros((64, d), np.int64)
    stack_hi = np.zeros((64, d), np.int64)
    lo = np.zeros(d, np.int64)
    hi = np.zeros(d, np.int64)
    # -- the root -----------------------------------------------------------------
    n_nodes = 1
    ints[0, KIND], ints[0, N_CHILDREN], ints[0, DEPTH] = LEAF, 0, 0
    for k in range(n_classes):
        counts[0, k] = root_counts[k]
    _summarise(counts[0], present, set_pos, set_size, set_first, min_class, set_n, set_rows, extremes)
    extras[0, 2], extras[0, 3] = extremes[0], extremes[1]
    stack_node[0, 0], stack_node[0, 1], stack_node[0, 2] = 0, n, 1
    for g in range(d):
        stack_lo[0, g], stack_hi[0, g] = 0, n
    top = 1
    while top > 0:
        top -= 1
        node, n_node, fresh = stack_node[top, 0], stack_node[top, 1], stack_node[top, 2]
        for g in range(d):
            lo[g], hi[g] = stack_lo[top, g], stack_hi[top, g]
        if fresh:
            for g in range(d):
                _rebuild(tab, tot, act[g], n_act, g, level_start[g], index[g], rank[g], label[g], lo[g], hi[g], dead)
        depth = ints[node, DEPTH]
        c, n_rows, first_row = _summarise(counts[node], present, set_pos, set_size, set_first, min_class, set_n, set_rows,
                                  extremes)
        if c < 2 or (max_depth >= 0 and depth >= max_depth) or n_rows == 0:
            continue  # pushed only when none holds; kept as the definition of a leaf
        h, row, f, orientation, low, high, n_left, split_at = best_node_split(
            tab, tot, act, n_act, rank, level_values, level_start, lo, hi, n_node, present, c,
            set_pos, set_size, set_parent, first_row, set_first[c + 1], set_rows, n_rows, set_n, xlogx, points,
            min_child, printed, whole, span_low, span_high, must_lower, running, cum, lefts, levels, level_rank,
            grid_level,
            cum_grid, left_grid, s_grid, block_lo, block_hi, s_first, s_last, unsplit_of, survives, best_left,
        )
        if row < 0:
            continue  # every curve is concave
        # -- the split and its two children ------------------------------------------
        first = n_nodes
        n_nodes += 2
        if n_nodes > ints.shape[0]:
            ints = _grown(ints, n_nodes)
            floats = _grown(floats, n_nodes)
            counts = _grown(counts, n_nodes)
            extras = _grown(extras, n_nodes)
            for child in range(first, ints.shape[0]):
                for j in range(N_INT_FIELDS):
                    ints[child, j] = -1
                for j in range(4):
                    extras[child, j] = -1
        threshold = low
        if midpoint:
            mid = low / 2.0 + high / 2.0
            # adjacent floats: the midpoint may round onto ``high``; keep the partition
            threshold = mid if low <= mid < high else low
        ints[node, FEATURE], ints[node, KIND] = f, NUMERIC
        ints[node, CHILD_START], ints[node, N_CHILDREN] = first, 2
        floats[node, THRESHOLD], floats[node, SCORE] = threshold, h
        extras[node, 0], extras[node, 1] = row, orientation
        keep_left, keep_right = False, False
        for side in range(2):
            child = first + side
            ints[child, KIND], ints[child, N_CHILDREN], ints[child, DEPTH] = LEAF, 0, depth + 1
            for k in range(n_classes):
                counts[child, k] = 0
            for q in range(c):
                left_q = best_left[q]
                counts[child, present[q]] = left_q if side == 0 else counts[node, present[q]] - left_q
            cc, rows, _ = _summarise(counts[child], child_present, set_pos, set_size, set_first, min_class,
                                     set_n, set_rows, extremes)
            extras[child, 2], extras[child, 3] = extremes[0], extremes[1]
            # a child is grown (and its rows moved) only if it can split
            grows = cc >= 2 and rows > 0 and (max_depth < 0 or depth + 1 < max_depth)
            if side == 0:
                keep_left = grows
            else:
                keep_right = grows
        if top + 2 > stack_node.shape[0]:
            stack_node = _grown(stack_node, top + 2)
            stack_lo = _grown(stack_lo, top + 2)
            stack_hi = _grown(stack_hi, top + 2)
        n_right = n_node - n_left
        # right child pushed first so the left subtree is grown first
        if keep_left and keep_right:
            _partition(index, rank, label, f, lo, hi, split_at, n_left, dead, side_of, buf_index, buf_rank, buf_label)
            for g in range(d):
                start = lo[g]
                stack_lo[top, g], stack_hi[top, g] = start + n_left, start + n_node
                stack_lo[top + 1, g], stack_hi[top + 1, g] = start, start + n_left
            # the split feature is not moved: its rows divide at the split
            stack_lo[top, f], stack_hi[top, f] = split_at, hi[f]
            stack_lo[top + 1, f], stack_hi[top + 1, f] = lo[f], split_at
            stack_node[top, 0], stack_node[top, 1], stack_node[top, 2] = first + 1, n_right, 1
            stack_node[top + 1, 0], stack_node[top + 1, 1], stack_node[top + 1, 2] = first, n_left, 1
            top += 2
        elif keep_left or keep_right:
            # the other child is a leaf: its cases are marked dead and taken out of
            # the tables, nothing moves; the kept child is popped next, tables valid
            if keep_left:
                _peel(index[f], split_at, hi[f], dead, rank_of, label_of, tab, tot, level_start)
                hi[f] = split_at
                kept, n_kept = first, n_left
            else:
                _peel(index[f], lo[f], split_at, dead, rank_of, label_of, tab, tot, level_start)
                lo[f] = split_at
                kept, n_kept = first + 1, n_right
            for g in range(d):
                if hi[g] - lo[g] >= 2 * n_kept + 16:  # mostly dead rows: compact them away
                    hi[g] = lo[g] + _compact(index[g], rank[g], label[g], lo[g], hi[g], dead)
                stack_lo[top, g], stack_hi[top, g] = lo[g], hi[g]
            stack_node[top, 0], stack_node[top, 1], stack_node[top, 2] = kept, n_kept, 0
            top += 1
    return (
        ints[:n_nodes].copy(), floats[:n_nodes].copy(), counts[:n_nodes].copy(),
        extras[:n_nodes, 0].copy(), extras[:n_nodes, 1].copy(), extras[:n_nodes, 2:].copy(),
    )


@njit(cache=True)
def _peel(index_row, start, end, dead, rank_of, label_of, tab, tot, level_start):
    """Mark the live cases of rows ``[start, end)`` dead and take them out of every feature's level table."""
    for p in range(start, end):
        sample = index_row[p]
        if dead[sample]:
            continue
        dead[sample] = 1
        k = label_of[sample]
        for g in range(rank_of.shape[0]):
            r = level_start[g] + rank_of[g, sample]
            tab[r, k] -= 1
            tot[r] -= 1


@njit(cache=True)
def _rebuild(tab, tot, act_row, n_act, g, base, index_row, rank_row, label_row, start, end, dead):
    """Feature ``g``'s level table and rank list from the live rows of ``[start, end)``.

    The ranks of the old list are cleared first: every non-zero count of the
    table is at one of them.
    """
    for i in range(n_act[g]):
        r = base + act_row[i]
        tot[r] = 0
        for k in range(tab.shape[1]):
            tab[r, k] = 0
    m = 0
    previous = -1
    for p in range(start, end):
        if dead[index_row[p]]:
            continue
        r = np.int64(rank_row[p])
        if r != previous:
            act_row[m] = r
            m += 1
            previous = r
        tab[base + r, label_row[p]] += 1
        tot[base + r] += 1
    n_act[g] = m


@njit(cache=True)
def _compact(index_row, rank_row, label_row, start, end, dead) -> int:
    """Move the live rows of ``[start, end)`` to its front, in order; returns their count."""
    write = start
    for p in range(start, end):
        sample = index_row[p]
        keep = 1 - np.int64(dead[sample])
        index_row[write] = sample
        rank_row[write] = rank_row[p]
        label_row[write] = label_row[p]
        write += keep
    return write - start


@njit(cache=True)
def _partition(index, rank, label, f, lo, hi, split_at, n_left, dead, side, buf_index, buf_rank, buf_label):
    """Stably partition every feature but ``f`` between two kept children, dropping dead rows.

    Feature ``g``'s live rows move to ``[lo[g], lo[g] + n_left)`` (left) and on
    (right); the split feature's rows already divide at ``split_at``.
    """
    for p in range(lo[f], split_at):
        side[index[f, p]] = 0
    for p in range(split_at, hi[f]):
        side[index[f, p]] = 1
    for g in range(index.shape[0]):
        if g == f:
            continue
        index_row, rank_row, label_row = index[g], rank[g], label[g]
        low = lo[g]
        high = 0
        for p in range(lo[g], hi[g]):
            sample = index_row[p]
            if dead[sample]:
                continue
            if side[sample]:
                buf_index[high] = sample
                buf_rank[high] = rank_row[p]
                buf_label[high] = label_row[p]
                high += 1
            else:
                index_row[low] = sample
                rank_row[low] = rank_row[p]
                label_row[low] = label_row[p]
                low += 1
        for i in range(high):
            index_row[low + i] = buf_index[i]
            rank_row[low + i] = buf_rank[i]
            label_row[low + i] = buf_label[i]
