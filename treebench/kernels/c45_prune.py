"""Weka J48's collapsing and error-based pruning with subtree raising, in numba.

The tree is the arrays of :mod:`treebench.kernels.c45_build`; the functions repeat
``treebench.trees.c45._Grower`` (``collapse``, ``prune``, ``branch_errors``,
``new_distribution``, ``reset_distribution``, ``split``) in the same order of operations.

A node's training cases are not stored: at every moment they are its parent's cases split by
the parent's current distribution (growing splits so, and raising re-fills the raised subtree
so), so each call receives its node's cases as a segment ``start:start + length`` of the
``rows``/``wts`` arrays and hands its children theirs:

* ``inplace`` (no missing value, whole-number weights): the children's cases are the node's,
  partitioned in place; order does not matter, as every sum is a whole number.
* otherwise the children's cases (J48's fractional instances) are written above ``state[0]``,
  the top of a stack in ``rows``/``wts``, and released on return; ``state[1]`` becomes 1 when
  the arrays are too short (the caller retries with longer ones).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.kernels.c45_build import DN, DST, EMPTY, FEAT, KID, NKID, NOM
from treebench.kernels.c45_split import add_unknowns, shares
from treebench.kernels.c45_sums import SMALL, column_sums, estimated_errors, num_incorrect, pairwise

#: ``state`` entries: stack top, overflow flag.
TOP, OVERFLOW = 0, 1


@njit(cache=True)
def route(x: float, nominal: bool, threshold: float) -> int:
    """Branch of a value (``C45Split.whichSubset``), -1 when unknown."""
    if math.isnan(x):
        return -1
    if nominal:
        return int(x)
    return 0 if x - threshold < SMALL else 1


@njit(cache=True)
def node_errors(nodes: np.ndarray, dist: np.ndarray, i: int, k: int, confidence: float, z: float,
                scratch: np.ndarray) -> float:
    """Estimated errors of node ``i`` as a leaf."""
    n_bags = nodes[i, DN]
    start = nodes[i, DST] * k
    return estimated_errors(dist[start:start + n_bags * k], n_bags, k, confidence, z, scratch)


@njit(cache=True)
def make_leaf(nodes: np.ndarray, dist: np.ndarray, i: int, k: int) -> None:
    """``Node.make_leaf``: no children, the bags added up (threshold and nominal flag stay)."""
    start = nodes[i, DST] * k
    column_sums(dist[start:start + nodes[i, DN] * k], nodes[i, DN], k, dist[start:start + k])
    nodes[i, FEAT], nodes[i, NKID], nodes[i, DN] = -1, 0, 1


# --------------------------------------------------------------------------- collapsing
@njit(cache=True)
def training_errors(nodes: np.ndarray, dist: np.ndarray, i: int, k: int, errors: np.ndarray,
                    scratch: np.ndarray) -> float:
    """Training errors of node ``i``'s leaves, summed recursively; every node's kept in ``errors``."""
    if nodes[i, NKID] == 0:
        start = nodes[i, DST] * k
        value = num_incorrect(dist[start:start + nodes[i, DN] * k], nodes[i, DN], k, scratch)
    else:
        value = 0.0
        for b in range(nodes[i, NKID]):
            value += training_errors(nodes, dist, nodes[i, KID] + b, k, errors, scratch)
    errors[i] = value
    return value


@njit(cache=True)
def collapse(nodes: np.ndarray, dist: np.ndarray, i: int, k: int, errors: np.ndarray,
             scratch: np.ndarray) -> None:
    """``ClassifierTree.collapse``: a subtree no better than a leaf on training data becomes one."""
    if nodes[i, NKID] == 0:
        return
    start = nodes[i, DST] * k
    if errors[i] >= num_incorrect(dist[start:start + nodes[i, DN] * k], nodes[i, DN], k, scratch) - 1e-3:
        make_leaf(nodes, dist, i, k)
        return
    for b in range(nodes[i, NKID]):
        collapse(nodes, dist, nodes[i, KID] + b, k, errors, scratch)


# --------------------------------------------------------------------------- cases
@njit(cache=True)
def split_rows(
    nodes: np.ndarray, thr: np.ndarray, i: int, block: np.ndarray, start: int, length: int, X: np.ndarray,
    rows: np.ndarray, wts: np.ndarray, state: np.ndarray, inplace: bool, first: np.ndarray, size: np.ndarray,
) -> bool:
    """``_Grower.split``: the cases of each child of node ``i`` (shares from ``block``, its
    ``(n_bags, k)`` distribution), as segments ``first[b]``, ``size[b]``; False on overflow."""
    n_bags = nodes[i, NKID]
    feature, nominal, threshold = nodes[i, FEAT], nodes[i, NOM] == 1, thr[i]
    end = start + length
    if inplace:  # no unknown value: a stable partition of the node's own segment
        for b in range(n_bags):
            size[b] = 0
        for t in range(start, end):
            size[route(X[rows[t], feature], nominal, threshold)] += 1
        at = start
        for b in range(n_bags):
            first[b] = at
            at += size[b]
        place = first.copy()
        buf_r = rows[start:end].copy()
        buf_w = wts[start:end].copy()
        for t in range(length):
            b = route(X[buf_r[t], feature], nominal, threshold)
            rows[place[b]], wts[place[b]] = buf_r[t], buf_w[t]
            place[b] += 1
        return True
    share = np.empty(n_bags)
    shares(block, n_bags, k_of(block, n_bags), share)
    n_unknown = 0
    for b in range(n_bags):
        size[b] = 0
    for t in range(start, end):
        b = route(X[rows[t], feature], nominal, threshold)
        if b < 0:
            n_unknown += 1
        else:
            size[b] += 1
    need = 0
    for b in range(n_bags):
        if n_unknown > 0 and share[b] > SMALL:
            size[b] += n_unknown
        need += size[b]
    top = state[TOP]
    if top + need > rows.shape[0]:
        state[OVERFLOW] = 1
        return False
    for b in range(n_bags):
        first[b] = top
        for t in range(start, end):
            if route(X[rows[t], feature], nominal, threshold) == b:
                rows[top], wts[top] = rows[t], wts[t]
                top += 1
        if n_unknown > 0 and share[b] > SMALL:
            for t in range(start, end):
                if math.isnan(X[rows[t], feature]):
                    rows[top], wts[top] = rows[t], wts[t] * share[b]
                    top += 1
    state[TOP] = top
    return True


@njit(cache=True)
def k_of(block: np.ndarray, n_bags: int) -> int:
    """Classes of a ``(n_bags, k)`` block."""
    return block.shape[0] // n_bags


@njit(cache=True)
def reset_distribution(
    nodes: np.ndarray, thr: np.ndarray, i: int, start: int, length: int, X: np.ndarray, y: np.ndarray,
    rows: np.ndarray, wts: np.ndarray, k: int, out: np.ndarray,
) -> None:
    """``C45Split.resetDistribution`` of node ``i`` on a segment of cases, into ``out``."""
    n_bags = max(nodes[i, NKID], 1)
    for s in range(n_bags * k):
        out[s] = 0.0
    if nodes[i, NKID] == 0:
        for t in range(start, start + length):
            out[y[rows[t]]] += wts[t]
        return
    feature, nominal, threshold = nodes[i, FEAT], nodes[i, NOM] == 1, thr[i]
    unknown = np.zeros(k)
    any_unknown = False
    for t in range(start, start + length):
        r = rows[t]
        b = route(X[r, feature], nominal, threshold)
        if b < 0:
            unknown[y[r]] += wts[t]
            any_unknown = True
        else:
            out[b * k + y[r]] += wts[t]
    if any_unknown:
        add_unknowns(out, n_bags, k, unknown, np.empty(n_bags))


# --------------------------------------------------------------------------- raising
@njit(cache=True)
def routed_errors(
    nodes: np.ndarray, thr: np.ndarray, root: int, start: int, length: int, X: np.ndarray, y: np.ndarray,
    rows: np.ndarray, wts: np.ndarray, k: int, confidence: float, z: float, counts: np.ndarray,
    scratch: np.ndarray,
) -> float:
    """``getEstimatedErrorsForBranch`` without unknown values: each case routed to its leaf."""
    for t in range(start, start + length):
        r = rows[t]
        node = root
        while nodes[node, NKID] > 0:
            node = nodes[node, KID] + route(X[r, nodes[node, FEAT]], nodes[node, NOM] == 1, thr[node])
        counts[node, y[r]] += wts[t]
    return leaf_errors(nodes, root, k, confidence, z, counts, scratch)


@njit(cache=True)
def leaf_errors(nodes: np.ndarray, i: int, k: int, confidence: float, z: float, counts: np.ndarray,
                scratch: np.ndarray) -> float:
    """The leaves' estimated errors of ``counts`` summed recursively; ``counts`` zeroed again."""
    if nodes[i, NKID] == 0:
        value = estimated_errors(counts[i], 1, k, confidence, z, scratch)
        for c in range(k):
            counts[i, c] = 0.0
        return value
    value = 0.0
    for b in range(nodes[i, NKID]):
        value += leaf_errors(nodes, nodes[i, KID] + b, k, confidence, z, counts, scratch)
    return value


