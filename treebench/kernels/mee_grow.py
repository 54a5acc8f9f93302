"""Compiled node loop of the minimum entropy-of-error tree (paper 001).

Every feature is sorted once, at the root, into parallel rows of sample ids,
dense value ranks and class codes (:func:`presort`); a node owns a position
range in every feature's rows, where rows of cases that left it may remain,
marked dead.  MEE trees are mostly chains -- a split peels a few cases off
into a leaf, or into a small subtree, and the rest goes on -- so the work per
split is kept to what the children need:

* each feature has a *level table*: the node's class counts by value rank
  (``tab``, ``tot``) and the list of ranks in use (``act``); the search reads
  its levels and cumulative counts from the table, ``O(levels x classes)``
  per feature instead of a pass over the node's rows (memory: one count per
  distinct value of every feature and class, at most ``n x d x classes``);
* a child's class counts come from the split's cumulative counts, so a child
  that is certainly a leaf (pure, or no class set with enough cases, or at
  ``max_depth``) is finished at once: its cases are marked dead and
  subtracted from the tables (``O(cases x features)``), and the other child
  goes on with the tables and rows as they are;
* when both children can split, the smaller one gets a copy of its rows in an
  arena past the presort (gathered in order, or sorted by rank when it is
  much smaller than the node) and is subtracted like a leaf; the larger one
  goes on first, and the smaller one, when its turn comes, rebuilds the
  tables from its own rows.  Growing the larger child first changes only the
  order the nodes are made in; :func:`_depth_first_ids` renumbers them as a
  left-first depth-first growth does (children with consecutive ids).

Rows are never partitioned, only compacted when a range is mostly dead.

The search at a node is :func:`treebench.kernels.mee_scan.best_node_split`;
under ``feature_ties="random"`` :func:`treebench.kernels.mee_ties.tied_node_split`
then draws among the features tied with its winner, from a stream per node.
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
from treebench.kernels.mee_ties import child_key, tied_node_split
from treebench.kernels.sort_order import stable_order


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
        order = stable_order(column)
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
    points, min_class, min_child, printed, whole, span_low, span_high, must_lower, envelope, max_depth, midpoint,
    random_ties, tie_root,
):
    """Grow an MEE tree depth-first; the children of a node get consecutive ids.

    Parameters
    ----------
    index, rank, label:
        :func:`presort` rows ``(d, n)`` (not modified: the kernel works on a copy with an arena).
    level_values, level_start:
        The features' distinct values by rank (:func:`presort`).
    root_counts:
        Class counts of all cases (``n_classes``).
    set_pos, set_size, set_parent, set_first:
        The class-set tables (module docstring).
    xlogx:
        ``k ln k`` for ``k = 0..n``.
    points, min_class, min_child, printed, whole, span_low, span_high, must_lower, envelope:
        The MEE parameters (see :func:`treebench.kernels.mee.best_mee_split`).
    max_depth:
        -1 for no limit.
    midpoint:
        Thresholds halfway to the next observed value instead of the observed one.
    random_ties, tie_root:
        ``feature_ties="random"``: after each node's search, one of the features
        tied with its winner is drawn (:func:`treebench.kernels.mee_ties.tied_node_split`)
        from the node's stream, the root's being ``tie_root[0]`` (a one-element
        uint64 array; ignored when ``random_ties`` is false: the ``first`` rule).

    Returns
    -------
    int_nodes, float_nodes, counts, split_rows, orientations, extremes
        Node arrays (see :mod:`treebench.kernels.layout`), the table row of each
        split's class set (-1 for a leaf), its orientation (-1 for a leaf) and
        each node's smallest and largest class-set size (-1 with fewer than two classes).
    """
    d, n = index.shape
    n_classes = root_counts.shape[0]
    # rows: the presort in [0, n), then an arena where the smaller child of a
    # split gets a sorted copy of its rows (a stack: freed when its subtree is done)
    index, rank, label = _with_arena(index, rank, label, n + n // 2 + 16)  # grown when needed
    arena_top = n
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
    keys = np.empty(n, np.int64)
    child_present = np.zeros(n_classes, np.int64)
    # feature_ties="random": each pending node's stream state, the current one, scratch
    stack_key = np.zeros((64, 1), np.uint64)
    state = np.zeros(1, np.uint64)
    key_scratch = np.zeros(1, np.uint64)
    lefts_kept = np.zeros((3, n_classes), np.int64)
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
    # pending nodes: id, case count, how it starts (0 tables valid, 1 rebuild them,
    # 2 a copied child: revive its cases, then rebuild), the arena's top, and
    # each feature's row range
    stack_node = np.zeros((64, 4), np.int64)
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
    stack_node[0, 0], stack_node[0, 1], stack_node[0, 2], stack_node[0, 3] = 0, n, 1, arena_top
    for g in range(d):
        stack_lo[0, g], stack_hi[0, g] = 0, n
    stack_key[0, 0] = tie_root[0]
    top = 1
    while top > 0:
        top -= 1
        node, n_node, fresh, arena_top = stack_node[top, 0], stack_node[top, 1], stack_node[top, 2], stack_node[top, 3]
        node_key = stack_key[top, 0]
        for g in range(d):
            lo[g], hi[g] = stack_lo[top, g], stack_hi[top, g]
        if fresh == 2:
            for p in range(lo[0], hi[0]):
                dead[index[0, p]] = 0
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
            min_child, printed, whole, span_low, span_high, must_lower, envelope, running, cum, lefts, levels,
            level_rank, grid_level, cum_grid, left_grid, s_grid, block_lo, block_hi, s_first, s_last, unsplit_of,
            survives, best_left,
        )
        if row < 0:
            continue  # every curve is concave
        if random_ties:
            state[0] = node_key
            h, row, f, orientation, low, high, n_left, split_at = tied_node_split(
                h, row, f, orientation, low, high, n_left, split_at, state,
                tab, tot, act, n_act, rank, level_values, level_start, lo, hi, n_node, present, c,
                set_pos, set_size, set_parent, first_row, set_first[c + 1], set_rows, n_rows, set_n, xlogx, points,
                min_child, printed, whole, span_low, span_high, must_lower, envelope, running, cum, lefts, levels,
                level_rank, grid_level, cum_grid, left_grid, s_grid, block_lo, block_hi, s_first, s_last, unsplit_of,
                survives, best_left, lefts_kept,
            )
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
            stack_key = _grown(stack_key, top + 2)
        left_key, right_key, kept_key = np.uint64(0), np.uint64(0), np.uint64(0)
        if random_ties:
            left_key, right_key = child_key(node_key, 0, key_scratch), child_key(node_key, 1, key_scratch)
        n_right = n_node - n_left
        if keep_left and keep_right:
            # the smaller child is copied to the arena and grown after the larger
            # one, which goes on like a chain (the ids are put in order at the end)
            small_left = n_left <= n_right
            if small_left:
                start, end, small, n_small, big, n_big = lo[f], split_at, first, n_left, first + 1, n_right
            else:
                start, end, small, n_small, big, n_big = split_at, hi[f], first + 1, n_right, first, n_left
            if arena_top + n_small > index.shape[1]:
                index, rank, label = _with_arena(index, rank, label, 2 * (arena_top + n_small))
            _copy_rows(index, rank, label, f, lo, hi, start, end, n_small, arena_top, dead, side_of, keys, rank_of)
            _peel(index[f], start, end, dead, rank_of, label_of, tab, tot, level_start)
            if small_left:
                lo[f] = split_at
            else:
                hi[f] = split_at
            stack_node[top, 0], stack_node[top, 1], stack_node[top, 2] = small, n_small, 2
            stack_node[top, 3] = arena_top + n_small
            stack_key[top, 0] = left_key if small_left else right_key
            for g in range(d):
                stack_lo[top, g], stack_hi[top, g] = arena_top, arena_top + n_small
            arena_top += n_small
            top += 1
            kept, n_kept = big, n_big
            kept_key = right_key if small_left else left_key
        elif keep_left or keep_right:
            # the other child is a leaf: its cases are marked dead and taken out of
            # the tables, nothing moves
            if keep_left:
                _peel(index[f], split_at, hi[f], dead, rank_of, label_of, tab, tot, level_start)
                hi[f] = split_at
                kept, n_kept = first, n_left
                kept_key = left_key
            else:
                _peel(index[f], lo[f], split_at, dead, rank_of, label_of, tab, tot, level_start)
                lo[f] = split_at
                kept, n_kept = first + 1, n_right
                kept_key = right_key
        else:
            continue
        # the kept (or larger) child is popped next, its tables valid
        for g in range(d):
            if hi[g] - lo[g] >= 2 * n_kept + 16:  # mostly dead rows: compact them away
                hi[g] = lo[g] + _compact(index[g], rank[g], label[g], lo[g], hi[g], dead)
            stack_lo[top, g], stack_hi[top, g] = lo[g], hi[g]
        stack_node[top, 0], stack_node[top, 1], stack_node[top, 2], stack_node[top, 3] = kept, n_kept, 0, arena_top
        stack_key[top, 0] = kept_key
        top += 1
    _depth_first_ids(ints, floats, counts, extras, n_nodes)
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
def _with_arena(index, rank, label, width):
    """The rows with room for ``width`` positions per feature, their first ones kept."""
    d, old = index.shape
    bigger_index = np.empty((d, width), index.dtype)
    bigger_rank = np.empty((d, width), rank.dtype)
    bigger_label = np.empty((d, width), label.dtype)
    for g in range(d):
        for p in range(min(old, width)):
            bigger_index[g, p] = index[g, p]
            bigger_rank[g, p] = rank[g, p]
            bigger_label[g, p] = label[g, p]
    return bigger_index, bigger_rank, bigger_label


@njit(cache=True)
def _copy_rows(index, rank, label, f, lo, hi, start, end, n_small, to, dead, mark, keys, rank_of):
    """Copy the live cases of the split feature's rows ``[start, end)`` to ``[to, to + n_small)`` of every feature.

    The split feature's rows are copied as they are; another feature's are
    gathered from the node's range in order, or, when the child is much
    smaller than the range, sorted by rank (the order within a rank does not
    matter: every reader goes by rank).
    """
    w = to
    for p in range(start, end):
        sample = index[f, p]
        if dead[sample]:
            continue
        index[f, w], rank[f, w], label[f, w] = sample, rank[f, p], label[f, p]
        mark[sample] = 1
        w += 1
    for g in range(index.shape[0]):
        if g == f:
            continue
        if 4 * n_small < hi[g] - lo[g]:
            width = index.shape[1]
            for i in range(n_small):
                keys[i] = np.int64(rank_of[g, index[f, to + i]]) * width + i
            _heap_sort(keys, n_small)
            for i in range(n_small):
                at = to + keys[i] % width
                sample = index[f, at]
                index[g, to + i] = sample
                rank[g, to + i] = rank_of[g, sample]
                label[g, to + i] = label[f, at]
        else:
            w = to
            for p in range(lo[g], hi[g]):
                sample = index[g, p]
                if mark[sample] and not dead[sample]:
                    index[g, w], rank[g, w], label[g, w] = sample, rank[g, p], label[g, p]
                    w += 1
    for i in range(n_small):
        mark[index[f, to + i]] = 0


@njit(cache=True)
def _heap_sort(keys, count):
    """Sort ``keys[:count]`` ascending in place (a heap sort: compiles much faster than ``np.sort``)."""
    for root in range(count // 2 - 1, -1, -1):
        _sift_down(keys, root, count)
    for end in range(count - 1, 0, -1):
        keys[0], keys[end] = keys[end], keys[0]
        _sift_down(keys, 0, end)


@njit(cache=True, inline="always")
def _sift_down(keys, root, end):
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and keys[child + 1] > keys[child]:
            child += 1
        if keys[root] >= keys[child]:
            return
        keys[root], keys[child] = keys[child], keys[root]
        root = child


@njit(cache=True)
def _depth_first_ids(ints, floats, counts, extras, n_nodes):
    """Renumber the nodes as a left-first depth-first growth numbers them.

    A split's children get the next two ids when it is split, and the left
    subtree is split before the right one; the node loop grows the larger
    child first, so its ids are put in this order here.
    """
    new_id = np.zeros(n_nodes, np.int64)
    pending = np.zeros(n_nodes, np.int64)
    top = 1
    next_id = 1
    while top > 0:
        top -= 1
        node = pending[top]
        if ints[node, N_CHILDREN] == 0:
            continue
        left = ints[node, CHILD_START]
        new_id[left], new_id[left + 1] = next_id, next_id + 1
        next_id += 2
        pending[top], pending[top + 1] = left + 1, left  # the left subtree first
        top += 2
    old_ints, old_floats, old_counts, old_extras = (
        ints[:n_nodes].copy(), floats[:n_nodes].copy(), counts[:n_nodes].copy(), extras[:n_nodes].copy()
    )
    for node in range(n_nodes):
        to = new_id[node]
        for j in range(ints.shape[1]):
            ints[to, j] = old_ints[node, j]
        if old_ints[node, N_CHILDREN] > 0:
            ints[to, CHILD_START] = new_id[old_ints[node, CHILD_START]]
        for j in range(floats.shape[1]):
            floats[to, j] = old_floats[node, j]
        for j in range(counts.shape[1]):
            counts[to, j] = old_counts[node, j]
        for j in range(extras.shape[1]):
            extras[to, j] = old_extras[node, j]
