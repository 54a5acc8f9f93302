"""Numba kernel of CART's weakest-link (cost-complexity) pruning.

Works on the arrays of a tree (``child_start``, ``n_children``) and each node's
resubstitution errors; :mod:`treebench.trees.pruning` wraps it.  The
arithmetic repeats the readable version operation for operation (children's
subtree errors summed left to right from 0, ``g(t) = (R(t) - R(T_t)) / total /
(|T_t| - 1)``), so the alphas are bit-for-bit the same.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _current_order(child_start, n_children, is_leaf, order):
    """Nodes of the current tree, parents before children; returns how many."""
    n = 0
    stack = np.empty(order.shape[0], np.int64)
    top = 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        order[n] = node
        n += 1
        if not is_leaf[node]:
            start = child_start[node]
            for j in range(n_children[node]):
                stack[top] = start + j
                top += 1
    return n


@njit(cache=True)
def weakest_link_prune(child_start, n_children, own_errors, total, alpha, has_alpha, is_leaf, path_alpha, path_leaves):
    """Prune weakest links in place on ``is_leaf`` while ``g(t) <= alpha``.

    ``is_leaf`` must be true exactly for nodes without children.  Fills the
    path (effective alpha, leaves after each step) and returns its length.
    """
    n_nodes = child_start.shape[0]
    order = np.empty(n_nodes, np.int64)
    sub_errors = np.empty(n_nodes, np.float64)
    sub_leaves = np.empty(n_nodes, np.int64)
    links = np.empty(n_nodes, np.float64)
    count = _current_order(child_start, n_children, is_leaf, order)
    leaves = 0
    for i in range(count):
        if is_leaf[order[i]]:
            leaves += 1
    path_alpha[0] = 0.0
    path_leaves[0] = leaves
    length = 1
    while not is_leaf[0]:
        count = _current_order(child_start, n_children, is_leaf, order)
        weakest = np.inf
        for i in range(count - 1, -1, -1):
            node = order[i]
            if is_leaf[node]:
                sub_errors[node] = own_errors[node]
                sub_leaves[node] = 1
                continue
            start = child_start[node]
            errors = 0.0
            n_leaves = 0
            for j in range(n_children[node]):
                errors += sub_errors[start + j]
                n_leaves += sub_leaves[start + j]
            sub_errors[node] = errors
            sub_leaves[node] = n_leaves
            link = (own_errors[node] - errors) / total / (n_leaves - 1)
            links[node] = link
            if link < weakest or link != link:
                weakest = link
        if has_alpha and weakest > alpha + 1e-12:
            break
        for i in range(count):
            node = order[i]
            if not is_leaf[node] and links[node] <= weakest + 1e-12:
                is_leaf[node] = True
        count = _current_order(child_start, n_children, is_leaf, order)
        leaves = 0
        for i in range(count):
            if is_leaf[order[i]]:
                leaves += 1
        effective = weakest
        if 0.0 > weakest:
            effective = 0.0
        path_alpha[length] = effective
        path_leaves[length] = leaves
        length += 1
    return length