@njit(cache=True)
def split_errors(
    nodes: np.ndarray, thr: np.ndarray, i: int, start: int, length: int, X: np.ndarray, y: np.ndarray,
    rows: np.ndarray, wts: np.ndarray, k: int, confidence: float, z: float, state: np.ndarray,
    scratch: np.ndarray,
) -> float:
    """``getEstimatedErrorsForBranch`` with fractional cases: the subtree's distributions
    re-made from the segment (not kept), the cases split by them."""
    if nodes[i, NKID] == 0:
        per_class = np.zeros(k)
        for t in range(start, start + length):
            per_class[y[rows[t]]] += wts[t]
        return estimated_errors(per_class, 1, k, confidence, z, scratch)
    n_bags = nodes[i, NKID]
    block = np.empty(n_bags * k)
    reset_distribution(nodes, thr, i, start, length, X, y, rows, wts, k, block)
    saved = state[TOP]
    first, size = np.empty(n_bags, dtype=np.int64), np.empty(n_bags, dtype=np.int64)
    if not split_rows(nodes, thr, i, block, start, length, X, rows, wts, state, False, first, size):
        return 0.0
    value = 0.0
    for b in range(n_bags):
        value += split_errors(nodes, thr, nodes[i, KID] + b, first[b], size[b], X, y, rows, wts, k,
                              confidence, z, state, scratch)
        if state[OVERFLOW]:
            return 0.0
    state[TOP] = saved
    return value


