"""Belief-function trees on the compiled builder: the same trees as the generic numpy engine.

The generic engine (``engine="python"``), which scores every candidate with
``treebench.criteria.belief``'s numpy formulas, is the oracle: node arrays must
agree exactly (scores to rounding), and so must the leaves' belief structures
and the pignistic probabilities.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from treebench import criteria
from treebench.errors import TreebenchError
from treebench.kernels import layout as L
from treebench.kernels.scoring import BELIEF, BELIEF_OVR, score_children
from treebench.trees.belief import BeliefTreeClassifier
from treebench.trees.builder import Presorted

PARAMS = [
    {},
    {"lam": 0.6, "variant": "nonspecificity-discord"},
    {"lam": 1.0},
    {"lam": 0.2},
    {"lam": 0.7, "multiclass": "one-vs-rest"},
    {"lam": 0.3, "variant": "nonspecificity-discord", "multiclass": "one-vs-rest"},
]
SETTINGS = [
    {},
    {"nominal_split": "binary", "threshold": "observed"},
    {"min_samples_leaf": 5},
    {"min_samples_leaf": 2, "max_depth": 4},
]


def random_frame(n_classes: int, seed: int, n: int = 260) -> tuple[pd.DataFrame, np.ndarray]:
    """Ties (rounded and few-valued columns), NaN, a nominal column with a missing code, ``n_classes`` labels."""
    rng = np.random.default_rng(seed)
    rounded = np.round(rng.normal(size=n), 1)
    rounded[rng.random(n) < 0.1] = np.nan
    few = rng.integers(0, 6, n).astype(float)
    smooth = rng.random(n)
    colour = pd.Series(rng.choice(["red", "green", "blue", "grey", None], size=n), dtype="category")
    signal = (rounded > 0.3).astype(int) + (few > 2) + (smooth < 0.4) + (colour == "red").to_numpy()
    y = (signal + (rng.random(n) < 0.25) * rng.integers(0, n_classes, n)) % n_classes
    y[:n_classes] = np.arange(n_classes)  # every class present
    X = pd.DataFrame({"rounded": rounded, "few": few, "smooth": smooth, "colour": colour})
    return X, y


def assert_same_fit(fast: BeliefTreeClassifier, slow: BeliefTreeClassifier, X) -> None:
    """Same nodes; integer counts (and so the leaves' masses) exactly, sums of weights to rounding."""
    a, b = fast.tree_, slow.tree_
    np.testing.assert_array_equal(a.int_nodes, b.int_nodes)
    np.testing.assert_array_equal(a.catmap, b.catmap)
    np.testing.assert_allclose(a.float_nodes, b.float_nodes, rtol=1e-9, atol=1e-12)
    if a.counts.dtype.kind == "i":
        np.testing.assert_array_equal(a.counts, b.counts)
        np.testing.assert_array_equal(fast.leaf_masses_, slow.leaf_masses_)
        np.testing.assert_array_equal(fast.predict_proba(X), slow.predict_proba(X))
        return
    # weights are summed in another order by each engine
    np.testing.assert_allclose(a.counts, b.counts, rtol=1e-12)
    np.testing.assert_allclose(fast.leaf_masses_, slow.leaf_masses_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fast.predict_proba(X), slow.predict_proba(X), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n_classes", [2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("settings", SETTINGS)
def test_compiled_belief_trees_equal_the_generic_engine(n_classes, params, settings):
    X, y = random_frame(n_classes, seed=n_classes)
    fast = BeliefTreeClassifier(engine="numba", **params, **settings).fit(X, y)
    slow = BeliefTreeClassifier(engine="python", **params, **settings).fit(X, y)
    assert_same_fit(fast, slow, X)
    assert fast.tree_.n_nodes > 3


@pytest.mark.parametrize("params", [{"lam": 0.0}, {"lam": 0.1, "variant": "nonspecificity-discord"}])
def test_nonspecificity_heavy_criteria_stop_early_in_both_engines(params):
    # nonspecificity 1/(n + 1) grows as nodes shrink: with lam near 0 few or no splits pay
    for n_classes in (2, 4, 6):
        X, y = random_frame(n_classes, seed=n_classes)
        fast = BeliefTreeClassifier(engine="numba", **params).fit(X, y)
        slow = BeliefTreeClassifier(engine="python", **params).fit(X, y)
        assert_same_fit(fast, slow, X)
    assert BeliefTreeClassifier(lam=0.0).fit(X, y).tree_.n_nodes == 1  # every split raises u_0


@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("params", [{}, {"multiclass": "one-vs-rest", "variant": "nonspecificity-discord"}])
@pytest.mark.parametrize("nominal_split", ["multiway", "binary"])
def test_weighted_belief_trees_equal_the_generic_engine(n_classes, params, nominal_split):
    X, y = random_frame(n_classes, seed=10 + n_classes)
    weights = np.random.default_rng(n_classes).uniform(0.3, 3.0, len(y))
    fast = BeliefTreeClassifier(engine="numba", nominal_split=nominal_split, **params)
    slow = BeliefTreeClassifier(engine="python", nominal_split=nominal_split, **params)
    fast.fit(X, y, sample_weight=weights)
    slow.fit(X, y, sample_weight=weights)
    assert fast.tree_.counts.dtype == np.float64
    assert_same_fit(fast, slow, X)


@pytest.mark.parametrize("params", [{}, {"multiclass": "one-vs-rest"}])
def test_large_nodes_of_few_values_take_the_histogram_scan(params):
    # integer features with few levels: the builder counts (value, class) pairs first
    rng = np.random.default_rng(3)
    X = rng.integers(0, 8, size=(3000, 4)).astype(float)
    y = ((X[:, 0] + X[:, 1] > 7).astype(int) + (X[:, 2] > 4) + (rng.random(3000) < 0.2)) % 3
    fast = BeliefTreeClassifier(engine="numba", **params).fit(X, y)
    slow = BeliefTreeClassifier(engine="python", **params).fit(X, y)
    assert_same_fit(fast, slow, X)


@pytest.mark.parametrize("params", [{}, {"multiclass": "one-vs-rest", "lam": 0.8}])
@pytest.mark.parametrize("weighted", [False, True])
def test_uint16_and_int32_ranks_grow_the_same_belief_tree(params, weighted):
    X, y = random_frame(4, seed=21, n=400)
    weights = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else None
    narrow = Presorted.for_fit(X, y)
    wide = narrow.widened()
    model = BeliefTreeClassifier(**params)
    a = model.fit(X, y, sample_weight=weights, presorted=narrow).tree_
    b = model.fit(X, y, sample_weight=weights, presorted=wide).tree_
    assert a.n_nodes > 5
    np.testing.assert_array_equal(a.int_nodes, b.int_nodes)
    np.testing.assert_array_equal(a.float_nodes, b.float_nodes)


@pytest.mark.parametrize("n_classes", [2, 3, 4, 7])
@pytest.mark.parametrize("params", PARAMS)
def test_kernel_scores_equal_the_numpy_formulas(n_classes, params):
    rng = np.random.default_rng(n_classes)
    crit = criteria.get("belief", **params)
    assert crit.kernel_id == (BELIEF_OVR if params.get("multiclass") == "one-vs-rest" else BELIEF)
    for branches in (2, 3):
        parent = rng.integers(0, 12, n_classes)
        parent[0] += 1
        children = np.zeros((20, branches, n_classes), np.int64)
        for c in range(20):
            for i in range(n_classes):
                cuts = np.sort(rng.integers(0, parent[i] + 1, branches - 1))
                children[c, :, i] = np.diff(np.concatenate([[0], cuts, [parent[i]]]))
        children[0] = 0
        children[0, -1] = parent  # every sample in one child (the others empty)
        candidate, final = score_children(
            crit.kernel_id, crit.kernel_params(branches), parent.astype(np.int64), children.astype(np.int64)
        )
        expected = crit.split_scores(parent, children)
        np.testing.assert_allclose(final, expected, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(candidate, expected, rtol=1e-9, atol=1e-12)


# -- uncertain labels (eq. 22): the compiled scan over label masses --------------------------------
def label_masses(y: np.ndarray, seed: int, general: float = 0.1) -> np.ndarray:
    """Crisp masses, a share rated by experts (mass on class 1 and Omega), some vacuous, a few general."""
    rng = np.random.default_rng(seed)
    masses = np.zeros((len(y), 3))
    masses[np.arange(len(y)), y] = 1.0
    rated = rng.random(len(y)) < 0.4
    q = rng.integers(0, 6, rated.sum()) / 5  # q = 0: vacuous, q = 1: crisp class 1
    masses[rated] = 0.0
    masses[rated, 1] = q
    masses[rated, 2] = 1.0 - q
    mixed = rng.random(len(y)) < general
    masses[mixed] = rng.dirichlet([1.0, 1.0, 1.0], mixed.sum())
    return masses


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    "params",
    [{}, {"lam": 0.8, "variant": "nonspecificity-discord"}, {"lam": 0.3}, {"lam": 1.0, "multiclass": "one-vs-rest"}],
)
@pytest.mark.parametrize("settings", [{}, {"min_samples_leaf": 4}, {"max_depth": 3, "threshold": "observed"}])
def test_label_mass_trees_equal_the_generic_engine(seed, params, settings):
    X, y = random_frame(2, seed=seed)
    masses = label_masses(y, seed)
    fast = BeliefTreeClassifier(**params, **settings).fit(X, y, label_masses=masses)
    slow = BeliefTreeClassifier(engine="python", **params, **settings).fit(X, y, label_masses=masses)
    assert_same_fit(fast, slow, X)
    assert fast.tree_.n_nodes > 3
    if seed == 1 and not settings and not params:  # nominal candidates are scored on the masses too
        assert (fast.tree_.int_nodes[:, L.KIND] == L.NOMINAL_MULTIWAY).sum() >= 1
    # the masses matter: the crisp-label tree differs
    crisp = BeliefTreeClassifier(**params, **settings).fit(X, y)
    assert crisp.tree_.int_nodes.shape != fast.tree_.int_nodes.shape or (
        crisp.tree_.float_nodes[:, L.SCORE] != fast.tree_.float_nodes[:, L.SCORE]
    ).any()


def test_label_mass_trees_of_simulated_experts_equal_the_generic_engine():
    # the paper's setting (treebench.data.label_uncertainty): one class rated by five experts
    from treebench.data.label_uncertainty import LabelUncertainty, simulate_label_masses

    rng = np.random.default_rng(7)
    X = np.round(rng.normal(size=(400, 5)), 2)
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.5, size=400) > 0).astype(int)
    masses, labels = simulate_label_masses(y, LabelUncertainty(confused=0.3), rng)
    for lam in (0.05, 0.4, 1.0):
        fast = BeliefTreeClassifier(lam=lam).fit(X, labels, label_masses=masses)
        slow = BeliefTreeClassifier(lam=lam, engine="python").fit(X, labels, label_masses=masses)
        assert_same_fit(fast, slow, X)


