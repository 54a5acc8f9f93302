"""Sample weights in compiled code: one source, two compiled versions.

A fit either has no weights (``weights=None``: class counts are integers, as
they were before weights existed) or a float64 weight per sample id (class
counts are sums of weights).  Numba compiles one version of every kernel per
case; the overloads below pick their code by the *type* of ``weights``, so
the unweighted version carries no weight code at all.  All are inlined into
their caller (``inline="always"``): they sit on the per-sample paths.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import overload


def sample_weight(weights: Any, index: np.ndarray, p: int) -> Any:
    """Weight of the sample at sorted position ``p``: 1 (an integer) without weights.

    Compiled code only; the overload below picks the version by the type of ``weights``.
    """
    raise NotImplementedError("sample_weight is for numba-compiled code")


@overload(sample_weight, inline="always")
def _sample_weight(weights, index, p):
    if isinstance(weights, types.NoneType):
        return lambda weights, index, p: 1
    return lambda weights, index, p: weights[index[p]]


def zero_counts(weights: Any, shape: Any) -> np.ndarray:
    """Zeroed count array: int64 without weights, float64 with them (compiled code only)."""
    raise NotImplementedError("zero_counts is for numba-compiled code")


@overload(zero_counts, inline="always")
def _zero_counts(weights, shape):
    dtype = np.int64 if isinstance(weights, types.NoneType) else np.float64
    return lambda weights, shape: np.zeros(shape, dtype)


def is_weighted(weights: Any) -> bool:
    """Whether a fit has sample weights, as a compile-time constant (compiled code only)."""
    raise NotImplementedError("is_weighted is for numba-compiled code")


@overload(is_weighted, inline="always")
def _is_weighted(weights):
    weighted = not isinstance(weights, types.NoneType)
    return lambda weights: weighted


@njit(cache=True, no_cfunc_wrapper=True)
def row_total(row: np.ndarray):
    """Sum of a count row, in the row's type (a node's size, or its weight)."""
    acc = row[0] - row[0]
    for i in range(row.shape[0]):
        acc += row[i]
    return acc


def unweighted_only(weights: Any, value: Any) -> Any:
    """``value`` in a fit without weights, ``None`` in a weighted one (compiled code only).

    For the buffers of the scans of integer counts (the histogram scan, the bounded possibilistic
    scan), which a weighted fit never runs: handed to :func:`treebench.kernels.node_split.search_node`
    through this function, they are ``None`` in its weighted version, where numba then prunes the
    scans' branches (a test of ``weights is None`` is pruned only in the version where ``weights``
    *is* ``None``: the weighted builders compiled both scans, with their callees, for nothing).
    """
    raise NotImplementedError("unweighted_only is for numba-compiled code")


@overload(unweighted_only, inline="always")
def _unweighted_only(weights, value):
    if isinstance(weights, types.NoneType):
        return lambda weights, value: value
    return lambda weights, value: None
