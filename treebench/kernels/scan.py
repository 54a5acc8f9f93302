"""Compiled split search: the best candidate of one feature in one node.

The rows a scan reads are one feature's slice ``[start, end)`` of the
presorted arrays (see :mod:`treebench.kernels.induction`): sample ids, value
ranks (NaN has the rank ``missing``, one past the last, and sorts last) and
labels, all in increasing value order.  A numeric scan moves one sample at a
time from the right child to the left and scores every position where the
rank changes; a nominal feature is tabulated per category instead.

One scan per criterion family, chosen once per call, so the loop that runs
once per sample holds only that family's arithmetic:

* :func:`_scan_additive` -- entropy, gain ratio, Gini, Tsallis, belief: a
  child's mass is a function of its size and ``G = sum_i g(c_i)``; ``G`` of
  both children is updated in O(1) per sample and a candidate costs a few
  scalar operations (no array is touched per candidate); the right child's
  ``G``, a difference of large sums late in the scan, is re-summed from its
  counts at every 16-fold drop (:data:`RESUM_FRACTION`).  Belief's
  one-vs-rest reading adds ``sum_i g(s - c_i)``, which every sample changes
  in every class: O(k) per candidate, in a branch of its own (a separate
  scan would add seconds to the builder's first compile).
* :func:`_scan_rows` -- certainty, possibilistic and any other criterion
  scored on whole count rows: the scan is compiled once per criterion, its
  kernel id handed over as a literal (:func:`treebench.kernels.dispatch.with_row_slot`),
  so each one's loop holds only its own scoring and tests nothing per
  candidate.
  An unweighted fit of a criterion declared ``step_bounded`` (Hellinger)
  gets :func:`treebench.kernels.step_scan.scan_step_bounded` instead, the same
  split from the candidates its bound on one moved sample does not rule out.

Which family a criterion is in, and its formulas, come from its module in
:mod:`treebench.criteria.builtin` through the generated
:mod:`treebench.kernels.dispatch`.

All scans return ``(gain, n_left, tie_score, w_left)``: ``n_left = 0`` when
the feature has no valid candidate, else the left child is the first
``n_left`` positions (samples, for ``min_samples_leaf`` and the partition)
and ``w_left`` their weight (their count without weights).  The threshold
is read from the feature values at positions ``start + n_left - 1`` and
``start + n_left`` (:func:`threshold_at`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from treebench.kernels.candidates import SKIP, STOP, better, candidate_step, ties
from treebench.kernels.refcount import NO_REFCOUNT
from treebench.kernels.scoring import (
    ENTROPY,
    child_mass,
    g_term,
    is_additive,
    is_one_vs_rest,
    mass_from_sum,
    one_vs_rest_pair_mass,
    pair_mass,
    takes_quantile,
    tie_score_binary,
    whole_pair_mass,
    with_row_slot,
)
from treebench.kernels.step_scan import scan_step_bounded
from treebench.kernels.weights import sample_weight


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def take_candidate(gain, best, best_tie, tie_break, parent_entropy, left, right, w_left, total):
    """Whether a candidate replaces the best so far, and its tie score.

    Better by more than the tolerance wins; within the tolerance, with
    ``tie_break``, the higher entropy gain wins; otherwise the earlier
    candidate stays.  ``right`` must hold the right child's counts.
    """
    if not tie_break:
        return better(gain, best), 0.0
    if not better(gain, best) and not ties(gain, best):
        return False, 0.0
    tie = tie_score_binary(parent_entropy, left, right, w_left, total)
    if better(gain, best):
        return True, tie
    return better(tie, best_tie), tie


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def feature_value(values: np.ndarray, by_row: bool, f: int, sample: int) -> float:
    """Value of feature ``f`` for ``sample``: ``values`` is (n, d) when ``by_row``, else (d, n)."""
    if by_row:
        return values[sample, f]
    return values[f, sample]


@njit(cache=True, no_cfunc_wrapper=True, **NO_REFCOUNT)
def threshold_at(
    values: np.ndarray, by_row: bool, f: int, low_sample: int, high_sample: int, high_missing: bool, midpoint: bool
) -> float:
    """Threshold between two neighbouring samples of the sorted order (the high one may be missing).

    As scikit-learn: the midpoint, unless rounding makes it equal to the
    upper value (then the lower value); next to the NaN block, or with
    ``midpoint=False``, the lower (observed) value.
    """
    low = feature_value(values, by_row, f, low_sample)
    if high_missing or not midpoint:
        return low
    high = feature_value(values, by_row, f, high_sample)
    threshold = low / 2.0 + high / 2.0
    if threshold == high or math.isinf(threshold):
        threshold = low
    return threshold


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def moved_terms(cid: int, params: np.ndarray, table: np.ndarray, count: Any, rest: Any, w: Any):
    """Changes of ``sum g(left)`` and ``sum g(right)`` when one sample of weight ``w`` moves left.

    ``count`` and ``rest`` are its class's left and right counts before the move.
    """
    d_left = g_term(cid, params, table, count + w) - g_term(cid, params, table, count)
    d_right = g_term(cid, params, table, rest - w) - g_term(cid, params, table, rest)
    return d_left, d_right


# inlined (a test and a call): numba links each compiled callee's code into its caller and
# optimises it again there, so a separate scan_numeric was one more pass over both scans
@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def scan_numeric(
    ranks: np.ndarray,
    labels: np.ndarray,
    index: np.ndarray,
    weights: Any,
    start: int,
    end: int,
    missing: int,
    parent: np.ndarray,
    total: Any,
    parent_impurity: float,
    cid: int,
    params: np.ndarray,
    table: np.ndarray,
    min_leaf: int,
    left: np.ndarray,
    right: np.ndarray,
    scratch: np.ndarray,
    tie_break: bool,
    parent_entropy: float,
    whole: Any,
):
    """Best threshold of one numeric feature on positions ``[start, end)``, sample by sample.

    ``total`` is the node's weight (its size without weights).  With
    ``tie_break``, candidates whose scores tie are ranked by their entropy
    gain.  Missing values sort last and always go right, so candidates stop
    at the first one.  Returns ``(gain, n_left, tie_score, w_left)``.  ``whole``: ``None``, or the
    marker of a criterion scored whole (:func:`treebench.criteria.builtin.whole_split_marker`), whose type
    picks the row-scored scans compiled (those of the criteria scored whole, or of the others).
    """
    if is_additive(cid):
        return _scan_additive(
            ranks, labels, index, weights, start, end, missing, parent, total, parent_impurity, cid, params,
            table, min_leaf, left,
        )
    # a row-scored criterion: the specialisation of _scan_rows compiled for it alone (its id
    # handed over as a literal; without weights, the one with a bounded scan is not compiled, and
    # a step-bounded one gets scan_step_bounded instead)
    return with_row_slot(_scan_rows, scan_step_bounded, cid, weights, whole, (
        ranks, labels, index, weights, start, end, missing, parent, total, parent_impurity, params, table,
        min_leaf, left, right, scratch, tie_break, parent_entropy,
    ))


#: The right child's running ``G = sum g(c_i)`` is re-summed from its counts
#: whenever it falls below this share of its last exact value.  ``G`` starts
#: as the parent's and shrinks to a few samples' worth, while each update
#: rounds at the scale of the terms it started from: with ``g(c) = c^q`` and
#: a large ``q`` (Tsallis q = 6 on 3,000 rows: ``G`` from 1e20 down to 1) the
#: error would exceed the small child's whole ``G`` and make its impurity
#: negative.  Re-summing at every 16-fold drop bounds the relative error by
#: about 16 eps per sample scanned and costs O(k) a few dozen times per scan.
RESUM_FRACTION: float = 1.0 / 16.0


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def _right_sum(cid, params, table, parent, left):
    """``sum_i g(parent_i - left_i)``: the right child's ``G`` summed from its counts."""
    acc = 0.0
    for i in range(parent.shape[0]):
        acc += g_term(cid, params, table, parent[i] - left[i])
    return acc


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def _scan_additive(
    ranks, labels, index, weights, start, end, missing, parent, total, parent_impurity, cid, params, table,
    min_leaf, left,
):
    """:func:`scan_numeric` for the additive family: O(1) per sample, scalars only per candidate."""
    k = parent.shape[0]
    n = end - start
    g_left = 0.0
    g_right = 0.0
    for i in range(k):
        left[i] = 0
        g_right += g_term(cid, params, table, parent[i])
    w_left = total - total  # a zero of the counts' type
    best = -np.inf
    best_left = 0
    best_w_left = w_left
    anchor = abs(g_right)  # |G| of the right child where it was last summed exactly
    for p in range(start, end - 1):
        label = labels[p]
        w = sample_weight(weights, index, p)
        count = left[label]
        # the right count is parent - left: deriving it avoids a second
        # read-modify-write per sample on the critical path
        d_left, d_right = moved_terms(cid, params, table, count, parent[label] - count, w)
        g_left += d_left
        g_right += d_right
        left[label] = count + w
        w_left += w
        step = candidate_step(p - start + 1, n, min_leaf, ranks[p], ranks[p + 1], missing)
        if step == SKIP:
            continue
        if step == STOP:
            break
        if abs(g_right) < RESUM_FRACTION * anchor:
            # G of the right child only shrinks, while the running sum keeps the
            # rounding error of its largest terms: re-sum it from the counts
            # (checked where a candidate reads it: the error between re-sums is
            # then at most ~16 eps per sample scanned, relative to this G)
            g_right = _right_sum(cid, params, table, parent, left)
            anchor = abs(g_right)
        n_left = p - start + 1
        if is_one_vs_rest(cid):
            mass = one_vs_rest_pair_mass(cid, params, table, left, parent, w_left, total, g_left, g_right)
        else:
            mass = mass_from_sum(cid, params, table, w_left, g_left) + mass_from_sum(
                cid, params, table, total - w_left, g_right
            )
        gain = parent_impurity - mass / total
        if better(gain, best):
            best = gain
            best_left = n_left
            best_w_left = w_left
    return best, best_left, 0.0, best_w_left