@njit(cache=True)
def new_distribution(
    nodes: np.ndarray, thr: np.ndarray, dist: np.ndarray, i: int, start: int, length: int, X: np.ndarray,
    y: np.ndarray, rows: np.ndarray, wts: np.ndarray, k: int, state: np.ndarray, inplace: bool,
) -> None:
    """``newDistribution``: re-fill node ``i``'s subtree with the cases of its new position."""
    n_bags = max(nodes[i, NKID], 1)
    block = dist[nodes[i, DST] * k:(nodes[i, DST] + n_bags) * k]
    reset_distribution(nodes, thr, i, start, length, X, y, rows, wts, k, block)
    nodes[i, DN] = n_bags
    if nodes[i, NKID] == 0:
        if abs(pairwise(wts, start, length)) >= SMALL:
            nodes[i, EMPTY] = 0
        return
    saved = state[TOP]
    first, size = np.empty(n_bags, dtype=np.int64), np.empty(n_bags, dtype=np.int64)
    if not split_rows(nodes, thr, i, block, start, length, X, rows, wts, state, inplace, first, size):
        return
    for b in range(n_bags):
        new_distribution(nodes, thr, dist, nodes[i, KID] + b, first[b], size[b], X, y, rows, wts, k, state, inplace)
        if state[OVERFLOW]:
            return
    state[TOP] = saved


