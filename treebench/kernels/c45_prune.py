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

Every walk is a loop over an explicit stack (numba cannot cache a recursive function that
another cached function calls); sums over children are still added in the recursive order.
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
    start = nodes[i, DST] * k
    return estimated_errors(dist[start:start + nodes[i, DN] * k], k, confidence, z, scratch)


@njit(cache=True)
def make_leaf(nodes: np.ndarray, dist: np.ndarray, i: int, k: int) -> None:
    """``Node.make_leaf``: no children, the bags added up (threshold and nominal flag stay)."""
    start = nodes[i, DST] * k
    column_sums(dist[start:start + nodes[i, DN] * k], k, dist[start:start + k])
    nodes[i, FEAT], nodes[i, NKID], nodes[i, DN] = -1, 0, 1


# --------------------------------------------------------------------------- walks
@njit(cache=True)
def top_down(nodes: np.ndarray, out: np.ndarray) -> int:
    """The subtree of ``out[0]`` level by level (every parent before its children) into ``out``;
    its size.  (The root comes in ``out``: a constant argument costs numba one more compile.)"""
    count, at = 1, 0
    while at < count:
        i = out[at]
        at += 1
        for b in range(nodes[i, NKID]):
            out[count] = nodes[i, KID] + b
            count += 1
    return count


@njit(cache=True)
def add_up(nodes: np.ndarray, order: np.ndarray, count: int, values: np.ndarray) -> None:
    """Every inner node of ``order`` (parents before children) gets the sum of its children's
    values, added in branch order from 0 (Python's ``sum`` of the recursive definition)."""
    for at in range(count - 1, -1, -1):
        i = order[at]
        if nodes[i, NKID] > 0:
            value = 0.0
            for b in range(nodes[i, NKID]):
                value += values[nodes[i, KID] + b]
            values[i] = value


# --------------------------------------------------------------------------- collapsing
@njit(cache=True)
def collapse(nodes: np.ndarray, dist: np.ndarray, k: int, order: np.ndarray, errors: np.ndarray,
             scratch: np.ndarray) -> None:
    """``ClassifierTree.collapse`` of the whole tree: a subtree whose leaves make at least the
    node's training errors - 1e-3 becomes a leaf (judged top down on the uncollapsed errors)."""
    order[0] = 0
    count = top_down(nodes, order)
    for at in range(count):
        i = order[at]
        if nodes[i, NKID] == 0:
            start = nodes[i, DST] * k
            errors[i] = num_incorrect(dist[start:start + nodes[i, DN] * k], k, scratch)
    add_up(nodes, order, count, errors)
    stack = order  # reused: the subtree walk is done
    stack[0] = 0
    depth = 1
    while depth > 0:
        depth -= 1
        i = stack[depth]
        if nodes[i, NKID] == 0:
            continue
        start = nodes[i, DST] * k
        if errors[i] >= num_incorrect(dist[start:start + nodes[i, DN] * k], k, scratch) - 1e-3:
            make_leaf(nodes, dist, i, k)
            continue
        for b in range(nodes[i, NKID]):
            stack[depth] = nodes[i, KID] + b
            depth += 1


# --------------------------------------------------------------------------- cases
@njit(cache=True)
def split_inplace(
    nodes: np.ndarray, thr: np.ndarray, i: int, start: int, length: int, X: np.ndarray, rows: np.ndarray,
    wts: np.ndarray, first: np.ndarray, size: np.ndarray,
) -> None:
    """The cases of each child of node ``i`` without unknown values: a stable partition of the
    node's own segment, child ``b`` at ``first[b]:first[b] + size[b]``."""
    n_bags = nodes[i, NKID]
    feature, nominal, threshold = nodes[i, FEAT], nodes[i, NOM] == 1, thr[i]
    end = start + length
    for b in range(n_bags):
        size[b] = 0
    for t in range(start, end):
        size[route(X[rows[t], feature], nominal, threshold)] += 1
    at = start
    for b in range(n_bags):
        first[b] = at
        at += size[b]
    place = first[:n_bags].copy()
    buf_r = rows[start:end].copy()
    buf_w = wts[start:end].copy()
    for t in range(length):
        b = route(X[buf_r[t], feature], nominal, threshold)
        rows[place[b]], wts[place[b]] = buf_r[t], buf_w[t]
        place[b] += 1


