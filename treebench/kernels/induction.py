"""Compiled greedy top-down induction for the built-in criteria: the tree builder.

Layout (see DESIGN.md, "where the time goes"): every feature is sorted once,
at the root, into three parallel rows ``sorted_index[f]``, ``sorted_rank[f]``
and ``sorted_label[f]`` (:func:`treebench.kernels.partition.fill_sorted_row`).
Numeric values are stored as dense ranks (NaN has the rank
``n_levels[f]``, one past the last, and sorts last); nominal values as their
category codes.  Ranks are uint16 when every feature fits (at most 65,535
distinct values), else int32: scans and partitions are memory-bound, and a
rank is a quarter or half the bytes of a float64.  The values themselves
are read only to place the chosen threshold, from the caller's matrix.  A node owns the same position
range ``[start, end)`` in every row, and that range stays sorted for every
feature because a split *stably* partitions each row.  Split search
(:mod:`treebench.kernels.node_split`, over the scans of
:mod:`treebench.kernels.scan`) is then a linear scan per feature and node,
with no sorting below the root.

Numeric features with few values at the root are kept as per-node (rank,
class) tables instead (:mod:`treebench.kernels.rank_tables`): their rows are
neither scanned nor partitioned, the smaller child's table is counted from
the node's sample ids and the larger child's is the parent's minus it, and a
feature whose node no longer has few values gets its sorted row back by a
counting sort of those ids.  The mode changes no result, only the cost.

This module is the loop over nodes: search the node's split (the search the
online learner shares), route the samples, partition the rows (:mod:`treebench.kernels.partition`)
and the tables, create the children.

Sample weights: ``build`` takes ``weights=None`` (class counts are integers,
as they always were) or a float64 array indexed by sample id (class counts
are sums of weights); see :mod:`treebench.kernels.weights`.  Weighted fits
read each sample's weight through its id in the scans (the per-sample scan
only: the histogram scan is for integer counts); sizes that stopping rules
compare (``min_samples_*``) stay sample counts.

The output is plain arrays (see :mod:`treebench.kernels.layout`); the tree
layer wraps them.
"""

from __future__ import annotations

from typing import Any

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
    N_FLOAT_FIELDS,
    N_INT_FIELDS,
    NOMINAL_BINARY,
    NOMINAL_MULTIWAY,
    NUMERIC,
    SCORE,
    THRESHOLD,
)
from treebench.kernels.node_split import (
    BEST_CATEGORY,
    BEST_LEFT,
    CAT_COUNTS,
    CAT_SIZES,
    CAT_WEIGHTS,
    CHILD_WEIGHTS,
    PRESENT,
    SCRATCH,
    TABLE_AT,
    histogram_rows,
    search_node,
    split_workspace,
)
from treebench.kernels.partition import copy_into, partition_multiway, partition_two, set_side
from treebench.kernels.possibilistic_bound import x_log_x_table
from treebench.kernels.rank_tables import (
    load_tables,
    push_tables,
    ready_tables,
    root_tables,
    route_by_table,
    split_tables,
    tables_needed,
    tables_pool,
)
from treebench.kernels.scan import tabulate_categories, threshold_at
from treebench.kernels.scoring import (
    class_params,
    has_bounded_scan,
    is_whole_split,
    make_table,
    node_impurity,
    reported_node_value,
    scores_label_masses,
)
from treebench.kernels.weights import (
    is_weighted,
    row_total,
    sample_weight,
    unweighted_only,
    zero_counts,
)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def _grow(arr: np.ndarray, needed: int) -> np.ndarray:
    """``arr`` with room for ``needed`` rows (doubling); the new rows are not initialised.

    Callers fill a row when they first use it, so the pages of the spare
    capacity are never written and never count in the resident memory.
    """
    if needed <= arr.shape[0]:
        return arr
    new = np.empty((max(needed, 2 * arr.shape[0]),) + arr.shape[1:], arr.dtype)
    copy_into(new.reshape(new.size), 0, arr.reshape(arr.size), arr.size)  # C order: the old rows first
    return new


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def _is_terminal(
    class_counts: np.ndarray, size: int, depth: int, max_depth: int, min_samples_split: int,
    min_samples_leaf: int,
) -> bool:
    """A node that no split may divide: too small, pure, or at maximum depth."""
    if size < min_samples_split or size < 2 * min_samples_leaf:
        return True
    if max_depth >= 0 and depth >= max_depth:
        return True
    present = 0
    for i in range(class_counts.shape[0]):
        if class_counts[i] > 0:
            present += 1
    return present <= 1


