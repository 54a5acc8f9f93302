"""Compiled O-ΠTree (paper 000, §4.2): a tree revised one example at a time.

Every leaf keeps its examples as the batch presort of them
(:mod:`treebench.kernels.online_rows`), so adding one costs a binary search
and a shift per feature, no sort.  After the insertion the leaf's best split
is found by the batch builder's own node search
(:func:`treebench.kernels.node_split.search_node`) on the leaf's rows, with
the histogram allowance the builder would give a node of that size, so the
tree is the one that re-growing a stump on the leaf's examples at every
arrival gives.  Skipped exactly, without a search:
a leaf at ``max_depth``, smaller than ``min_samples_split`` (or than two
leaves), or pure.

The tree arrays have the layout of :mod:`treebench.kernels.layout`, in
growing buffers; :func:`feed` returns them (and every other buffer it may
have reallocated).  Integer counts only (online trees take no weights).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from treebench.kernels import layout as L
from treebench.kernels.node_split import (
    BEST_CATEGORY,
    BEST_LEFT,
    CANDIDATE_BEST,
    SCRATCH,
    histogram_rows,
    search_node,
    split_workspace,
)
from treebench.kernels.online_rows import (
    MIN_CAPACITY,
    SEG_CAP,
    SEG_SIZE,
    SEG_START,
    copy_range,
    insert_example,
    new_arena,
    rerank,
)
from treebench.kernels.possibilistic_bound import x_log_x_table
from treebench.kernels.scan import threshold_at
from treebench.kernels.scoring import (
    POSSIBILISTIC,
    child_mass,
    has_bounded_scan,
    is_whole_split,
    make_table,
    node_impurity,
    reported_node_value,
)
from treebench.kernels.traversal import leaf_of

#: Entries of ``config`` (int64): the tree's fixed settings.
CFG_CID = 0
CFG_AVERAGE_RULE = 1
CFG_STRICT = 2
CFG_MAX_DEPTH = 3  # -1: unlimited
CFG_MIN_SPLIT = 4
CFG_MIN_LEAF = 5
CFG_NOMINAL_BINARY = 6
CFG_MIDPOINT = 7
CFG_RANDOM_TIES = 8  # 1: tied features drawn from the tie stream (feature_ties="random"); 0: the first
N_CONFIG = 9

#: Entries of ``meta`` (int64): the growing state's counters.
META_NODES = 0
META_CATMAP = 1
META_ARENA_USED = 2
META_SEEN = 3
META_SPLITS = 4
N_META = 5


@njit(cache=True, no_cfunc_wrapper=True)
def _grown(arr: np.ndarray, needed: int, fill) -> np.ndarray:
    """``arr`` with at least ``needed`` rows (doubling), new rows set to ``fill``."""
    if needed <= arr.shape[0]:
        return arr
    new = np.empty((max(needed, 2 * arr.shape[0]),) + arr.shape[1:], arr.dtype)
    new[: arr.shape[0]] = arr
    new[arr.shape[0] :] = fill
    return new


@njit(cache=True, no_cfunc_wrapper=True)
def _reserve_ranges(arena, segments, int_nodes, n_nodes, meta, room):
    """First position of ``room`` free positions in every arena row; compacts or grows the arena when full.

    Compaction copies every leaf's rows to the front of a new arena (leaves
    keep their room), dropping the ranges that split leaves left behind.
    """
    values, ranks, labels, index = arena
    used = meta[META_ARENA_USED]
    if used + room <= values.shape[1]:
        meta[META_ARENA_USED] = used + room
        return arena, used
    live = 0
    for node in range(n_nodes):
        if int_nodes[node, L.KIND] == L.LEAF:
            live += segments[node, SEG_CAP]
    capacity = max(2 * (live + room), 64)
    new = new_arena(values.shape[0], capacity)
    at = 0
    for node in range(n_nodes):
        if int_nodes[node, L.KIND] != L.LEAF:
            continue
        start = segments[node, SEG_START]
        size = segments[node, SEG_SIZE]
        for f in range(values.shape[0]):
            copy_range(values, new[0], f, start, at, size)
            copy_range(ranks, new[1], f, start, at, size)
            copy_range(labels, new[2], f, start, at, size)
            copy_range(index, new[3], f, start, at, size)
        segments[node, SEG_START] = at
        at += segments[node, SEG_CAP]
    meta[META_ARENA_USED] = at + room
    return new, at


#: Added to every gain ceiling (and at every step of it): covers the tie tolerance of the
#: scans' best gains and the rounding of the masses, both orders of magnitude smaller.
CEILING_SLACK = 1e-9


@njit(cache=True, no_cfunc_wrapper=True)
def _gain_ceiling(ceiling, old_mass, parent_mass, old_counts, label, size, params, table, scratch):
    """A bound on every candidate gain of a leaf after one example (class ``label``) joined it.

    ``ceiling`` bounds every candidate gain before, when the leaf held
    ``n = size - 1`` examples with class counts ``old_counts`` and parent mass
    ``old_mass`` (``M1 = n * H*`` at the node's own level); ``parent_mass`` is
    ``M1`` now.  A candidate of the grown leaf is either an old one with the
    example added to one child, or the example alone against the old leaf
    (a value beyond all others, the first NaN, a new category).  For the
    first kind, ``n * gain = M1(parent) - M2(left) - M2(right)`` gives::

        gain' = (n * gain + (M1(parent') - M1(parent)) - (M2(child') - M2(child))) / (n + 1)

    and a child's mass grows by at least ``1/k`` when an example joins it
    (the ``log 2`` term of the whole universe adds exactly ``1/k``; every other
    term of the cumulative entropy, ``F(C, s) = s CE(C/2s, pi(C, s)/2)``, does
    not decrease when ``s`` grows with or without ``C``: checked on every
    ``C <= s <= 3000`` for the confidence levels of a grid, and by
    tests/test_online_kernel.py on random count rows).  The second kind is
    scored exactly.  Multiway splits gaining a branch change their
    quantile; the caller searches then.
    """
    k = old_counts.shape[0]
    n = size - 1
    cid = np.int64(POSSIBILISTIC)
    derived = (n * ceiling + (parent_mass - old_mass) - 1.0 / k) / size + CEILING_SLACK
    # the new example alone against the old leaf
    alone = np.zeros(k, np.int64)
    alone[label] = 1
    mass = child_mass(cid, params, table, old_counts, np.int64(n), np.int64(2), scratch) + child_mass(
        cid, params, table, alone, np.int64(1), np.int64(2), scratch
    )
    single = (parent_mass - mass) / size + CEILING_SLACK
    return max(derived, single)


@njit(cache=True, no_cfunc_wrapper=True)
def feed(
    X: np.ndarray,
    y: np.ndarray,
    int_nodes: np.ndarray,
    float_nodes: np.ndarray,
    counts: np.ndarray,
    parents: np.ndarray,
    catmap: np.ndarray,
    segments: np.ndarray,
    levels: np.ndarray,
    ceilings: np.ndarray,
    arena: tuple,
    destination: np.ndarray,
    buffers: tuple,
    meta: np.ndarray,
    is_nominal: np.ndarray,
    n_categories: np.ndarray,
    config: np.ndarray,
    params: np.ndarray,
    min_gain: float,
    tie_stream: np.ndarray,
    whole: Any = None,
):
    """Add the encoded rows of ``X`` (m, d) with label codes ``y`` one at a time, in order.

    Every argument from ``int_nodes`` to ``buffers`` is state that may be
    reallocated: all of it is returned, in that order.  ``ceilings`` (one row
    per node) holds, for the possibilistic criterion, a leaf's bound on the
    gain of every candidate split (``inf``: unknown) and the parent mass it
    was computed with (see :func:`_gain_ceiling`).  ``meta`` (int64,
    :data:`N_META`) holds the counters, updated in place.  ``buffers`` holds
    the scan tables, grown with the largest leaf: the criterion's table
    (:func:`treebench.kernels.scoring.make_table`), the bound's ``x ln x``
    table, the bound buffer and the histogram of the few-values scan.
    ``tie_stream`` (uint64, one element) is the random tie-break's stream
    (:mod:`treebench.kernels.ties`), advanced in place; read only with
    ``config[CFG_RANDOM_TIES]``.  ``whole``: ``None``, or the marker of a criterion scored whole
    (as in :func:`treebench.kernels.induction.build`).
    """
    n_features = X.shape[1]
    k = counts.shape[1]
    max_cats = np.int64(1)  # not the literal 1: split_workspace would compile once more for it
    for f in range(n_features):
        if is_nominal[f] and n_categories[f] > max_cats:
            max_cats = n_categories[f]
    work = split_workspace(n_features, k, max_cats, None)
    scratch = work[SCRATCH]
    features = np.arange(n_features).astype(np.int32)  # a leaf searches every feature
    kept = np.empty(n_features, np.int32)
    no_masses = np.empty((1, 3))  # the label-mass sweeps' rows (batch belief trees only)
    table, bound_table, bounds, histogram = buffers
    cid = config[CFG_CID]
    if is_whole_split(cid) != (whole is not None):
        raise ValueError("the whole-split marker must be given for a criterion scored whole, and only for one")
    max_depth = config[CFG_MAX_DEPTH]
    min_split = config[CFG_MIN_SPLIT]
    min_leaf = config[CFG_MIN_LEAF]
    rules = (
        min_leaf, config[CFG_NOMINAL_BINARY] != 0, config[CFG_AVERAGE_RULE] != 0, config[CFG_STRICT] != 0, min_gain,
        config[CFG_RANDOM_TIES] != 0, whole,
    )
    child_counts = np.zeros((max(max_cats, 2), k), np.int64)
    sizes = np.zeros(max(max_cats, 2), np.int64)
    old_counts = np.zeros(k, np.int64)
    # the bound that skips searches holds for the possibilistic gain with every cut a candidate
    bounded = has_bounded_scan(cid) and min_leaf == 1 and config[CFG_STRICT] != 0
    for row in range(X.shape[0]):
        x = X[row]
        label = y[row]
        n_nodes = meta[META_NODES]
        sample = meta[META_SEEN]
        meta[META_SEEN] = sample + 1
        destination = _grown(destination, sample + 1, 0)
        leaf = leaf_of(X, row, int_nodes, float_nodes, catmap, n_categories)
        node = leaf
        while node >= 0:  # the example counts in every node of its path
            counts[node, label] += 1
            node = parents[node]
        # -- insert it into the leaf's sorted rows --------------------------------
        size = segments[leaf, SEG_SIZE]
        if size == segments[leaf, SEG_CAP]:  # full: move to a range twice as large
            room = max(2 * size, MIN_CAPACITY)
            arena, start = _reserve_ranges(arena, segments, int_nodes, n_nodes, meta, room)
            old_start = segments[leaf, SEG_START]  # compaction may have moved it
            for f in range(n_features):
                copy_range(arena[0], arena[0], f, old_start, start, size)
                copy_range(arena[1], arena[1], f, old_start, start, size)
                copy_range(arena[2], arena[2], f, old_start, start, size)
                copy_range(arena[3], arena[3], f, old_start, start, size)
            segments[leaf, SEG_START] = start
            segments[leaf, SEG_CAP] = room
        start = segments[leaf, SEG_START]
        values, ranks, labels, index = arena
        new_branch = False  # a category new to the leaf changes its multiway split's branch count
        for f in range(n_features):
            new = insert_example(
                values, ranks, labels, index, f, start, size, levels[leaf], is_nominal[f], x[f], label, sample
            )
            new_branch |= new and is_nominal[f] and config[CFG_NOMINAL_BINARY] == 0
        size += 1
        segments[leaf, SEG_SIZE] = size
        # -- the split search, unless nothing could be split ----------------------
        depth = int_nodes[leaf, L.DEPTH]
        ceiling = ceilings[leaf, 0]
        ceilings[leaf, 0] = np.inf  # unknown unless set below
        if max_depth >= 0 and depth >= max_depth:
            continue
        if size < min_split or size < 2 * min_leaf:
            continue
        present = 0
        for i in range(k):
            if counts[leaf, i] > 0:
                present += 1
        if present < 2:
            continue
        if bounds.shape[0] < size:  # the scans read their tables up to the node's size: grow them
            table = make_table(cid, params, 2 * size)
            bound_table = x_log_x_table(4 * size if has_bounded_scan(cid) else 0)
            bounds = np.empty(2 * size, np.float32)
            histogram = np.empty((histogram_rows(cid, 2 * size, k), k), np.int32)
        if bounded:
            parent_mass = child_mass(cid, params, table, counts[leaf], np.int64(size), np.int64(1), scratch)
            if ceiling < np.inf and not new_branch:
                for i in range(k):
                    old_counts[i] = counts[leaf, i]
                old_counts[label] -= 1
                ceiling = _gain_ceiling(
                    ceiling, ceilings[leaf, 1], parent_mass, old_counts, label, size, params, table, scratch
                )
                if ceiling <= min_gain:  # no candidate can be accepted: no search
                    ceilings[leaf, 0] = ceiling
                    ceilings[leaf, 1] = parent_mass
                    continue
        # the batch builder's search at a node of the leaf's rows (a stump grown on them): its histogram
        # scan may use as many rows as the builder allocates for that many examples
        parent = counts[leaf]
        chosen, best, _ = search_node(
            index, ranks, labels, None, start, start + size, levels[leaf], parent, size,
            node_impurity(cid, params, table, parent, size, scratch), features, n_features, kept, is_nominal, cid,
            params, table, rules, histogram, histogram_rows(cid, size, k), bound_table, bounds, None, no_masses,
            no_masses,
            tie_stream, work,
        )
        if chosen < 0:
            if bounded:
                highest = -np.inf
                for f in range(n_features):
                    highest = max(highest, work[CANDIDATE_BEST][f])  # every feature's best gain
                ceilings[leaf, 0] = highest + CEILING_SLACK
                ceilings[leaf, 1] = parent_mass
            continue
        # -- graft the split: the leaf becomes its node, its rows go to new leaves ----
        f = chosen
        n_left = work[BEST_LEFT][f]
        category = work[BEST_CATEGORY][f]
        threshold = 0.0
        n_children = 2
        default_child = -1
        if not is_nominal[f]:
            kind = L.NUMERIC
            last_left = start + n_left - 1
            threshold = threshold_at(
                values, False, np.int64(f), last_left, last_left + 1, ranks[f, last_left + 1] == levels[leaf, f],
                config[CFG_MIDPOINT] != 0,
            )
            for p in range(start, start + size):
                destination[index[f, p]] = 0 if p - start < n_left else 1
        elif config[CFG_NOMINAL_BINARY] != 0:
            kind = L.NOMINAL_BINARY
            for p in range(start, start + size):
                destination[index[f, p]] = 0 if ranks[f, p] == category else 1
        else:
            kind = L.NOMINAL_MULTIWAY
            n_children = 0
            previous = -1
            for p in range(start, start + size):
                code = np.int64(ranks[f, p])
                if code != previous:
                    n_children += 1
                    previous = code
                destination[index[f, p]] = n_children - 1
        for j in range(n_children):
            child_counts[j, :] = 0
            sizes[j] = 0
        for p in range(start, start + size):
            j = destination[index[f, p]]
            child_counts[j, labels[f, p]] += 1
            sizes[j] += 1
        if kind == L.NOMINAL_MULTIWAY:
            width = n_categories[f]
            n_catmap = meta[META_CATMAP]
            catmap = _grown(catmap, n_catmap + width, -1)
            catmap[n_catmap : n_catmap + width] = -1
            largest = 0  # the heaviest child takes the categories unseen here
            j = -1
            previous = -1
            for p in range(start, start + size):
                code = np.int64(ranks[f, p])
                if code != previous:
                    j += 1
                    previous = code
                    catmap[n_catmap + code] = j
                    if sizes[j] > sizes[largest]:
                        largest = j
            int_nodes[leaf, L.CATMAP_START] = n_catmap
            default_child = largest
            meta[META_CATMAP] = n_catmap + width
        first = n_nodes
        n_nodes += n_children
        int_nodes = _grown(int_nodes, n_nodes, -1)
        float_nodes = _grown(float_nodes, n_nodes, 0.0)
        counts = _grown(counts, n_nodes, 0)
        parents = _grown(parents, n_nodes, -1)
        segments = _grown(segments, n_nodes, 0)
        levels = _grown(levels, n_nodes, 0)
        ceilings = _grown(ceilings, n_nodes, np.inf)
        meta[META_NODES] = n_nodes
        # the children's ranges (the leaf's own rows stay readable: it is still a leaf here)
        room = 0
        for j in range(n_children):
            room += max(2 * sizes[j], MIN_CAPACITY)
        arena, at = _reserve_ranges(arena, segments, int_nodes, first, meta, room)
        values, ranks, labels, index = arena
        start = segments[leaf, SEG_START]
        for j in range(n_children):
            child = first + j
            int_nodes[child, L.KIND] = L.LEAF
            int_nodes[child, L.DEPTH] = depth + 1
            parents[child] = leaf
            counts[child, :] = child_counts[j]
            leaf_impurity = node_impurity(cid, params, table, child_counts[j], sizes[j], scratch)
            float_nodes[child, L.IMPURITY] = reported_node_value(cid, leaf_impurity)
            segments[child, SEG_START] = at
            segments[child, SEG_CAP] = max(2 * sizes[j], MIN_CAPACITY)
            segments[child, SEG_SIZE] = sizes[j]
            at += segments[child, SEG_CAP]
        # stable partition of every feature's row into the children's ranges
        for g in range(n_features):
            for j in range(n_children):
                sizes[j] = 0
            for p in range(start, start + size):
                sample = index[g, p]
                j = destination[sample]
                q = segments[first + j, SEG_START] + sizes[j]
                sizes[j] += 1
                values[g, q] = values[g, p]
                ranks[g, q] = ranks[g, p]
                labels[g, q] = labels[g, p]
                index[g, q] = sample
            for j in range(n_children):
                child = first + j
                if is_nominal[g]:
                    levels[child, g] = levels[leaf, g]
                else:
                    levels[child, g] = rerank(values, ranks, g, segments[child, SEG_START], sizes[j])
        int_nodes[leaf, L.FEATURE] = f
        int_nodes[leaf, L.KIND] = kind
        int_nodes[leaf, L.CHILD_START] = first
        int_nodes[leaf, L.N_CHILDREN] = n_children
        if kind == L.NOMINAL_BINARY:
            int_nodes[leaf, L.CATEGORY] = category
        if kind == L.NOMINAL_MULTIWAY:
            int_nodes[leaf, L.DEFAULT_CHILD] = default_child
        float_nodes[leaf, L.THRESHOLD] = threshold
        float_nodes[leaf, L.SCORE] = best
        segments[leaf, SEG_SIZE] = 0
        segments[leaf, SEG_CAP] = 0
        meta[META_SPLITS] += 1
    return (
        int_nodes, float_nodes, counts, parents, catmap, segments, levels, ceilings, arena, destination,
        (table, bound_table, bounds, histogram),
    )