@njit(cache=True)
def split_fractional(
    nodes: np.ndarray, thr: np.ndarray, i: int, block: np.ndarray, start: int, length: int, X: np.ndarray,
    rows: np.ndarray, wts: np.ndarray, state: np.ndarray, first: np.ndarray, size: np.ndarray,
) -> bool:
    """``_Grower.split``: each child's cases written above ``state[TOP]``, the known ones of its
    branch then (when its share, from ``block``, is above 1e-6) the unknown ones with their weight
    times the share; False (and ``state[OVERFLOW]``) when ``rows`` is too short."""
    n_bags = nodes[i, NKID]
    feature, nominal, threshold = nodes[i, FEAT], nodes[i, NOM] == 1, thr[i]
    end = start + length
    k = block.shape[0] // n_bags
    share = np.empty(n_bags)
    shares(block, k, share)
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
def split_rows(
    nodes: np.ndarray, thr: np.ndarray, i: int, block: np.ndarray, start: int, length: int, X: np.ndarray,
    rows: np.ndarray, wts: np.ndarray, state: np.ndarray, inplace: bool, first: np.ndarray, size: np.ndarray,
) -> bool:
    """``_Grower.split``: :func:`split_inplace` or :func:`split_fractional`; False on overflow."""
    if inplace:
        split_inplace(nodes, thr, i, start, length, X, rows, wts, first, size)
        return True
    return split_fractional(nodes, thr, i, block, start, length, X, rows, wts, state, first, size)


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
        add_unknowns(out[:n_bags * k], k, unknown, np.empty(n_bags))


# --------------------------------------------------------------------------- raising
@njit(cache=True)
def routed_errors(
    nodes: np.ndarray, thr: np.ndarray, root: int, start: int, length: int, X: np.ndarray, y: np.ndarray,
    rows: np.ndarray, wts: np.ndarray, k: int, confidence: float, z: float, counts: np.ndarray,
    order: np.ndarray, values: np.ndarray, scratch: np.ndarray,
) -> float:
    """``getEstimatedErrorsForBranch`` without unknown values: each case routed to its leaf, the
    leaves' estimated errors added up as the recursive definition adds them."""
    for t in range(start, start + length):
        r = rows[t]
        node = root
        while nodes[node, NKID] > 0:
            node = nodes[node, KID] + route(X[r, nodes[node, FEAT]], nodes[node, NOM] == 1, thr[node])
        counts[node, y[r]] += wts[t]
    order[0] = root
    count = top_down(nodes, order)
    for at in range(count):
        i = order[at]
        if nodes[i, NKID] == 0:
            values[i] = estimated_errors(counts[i], k, confidence, z, scratch)
            for c in range(k):
                counts[i, c] = 0.0
    add_up(nodes, order, count, values)
    return values[root]


@njit(cache=True)
def split_errors(
    nodes: np.ndarray, thr: np.ndarray, root: int, start: int, length: int, X: np.ndarray, y: np.ndarray,
    rows: np.ndarray, wts: np.ndarray, k: int, confidence: float, z: float, state: np.ndarray,
    stack: np.ndarray, order: np.ndarray, values: np.ndarray, scratch: np.ndarray,
) -> float:
    """``getEstimatedErrorsForBranch`` with fractional cases: every inner node's distribution
    re-made from its cases (not kept) gives the shares that split them."""
    saved = state[TOP]
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = root, start, length, saved
    depth, count = 1, 0
    per_class = np.empty(k)
    while depth > 0:
        depth -= 1
        i, seg, size_i = stack[depth, 0], stack[depth, 1], stack[depth, 2]
        state[TOP] = stack[depth, 3]  # above it: cases of finished subtrees
        order[count] = i
        count += 1
        n_bags = nodes[i, NKID]
        if n_bags == 0:
            for c in range(k):
                per_class[c] = 0.0
            for t in range(seg, seg + size_i):
                per_class[y[rows[t]]] += wts[t]
            values[i] = estimated_errors(per_class, k, confidence, z, scratch)
            continue
        block = np.empty(n_bags * k)
        reset_distribution(nodes, thr, i, seg, size_i, X, y, rows, wts, k, block)
        first, size = np.empty(n_bags, dtype=np.int64), np.empty(n_bags, dtype=np.int64)
        if not split_fractional(nodes, thr, i, block, seg, size_i, X, rows, wts, state, first, size):
            return 0.0
        for b in range(n_bags - 1, -1, -1):
            stack[depth, 0], stack[depth, 1], stack[depth, 2], stack[depth, 3] = (
                nodes[i, KID] + b, first[b], size[b], state[TOP])
            depth += 1
    state[TOP] = saved
    # parents before children in ``order``, as :func:`add_up` needs
    add_up(nodes, order, count, values)
    return values[root]