@njit(cache=True, no_cfunc_wrapper=True)
def build(
    sorted_index: np.ndarray,
    sorted_rank: np.ndarray,
    sorted_label: np.ndarray,
    values: np.ndarray,
    values_by_row: bool,
    n_levels: np.ndarray,
    is_nominal: np.ndarray,
    n_categories: np.ndarray,
    n_classes: int,
    cid: int,
    params: np.ndarray,
    average_gain_rule: bool,
    strict_accept: bool,
    min_gain: float,
    max_depth: int,
    min_samples_split: int,
    min_samples_leaf: int,
    nominal_binary: bool,
    midpoint: bool,
    tables: Any,
    weights: Any,
    label_masses: Any = None,
    tie_stream: Any = None,
    whole: Any = None,
):
    """Grow a tree; the three sorted arrays (d, n) are partitioned in place.

    ``tables``: ``None``, or a marker (:data:`treebench.kernels.rank_tables.TABLES`) in an
    unweighted fit without label masses: features with few values are then kept as per-node
    (rank, class) tables (:mod:`treebench.kernels.rank_tables`); only the specialisation with
    the marker compiles their code.
    ``values`` is the feature matrix the rows were sorted from, (n, d) when
    ``values_by_row`` else (d, n), read only for the chosen thresholds;
    ``n_levels[f]`` is feature ``f``'s NaN rank (its distinct value count).
    Returns ``(int_nodes, float_nodes, counts, catmap)`` trimmed to size.
    ``max_depth < 0`` means unlimited.  ``weights``: ``None``, or positive
    float64 weights indexed by sample id (``counts`` are then float64 sums of
    weights).  ``label_masses``: ``None``, or the belief criterion's per-example
    label masses ``(n, 3)`` indexed by sample id (two classes, no weights, multiway
    nominal splits; see :mod:`treebench.kernels.belief`): numeric and nominal
    candidates are then scored on them, while stopping rules and node values
    still read the crisp labels.  ``tie_stream``: ``None`` gives a tie between
    features' best splits to the lowest column (``feature_ties="first"``; the
    test is compiled away), a one-element uint64 array to one of the tied
    features at random, drawn from that stream, which advances in place
    (``"random"``, see :mod:`treebench.kernels.ties`).  ``whole``: ``None``, or for a criterion
    scored whole (Hellinger distance) a one-element array
    (:func:`treebench.criteria.builtin.whole_split_marker`): only the specialisation with the
    array compiles whole-split code.  Needs at least one feature.
    """
    n_features, n = sorted_index.shape
    if n_features == 0:
        raise ValueError("build needs at least one feature")  # the root counts read feature 0's row
    k = n_classes
    if is_whole_split(cid) != (whole is not None):
        raise ValueError("the whole-split marker must be given for a criterion scored whole, and only for one")
    cid, params = class_params(cid, params, k)  # some criteria need the class count (belief's impurities)
    table = make_table(cid, params, n)
    # the forward and backward sweeps of label masses (numba drops this without them)
    mass_rows = 1
    if label_masses is not None:
        if not scores_label_masses(cid) or k != 2 or is_weighted(weights) or nominal_binary:
            raise ValueError("label masses need the belief criterion, two classes, no weights, multiway splits")
        mass_rows = n + 1
    prefix = np.empty((mass_rows, 3))
    suffix = np.empty((mass_rows, 3))
    max_cats = np.int64(1)  # not the literal 1: split_workspace would compile once more for it
    for f in range(n_features):
        if is_nominal[f] and n_categories[f] > max_cats:
            max_cats = n_categories[f]

    int_nodes = np.full((64, N_INT_FIELDS), -1, np.int64)
    float_nodes = np.zeros((64, N_FLOAT_FIELDS))
    counts = zero_counts(weights, (64, k))
    catmap = np.full(64, -1, np.int64)
    n_catmap = 0

    # stack rows: node id, start, end, number of active features; the active
    # features themselves (those not constant in the node) in ``active``
    stack = np.zeros((64, 4), np.int64)
    active = np.zeros((64, n_features), np.int32)
    stack[0, 0] = 0
    stack[0, 1] = 0
    stack[0, 2] = n
    stack[0, 3] = n_features
    for f in range(n_features):
        active[0, f] = f
    n_stack = 1
    node_active = np.zeros(n_features, np.int32)
    child_active = np.zeros(n_features, np.int32)
    for p in range(n):
        counts[0, sorted_label[0, p]] += sample_weight(weights, sorted_index[0], p)
    n_nodes = 1
    int_nodes[0, DEPTH] = 0

    # routing of samples to children: one bit per sample for binary splits,
    # a uint16 per sample for multiway ones
    side_bits = np.zeros((n + 7) // 8 + 1, np.uint8)
    child_of = np.empty(max(n, 1), np.uint16)  # written before read (multiway splits only)
    buffer_index = np.empty(max(n, 1), sorted_index.dtype)
    buffer_rank = np.empty(max(n, 1), sorted_rank.dtype)
    buffer_label = np.empty(max(n, 1), sorted_label.dtype)

    parent = zero_counts(weights, k)
    child_row = zero_counts(weights, k)  # one child's counts, copied out of child_counts
    work = split_workspace(n_features, k, max_cats, weights)
    # a tie stream is drawn from whenever there is one
    rules = (min_samples_leaf, nominal_binary, average_gain_rule, strict_accept, min_gain, True, whole)
    scratch = work[SCRATCH]
    cat_counts = work[CAT_COUNTS]
    cat_sizes = work[CAT_SIZES]
    cat_weights = work[CAT_WEIGHTS]
    present = work[PRESENT]
    child_weights = work[CHILD_WEIGHTS]  # children's weights (scores)
    best_left = work[BEST_LEFT]
    best_category = work[BEST_CATEGORY]
    # children's sample counts (stopping rules, partitions)
    sizes = np.zeros(max(max_cats, 2), np.int64)
    offsets = np.zeros(max(max_cats, 2) + 1, np.int64)

    # (rank, class) counts for the histogram scan, used when a node has few values (few_values)
    # (integer counts only: a weighted fit always scans sample by sample)
    # not zeroed here: each use clears the rows it needs (untouched pages stay out of memory)
    histogram = np.empty((1 if is_weighted(weights) else histogram_rows(cid, n, k), k), np.int32)
    # the possibilistic scan scores most candidates by a tabulated bound (integer counts only)
    bounded = has_bounded_scan(cid) and not is_weighted(weights)
    bound_table = x_log_x_table(2 * n if bounded else 0)
    bounds = np.empty(n if bounded else 1, np.float32)
    child_counts = zero_counts(weights, (max(max_cats, 2), k))
    is_open = np.zeros(max(max_cats, 2), np.bool_)

    # -- (rank, class) tables kept per node (kernels/rank_tables.py) --------------------------
    # Numeric features the histogram scan reads at the root start in table mode: their rows are
    # then neither scanned nor partitioned while their node has few values for its size.  Every
    # use is under ``tables is not None``, a test numba prunes where ``tables`` is None.
    state = np.empty((3, n_features), np.int64)  # every feature in row mode unless the root's tables say
    for f in range(n_features):
        state[TABLE_AT, f] = -1
    pool = np.empty((1, k), np.int32)  # (the split search takes it through tables_pool: None without tables)
    if tables is not None:
        (stack_tables, stack_ends, sample_row, rank_of, label_of, ids, id_buffer, pool) = root_tables(
            state, sorted_index, sorted_rank, sorted_label, is_nominal, cid, k, histogram.shape[0],
        )
        rank_offsets = np.empty(histogram.shape[0] + 1, np.int64)
        child_at = np.full((max(max_cats, 2), n_features), -1, np.int64)
        child_end = np.zeros(max(max_cats, 2), np.int64)

    while n_stack > 0:
        n_stack -= 1
        node = stack[n_stack, 0]
        start = stack[n_stack, 1]
        end = stack[n_stack, 2]
        n_node_active = stack[n_stack, 3]
        # element by element: a row view (active[n_stack]) costs this reference-counting function an
        # atomic increment and decrement, and these run once or more per node
        for a in range(n_node_active):
            node_active[a] = active[n_stack, a]
        depth = int_nodes[node, DEPTH]
        size = end - start
        if tables is not None:
            node_end = stack_ends[n_stack]  # the pool rows up to here may hold this node's tables
            load_tables(stack_tables, n_stack, node_active, n_node_active, state)

        for i in range(k):
            parent[i] = counts[node, i]
        total = row_total(parent)  # the node's weight; its size without weights
        impurity = node_impurity(cid, params, table, parent, total, scratch)
        float_nodes[node, IMPURITY] = reported_node_value(cid, impurity)
        int_nodes[node, KIND] = LEAF
        int_nodes[node, FEATURE] = -1

        if _is_terminal(parent, size, depth, max_depth, min_samples_split, min_samples_leaf):
            continue

        # -- tables: trimmed to the node's ranks; a feature whose node no longer has few values for
        # its size gets its sorted row back and stays in row mode below
        if tables is not None:
            ready_tables(
                pool, state, node_active, n_node_active, cid, k, histogram.shape[0], ids, start, end, rank_of,
                sample_row, label_of, rank_offsets, sorted_index, sorted_rank, sorted_label,
            )

        # -- the split (kernels/node_split.py) ---------------------------------
        # A feature constant in this node is constant in its whole subtree:
        # it is neither scanned nor partitioned below (as scikit-learn does).
        f, best, n_child_active = search_node(
            sorted_index, sorted_rank, sorted_label, weights, start, end, n_levels, parent, total, impurity,
            node_active, n_node_active, child_active, is_nominal, cid, params, table, rules,
            unweighted_only(weights, histogram), histogram.shape[0], unweighted_only(weights, bound_table),
            unweighted_only(weights, bounds), label_masses, prefix, suffix, tie_stream, work,
            tables_pool(tables, pool), state,
        )
        if f < 0:
            continue

        # -- route the samples to children -------------------------------------
        threshold = 0.0
        f_table = state[TABLE_AT, f] >= 0  # the chosen feature is in table mode (numeric)
        if not is_nominal[f]:
            kind = NUMERIC
            n_children = 2
            sizes[0] = best_left[f]
            sizes[1] = size - best_left[f]
            if f_table:
                if tables is not None:  # always, here; the test prunes the block where tables is None
                    # the children's counts too (from the table)
                    low, high, next_rank = route_by_table(
                        pool, state, np.int64(f), best_left[f], ids, start, end, rank_of,
                        sample_row[f], side_bits, child_counts, parent,
                    )
                    threshold = threshold_at(
                        values, values_by_row, np.int64(f), np.int64(low), np.int64(high), next_rank == n_levels[f],
                        midpoint,
                    )
            else:
                last_left = start + best_left[f] - 1
                threshold = threshold_at(
                    values, values_by_row, np.int64(f), np.int64(sorted_index[f, last_left]),
                    np.int64(sorted_index[f, last_left + 1]), sorted_rank[f, last_left + 1] == n_levels[f], midpoint,
                )
                for p in range(start, end):
                    set_side(side_bits, sorted_index[f, p], 0 if p - start < best_left[f] else 1)
        elif nominal_binary:
            kind = NOMINAL_BINARY
            n_children = 2
            sizes[0] = best_left[f]
            sizes[1] = size - best_left[f]
            for p in range(start, end):
                set_side(side_bits, sorted_index[f, p], 0 if sorted_rank[f, p] == best_category[f] else 1)
        else:
            kind = NOMINAL_MULTIWAY
            n_children = tabulate_categories(
                sorted_rank[f], sorted_label[f], sorted_index[f], weights, start, end, cat_counts, cat_sizes,
                cat_weights, present,
            )
            catmap = _grow(catmap, n_catmap + n_categories[f])
            catmap[n_catmap : n_catmap + n_categories[f]] = -1
            largest = 0  # the heaviest child takes categories unseen here
            for j in range(n_children):
                code = present[j]
                sizes[j] = cat_sizes[code]
                child_weights[j] = cat_weights[code]
                catmap[n_catmap + code] = j
                if child_weights[j] > child_weights[largest]:
                    largest = j
            int_nodes[node, CATMAP_START] = n_catmap
            int_nodes[node, DEFAULT_CHILD] = largest
            n_catmap += n_categories[f]
            j = -1
            previous = -1
            for p in range(start, end):
                code = np.int64(sorted_rank[f, p])  # ranks follow the codes' order
                if code != previous:
                    j += 1
                    previous = code
                child_of[sorted_index[f, p]] = j

        # -- the children's class counts, and which of them are leaves already --
        if not (kind == NUMERIC and f_table):  # else counted from the table when routing
            for j in range(n_children):
                child_counts[j, :] = 0
            if kind == NUMERIC:
                middle = start + sizes[0]
                for p in range(start, middle):
                    child_counts[0, sorted_label[f, p]] += sample_weight(weights, sorted_index[f], p)
                for p in range(middle, end):
                    child_counts[1, sorted_label[f, p]] += sample_weight(weights, sorted_index[f], p)
            elif kind == NOMINAL_BINARY:
                for p in range(start, end):
                    sample = sorted_index[f, p]
                    side = (side_bits[sample >> 3] >> (sample & 7)) & 1
                    child_counts[side, sorted_label[f, p]] += sample_weight(weights, sorted_index[f], p)
            else:
                for p in range(start, end):
                    child = child_of[sorted_index[f, p]]
                    child_counts[child, sorted_label[f, p]] += sample_weight(weights, sorted_index[f], p)
        n_open = 0
        for j in range(n_children):
            for i in range(k):
                child_row[i] = child_counts[j, i]
            is_open[j] = n_child_active > 0 and not _is_terminal(
                child_row, sizes[j], depth + 1, max_depth, min_samples_split, min_samples_leaf
            )
            n_open += is_open[j]

        # -- stable partition of every feature's range (open children only) -----
        for a in range(n_child_active):
            if n_open == 0:
                break
            g = child_active[a]
            if state[TABLE_AT, g] >= 0:
                continue  # in table mode: its table follows, its row is not read
            if g == f and kind != NOMINAL_BINARY:
                continue  # already grouped by child in the chosen feature's order
            if kind != NOMINAL_MULTIWAY:  # two-way splits route by side bits
                partition_two(
                    sorted_index, sorted_rank, sorted_label, g, start, end, sizes[0],
                    side_bits, is_open[0], is_open[1], buffer_index, buffer_rank, buffer_label,
                )
                continue
            partition_multiway(
                sorted_index[g], sorted_rank[g], sorted_label[g], start, end, child_of, sizes, n_children,
                offsets, buffer_index, buffer_rank, buffer_label,
            )

        # -- the open children's tables: the largest child's is its parent's minus the others' --
        n_child_tables = 0
        if tables is not None:
            n_child_tables, top, rows = tables_needed(
                state, child_active, n_child_active, n_children, stack_ends, n_stack, node_end
            )
            if n_child_tables > 0 and n_open > 0:
                if top + rows > pool.shape[0]:
                    pool = _grow(pool, top + rows)
                split_tables(
                    pool, top, state, child_active, n_child_active, ids, start, end,
                    kind == NOMINAL_MULTIWAY, side_bits, child_of, sizes, n_children, offsets, id_buffer, is_open,
                    rank_of, sample_row, label_of, child_at, child_end, node_end,
                )

        # -- create the children: leaves now, open ones on the stack -------------
        first_child = n_nodes
        n_nodes += n_children
        # grown only when full: a call passing arrays costs this reference-counting function atomic
        # increments and decrements even when nothing grows
        if n_nodes > int_nodes.shape[0]:
            int_nodes = _grow(int_nodes, n_nodes)
            float_nodes = _grow(float_nodes, n_nodes)
            counts = _grow(counts, n_nodes)
        int_nodes[first_child:n_nodes] = -1
        float_nodes[first_child:n_nodes] = 0.0
        counts[first_child:n_nodes] = 0
        int_nodes[node, FEATURE] = f
        int_nodes[node, KIND] = kind
        int_nodes[node, CHILD_START] = first_child
        int_nodes[node, N_CHILDREN] = n_children
        if kind == NOMINAL_BINARY:
            int_nodes[node, CATEGORY] = best_category[f]
        float_nodes[node, THRESHOLD] = threshold if kind == NUMERIC else 0.0
        float_nodes[node, SCORE] = best
        if n_stack + n_children > stack.shape[0]:
            stack = _grow(stack, n_stack + n_children)
            active = _grow(active, n_stack + n_children)
            if tables is not None:
                stack_tables = _grow(stack_tables, n_stack + n_children)
                stack_ends = _grow(stack_ends, n_stack + n_children)
        offsets[0] = start
        for j in range(n_children):
            child = first_child + j
            offsets[j + 1] = offsets[j] + sizes[j]
            int_nodes[child, DEPTH] = depth + 1
            for i in range(k):
                counts[child, i] = child_counts[j, i]
                child_row[i] = child_counts[j, i]
            if not is_open[j]:
                leaf_impurity = node_impurity(cid, params, table, child_row, row_total(child_row), scratch)
                float_nodes[child, IMPURITY] = reported_node_value(cid, leaf_impurity)
                int_nodes[child, KIND] = LEAF
                int_nodes[child, FEATURE] = -1
        # open children go on the stack last-first, so that the first child is
        # processed first (depth-first, pre-order)
        for j in range(n_children - 1, -1, -1):
            if is_open[j]:
                stack[n_stack, 0] = first_child + j
                stack[n_stack, 1] = offsets[j]
                stack[n_stack, 2] = offsets[j + 1]
                stack[n_stack, 3] = n_child_active
                for a in range(n_child_active):
                    active[n_stack, a] = child_active[a]
                if tables is not None:
                    stack_ends[n_stack] = child_end[j] if n_child_tables > 0 else node_end
                    push_tables(stack_tables, n_stack, child_active, n_child_active, state, child_at, j)
                n_stack += 1

    # views, not copies: a copy would double the tree's memory at the peak
    return int_nodes[:n_nodes], float_nodes[:n_nodes], counts[:n_nodes], catmap[:n_catmap]
