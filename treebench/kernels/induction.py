"""Compiled greedy top-down induction for the built-in criteria.

Layout (see DESIGN.md, "where the time goes"): every feature is sorted once,
at the root, into three parallel rows ``sorted_index[f]``, ``sorted_rank[f]``
and ``sorted_label[f]``.  Values are stored as dense int32 ranks (the sorted
distinct values of feature ``f`` are ``levels[level_start[f]:level_start[f+1]]``
and NaN has the rank one past the last level): scans and partitions are
memory-bound, and a rank is half the bytes of a float64.  A node owns the same position range ``[start, end)``
in every row, and that range stays sorted for every feature because a split
*stably* partitions each row.  Split search is then a linear scan per feature
and node, with no sorting below the root.  Nominal features are "sorted" by
category code, so the same scan sees one contiguous run per category.

Sample weights: ``build`` takes ``weights=None`` (class counts are integers,
as they always were) or a float64 array indexed by sample id (class counts
are sums of weights).  Numba compiles one version per case -- the helpers
below and :func:`treebench.kernels.scoring.g_term` pick their code by type --
so the unweighted version does exactly what it did before weights existed.
Weighted fits read each sample's weight through its id in the scans (the
per-sample scan only: the histogram scan is for integer counts); sizes that
stopping rules compare (``min_samples_*``) stay sample counts.

The output is plain arrays (see :mod:`treebench.kernels.layout`); the tree
layer wraps them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import overload

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
from treebench.kernels.scoring import (
    child_mass,
    entropy_bits,
    final_score,
    g_term,
    has_tie_break,
    is_additive,
    make_table,
    mass_from_sum,
    node_impurity,
    reported_node_value,
    tie_score_binary,
)
from treebench.kernels.tolerances import TIE_TOLERANCE


def sample_weight(weights: Any, index: np.ndarray, p: int) -> Any:
    """Weight of the sample at sorted position ``p``: 1 (an integer) without weights.

    Compiled code only; the overload below picks the version by the type of ``weights``.
    """
    raise NotImplementedError("sample_weight is for numba-compiled code")


@overload(sample_weight)
def _sample_weight(weights, index, p):
    if isinstance(weights, types.NoneType):
        return lambda weights, index, p: 1
    return lambda weights, index, p: weights[index[p]]


def zero_counts(weights: Any, shape: Any) -> np.ndarray:
    """Zeroed count array: int64 without weights, float64 with them (compiled code only)."""
    raise NotImplementedError("zero_counts is for numba-compiled code")


@overload(zero_counts)
def _zero_counts(weights, shape):
    dtype = np.int64 if isinstance(weights, types.NoneType) else np.float64
    return lambda weights, shape: np.zeros(shape, dtype)


def is_weighted(weights: Any) -> bool:
    """Whether a fit has sample weights, as a compile-time constant (compiled code only)."""
    raise NotImplementedError("is_weighted is for numba-compiled code")


@overload(is_weighted)
def _is_weighted(weights):
    weighted = not isinstance(weights, types.NoneType)
    return lambda weights: weighted


@njit(cache=True)
def _total(row: np.ndarray):
    """Sum of a count row, in the row's type (a node's size, or its weight)."""
    acc = row[0] - row[0]
    for i in range(row.shape[0]):
        acc += row[i]
    return acc


@njit(cache=True)
def _better(score: float, best: float) -> bool:
    """Strictly better beyond the tie tolerance (ties keep the earlier candidate)."""
    if best == -np.inf:
        return score > -np.inf
    return score > best + TIE_TOLERANCE * max(1.0, abs(best))


@njit(cache=True)
def _ties(a: float, b: float) -> bool:
    """Equal within the tie tolerance."""
    return not _better(a, b) and not _better(b, a)


@njit(cache=True)
def _grow(arr: np.ndarray, needed: int, fill) -> np.ndarray:
    """``arr`` with room for ``needed`` rows (doubling); new rows hold ``fill``."""
    if needed <= arr.shape[0]:
        return arr
    new = np.full((max(needed, 2 * arr.shape[0]),) + arr.shape[1:], fill, arr.dtype)
    new[: arr.shape[0]] = arr
    return new


@njit(cache=True)
def _binary_gain(
    cid, params, table, additive, parent, parent_impurity, left, right, n_left, n, g_left, g_right, scratch
) -> float:
    """Gain of sending ``left`` (``n_left`` samples) left and the rest right.

    The additive family uses the running sums ``g_left``/``g_right``; the
    others need the count vectors (``right`` is filled from ``parent - left``).
    """
    n_right = n - n_left
    if additive:
        mass = mass_from_sum(cid, params, table, n_left, g_left) + mass_from_sum(
            cid, params, table, n_right, g_right
        )
    else:
        for i in range(parent.shape[0]):
            right[i] = parent[i] - left[i]
        mass = child_mass(cid, params, table, left, n_left, 2, scratch) + child_mass(
            cid, params, table, right, n_right, 2, scratch
        )
    return parent_impurity - mass / n


@njit(cache=True)
def _take(gain, best, best_tie, tie_break, parent_entropy, left, right, n_left, n):
    """Whether a candidate replaces the best so far, and its tie score.

    Better by more than the tolerance wins; within the tolerance, with
    ``tie_break``, the higher entropy gain wins; otherwise the earlier
    candidate stays.
    """
    if not tie_break:
        return _better(gain, best), 0.0
    if not _better(gain, best) and not _ties(gain, best):
        return False, 0.0
    # only certainty breaks ties, and it is not additive: _binary_gain filled ``right``
    tie = tie_score_binary(parent_entropy, left, right, n_left, n)
    if _better(gain, best):
        return True, tie
    return _better(tie, best_tie), tie


@njit(cache=True)
def _threshold(levels: np.ndarray, here: int, after: int, midpoint: bool) -> float:
    """Threshold between ranks ``here`` and ``after`` (``after`` may be the NaN rank).

    As scikit-learn: the midpoint, unless rounding makes it equal to the upper
    value (then the lower value); next to the NaN block, the observed value.
    """
    low = levels[here]
    if after == levels.shape[0] or not midpoint:
        return low
    high = levels[after]
    threshold = low / 2.0 + high / 2.0
    if threshold == high or math.isinf(threshold):
        threshold = low
    return threshold


@njit(cache=True)
def scan_numeric(
    ranks: np.ndarray,
    levels: np.ndarray,
    labels: np.ndarray,
    index: np.ndarray,
    weights: Any,
    start: int,
    end: int,
    parent: np.ndarray,
    total: Any,
    parent_impurity: float,
    cid: int,
    params: np.ndarray,
    table: np.ndarray,
    min_leaf: int,
    midpoint: bool,
    left: np.ndarray,
    right: np.ndarray,
    scratch: np.ndarray,
    tie_break: bool,
    parent_entropy: float,
):
    """Best threshold of one numeric feature on positions ``[start, end)``.

    Returns ``(candidate_score, n_left, threshold, tie_score, w_left)``;
    ``n_left = 0`` when the feature has no valid candidate.  ``n_left`` counts
    samples (for ``min_leaf`` and the partition), ``w_left`` is their weight
    (their count without weights); ``total`` is the node's weight.  With
    ``tie_break``, candidates whose scores tie are ranked by their entropy
    gain.  Missing values (NaN, rank ``len(levels)``) sort last and always
    go right, so candidates stop at the first NaN.
    """
    missing = levels.shape[0]
    k = parent.shape[0]
    n = end - start
    additive = is_additive(cid)
    g_left = 0.0
    g_right = 0.0
    for i in range(k):
        left[i] = 0
        if additive:
            g_right += g_term(cid, params, table, parent[i])
    w_left = total - total  # a zero of the counts' type
    best = -np.inf
    best_tie = -np.inf
    best_left = 0
    best_w_left = w_left
    best_here = 0
    best_after = 0
    for p in range(start, end - 1):
        label = labels[p]
        w = sample_weight(weights, index, p)
        count = left[label]
        if additive:
            # the right count is parent - left: deriving it avoids a second
            # read-modify-write per sample on the critical path
            rest = parent[label] - count
            g_left += g_term(cid, params, table, count + w) - g_term(cid, params, table, count)
            g_right += g_term(cid, params, table, rest - w) - g_term(cid, params, table, rest)
        left[label] = count + w
        w_left += w
        n_left = p - start + 1
        n_right = n - n_left
        if n_left < min_leaf:
            continue
        if n_right < min_leaf:
            break
        here = ranks[p]
        if here == missing:
            break
        after = ranks[p + 1]
        if after == here:
            continue
        gain = _binary_gain(
            cid, params, table, additive, parent, parent_impurity, left, right, w_left, total, g_left,
            g_right, scratch,
        )
        take, tie = _take(gain, best, best_tie, tie_break, parent_entropy, left, right, w_left, total)
        if take:
            best = gain
            best_tie = tie
            best_left = n_left
            best_w_left = w_left
            best_here = here
            best_after = after
    if best_left == 0:
        return best, 0, 0.0, 0.0, best_w_left
    return best, best_left, _threshold(levels, best_here, best_after, midpoint), best_tie, best_w_left


@njit(cache=True)
def scan_numeric_histogram(
    ranks: np.ndarray,
    levels: np.ndarray,
    labels: np.ndarray,
    start: int,
    end: int,
    parent: np.ndarray,
    parent_impurity: float,
    cid: int,
    params: np.ndarray,
    table: np.ndarray,
    min_leaf: int,
    midpoint: bool,
    left: np.ndarray,
    right: np.ndarray,
    scratch: np.ndarray,
    histogram: np.ndarray,
    tie_break: bool,
    parent_entropy: float,
):
    """:func:`scan_numeric` for a node with few distinct values (integer counts only).

    One pass counts (rank, class) pairs -- a single increment per sample --
    then candidates are scored per distinct value, O(k) each.  Worth it when
    ``distinct values * k`` is well below the node size (the caller decides);
    it finds the same candidates with the same scores.  Same return values as
    :func:`scan_numeric` (``w_left = n_left``).
    """
    k = parent.shape[0]
    n = end - start
    missing = levels.shape[0]
    first_rank = ranks[start]
    span = ranks[end - 1] - first_rank + 1
    histogram[:span, :] = 0
    for p in range(start, end):
        histogram[ranks[p] - first_rank, labels[p]] += 1
    additive = is_additive(cid)
    g_left = 0.0
    g_right = 0.0
    for i in range(k):
        left[i] = 0
        if additive:
            g_right += g_term(cid, params, table, parent[i])
    best = -np.inf
    best_tie = -np.inf
    best_left = 0
    best_here = 0
    best_after = 0
    n_left = 0
    previous = -1
    for r in range(span):
        rank = first_rank + r
        size = 0
        for i in range(k):
            size += histogram[r, i]
        if size == 0:
            continue
        if previous >= 0 and n_left >= min_leaf:
            gain = _binary_gain(
                cid, params, table, additive, parent, parent_impurity, left, right, n_left, n,
                g_left, g_right, scratch,
            )
            take, tie = _take(gain, best, best_tie, tie_break, parent_entropy, left, right, n_left, n)
            if take:
                best = gain
                best_tie = tie
                best_left = n_left
                best_here = previous
                best_after = rank
        if rank == missing or n - n_left - size < min_leaf:
            break
        for i in range(k):
            count = histogram[r, i]
            if count > 0:
                if additive:
                    rest = parent[i] - left[i]
                    g_left += g_term(cid, params, table, left[i] + count) - g_term(cid, params, table, left[i])
                    g_right += g_term(cid, params, table, rest - count) - g_term(cid, params, table, rest)
                left[i] += count
        n_left += size
        previous = rank
    if best_left == 0:
        return best, 0, 0.0, 0.0, best_left
    return best, best_left, _threshold(levels, best_here, best_after, midpoint), best_tie, best_left


@njit(cache=True)
def tabulate_categories(
    ranks: np.ndarray, levels: np.ndarray, labels: np.ndarray, index: np.ndarray, weights: Any, start: int,
    end: int, cat_counts: np.ndarray, cat_sizes: np.ndarray, cat_weights: np.ndarray, present: np.ndarray,
) -> int:
    """Class counts per category on ``[start, end)`` (sorted by code).

    Fills ``present[:r]`` with the codes that occur, in increasing order, and
    returns ``r``; ``cat_sizes`` counts samples, ``cat_weights`` their weight
    (``cat_counts`` holds class weights; without weights both are counts).
    """
    r = 0
    previous = -1
    for p in range(start, end):
        code = int(levels[ranks[p]])
        if code != previous:
            present[r] = code
            r += 1
            cat_sizes[code] = 0
            cat_weights[code] = 0
            cat_counts[code, :] = 0
            previous = code
        w = sample_weight(weights, index, p)
        cat_sizes[code] += 1
        cat_weights[code] += w
        cat_counts[code, labels[p]] += w
    return r


@njit(cache=True)
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
def _set_side(side_bits: np.ndarray, sample: int, side: int) -> None:
    byte = sample >> 3
    bit = sample & 7
    side_bits[byte] = (side_bits[byte] & ~np.uint8(1 << bit)) | np.uint8(side << bit)


@njit(cache=True)
def _partition_two(
    index, rank, label, start, end, n_first, side_bits, keep_first, keep_second,
    buf_index, buf_rank, buf_label,
):
    """Stable two-way partition of one feature's range, moving only what is kept.

    The side of each sample is one bit (``side_bits``): the table is read in
    random sample order, and at n/8 bytes it stays in cache where a byte or int
    per sample would not.  The first child is compacted forward in place (a
    write never overtakes the read), the second goes through the buffer only
    when both are kept, or is compacted backward in place when it is kept
    alone.  A child that is already a leaf is not moved at all.  Write
    positions advance without branches (the side is unpredictable).  The scan
    is memory-bound, so every byte not moved counts.
    """
    if keep_first and keep_second:
        low = start
        high = 0
        for p in range(start, end):
            sample = index[p]
            key = rank[p]
            lab = label[p]
            c = np.int64((side_bits[sample >> 3] >> (sample & 7)) & 1)
            index[low] = sample
            rank[low] = key
            label[low] = lab
            buf_index[high] = sample
            buf_rank[high] = key
            buf_label[high] = lab
            low += 1 - c
            high += c
        middle = start + n_first
        index[middle:end] = buf_index[:high]
        rank[middle:end] = buf_rank[:high]
        label[middle:end] = buf_label[:high]
    elif keep_first:
        low = start
        for p in range(start, end):
            sample = index[p]
            c = np.int64((side_bits[sample >> 3] >> (sample & 7)) & 1)
            key = rank[p]
            lab = label[p]
            index[low] = sample
            rank[low] = key
            label[low] = lab
            low += 1 - c
    elif keep_second:
        high = end - 1
        for p in range(end - 1, start - 1, -1):
            sample = index[p]
            c = np.int64((side_bits[sample >> 3] >> (sample & 7)) & 1)
            key = rank[p]
            lab = label[p]
            index[high] = sample
            rank[high] = key
            label[high] = lab
            high -= c


@njit(cache=True)
def fill_sorted_row(column, order, labels, index_row, rank_row, label_row, levels_out) -> int:
    """One feature's sorted row in one pass: sample ids, dense value ranks and
    labels; the distinct values go to ``levels_out``.  Returns their number,
    which is also the rank of NaN (sorted last)."""
    rank = -1
    previous = 0.0
    for p in range(order.shape[0]):
        sample = order[p]
        value = column[sample]
        index_row[p] = sample
        label_row[p] = labels[sample]
        if math.isnan(value):
            rank_row[p] = rank + 1
            continue
        if rank < 0 or value != previous:
            rank += 1
            levels_out[rank] = value
            previous = value
        rank_row[p] = rank
    return rank + 1


@njit(cache=True)
def build(
    sorted_index: np.ndarray,
    sorted_rank: np.ndarray,
    sorted_label: np.ndarray,
    levels: np.ndarray,
    level_start: np.ndarray,
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
):
    """Grow a tree; the three sorted arrays (d, n) are partitioned in place.

    Returns ``(int_nodes, float_nodes, counts, catmap)`` trimmed to size.
    ``max_depth < 0`` means unlimited.  ``weights``: ``None``, or positive
    float64 weights indexed by sample id (``counts`` are then float64 sums of
    weights).  Needs at least one feature.
    """
    n_features, n = sorted_index.shape
    if n_features == 0:
        raise ValueError("build needs at least one feature")  # the root counts read feature 0's row
    k = n_classes
    table = make_table(cid, params, n)
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
    child_of = np.zeros(max(n, 1), np.uint16)
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
    histogram = np.zeros((1 if is_weighted(weights) else n // (2 * k) + 1, k), np.int32)
    child_counts = zero_counts(weights, (max(max_cats, 2), k))
    best_w_left = zero_counts(weights, n_features)
    is_open = np.zeros(max(max_cats, 2), np.bool_)
    tie_break = has_tie_break(cid, params)
    tie_best = np.empty(n_features)
    candidate_best = np.empty(n_features)
    split_best = np.empty(n_features)
    best_left = np.zeros(n_features, np.int64)
    best_threshold = np.zeros(n_features)
    best_category = np.zeros(n_features, np.int64)

    while n_stack > 0:
        n_stack -= 1
        node = stack[n_stack, 0]
        start = stack[n_stack, 1]
        end = stack[n_stack, 2]
        n_node_active = stack[n_stack, 3]
        node_active[:n_node_active] = active[n_stack, :n_node_active]
        depth = int_nodes[node, DEPTH]
        size = end - start

        parent[:] = counts[node]
        total = _total(parent)  # the node's weight; its size without weights
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
                span = sorted_rank[f, end - 1] - sorted_rank[f, start] + 1
                if not is_weighted(weights) and span * k * 2 <= size:
                    gain, n_left, threshold, tie, w_left = scan_numeric_histogram(
                        sorted_rank[f], levels[level_start[f] : level_start[f + 1]], sorted_label[f],
                        start, end, parent, impurity, cid, params, table, min_samples_leaf,
                        midpoint, left, right, scratch, histogram, tie_break, parent_entropy,
                    )
                else:
                    gain, n_left, threshold, tie, w_left = scan_numeric(
                        sorted_rank[f], levels[level_start[f] : level_start[f + 1]], sorted_label[f],
                        sorted_index[f], weights, start, end, parent, total, impurity, cid, params, table,
                        min_samples_leaf, midpoint, left, right, scratch, tie_break, parent_entropy,
                    )
                if n_left > 0:
                    child_weights[0] = w_left
                    child_weights[1] = total - w_left
                    tie_best[f] = tie
                    candidate_best[f] = gain
                    split_best[f] = final_score(cid, params, gain, child_weights, 2, total)
                    best_left[f] = n_left
                    best_threshold[f] = threshold
                continue
            r = tabulate_categories(
                sorted_rank[f], levels[level_start[f] : level_start[f + 1]], sorted_label[f], sorted_index[f],
                weights, start, end, cat_counts, cat_sizes, cat_weights, present,
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
                mass = child_mass(cid, params, table, left, w_left, 2, scratch) + child_mass(
                    cid, params, table, right, total - w_left, 2, scratch
                )
                gain = impurity - mass / total
                take, tie = _take(gain, best, best_tie, tie_break, parent_entropy, left, right, w_left, total)
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
                split_best[f] = final_score(cid, params, best, child_weights, 2, total)

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
                or _better(split_best[f], best)
                or (tie_break and _ties(split_best[f], best) and _better(tie_best[f], tie_best[chosen]))
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

        # -- route the samples to children -------------------------------------
        f = chosen
        if not is_nominal[f]:
            kind = NUMERIC
            n_children = 2
            sizes[0] = best_left[f]
            sizes[1] = size - best_left[f]
            for p in range(start, end):
                _set_side(side_bits, sorted_index[f, p], 0 if p - start < best_left[f] else 1)
        elif nominal_binary:
            kind = NOMINAL_BINARY
            n_children = 2
            sizes[0] = best_left[f]
            sizes[1] = size - best_left[f]
            for p in range(start, end):
                code = int(levels[level_start[f] + sorted_rank[f, p]])
                _set_side(side_bits, sorted_index[f, p], 0 if code == best_category[f] else 1)
        else:
            kind = NOMINAL_MULTIWAY
            n_children = tabulate_categories(
                sorted_rank[f], levels[level_start[f] : level_start[f + 1]], sorted_label[f], sorted_index[f],
                weights, start, end, cat_counts, cat_sizes, cat_weights, present,
            )
            catmap = _grow(catmap, n_catmap + n_categories[f], -1)
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
                code = sorted_rank[f, p]  # ranks follow the codes' order
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
                _partition_two(
                    sorted_index[g], sorted_rank[g], sorted_label[g], start, end, sizes[0],
                    side_bits, is_open[0], is_open[1], buffer_index, buffer_rank, buffer_label,
                )
                continue
            offsets[0] = 0
            for j in range(n_children):
                offsets[j + 1] = offsets[j] + sizes[j]
            for p in range(start, end):
                sample = sorted_index[g, p]
                j = child_of[sample]
                q = offsets[j]
                offsets[j] = q + 1
                buffer_index[q] = sample
                buffer_rank[q] = sorted_rank[g, p]
                buffer_label[q] = sorted_label[g, p]
            sorted_index[g, start:end] = buffer_index[:size]
            sorted_rank[g, start:end] = buffer_rank[:size]
            sorted_label[g, start:end] = buffer_label[:size]

        # -- create the children: leaves now, open ones on the stack -------------
        first_child = n_nodes
        n_nodes += n_children
        int_nodes = _grow(int_nodes, n_nodes, -1)
        float_nodes = _grow(float_nodes, n_nodes, 0)
        counts = _grow(counts, n_nodes, 0)
        int_nodes[node, FEATURE] = f
        int_nodes[node, KIND] = kind
        int_nodes[node, CHILD_START] = first_child
        int_nodes[node, N_CHILDREN] = n_children
        if kind == NOMINAL_BINARY:
            int_nodes[node, CATEGORY] = best_category[f]
        float_nodes[node, THRESHOLD] = best_threshold[f] if kind == NUMERIC else 0.0
        float_nodes[node, SCORE] = best
        stack = _grow(stack, n_stack + n_children, -1)
        active = _grow(active, n_stack + n_children, -1)
        offsets[0] = start
        for j in range(n_children):
            child = first_child + j
            offsets[j + 1] = offsets[j] + sizes[j]
            int_nodes[child, DEPTH] = depth + 1
            counts[child, :] = child_counts[j]
            if not is_open[j]:
                leaf_impurity = node_impurity(
                    cid, params, table, child_counts[j], _total(child_counts[j]), scratch
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
                active[n_stack, :n_child_active] = child_active[:n_child_active]
                n_stack += 1

    return int_nodes[:n_nodes].copy(), float_nodes[:n_nodes].copy(), counts[:n_nodes].copy(), catmap[:n_catmap].copy()
