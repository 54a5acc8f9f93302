"""Post-pruning: C4.5's error-based pruning and cost-complexity pruning."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, make_classification

from treebench import TreeClassifier
from treebench.errors import TreebenchError
from treebench.kernels import layout as L
from treebench.trees import Tree
from treebench.trees.pruning import (
    added_errors,
    cost_complexity_path,
    estimated_errors,
    prune_cost_complexity,
)


def test_added_errors_by_hand():
    # no error: the exact binomial bound N (1 - CF^(1/N)); C4.5's book gives
    # U25%(0, 6) = 0.206, so 6 * 0.206 errors
    assert added_errors(6, 0, 0.25) == pytest.approx(6 * (1 - 0.25 ** (1 / 6)))
    assert added_errors(6, 0, 0.25) == pytest.approx(1.236, abs=2e-3)
    assert added_errors(1, 0, 0.25) == pytest.approx(0.75)
    # one error in 16, normal approximation with continuity correction, z = 0.6745
    z = 0.6744897501960817
    f = 1.5 / 16
    upper = (f + z * z / 32 + z * math.sqrt(f / 16 - f * f / 16 + z * z / (4 * 256))) / (1 + z * z / 16)
    assert estimated_errors(np.array([15, 1]), 0.25) == pytest.approx(16 * upper)
    assert 16 * upper == pytest.approx(2.476, abs=1e-3)
    # between 0 and 1 error: linear interpolation; near N: N - e
    half = added_errors(10, 0.5, 0.25)
    assert half == pytest.approx((added_errors(10, 0, 0.25) + added_errors(10, 1, 0.25)) / 2)
    assert added_errors(4, 3.6, 0.25) == pytest.approx(0.4)
    # smaller confidence, more pessimism
    assert added_errors(20, 3, 0.05) > added_errors(20, 3, 0.25)


def quinlan_vote_tree():
    """C4.5 book, ch. 4: a node with leaves (6, 0), (9, 0), (0, 1) under it."""
    X = pd.DataFrame({"v": ["a"] * 6 + ["b"] * 9 + ["c"]})
    y = np.array([0] * 15 + [1])
    return X, y


def test_quinlans_worked_example_is_pruned_to_a_leaf():
    X, y = quinlan_vote_tree()
    grown = TreeClassifier("entropy").fit(X, y)
    assert grown.tree_.n_leaves == 3
    subtree = sum(estimated_errors(np.array(c), 0.25) for c in ([6, 0], [9, 0], [0, 1]))
    leaf = estimated_errors(np.array([15, 1]), 0.25)
    assert subtree == pytest.approx(3.27, abs=0.01) and leaf == pytest.approx(2.48, abs=0.01)
    pruned = TreeClassifier("entropy", pruning="pessimistic").fit(X, y)
    assert pruned.tree_.n_leaves == 1 and pruned.tree_.n_nodes == 1
    assert list(pruned.tree_.counts[0]) == [15, 1]
    # a permissive confidence keeps it (estimates closer to observed errors)
    kept = TreeClassifier("entropy", pruning="pessimistic", confidence=0.5).fit(X, y)
    assert kept.tree_.n_leaves <= 3


def test_collapse_removes_splits_that_do_not_reduce_training_error():
    # zero-error-reduction splits (certainty makes many) are collapsed first
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] > 0).astype(int)
    y[rng.random(300) < 0.15] ^= 1
    grown = TreeClassifier("certainty").fit(X, y).tree_
    pruned = TreeClassifier("certainty", pruning="pessimistic").fit(X, y).tree_
    assert pruned.n_leaves < grown.n_leaves / 3


@pytest.mark.parametrize("raising", [False, True])
def test_pruned_trees_are_consistent(raising):
    X, y = load_breast_cancer(return_X_y=True)
    model = TreeClassifier("gain_ratio", pruning="pessimistic", subtree_raising=raising).fit(X, y)
    grown = TreeClassifier("gain_ratio").fit(X, y)
    tree = model.tree_
    assert tree.n_leaves < grown.tree_.n_leaves
    assert tree.n_nodes == 2 * tree.n_leaves - 1
    # leaves partition the training data, and counts match what reaches them
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        assert tree.is_leaf[leaf]
        np.testing.assert_array_equal(np.bincount(y[leaves == leaf], minlength=2), tree.counts[leaf])
    assert tree.leaf_counts().sum() == len(y)
    # children are consecutive and depths consistent
    for node in range(tree.n_nodes):
        for child in tree.children(node):
            assert tree.int_nodes[child, L.DEPTH] == tree.int_nodes[node, L.DEPTH] + 1
    assert Tree.from_json(tree.to_json()).to_dict() == tree.to_dict()


def test_subtree_raising_redistributes_counts_and_never_grows_the_tree():
    X, y = make_classification(n_samples=800, n_features=6, n_informative=3, flip_y=0.15, random_state=3)
    plain = TreeClassifier("entropy", pruning="pessimistic").fit(X, y).tree_
    raised = TreeClassifier("entropy", pruning="pessimistic", subtree_raising=True).fit(X, y).tree_
    assert raised.n_leaves <= plain.n_leaves
    leaves = raised.apply(X)
    for leaf in np.unique(leaves):
        np.testing.assert_array_equal(np.bincount(y[leaves == leaf], minlength=2), raised.counts[leaf])


def test_cost_complexity_weakest_link_by_hand():
    # root (10, 10) -> A (9, 1) -> (9, 0), (0, 1)
    #               -> B (1, 9) -> B1 (0, 8), B2 (1, 1) -> (1, 0), (0, 1)
    X = np.array([[0, 0]] * 9 + [[0, 1]] + [[1, 0]] * 8 + [[1, 1], [1, 2]], dtype=float)
    y = np.array([0] * 9 + [1] + [1] * 8 + [0, 1])
    full = TreeClassifier("gini").fit(X, y).tree_
    assert full.n_leaves == 5
    # g = (R(t) - R(T_t)) / (|T_t| - 1), R in fractions of the 20 samples:
    # g(B) = (1/20) / 2 = 0.025 goes first, then g(A) = (1/20) / 1 = 0.05,
    # then the root: (10/20 - 2/20) / 1 = 0.4
    alphas, leaves = cost_complexity_path(full)
    np.testing.assert_allclose(alphas, [0.0, 0.025, 0.05, 0.4])
    np.testing.assert_array_equal(leaves, [5, 3, 2, 1])
    assert prune_cost_complexity(full, 0.03).n_leaves == 3
    assert prune_cost_complexity(full, 0.05).n_leaves == 2
    assert prune_cost_complexity(full, 1.0).n_leaves == 1
    assert prune_cost_complexity(full, 0.0).n_leaves == 5  # every split here reduces the error


def test_cost_complexity_is_monotone_in_alpha_and_validates():
    X, y = make_classification(n_samples=600, n_features=5, flip_y=0.2, random_state=5)
    sizes = [TreeClassifier("gini", pruning="cost-complexity", ccp_alpha=a).fit(X, y).tree_.n_leaves for a in (0.0, 0.002, 0.01, 0.05, 0.5)]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 1
    with pytest.raises(TreebenchError, match="ccp_alpha=-1 is invalid"):
        TreeClassifier("gini", pruning="cost-complexity", ccp_alpha=-1).fit(X, y)
    with pytest.raises(TreebenchError, match="accepted: None, pessimistic, cost-complexity"):
        TreeClassifier("gini", pruning="reduced-error").fit(X, y)
    with pytest.raises(TreebenchError, match="accepted: 0 < confidence <= 0.5"):
        TreeClassifier("gini", pruning="pessimistic", confidence=0.9).fit(X, y)


def test_pruning_keeps_multiway_nominal_structure():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"c": rng.choice(list("abcde"), 400), "x": rng.normal(size=400)})
    y = ((X["c"].isin(["a", "b"])) ^ (rng.random(400) < 0.1)).astype(int)
    model = TreeClassifier("entropy", pruning="pessimistic").fit(X, y)
    assert model.tree_.int_nodes[0, L.KIND] == L.NOMINAL_MULTIWAY
    assert model.score(X, y) > 0.85
