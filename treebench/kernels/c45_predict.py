"""C4.5 class probabilities read straight from the grown tree's arrays (``ClassifierTree.getProbs``).

The tree is the node table of :mod:`treebench.kernels.c45_build` after collapsing and pruning
(root 0).  A case walks down from the root; where its value of the split attribute is missing
it goes down every non-empty branch with its weight times that branch's share of the training
weight, as J48 does.  A leaf adds ``weight * its class frequencies``; a known value that lands
in an empty branch gets that branch's (else the parent's) frequencies.

Contributions are added in the order of a depth-first walk with the branches in order, and
every sum is numpy's (``pairwise``), so the probabilities equal the reference walk over
``Node`` objects in ``treebench.trees.c45`` bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.kernels.c45_build import DN, DST, EMPTY, FEAT, KID, NKID, NOM
from treebench.kernels.c45_sums import SMALL, pairwise


@njit(cache=True)
def _add_frequencies(out: np.ndarray, i: int, weight: float, counts: np.ndarray) -> None:
    """``out[i] += weight * counts / counts.sum()`` (nothing when the counts are empty)."""
    total = pairwise(counts)
    if abs(total) < SMALL:
        return
    for c in range(counts.shape[0]):
        out[i, c] += weight * (counts[c] / total)


@njit(cache=True)
def _bag_sum(dist: np.ndarray, first: int, n_bags: int, k: int) -> np.ndarray:
    """The node's class counts over all its bags (``dist.sum(axis=0)``: bag after bag)."""
    total = np.zeros(k)
    for b in range(n_bags):
        for c in range(k):
            total[c] += dist[(first + b) * k + c]
    return total


@njit(cache=True)
def predict_proba(nodes: np.ndarray, thr: np.ndarray, dist: np.ndarray, k: int, Z: np.ndarray,
                  out: np.ndarray) -> None:
    """Add every row of ``Z`` (codes, NaN missing) its class probabilities into ``out`` (n, k)."""
    stack = np.empty(nodes.shape[0], dtype=np.int64)  # a node enters a case's walk at most once
    weights = np.empty(nodes.shape[0])
    per_bag = np.empty(nodes.shape[0])
    for i in range(Z.shape[0]):
        stack[0], weights[0], top = 0, 1.0, 1
        while top > 0:
            top -= 1
            v, w = stack[top], weights[top]
            first, n_bags, n_kids = nodes[v, DST], nodes[v, DN], nodes[v, NKID]
            if n_kids == 0:
                _add_frequencies(out, i, w, _bag_sum(dist, first, n_bags, k))
                continue
            x = Z[i, nodes[v, FEAT]]
            if not math.isnan(x):
                if nodes[v, NOM] == 1:
                    b = int(x)
                else:
                    b = 0 if x - thr[v] < SMALL else 1
                child = nodes[v, KID] + b
                if nodes[child, EMPTY] == 1:  # the parent's distribution answers for an empty branch
                    bag = dist[(first + b) * k:(first + b + 1) * k]
                    if pairwise(bag) > SMALL:
                        _add_frequencies(out, i, w, bag.copy())
                    else:
                        _add_frequencies(out, i, w, _bag_sum(dist, first, n_bags, k))
                else:
                    stack[top], weights[top] = child, w
                    top += 1
                continue
            # missing: every non-empty branch, weighted by its share (C45Split.weights)
            for b in range(n_bags):
                per_bag[b] = pairwise(dist[(first + b) * k:(first + b + 1) * k])
            whole = pairwise(per_bag[:n_bags])
            for b in range(n_kids - 1, -1, -1):  # pushed last to first: popped in branch order
                child = nodes[v, KID] + b
                if nodes[child, EMPTY] == 1:
                    continue
                stack[top], weights[top] = child, w * (per_bag[b] / whole)
                top += 1


@njit(cache=True)
def leaves_and_depth(nodes: np.ndarray, order: np.ndarray) -> tuple[int, int]:
    """J48's leaf count (empty leaves included) and the deepest leaf's depth (root 0) of the
    final tree listed in ``order`` (parents before children, as ``c45_prune.top_down`` lists it)."""
    depth = np.zeros(nodes.shape[0], dtype=np.int64)
    leaves, deepest = 0, 0
    for v in order:
        if nodes[v, NKID] == 0:
            leaves += 1
            deepest = max(deepest, depth[v])
        for b in range(nodes[v, NKID]):
            depth[nodes[v, KID] + b] = depth[v] + 1
    return leaves, deepest
