"""One node of Weka's J48 in numba: every attribute's split, the choice, the branch shares.

The functions repeat :mod:`treebench.trees.c45` (``numeric_candidate``, ``nominal_candidate``,
``_Grower.select``, ``add_unknowns``, ``Node.shares``) operation for operation, sums in numpy's
order (:mod:`treebench.kernels.c45_sums`), so that the compiled growers build the readable
grower's trees.  Distributions are ``(n_bags, k)`` blocks stored row by row in flat arrays.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.kernels.c45_sums import (
    SAME_VALUE,
    SMALL,
    fsum,
    pairwise,
    tab_sum,
    xlog2x,
    xlog2x_sum,
)
from treebench.kernels.ties import replaces_tied


@njit(cache=True)
def min_split(known_weight: float, k: int, min_leaf: float) -> float:
    """Least weight on each side of a numeric cut: ``0.1 * known / classes`` clamped to ``[M, 25]``."""
    value = 0.1 * known_weight / k
    if value - min_leaf < SMALL:
        return min_leaf
    return 25.0 if value - 25.0 > SMALL else value


@njit(cache=True)
def split_entropy(per_bag: np.ndarray, node_weight: float, tab: np.ndarray, scratch: np.ndarray) -> float:
    """``GainRatioSplitCrit.splitEnt``: the unknown weight is one more bag."""
    known = fsum(per_bag)
    if known <= SMALL:
        return 0.0
    return (-xlog2x_sum(per_bag, tab, scratch) - xlog2x(node_weight - known, tab)) + xlog2x(node_weight, tab)


@njit(cache=True)
def ratio_of(gain: float, per_bag: np.ndarray, node_weight: float, tab: np.ndarray, scratch: np.ndarray) -> float:
    """``GainRatioSplitCrit.splitCritValue``: 0 for a trivial split."""
    entropy = split_entropy(per_bag, node_weight, tab, scratch)
    if abs(entropy) < SMALL:
        return 0.0
    return gain / (entropy / node_weight)


@njit(cache=True)
def numeric_scan(
    X: np.ndarray, j: int, rows: np.ndarray, wts: np.ndarray, y: np.ndarray, ranked: np.ndarray,
    per_class: np.ndarray, node_weight: float, min_leaf: float, mdl: bool, tab: np.ndarray, bags: np.ndarray,
    work: np.ndarray, whole: bool,
) -> tuple[bool, float, float, float]:
    """``numeric_candidate`` of attribute ``j`` on the node's known cases sorted by value (ties in
    node order): case ``i`` is ``rows[t]`` with weight ``wts[t]``, ``t = ranked[i]``.

    Parameters
    ----------
    per_class:
        The node's class weights (its known cases' when ``whole``: no value is then missing).
    bags:
        Output: the cut's ``(2, k)`` class weights (below, above), when a cut is found.
    work:
        Scratch of at least ``6 k + 4`` values.
    whole:
        Every weight is a whole number and ``tab`` covers their total: sums are exact in any order
        and ``x log2 x`` is read directly.

    Returns
    -------
    (found, gain, ratio, cut)
        The MDL-corrected gain, the gain ratio and the midpoint cut (before snapping).
    """
    m, k = ranked.shape[0], per_class.shape[0]
    if m == 0:
        return False, 0.0, 0.0, 0.0
    last = work[0:k]  # cum[-1]: class weights summed in sorted order
    left = work[k:2 * k]
    right = work[2 * k:3 * k]
    best_left = work[3 * k:4 * k]
    scratch = work[4 * k:6 * k]
    for c in range(k):
        last[c] = per_class[c] if whole else 0.0  # whole: the same sums in any order
        left[c] = 0.0
    if not whole:
        for i in range(m):
            t = ranked[i]
            last[y[rows[t]]] += wts[t]
    known_weight = pairwise(last)
    least = min_split(known_weight, k, min_leaf)
    if 2 * least - m > SMALL:  # Weka counts cases here, not weight
        return False, 0.0, 0.0, 0.0
    old = xlog2x(known_weight, tab) - xlog2x_sum(last, tab, scratch)
    share = 1.0 - (node_weight - known_weight) / node_weight
    left_weight = 0.0
    n_cuts, at, best = 0, -1, 0.0
    t = ranked[0]
    x_next = X[rows[t], j]
    for i in range(m - 1):
        weight = wts[t]
        left[y[rows[t]]] += weight
        left_weight += weight
        x_here = x_next
        t = ranked[i + 1]
        x_next = X[rows[t], j]
        if not x_here + SAME_VALUE < x_next:
            continue
        if not (left_weight - least > -SMALL and (known_weight - left_weight) - least > -SMALL):
            continue
        n_cuts += 1
        if k < 8:  # numpy adds fewer than 8 values one by one from 0: one loop does all four sums
            sum_left, sum_right, xl_left, xl_right = 0.0, 0.0, 0.0, 0.0
            if whole:  # every sum a whole number within the table
                for c in range(k):
                    here, there = left[c], last[c] - left[c]
                    sum_left += here
                    sum_right += there
                    xl_left += tab[int(here)]
                    xl_right += tab[int(there)]
                new = ((tab[int(sum_left)] - xl_left) + tab[int(sum_right)]) - xl_right
            else:
                for c in range(k):
                    here, there = left[c], last[c] - left[c]
                    sum_left += here
                    sum_right += there
                    xl_left += xlog2x(here, tab)
                    xl_right += xlog2x(there, tab)
                new = ((xlog2x(sum_left, tab) - xl_left) + xlog2x(sum_right, tab)) - xl_right
        else:
            for c in range(k):
                right[c] = last[c] - left[c]
            new = (((xlog2x(fsum(left), tab) - xlog2x_sum(left, tab, scratch))
                    + xlog2x(fsum(right), tab)) - xlog2x_sum(right, tab, scratch))
        numerator = (old - new) * share
        gain = 0.0 if abs(numerator) < SMALL else numerator / known_weight
        if gain - best > SMALL:  # first_max: a later cut must beat the record by 1e-6
            best, at = gain, i
            for c in range(k):
                best_left[c] = left[c]
    if n_cuts == 0:
        return False, 0.0, 0.0, 0.0
    gain = (best if at >= 0 else 0.0) - (math.log2(n_cuts) / node_weight if mdl else 0.0)
    if gain < SMALL:
        return False, 0.0, 0.0, 0.0
    x_at, x_up = X[rows[ranked[at]], j], X[rows[ranked[at + 1]], j]
    cut = (x_at + x_up) / 2
    if cut == x_up:  # rounding put the midpoint on the upper value
        cut = x_at
    for c in range(k):
        bags[c] = best_left[c]
        bags[k + c] = last[c] - best_left[c]
    per_bag = work[6 * k:6 * k + 2]
    per_bag[0] = pairwise(bags[:k])
    per_bag[1] = pairwise(bags[k:2 * k])
    ratio = ratio_of(gain, per_bag, node_weight, tab, work[6 * k + 2:6 * k + 4])
    return True, gain, ratio, cut


@njit(cache=True)
def nominal_scan(
    bags: np.ndarray, n_values: int, k: int, node_weight: float, min_leaf: float, tab: np.ndarray,
    work: np.ndarray, whole: bool,
) -> tuple[bool, float, float]:
    """``nominal_candidate`` on the known cases' ``(n_values, k)`` weights ``bags``.

    ``work``: scratch of at least ``n_values * k + n_values + 2 k`` values.  ``whole``: every
    weight is a whole number within ``tab`` (``x log2 x`` read directly, the same values).
    Returns ``(found, gain, ratio)``: found unless fewer than two branches reach ``M``.
    """
    per_bag = work[0:n_values]
    per_class = work[n_values:n_values + k]
    scratch = work[n_values + k:]
    reached = 0
    for v in range(n_values):
        per_bag[v] = fsum(bags[v * k:(v + 1) * k])
        if per_bag[v] - min_leaf > -SMALL:
            reached += 1
    if reached < 2:
        return False, 0.0, 0.0
    cells = bags[:n_values * k]
    known = fsum(cells)
    for c in range(k):
        per_class[c] = bags[c]
    for v in range(1, n_values):
        for c in range(k):
            per_class[c] += bags[v * k + c]
    if whole:
        old = xlog2x(fsum(per_class), tab) - tab_sum(per_class, tab, scratch)
        bag_entropy = tab_sum(per_bag, tab, scratch)
        new = bag_entropy - tab_sum(cells, tab, scratch)
    else:
        old = xlog2x(fsum(per_class), tab) - xlog2x_sum(per_class, tab, scratch)
        bag_entropy = xlog2x_sum(per_bag, tab, scratch)
        new = bag_entropy - xlog2x_sum(cells, tab, scratch)
    numerator = old - new
    numerator *= 1.0 - (node_weight - known) / node_weight
    gain = 0.0 if abs(numerator) < SMALL else numerator / known
    # ratio_of (split_entropy) with the bags' x log2 x sum already at hand
    bag_weight = fsum(per_bag)
    if bag_weight <= SMALL:
        return True, gain, 0.0
    entropy = (-bag_entropy - xlog2x(node_weight - bag_weight, tab)) + xlog2x(node_weight, tab)
    return True, gain, 0.0 if abs(entropy) < SMALL else gain / (entropy / node_weight)


@njit(cache=True)
def choose(found: np.ndarray, gains: np.ndarray, ratios: np.ndarray, counted: np.ndarray) -> int:
    """``C45ModelSelection.selectModel``: the largest gain ratio among the splits of at least
    average gain (the average over ``counted`` attributes), -1 for none."""
    total, count = 0.0, 0
    for j in range(found.shape[0]):
        if found[j] and counted[j]:
            total += gains[j]
            count += 1
    if count == 0:
        return -1
    average = total / count
    best, top = -1, 0.0
    for j in range(found.shape[0]):
        if found[j] and gains[j] >= average - 1e-3 and ratios[j] - top > SMALL:
            best, top = j, ratios[j]
    return best


@njit(cache=True)
def choose_tied(
    best: int, found: np.ndarray, gains: np.ndarray, ratios: np.ndarray, counted: np.ndarray, state: np.ndarray
) -> int:
    """``feature_ties="random"``: one of the splits tied with :func:`choose`'s ``best``, uniformly at random.

    Tied: a split :func:`choose` could have kept had it come first -- of at least
    average gain, its gain ratio within ``SMALL`` of ``best``'s.  One draw per tied
    attribute after the first (:func:`treebench.kernels.ties.replaces_tied`).
    """
    total, count = 0.0, 0
    for j in range(found.shape[0]):
        if found[j] and counted[j]:
            total += gains[j]
            count += 1
    average = total / count
    top = ratios[best]
    n_tied = 0
    chosen = best
    for j in range(found.shape[0]):
        if found[j] and gains[j] >= average - 1e-3 and abs(ratios[j] - top) <= SMALL:
            n_tied += 1
            if n_tied > 1 and replaces_tied(state, n_tied):
                chosen = j
    return chosen


@njit(cache=True)
def add_unknowns(bags: np.ndarray, k: int, unknown: np.ndarray, scratch: np.ndarray) -> None:
    """``Distribution.addInstWithUnknown`` in place on a ``(n_bags, k)`` block: the unknown cases'
    class weights ``unknown`` added to every bag by its known share (equal ones when none is known)."""
    n_bags = bags.shape[0] // k
    total = pairwise(bags)
    for b in range(n_bags):
        scratch[b] = pairwise(bags[b * k:(b + 1) * k]) / total if abs(total) >= SMALL else 1.0 / n_bags
    for b in range(n_bags):
        for c in range(k):
            bags[b * k + c] = bags[b * k + c] + scratch[b] * unknown[c]


@njit(cache=True)
def shares(dist: np.ndarray, k: int, out: np.ndarray) -> None:
    """Each branch's share of the weight of a ``(n_bags, k)`` block (``Node.shares``,
    ``C45Split.weights``) into ``out[:n_bags]``."""
    n_bags = dist.shape[0] // k
    for b in range(n_bags):
        out[b] = pairwise(dist[b * k:(b + 1) * k])
    total = pairwise(out[:n_bags])
    for b in range(n_bags):
        out[b] = out[b] / total
