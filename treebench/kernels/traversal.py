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


@njit(cache=True)
def apply_tree(
    X: np.ndarray,
    int_nodes: np.ndarray,
    float_nodes: np.ndarray,
    catmap: np.ndarray,
    n_categories: np.ndarray,
) -> np.ndarray:
    """Leaf id of every row of ``X`` (n, d).

    Numeric: ``x <= threshold`` goes to the first child; NaN goes to the
    second.  Nominal values are category codes; NaN or a code outside
    ``[0, n_categories)`` is the missing category (the last code).
    """
    n = X.shape[0]
    leaves = np.empty(n, np.int64)
    for i in range(n):
        node = 0
        while int_nodes[node, KIND] != LEAF:
            f = int_nodes[node, FEATURE]
            x = X[i, f]
            kind = int_nodes[node, KIND]
            first = int_nodes[node, CHILD_START]
            if kind == NUMERIC:
                node = first if x <= float_nodes[node, THRESHOLD] else first + 1
                continue
            last = n_categories[f] - 1
            code = last if math.isnan(x) else int(x)
            if code < 0 or code > last:
                code = last
            if kind == NOMINAL_BINARY:
                node = first if code == int_nodes[node, CATEGORY] else first + 1
            else:
                offset = catmap[int_nodes[node, CATMAP_START] + code]
                node = first + (offset if offset >= 0 else int_nodes[node, DEFAULT_CHILD])
        leaves[i] = node
    return leaves
