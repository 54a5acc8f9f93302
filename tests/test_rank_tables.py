"""The batch builder's (rank, class) tables kept per node (treebench.kernels.rank_tables).

The kernels one by one against numpy, then whole trees: on data whose columns have few values,
where the builder keeps tables from the root down, takes the larger child's by subtraction and
gives a column its sorted row back when its node no longer has few values, the compiled engine
grows the tree of the readable (python) engine, which has no tables.
"""

from __future__ import annotations

import numpy as np
import pytest

from treebench import TreeClassifier
from treebench.criteria.builtin import criterion_classes
from treebench.kernels.rank_tables import (
    TABLES_MIN_ROWS,
    count_samples,
    partition_ids_multiway,
    partition_ids_two,
    restore_row,
    route_by_table,
    subtract_table,
    table_marker,
    trim_table,
)

BUILT_IN = [cls.name for cls in criterion_classes() if cls.learner_kind == "tree" and cls.kernel_id >= 0]


def _node(seed: int, n: int = 300, levels: int = 9, k: int = 4):
    """Ranks and labels by sample id, and a node: an increasing subset of the ids."""
    rng = np.random.default_rng(seed)
    rank_of = rng.integers(2, 2 + levels, (2, n)).astype(np.uint16)
    label_of = rng.integers(0, k, n).astype(np.uint8)
    ids = np.sort(rng.choice(n, n // 2, replace=False)).astype(np.int32)
    return rank_of, label_of, ids


def _node_table(seed: int, first: int = 2, span: int = 9, k: int = 4):
    """A node and its table of feature 0 (ranks ``first .. first + span - 1``)."""
    rank_of, label_of, ids = _node(seed)
    pool = np.zeros((span, k), np.int32)
    count_samples(ids, 0, ids.size, rank_of, 0, label_of, first, span, pool, 0)
    return rank_of, label_of, ids, pool


def _expected_table(rank_of, label_of, samples, first, span, k):
    table = np.zeros((span, k), np.int32)
    np.add.at(table, (rank_of[samples].astype(np.int64) - first, label_of[samples]), 1)
    return table


@pytest.mark.parametrize("seed", range(6))
def test_counts_subtraction_and_trimming(seed):
    rank_of, label_of, ids = _node(seed)
    k, first, span = 4, 0, 14  # wider than the ranks present: empty rows at both ends
    pool = np.full((3 * span, k), -5, np.int32)
    count_samples(ids, 0, ids.size, rank_of, 1, label_of, first, span, pool, 0)
    np.testing.assert_array_equal(pool[:span], _expected_table(rank_of[1], label_of, ids, first, span, k))
    cut = ids.size // 3
    count_samples(ids, 0, cut, rank_of, 1, label_of, first, span, pool, span)
    subtract_table(pool, 0, span, span)
    np.testing.assert_array_equal(pool[:span], _expected_table(rank_of[1], label_of, ids[cut:], first, span, k))
    start, rows = trim_table(pool, 0, span)
    present = np.unique(rank_of[1, ids[cut:]])
    assert (start, rows) == (present[0] - first, present[-1] - present[0] + 1)
    pool[:span] = 0
    assert trim_table(pool, 0, span) == (0, 0)


@pytest.mark.parametrize("seed", range(6))
def test_restored_row_is_the_stable_sort_of_the_node(seed):
    rank_of, label_of, ids, pool = _node_table(seed)
    first, span = 2, 9
    d, n = 2, ids.size + 10
    index = np.full((d, n), -1, np.int32)
    rank = np.zeros((d, n), np.uint16)
    label = np.zeros((d, n), np.uint8)
    offsets = np.empty(span, np.int64)
    restore_row(ids, 0, ids.size, rank_of, 0, label_of, pool, 0, first, span, offsets, index, rank, label, 1)
    order = ids[np.argsort(rank_of[0, ids], kind="stable")]  # ties in increasing sample id
    np.testing.assert_array_equal(index[1, : ids.size], order)
    np.testing.assert_array_equal(rank[1, : ids.size], rank_of[0, order])
    np.testing.assert_array_equal(label[1, : ids.size], label_of[order])
    assert (index[0] == -1).all()  # other features' rows untouched


@pytest.mark.parametrize("seed", range(6))
def test_cut_routing_threshold_samples_and_left_counts(seed):
    rank_of, label_of, ids, pool = _node_table(seed)
    k, first, span = 4, 2, 9
    ranks = rank_of[0, ids].astype(np.int64)
    present = np.unique(ranks)
    last_left = present[len(present) // 2]
    n_left = int((ranks <= last_left).sum())
    side_bits = np.zeros(ids.max() // 8 + 2, np.uint8)
    counts = np.full((2, k), -1, np.int64)
    parent = np.bincount(label_of[ids], minlength=k).astype(np.int64)
    state = np.array([[-1, 0], [0, first], [0, span]], np.int64)  # feature 1's table at row 0 of the pool
    low, high, next_rank = route_by_table(pool, state, 1, n_left, ids, 0, ids.size, rank_of, 0, side_bits, counts, parent)
    assert next_rank == present[len(present) // 2 + 1]
    right = ((side_bits[ids >> 3] >> (ids & 7)) & 1).astype(bool)
    np.testing.assert_array_equal(right, ranks > last_left)
    order = ids[np.argsort(ranks, kind="stable")]  # the node's sorted row: the cut sits between low and high
    assert (low, high) == (order[n_left - 1], order[n_left])
    np.testing.assert_array_equal(counts[0], np.bincount(label_of[ids[~right]], minlength=k))
    np.testing.assert_array_equal(counts[1], np.bincount(label_of[ids[right]], minlength=k))
    # the ids, partitioned by those bits, keep their order within each side
    buffer = np.empty(ids.size, np.int32)
    parted = ids.copy()
    partition_ids_two(parted, 0, ids.size, n_left, side_bits, buffer)
    np.testing.assert_array_equal(parted, np.concatenate([ids[~right], ids[right]]))


def test_multiway_partition_of_the_ids_is_stable():
    rng = np.random.default_rng(0)
    ids = np.sort(rng.choice(500, 200, replace=False)).astype(np.int32)
    child_of = rng.integers(0, 5, 500).astype(np.uint16)
    sizes = np.bincount(child_of[ids], minlength=5).astype(np.int64)
    parted = ids.copy()
    partition_ids_multiway(parted, 0, ids.size, child_of, sizes, 5, np.zeros(6, np.int64), np.empty(200, np.int32))
    np.testing.assert_array_equal(parted, np.concatenate([ids[child_of[ids] == j] for j in range(5)]))


def _few_values_data(seed: int, n: int = 3000):
    """Columns of 3 to 40 values (NaN in one), one of ~60 values, four classes: tables at the root,
    subtraction below, rows given back as nodes shrink."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([
        rng.integers(0, 3, n), rng.integers(0, 8, n), rng.integers(0, 40, n), rng.normal(size=n).round(1),
        rng.integers(0, 12, n),
    ]).astype(float)
    X[rng.random(n) < 0.05, 4] = np.nan
    X[rng.random(n) < 0.1, 0] = -0.0  # beside 0.0: one value
    y = ((X[:, 1] > 3).astype(int) + (X[:, 2] % 7 == 0) + 2 * (X[:, 3] > 0.8) + rng.integers(0, 2, n)) % 4
    return X, y


def test_fits_of_enough_rows_keep_tables_and_small_ones_do_not():
    assert table_marker(TABLES_MIN_ROWS, False, False) is not None
    assert table_marker(TABLES_MIN_ROWS - 1, False, False) is None
    assert table_marker(10**6, True, False) is None  # weights: sums of weights, no integer table
    assert table_marker(10**6, False, True) is None  # label masses


@pytest.mark.parametrize("criterion", BUILT_IN)
@pytest.mark.parametrize("settings", [{}, {"min_samples_leaf": 5, "max_depth": 9}])
def test_engines_agree_where_the_builder_keeps_tables(criterion, settings):
    X, y = _few_values_data(1)
    assert len(y) >= TABLES_MIN_ROWS
    params = {"q": 0.7} if "tsallis" in criterion else ({"gamma": 0.2} if criterion == "possibilistic" else {})
    fast = TreeClassifier(criterion, engine="numba", **settings, **params).fit(X, y).tree_
    slow = TreeClassifier(criterion, engine="python", **settings, **params).fit(X, y).tree_
    assert fast.n_nodes > 10
    np.testing.assert_array_equal(fast.int_nodes, slow.int_nodes)
    np.testing.assert_array_equal(fast.counts, slow.counts)
    np.testing.assert_allclose(fast.float_nodes, slow.float_nodes, rtol=1e-9, atol=1e-12)
