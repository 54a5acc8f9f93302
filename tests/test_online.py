"""O-ΠTree: trees revised one example at a time (paper 000, §4.2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_wine, make_classification

from treebench.errors import TreebenchError
from treebench.kernels import layout as L
from treebench.trees.online import OnlineTreeClassifier


def test_fit_is_partial_fit_over_a_seeded_permutation():
    X, y = load_wine(return_X_y=True)
    batch = OnlineTreeClassifier("possibilistic", gamma=0.1, random_state=3).fit(X, y)
    order = np.random.default_rng(3).permutation(len(y))
    stream = OnlineTreeClassifier("possibilistic", gamma=0.1)
    for chunk in np.array_split(order, 7):
        stream.partial_fit(X[chunk], y[chunk], classes=np.unique(y))
    np.testing.assert_array_equal(batch.tree_.int_nodes, stream.tree_.int_nodes)
    np.testing.assert_array_equal(batch.tree_.counts, stream.tree_.counts)
    assert len(batch.update_seconds_) == len(y) and (batch.update_seconds_ > 0).all()
    assert batch.n_splits_ == batch.tree_.n_nodes - batch.tree_.n_leaves


def test_only_accepted_splits_and_leaves_hold_their_examples():
    X, y = make_classification(n_samples=500, n_features=5, n_informative=3, flip_y=0.1, random_state=0)
    model = OnlineTreeClassifier("possibilistic", gamma=0.05).fit(X, y)
    tree = model.tree_
    assert tree.n_leaves > 1
    assert (tree.float_nodes[~tree.is_leaf, L.SCORE] > 0).all()  # each split had a positive gain
    # nothing is revised, so every example still reaches the leaf it was added to
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        np.testing.assert_array_equal(np.bincount(y[leaves == leaf], minlength=2), tree.counts[leaf])
    for node in np.flatnonzero(~tree.is_leaf):
        np.testing.assert_array_equal(tree.counts[node], tree.counts[list(tree.children(node))].sum(axis=0))
    assert model.score(X, y) > 0.8


def test_online_tree_with_nominal_features_and_other_criteria():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"c": pd.Categorical(rng.choice(list("abc"), 300)), "x": rng.normal(size=300)})
    y = np.where(X["c"] == "a", "yes", "no")
    model = OnlineTreeClassifier("entropy", min_samples_split=4).fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.tree_.int_nodes[0, L.KIND] == L.NOMINAL_MULTIWAY
    assert clone(model).get_params()["random_state"] == 0


def test_bad_use_is_a_clear_error():
    X, y = load_wine(return_X_y=True)
    model = OnlineTreeClassifier().partial_fit(X[:20], y[:20], classes=[0, 1])
    with pytest.raises(TreebenchError, match="was not among the classes"):
        model.partial_fit(X[-5:], y[-5:])
    with pytest.raises(TreebenchError, match="not pruned"):
        OnlineTreeClassifier(pruning="pessimistic").fit(X, y)
