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
(:mod:`treebench.kernels.scan`) is then a linear scan per feature and node,
with no sorting below the root.

This module is the loop over nodes: pick the best feature, route the
samples, partition the rows (:mod:`treebench.kernels.partition`), create
the children.

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

from treebench.kernels.belief import B_LAM, B_PRINTED, multiway_label_masses, scan_label_masses
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
from treebench.kernels.partition import copy_into, partition_multiway, partition_two, set_side
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
    child_mass,
    class_params,
    entropy_bits,
    final_score,
    has_bounded_scan,
    has_tie_break,
    make_table,
    node_impurity,
    reported_node_value,
    scores_label_masses,
)
from treebench.kernels.ties import pick_tied
from treebench.kernels.tolerances import TIE_TOLERANCE
from treebench.kernels.weights import is_weighted, row_total, sample_weight, zero_counts


@njit(cache=True)
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


@njit(cache=True, inline="always")
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


@njit(cache=True)
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
    weights: Any,
    label_masses: Any = None,
    tie_stream: Any = None,
):
    """Grow a tree; the three sorted arrays (d, n) are partitioned in place.

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
    (``"random"``, see :mod:`treebench.kernels.ties`).  Needs at least one feature.
    """
    n_features, n = sorted_index.shape
    if n_features == 0:
        raise ValueError("build needs at least one feature")  # the root counts read feature 0's row
    k = n_classes
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
    max_cats = 1
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
    left = zero_counts(weights, k)
    right = zero_counts(weights, k)
    scratch = np.empty(k)
    cat_counts = zero_counts(weights, (max_cats, k))
    cat_sizes = np.zeros(max_cats, np.int64)
    cat_weights = zero_counts(weights, max_cats)
    present = np.zeros(max_cats, np.int64)
    # children's sample counts (stopping rules, partitions) and weights (scores)
    sizes = np.zeros(max(max_cats, 2), np.int64)
    child_weights = zero_counts(weights, max(max_cats, 2))
    offsets = np.zeros(max(max_cats, 2) + 1, np.int64)

    # (rank, class) counts for the histogram scan, used when ranks * k <= size / 2
    # (integer counts only: a weighted fit always scans sample by sample)
    # not zeroed here: each use clears the rows it needs (untouched pages stay out of memory)
    histogram = np.empty((1 if is_weighted(weights) else n // (2 * k) + 1, k), np.int32)
    # the possibilistic scan scores most candidates by a tabulated bound (integer counts only)
    bounded = has_bounded_scan(cid) and not is_weighted(weights)
    bound_table = x_log_x_table(2 * n if bounded else 0)
    bounds = np.empty(n if bounded else 1, np.float32)
    bound_work, bound_block = bound_workspace(k)
    child_counts = zero_counts(weights, (max(max_cats, 2), k))
    best_w_left = zero_counts(weights, n_features)
    is_open = np.zeros(max(max_cats, 2), np.bool_)
    tie_break = has_tie_break(cid, params)
    tie_best = np.empty(n_features)
    candidate_best = np.empty(n_features)
    split_best = np.empty(n_features)
    best_left = np.zeros(n_features, np.int64)
    best_category = np.zeros(n_features, np.int64)

    while n_stack > 0:
        n_stack -= 1
        node = stack[n_stack, 0]
        start = stack[n_stack, 1]
        end = stack[n_stack, 2]
        n_node_active = stack[n_stack, 3]
        copy_into(node_active, 0, active[n_stack], n_node_active)
        depth = int_nodes[node, DEPTH]
        size = end - start

        copy_into(parent, 0, counts[node], k)
        total = row_total(parent)  # the node's weight; its size without weights
        impurity = node_impurity(cid, params, table, parent, total, scratch)
        float_nodes[node, IMPURITY] = reported_node_value(cid, impurity)
        int_nodes[node, KIND] = LEAF
        int_nodes[node, FEATURE] = -1

        if _is_terminal(parent, size, depth, max_depth, min_samples_split, min_samples_leaf):
            continue

        # -- best candidate of every feature ---------------------------------
        # A feature constant in this node is constant in its whole subtree:
        # it is neither scanned nor partitioned below (as scikit-learn does).
        candidate_best[:] = -np.inf
        split_best[:] = -np.inf
        tie_best[:] = -np.inf
        parent_entropy = entropy_bits(parent, total) if tie_break else 0.0
        n_child_active = 0
        for a in range(n_node_active):
            f = node_active[a]
            if sorted_rank[f, start] == sorted_rank[f, end - 1]:
                continue
            child_active[n_child_active] = f
            n_child_active += 1
            if not is_nominal[f]:
                span = np.int64(sorted_rank[f, end - 1]) - np.int64(sorted_rank[f, start]) + 1
                # few values against the node size: count them first (any criterion); the
                # possibilistic criterion also when its candidates are few in number, where
                # bounding them would not pay
                few_values = span * k * 2 <= size or (
                    has_bounded_scan(cid) and span <= min(FEW_CANDIDATES, histogram.shape[0])
                )
                if label_masses is not None:
                    gain, n_left, tie, w_left = scan_label_masses(
                        sorted_rank[f], sorted_index[f], start, end, n_levels[f], label_masses, params[B_LAM],
                        params[B_PRINTED], min_samples_leaf, prefix, suffix,
                    )
                elif not is_weighted(weights) and few_values:
                    gain, n_left, tie, w_left = scan_numeric_histogram(
                        sorted_rank[f], sorted_label[f], start, end, n_levels[f], parent, impurity, cid,
                        params, table, min_samples_leaf, left, right, scratch, histogram, tie_break,
                        parent_entropy,
                    )
                elif weights is None and has_bounded_scan(cid):  # ``is None``: pruned from weighted builds
                    gain, n_left, tie, w_left = scan_possibilistic_bounded(
                        sorted_rank[f], sorted_label[f], start, end, n_levels[f], parent, impurity, params, table,
                        min_samples_leaf, left, right, scratch, bound_table, bounds, bound_work, bound_block, BAND,
                    )
                else:
                    gain, n_left, tie, w_left = scan_numeric(
                        sorted_rank[f], sorted_label[f], sorted_index[f], weights, start, end, n_levels[f],
                        parent, total, impurity, cid, params, table, min_samples_leaf, left, right, scratch,
                        tie_break, parent_entropy,
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
                sorted_rank[f], sorted_label[f], sorted_index[f], weights, start, end, cat_counts, cat_sizes,
                cat_weights, present,
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
                    if label_masses is not None:
                        gain = multiway_label_masses(
                            sorted_rank[f], sorted_index[f], start, end, label_masses, params[B_LAM],
                            params[B_PRINTED], prefix,
                        )
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

        # -- choose the feature ----------------------------------------------
        n_usable = 0
        average = 0.0
        for f in range(n_features):
            if split_best[f] > -np.inf:
                n_usable += 1
                average += candidate_best[f]
        if n_usable == 0:
            continue
        average /= n_usable
        chosen = -1
        best = -np.inf
        for f in range(n_features):
            if split_best[f] == -np.inf:
                continue
            if average_gain_rule and candidate_best[f] < average - TIE_TOLERANCE * max(1.0, abs(average)):
                continue
            if (
                chosen < 0
                or better(split_best[f], best)
                or (tie_break and ties(split_best[f], best) and better(tie_best[f], tie_best[chosen]))
            ):
                chosen = f
                best = split_best[f]
        if chosen < 0:
            continue
        if strict_accept:
            if not best > min_gain:
                continue
        elif best < min_gain - TIE_TOLERANCE * max(1.0, abs(min_gain)):
            continue
        if tie_stream is not None:  # drawn only for an accepted split: the online kernel skips the rest unsearched
            chosen = pick_tied(chosen, candidate_best, split_best, tie_best, tie_break, average_gain_rule, tie_stream)
            best = split_best[chosen]

        # -- route the samples to children -------------------------------------
        f = chosen
        threshold = 0.0
        if not is_nominal[f]:
            kind = NUMERIC
            n_children = 2
            sizes[0] = best_left[f]
            sizes[1] = size - best_left[f]
            last_left = start + best_left[f] - 1
            threshold = threshold_at(
                values, values_by_row, np.int64(f), sorted_index[f, last_left], sorted_index[f, last_left + 1],
                sorted_rank[f, last_left + 1] == n_levels[f], midpoint,
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
            is_open[j] = n_child_active > 0 and not _is_terminal(
                child_counts[j], sizes[j], depth + 1, max_depth, min_samples_split, min_samples_leaf
            )
            n_open += is_open[j]

        # -- stable partition of every feature's range (open children only) -----
        for a in range(n_child_active):
            if n_open == 0:
                break
            g = child_active[a]
            if g == f and kind != NOMINAL_BINARY:
                continue  # already grouped by child in the chosen feature's order
            if kind != NOMINAL_MULTIWAY:  # two-way splits route by side bits
                partition_two(
                    sorted_index[g], sorted_rank[g], sorted_label[g], start, end, sizes[0],
                    side_bits, is_open[0], is_open[1], buffer_index, buffer_rank, buffer_label,
                )
                continue
            partition_multiway(
                sorted_index[g], sorted_rank[g], sorted_label[g], start, end, child_of, sizes, n_children,
                offsets, buffer_index, buffer_rank, buffer_label,
            )

        # -- create the children: leaves now, open ones on the stack -------------
        first_child = n_nodes
        n_nodes += n_children
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
        stack = _grow(stack, n_stack + n_children)
        active = _grow(active, n_stack + n_children)
        offsets[0] = start
        for j in range(n_children):
            child = first_child + j
            offsets[j + 1] = offsets[j] + sizes[j]
            int_nodes[child, DEPTH] = depth + 1
            copy_into(counts[child], 0, child_counts[j], k)
            if not is_open[j]:
                leaf_impurity = node_impurity(
                    cid, params, table, child_counts[j], row_total(child_counts[j]), scratch
                )
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
                copy_into(active[n_stack], 0, child_active, n_child_active)
                n_stack += 1

    # views, not copies: a copy would double the tree's memory at the peak
    return int_nodes[:n_nodes], float_nodes[:n_nodes], counts[:n_nodes], catmap[:n_catmap]
