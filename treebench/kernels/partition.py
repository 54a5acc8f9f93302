"""Compiled presort and partition: keeping every feature's rows sorted within each node.

The presort (:func:`fill_sorted_row`) writes one feature's row of the three
parallel arrays once, at the root; a split then *stably* partitions the
rows of every other feature into the children's position ranges
(:func:`partition_two`, :func:`partition_multiway`), so each range stays
sorted and no sort is ever needed below the root.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.kernels.refcount import NO_REFCOUNT


@njit(cache=True, no_cfunc_wrapper=True, **NO_REFCOUNT)
def fill_sorted_row(column, order, labels, nominal, index_row, rank_row, label_row) -> int:
    """One feature's sorted row in one pass: sample ids, value ranks and labels.

    Numeric values get dense ranks ``0..m-1`` of their ``m`` distinct values
    and NaN the rank ``m`` (sorted last); a nominal column holds category
    codes, which are their own ranks.  Returns ``m`` (the NaN rank), or for a
    nominal column one past the largest code.
    """
    rank = -1
    previous = 0.0
    for p in range(order.shape[0]):
        sample = order[p]
        value = column[sample]
        index_row[p] = sample
        label_row[p] = labels[sample]
        if nominal:
            rank = int(value)
            rank_row[p] = rank
            continue
        if math.isnan(value):
            rank_row[p] = rank + 1
            continue
        if rank < 0 or value != previous:
            rank += 1
            previous = value
        rank_row[p] = rank
    return rank + 1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def copy_into(target: np.ndarray, at: int, source: np.ndarray, count: int) -> None:
    """``target[at:at + count] = source[:count]`` as a plain loop.

    A slice-to-slice assignment compiles numba's broadcasting checks and
    their shape-formatting error messages for every pair of array types --
    seconds of first compile across the builder -- for a copy whose sizes are
    right by construction.
    """
    for i in range(count):
        target[at + i] = source[i]


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def set_side(side_bits: np.ndarray, sample: int, side: int) -> None:
    """Record which of two children ``sample`` goes to (one bit per sample)."""
    byte = sample >> 3
    bit = sample & 7
    side_bits[byte] = (side_bits[byte] & ~np.uint8(1 << bit)) | np.uint8(side << bit)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def partition_two(
    sorted_index, sorted_rank, sorted_label, f, start, end, n_first, side_bits, keep_first, keep_second,
    buf_index, buf_rank, buf_label,
):
    """Stable two-way partition of feature ``f``'s range, moving only what is kept.

    The builder hands over the three (d, n) arrays and the feature, not the rows: a row view
    made in the (reference-counting) builder costs an atomic increment and decrement, this
    function none.

    The side of each sample is one bit (``side_bits``): the table is read in
    random sample order, and at n/8 bytes it stays in cache where a byte or int
    per sample would not.  The first child is compacted forward in place (a
    write never overtakes the read), the second goes through the buffer only
    when both are kept, or is compacted backward in place when it is kept
    alone.  A child that is already a leaf is not moved at all.  Write
    positions advance without branches (the side is unpredictable).  The scan
    is memory-bound, so every byte not moved counts.
    """
    index = sorted_index[f]
    rank = sorted_rank[f]
    label = sorted_label[f]
    if keep_first and keep_second:
        low = start
        high = 0
        for p in range(start, end):
            sample = index[p]
            key = rank[p]
            lab = label[p]
            c = np.int64((side_bits[sample >> 3] >> (sample & 7)) & 1)
            index[low] = sample
            rank[low] = key
            label[low] = lab
            buf_index[high] = sample
            buf_rank[high] = key
            buf_label[high] = lab
            low += 1 - c
            high += c
        middle = start + n_first
        copy_into(index, middle, buf_index, high)
        copy_into(rank, middle, buf_rank, high)
        copy_into(label, middle, buf_label, high)
    elif keep_first:
        low = start
        for p in range(start, end):
            sample = index[p]
            c = np.int64((side_bits[sample >> 3] >> (sample & 7)) & 1)
            key = rank[p]
            lab = label[p]
            index[low] = sample
            rank[low] = key
            label[low] = lab
            low += 1 - c
    elif keep_second:
        high = end - 1
        for p in range(end - 1, start - 1, -1):
            sample = index[p]
            c = np.int64((side_bits[sample >> 3] >> (sample & 7)) & 1)
            key = rank[p]
            lab = label[p]
            index[high] = sample
            rank[high] = key
            label[high] = lab
            high -= c


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def partition_multiway(
    index, rank, label, start, end, child_of, sizes, n_children, offsets, buf_index, buf_rank, buf_label,
):
    """Stable partition of one feature's range into ``n_children`` blocks (``child_of`` per sample id)."""
    offsets[0] = 0
    for j in range(n_children):
        offsets[j + 1] = offsets[j] + sizes[j]
    for p in range(start, end):
        sample = index[p]
        q = offsets[child_of[sample]]
        offsets[child_of[sample]] = q + 1
        buf_index[q] = sample
        buf_rank[q] = rank[p]
        buf_label[q] = label[p]
    size = end - start
    copy_into(index, start, buf_index, size)
    copy_into(rank, start, buf_rank, size)
    copy_into(label, start, buf_label, size)