def test_label_masses_fall_back_to_the_generic_engine_where_it_alone_applies():
    X, y = random_frame(2, seed=4)
    masses = label_masses(y, 4, general=0.0)
    # post-pruning: grown (and pruned) by the generic path, the same either way
    pruned = BeliefTreeClassifier(pruning="pessimistic").fit(X, y, label_masses=masses)
    oracle = BeliefTreeClassifier(pruning="pessimistic", engine="python").fit(X, y, label_masses=masses)
    assert_same_fit(pruned, oracle, X)
    # binary nominal splits are only partly defined on label masses: the generic engine's own answer
    model = BeliefTreeClassifier(nominal_split="binary")
    with pytest.raises(TreebenchError, match="nominal_split=multiway"):
        model.fit(X, y, label_masses=masses)
    numeric = X.drop(columns="colour")
    fast = BeliefTreeClassifier(nominal_split="binary").fit(numeric, y, label_masses=masses)
    slow = BeliefTreeClassifier(nominal_split="binary", engine="python").fit(numeric, y, label_masses=masses)
    assert_same_fit(fast, slow, numeric)


def test_label_masses_refuse_a_bad_engine_in_one_line():
    X, y = random_frame(2, seed=2)
    with pytest.raises(TreebenchError, match="engine='fast' is invalid; accepted: auto, numba, python"):
        BeliefTreeClassifier(engine="fast").fit(X, y, label_masses=label_masses(y, 2))


