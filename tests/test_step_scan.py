"""The step-bounded threshold scan: its bound holds, and it picks the full scan's split, candidate for candidate."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from treebench.criteria.builtin.hellinger import (
    GROUPING,
    ONE_VS_REST,
    best_grouping,
    best_one_vs_rest,
    step_term,
)
from treebench.criteria.builtin.spec import ROWS, Kernel
from treebench.kernels.scan import _scan_rows
from treebench.kernels.scoring import is_step_bounded, make_table
from treebench.kernels.step_scan import scan_step_bounded

pytestmark = pytest.mark.kernels


def literal_scan(scan, cid: int):
    """``scan(cid, args)`` compiled with ``cid`` a constant (the literal slot the scans need)."""

    @njit
    def scanned(*args):
        return scan(cid, args)

    return scanned


@njit
def step_table(cid, n):
    return make_table(cid, np.zeros(3), n)


SCANS = {reading: (cid, literal_scan(_scan_rows, cid), literal_scan(scan_step_bounded, cid))
         for reading, cid in (("grouping", GROUPING), ("one-vs-rest", ONE_VS_REST))}


def one_step_bound(on_left: int, r: int) -> float:
    """The module's bound on the change of moving one sample of a class with ``on_left`` left, ``r`` right."""
    return float(np.sqrt((step_term(float(on_left)) + step_term(float(r - 1))) / (on_left + r)))


def test_both_hellinger_kernels_are_step_bounded():
    from treebench.criteria.builtin import kernel_modules

    declared = {kernel.id: kernel.step_bounded for module in kernel_modules() for kernel in module.KERNELS}
    assert {cid for cid, flag in declared.items() if flag} == {GROUPING, ONE_VS_REST}
    assert all(is_step_bounded(cid) == flag for cid, flag in declared.items())  # the generated predicate agrees


def test_a_step_bounded_kernel_must_be_a_whole_split_without_a_tie_break():
    with pytest.raises(ValueError, match="step_bounded"):
        Kernel(99, "nope", ROWS, step_bounded=True)
    with pytest.raises(ValueError, match="step_bounded"):
        Kernel(99, "nope", ROWS, whole_split=True, tie_break=True, step_bounded=True)


def test_the_table_holds_the_step_term_never_below_it():
    """Against 40-digit decimals: ``(sqrt(c + 1) - sqrt(c))^2``, which floats cancel for large ``c``."""
    from decimal import Decimal, getcontext

    getcontext().prec = 40
    table = step_table(GROUPING, 10**6)
    for c in [0, 1, 2, 3, 10, 999, 12345, 10**6 - 1, 10**6]:
        exact = ((Decimal(c + 1).sqrt() - Decimal(c).sqrt()) ** 2)
        assert Decimal(table[c]) >= exact, c  # a bound must not shrink by rounding
        assert Decimal(table[c]) <= exact * (1 + Decimal("1e-11")), c
    assert 1 / (4 * (10**6 + 1)) < table[10**6] < 1 / (4 * 10**6)


@pytest.mark.parametrize("value", [best_grouping, best_one_vs_rest], ids=["grouping", "one-vs-rest"])
def test_one_moved_sample_never_changes_the_value_by_more_than_the_bound(value):
    """Exhaustive groupings (not the sorted cut the kernels use), integer tables of every kind."""
    rng = np.random.default_rng(7)
    ratios = []
    for _ in range(3000):
        k = int(rng.integers(2, 7))
        parent = rng.integers(0, int(rng.choice([3, 10, 100, 3000])), k) + (rng.random(k) < 0.8)
        if (parent > 0).sum() < 2:
            continue
        kind = rng.integers(0, 3)  # anywhere / everything right / everything left
        left = np.array([rng.integers(0, p + 1) if kind == 0 else (0 if kind == 1 else p) for p in parent])
        movable = np.flatnonzero(left < parent)
        if movable.size == 0:
            continue
        c = int(rng.choice(movable))
        if kind == 2:
            left[c] = parent[c] - 1
        after = left.copy()
        after[c] += 1
        change = abs(value(np.stack([after, parent - after])) - value(np.stack([left, parent - left])))
        ratios.append(change / one_step_bound(int(left[c]), int(parent[c] - left[c])))
    assert max(ratios) <= 1.0 + 1e-9
    assert max(ratios) > 0.99  # and it is tight: a sample of a two-class node moving first