@njit(cache=True)
def new_distribution(
    nodes: np.ndarray, thr: np.ndarray, dist: np.ndarray, root: int, start: int, length: int, X: np.ndarray,
    y: np.ndarray, rows: np.ndarray, wts: np.ndarray, k: int, state: np.ndarray, inplace: bool,
    stack: np.ndarray,
) -> None:
    """``newDistribution``: re-fill ``root``'s subtree with the cases of its new position."""
    saved = state[TOP]
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = root, start, length, saved
    depth = 1
    while depth > 0:
        depth -= 1
        i, seg, size_i = stack[depth, 0], stack[depth, 1], stack[depth, 2]
        state[TOP] = stack[depth, 3]
        n_bags = max(nodes[i, NKID], 1)
        block = dist[nodes[i, DST] * k:(nodes[i, DST] + n_bags) * k]
        reset_distribution(nodes, thr, i, seg, size_i, X, y, rows, wts, k, block)
        nodes[i, DN] = n_bags
        if nodes[i, NKID] == 0:
            if abs(pairwise(wts[seg:seg + size_i])) >= SMALL:
                nodes[i, EMPTY] = 0
            continue
        first, size = np.empty(n_bags, dtype=np.int64), np.empty(n_bags, dtype=np.int64)
        if not split_rows(nodes, thr, i, block, seg, size_i, X, rows, wts, state, inplace, first, size):
            return
        for b in range(n_bags - 1, -1, -1):
            stack[depth, 0], stack[depth, 1], stack[depth, 2], stack[depth, 3] = (
                nodes[i, KID] + b, first[b], size[b], state[TOP])
            depth += 1
    state[TOP] = saved


# --------------------------------------------------------------------------- pruning
#: Columns of a frame of :func:`prune`'s stack: node, its cases (start, length), the case stack's
#: top on entry, the next child to prune (-1: not entered yet), where its children's cases are.
_NODE, _START, _LENGTH, _SAVED, _NEXT, _SEGS = 0, 1, 2, 3, 4, 5


@njit(cache=True)
def prune(
    nodes: np.ndarray, thr: np.ndarray, dist: np.ndarray, n: int, X: np.ndarray, y: np.ndarray,
    rows: np.ndarray, wts: np.ndarray, k: int, confidence: float, z: float, raising: bool, inplace: bool,
    state: np.ndarray, scratch: np.ndarray,
) -> float:
    """``C45PruneableClassifierTree.prune`` of the tree rooted at node 0 (cases ``0:n``); returns
    the pruned tree's estimated errors.

    The recursion runs on a stack of frames; a child's result is added to its parent's
    ``below`` when it returns, so the children's errors are summed in branch order from 0.
    """
    size_all = nodes.shape[0] + 1
    frames = np.empty((size_all, 6), dtype=np.int64)
    below = np.zeros(size_all)
    segs = np.empty((size_all, 2), dtype=np.int64)  # children's cases of every open frame
    stack = np.empty((size_all, 4), dtype=np.int64)  # scratch of the walks below
    order = np.empty(size_all, dtype=np.int64)
    values = np.empty(size_all)
    counts = np.zeros((nodes.shape[0], k)) if inplace else np.zeros((1, k))
    first, size = np.empty(size_all, dtype=np.int64), np.empty(size_all, dtype=np.int64)
    frames[0, _NODE], frames[0, _START], frames[0, _LENGTH], frames[0, _NEXT], frames[0, _SEGS] = 0, 0, n, -1, 0
    depth = 1
    result = 0.0
    while depth > 0:
        f = depth - 1
        i = frames[f, _NODE]
        n_bags = nodes[i, NKID]
        value, done = 0.0, False  # done: the frame returns ``value``
        if frames[f, _NEXT] < 0:  # entering
            if n_bags == 0:
                value, done = node_errors(nodes, dist, i, k, confidence, z, scratch), True
            else:
                frames[f, _SAVED] = state[TOP]
                base = frames[f, _SEGS]
                for b in range(n_bags):
                    segs[base + b, 0], segs[base + b, 1] = 0, 0
                if raising:
                    block = dist[nodes[i, DST] * k:(nodes[i, DST] + n_bags) * k]
                    if not split_rows(nodes, thr, i, block, frames[f, _START], frames[f, _LENGTH], X, rows, wts,
                                      state, inplace, first, size):
                        return 0.0
                    for b in range(n_bags):
                        segs[base + b, 0], segs[base + b, 1] = first[b], size[b]
                below[f] = 0.0
                frames[f, _NEXT] = 0
        if not done and frames[f, _NEXT] < n_bags:  # prune the next child
            b = frames[f, _NEXT]
            frames[f, _NEXT] = b + 1
            base = frames[f, _SEGS]
            frames[depth, _NODE], frames[depth, _START], frames[depth, _LENGTH] = (
                nodes[i, KID] + b, segs[base + b, 0], segs[base + b, 1])
            frames[depth, _NEXT], frames[depth, _SEGS] = -1, base + n_bags
            depth += 1
            continue
        if not done:  # every child pruned: leaf, raised branch or subtree
            start, length = frames[f, _START], frames[f, _LENGTH]
            kid = nodes[i, KID]
            block = dist[nodes[i, DST] * k:(nodes[i, DST] + n_bags) * k]
            top = -math.inf
            for b in range(n_bags):
                top = max(top, pairwise(block[b * k:(b + 1) * k]))
            largest = 0
            for b in range(n_bags):  # maxBag: the last of the largest branches
                if pairwise(block[b * k:(b + 1) * k]) - top > -SMALL:
                    largest = b
            branch = math.inf
            if raising and inplace:
                branch = routed_errors(nodes, thr, kid + largest, start, length, X, y, rows, wts, k, confidence,
                                       z, counts, order, values, scratch)
            elif raising:
                branch = split_errors(nodes, thr, kid + largest, start, length, X, y, rows, wts, k, confidence,
                                      z, state, stack, order, values, scratch)
                if state[OVERFLOW]:
                    return 0.0
            leaf = node_errors(nodes, dist, i, k, confidence, z, scratch)
            tree = below[f]
            state[TOP] = frames[f, _SAVED]
            if leaf - (tree + 0.1) < SMALL and leaf - (branch + 0.1) < SMALL:
                make_leaf(nodes, dist, i, k)
                value = node_errors(nodes, dist, i, k, confidence, z, scratch)
            elif branch - (tree + 0.1) < SMALL:
                raised = kid + largest
                for column in (FEAT, KID, NKID, NOM, DST, DN):
                    nodes[i, column] = nodes[raised, column]
                thr[i] = thr[raised]
                new_distribution(nodes, thr, dist, i, start, length, X, y, rows, wts, k, state, inplace, stack)
                if state[OVERFLOW]:
                    return 0.0
                frames[f, _NEXT] = -1  # prune the node again, in the same frame
                continue
            else:
                value = tree
        depth -= 1  # return ``value`` to the parent frame
        if depth > 0:
            below[depth - 1] += value
        else:
            result = value
    return result


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
        collapse(nodes, dist, k, np.empty(nodes.shape[0] + 1, dtype=np.int64), np.zeros(nodes.shape[0]), scratch)
    if not do_prune:
        return True
    state = np.zeros(2, dtype=np.int64)
    state[TOP] = n
    prune(nodes, thr, dist, n, X, y, rows, wts, k, confidence, z, raising, inplace, state, scratch)
    return state[OVERFLOW] == 0