@njit(cache=True, no_cfunc_wrapper=True, **NO_REFCOUNT)
def _scan_rows(slot, args):
    """:func:`scan_numeric` for the row-scored criterion ``slot``, a literal kernel id.

    Compiled once per row-scored criterion (:func:`treebench.kernels.dispatch.with_row_slot`
    hands the id over as a constant), and :func:`treebench.kernels.dispatch.pair_mass` inlines
    that criterion's scoring alone.  ``args`` are :func:`scan_numeric`'s arguments from
    ``ranks`` to ``parent_entropy`` without ``cid``, as one tuple (a starred call would lose the
    literal).  ``z`` is the two-branch quantile for a criterion that takes one (``params =
    [gamma, z(r=1), z(r=2), ...]``), else 0.

    The tie score (certainty's entropy gain) is kept as running sums of
    ``c log2 c`` read from ``table`` (the entropy table with ``tie_break``),
    like the additive scan's: no array is touched for it per candidate (see
    the hot-path rule in :mod:`treebench.kernels.scoring`).
    """
    (ranks, labels, index, weights, start, end, missing, parent, total, parent_impurity, params, table,
     min_leaf, left, right, scratch, tie_break, parent_entropy) = args
    k = parent.shape[0]
    n = end - start
    z = params[2] if takes_quantile(slot) else 0.0
    h_left = 0.0
    h_right = 0.0
    for i in range(k):
        left[i] = 0
        if tie_break:
            h_right += g_term(ENTROPY, params, table, parent[i])
    w_left = total - total
    best = -np.inf
    best_tie = -np.inf
    best_left = 0
    best_w_left = w_left
    for p in range(start, end - 1):
        label = labels[p]
        w = sample_weight(weights, index, p)
        count = left[label]
        if tie_break:
            d_left, d_right = moved_terms(ENTROPY, params, table, count, parent[label] - count, w)
            h_left += d_left
            h_right += d_right
        left[label] = count + w
        w_left += w
        step = candidate_step(p - start + 1, n, min_leaf, ranks[p], ranks[p + 1], missing)
        if step == SKIP:
            continue
        if step == STOP:
            break
        n_left = p - start + 1
        mass = pair_mass(slot, left, parent, right, w_left, total, z, scratch)
        gain = parent_impurity - mass / total
        tie = 0.0
        if tie_break:
            w_right = total - w_left
            entropy_mass = (
                g_term(ENTROPY, params, table, w_left) - h_left + g_term(ENTROPY, params, table, w_right) - h_right
            )
            tie = parent_entropy - entropy_mass / total
        # take_candidate's rule on scalars
        if not better(gain, best):
            if not (tie_break and ties(gain, best) and better(tie, best_tie)):
                continue
        best = gain
        best_tie = tie
        best_left = n_left
        best_w_left = w_left
    return best, best_left, best_tie, best_w_left


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def count_ranks(
    ranks: np.ndarray, labels: np.ndarray, start: int, end: int, first_rank: int, span: int, table: np.ndarray,
    at: int,
) -> None:
    """Rows ``at .. at + span - 1`` of ``table``: the (rank, class) counts of a sorted range (the histogram
    scan's, and the batch builder's tables at the root, :mod:`treebench.kernels.rank_tables`)."""
    for r in range(span):
        for i in range(table.shape[1]):
            table[at + r, i] = 0
    for p in range(start, end):
        table[at + np.int64(ranks[p]) - first_rank, labels[p]] += 1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def scan_numeric_histogram(
    ranks: np.ndarray,
    labels: np.ndarray,
    start: int,
    end: int,
    missing: int,
    parent: np.ndarray,
    parent_impurity: float,
    cid: int,
    params: np.ndarray,
    table: np.ndarray,
    min_leaf: int,
    left: np.ndarray,
    right: np.ndarray,
    scratch: np.ndarray,
    histogram: np.ndarray,
    tie_break: bool,
    parent_entropy: float,
    whole: Any,
):
    """:func:`scan_numeric` for a node with few distinct values (integer counts only).

    One pass counts (rank, class) pairs -- a single increment per sample --
    then :func:`scan_rank_table` scores candidates per distinct value, O(k)
    each.  Worth it when ``distinct values * k`` is well below the node size
    (the caller decides); it finds the same candidates with the same scores.
    Same return values as :func:`scan_numeric` (``w_left = n_left``);
    ``whole`` as in :func:`scan_numeric`.
    """
    # ranks may be uint16: signed arithmetic (numba types uint - uint as uint64)
    first_rank = np.int64(ranks[start])
    span = np.int64(ranks[end - 1]) - first_rank + 1
    count_ranks(ranks, labels, start, end, first_rank, span, histogram, np.int64(0))
    return scan_rank_table(
        histogram, np.int64(0), first_rank, span, np.int64(end - start), missing, parent, parent_impurity, cid,
        params, table, min_leaf, left, right, scratch, tie_break, parent_entropy, whole,
    )


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def scan_rank_table(
    histogram: np.ndarray,
    at: int,
    first_rank: int,
    span: int,
    n: int,
    missing: int,
    parent: np.ndarray,
    parent_impurity: float,
    cid: int,
    params: np.ndarray,
    table: np.ndarray,
    min_leaf: int,
    left: np.ndarray,
    right: np.ndarray,
    scratch: np.ndarray,
    tie_break: bool,
    parent_entropy: float,
    whole: Any,
):
    """The best threshold of one feature from its node's (rank, class) counts (integer counts only).

    Row ``at + r`` of ``histogram`` holds the class counts of rank ``first_rank + r``, for
    ``span`` ranks; the node has ``n`` samples.  Candidates are scored per distinct value,
    O(k) each.  Used by :func:`scan_numeric_histogram` (counts just made from the sorted rows)
    and by the batch builder's tables kept per node (:mod:`treebench.kernels.rank_tables`):
    one scan, so both find the same candidates with the same scores.  Same return values as
    :func:`scan_numeric` (``w_left = n_left``).
    """
    k = parent.shape[0]
    for i in range(k):
        left[i] = 0
    best = -np.inf
    best_tie = -np.inf
    best_left = 0
    n_left = 0
    seen = False
    for r in range(span):
        rank = first_rank + r
        size = 0
        for i in range(k):
            size += histogram[at + r, i]
        if size == 0:
            continue
        if seen and n_left >= min_leaf:
            # a few candidates per node here (at most the distinct values), so
            # scoring from the count rows costs little against the counting pass
            for i in range(k):
                right[i] = parent[i] - left[i]
            if whole is not None:  # a criterion scored whole: the other branch is not compiled
                mass = whole_pair_mass(cid, params, left, parent, right, np.int64(n_left), n, scratch)
            else:
                # not through scoring.two_way_mass: inlined here, its branch made numba count references
                # per candidate (+4-5 % on pendigits for every criterion, measured)
                n_right = n - n_left
                mass = child_mass(cid, params, table, left, np.int64(n_left), np.int64(2), scratch) + child_mass(
                    cid, params, table, right, np.int64(n_right), np.int64(2), scratch
                )
            gain = parent_impurity - mass / n
            take, tie = take_candidate(gain, best, best_tie, tie_break, parent_entropy, left, right, np.int64(n_left), n)
            if take:
                best = gain
                best_tie = tie
                best_left = n_left
        if rank == missing or n - n_left - size < min_leaf:
            break
        for i in range(k):
            left[i] += histogram[at + r, i]
        n_left += size
        seen = True
    return best, best_left, best_tie, best_left


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def tabulate_categories(
    codes: np.ndarray, labels: np.ndarray, index: np.ndarray, weights: Any, start: int, end: int,
    cat_counts: np.ndarray, cat_sizes: np.ndarray, cat_weights: np.ndarray, present: np.ndarray,
) -> int:
    """Class counts per category on ``[start, end)`` of a nominal row (sorted by code).

    Fills ``present[:r]`` with the codes that occur, in increasing order, and
    returns ``r``; ``cat_sizes`` counts samples, ``cat_weights`` their weight
    (``cat_counts`` holds class weights; without weights both are counts).
    """
    r = 0
    previous = -1
    for p in range(start, end):
        code = codes[p]
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
