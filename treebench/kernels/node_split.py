"""Compiled split search at one node: every feature's best candidate, then the feature chosen.

The one search of the built-in criteria, shared by the batch builder
(:func:`treebench.kernels.induction.build`, at every node) and the online
learner (:func:`treebench.kernels.online.feed`, at a leaf after an arrival),
so that both make the same split from the same rows.  A node is the position
range ``[start, end)`` of the presorted rows (see
:mod:`treebench.kernels.induction` for the layout).  For each feature it
picks the scan (:mod:`treebench.kernels.scan`,
:mod:`treebench.kernels.possibilistic_bound`, :mod:`treebench.kernels.belief`):

* numeric: the label-mass sweep when the fit carries label masses; the
  histogram scan when the node has few distinct values against its size
  (``span * 2k <= size``, or, for the possibilistic criterion, at most
  :data:`~treebench.kernels.possibilistic_bound.FEW_CANDIDATES` of them);
  the bounded possibilistic scan for an unweighted possibilistic fit; else
  the sample-by-sample scan;
* nominal: one branch per category present (multiway), or the best
  one-category-against-the-rest split (binary).

Then :func:`_choose_feature` applies the rules across features: the
average-gain rule, the best split score beyond the tie tolerance (the
certainty tie score breaking ties), the lowest column on ties or a random
tied one (:mod:`treebench.kernels.ties`), and the acceptance test against
``min_gain``.

The other builders keep searches of their own, because their rules differ:

* the plugin builder (:mod:`treebench.kernels.custom`) scores with the
  user's function, in the numpy engine's arithmetic (its docstring says why
  it keeps its own loop; it shares the candidate rule, the threshold
  placement and :func:`accepts`);
* MEE trees (:mod:`treebench.kernels.mee_scan`) search feature, class set,
  orientation and threshold, scored by the entropy of the error rate under a
  convexity rule, from per-node level tables instead of a scan of the rows;
* C4.5 (:mod:`treebench.kernels.c45_split`) repeats Weka's J48 operation for
  operation: gain ratio among attributes of at least average gain, J48's
  least branch weight and threshold penalty, unknown values as fractional
  weights, every sum in the readable grower's order;
* belief trees are the batch builder with label masses: they use this search.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from treebench.kernels.belief import B_LAM, B_PRINTED, multiway_label_masses, scan_label_masses
from treebench.kernels.possibilistic_bound import (
    BAND,
    FEW_CANDIDATES,
    bound_workspace,
    scan_possibilistic_bounded,
)
from treebench.kernels.refcount import NO_REFCOUNT
from treebench.kernels.scan import (
    better,
    scan_numeric,
    scan_numeric_histogram,
    scan_rank_table,
    tabulate_categories,
    take_candidate,
    ties,
)
from treebench.kernels.scoring import (
    entropy_bits,
    final_score,
    has_bounded_scan,
    has_tie_break,
    is_whole_split,
    multiway_mass,
    two_way_mass,
)
from treebench.kernels.ties import pick_tied
from treebench.kernels.tolerances import TIE_TOLERANCE
from treebench.kernels.weights import zero_counts

#: Positions in the workspace tuple (:func:`split_workspace`) of the arrays callers read.
SCRATCH = 2
CAT_COUNTS = 3
CAT_SIZES = 4
CAT_WEIGHTS = 5
PRESENT = 6
CHILD_WEIGHTS = 7
CANDIDATE_BEST = 11  # each feature's best gain (-inf: no candidate)
BEST_LEFT = 13  # each feature's best left child size
BEST_CATEGORY = 14  # each feature's best category (binary nominal splits)

#: Rows of a node's table state (:mod:`treebench.kernels.rank_tables`), an int64 array (3,
#: n_features): where each feature's (rank, class) table starts in the pool (-1: the feature is in
#: row mode), the rank of its first row, and its number of rows.
TABLE_AT = 0
TABLE_LO = 1
TABLE_SPAN = 2


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def histogram_rows(cid: int, size: int, k: int) -> int:
    """Rows of the (rank, class) histogram a node of ``size`` samples may use: the most ranks
    :func:`few_values` accepts there, plus one."""
    if is_whole_split(cid):
        return (2 * size) // k + 1
    return size // (2 * k) + 1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def few_values(cid: int, span: int, k: int, size: int, histogram_rows: int) -> bool:
    """Whether a numeric feature of ``span`` ranks is scanned from its (rank, class) counts in a node of
    ``size`` samples and ``k`` classes, within the ``histogram_rows`` the caller allocated.

    Few values against the node size: ``span * 2k <= size``.  A criterion scored whole (Hellinger
    distance) scores every candidate from the count rows in either scan, so the choice only sets
    the cost, and the counts win while ``span * k <= 2 * size`` (Hellinger, min of 15 fits: letter
    31.5 -> 28.5 ms, pendigits 14.8 -> 12.7; ``4 * size`` was no better on letter and slower on
    kddcup99).
    The possibilistic criterion also when its candidates are few in number, where bounding them
    would not pay.  The other scans keep their running sums, whose rounding the counts' scan would
    not repeat, so their rule stays as it was.
    """
    if span > histogram_rows:
        return False
    if is_whole_split(cid):
        return span * k <= 2 * size
    return span * k * 2 <= size or (has_bounded_scan(cid) and span <= FEW_CANDIDATES)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def split_workspace(n_features: int, k: int, max_cats: int, weights: Any):
    """Scratch and per-feature results of :func:`search_node` (counts in the type ``weights`` gives)."""
    bound_work, bound_block = bound_workspace(k)
    width = max(max_cats, 2)
    return (
        zero_counts(weights, k),  # left
        zero_counts(weights, k),  # right
        np.empty(k),  # scratch
        zero_counts(weights, (max_cats, k)),  # cat_counts
        np.zeros(max_cats, np.int64),  # cat_sizes
        zero_counts(weights, max_cats),  # cat_weights
        np.zeros(max_cats, np.int64),  # present
        zero_counts(weights, width),  # child_weights
        bound_work,
        bound_block,
        np.empty(n_features),  # tie_best
        np.empty(n_features),  # candidate_best
        np.empty(n_features),  # split_best
        np.zeros(n_features, np.int64),  # best_left
        np.zeros(n_features, np.int64),  # best_category
        zero_counts(weights, n_features),  # best_w_left
    )


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def search_node(
    sorted_index: np.ndarray,
    sorted_rank: np.ndarray,
    sorted_label: np.ndarray,
    weights: Any,
    start: int,
    end: int,
    n_levels: np.ndarray,
    parent: np.ndarray,
    total: Any,
    impurity: float,
    features: np.ndarray,
    n_features: int,
    kept: np.ndarray,
    is_nominal: np.ndarray,
    cid: int,
    params: np.ndarray,
    table: np.ndarray,
    rules: tuple,
    histogram: Any,
    histogram_rows: int,
    bound_table: Any,
    bounds: Any,
    label_masses: Any,
    prefix: np.ndarray,
    suffix: np.ndarray,
    tie_stream: Any,
    work: tuple,
    tables: Any = None,
    table_state: Any = None,
):
    """The split of the node ``[start, end)``: ``(feature, score, n_kept)``, ``feature = -1`` for a leaf.

    Searches ``features[:n_features]`` (the node's features, in column order)
    and writes those not constant in the node to ``kept[:n_kept]`` (a constant
    one stays constant below).  ``parent`` holds the node's class counts,
    ``total`` their sum and ``impurity`` the criterion's value of them;
    ``n_levels[f]`` is feature ``f``'s NaN rank.  ``histogram_rows`` is the
    number of rows the histogram scan may use (the builder's allocation);
    ``histogram``, ``bound_table`` and ``bounds`` are ``None`` in a weighted
    fit, which runs neither scan of integer counts (and so compiles neither).
    ``label_masses``, ``prefix``, ``suffix``: as in
    :func:`treebench.kernels.induction.build` (``None`` and unused arrays
    without label masses).  ``tie_stream``: ``None``, or the random tie-break's
    stream, drawn from when ``random_ties``.  ``rules`` ends with ``whole``: ``None``, or the marker
    of a criterion scored whole (:func:`treebench.criteria.builtin.whole_split_marker`); being in the tuple,
    its type is part of this function's signature, and the scans and nominal scoring it is handed to
    compile only their code for that kind of criterion.  The chosen feature's split is in
    ``work``: ``work[BEST_LEFT][feature]`` samples left (numeric; binary
    nominal), ``work[BEST_CATEGORY][feature]`` the left category (binary
    nominal); ``work[CANDIDATE_BEST]`` holds every feature's best gain.
    ``tables``: ``None``, or the batch builder's pool of (rank, class) tables
    (:mod:`treebench.kernels.rank_tables`), ``table_state`` the node's (rows :data:`TABLE_AT`,
    :data:`TABLE_LO`, :data:`TABLE_SPAN`): a feature in table mode is scanned from its table
    (trimmed to the node's ranks), its sorted row being stale.
    """
    min_samples_leaf, nominal_binary, average_gain_rule, strict_accept, min_gain, random_ties, whole = rules
    (left, right, scratch, cat_counts, cat_sizes, cat_weights, present, child_weights, bound_work,
     bound_block, tie_best, candidate_best, split_best, best_left, best_category, best_w_left) = work
    tie_break = has_tie_break(cid, params)
    k = parent.shape[0]
    size = end - start
    candidate_best[:] = -np.inf
    split_best[:] = -np.inf
    tie_best[:] = -np.inf
    parent_entropy = entropy_bits(parent, total) if tie_break else 0.0
    n_kept = 0
    for a in range(n_features):
        f = features[a]
        in_table = False
        if tables is not None:  # ``is not None``: the online learner's version has no tables
            in_table = table_state[TABLE_AT, f] >= 0
        if in_table:
            if table_state[TABLE_SPAN, f] <= 1:
                continue
        elif sorted_rank[f, start] == sorted_rank[f, end - 1]:
            continue
        kept[n_kept] = f
        n_kept += 1
        if not is_nominal[f]:
            if in_table:  # the builder keeps tables only where the histogram scan reads them
                gain, n_left, tie, w_left = scan_rank_table(
                    tables, table_state[TABLE_AT, f], table_state[TABLE_LO, f], table_state[TABLE_SPAN, f], np.int64(size), n_levels[f], parent,
                    impurity, cid, params, table, min_samples_leaf, left, right, scratch, tie_break,
                    parent_entropy, whole,
                )
            elif label_masses is not None:
                gain, n_left, tie, w_left = scan_label_masses(
                    sorted_rank[f], sorted_index[f], start, end, n_levels[f], label_masses, params[B_LAM],
                    params[B_PRINTED], min_samples_leaf, prefix, suffix,
                )
            # the scans of integer counts: their buffers are None in a weighted build, which then
            # compiles neither (see weights.unweighted_only; ``is not None`` prunes by type)
            elif histogram is not None and few_values(
                cid, np.int64(sorted_rank[f, end - 1]) - np.int64(sorted_rank[f, start]) + 1, k, size, histogram_rows
            ):
                gain, n_left, tie, w_left = scan_numeric_histogram(
                    sorted_rank[f], sorted_label[f], start, end, n_levels[f], parent, impurity, cid,
                    params, table, min_samples_leaf, left, right, scratch, histogram, tie_break,
                    parent_entropy, whole,
                )
            elif bounds is not None and has_bounded_scan(cid):
                gain, n_left, tie, w_left = scan_possibilistic_bounded(
                    sorted_rank[f], sorted_label[f], start, end, n_levels[f], parent, impurity, params, table,
                    min_samples_leaf, left, right, scratch, bound_table, bounds, bound_work, bound_block, BAND,
                )
            else:
                gain, n_left, tie, w_left = scan_numeric(
                    sorted_rank[f], sorted_label[f], sorted_index[f], weights, start, end, n_levels[f],
                    parent, total, impurity, cid, params, table, min_samples_leaf, left, right, scratch,
                    tie_break, parent_entropy, whole,
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
            for j in range(r):
                code = present[j]
                child_weights[j] = cat_weights[code]
                if cat_sizes[code] < min_samples_leaf:
                    valid = False
            # the children's summed masses, or the whole split's for a criterion scored whole
            mass = multiway_mass(
                cid, params, table, cat_counts, present, cat_weights, r, parent, total, scratch, whole
            )
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
            mass = two_way_mass(cid, params, table, left, right, w_left, parent, total, scratch, whole)
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
    chosen, best = _choose_feature(
        candidate_best, split_best, tie_best, tie_break, average_gain_rule, strict_accept, min_gain, random_ties,
        tie_stream,
    )
    return chosen, best, n_kept


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def accepts(score: float, min_gain: float, strict: bool) -> bool:
    """Whether a node's best split is made (:meth:`treebench.criteria.base.Criterion.accepts`).

    ``score > min_gain`` when ``strict``, else ``score >= min_gain`` less the
    tie tolerance, so that a zero gain rounded below zero counts as zero.
    """
    if strict:
        return score > min_gain
    return not score < min_gain - TIE_TOLERANCE * max(1.0, abs(min_gain))


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def _choose_feature(
    candidate_best, split_best, tie_best, tie_break, average_gain_rule, strict_accept, min_gain, random_ties,
    tie_stream,
):
    """``(feature, score)`` of the split the node takes, ``(-1, 0.0)`` when it stays a leaf.

    ``-inf`` in ``split_best`` marks a feature without a candidate.
    """
    n_features = split_best.shape[0]
    n_usable = 0
    average = 0.0
    for f in range(n_features):
        if split_best[f] > -np.inf:
            n_usable += 1
            average += candidate_best[f]
    if n_usable == 0:
        return -1, 0.0
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
    if chosen < 0 or not accepts(best, min_gain, strict_accept):
        return -1, 0.0
    # drawn only for an accepted split: the online learner skips the rest unsearched
    if tie_stream is not None:  # ``is not None``: pruned where there is no stream
        if random_ties:
            chosen = pick_tied(chosen, candidate_best, split_best, tie_best, tie_break, average_gain_rule, tie_stream)
            best = split_best[chosen]
    return chosen, best