@njit(cache=True)
def final_cases(
    nodes: np.ndarray, thr: np.ndarray, dist: np.ndarray, X: np.ndarray, rows: np.ndarray, wts: np.ndarray,
    n: int, k: int, inplace: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every node's training cases in the final tree (``Node.rows``/``weights``): ``segment[i]``
    = (start, length) in the returned ``rows``/``wts`` (-1 for nodes no longer in the tree)."""
    segment = np.empty((nodes.shape[0], 2), dtype=np.int64)
    for i in range(nodes.shape[0]):
        segment[i, 0], segment[i, 1] = -1, -1
    state = np.zeros(2, dtype=np.int64)
    state[TOP] = n
    stack = np.empty((nodes.shape[0] + 1, 3), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = 0, 0, n
    first, size = np.empty(nodes.shape[0] + 1, dtype=np.int64), np.empty(nodes.shape[0] + 1, dtype=np.int64)
    depth = 1
    while depth > 0:
        depth -= 1
        i, start, length = stack[depth, 0], stack[depth, 1], stack[depth, 2]
        segment[i, 0], segment[i, 1] = start, length
        n_bags = nodes[i, NKID]
        if n_bags == 0:
            continue
        if not inplace and state[TOP] + n_bags * length > rows.shape[0]:
            cap = max(2 * rows.shape[0], state[TOP] + n_bags * length)
            bigger_r = np.empty(cap, dtype=np.int64)
            bigger_w = np.empty(cap)
            for t in range(state[TOP]):
                bigger_r[t], bigger_w[t] = rows[t], wts[t]
            rows, wts = bigger_r, bigger_w
        block = dist[nodes[i, DST] * k:(nodes[i, DST] + n_bags) * k]
        split_rows(nodes, thr, i, block, start, length, X, rows, wts, state, inplace, first, size)
        for b in range(n_bags - 1, -1, -1):
            stack[depth, 0], stack[depth, 1], stack[depth, 2] = nodes[i, KID] + b, first[b], size[b]
            depth += 1
    return segment, rows, wts
