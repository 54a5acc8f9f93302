"""The estimators behave like scikit-learn's: its own estimator checks, and what they rest on.

``parametrize_with_checks`` runs every check scikit-learn applies to its
classifiers on each estimator (none is declared as an expected failure).  The
other tests pin the behaviours behind them with numbers: column identity,
sample weights (unit weights, repeated rows, the two engines, scikit-learn's
weighted trees, boosting and bagging), feature importances, the online
tree's own ``random_state`` and the MEE tree's limits.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.ensemble import AdaBoostClassifier, BaggingClassifier
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks
from test_trees import BUILT_IN, float32_exact, mixed_frame, ours_nested, sklearn_nested

from treebench.errors import TreebenchError
from treebench.kernels import layout as L
from treebench.trees.belief import BeliefTreeClassifier
from treebench.trees.builder import grow
from treebench.trees.encoding import FeatureEncoder
from treebench.trees.estimator import TreeClassifier
from treebench.trees.fitted import label_codes
from treebench.trees.mee import MAX_CLASS_SETS, MEETreeClassifier
from treebench.trees.online import OnlineTreeClassifier
from treebench.trees.settings import GrowSettings

ESTIMATORS = [
    TreeClassifier(),
    TreeClassifier("gain_ratio", pruning="pessimistic", subtree_raising=True),
    TreeClassifier("possibilistic", engine="python"),
    OnlineTreeClassifier(),
    MEETreeClassifier(),
    BeliefTreeClassifier(),
]

#: Criterion parameters that make every built-in criterion split often.
PARAMS = {"tsallis": {"q": 0.7}, "tsallis_gain_ratio": {"q": 2.5}, "possibilistic": {"gamma": 0.2}}


@parametrize_with_checks(ESTIMATORS)
def test_scikit_learn_estimator_check(estimator, check):
    check(estimator)


def iris_frame() -> tuple[pd.DataFrame, np.ndarray]:
    data = load_iris(as_frame=True)
    return data.data, data.target.to_numpy()


# -- column identity ---------------------------------------------------------------------
@pytest.mark.parametrize("estimator", [TreeClassifier(), OnlineTreeClassifier(), MEETreeClassifier(), BeliefTreeClassifier()])
def test_columns_in_another_order_or_with_other_names_are_refused(estimator):
    X, y = iris_frame()
    model = clone(estimator).fit(X, y)
    assert list(model.feature_names_in_) == list(X.columns) and model.n_features_in_ == 4
    train_accuracy = model.score(X, y)
    assert train_accuracy > 0.9
    with pytest.raises(TreebenchError, match="Feature names must be in the same order as they were in fit"):
        model.predict(X[X.columns[::-1]])
    renamed = X.set_axis([f"c{i}" for i in range(4)], axis=1)
    with pytest.raises(TreebenchError, match="Feature names unseen at fit time: c0, c1"):
        model.predict_proba(renamed)
    # a plain matrix is read by position, with scikit-learn's warning; its width is checked
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        assert model.score(X.to_numpy(), y) == train_accuracy
        with pytest.raises(TreebenchError, match="X has 3 features, but"):
            model.predict(X.iloc[:, :3].to_numpy())
    refit = clone(estimator).fit(X.to_numpy(), y)
    assert not hasattr(refit, "feature_names_in_") and refit.n_features_in_ == 4


@pytest.mark.parametrize("estimator", [TreeClassifier(), OnlineTreeClassifier(), MEETreeClassifier(), BeliefTreeClassifier()])
def test_nothing_answers_before_fit(estimator):
    X, _ = iris_frame()
    for method in ("predict", "predict_proba", "apply"):
        with pytest.raises(NotFittedError):
            getattr(estimator, method)(X)
    assert not hasattr(estimator, "feature_importances_")


# -- sample weights ----------------------------------------------------------------------------
def grown(X, y, criterion, sample_weight=None, engine="auto", **settings):
    """The tree of ``TreeClassifier(criterion, **settings)``, grown directly so that weights are never skipped."""
    model = TreeClassifier(criterion, **PARAMS.get(criterion, {}))
    encoder, matrix = FeatureEncoder.fit(X)
    classes, codes = label_codes(y)
    return grow(
        matrix, codes, len(classes), encoder, model._make_criterion(), GrowSettings(**settings),
        engine=engine, sample_weight=sample_weight,
    )


def assert_same_tree(a, b, exact_scores: bool = True) -> None:
    np.testing.assert_array_equal(a.int_nodes, b.int_nodes)
    np.testing.assert_array_equal(a.catmap, b.catmap)
    np.testing.assert_array_equal(a.float_nodes[:, L.THRESHOLD], b.float_nodes[:, L.THRESHOLD])
    np.testing.assert_allclose(a.counts, b.counts, rtol=1e-12)
    tolerance = 0 if exact_scores else 1e-10
    np.testing.assert_allclose(a.float_nodes, b.float_nodes, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("criterion", BUILT_IN)
@pytest.mark.parametrize("engine", ["numba", "python"])
@pytest.mark.parametrize("settings", [{}, {"nominal_split": "binary", "min_samples_leaf": 3}])
def test_unit_weights_grow_exactly_the_unweighted_tree(criterion, engine, settings):
    X, y = mixed_frame(300, seed=4)  # nominal, ordinal-free numeric and missing values
    plain = grown(X, y, criterion, engine=engine, **settings)
    weighted = grown(X, y, criterion, np.ones(len(y)), engine=engine, **settings)
    assert plain.counts.dtype == np.int64 and weighted.counts.dtype == np.float64
    # the unweighted scan may count few-valued nodes by histogram: same scores up to rounding
    assert_same_tree(plain, weighted, exact_scores=engine == "python")
    assert plain.n_leaves >= 5


@pytest.mark.parametrize("criterion", BUILT_IN)
@pytest.mark.parametrize("engine", ["numba", "python"])
def test_integer_weights_grow_the_tree_of_repeated_rows(criterion, engine):
    X, y = mixed_frame(240, seed=7)
    repeats = np.random.default_rng(7).integers(0, 4, len(y))  # zeros: rows removed
    weighted = TreeClassifier(criterion, engine=engine, **PARAMS.get(criterion, {})).fit(X, y, sample_weight=repeats)
    rows = np.repeat(np.arange(len(y)), repeats)
    repeated = TreeClassifier(criterion, engine=engine, **PARAMS.get(criterion, {})).fit(X.iloc[rows], y[rows])
    assert_same_tree(weighted.tree_, repeated.tree_, exact_scores=False)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)
    assert weighted.tree_.n_leaves >= 4


@pytest.mark.parametrize(
    "settings",
    [{"pruning": "pessimistic"}, {"pruning": "pessimistic", "subtree_raising": True}, {"pruning": "cost-complexity", "ccp_alpha": 0.01}],
)
def test_pruning_reads_weights_as_repeated_rows(settings):
    X, y = make_classification(n_samples=400, n_features=6, flip_y=0.2, random_state=3)
    repeats = np.random.default_rng(3).integers(1, 4, len(y))
    weighted = TreeClassifier("gain_ratio", **settings).fit(X, y, sample_weight=repeats)
    rows = np.repeat(np.arange(len(y)), repeats)
    repeated = TreeClassifier("gain_ratio", **settings).fit(X[rows], y[rows])
    unpruned = TreeClassifier("gain_ratio").fit(X[rows], y[rows])
    assert weighted.tree_.n_leaves == repeated.tree_.n_leaves < unpruned.tree_.n_leaves
    np.testing.assert_array_equal(weighted.tree_.int_nodes, repeated.tree_.int_nodes)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize("criterion", BUILT_IN)
def test_engines_grow_the_same_weighted_tree(criterion):
    X, y = mixed_frame(300, seed=11)
    weights = np.random.default_rng(11).uniform(0.1, 3.0, len(y))
    fast = grown(X, y, criterion, weights, engine="numba")
    slow = grown(X, y, criterion, weights, engine="python")
    assert_same_tree(fast, slow, exact_scores=False)
    assert fast.n_leaves >= 5
    # the weights matter: the unweighted tree is another one
    plain = grown(X, y, criterion)
    assert plain.int_nodes.shape != fast.int_nodes.shape or not np.array_equal(plain.int_nodes, fast.int_nodes)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("weighted", [False, True])
def test_weighted_trees_and_importances_match_scikit_learn(criterion, weighted):
    # large leaves leave no room for ties: the whole tree is compared
    X, y = make_classification(n_samples=2000, n_features=5, n_informative=3, n_redundant=0, random_state=11)
    X = float32_exact(X)
    weights = np.random.default_rng(5).uniform(0.2, 3.0, len(y)) if weighted else None
    ours = TreeClassifier(criterion, max_depth=5, min_samples_leaf=30).fit(X, y, sample_weight=weights)
    theirs = DecisionTreeClassifier(criterion=criterion, max_depth=5, min_samples_leaf=30, random_state=0)
    theirs.fit(X, y, sample_weight=weights)

    def shape(nested):  # splits only: scikit-learn keeps no weighted counts
        return nested[:2] + (shape(nested[2]), shape(nested[3])) if nested[0] != "leaf" else "leaf"

    assert shape(ours_nested(ours.tree_)) == shape(sklearn_nested(theirs))
    assert ours.tree_.n_leaves >= 12
    X_test = float32_exact(np.random.default_rng(1).normal(size=(500, 5)) * 2)
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), atol=1e-6)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_, rtol=1e-6, atol=1e-9)


def test_boosting_and_bagging_use_the_weights():
    X, y = load_breast_cancer(return_X_y=True)
    stump = TreeClassifier("entropy", max_depth=1).fit(X, y)
    boosted = AdaBoostClassifier(TreeClassifier("entropy", max_depth=1), n_estimators=30, random_state=0).fit(X, y)
    # identical stumps (weights ignored) could not beat one stump
    assert stump.score(X, y) < 0.93 and boosted.score(X, y) > 0.97
    assert len({(int(t.tree_.int_nodes[0, L.FEATURE]), float(t.tree_.float_nodes[0, L.THRESHOLD])) for t in boosted.estimators_}) > 5
    # bagging passes bootstrap counts as integer weights: each tree is that of its drawn rows
    bagged = BaggingClassifier(TreeClassifier("gini"), n_estimators=3, random_state=0).fit(X, y)
    for tree, rows in zip(bagged.estimators_, bagged.estimators_samples_):
        counts = np.bincount(rows, minlength=len(y))
        drawn = np.repeat(np.arange(len(y)), counts)
        alone = TreeClassifier("gini").fit(X[drawn], y[drawn])
        np.testing.assert_array_equal(tree.predict(X), alone.predict(X))
        np.testing.assert_array_equal(tree.tree_.int_nodes, alone.tree_.int_nodes)


def test_sample_weight_reaches_belief_and_python_criteria():
    X, y = make_classification(n_samples=300, n_features=4, random_state=2)
    weights = np.where(y == 1, 5.0, 1.0)
    for model in (BeliefTreeClassifier(max_depth=3), TreeClassifier("entropy", engine="python", max_depth=3)):
        fitted = clone(model).fit(X, y, sample_weight=weights)
        np.testing.assert_allclose(fitted.tree_.counts[0], [np.sum(y == 0), 5.0 * np.sum(y == 1)])
        assert ours_nested(fitted.tree_) != ours_nested(clone(model).fit(X, y).tree_)


# -- feature importances ---------------------------------------------------------------------
def test_feature_importances_by_hand():
    # x0 separates class 0 (node 1) from the rest (node 2), where x1 separates classes 1 and 2; x2 is noise
    X = np.array([[0, 0, 5], [0, 1, 3], [1, 0, 1], [1, 0, 4], [1, 1, 2], [1, 1, 0]], dtype=float)
    y = np.array([0, 0, 1, 1, 2, 2])
    entropy = TreeClassifier("entropy").fit(X, y)
    assert list(entropy.tree_.int_nodes[:, L.FEATURE]) == [0, -1, 1, -1, -1]
    # root: 6 rows of log2(3) bits down to 2 pure + 4 rows of 1 bit; node 2: 4 bits down to 0
    by_hand = np.array([6 * np.log2(3) - 4, 4, 0])
    np.testing.assert_allclose(entropy.feature_importances_, by_hand / by_hand.sum())
    # certainty is a purity: a split adds the certainty its children gain over it
    certainty = TreeClassifier("certainty").fit(X, y)
    value, counts = certainty.criterion_.node_value, certainty.tree_.counts
    root = 2 * value(counts[1]) + 4 * value(counts[2]) - 6 * value(counts[0])
    second = 2 * value(counts[3]) + 2 * value(counts[4]) - 4 * value(counts[2])
    assert root > 0 and second > 0
    np.testing.assert_allclose(certainty.feature_importances_, np.array([root, second, 0.0]) / (root + second))
    assert (TreeClassifier(max_depth=0).fit(X, y).feature_importances_ == 0).all()
    # Hellinger distance has no node value (0 everywhere): each split adds its size times its d_H,
    # d_H from the module's numpy oracle on the children's counts
    from treebench.criteria.builtin.hellinger import split_value

    hellinger = TreeClassifier("hellinger").fit(X, y)
    tree = hellinger.tree_
    by_hand = np.zeros(3)
    for node in np.flatnonzero(~tree.is_leaf):
        table = tree.counts[np.asarray(tree.children(node))]
        by_hand[tree.int_nodes[node, L.FEATURE]] += tree.counts[node].sum() * split_value(table)
    assert by_hand.sum() > 0
    np.testing.assert_allclose(hellinger.feature_importances_, by_hand / by_hand.sum())


@pytest.mark.parametrize(
    "estimator",
    [TreeClassifier("possibilistic"), TreeClassifier("tsallis", q=2.5), TreeClassifier("hellinger"),
     OnlineTreeClassifier("entropy"), MEETreeClassifier(), BeliefTreeClassifier()],
)
def test_feature_importances_are_a_distribution_over_used_features(estimator):
    X, y = load_iris(return_X_y=True)
    X = np.column_stack([X, np.random.default_rng(0).normal(size=len(y))])
    model = clone(estimator).fit(X, y)
    importances = model.feature_importances_
    used = np.unique(model.tree_.int_nodes[~model.tree_.is_leaf, L.FEATURE])
    assert importances.shape == (5,) and np.isclose(importances.sum(), 1.0)
    assert (importances[used] > 0).all() and (np.delete(importances, used) == 0).all()


# -- the online tree's own random_state --------------------------------------------------------
def test_online_random_state_orders_the_examples_and_is_not_a_criterion_parameter():
    X, y = iris_frame()
    model = OnlineTreeClassifier("entropy", random_state=1)
    model.set_params(random_state=2)
    assert model.get_params()["random_state"] == 2 and "random_state" not in model._criterion_param_names
    fitted = model.fit(X, y)
    assert "random_state" not in fitted.criterion_.values
    order = np.random.default_rng(2).permutation(len(y))
    by_hand = OnlineTreeClassifier("entropy").partial_fit(X.iloc[order], y[order], classes=np.unique(y))
    assert ours_nested(fitted.tree_) == ours_nested(by_hand.tree_)
    other = clone(model).set_params(random_state=3).fit(X, y)
    assert ours_nested(other.tree_) != ours_nested(fitted.tree_)
    generator = OnlineTreeClassifier("entropy", random_state=np.random.default_rng(2)).fit(X, y)
    assert ours_nested(generator.tree_) == ours_nested(fitted.tree_)


# -- MEE limits ------------------------------------------------------------------------------------
def test_mee_refuses_more_class_sets_than_the_limit_but_not_a_smaller_max_merged():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(180, 3))
    y = np.arange(180) % 18  # 18 classes: 131,071 class sets with floor(c/2) merged
    with pytest.raises(TreebenchError, match=f"at most {MAX_CLASS_SETS:,} sets \\(17 classes"):
        MEETreeClassifier().fit(X, y)
    model = MEETreeClassifier(max_merged=1, max_depth=2).fit(X, y)
    assert model.tree_.n_nodes >= 1 and len(model.classes_) == 18


# -- memory safety ---------------------------------------------------------------------------------
def test_the_compiled_builder_refuses_zero_features_instead_of_writing_out_of_bounds():
    # it counted the root's classes from feature 0's sorted row: with no feature that read past
    # an empty array and incremented counts at the label it found there (heap corruption)
    from treebench.kernels.induction import build
    from treebench.trees.builder import Presorted

    data = Presorted.from_matrix(np.zeros((12, 0)), np.arange(12) % 2)
    assert data.label.shape == (0, 12)
    with pytest.raises(ValueError, match="build needs at least one feature"):
        build(
            data.index, data.rank, data.label, np.zeros((12, 0)), True, data.n_levels, np.zeros(0, np.bool_),
            np.zeros(0, np.int64), 2, 0, np.zeros(1), False, False, 0.0, -1, 2, 1, False, True, None, None,
        )
    for estimator in ESTIMATORS:
        with pytest.raises(TreebenchError, match=r"0 feature\(s\)"):
            clone(estimator).fit(np.zeros((12, 0)), np.arange(12) % 2)
