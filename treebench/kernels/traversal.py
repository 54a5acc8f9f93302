"""Compiled routing of samples through an array-based tree."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.kernels.layout import (
    CATEGORY,
    CATMAP_START,
    CHILD_START,
    DEFAULT_CHILD,
    FEATURE,
    KIND,
    LEAF,
    NOMINAL_BINARY,
    NUMERIC,
    THRESHOLD,
)


@njit(cache=True, inline="always")
def leaf_of(
    X: np.ndarray,
    i: int,
    int_nodes: np.ndarray,
    float_nodes: np.ndarray,
    catmap: np.ndarray,
    n_categories: np.ndarray,
) -> int:
    """The leaf row ``i`` of the encoded matrix ``X`` (n, d) reaches (an index, not a row view: no
    array is created per row).

    Numeric: ``x <= threshold`` goes to the first child; NaN goes to the
    second.  Nominal values are category codes; NaN or a code outside
    ``[0, n_categories)`` is the missing category (the last code).
    """
    node = 0
    while int_nodes[node, KIND] != LEAF:
        f = int_nodes[node, FEATURE]
        value = X[i, f]
        kind = int_nodes[node, KIND]
        first = int_nodes[node, CHILD_START]
        if kind == NUMERIC:
            node = first if value <= float_nodes[node, THRESHOLD] else first + 1
            continue
        last = n_categories[f] - 1
        code = last if math.isnan(value) else int(value)
        if code < 0 or code > last:
            code = last
        if kind == NOMINAL_BINARY:
            node = first if code == int_nodes[node, CATEGORY] else first + 1
        else:
            offset = catmap[int_nodes[node, CATMAP_START] + code]
            node = first + (offset if offset >= 0 else int_nodes[node, DEFAULT_CHILD])
    return node


@njit(cache=True)
def apply_tree(
    X: np.ndarray,
    int_nodes: np.ndarray,
    float_nodes: np.ndarray,
    catmap: np.ndarray,
    n_categories: np.ndarray,
) -> np.ndarray:
    """Leaf id of every row of ``X`` (n, d), routed by :func:`leaf_of`."""
    n = X.shape[0]
    leaves = np.empty(n, np.int64)
    for i in range(n):
        leaves[i] = leaf_of(X, i, int_nodes, float_nodes, catmap, n_categories)
    return leaves