def random_node(rng: np.random.Generator) -> dict:
    """A sorted feature of a node: ties, missing values, labels in runs, at random or mirrored."""
    size = int(rng.choice([2, 3, 5, 9, 20, 70, 300, 2000]))
    k = int(rng.integers(2, 9))
    distinct = int(rng.choice([2, 5, size // 4 + 1, size]))
    values = np.sort(rng.integers(0, distinct, size))
    kind = rng.integers(0, 4)
    if kind == 0:
        labels = rng.integers(0, k, size)
    elif kind == 1:  # long runs of one class
        labels = np.repeat(rng.integers(0, k, size), rng.integers(1, 8, size))[:size]
    elif kind == 2:  # mirrored: candidates of exactly equal value
        half = rng.integers(0, k, (size + 1) // 2)
        labels = np.concatenate([half, half[::-1]])[:size]
    else:  # mostly sorted by value, some noise
        labels = (values * k // distinct + (rng.random(size) < 0.1)) % k
    ranks = values.astype(np.uint16)
    n_missing = int(rng.integers(0, 3)) * int(rng.integers(0, size // 5 + 1))
    if n_missing:
        ranks[size - n_missing:] = distinct  # NaN's rank: one past the last, sorted last
    labels = labels.astype(np.uint8)
    return {"ranks": ranks, "labels": labels, "missing": distinct, "size": size, "k": k,
            "parent": np.bincount(labels, minlength=k).astype(np.int64), "min_leaf": int(rng.choice([1, 1, 2, 5]))}


def run(scan, cid: int, node: dict):
    k, size = node["k"], node["size"]
    return scan(
        node["ranks"], node["labels"], node["ranks"], None, 0, size, node["missing"], node["parent"], np.int64(size),
        0.0, np.zeros(3), step_table(cid, size), node["min_leaf"], np.zeros(k, np.int64), np.zeros(k, np.int64),
        np.empty(k), False, 0.0,
    )


@pytest.mark.parametrize("reading", SCANS)
def test_the_bounded_scan_picks_the_full_scans_split(reading):
    cid, full, bounded = SCANS[reading]
    rng = np.random.default_rng(11 if reading == "grouping" else 12)
    for _ in range(4000):
        node = random_node(rng)
        expected, got = run(full, cid, node), run(bounded, cid, node)
        assert got[1] == expected[1] and got[3] == expected[3], (node, expected, got)
        assert got[0] == expected[0] or (np.isnan(got[0]) and np.isnan(expected[0]))


def test_a_tree_fits_through_the_bounded_scan_and_a_weighted_one_through_the_full_scan():
    """Unit weights take the weighted arithmetic (the full scan): on dense continuous data without
    ties the two grow the same tree."""
    from sklearn.datasets import make_classification

    from treebench import TreeClassifier

    X, y = make_classification(n_samples=1500, n_features=6, n_informative=4, n_redundant=0, n_classes=4,
                               random_state=3)
    for reading in ("grouping", "one-vs-rest"):
        plain = TreeClassifier("hellinger", reading=reading).fit(X, y)
        weighted = TreeClassifier("hellinger", reading=reading).fit(X, y, sample_weight=np.ones(len(y)))
        np.testing.assert_array_equal(plain.tree_.int_nodes, weighted.tree_.int_nodes)
        np.testing.assert_allclose(plain.tree_.float_nodes, weighted.tree_.float_nodes, rtol=1e-12, atol=1e-12)
