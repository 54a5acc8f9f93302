"""Weka J48's tree growing in numba: the whole tree in one call, nominal and numeric attributes.

Two growers build the same trees as ``treebench.trees.c45._Grower.grow`` (the readable
reference), node for node and bit for bit in every distribution:

* :func:`grow_presorted`: no missing value and whole-number weights (the usual case).  Every
  numeric attribute is sorted once; a node owns the slice ``lo:hi`` of every sorted column and
  of the row column, and its split partitions those slices stably between its children.  Every
  weight sum is then an exact whole number, in any order.
* :func:`grow_general`: missing values or fractional weights.  A node owns its cases in the
  reference's order (the known ones of its parent's split, then the unknown ones with their
  weight times the branch's share: J48's fractional instances) and sorts each numeric attribute
  as J48 does, so that every sum is added in the reference's order.

The tree comes back as arrays (see :data:`FEAT` ...): a node's children are consecutive rows,
``nodes[i, KID] ...``; its ``(n_bags, k)`` distribution is ``dist[nodes[i, DST] * k:]``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from treebench.kernels.c45_split import (
    add_unknowns,
    choose,
    choose_tied,
    nominal_scan,
    numeric_scan,
    shares,
)
from treebench.kernels.c45_sums import SMALL, last_below, max_class, pairwise

#: Columns of the ``nodes`` array: split attribute (-1 at a leaf), first child, number of
#: children, first distribution row, number of distribution rows, empty leaf, nominal split.
FEAT, KID, NKID, DST, DN, EMPTY, NOM = 0, 1, 2, 3, 4, 5, 6
N_COLUMNS = 7


@njit(cache=True)
def _more_nodes(nodes: np.ndarray, thr: np.ndarray, need: int) -> tuple[np.ndarray, np.ndarray]:
    if need <= nodes.shape[0]:
        return nodes, thr
    cap = max(need, 2 * nodes.shape[0])
    bigger = np.empty((cap, N_COLUMNS), dtype=np.int64)
    wider = np.empty(cap)
    for i in range(nodes.shape[0]):  # loops: a slice copy compiles a shape-mismatch error path
        for c in range(N_COLUMNS):
            bigger[i, c] = nodes[i, c]
        wider[i] = thr[i]
    return bigger, wider


@njit(cache=True)
def _more_floats(a: np.ndarray, need: int) -> np.ndarray:
    if need <= a.shape[0]:
        return a
    bigger = np.empty(max(need, 2 * a.shape[0]))
    for i in range(a.shape[0]):
        bigger[i] = a[i]
    return bigger


@njit(cache=True)
def _more_ints(a: np.ndarray, need: int) -> np.ndarray:
    if need <= a.shape[0]:
        return a
    bigger = np.empty(max(need, 2 * a.shape[0]), dtype=np.int64)
    for i in range(a.shape[0]):
        bigger[i] = a[i]
    return bigger


@njit(cache=True)
def _more_stack(stack: np.ndarray, need: int) -> np.ndarray:
    if need <= stack.shape[0]:
        return stack
    bigger = np.empty((max(need, 2 * stack.shape[0]), stack.shape[1]), dtype=np.int64)
    for i in range(stack.shape[0]):
        for c in range(stack.shape[1]):
            bigger[i, c] = stack[i, c]
    return bigger


@njit(cache=True)
def _new_nodes(nodes: np.ndarray, thr: np.ndarray, first: int, count: int) -> None:
    for i in range(first, first + count):
        nodes[i, FEAT], nodes[i, KID], nodes[i, NKID] = -1, -1, 0
        nodes[i, DST], nodes[i, DN], nodes[i, EMPTY], nodes[i, NOM] = -1, 0, 0, 0
        thr[i] = math.nan


@njit(cache=True)
def _leaf(nodes: np.ndarray, dist: np.ndarray, i: int, used: np.ndarray, per_class: np.ndarray) -> np.ndarray:
    """Make node ``i`` a leaf holding ``per_class``; the (maybe reallocated) distribution pool.

    ``used``: nodes and distribution rows taken so far (counters in an array: numba compiles a
    function once more for every constant argument).
    """
    k = per_class.shape[0]
    dist = _more_floats(dist, (used[1] + 1) * k)
    for c in range(k):
        dist[used[1] * k + c] = per_class[c]
    nodes[i, DST], nodes[i, DN] = used[1], 1
    nodes[i, EMPTY] = 1 if abs(pairwise(per_class)) < SMALL else 0
    used[1] += 1
    return dist


@njit(cache=True)
def stable_order(keys: np.ndarray, order: np.ndarray, spare: np.ndarray) -> None:
    """``np.argsort(keys, kind="stable")`` into ``order[:len(keys)]`` (``spare``: as long):
    a bottom-up merge sort, equal keys in index order (numba's own merge sort compiles slowly)."""
    m = keys.shape[0]
    for i in range(m):
        order[i] = i
    src, dst = order, spare
    in_order = True
    width = 1
    while width < m:
        for lo in range(0, m, 2 * width):
            mid, hi = min(lo + width, m), min(lo + 2 * width, m)
            a, b, t = lo, mid, lo
            while a < mid and b < hi:
                if keys[src[b]] < keys[src[a]]:
                    dst[t] = src[b]
                    b += 1
                else:
                    dst[t] = src[a]
                    a += 1
                t += 1
            while a < mid:
                dst[t] = src[a]
                a += 1
                t += 1
            while b < hi:
                dst[t] = src[b]
                b += 1
                t += 1
        src, dst = dst, src
        in_order = not in_order
        width *= 2
    if not in_order:
        for i in range(m):
            order[i] = spare[i]


@njit(cache=True)
def distinct_sorted(X: np.ndarray, order: np.ndarray, column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every numeric attribute's distinct values in increasing order (``np.unique`` of a column
    without NaN), from its presorted rows ``order[column[j]]``: ``values[offsets[j]:offsets[j + 1]]``."""
    n, p = X.shape
    offsets = np.zeros(p + 1, dtype=np.int64)
    values = np.empty(max(1, (order.shape[0] - 1) * n))
    at = 0
    for j in range(p):
        offsets[j] = at
        if column[j] < 0:
            continue
        rows = order[column[j]]
        for t in range(n):
            x = X[rows[t], j]
            if t == 0 or x != values[at - 1]:
                values[at] = x
                at += 1
    offsets[p] = at
    return values[:at].copy(), offsets


@njit(cache=True)
def _snap(values: np.ndarray, cut: float) -> float:
    """``C45Split.setSplitPoint``: the largest training value not above the cut."""
    below = last_below(values, cut, SMALL)
    return values[below] if below >= 0 else cut


@njit(cache=True)
def _is_leaf(per_class: np.ndarray, min_leaf: float) -> bool:
    """Too little weight for two branches of ``M``, or pure."""
    total = pairwise(per_class)
    return 2 * min_leaf - total > SMALL or abs(total - per_class[max_class(per_class)]) < SMALL


@njit(cache=True)
def grow_presorted(
    X: np.ndarray, y: np.ndarray, w: np.ndarray, n_values: np.ndarray, counted: np.ndarray,
    order: np.ndarray, column: np.ndarray, values: np.ndarray, offsets: np.ndarray, k: int,
    min_leaf: float, mdl: bool, tab: np.ndarray, whole: bool, tie_stream: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Grow the whole tree on data without missing values and with whole-number weights.

    Parameters
    ----------
    X, y, w:
        Training matrix (nominal codes as floats, no NaN), class codes, weights.
    n_values:
        Values of each nominal attribute, 0 for a numeric one.
    counted:
        Attributes whose gain enters the average-gain rule.
    order:
        ``(q + 1, n)``: row ``column[j]`` holds the rows sorted by numeric attribute ``j``
        (stable), row ``q`` the rows ``0 .. n-1``; partitioned in place (row ``q`` then holds
        every leaf's rows together; the numeric rows only down to the last split with a child
        that is not a leaf).
    values, offsets:
        Every numeric attribute's sorted training values, ``values[offsets[j]:offsets[j + 1]]``.
    tab:
        ``tab[a] = a log2 a`` for the whole numbers ``0 .. total weight``.
    whole:
        True (an argument, not a constant: numba compiles the cut scan once for both growers).
    tie_stream:
        ``None``: of splits of equal gain ratio the first attribute's (J48's rule); a one-element
        uint64 stream (``feature_ties="random"``): one of them drawn from it
        (:func:`treebench.kernels.c45_split.choose_tied`).

    Returns
    -------
    (nodes, thr, dist)
        The tree arrays (module docstring).
    """
    n, p = X.shape
    q = order.shape[0] - 1
    ident = order[q]
    most = 2
    for j in range(p):
        most = max(most, n_values[j])
    nodes = np.empty((64, N_COLUMNS), dtype=np.int64)
    thr = np.empty(64)
    dist = np.empty(64 * k)
    used = np.zeros(2, dtype=np.int64)  # nodes, distribution rows
    used[0] = 1
    _new_nodes(nodes, thr, used[1], used[0])  # node 0, the root
    stack = np.empty((64, 3), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = 0, 0, n
    depth = 1
    per_class = np.zeros(k)
    ident_rows = np.arange(n)  # numeric_scan reads case t as row rows[t]
    bags = np.zeros((p, most * k))
    work = np.empty(most * k + most + 6 * k + 8)
    found, gains, ratios, cuts = np.zeros(p, dtype=np.bool_), np.zeros(p), np.zeros(p), np.zeros(p)
    bag_of = np.empty(n, dtype=np.int64)
    buf = np.empty(n, dtype=np.int64)
    starts = np.empty(most + 1, dtype=np.int64)
    place = np.empty(most + 1, dtype=np.int64)
    # every nominal attribute's cell of every case in the flat ``bags``, a row per case: a node
    # counts all its nominal attributes in one pass over its cases (each cell's sum in case order)
    categorical = np.flatnonzero(n_values > 0)
    cells = np.empty((n, categorical.shape[0]), dtype=np.int64)
    for a in range(categorical.shape[0]):
        j = categorical[a]
        for r in range(n):
            cells[r, a] = j * most * k + int(X[r, j]) * k + y[r]
    flat = bags.reshape(p * most * k)
    while depth > 0:
        depth -= 1
        i, lo, hi = stack[depth, 0], stack[depth, 1], stack[depth, 2]
        for c in range(k):
            per_class[c] = 0.0
        for t in range(lo, hi):
            per_class[y[ident[t]]] += w[ident[t]]
        total = pairwise(per_class)
        best = -1
        if not _is_leaf(per_class, min_leaf):
            for a in range(categorical.shape[0]):
                row = bags[categorical[a]]
                for s in range(n_values[categorical[a]] * k):
                    row[s] = 0.0
            for t in range(lo, hi):
                r = ident[t]
                weight = w[r]
                for a in range(categorical.shape[0]):
                    flat[cells[r, a]] += weight
            for j in range(p):
                if n_values[j] > 0:
                    found[j], gains[j], ratios[j] = nominal_scan(bags[j], n_values[j], k, total, min_leaf, tab, work,
                                                                whole)
                else:
                    found[j], gains[j], ratios[j], cuts[j] = numeric_scan(
                        X, j, ident_rows, w, y, order[column[j]][lo:hi], per_class, total, min_leaf, mdl, tab,
                        bags[j], work, whole)
            best = choose(found, gains, ratios, counted)
            if tie_stream is not None and best >= 0:
                best = choose_tied(best, found, gains, ratios, counted, tie_stream)
        if best < 0:
            dist = _leaf(nodes, dist, i, used, per_class)
            continue
        nominal = n_values[best] > 0
        n_bags = n_values[best] if nominal else 2
        threshold = math.nan
        if not nominal:
            threshold = _snap(values[offsets[best]:offsets[best + 1]], cuts[best])
        dist = _more_floats(dist, (used[1] + n_bags) * k)
        for s in range(n_bags * k):
            dist[used[1] * k + s] = bags[best, s]
        first = used[0]
        nodes, thr = _more_nodes(nodes, thr, used[0] + n_bags)
        _new_nodes(nodes, thr, first, n_bags)
        used[0] += n_bags
        nodes[i, FEAT], nodes[i, KID], nodes[i, NKID] = best, first, n_bags
        nodes[i, DST], nodes[i, DN], nodes[i, NOM] = used[1], n_bags, 1 if nominal else 0
        thr[i] = threshold
        used[1] += n_bags
        # route (nominal: the value; numeric: x - threshold < 1e-6 goes left), then partition
        for b in range(n_bags + 1):
            starts[b] = 0
        for t in range(lo, hi):
            r = ident[t]
            x = X[r, best]
            b = int(x) if nominal else (0 if x - threshold < SMALL else 1)
            bag_of[r] = b
            starts[b + 1] += 1
        starts[0] = lo
        for b in range(n_bags):
            starts[b + 1] += starts[b]
        # a child that will be a leaf never reads its numeric columns: when every child is one,
        # only the row column is partitioned (a child's class weights are its bag's, exactly)
        partitioned = q
        for b in range(n_bags):
            if not _is_leaf(bags[best, b * k:(b + 1) * k], min_leaf):
                partitioned = 0
                break
        for s in range(partitioned, q + 1):
            col = order[s]
            for b in range(n_bags):
                place[b] = starts[b]
            for t in range(lo, hi):
                r = col[t]
                b = bag_of[r]
                buf[place[b]] = r
                place[b] += 1
            for t in range(lo, hi):
                col[t] = buf[t]
        stack = _more_stack(stack, depth + n_bags)
        for b in range(n_bags - 1, -1, -1):
            stack[depth, 0], stack[depth, 1], stack[depth, 2] = first + b, starts[b], starts[b + 1]
            depth += 1
    return nodes[:used[0]].copy(), thr[:used[0]].copy(), dist[: used[1] * k].copy()


@njit(cache=True)
def grow_general(
    X: np.ndarray, y: np.ndarray, w: np.ndarray, n_values: np.ndarray, counted: np.ndarray,
    values: np.ndarray, offsets: np.ndarray, k: int, min_leaf: float, mdl: bool, tab: np.ndarray, whole: bool,
    tie_stream: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Grow the whole tree with J48's fractional cases for missing values (NaN in ``X``).

    Parameters as :func:`grow_presorted` (``whole`` False), without the presorted columns: each node sorts its
    known values of every numeric attribute (stable, so ties keep the node's order, as
    ``np.argsort(kind="stable")`` in the reference).
    """
    n, p = X.shape
    most = 2
    for j in range(p):
        most = max(most, n_values[j])
    nodes = np.empty((64, N_COLUMNS), dtype=np.int64)
    thr = np.empty(64)
    dist = np.empty(64 * k)
    used = np.zeros(2, dtype=np.int64)  # nodes, distribution rows
    used[0] = 1
    _new_nodes(nodes, thr, used[1], used[0])  # node 0, the root
    # every node's cases (row, weight) in the reference's order; children above their parent
    rows = np.empty(2 * n + 64, dtype=np.int64)
    wts = np.empty(2 * n + 64)
    for t in range(n):
        rows[t], wts[t] = t, w[t]
    stack = np.empty((64, 4), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, 0, n, n
    depth = 1
    per_class, unknown = np.zeros(k), np.zeros(k)
    xs0, pos = np.empty(n), np.empty(n, dtype=np.int64)
    ranked, spare = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    bags = np.zeros((p, most * k))
    work = np.empty(most * k + most + 6 * k + 8)
    found, gains, ratios, cuts = np.zeros(p, dtype=np.bool_), np.zeros(p), np.zeros(p), np.zeros(p)
    bag_of = np.empty(n, dtype=np.int64)
    share = np.empty(most)
    sizes = np.empty(most, dtype=np.int64)
    starts = np.empty(most, dtype=np.int64)
    while depth > 0:
        depth -= 1
        i, start, length, top = stack[depth, 0], stack[depth, 1], stack[depth, 2], stack[depth, 3]
        end = start + length
        for c in range(k):
            per_class[c] = 0.0
        for t in range(start, end):
            per_class[y[rows[t]]] += wts[t]
        total = pairwise(per_class)
        best = -1
        if not _is_leaf(per_class, min_leaf):
            for j in range(p):
                if n_values[j] > 0:
                    nv = n_values[j]
                    row = bags[j]
                    for s in range(nv * k):
                        row[s] = 0.0
                    for t in range(start, end):
                        x = X[rows[t], j]
                        if not math.isnan(x):
                            row[int(x) * k + y[rows[t]]] += wts[t]
                    found[j], gains[j], ratios[j] = nominal_scan(row, nv, k, total, min_leaf, tab, work, whole)
                else:
                    m = 0
                    for t in range(start, end):
                        x = X[rows[t], j]
                        if not math.isnan(x):
                            xs0[m], pos[m] = x, t
                            m += 1
                    stable_order(xs0[:m], ranked, spare)
                    for u in range(m):
                        ranked[u] = pos[ranked[u]]  # node positions, in increasing value
                    found[j], gains[j], ratios[j], cuts[j] = numeric_scan(
                        X, j, rows, wts, y, ranked[:m], per_class, total, min_leaf, mdl, tab, bags[j], work, whole)
            best = choose(found, gains, ratios, counted)
            if tie_stream is not None and best >= 0:
                best = choose_tied(best, found, gains, ratios, counted, tie_stream)
        if best < 0:
            dist = _leaf(nodes, dist, i, used, per_class)
            continue
        nominal = n_values[best] > 0
        n_bags = n_values[best] if nominal else 2
        threshold = math.nan
        if not nominal:
            threshold = _snap(values[offsets[best]:offsets[best + 1]], cuts[best])
        dist = _more_floats(dist, (used[1] + n_bags) * k)
        block = dist[used[1] * k:(used[1] + n_bags) * k]
        for s in range(n_bags * k):
            block[s] = bags[best, s]
        # the cases whose value is unknown join every bag by its known share
        for c in range(k):
            unknown[c] = 0.0
        for b in range(n_bags):
            sizes[b] = 0
        n_unknown = 0
        for t in range(start, end):
            x = X[rows[t], best]
            if math.isnan(x):
                b = -1
                unknown[y[rows[t]]] += wts[t]
                n_unknown += 1
            else:
                b = int(x) if nominal else (0 if x - threshold < SMALL else 1)
                sizes[b] += 1
            bag_of[t - start] = b
        if n_unknown > 0:
            add_unknowns(block, k, unknown, work)
        shares(block, k, share)
        first = used[0]
        nodes, thr = _more_nodes(nodes, thr, used[0] + n_bags)
        _new_nodes(nodes, thr, first, n_bags)
        used[0] += n_bags
        nodes[i, FEAT], nodes[i, KID], nodes[i, NKID] = best, first, n_bags
        nodes[i, DST], nodes[i, DN], nodes[i, NOM] = used[1], n_bags, 1 if nominal else 0
        thr[i] = threshold
        used[1] += n_bags
        need = 0
        for b in range(n_bags):
            if n_unknown > 0 and share[b] > SMALL:
                sizes[b] += n_unknown
            need += sizes[b]
        rows = _more_ints(rows, top + need)
        wts = _more_floats(wts, top + need)
        for b in range(n_bags):
            starts[b] = top
            for t in range(start, end):
                if bag_of[t - start] == b:
                    rows[top], wts[top] = rows[t], wts[t]
                    top += 1
            if n_unknown > 0 and share[b] > SMALL:
                for t in range(start, end):
                    if bag_of[t - start] < 0:
                        rows[top], wts[top] = rows[t], wts[t] * share[b]
                        top += 1
        stack = _more_stack(stack, depth + n_bags)
        for b in range(n_bags - 1, -1, -1):
            stack[depth, 0], stack[depth, 1], stack[depth, 2], stack[depth, 3] = first + b, starts[b], sizes[b], top
            depth += 1
    return nodes[:used[0]].copy(), thr[:used[0]].copy(), dist[: used[1] * k].copy()
