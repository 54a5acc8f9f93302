"""The Hellinger distance criterion (treebench/criteria/builtin/hellinger.py): values, readings, trees.

Count tables have one row per branch and one column per class.

Worked by hand: tables 1 and 2 of tests/test_hellinger_oracle.py's docstring (the same tables as
the module's docstring), worked there step by step.  Table 1, two classes over two branches, left
(16, 9) and right (9, 16): d_H = sqrt(2)/5 = 0.2828427, also with the positives multiplied by 7; left
(16, 0) and right (9, 4): d_H = 2/sqrt(5) = 0.8944272.  Table 2, four classes, left (5, 5, 0, 0) and
right (0, 0, 5, 5): the grouping reading scores sqrt(2), the one-vs-rest reading 2 - 2/sqrt(3) under
the root, 0.9194017.

What each test pins: the two-class formula (hand values, river, skew); the grouping reading (table
2, and the compiled sorted cut and multiway search against the exhaustive oracle); the one-vs-rest
reading (table 2, random tables); the reported score is d_H (the root of a fitted tree).
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest
from hellinger_peer import river_criterion, two_class_tables

from treebench import TreeClassifier
from treebench.criteria import get
from treebench.criteria.builtin import hellinger as hd
from treebench.errors import TreebenchError
from treebench.kernels.layout import FEATURE, SCORE, THRESHOLD

pytestmark = pytest.mark.kernels

TABLE_1 = [[16, 9], [9, 16]]
TABLE_2 = [[5, 5, 0, 0], [0, 0, 5, 5]]


def compiled_pair(table, reading: str = "grouping") -> float:
    """The compiled two-branch value (the threshold scan's function) of a 2 x k table."""
    counts = np.asarray(table)
    left, right = counts[0].copy(), counts[1].copy()
    parent = left + right
    total = parent.sum()
    function = hd.pair_mass if reading == "grouping" else hd.pair_mass_ovr
    mass = function(left, parent, right.copy(), left.sum(), total, 0.0, np.empty(counts.shape[1]))
    return -mass / total if total else 0.0


def compiled_split(table, reading: str = "grouping") -> float:
    """The compiled multiway value (the nominal splits' function) of an r x k table."""
    counts = np.ascontiguousarray(table)
    parent = counts.sum(axis=0)
    total = parent.sum()
    function = hd.split_mass if reading == "grouping" else hd.split_mass_ovr
    rows = np.arange(counts.shape[0], dtype=np.int64)
    mass = function(np.zeros(1), counts, rows, np.int64(counts.shape[0]), parent, total, np.empty(counts.shape[1]))
    return -mass / total if total else 0.0


def random_tables(rng: np.random.Generator, n: int, branches: int, weighted: bool):
    """Tables of k = 2..7 classes: integer or real counts, skewed totals, absent classes, equal shares."""
    for t in range(n):
        k = int(rng.integers(2, 8))
        kind = t % 4
        if kind == 3:  # equal shares: cuts must keep tied classes together
            totals = rng.integers(1, 5, k) * 4
            table = np.stack([totals * rng.integers(0, 5, k) // 4] + [np.zeros(k, np.int64)] * (branches - 1))
            table[1] = totals - table[0]
        else:
            scale = [30, 5000, 3][kind]
            table = rng.integers(0, scale, size=(branches, k))
            if kind == 1:
                table[:, rng.integers(k)] //= 200  # a rare class
        if rng.random() < 0.2:
            table[:, rng.integers(k)] = 0  # a class absent from the node
        table = table.astype(float) * (rng.gamma(1.0, 1.0, size=table.shape) if weighted else 1.0)
        if (table.sum(axis=0) > 0).sum() >= 1:
            yield table if weighted else table.astype(np.int64)


def test_hand_values():
    assert hd.two_class_value(TABLE_1) == pytest.approx(math.sqrt(2) / 5, abs=1e-15)
    assert hd.two_class_value([[16, 63], [9, 112]]) == pytest.approx(math.sqrt(2) / 5, abs=1e-15)
    assert hd.two_class_value([[16, 0], [9, 4]]) == pytest.approx(2 / math.sqrt(5), abs=1e-15)
    for reading in hd.READINGS:
        assert hd.split_value(np.array(TABLE_1), reading) == pytest.approx(math.sqrt(2) / 5, abs=1e-15)
        assert compiled_pair(TABLE_1, reading) == pytest.approx(math.sqrt(2) / 5, abs=1e-15)
        assert compiled_split(TABLE_1, reading) == pytest.approx(math.sqrt(2) / 5, abs=1e-15)
    assert compiled_pair([[16, 0], [9, 4]]) == pytest.approx(2 / math.sqrt(5), abs=1e-15)


def test_the_readings_differ_on_four_classes():
    ovr = math.sqrt(2 - 2 / math.sqrt(3))
    assert hd.split_value(np.array(TABLE_2), "grouping") == pytest.approx(math.sqrt(2), abs=1e-15)
    assert hd.split_value(np.array(TABLE_2), "one-vs-rest") == pytest.approx(ovr, abs=1e-15)
    assert compiled_pair(TABLE_2, "grouping") == pytest.approx(math.sqrt(2), abs=1e-15)
    assert compiled_pair(TABLE_2, "one-vs-rest") == pytest.approx(ovr, abs=1e-15)
    assert compiled_split(TABLE_2, "grouping") == pytest.approx(math.sqrt(2), abs=1e-15)
    assert compiled_split(TABLE_2, "one-vs-rest") == pytest.approx(ovr, abs=1e-15)
    # three classes: every grouping is one class against the rest
    rng = np.random.default_rng(3)
    for _ in range(50):
        table = rng.integers(1, 40, size=(2, 3))
        assert compiled_pair(table, "grouping") == pytest.approx(compiled_pair(table, "one-vs-rest"), abs=1e-14)


@pytest.mark.parametrize("weighted", [False, True])
def test_compiled_two_branch_values_equal_the_exhaustive_oracle(weighted):
    rng = np.random.default_rng(40 + weighted)
    for table in random_tables(rng, 400, 2, weighted):
        assert compiled_pair(table) == pytest.approx(hd.best_grouping(table), abs=1e-12), table
        assert hd.best_sorted_cut(table) == pytest.approx(hd.best_grouping(table), abs=1e-12), table
        assert compiled_pair(table, "one-vs-rest") == pytest.approx(hd.best_one_vs_rest(table), abs=1e-12), table


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("branches", [2, 3, 5])
def test_compiled_multiway_values_equal_the_oracle(weighted, branches):
    rng = np.random.default_rng(50 + 10 * branches + weighted)
    for table in random_tables(rng, 150, branches, weighted):
        assert compiled_split(table) == pytest.approx(hd.best_grouping(table), abs=1e-12), table
        assert compiled_split(table, "one-vs-rest") == pytest.approx(hd.best_one_vs_rest(table), abs=1e-12), table


def block_tables(rng: np.random.Generator, n: int, weighted: bool):
    """Two-branch tables of 8 to 40 classes, each absent, wholly left, wholly right, or on both
    sides (a third of those at a shared share 1/4, 1/2 or 3/4): the blocks the sorted cut
    treats without sorting, and ties among the classes it sorts."""
    for _ in range(n):
        k = int(rng.choice([8, 12, 26, 40]))
        kind = rng.integers(0, 4, k)
        parent = rng.integers(1, 30, k) * 4
        left = np.where(kind == 1, parent, 0)
        mixed = kind == 3
        left[mixed] = rng.integers(1, parent[mixed])
        shared = mixed & (rng.random(k) < 0.35)
        left[shared] = parent[shared] * rng.integers(1, 4, shared.sum()) // 4
        parent[kind == 0] = 0
        left[kind == 0] = 0
        table = np.stack([left, parent - left])
        yield table * rng.gamma(1.0, 1.0, size=table.shape) if weighted else table


@pytest.mark.parametrize("weighted", [False, True])
def test_compiled_values_on_many_classes_equal_the_oracle(weighted):
    """Up to 40 classes: the sorted cut (blocks of shares 0 and 1, ties, the bound that skips
    cuts) and one-vs-rest against the oracle; the exhaustive search itself up to 12 classes."""
    rng = np.random.default_rng(60 + weighted)
    for table in block_tables(rng, 300, weighted):
        expected = hd.best_grouping(table) if table.shape[1] <= 12 else hd.best_sorted_cut(table)
        assert compiled_pair(table) == pytest.approx(expected, abs=1e-12), table
        assert compiled_pair(table, "one-vs-rest") == pytest.approx(hd.best_one_vs_rest(table), abs=1e-12), table


def test_the_integer_and_weighted_implementations_each_equal_the_oracle():
    """The two implementations behind each compiled value (the counts' type picks one: exact
    integer sums, or weights summed afresh), called directly on the same integer tables, the
    weighted one with the counts as floats."""
    rng = np.random.default_rng(90)
    for table in block_tables(rng, 150, weighted=False):
        left, parent = table[0], table.sum(axis=0)
        floats, float_parent = left.astype(float), parent.astype(float)
        scratch = np.empty(parent.shape[0])
        grouping, ovr = hd.best_sorted_cut(table), hd.best_one_vs_rest(table)
        assert math.sqrt(hd._sorted_cut_integer(left, parent, scratch)) == pytest.approx(grouping, abs=1e-12)
        assert math.sqrt(hd._sorted_cut_summed(floats, float_parent, scratch)) == pytest.approx(grouping, abs=1e-12)
        assert math.sqrt(hd._one_vs_rest_integer(left, parent)) == pytest.approx(ovr, abs=1e-12)
        assert math.sqrt(hd._one_vs_rest_summed(floats, float_parent)) == pytest.approx(ovr, abs=1e-12)
        two = np.ascontiguousarray(table[:, parent > 0][:, :2])
        if two.shape[1] == 2:
            expected = hd.two_class_value(two)
            assert math.sqrt(hd._two_integer(two[0].copy(), two.sum(axis=0))) == pytest.approx(expected, abs=1e-12)
            two_floats = two.astype(float)
            assert math.sqrt(hd._two_summed(two_floats[0].copy(), two_floats.sum(axis=0))) == pytest.approx(
                expected, abs=1e-12)


@pytest.mark.parametrize("reading", hd.READINGS)
def test_a_threshold_scan_reusing_its_scratch_equals_the_oracle(reading):
    """The scan's use: one sample at a time moved left, every candidate scored with the same
    scratch (whatever the previous candidate left in it), 26 classes, some rare."""
    rng = np.random.default_rng(70)
    weights = np.r_[np.full(20, 9.0), np.full(6, 1.0)]
    labels = rng.choice(26, size=400, p=weights / weights.sum())
    parent = np.bincount(labels, minlength=26).astype(np.int64)
    left = np.zeros(26, np.int64)
    scratch = np.full(26, np.nan)
    function = hd.pair_mass if reading == "grouping" else hd.pair_mass_ovr
    oracle = hd.best_sorted_cut if reading == "grouping" else hd.best_one_vs_rest
    total = parent.sum()
    for label in labels[:-1]:
        left[label] += 1
        value = -function(left, parent, np.zeros(26, np.int64), left.sum(), total, 0.0, scratch) / total
        assert value == pytest.approx(oracle(np.stack([left, parent - left])), abs=1e-12)


def test_the_bound_that_skips_a_cut_holds():
    """``d_H^2 <= 2 D^2 / (P_1 P_2)``, at least half of it (``_raised``'s skip rule), checked with
    the oracle's two-class value on random integer groupings, lopsided ones included."""
    rng = np.random.default_rng(80)
    for _ in range(3000):
        high = [5, 5, 5000, 5000] if rng.random() < 0.3 else [60] * 4
        a, a_right, b, b_right = (int(v) for v in rng.integers(0, high))
        if a + a_right == 0 or b + b_right == 0:
            continue
        value = hd.two_class_value([[a, b], [a_right, b_right]]) ** 2
        delta = a * (b + b_right) - b * (a + a_right)
        first = a * (b + b_right) + b * (a + a_right)
        second = a_right * (b + b_right) + b_right * (a + a_right)
        bound = 2.0 * delta * delta / (first * second) if first and second else 0.0
        assert bound / 2 - 1e-12 <= value <= bound + 1e-12, (a, a_right, b, b_right)
        for best in (0.0, value / 2, value * 0.999, value, value * 1.5):
            assert hd._raised(a, a_right, b, b_right, best) == pytest.approx(max(best, value), abs=1e-12)


def test_a_multiway_split_of_too_many_classes_is_refused_in_one_line():
    table = np.ones((3, hd.MAX_GROUPING_CLASSES + 1))
    with pytest.raises(TreebenchError, match="at most 12 classes"):
        hd.split_value(table, "grouping")
    with pytest.raises(ValueError, match="at most 12 classes"):
        compiled_split(table)
    assert compiled_split(np.ones((3, hd.MAX_GROUPING_CLASSES)) + np.eye(3, hd.MAX_GROUPING_CLASSES)) >= 0.0
    assert compiled_split(table, "one-vs-rest") == pytest.approx(hd.best_one_vs_rest(table), abs=1e-12)
    assert "\n" not in hd.TOO_MANY_CLASSES


def test_skew_insensitive_for_two_classes():
    rng = np.random.default_rng(7)
    for _ in range(300):
        table = rng.integers(1, 60, size=(2, 2)).astype(float)
        scaled = table * np.array([1.0, rng.choice([0.01, 0.3, 7.0, 1000.0])])
        assert compiled_pair(scaled) == pytest.approx(compiled_pair(table), abs=1e-12)
        three = rng.integers(0, 60, size=(3, 2)).astype(float) + 1
        assert compiled_split(three * np.array([50.0, 1.0])) == pytest.approx(compiled_split(three), abs=1e-12)


def test_equals_river_on_two_class_tables():
    river = river_criterion()
    compared = 0
    for table, dist in two_class_tables():
        assert river.compute_hellinger(dist) == pytest.approx(compiled_pair(table), abs=1e-12)
        compared += 1
    assert compared > 500


def test_the_criterion_class_and_its_reported_score():
    criterion = get("hellinger")
    assert criterion.reading == "grouping" and criterion.kernel_id == hd.GROUPING
    assert get("hellinger", reading="one-vs-rest").kernel_id == hd.ONE_VS_REST
    with pytest.raises(TreebenchError, match="grouping, one-vs-rest"):
        get("hellinger", reading="pairs")
    children = np.array([TABLE_2, [[5, 0, 5, 0], [0, 5, 0, 5]]], dtype=float)
    scores = criterion.split_scores(np.array([5, 5, 5, 5]), children)
    assert scores.tolist() == pytest.approx([math.sqrt(2), math.sqrt(2)])
    assert criterion.node_value(np.array([3, 4, 5])) == 0.0


def numeric_and_nominal(rng: np.random.Generator, n: int, k: int) -> tuple[pd.DataFrame, np.ndarray]:
    rounded = np.round(rng.normal(size=n), 1)  # ties, and the histogram scan on small nodes
    smooth = rng.normal(size=n)
    colour = pd.Categorical(rng.choice(list("abcde"), n))
    y = (rounded + 0.8 * smooth + 0.7 * (np.asarray(colour) == "c") + rng.normal(0, 0.6, n) > 0.8).astype(int)
    if k > 2:
        y = np.where(y == 1, 1 + (smooth > 0.5).astype(int) * (k - 2), rng.integers(0, k, n) * (rng.random(n) < 0.3))
    y[:k] = np.arange(k)
    return pd.DataFrame({"rounded": rounded, "smooth": smooth, "colour": colour}), y


@pytest.mark.parametrize("k", [2, 4])
@pytest.mark.parametrize("reading", hd.READINGS)
@pytest.mark.parametrize("nominal_split", ["multiway", "binary"])
@pytest.mark.parametrize("weighted", [False, True])
def test_compiled_trees_equal_the_generic_engine(k, reading, nominal_split, weighted):
    """The compiled scans (threshold, histogram, nominal) grow the tree the numpy oracle grows."""
    rng = np.random.default_rng(k + 10 * weighted)
    X, y = numeric_and_nominal(rng, 400, k)
    w = rng.gamma(2.0, 1.0, len(y)) if weighted else None
    settings = dict(reading=reading, nominal_split=nominal_split, min_samples_leaf=2)
    fast = TreeClassifier("hellinger", engine="numba", **settings).fit(X, y, sample_weight=w).tree_
    slow = TreeClassifier("hellinger", engine="python", **settings).fit(X, y, sample_weight=w).tree_
    np.testing.assert_array_equal(fast.int_nodes, slow.int_nodes)
    np.testing.assert_array_equal(fast.catmap, slow.catmap)
    np.testing.assert_allclose(fast.float_nodes, slow.float_nodes, rtol=1e-9, atol=1e-12)
    assert fast.int_nodes.shape[0] > 9


def test_root_of_a_binary_imbalanced_dataset_is_the_oracles_best_split():
    from treebench.data.loader import load

    if not os.environ.get("TREEBENCH_DATA"):
        pytest.skip("TREEBENCH_DATA is not set: the bundled datasets are not at hand")
    data = load("haberman")
    X, y = data.X.to_numpy(dtype=float), data.y
    assert np.bincount(y).min() / np.bincount(y).max() < 0.4  # imbalanced
    best = (-1.0, -1, 0.0)
    for f in range(X.shape[1]):
        values = np.unique(X[:, f])
        for low, high in zip(values[:-1], values[1:]):
            threshold = low / 2 + high / 2
            table = np.stack([np.bincount(y[X[:, f] <= threshold], minlength=2),
                              np.bincount(y[X[:, f] > threshold], minlength=2)])
            value = hd.two_class_value(table)
            if value > best[0] * (1 + 1e-10):
                best = (value, f, threshold)
    tree = TreeClassifier("hellinger").fit(X, y).tree_
    assert tree.int_nodes[0, FEATURE] == best[1]
    assert tree.float_nodes[0, THRESHOLD] == best[2]
    assert tree.float_nodes[0, SCORE] == pytest.approx(best[0], rel=1e-12)  # the reported score is d_H
