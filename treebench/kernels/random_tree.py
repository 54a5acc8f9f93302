"""One random tree of paper 000's Figs. 2-3 experiment, grown in one compiled call.

The tree grows as :func:`treebench.papers.serrurier2015.random_trees.grow_random_tree`
describes (that Python loop stays as the oracle of the tests): a leaf drawn
uniformly among the splittable ones, an attribute uniformly among those with
two distinct values in it, the leaf split at that attribute's best threshold
under a criterion scored by :func:`treebench.kernels.scoring.score_children`.
The draws come from the caller's ``numpy.random.Generator`` in the same order
and with the same bounds as the Python loop, and numba's ``Generator.integers``
draws NumPy's numbers, so both grow the same tree from the same seed.

A leaf is a range of one permutation of the training rows (and one of the test
rows), as in the main builder: a split sorts the leaf's range by the attribute
and keeps its left part in place.  Only the set of rows in a leaf matters (the
counts at each distinct value do not depend on the order of equal values).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebench.kernels.scoring import score_children


@njit(cache=True)
def _count_classes(y: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    counts = np.zeros(k, np.int64)
    for r in rows:
        counts[y[r]] += 1
    return counts


@njit(cache=True)
def _classes_present(counts: np.ndarray) -> int:
    present = 0
    for c in counts:
        if c > 0:
            present += 1
    return present


@njit(cache=True)
def grow_random_leaves(
    X: np.ndarray, y: np.ndarray, X_test: np.ndarray, y_test: np.ndarray, k: int,
    cid: int, params: np.ndarray, target_leaves: int, rng: np.random.Generator,
) -> tuple[np.ndarray, int]:
    """Grow one random tree; return its leaves' training class counts and its correct test predictions.

    Parameters
    ----------
    X, y, X_test, y_test
        Training and test rows (float64) and their class codes ``0..k-1`` (int64).
    cid, params
        The threshold rule's criterion kernel id and parameters (``Criterion.kernel_params(2)``).
    target_leaves
        Stop at this many leaves (or when no leaf can be split).
    rng
        The tree's random stream (consumed exactly as the Python loop consumes it).

    Returns
    -------
    (leaf_counts, correct)
        ``(n_leaves, k)`` class counts, leaves in creation order; test rows
        whose leaf's majority class (lowest code on ties) is their class.
    """
    n, d = X.shape
    n_test = y_test.size
    order = np.arange(n)
    order_test = np.arange(n_test)
    start = np.zeros(target_leaves + 1, np.int64)
    end = np.zeros(target_leaves + 1, np.int64)
    start_test = np.zeros(target_leaves + 1, np.int64)
    end_test = np.zeros(target_leaves + 1, np.int64)
    counts = np.zeros((target_leaves + 1, k), np.int64)
    open_leaves = np.zeros(target_leaves + 1, np.int64)
    end[0], end_test[0] = n, n_test
    counts[0] = _count_classes(y, order, k)
    n_leaves, n_open = 1, 0
    if _classes_present(counts[0]) > 1:
        open_leaves[0], n_open = 0, 1
    usable = np.empty(d, np.int64)
    while n_leaves < target_leaves and n_open > 0:
        pick = rng.integers(0, n_open)
        node = open_leaves[pick]
        rows = order[start[node]:end[node]]
        n_usable = 0
        for a in range(d):
            low, high = X[rows[0], a], X[rows[0], a]
            for r in rows:
                v = X[r, a]
                if v < low:
                    low = v
                elif v > high:
                    high = v
            if high > low:
                usable[n_usable] = a
                n_usable += 1
        if n_usable == 0:
            open_leaves[pick:n_open - 1] = open_leaves[pick + 1:n_open]  # list.pop(pick)
            n_open -= 1
            continue
        a = usable[rng.integers(0, n_usable)]
        m = rows.size
        values = np.empty(m)
        for i in range(m):
            values[i] = X[rows[i], a]
        o = np.argsort(values, kind="mergesort")
        sorted_rows = rows[o]
        sorted_values = values[o]
        # candidates: between consecutive distinct values, with the class counts left of them
        n_cuts = 0
        for i in range(m - 1):
            if sorted_values[i + 1] > sorted_values[i]:
                n_cuts += 1
        children = np.zeros((n_cuts, 2, k), np.int64)
        cut_at = np.empty(n_cuts, np.int64)
        left = np.zeros(k, np.int64)
        c = 0
        for i in range(m - 1):
            left[y[sorted_rows[i]]] += 1
            if sorted_values[i + 1] > sorted_values[i]:
                children[c, 0] = left
                cut_at[c] = i + 1
                c += 1
        total = counts[node].copy()
        for c in range(n_cuts):
            children[c, 1] = total - children[c, 0]
        scores = score_children(cid, params, total, children)[1]
        best = np.argmax(scores)  # the first maximum: the smallest threshold
        cut = cut_at[best]
        threshold = 0.5 * (sorted_values[cut - 1] + sorted_values[cut])
        order[start[node]:end[node]] = sorted_rows
        new = n_leaves
        start[new], end[new] = start[node] + cut, end[node]
        end[node] = start[node] + cut
        # test rows: those above the threshold go to the new leaf, in their order (a stable partition)
        block = order_test[start_test[node]:end_test[node]].copy()
        kept = 0
        for t in block:
            if not X_test[t, a] > threshold:
                order_test[start_test[node] + kept] = t
                kept += 1
        moved = start_test[node] + kept
        for t in block:
            if X_test[t, a] > threshold:
                order_test[moved] = t
                moved += 1
        start_test[new], end_test[new] = start_test[node] + kept, end_test[node]
        end_test[node] = start_test[node] + kept
        counts[node] = children[best, 0]
        counts[new] = children[best, 1]
        n_leaves += 1
        open_leaves[n_open] = new
        n_open += 1
        if _classes_present(counts[new]) < 2:
            n_open -= 1
        if _classes_present(counts[node]) < 2:
            open_leaves[pick:n_open - 1] = open_leaves[pick + 1:n_open]
            n_open -= 1
    correct = 0
    for leaf in range(n_leaves):
        majority = np.argmax(counts[leaf])
        for i in range(start_test[leaf], end_test[leaf]):
            if y_test[order_test[i]] == majority:
                correct += 1
    return counts[:n_leaves].copy(), correct