def test_label_masses_with_a_presort_and_refit():
    X, y = random_frame(2, seed=8)
    masses = label_masses(y, 8)
    presorted = Presorted.for_fit(X, y)
    model = BeliefTreeClassifier(lam=0.6)
    first = model.fit(X, y, label_masses=masses, presorted=presorted).tree_
    again = model.fit(X, y, label_masses=masses, presorted=presorted).tree_  # the presort is copied
    plain = model.fit(X, y, label_masses=masses).tree_
    for other in (again, plain):
        np.testing.assert_array_equal(first.int_nodes, other.int_nodes)
        np.testing.assert_array_equal(first.float_nodes, other.float_nodes)


@pytest.mark.parametrize("name", ["credit-g", "vote", "pendigits"])
def test_engines_agree_on_real_data(name):
    if not os.environ.get("TREEBENCH_DATA"):
        pytest.skip("needs the dataset mirror (TREEBENCH_DATA)")
    from treebench.data import load

    data = load(name)
    X, y = data.X, np.asarray(data.y)
    if len(y) > 3000:  # the generic engine is slow: a seeded subsample
        rows = np.random.default_rng(0).choice(len(y), 3000, replace=False)
        X, y = X.iloc[rows], y[rows]
    for params in ({}, {"multiclass": "one-vs-rest", "lam": 0.2}):
        fast = BeliefTreeClassifier(**params).fit(X, y)
        slow = BeliefTreeClassifier(engine="python", **params).fit(X, y)
        assert_same_fit(fast, slow, X)
        assert fast.tree_.n_nodes > 5
