"""The bounded possibilistic scan: its bound is a bound, and it picks the full scan's split."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from sklearn.datasets import make_classification

from treebench import TreeClassifier
from treebench.criteria.builtin.possibilistic import cumulative_entropy as possibilistic_entropy
from treebench.criteria.builtin.possibilistic import pair_mass, possibilistic_mass
from treebench.kernels import possibilistic_bound as pb
from treebench.kernels.scan import _scan_rows
from treebench.kernels.scoring import LOG2, POSSIBILISTIC


@njit
def full_rows_scan(*args):
    """The full (unbounded) row scan of the possibilistic criterion: its id handed over as a literal."""
    return _scan_rows(POSSIBILISTIC, args)


def random_rows(rng: np.random.Generator, n_rows: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Count rows of every shape the scan meets: skewed, balanced, with absent classes."""
    sizes = rng.choice([1, 2, 3, 7, 40, 300, 5000], n_rows)
    rows = np.zeros((n_rows, k), np.int64)
    for r, size in enumerate(sizes):
        shares = rng.dirichlet(np.full(k, rng.choice([0.1, 1.0, 10.0])))
        rows[r] = rng.multinomial(size, shares)
    return rows, sizes


def bound_of_rows(rows: np.ndarray, sizes: np.ndarray, z: float, table: np.ndarray) -> np.ndarray:
    """:func:`pb.block_mass_bounds` on a block of children, in the units of ``possibilistic_mass``."""
    n_rows, k = rows.shape
    block = np.empty((k + 4, n_rows))
    block[: k - 1] = np.cumsum(np.sort(rows, axis=1), axis=1)[:, : k - 1].T
    block[k - 1] = sizes
    pb.block_mass_bounds(block, n_rows, z, table)
    return block[k + 2] / (k * LOG2)


