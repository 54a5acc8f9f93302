"""Compiled per-leaf storage of an online tree: every feature's examples kept sorted.

A leaf of an online tree (:mod:`treebench.kernels.online`) holds, for every
feature, its examples in the order the batch presort gives them
(:func:`treebench.kernels.partition.fill_sorted_row`): by value, NaN last,
equal values in arrival order.  Four parallel rows per feature: the values,
their dense ranks (NaN has the rank ``levels[f]``, the feature's count of
distinct values; a nominal code is its own rank), the labels and the
arrival numbers of the examples.  A new example is inserted where a stable
sort would put it (after the equal values it follows), so the rows are, at
every moment, exactly the presort of the leaf's examples and the scans of
:mod:`treebench.kernels.scan` read them as the batch builder reads a node.

The rows of all leaves share one arena per array, ``(d, capacity)``: a leaf
owns the position range ``[start, start + cap)`` of every feature row.  A
full leaf moves to the arena's end with twice the room; a split leaf's
range is left behind, and the arena is compacted when what is left behind
outweighs what is used.  Plain arrays in and out, as every kernel.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: Columns of ``segments`` (one row per node; meaningful for leaves).
SEG_START = 0
SEG_CAP = 1
SEG_SIZE = 2

#: Room of a new leaf's range, at least.
MIN_CAPACITY = 8


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def _after(value: float, x: float) -> bool:
    """Whether a stored ``value`` sorts after the new ``x`` (NaN sorts last; equal values stay before)."""
    if math.isnan(value):
        return not math.isnan(x)
    return value > x


@njit(cache=True, no_cfunc_wrapper=True)
def insert_example(
    values: np.ndarray, ranks: np.ndarray, labels: np.ndarray, index: np.ndarray, f: int, start: int, size: int,
    levels: np.ndarray, nominal: bool, x: float, label: int, sample: int,
) -> bool:
    """Insert one example into feature ``f``'s sorted row ``[start, start + size)`` (room for one more).

    ``levels[f]`` (the NaN rank) grows by one when a numeric value is new to
    the leaf, and the ranks after it move up by one, so ranks stay dense.
    Returns whether the value is new to the row (NaN counts as a value).
    """
    # binary search of the first position sorting after x
    low = start
    high = start + size
    while low < high:
        middle = (low + high) >> 1
        if _after(values[f, middle], x):
            high = middle
        else:
            low = middle + 1
    at = low
    new = True
    if nominal:
        rank = np.int64(x)
        new = at == start or np.int64(ranks[f, at - 1]) != rank
    elif math.isnan(x):
        rank = levels[f]
        new = at == start or not math.isnan(values[f, at - 1])
    elif at > start and values[f, at - 1] == x:
        rank = np.int64(ranks[f, at - 1])
        new = False
    else:
        rank = np.int64(ranks[f, at - 1]) + 1 if at > start else np.int64(0)
        levels[f] += 1
        for p in range(at, start + size):  # a new distinct value: the ranks above it move up
            ranks[f, p] += 1
    for p in range(start + size, at, -1):
        values[f, p] = values[f, p - 1]
        ranks[f, p] = ranks[f, p - 1]
        labels[f, p] = labels[f, p - 1]
        index[f, p] = index[f, p - 1]
    values[f, at] = x
    ranks[f, at] = rank
    labels[f, at] = label
    index[f, at] = sample
    return new


@njit(cache=True, no_cfunc_wrapper=True)
def rerank(values: np.ndarray, ranks: np.ndarray, f: int, start: int, size: int) -> int:
    """Dense ranks of a numeric row ``[start, start + size)`` (sorted, NaN last); returns its NaN rank."""
    rank = -1
    previous = 0.0
    for p in range(start, start + size):
        value = values[f, p]
        if math.isnan(value):
            ranks[f, p] = rank + 1
            continue
        if rank < 0 or value != previous:
            rank += 1
            previous = value
        ranks[f, p] = rank
    return rank + 1


@njit(cache=True, no_cfunc_wrapper=True)
def new_arena(n_features: int, capacity: int):
    """Empty arena rows: values, ranks, labels, arrival numbers, each ``(d, capacity)``."""
    return (
        np.empty((n_features, capacity)),
        np.empty((n_features, capacity), np.int32),
        np.empty((n_features, capacity), np.int32),
        np.empty((n_features, capacity), np.int64),
    )


@njit(cache=True, no_cfunc_wrapper=True)
def copy_range(source, target, f: int, start: int, at: int, size: int) -> None:
    """Copy ``source[f, start:start + size]`` to ``target[f, at:at + size]`` (one arena array)."""
    for p in range(size):
        target[f, at + p] = source[f, start + p]
