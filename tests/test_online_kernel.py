"""The compiled online tree grows the trees of the first implementation (a stump re-grown on the
whole leaf at every arrival, kept as ``RegrowingTree``): compared node array by node array after
every few arrivals, on random streams and on real data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine

from treebench import criteria
from treebench.errors import TreebenchError
from treebench.kernels.online import META_SPLITS, feed
from treebench.kernels.scoring import POSSIBILISTIC, child_mass
from treebench.trees.encoding import FeatureEncoder
from treebench.trees.online import GrowingTree, OnlineTreeClassifier, RegrowingTree
from treebench.trees.settings import GrowSettings

FIELDS = ("int_nodes", "float_nodes", "counts", "catmap")


def grow_both(X, y, criterion, settings, nominal=None, every=1, chunk=1):
    """Feed both implementations the same stream; compare their trees every ``every`` arrivals.

    The compiled tree takes the rows ``chunk`` at a time (one kernel call each). Returns it.
    """
    encoder, matrix = FeatureEncoder.fit(X, nominal)
    matrix = np.ascontiguousarray(matrix, dtype=np.float64)
    classes, codes = np.unique(y, return_inverse=True)
    codes = codes.astype(np.int64)
    new = GrowingTree(encoder, classes.tolist(), criterion, settings)
    old = RegrowingTree(encoder.n_features, encoder, classes.tolist(), criterion, settings)
    for begin in range(0, len(codes), chunk):
        end = min(begin + chunk, len(codes))
        new.add_rows(matrix[begin:end], codes[begin:end])
        for i in range(begin, end):
            old.add(matrix[i], int(codes[i]))
        if (end // every) != (begin // every) or end == len(codes):
            for field in FIELDS:
                ours, reference = getattr(new.tree(), field), getattr(old.tree(), field)
                assert ours.shape == reference.shape, (field, end)
                np.testing.assert_array_equal(ours, reference, err_msg=f"{field} after {end} arrivals")
    return new


def random_stream(rng: np.random.Generator):
    """A stream with ties, NaN, nominal columns and a little signal, plus the nominal column ids."""
    n = int(rng.integers(40, 260))
    d = int(rng.integers(1, 5))
    k = int(rng.integers(2, 5))
    columns, nominal = [], []
    for j in range(d):
        kind = int(rng.integers(0, 3))
        if kind == 0:
            column = rng.integers(0, int(rng.integers(2, 9)), n).astype(float)  # few values: ties
        elif kind == 1:
            column = rng.normal(size=n).round(1)
        else:
            column = rng.integers(0, 4, n).astype(float)
            nominal.append(j)
        if kind != 2 and rng.random() < 0.4:
            column[rng.random(n) < 0.2] = np.nan
        columns.append(column)
    X = np.column_stack(columns)
    signal = (np.nan_to_num(X[:, 0]) > np.nanmedian(X[:, 0])).astype(int) % k
    y = np.where(rng.random(n) < 0.5, signal, rng.integers(0, k, n))
    return X, y, nominal


CRITERIA = [
    ("possibilistic", {"gamma": 0.001}),
    ("possibilistic", {"gamma": 0.05}),
    ("possibilistic", {"gamma": 0.5}),
    ("possibilistic", {"gamma": 0.9}),
    ("entropy", {}),
    ("gain_ratio", {}),
    ("gini", {}),
    ("tsallis", {"q": 2.5}),
    ("tsallis_gain_ratio", {"q": 0.5}),
    ("certainty", {}),
    ("certainty", {"tie_break": "none"}),
    # the builder completes belief's parameters with the class count: the online kernel must too
    ("belief", {"lam": 0.3}),
    ("belief", {"lam": 0.8, "variant": "nonspecificity-discord", "multiclass": "one-vs-rest"}),
]


@pytest.mark.parametrize("name, params", CRITERIA, ids=[f"{n}-{p}" for n, p in CRITERIA])
def test_random_streams_grow_the_reference_trees(name, params):
    rng = np.random.default_rng(abs(hash((name, tuple(params.items())))) % 2**32)
    for _ in range(6):
        X, y, nominal = random_stream(rng)
        settings = GrowSettings(
            max_depth=[None, None, 3][int(rng.integers(0, 3))],
            min_samples_split=int(rng.choice([2, 2, 6])),
            min_samples_leaf=int(rng.choice([1, 1, 3])),
            threshold=str(rng.choice(["midpoint", "observed"])),
            nominal_split=str(rng.choice(["multiway", "binary"])),
        )
        grow_both(X, y, criteria.get(name, **params), settings, nominal, every=int(rng.integers(1, 4)),
                  chunk=int(rng.choice([1, 1, 7])))


def test_defaults_on_streams_that_split_often_and_compact_the_arena():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(900, 3)).round(2)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) > rng.normal(scale=0.5, size=900)).astype(int)
    for gamma in (0.05, 0.9):
        tree = grow_both(X, y, criteria.get("possibilistic", gamma=gamma), GrowSettings(), every=25, chunk=50)
        assert tree.n_splits >= 5
    tree = grow_both(X, y, criteria.get("entropy"), GrowSettings(), every=100, chunk=300)
    assert tree.n_splits > 50  # dozens of abandoned ranges: the arena was compacted on the way


def test_wine_and_a_nominal_frame_as_the_estimator_feeds_them():
    X, y = load_wine(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    for gamma in (0.01, 0.1, 0.9):
        grow_both(X[order], y[order], criteria.get("possibilistic", gamma=gamma), GrowSettings(), every=5)
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({
        "c": pd.Categorical(rng.choice(list("abcde"), 400)),
        "x": rng.normal(size=400).round(1),
        "o": pd.Categorical(rng.choice(["lo", "mid", "hi"], 400), categories=["lo", "mid", "hi"], ordered=True),
    })
    labels = np.where(frame["c"].isin(["a", "b"]) ^ (frame["x"] > 0.8), "yes", "no")
    for split in ("multiway", "binary"):
        for name, params in (("possibilistic", {"gamma": 0.2}), ("entropy", {})):
            grow_both(frame, labels, criteria.get(name, **params), GrowSettings(nominal_split=split), every=10)


@pytest.mark.parametrize("dataset, n", [("segment", 1200), ("pendigits", 1500)])
def test_real_data_streams(dataset, n):
    from treebench.data.loader import load

    try:
        data = load(dataset)
    except Exception as exc:  # noqa: BLE001 - no local copy of the data: nothing to compare on
        pytest.skip(f"{dataset} not available: {exc}")
    order = np.random.default_rng(1).permutation(len(data.y))[:n]
    X, y = data.X.to_numpy(dtype=np.float64)[order], np.asarray(data.y)[order]
    for gamma in (0.005, 0.1, 0.9):
        grow_both(X, y, criteria.get("possibilistic", gamma=gamma), GrowSettings(), every=50, chunk=25)


def test_the_estimator_grows_the_reference_tree_and_falls_back_to_it_without_a_kernel():
    X, y = load_wine(return_X_y=True)
    model = OnlineTreeClassifier("possibilistic", gamma=0.1, random_state=5).fit(X, y)
    assert isinstance(model.growing_, GrowingTree)
    order = np.random.default_rng(5).permutation(len(y))
    reference = grow_both(X[order], y[order], criteria.get("possibilistic", gamma=0.1), GrowSettings(), every=178)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(model.tree_, field), getattr(reference.tree(), field))
    assert model.n_splits_ == reference.n_splits == model.tree_.n_nodes - model.tree_.n_leaves
    # a criterion without a compiled kernel (a plugin: the generic engine) keeps the regrowing tree
    plugin = type("NumpyEntropy", (type(criteria.get("entropy")),), {"kernel_id": -1, "name": "numpy-entropy"})()
    numpy_tree = OnlineTreeClassifier(plugin, random_state=5).fit(X[:60], y[:60])
    assert isinstance(numpy_tree.growing_, RegrowingTree)
    assert numpy_tree.n_splits_ == numpy_tree.tree_.n_nodes - numpy_tree.tree_.n_leaves > 0


def test_a_child_mass_grows_by_at_least_one_kth_when_an_example_joins():
    # what the gain ceiling that skips searches rests on (kernels/online.py, _gain_ceiling)
    rng = np.random.default_rng(11)
    for gamma in (0.001, 0.05, 0.5, 0.9, 0.99):
        params = np.asarray(criteria.get("possibilistic", gamma=gamma).kernel_params(8), dtype=np.float64)
        table, scratch = np.zeros(1), np.empty(16)
        for _ in range(400):
            k = int(rng.integers(2, 16))
            scale = float(rng.choice([3, 30, 3000]))
            row = rng.integers(0, int(scale) + 1, k) * (rng.random(k) < 0.7)
            s = int(row.sum())
            for branches in (2, 5):
                before = child_mass(np.int64(POSSIBILISTIC), params, table, row, np.int64(s), np.int64(branches), scratch)
                for label in range(k):
                    grown = row.copy()
                    grown[label] += 1
                    after = child_mass(
                        np.int64(POSSIBILISTIC), params, table, grown, np.int64(s + 1), np.int64(branches), scratch
                    )
                    assert after - before >= 1.0 / k - 1e-9, (gamma, row.tolist(), label)


def test_the_kernel_reports_splits_and_refuses_nothing_it_should_not():
    X, y = load_wine(return_X_y=True)
    tree = GrowingTree(FeatureEncoder.fit(X)[0], [0, 1, 2], criteria.get("entropy"), GrowSettings())
    tree.add_rows(np.ascontiguousarray(X, dtype=np.float64), y.astype(np.int64))
    assert tree.meta[META_SPLITS] == tree.n_splits == tree.n_nodes - int(tree.tree().is_leaf.sum()) > 0
    assert feed.__doc__  # the compiled entry point is documented where the tree layer calls it


# -- partial_fit's input checks: cheap on the fast path, the same one-line errors off it -----------------
def test_partial_fit_checks_labels_once_per_call_with_the_same_errors():
    X, y = load_wine(return_X_y=True)
    model = OnlineTreeClassifier("entropy").partial_fit(X[:30], y[:30], classes=[0, 1, 2])
    model.partial_fit(X[30:31], y[30:31])
    model.partial_fit(X[31:40].astype(np.float32), list(y[31:40]))
    model.partial_fit(pd.DataFrame(X[40:45]), pd.Series(y[40:45]))
    assert len(model.update_seconds_) == 45 and model.tree_.counts[0].sum() == 45
    with pytest.raises(TreebenchError, match=r"label 7 was not among the classes given at the first partial_fit: \[0, 1, 2\]"):
        model.partial_fit(X[:2], np.array([0, 7]))
    with pytest.raises(TreebenchError, match="y contains missing labels"):
        model.partial_fit(X[:2], np.array([0.0, np.nan]))
    with pytest.raises(TreebenchError, match="y has 3 labels; X has 2 rows"):
        model.partial_fit(X[:2], y[:3])
    with pytest.raises(TreebenchError, match="X has 5 features, but OnlineTreeClassifier is expecting 13"):
        model.partial_fit(X[:2, :5], y[:2])
    with pytest.raises(TreebenchError, match="X must be 2-dimensional"):
        model.partial_fit(X[0], y[:1])
    assert model.tree_.counts[0].sum() == 45  # nothing of a refused call was added
    # a refused first call leaves no tree behind
    fresh = OnlineTreeClassifier("entropy")
    with pytest.raises(TreebenchError, match="label 2 was not among the classes"):
        fresh.partial_fit(X, y, classes=[0, 1])
    assert not hasattr(fresh, "growing_")
    # predictions of 1-row arrays take the same short path and agree with the checked one
    np.testing.assert_array_equal(model.predict(X[:1]), model.predict(pd.DataFrame(X[:1])))
