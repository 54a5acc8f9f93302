"""Compiled (rank, class) tables kept per node: a split's larger child by subtraction.

The batch builder (:mod:`treebench.kernels.induction`) keeps every feature's
rows sorted within each node by stably partitioning them at every split: one
pass over the node per feature.  A feature with few distinct values against
the node's size is scanned from its node's (rank, class) counts instead
(:func:`treebench.kernels.scan.scan_rank_table`), and those counts need no
sorted row: the children's tables follow from the parent's.  The smaller
child's table is counted from its samples (one gather per sample and
feature) and the larger child's is the parent's minus it, whatever the
larger child's size -- LightGBM's histogram subtraction, on exact ranks.  So
a split that peels a few samples off a large node costs one pass over the
node's sample ids and a few of those samples per feature, not a pass over
the node per feature (kddcup99: Hellinger distance peels).

A feature is in one of two modes at a node, and the choice changes no
result, only the cost:

* *table*: its table starts in the pool at row ``state[TABLE_AT, f]`` (ranks
  ``state[TABLE_LO, f]`` on, ``state[TABLE_SPAN, f]`` of them; the node's
  ``state`` is an int64 array (3, n_features), its rows named in
  :mod:`treebench.kernels.node_split`), its sorted row in the node's range is
  stale;
* *row*: ``state[TABLE_AT, f] = -1``, its sorted row is valid (partitioned at
  every split, as before).

Features start in table mode at the root when the histogram scan would read
them there (:func:`treebench.kernels.node_split.few_values`); one whose
node no longer has few values for its size gets its sorted row back by a
counting sort of the node's sample ids (:func:`restore_row`) and stays in
row mode below.  The node's sample ids are kept in increasing order (a
stable partition of ``0..n-1``), so the restored row is the row the
partitions would have made: ranks increasing, ties by sample id.

Integer counts only: weighted fits and fits with label masses stay in row
mode.  Nominal features too: their scans tabulate categories per node.  And
only fits of at least :data:`TABLES_MIN_ROWS` rows (:func:`table_marker`): the
builder's ``tables`` marker argument then is an array, and every use of the
tables in the builder sits under a test of it that numba prunes, so smaller
fits do not compile this code at all (about 3 s of a first compile).

Only the builder's steps (:func:`root_tables`, :func:`ready_tables`,
:func:`tables_needed` and :func:`split_tables`, :func:`route_by_table`, and the
stack's :func:`load_tables` / :func:`push_tables`) are functions of their own;
the kernels they call are inlined into them (``inline="always"``): every
compiled function costs a first compile a fixed tenth of a second or so,
whatever its size.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from treebench.kernels.node_split import TABLE_AT, TABLE_LO, TABLE_SPAN, few_values
from treebench.kernels.partition import set_side
from treebench.kernels.refcount import NO_REFCOUNT
from treebench.kernels.scan import count_ranks


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def rank_by_sample(index_row: np.ndarray, rank_row: np.ndarray, out: np.ndarray) -> None:
    """``out[sample] = rank`` of one feature, from its sorted row at the root."""
    for p in range(index_row.shape[0]):
        out[index_row[p]] = rank_row[p]


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def count_samples(
    ids: np.ndarray, start: int, end: int, rank_of: np.ndarray, row: int, label_of: np.ndarray, first_rank: int,
    span: int, pool: np.ndarray, at: int,
) -> None:
    """Rows ``at .. at + span - 1`` of ``pool``: the (rank, class) counts of the samples
    ``ids[start:end]``, whose ranks ``rank_of[row, sample]`` lie in ``first_rank .. first_rank + span - 1``.

    The kernels here take a 2-D array and a row rather than the row itself: a row view made in the
    (reference-counting) builder costs an atomic increment and decrement per call."""
    for r in range(span):
        for i in range(pool.shape[1]):
            pool[at + r, i] = 0
    for p in range(start, end):
        sample = ids[p]
        pool[at + np.int64(rank_of[row, sample]) - first_rank, label_of[sample]] += 1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def subtract_table(pool: np.ndarray, at: int, other_at: int, span: int) -> None:
    """Rows ``at ..`` of ``pool`` minus rows ``other_at ..`` (``span`` rows), in place."""
    for r in range(span):
        for i in range(pool.shape[1]):
            pool[at + r, i] -= pool[other_at + r, i]


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def _row_size(pool: np.ndarray, row: int) -> int:
    """The samples counted in one row of a table (one rank, every class)."""
    size = 0
    for i in range(pool.shape[1]):
        size += pool[row, i]
    return size


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def trim_table(pool: np.ndarray, at: int, span: int):
    """``(first, rows)``: the offset of the first non-empty row of a table and the number of rows
    up to its last non-empty one (``(0, 0)`` when all are empty)."""
    first = 0
    while first < span and _row_size(pool, at + first) == 0:
        first += 1
    last = span - 1
    while last > first and _row_size(pool, at + last) == 0:
        last -= 1
    if first == span:
        return 0, 0
    return first, last - first + 1


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def restore_row(
    ids: np.ndarray, start: int, end: int, rank_of: np.ndarray, row: int, label_of: np.ndarray, pool: np.ndarray,
    at: int, first_rank: int, span: int, offsets: np.ndarray, sorted_index: np.ndarray, sorted_rank: np.ndarray,
    sorted_label: np.ndarray, f: int,
) -> None:
    """Feature ``f``'s sorted row over ``[start, end)`` from the node's sample ids and its table
    (its ranks by sample in ``rank_of[row]``).

    A counting sort: the table gives each rank's first position, and the ids, visited in
    increasing order, fill each rank's block in that order -- the stable order the
    partitions keep.  ``offsets`` needs ``span`` entries.
    """
    position = start
    for r in range(span):
        offsets[r] = position
        position += _row_size(pool, at + r)
    for p in range(start, end):
        sample = ids[p]
        rank = rank_of[row, sample]
        r = np.int64(rank) - first_rank
        q = offsets[r]
        offsets[r] = q + 1
        sorted_index[f, q] = sample
        sorted_rank[f, q] = rank
        sorted_label[f, q] = label_of[sample]


@njit(cache=True, no_cfunc_wrapper=True, **NO_REFCOUNT)
def route_by_table(
    pool, state: np.ndarray, f: int, n_left: int, ids: np.ndarray, start: int, end: int, rank_of: np.ndarray,
    row: int, side_bits: np.ndarray, child_counts: np.ndarray, parent: np.ndarray,
):
    """A numeric split of feature ``f``, in table mode: its first ``n_left`` samples (by rank) go left.

    Sends the node's samples of a rank above the cut right (one bit each,
    :func:`treebench.kernels.partition.set_side`), writes the children's class counts to
    ``child_counts[0]`` and ``[1]`` (from the table and ``parent``), and returns ``(low, high,
    next_rank)``: the samples on either side of the cut in the sorted order -- the last of the
    left's last rank (its largest id) and the first of the next rank present (its smallest id),
    for the threshold -- and that next rank.
    """
    at = state[TABLE_AT, f]
    first_rank = state[TABLE_LO, f]
    span = state[TABLE_SPAN, f]
    k = pool.shape[1]
    for i in range(k):
        child_counts[0, i] = 0
    seen = 0
    r = 0
    while r < span:
        seen += _row_size(pool, at + r)
        for i in range(k):
            child_counts[0, i] += pool[at + r, i]
        if seen >= n_left:
            break
        r += 1
    last_left = first_rank + r
    r += 1
    while r < span and _row_size(pool, at + r) == 0:
        r += 1
    next_rank = first_rank + r
    for i in range(k):
        child_counts[1, i] = parent[i] - child_counts[0, i]
    low = -1
    high = -1
    for p in range(start, end):
        sample = ids[p]
        rank = np.int64(rank_of[row, sample])
        set_side(side_bits, sample, 1 if rank > last_left else 0)
        if rank == last_left:
            low = sample
        elif rank == next_rank and high < 0:
            high = sample
    return low, high, next_rank


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def partition_ids_two(ids: np.ndarray, start: int, end: int, n_first: int, side_bits: np.ndarray,
                      buffer: np.ndarray) -> None:
    """Stable two-way partition of the node's sample ids by their side bits (no branch on the side,
    which is unpredictable: as :func:`treebench.kernels.partition.partition_two`)."""
    first = start
    second = 0
    for p in range(start, end):
        sample = ids[p]
        c = np.int64((side_bits[sample >> 3] >> (sample & 7)) & 1)
        ids[first] = sample
        buffer[second] = sample
        first += 1 - c
        second += c
    for j in range(second):
        ids[start + n_first + j] = buffer[j]


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def partition_ids_multiway(ids: np.ndarray, start: int, end: int, child_of: np.ndarray, sizes: np.ndarray,
                           n_children: int, offsets: np.ndarray, buffer: np.ndarray) -> None:
    """Stable partition of the node's sample ids into ``n_children`` blocks (``child_of[sample]``)."""
    offsets[0] = 0
    for j in range(n_children):
        offsets[j + 1] = offsets[j] + sizes[j]
    for p in range(start, end):
        sample = ids[p]
        j = child_of[sample]
        buffer[offsets[j]] = sample
        offsets[j] += 1
    for p in range(end - start):
        ids[start + p] = buffer[p]