def gibbs_only(rows: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The entropy part alone: sum of ``n h(c / 2n)`` over the first k - 1 terms, plus ``n ln 2``."""
    k = rows.shape[1]
    c = np.cumsum(np.sort(rows, axis=1), axis=1)[:, : k - 1].astype(float)
    n = sizes[:, None].astype(float)
    a = c / (2 * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(np.where(a > 0, a * np.log(np.where(a > 0, a, 1.0)), 0.0) + (1 - a) * np.log1p(-a))
    return ((n * h).sum(axis=1) + sizes * LOG2) / (k * LOG2)


@pytest.mark.parametrize("k", [2, 3, 4, 7])
@pytest.mark.parametrize("z", [0.6, 1.96, 2.39, 3.5])
def test_the_bound_never_exceeds_the_exact_mass_and_closes_most_of_the_gibbs_gap(k, z):
    rng = np.random.default_rng(k * 100 + int(z * 10))
    rows, sizes = random_rows(rng, 400, k)
    table = pb.x_log_x_table(2 * int(sizes.max()))
    scratch = np.empty(k)
    exact = np.array([possibilistic_mass(row, np.int64(s), z, scratch) for row, s in zip(rows, sizes)])
    bound = bound_of_rows(rows, sizes, z, table)
    gibbs = gibbs_only(rows, sizes)
    np.testing.assert_array_less(bound, exact + 1e-9 * np.maximum(1.0, exact))
    np.testing.assert_array_less(gibbs - 1e-9 * np.maximum(1.0, gibbs), bound)
    # the divergence part is what makes the bound worth its cost: it must close
    # most of what the entropy part leaves open (0.95 of it on random a < b)
    open_gap = (exact - gibbs).sum()
    assert (bound - gibbs).sum() >= 0.6 * open_gap


def test_the_log_inequality_behind_the_divergence_bound():
    u = np.concatenate([np.linspace(0.0, 50.0, 200_001), np.logspace(-9, 9, 10_001)])
    assert np.all(np.log1p(u) <= u * (6 + u) / (6 + 4 * u) + 1e-15 * (1 + u))


def random_node(rng: np.random.Generator, sizes: tuple[int, ...] = (70, 160, 320, 1000, 5000)) -> dict:
    size = int(rng.choice(sizes))
    k = int(rng.integers(2, 8))
    distinct = int(rng.choice([2, 5, size // 4 + 1, size]))
    values = np.sort(rng.integers(0, distinct, size))
    noise = rng.normal(0, rng.uniform(0.1, 2.0), size)
    labels = np.abs((values / distinct * k * rng.uniform(0, 1) + noise).astype(int)) % k
    ranks = values.astype(np.uint16)
    n_missing = int(rng.integers(0, 3)) * int(rng.integers(0, size // 5 + 1))
    ranks[size - n_missing :] = distinct  # NaN's rank: one past the last, sorted last
    z = float(rng.uniform(0.8, 3.5))
    parent = np.bincount(labels, minlength=k).astype(np.int64)
    return {
        "ranks": ranks,
        "labels": labels.astype(np.uint8),
        "missing": distinct,
        "parent": parent,
        "z": z,
        "impurity": possibilistic_entropy(parent, size, z, np.empty(k)),
        "min_leaf": int(rng.choice([1, 1, 2, 5])),
    }


def full_scan(node: dict) -> tuple[float, int]:
    k, size = node["parent"].shape[0], node["ranks"].shape[0]
    params = np.array([0.05, node["z"], node["z"]])
    gain, n_left, _, _ = full_rows_scan(
        node["ranks"], node["labels"], node["ranks"], None, 0, size, node["missing"], node["parent"], size,
        node["impurity"], params, np.zeros(1), node["min_leaf"], np.zeros(k, np.int64),
        np.zeros(k, np.int64), np.empty(k), False, 0.0,
    )
    return gain, n_left


def bounded_scan(node: dict, band: float) -> tuple[float, int]:
    k, size = node["parent"].shape[0], node["ranks"].shape[0]
    work, block = pb.bound_workspace(k)
    params = np.array([0.05, node["z"], node["z"]])
    gain, n_left, _, w_left = pb.scan_possibilistic_bounded(
        node["ranks"], node["labels"], 0, size, node["missing"], node["parent"], node["impurity"], params,
        np.zeros(1), node["min_leaf"], np.zeros(k, np.int64), np.zeros(k, np.int64), np.empty(k), pb.x_log_x_table(2 * size),
        np.empty(size, np.float32), work, block, band,
    )
    assert w_left == n_left
    return gain, n_left


def every_bin_hit(node: dict, band: float) -> bool:
    """Whether the bounded scan's first second pass finds no empty bin (so it must widen)."""
    k, size = node["parent"].shape[0], node["ranks"].shape[0]
    bounds = np.empty(size, np.float32)
    work, block = pb.bound_workspace(k)
    written, top_at = pb._upper_bounds(
        node["ranks"], node["labels"], 0, size, node["missing"], node["parent"], node["impurity"],
        node["min_leaf"], node["z"], pb.x_log_x_table(2 * size), bounds, work, block,
    )
    if top_at < 0:
        return False
    counts = np.cumsum(np.eye(k, dtype=np.int64)[node["labels"][:written]], axis=0)
    scratch = np.empty(k)
    right = np.zeros(k, np.int64)

    def gain(j: int) -> float:
        mass = pair_mass(counts[j].copy(), node["parent"], right, np.int64(j + 1), size, node["z"], scratch)
        return node["impurity"] - mass / size

    level = gain(top_at)
    width = band * max(1.0, abs(level))
    floor = level - pb.N_BINS * width
    scored = [gain(j) for j in range(written) if bounds[j] >= floor]
    hit = {min(int((g - floor) / width), pb.N_BINS - 1) for g in scored if floor <= g < level}
    return len(hit) == pb.N_BINS


def test_the_bounded_scan_keeps_the_full_scans_split_on_random_nodes():
    rng = np.random.default_rng(7)
    for _ in range(300):
        node = random_node(rng)
        assert bounded_scan(node, pb.BAND) == full_scan(node)


def test_the_bounded_scan_keeps_the_full_scans_split_when_it_must_widen_its_window():
    # with a band this wide, some large nodes leave no empty bin: the second pass repeats
    rng = np.random.default_rng(11)
    band = 3e-4
    widened = 0
    for _ in range(60):
        node = random_node(rng, sizes=(2000, 5000))
        widened += every_bin_hit(node, band)
        assert bounded_scan(node, band) == full_scan(node)
    assert widened >= 4  # 8 with this seed


def test_the_bounds_table_holds_x_log_x():
    table = pb.x_log_x_table(1000)
    x = np.arange(1, 1001, dtype=float)
    assert table[0] == 0.0
    np.testing.assert_allclose(table[1:], x * np.log(x), rtol=1e-15)


@pytest.mark.parametrize("gamma", [0.05, 0.3])
def test_a_tree_grown_with_bounded_scans_equals_the_generic_engines(gamma):
    # 1,500 continuous rows, so the bounded scans meet nodes of every size
    X, y = make_classification(n_samples=1500, n_features=4, n_informative=3, n_redundant=0, n_classes=4,
                               n_clusters_per_class=1, random_state=3)
    fast = TreeClassifier("possibilistic", gamma=gamma).fit(X, y).tree_
    slow = TreeClassifier("possibilistic", gamma=gamma, engine="python").fit(X, y).tree_
    assert fast.n_nodes > 20
    np.testing.assert_array_equal(fast.int_nodes, slow.int_nodes)
    np.testing.assert_array_equal(fast.counts, slow.counts)
    np.testing.assert_allclose(fast.float_nodes, slow.float_nodes, rtol=1e-9, atol=1e-12)
