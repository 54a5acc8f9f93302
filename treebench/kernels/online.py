"""Compiled O-ΠTree (paper 000, §4.2): a tree revised one example at a time.

Every leaf keeps its examples as the batch presort of them
(:mod:`treebench.kernels.online_rows`), so adding one costs a binary search
and a shift per feature, no sort.  After the insertion the leaf's best split
is searched exactly as the batch builder searches a node
(:func:`treebench.kernels.induction.build`, one level deep): the same scans
of :mod:`treebench.kernels.scan` and
:mod:`treebench.kernels.possibilistic_bound` on the same rows, the same
choice of scan per feature, the same feature choice, tie-breaking and
acceptance rule, so the tree is the one that re-growing a stump on the
leaf's examples at every arrival gives.  Skipped exactly, without a search:
a leaf at ``max_depth``, smaller than ``min_samples_split`` (or than two
leaves), or pure.

The tree arrays have the layout of :mod:`treebench.kernels.layout`, in
growing buffers; :func:`feed` returns them (and every other buffer it may
have reallocated).  Integer counts only (online trees take no weights).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebench.kernels.layout import (
    CATEGORY,
    CATMAP_START,
    CHILD_START,
    DEFAULT_CHILD,
    DEPTH,
    FEATURE,
    IMPURITY,
    KIND,
    LEAF,
    N_CHILDREN,
    NOMINAL_BINARY,
    NOMINAL_MULTIWAY,
    NUMERIC,
    SCORE,
    THRESHOLD,
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
from treebench.kernels.possibilistic_bound import (
    BAND,
    FEW_CANDIDATES,
    bound_workspace,
    scan_possibilistic_bounded,
    x_log_x_table,
)
from treebench.kernels.scan import (
    better,
    scan_numeric,
    scan_numeric_histogram,
    tabulate_categories,
    take_candidate,
    threshold_at,
    ties,
)
from treebench.kernels.scoring import (
    POSSIBILISTIC,
    child_mass,
    entropy_bits,
    final_score,
    has_bounded_scan,
    has_tie_break,
    make_table,
    node_impurity,
    reported_node_value,
)
from treebench.kernels.ties import pick_tied
from treebench.kernels.tolerances import TIE_TOLERANCE
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


@njit(cache=True)
def _grown(arr: np.ndarray, needed: int, fill) -> np.ndarray:
    """``arr`` with at least ``needed`` rows (doubling), new rows set to ``fill``."""
    if needed <= arr.shape[0]:
        return arr
    new = np.empty((max(needed, 2 * arr.shape[0]),) + arr.shape[1:], arr.dtype)
    new[: arr.shape[0]] = arr
    new[arr.shape[0] :] = fill
    return new


@njit(cache=True)
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
        if int_nodes[node, KIND] == LEAF:
            live += segments[node, SEG_CAP]
    capacity = max(2 * (live + room), 64)
    new = new_arena(values.shape[0], capacity)
    at = 0
    for node in range(n_nodes):
        if int_nodes[node, KIND] != LEAF:
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


@njit(cache=True)
def _best_split(
    values, ranks, labels, index, start, size, levels, parent, is_nominal, n_categories, config, params,
    min_gain, table, bound_table, bounds, histogram, work, tie_stream,
):
    """The split the batch builder makes at a node holding the leaf's rows ``[start, start + size)``.

    Returns ``(feature, score, n_left, category)``; ``feature = -1`` when the
    builder leaves the node a leaf (no candidate, or the criterion rejects
    the best one).  The body is the builder's feature loop and choice
    (:func:`treebench.kernels.induction.build`), on one node.
    """
    (left, right, scratch, cat_counts, cat_sizes, cat_weights, present, child_weights, bound_work,
     bound_block, tie_best, candidate_best, split_best, best_left, best_category, best_w_left) = work
    cid = config[CFG_CID]
    min_samples_leaf = config[CFG_MIN_LEAF]
    nominal_binary = config[CFG_NOMINAL_BINARY] != 0
    n_features = values.shape[0]
    k = parent.shape[0]
    end = start + size
    total = size
    impurity = node_impurity(cid, params, table, parent, total, scratch)
    tie_break = has_tie_break(cid, params)
    # the builder's histogram rows for a node of this size decide which scan a column gets
    histogram_rows = size // (2 * k) + 1
    candidate_best[:] = -np.inf
    split_best[:] = -np.inf
    tie_best[:] = -np.inf
    parent_entropy = entropy_bits(parent, total) if tie_break else 0.0
    for f in range(n_features):
        if ranks[f, start] == ranks[f, end - 1]:
            continue
        if not is_nominal[f]:
            span = np.int64(ranks[f, end - 1]) - np.int64(ranks[f, start]) + 1
            few_values = span * k * 2 <= size or (has_bounded_scan(cid) and span <= min(FEW_CANDIDATES, histogram_rows))
            if few_values:
                gain, n_left, tie, w_left = scan_numeric_histogram(
                    ranks[f], labels[f], start, end, levels[f], parent, impurity, cid, params, table,
                    min_samples_leaf, left, right, scratch, histogram, tie_break, parent_entropy,
                )
            elif has_bounded_scan(cid):
                gain, n_left, tie, w_left = scan_possibilistic_bounded(
                    ranks[f], labels[f], start, end, levels[f], parent, impurity, params, table,
                    min_samples_leaf, left, right, scratch, bound_table, bounds, bound_work, bound_block, BAND,
                )
            else:
                gain, n_left, tie, w_left = scan_numeric(
                    ranks[f], labels[f], index[f], None, start, end, levels[f], parent, total, impurity, cid,
                    params, table, min_samples_leaf, left, right, scratch, tie_break, parent_entropy,
                )
            if n_left > 0:
                child_weights[0] = w_left
                child_weights[1] = total - w_left
                tie_best[f] = tie
                candidate_best[f] = gain
                split_best[f] = final_score(cid, params, gain, child_weights, np.int64(2), total)
                best_left[f] = n_left
            continue
        r = tabulate_categories(
            ranks[f], labels[f], index[f], None, start, end, cat_counts, cat_sizes, cat_weights, present,
        )
        if r < 2:
            continue
        if not nominal_binary:
            valid = True
            mass = 0.0
            for j in range(r):
                code = present[j]
                child_weights[j] = cat_weights[code]
                if cat_sizes[code] < min_samples_leaf:
                    valid = False
                mass += child_mass(cid, params, table, cat_counts[code], cat_weights[code], r, scratch)
            if valid:
                gain = impurity - mass / total
                if tie_break:
                    weighted = 0.0
                    for j in range(r):
                        code = present[j]
                        weighted += cat_weights[code] * entropy_bits(cat_counts[code], cat_weights[code])
                    tie_best[f] = parent_entropy - weighted / total
                candidate_best[f] = gain
                split_best[f] = final_score(cid, params, gain, child_weights, r, total)
            continue
        best = -np.inf
        best_tie = -np.inf
        for j in range(r):
            code = present[j]
            n_left = cat_sizes[code]
            if n_left < min_samples_leaf or size - n_left < min_samples_leaf:
                continue
            w_left = cat_weights[code]
            for i in range(k):
                left[i] = cat_counts[code, i]
                right[i] = parent[i] - left[i]
            mass = child_mass(cid, params, table, left, w_left, np.int64(2), scratch) + child_mass(
                cid, params, table, right, total - w_left, np.int64(2), scratch
            )
            gain = impurity - mass / total
            take, tie = take_candidate(gain, best, best_tie, tie_break, parent_entropy, left, right, w_left, total)
            if take:
                best = gain
                best_tie = tie
                best_category[f] = code
                best_left[f] = n_left
                best_w_left[f] = w_left
        if best > -np.inf:
            child_weights[0] = best_w_left[f]
            child_weights[1] = total - best_w_left[f]
            tie_best[f] = best_tie
            candidate_best[f] = best
            split_best[f] = final_score(cid, params, best, child_weights, np.int64(2), total)

    # -- choose the feature (the builder's rule) --------------------------------
    n_usable = 0
    average = 0.0
    for f in range(n_features):
        if split_best[f] > -np.inf:
            n_usable += 1
            average += candidate_best[f]
    if n_usable == 0:
        return -1, 0.0, 0, 0
    average /= n_usable
    chosen = -1
    best = -np.inf
    for f in range(n_features):
        if split_best[f] == -np.inf:
            continue
        if config[CFG_AVERAGE_RULE] != 0 and candidate_best[f] < average - TIE_TOLERANCE * max(1.0, abs(average)):
            continue
        if (
            chosen < 0
            or better(split_best[f], best)
            or (tie_break and ties(split_best[f], best) and better(tie_best[f], tie_best[chosen]))
        ):
            chosen = f
            best = split_best[f]
    if chosen < 0:
        return -1, 0.0, 0, 0
    if config[CFG_STRICT] != 0:
        if not best > min_gain:
            return -1, 0.0, 0, 0
    elif best < min_gain - TIE_TOLERANCE * max(1.0, abs(min_gain)):
        return -1, 0.0, 0, 0
    if config[CFG_RANDOM_TIES] != 0:  # as the builder: a draw only for an accepted split
        chosen = pick_tied(
            chosen, candidate_best, split_best, tie_best, tie_break, config[CFG_AVERAGE_RULE] != 0, tie_stream
        )
        best = split_best[chosen]
    return chosen, best, best_left[chosen], best_category[chosen]


#: Added to every gain ceiling (and at every step of it): covers the tie tolerance of the
#: scans' best gains and the rounding of the masses, both orders of magnitude smaller.
CEILING_SLACK = 1e-9


@njit(cache=True)
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


@njit(cache=True)
def _workspace(n_features: int, k: int, max_cats: int):
    """Scratch of :func:`_best_split` for one call of :func:`feed` (small, fixed size)."""
    bound_work, bound_block = bound_workspace(k)
    width = max(max_cats, 2)
    return (
        np.zeros(k, np.int64),  # left
        np.zeros(k, np.int64),  # right
        np.empty(k),  # scratch
        np.zeros((max_cats, k), np.int64),  # cat_counts
        np.zeros(max_cats, np.int64),  # cat_sizes
        np.zeros(max_cats, np.int64),  # cat_weights
        np.zeros(max_cats, np.int64),  # present
        np.zeros(width, np.int64),  # child_weights
        bound_work,
        bound_block,
        np.empty(n_features),  # tie_best
        np.empty(n_features),  # candidate_best
        np.empty(n_features),  # split_best
        np.zeros(n_features, np.int64),  # best_left
        np.zeros(n_features, np.int64),  # best_category
        np.zeros(n_features, np.int64),  # best_w_left
    )


@njit(cache=True)
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
    ``config[CFG_RANDOM_TIES]``.
    """
    n_features = X.shape[1]
    k = counts.shape[1]
    max_cats = 1
    for f in range(n_features):
        if is_nominal[f] and n_categories[f] > max_cats:
            max_cats = n_categories[f]
    work = _workspace(n_features, k, max_cats)
    table, bound_table, bounds, histogram = buffers
    cid = config[CFG_CID]
    max_depth = config[CFG_MAX_DEPTH]
    min_split = config[CFG_MIN_SPLIT]
    min_leaf = config[CFG_MIN_LEAF]
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
        depth = int_nodes[leaf, DEPTH]
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
            histogram = np.empty((2 * size // (2 * k) + 1, k), np.int32)
        if bounded:
            parent_mass = child_mass(cid, params, table, counts[leaf], np.int64(size), np.int64(1), work[2])
            if ceiling < np.inf and not new_branch:
                for i in range(k):
                    old_counts[i] = counts[leaf, i]
                old_counts[label] -= 1
                ceiling = _gain_ceiling(
                    ceiling, ceilings[leaf, 1], parent_mass, old_counts, label, size, params, table, work[2]
                )
                if ceiling <= min_gain:  # no candidate can be accepted: no search
                    ceilings[leaf, 0] = ceiling
                    ceilings[leaf, 1] = parent_mass
                    continue
        chosen, best, n_left, category = _best_split(
            values, ranks, labels, index, start, size, levels[leaf], counts[leaf], is_nominal, n_categories,
            config, params, min_gain, table, bound_table, bounds, histogram, work, tie_stream,
        )
        if chosen < 0:
            if bounded:
                highest = -np.inf
                for f in range(n_features):
                    highest = max(highest, work[11][f])  # every feature's best gain
                ceilings[leaf, 0] = highest + CEILING_SLACK
                ceilings[leaf, 1] = parent_mass
            continue
        # -- graft the split: the leaf becomes its node, its rows go to new leaves ----
        f = chosen
        threshold = 0.0
        n_children = 2
        default_child = -1
        if not is_nominal[f]:
            kind = NUMERIC
            last_left = start + n_left - 1
            threshold = threshold_at(
                values, False, np.int64(f), last_left, last_left + 1, ranks[f, last_left + 1] == levels[leaf, f],
                config[CFG_MIDPOINT] != 0,
            )
            for p in range(start, start + size):
                destination[index[f, p]] = 0 if p - start < n_left else 1
        elif config[CFG_NOMINAL_BINARY] != 0:
            kind = NOMINAL_BINARY
            for p in range(start, start + size):
                destination[index[f, p]] = 0 if ranks[f, p] == category else 1
        else:
            kind = NOMINAL_MULTIWAY
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
        if kind == NOMINAL_MULTIWAY:
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
            int_nodes[leaf, CATMAP_START] = n_catmap
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
            int_nodes[child, KIND] = LEAF
            int_nodes[child, DEPTH] = depth + 1
            parents[child] = leaf
            counts[child, :] = child_counts[j]
            leaf_impurity = node_impurity(cid, params, table, child_counts[j], sizes[j], work[2])
            float_nodes[child, IMPURITY] = reported_node_value(cid, leaf_impurity)
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
        int_nodes[leaf, FEATURE] = f
        int_nodes[leaf, KIND] = kind
        int_nodes[leaf, CHILD_START] = first
        int_nodes[leaf, N_CHILDREN] = n_children
        if kind == NOMINAL_BINARY:
            int_nodes[leaf, CATEGORY] = category
        if kind == NOMINAL_MULTIWAY:
            int_nodes[leaf, DEFAULT_CHILD] = default_child
        float_nodes[leaf, THRESHOLD] = threshold
        float_nodes[leaf, SCORE] = best
        segments[leaf, SEG_SIZE] = 0
        segments[leaf, SEG_CAP] = 0
        meta[META_SPLITS] += 1
    return (
        int_nodes, float_nodes, counts, parents, catmap, segments, levels, ceilings, arena, destination,
        (table, bound_table, bounds, histogram),
    )
