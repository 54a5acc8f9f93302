"""The node step of Weka's J48 on presorted data without missing values, as a numba kernel.

:func:`grow_node` does at one node what ``C45ModelSelection.selectModel`` and ``C45Split`` do
(see :mod:`treebench.trees.c45`, which stays the readable reference): the leaf test, the best
binary cut of every numeric attribute, the choice by gain ratio among the splits of at least
average gain, the snapping of the cut to a training value, and then the stable partition of the
node's presorted index columns between the two children.

It is only used when every attribute is numeric, no value is missing and every weight is a whole
number (the usual case: no ``sample_weight``).  Every class count and every weight sum is then
an exact integer, whatever the order of summation, and ``x log2 x`` is read from a table that
:func:`treebench.trees.c45._xlog2x` computed, so each gain is the same floating-point number as
the numpy reference computes.  The sums over classes of ``x log2 x`` terms repeat numpy's
pairwise summation (:func:`np_sum`), so that even those are bit-identical.

Layout: ``order`` is ``(p + 1, n)``; row ``j < p`` holds the training rows sorted by attribute
``j`` (stable, so ties stay in row order) and row ``p`` the rows in increasing order.  A node
owns the same slice ``lo:hi`` of every row; :func:`grow_node` partitions the slice stably, the
left child's rows first, so both children own slices again.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

SMALL = 1e-6
SAME_VALUE = 1e-5


@njit(cache=True, inline="always")
def np_sum(a: np.ndarray, n: int) -> float:
    """``a[:n].sum()`` in numpy's order: sequential below 8 values, else 8 running sums combined
    pairwise and the rest added (numpy's ``pairwise_sum`` for up to 128 values)."""
    first = a[0]
    if n < 8:
        s = first
        for i in range(1, n):
            s += a[i]
        return s
    r0, r1, r2, r3, r4, r5, r6, r7 = first, a[1], a[2], a[3], a[4], a[5], a[6], a[7]
    i = 8
    while i + 8 <= n:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        s += a[i]
        i += 1
    return s


@njit(cache=True)
def last_below(values: np.ndarray, cut: float, slack: float) -> int:
    """Index of the last of the sorted ``values`` with ``value - cut < slack``, -1 when none."""
    lo, hi = 0, values.shape[0]
    while lo < hi:  # the predicate is monotone in value
        mid = (lo + hi) // 2
        if values[mid] - cut < slack:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@njit(cache=True)
def grow_node(
    X: np.ndarray, y: np.ndarray, w: np.ndarray, order: np.ndarray, sorted_x: np.ndarray,
    lo: int, hi: int, min_leaf: float, mdl: bool, tab: np.ndarray,
    per_class: np.ndarray, bags: np.ndarray, mask: np.ndarray, buf: np.ndarray, work: np.ndarray,
) -> tuple[int, float, int]:
    """Choose and make the split of the node owning ``order[:, lo:hi]``.

    Parameters
    ----------
    X, y, w:
        Training matrix (no NaN), class codes and whole-number weights.
    order:
        ``(p + 1, n)`` index columns (see the module's docstring); partitioned in place.
    sorted_x:
        ``(p, n)``: every attribute's training values sorted (for snapping cuts).
    min_leaf:
        J48's ``M``.
    mdl:
        Subtract Quinlan's MDL penalty from numeric gains.
    tab:
        ``tab[a] = a log2 a`` for the whole numbers ``0 .. total weight``.
    per_class, bags:
        Outputs: the node's class weights ``(k,)`` and the chosen split's ``(2, k)``.
    mask, buf:
        Scratch of ``n`` booleans and ``n`` indices.
    work:
        Scratch ``(4 + p, k)`` floats.

    Returns
    -------
    (feature, threshold, n_left)
        ``feature`` -1 for a leaf; else the snapped threshold and the left child's size.
    """
    p = order.shape[0] - 1
    k = per_class.shape[0]
    ident = order[p]
    for c in range(k):
        per_class[c] = 0.0
    for i in range(lo, hi):
        r = ident[i]
        per_class[y[r]] += w[r]
    total = 0.0
    for c in range(k):
        total += per_class[c]
    top, majority = 0.0, 0
    for c in range(k):
        if per_class[c] - top > SMALL:
            top, majority = per_class[c], c
    if 2 * min_leaf - total > SMALL or abs(total - per_class[majority]) < SMALL:
        return -1, math.nan, 0
    # C45Split.handleNumericAttribute's minSplit and "enough known cases" (counted, not weighed)
    least = 0.1 * total / k
    if least - min_leaf < SMALL:
        least = min_leaf
    elif least - 25.0 > SMALL:
        least = 25.0
    if 2 * least - (hi - lo) > SMALL:
        return -1, math.nan, 0
    left = work[0]
    xl = work[1]
    xr = work[2]
    for c in range(k):
        xl[c] = tab[int(per_class[c])]
    old = tab[int(total)] - np_sum(xl, k)
    best_left = work[4:]
    gains = np.full(p, -math.inf)
    ratios = np.zeros(p)
    cuts = np.zeros(p)
    for j in range(p):
        col = order[j]
        for c in range(k):
            left[c] = 0.0
        lw = 0.0
        n_cuts = 0
        best = 0.0
        at = -1
        x_next = X[col[lo], j]
        for i in range(lo, hi - 1):
            r = col[i]
            c = y[r]
            left[c] += w[r]
            lw += w[r]
            x_here = x_next
            x_next = X[col[i + 1], j]
            if not x_here + SAME_VALUE < x_next:
                continue
            if not (lw - least > -SMALL and (total - lw) - least > -SMALL):
                continue
            n_cuts += 1
            for c in range(k):
                xl[c] = tab[int(left[c])]
                xr[c] = tab[int(per_class[c] - left[c])]
            new = ((tab[int(lw)] - np_sum(xl, k)) + tab[int(total - lw)]) - np_sum(xr, k)
            numerator = (old - new) * 1.0
            gain = 0.0 if abs(numerator) < SMALL else numerator / total
            if gain - best > SMALL:
                best = gain
                at = i
                for c in range(k):
                    best_left[j, c] = left[c]
        if n_cuts == 0:
            continue
        gain = best - (math.log2(n_cuts) / total if mdl else 0.0)
        if gain < SMALL:
            continue
        x_at, x_up = X[col[at], j], X[col[at + 1], j]
        cut = (x_at + x_up) / 2
        if cut == x_up:
            cut = x_at
        weight_left = 0.0
        for c in range(k):
            weight_left += best_left[j, c]
        weight_right = total - weight_left
        entropy = (-(tab[int(weight_left)] + tab[int(weight_right)]) - 0.0) + tab[int(total)]
        gains[j] = gain
        ratios[j] = 0.0 if abs(entropy) < SMALL else gain / (entropy / total)
        cuts[j] = cut
    # C45ModelSelection: the largest gain ratio among the splits of at least average gain
    count, summed = 0, 0.0
    for j in range(p):
        if gains[j] > -math.inf:
            summed += gains[j]
            count += 1
    if count == 0:
        return -1, math.nan, 0
    average = summed / count
    feature, top = -1, 0.0
    for j in range(p):
        if gains[j] > -math.inf and gains[j] >= average - 1e-3 and ratios[j] - top > SMALL:
            feature, top = j, ratios[j]
    if feature < 0:
        return -1, math.nan, 0
    for c in range(k):
        bags[0, c] = best_left[feature, c]
        bags[1, c] = per_class[c] - best_left[feature, c]
    # C45Split.setSplitPoint: the largest training value not above the cut
    values = sorted_x[feature]
    below = last_below(values, cuts[feature], SMALL)
    threshold = values[below] if below >= 0 else cuts[feature]
    # route (x - threshold < SMALL goes left) and partition every column stably
    n_left = 0
    for i in range(lo, hi):
        r = ident[i]
        goes = X[r, feature] - threshold < SMALL
        mask[r] = goes
        if goes:
            n_left += 1
    for j in range(p + 1):
        col = order[j]
        a, b = lo, 0
        for i in range(lo, hi):
            r = col[i]
            if mask[r]:
                col[a] = r
                a += 1
            else:
                buf[b] = r
                b += 1
        for i in range(b):
            col[a + i] = buf[i]
    return feature, threshold, n_left


# --------------------------------------------------------------------------- pruning
@njit(cache=True)
def added_errors(n: float, errors: float, confidence: float, z: float) -> float:
    """:func:`treebench.trees.pruning.added_errors` (Weka's ``Stats.addErrs``), same operations."""
    if errors < 1:
        base = n * (1.0 - confidence ** (1.0 / n))
        if errors == 0:
            return base
        one = 1.0
        if one + 0.5 >= n:
            at_one = max(n - one, 0.0)
        else:
            f = (one + 0.5) / n
            upper = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
            at_one = upper * n - one
        return base + errors * (at_one - base)
    if errors + 0.5 >= n:
        return max(n - errors, 0.0)
    f = (errors + 0.5) / n
    upper = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
    return upper * n - errors


@njit(cache=True)
def branch_errors(
    X: np.ndarray, y: np.ndarray, rows: np.ndarray, weights: np.ndarray, root: int,
    feature: np.ndarray, threshold: np.ndarray, left: np.ndarray, right: np.ndarray,
    counts: np.ndarray, confidence: float, z: float,
) -> float:
    """``getEstimatedErrorsForBranch`` of a binary numeric subtree on cases without missing values.

    The subtree is ``root`` with ``feature`` (-1 at a leaf), ``threshold``, ``left`` and
    ``right`` indexed by node; ``counts`` is a zeroed ``(n_nodes, k)`` scratch, zeroed again on
    return.  Every leaf's estimate is Weka's pessimistic error count of the cases reaching it
    (0 for none), summed as the recursive definition sums (left, then right, at every node).
    Whole-number weights only: each leaf's class weights are then exact.
    """
    k = counts.shape[1]
    for i in range(rows.shape[0]):
        r = rows[i]
        node = root
        while feature[node] >= 0:
            node = left[node] if X[r, feature[node]] - threshold[node] < SMALL else right[node]
        counts[node, y[r]] += weights[i]
    # the subtree breadth first (a node's children after it), then children before parents
    nodes = [root]
    kid = [-1]  # position of a node's left child; the right one follows it
    i = 0
    while i < len(nodes):
        node = nodes[i]
        if feature[node] >= 0:
            kid[i] = len(nodes)
            nodes.append(left[node])
            kid.append(-1)
            nodes.append(right[node])
            kid.append(-1)
        i += 1
    values = np.zeros(len(nodes))
    for i in range(len(nodes) - 1, -1, -1):
        node = nodes[i]
        if kid[i] >= 0:
            values[i] = values[kid[i]] + values[kid[i] + 1]
            continue
        total = 0.0
        for c in range(k):
            total += counts[node, c]
        top, majority = 0.0, 0
        for c in range(k):
            if counts[node, c] - top > SMALL:
                top, majority = counts[node, c], c
        wrong = total - counts[node, majority]
        for c in range(k):
            counts[node, c] = 0.0
        if abs(total) >= SMALL:
            values[i] = wrong + added_errors(total, wrong, confidence, z)
    return values[0]