# --------------------------------------------------------------------------- pruning
@njit(cache=True)
def prune(
    nodes: np.ndarray, thr: np.ndarray, dist: np.ndarray, i: int, start: int, length: int, X: np.ndarray,
    y: np.ndarray, rows: np.ndarray, wts: np.ndarray, k: int, confidence: float, z: float, raising: bool,
    inplace: bool, state: np.ndarray, counts: np.ndarray, scratch: np.ndarray,
) -> float:
    """``C45PruneableClassifierTree.prune`` of node ``i`` (its cases: the segment); returns the
    pruned subtree's estimated errors."""
    n_bags = nodes[i, NKID]
    if n_bags == 0:
        return node_errors(nodes, dist, i, k, confidence, z, scratch)
    kid = nodes[i, KID]
    block = dist[nodes[i, DST] * k:(nodes[i, DST] + n_bags) * k]
    saved = state[TOP]
    first, size = np.zeros(n_bags, dtype=np.int64), np.zeros(n_bags, dtype=np.int64)
    if raising and not split_rows(nodes, thr, i, block, start, length, X, rows, wts, state, inplace, first, size):
        return 0.0
    below = 0.0
    for b in range(n_bags):
        below += prune(nodes, thr, dist, kid + b, first[b], size[b], X, y, rows, wts, k, confidence, z,
                       raising, inplace, state, counts, scratch)
        if state[OVERFLOW]:
            return 0.0
    # maxBag: the last of the largest branches
    top = -math.inf
    for b in range(n_bags):
        top = max(top, pairwise(block, b * k, k))
    largest = 0
    for b in range(n_bags):
        if pairwise(block, b * k, k) - top > -SMALL:
            largest = b
    branch = math.inf
    if raising:
        if inplace:
            branch = routed_errors(nodes, thr, kid + largest, start, length, X, y, rows, wts, k, confidence, z,
                                   counts, scratch)
        else:
            branch = split_errors(nodes, thr, kid + largest, start, length, X, y, rows, wts, k, confidence, z,
                                  state, scratch)
            if state[OVERFLOW]:
                return 0.0
    leaf = node_errors(nodes, dist, i, k, confidence, z, scratch)
    tree = below
    state[TOP] = saved
    if leaf - (tree + 0.1) < SMALL and leaf - (branch + 0.1) < SMALL:
        make_leaf(nodes, dist, i, k)
        return node_errors(nodes, dist, i, k, confidence, z, scratch)
    if branch - (tree + 0.1) < SMALL:
        raised = kid + largest
        for column in (FEAT, KID, NKID, NOM, DST, DN):
            nodes[i, column] = nodes[raised, column]
        thr[i] = thr[raised]
        new_distribution(nodes, thr, dist, i, start, length, X, y, rows, wts, k, state, inplace)
        if state[OVERFLOW]:
            return 0.0
        return prune(nodes, thr, dist, i, start, length, X, y, rows, wts, k, confidence, z, raising, inplace,
                     state, counts, scratch)
    return tree


@njit(cache=True)
def collapse_and_prune(
    nodes: np.ndarray, thr: np.ndarray, dist: np.ndarray, X: np.ndarray, y: np.ndarray, rows: np.ndarray,
    wts: np.ndarray, n: int, k: int, confidence: float, z: float, do_collapse: bool, do_prune: bool,
    raising: bool, inplace: bool,
) -> bool:
    """Collapse (optional) then prune (optional) the tree rooted at node 0, in place.

    ``rows[:n]``, ``wts[:n]`` hold the root's cases; False when ``rows`` was too short for the
    fractional cases of subtree raising (nothing is then reliable: retry on a fresh copy).
    """
    scratch = np.empty(k)
    if do_collapse:
        errors = np.zeros(nodes.shape[0])
        training_errors(nodes, dist, 0, k, errors, scratch)
        collapse(nodes, dist, 0, k, errors, scratch)
    if not do_prune:
        return True
    state = np.zeros(2, dtype=np.int64)
    state[TOP] = n
    counts = np.zeros((nodes.shape[0], k)) if inplace else np.zeros((1, k))
    prune(nodes, thr, dist, 0, 0, n, X, y, rows, wts, k, confidence, z, raising, inplace, state, counts, scratch)
    return state[OVERFLOW] == 0


@njit(cache=True)
def final_cases(
    nodes: np.ndarray, thr: np.ndarray, dist: np.ndarray, X: np.ndarray, rows: np.ndarray, wts: np.ndarray,
    n: int, k: int, inplace: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every node's training cases in the final tree (``Node.rows``/``weights``): ``segment[i]``
    = (start, length) in the returned ``rows``/``wts`` (-1 for nodes no longer in the tree)."""
    segment = np.full((nodes.shape[0], 2), -1, dtype=np.int64)
    state = np.zeros(2, dtype=np.int64)
    state[TOP] = n
    stack = [(0, 0, n)]
    while len(stack) > 0:
        i, start, length = stack.pop()
        segment[i, 0], segment[i, 1] = start, length
        n_bags = nodes[i, NKID]
        if n_bags == 0:
            continue
        if not inplace and state[TOP] + n_bags * length > rows.shape[0]:
            cap = max(2 * rows.shape[0], state[TOP] + n_bags * length)
            bigger_r = np.empty(cap, dtype=np.int64)
            bigger_r[: rows.shape[0]] = rows
            bigger_w = np.empty(cap)
            bigger_w[: wts.shape[0]] = wts
            rows, wts = bigger_r, bigger_w
        block = dist[nodes[i, DST] * k:(nodes[i, DST] + n_bags) * k]
        first, size = np.empty(n_bags, dtype=np.int64), np.empty(n_bags, dtype=np.int64)
        split_rows(nodes, thr, i, block, start, length, X, rows, wts, state, inplace, first, size)
        for b in range(n_bags - 1, -1, -1):
            stack.append((nodes[i, KID] + b, first[b], size[b]))
    return segment, rows, wts