# -- the builder's three steps (kernels/induction.py) ---------------------------------------------


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def root_tables(
    state: np.ndarray, sorted_index: np.ndarray, sorted_rank: np.ndarray, sorted_label: np.ndarray,
    is_nominal: np.ndarray, cid: int, k: int, histogram_rows: int,
):
    """The root's tables: ``(stack_tables, stack_ends, sample_row, rank_of, label_of, ids, id_buffer,
    pool)``.

    Every numeric feature the histogram scan reads at the root
    (:func:`treebench.kernels.node_split.few_values`) gets its table in ``pool``, described by
    ``state[:, f]`` (rows ``TABLE_AT``, ``TABLE_LO``, ``TABLE_SPAN`` of
    :mod:`treebench.kernels.node_split`; ``state[TABLE_AT]`` comes in as -1), and its ranks by
    sample id in ``rank_of[sample_row[f]]``; ``label_of`` holds the labels by sample id and
    ``ids`` the root's sample ids, ``0 .. n - 1``.  ``stack_tables`` (64, 3 * n_features), the
    builder's stack of node states (row ``r`` of a state at columns ``r * n_features ..``),
    holds the root's as entry 0, and ``stack_ends`` the pool rows each entry's tables end before.
    Arrays are filled by loops, not slice assignments, and have the types the builder already
    grows (no new specialisation to compile).
    """
    n_features, n = sorted_index.shape
    table_at = state[TABLE_AT]
    table_lo = state[TABLE_LO]
    table_span = state[TABLE_SPAN]
    sample_row = np.empty(n_features, np.int64)
    n_tables = 0
    pool_rows = 0
    for f in range(n_features):
        sample_row[f] = -1
        table_lo[f] = 0
        table_span[f] = 0
        span = np.int64(sorted_rank[f, n - 1]) - np.int64(sorted_rank[f, 0]) + 1
        if not is_nominal[f] and span > 1 and few_values(cid, span, k, n, histogram_rows):
            sample_row[f] = n_tables
            n_tables += 1
            table_at[f] = pool_rows
            table_lo[f] = np.int64(sorted_rank[f, 0])
            table_span[f] = span
            pool_rows += span
    kept = n if n_tables > 0 else 0  # no table: no per-sample arrays
    rank_of = np.empty((n_tables, kept), sorted_rank.dtype)
    label_of = np.empty(kept, sorted_label.dtype)
    ids = np.empty(kept, sorted_index.dtype)
    id_buffer = np.empty(kept, sorted_index.dtype)
    pool = np.empty((max(pool_rows, 1), k), np.int32)
    for f in range(n_features):
        if sample_row[f] >= 0:
            rank_by_sample(sorted_index[f], sorted_rank[f], rank_of[sample_row[f]])
            count_ranks(sorted_rank[f], sorted_label[f], 0, n, table_lo[f], table_span[f], pool, table_at[f])
    for p in range(kept):
        ids[p] = p
        label_of[sorted_index[0, p]] = sorted_label[0, p]
    stack_tables = np.empty((64, 3 * n_features), np.int64)
    stack_ends = np.zeros(64, np.int64)
    for r in range(3):
        for f in range(n_features):
            stack_tables[0, r * n_features + f] = state[r, f]
    stack_ends[0] = pool_rows
    return stack_tables, stack_ends, sample_row, rank_of, label_of, ids, id_buffer, pool


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def ready_tables(
    pool, state, features, n_active, cid, k, histogram_rows, ids, start, end, rank_of,
    sample_row, label_of, offsets, sorted_index, sorted_rank, sorted_label,
) -> None:
    """Before a node's search: each of its tables trimmed to the ranks present, and a feature whose
    node no longer has few values for its size given its sorted row back (:func:`restore_row`;
    ``state[TABLE_AT, f] = -1``: row mode from here down).  ``features[:n_active]`` are the node's.
"""
    table_at = state[TABLE_AT]
    table_lo = state[TABLE_LO]
    table_span = state[TABLE_SPAN]
    size = end - start
    for a in range(n_active):
        f = features[a]
        if table_at[f] < 0:
            continue
        first, rows = trim_table(pool, table_at[f], table_span[f])
        table_at[f] += first
        table_lo[f] += first
        table_span[f] = rows
        if rows > 1 and not few_values(cid, rows, k, size, histogram_rows):
            restore_row(
                ids, start, end, rank_of, sample_row[f], label_of, pool, table_at[f], table_lo[f], rows, offsets,
                sorted_index, sorted_rank, sorted_label, f,
            )
            table_at[f] = -1


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def tables_needed(state, features, n_active, n_children, stack_ends, n_stack, node_end):
    """``(n_tables, top, rows)`` at a split: the features of the children kept as tables, the first
    pool row free above every live table (this node's and the stack's), and the rows the
    children's new tables take."""
    n_tables = 0
    rows = 0
    for a in range(n_active):
        f = features[a]
        if state[TABLE_AT, f] >= 0:
            n_tables += 1
            rows += state[TABLE_SPAN, f]
    top = node_end
    for e in range(n_stack):
        top = max(top, stack_ends[e])
    return n_tables, top, rows * (n_children - 1)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def split_tables(
    pool, top, state, features, n_active, ids, start, end, multiway, side_bits,
    child_of, sizes, n_children, offsets, id_buffer, is_open, rank_of, sample_row, label_of, child_at,
    child_end, node_end,
) -> None:
    """The children's tables at a split (``pool`` has room from row ``top``).

    The node's ids are partitioned like its rows (by ``side_bits``, or ``child_of`` when
    ``multiway``); every child but the largest that some open child needs is counted from its
    ids into new rows, and the largest child's is the parent's minus theirs, in place.  Child
    ``j``'s table of feature ``f`` is then at ``child_at[j, f]``, its rows ending before
    ``child_end[j]``.
    """
    table_at = state[TABLE_AT]
    table_lo = state[TABLE_LO]
    table_span = state[TABLE_SPAN]
    if multiway:
        partition_ids_multiway(ids, start, end, child_of, sizes, n_children, offsets, id_buffer)
    else:
        partition_ids_two(ids, start, end, sizes[0], side_bits, id_buffer)
    largest = 0
    for j in range(1, n_children):
        if sizes[j] > sizes[largest]:
            largest = j
    position = start
    for j in range(n_children):
        if j != largest and (is_open[j] or is_open[largest]):
            for a in range(n_active):
                f = features[a]
                if table_at[f] >= 0:
                    count_samples(
                        ids, position, position + sizes[j], rank_of, sample_row[f], label_of, table_lo[f],
                        table_span[f], pool, top,
                    )
                    child_at[j, f] = top
                    top += table_span[f]
            child_end[j] = top
        position += sizes[j]
    if is_open[largest]:
        for a in range(n_active):
            f = features[a]
            if table_at[f] >= 0:
                for j in range(n_children):
                    if j != largest:
                        subtract_table(pool, table_at[f], child_at[j, f], table_span[f])
                child_at[largest, f] = table_at[f]
        child_end[largest] = node_end


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def load_tables(stack_tables, entry, features, n_active, state) -> None:
    """A popped node's table state, for its features ``features[:n_active]``."""
    d = state.shape[1]
    for a in range(n_active):
        f = features[a]
        for r in range(3):
            state[r, f] = stack_tables[entry, r * d + f]


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def push_tables(stack_tables, entry, features, n_active, state, child_at, j) -> None:
    """Child ``j``'s table state on the stack: its tables at ``child_at[j]`` (as
    :func:`split_tables` left them), over its parent's ranks (trimmed when it is popped)."""
    d = state.shape[1]
    for a in range(n_active):
        f = features[a]
        stack_tables[entry, TABLE_AT * d + f] = child_at[j, f] if state[TABLE_AT, f] >= 0 else -1
        stack_tables[entry, TABLE_LO * d + f] = state[TABLE_LO, f]
        stack_tables[entry, TABLE_SPAN * d + f] = state[TABLE_SPAN, f]


#: What the batch builder gets as ``tables`` to keep tables (any other value but ``None`` would do).
TABLES = np.zeros(1, np.int64)

#: Fewest rows for which a fit keeps tables: below it their set-up and bookkeeping cost more than
#: the partitions they save, and small fits then do not compile the tables' code at all.
TABLES_MIN_ROWS = 2048


def table_marker(n_rows: int, weighted: bool, label_masses: bool) -> np.ndarray | None:
    """The builder's ``tables`` argument for a fit: :data:`TABLES` for an unweighted fit of at least
    :data:`TABLES_MIN_ROWS` rows without label masses (integer counts), else ``None``."""
    return TABLES if n_rows >= TABLES_MIN_ROWS and not weighted and not label_masses else None


def tables_pool(tables, pool):
    """``pool`` when ``tables`` is a marker, ``None`` when it is ``None`` (compiled code only): the
    split search's table branch is then pruned by the argument's type."""
    raise NotImplementedError("tables_pool is for numba-compiled code")


@overload(tables_pool, inline="always")
def _tables_pool(tables, pool):
    if isinstance(tables, types.NoneType):
        return lambda tables, pool: None
    return lambda tables, pool: pool
