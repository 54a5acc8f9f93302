"""Tree induction: agreement with scikit-learn, engine agreement, stopping
rules, missing values, serialisation and user criteria."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from treebench import TreeClassifier, criteria
from treebench.criteria import Criterion, SplitContext
from treebench.criteria.builtin import criterion_classes
from treebench.criteria.classic import gini_rows
from treebench.kernels import layout as L
from treebench.trees import Tree
from treebench.trees.builder import Presorted

#: Every built-in criterion grown by the tree builder, from the criterion modules themselves (a new module
#: joins these tests without an edit here; belief and MEE trees have learners and tests of their own).
BUILT_IN = [cls.name for cls in criterion_classes() if cls.learner_kind == "tree" and cls.kernel_id >= 0]


def float32_exact(X: np.ndarray) -> np.ndarray:
    """scikit-learn fits on float32; feed both libraries the same values."""
    return X.astype(np.float32).astype(np.float64)


def ours_nested(tree: Tree, node: int = 0):
    if tree.is_leaf[node]:
        return ("leaf", tuple(int(c) for c in tree.counts[node]))
    left, right = tree.children(node)
    return (
        int(tree.int_nodes[node, L.FEATURE]),
        float(tree.float_nodes[node, L.THRESHOLD]),
        ours_nested(tree, left),
        ours_nested(tree, right),
    )


def sklearn_nested(est: DecisionTreeClassifier, node: int = 0):
    t = est.tree_
    if t.children_left[node] == -1:
        counts = np.rint(t.value[node][0] * t.n_node_samples[node]).astype(int)
        return ("leaf", tuple(int(c) for c in counts))
    return (
        int(t.feature[node]),
        float(t.threshold[node]),
        sklearn_nested(est, t.children_left[node]),
        sklearn_nested(est, t.children_right[node]),
    )


def best_split_is_unique(crit, X, y, n_classes, min_samples_leaf) -> bool:
    """Whether one candidate (feature, threshold) strictly beats all others."""
    parent = np.bincount(y, minlength=n_classes)
    scores = []
    for f in range(X.shape[1]):
        order = np.argsort(X[:, f], kind="stable")
        values = X[order, f]
        one_hot = np.eye(n_classes, dtype=int)[y[order]]
        left = np.cumsum(one_hot, axis=0)[:-1]
        n_left = np.arange(1, len(y))
        ok = (values[1:] > values[:-1]) & (n_left >= min_samples_leaf) & (len(y) - n_left >= min_samples_leaf)
        if ok.any():
            children = np.stack([left[ok], parent - left[ok]], axis=1)
            scores.extend(crit.split_scores(parent, children))
    scores = np.sort(np.asarray(scores))[::-1]
    return len(scores) < 2 or scores[0] - scores[1] > 1e-9 * max(1.0, abs(scores[0]))


def compare_until_ties(ours: Tree, theirs: DecisionTreeClassifier, X, y, crit, min_samples_leaf) -> int:
    """Walk both trees together; below a node whose best split ties, stop
    (scikit-learn breaks ties by its random feature order).  Returns the
    number of internal nodes compared."""
    t = theirs.tree_
    paths = theirs.decision_path(X.astype(np.float32)).tocsc()
    compared = 0
    stack = [(0, 0)]
    while stack:
        mine, node = stack.pop()
        reach = paths[:, node].nonzero()[0]
        counts = np.bincount(y[reach], minlength=ours.n_classes)
        assert tuple(ours.counts[mine]) == tuple(counts)
        sk_leaf = t.children_left[node] == -1
        if sk_leaf or ours.is_leaf[mine]:
            assert sk_leaf == bool(ours.is_leaf[mine])
            continue
        if not best_split_is_unique(crit, X[reach], y[reach], ours.n_classes, min_samples_leaf):
            continue
        compared += 1
        assert int(ours.int_nodes[mine, L.FEATURE]) == int(t.feature[node])
        assert float(ours.float_nodes[mine, L.THRESHOLD]) == float(t.threshold[node])
        left, right = ours.children(mine)
        stack += [(left, t.children_left[node]), (right, t.children_right[node])]
    return compared


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("min_samples_leaf, max_depth", [(1, None), (5, None), (1, 4)])
def test_same_tree_as_sklearn(criterion, seed, min_samples_leaf, max_depth):
    X, y = make_classification(
        n_samples=300, n_features=6, n_informative=4, n_redundant=0, n_classes=3, random_state=seed
    )
    X = float32_exact(X)
    ours = TreeClassifier(criterion, min_samples_leaf=min_samples_leaf, max_depth=max_depth).fit(X, y)
    theirs = DecisionTreeClassifier(
        criterion=criterion, min_samples_leaf=min_samples_leaf, max_depth=max_depth, random_state=0
    ).fit(X, y)
    compared = compare_until_ties(ours.tree_, theirs, X, y, criteria.get(criterion), min_samples_leaf)
    # ties are common deep in a fully grown tree; still, much of it is compared
    assert compared >= 0.4 * (theirs.tree_.node_count - theirs.get_n_leaves())


def test_same_tree_as_sklearn_when_nothing_ties():
    # large leaves leave no room for ties: the whole tree is compared, and predictions agree
    X, y = make_classification(n_samples=2000, n_features=5, n_informative=3, n_redundant=0, random_state=11)
    X = float32_exact(X)
    for criterion in ("gini", "entropy"):
        ours = TreeClassifier(criterion, max_depth=5, min_samples_leaf=30).fit(X, y)
        theirs = DecisionTreeClassifier(
            criterion=criterion, max_depth=5, min_samples_leaf=30, random_state=0
        ).fit(X, y)
        assert ours_nested(ours.tree_) == sklearn_nested(theirs)
        assert ours.tree_.n_leaves >= 12
        X_test = float32_exact(np.random.default_rng(1).normal(size=(500, 5)) * 2)
        np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
        np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test))


def mixed_frame(n: int = 160, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey"], size=n)
    size = rng.integers(0, 12, size=n).astype(float)
    weight = np.round(rng.normal(size=n), 1)
    weight[rng.random(n) < 0.08] = np.nan
    score = rng.random(n)
    y = ((colour == "red") & (size > 4)) | (weight > 0.8) | (score < 0.1)
    y = y.astype(int) + ((colour == "blue") & (score > 0.7)).astype(int)
    shape = pd.Series(rng.choice(["round", "flat", None], size=n), dtype="category")
    X = pd.DataFrame({"colour": colour, "size": size, "weight": weight, "score": score, "shape": shape})
    return X, y


@pytest.mark.parametrize("criterion", BUILT_IN)
@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"nominal_split": "binary", "threshold": "observed"},
        {"min_samples_leaf": 4, "max_depth": 5},
        {"min_samples_split": 20},
    ],
)
def test_compiled_and_generic_engines_grow_the_same_tree(criterion, settings):
    X, y = mixed_frame()
    params = {"q": 0.7} if "tsallis" in criterion else ({"gamma": 0.2} if criterion == "possibilistic" else {})
    fast = TreeClassifier(criterion, engine="numba", **settings, **params).fit(X, y)
    slow = TreeClassifier(criterion, engine="python", **settings, **params).fit(X, y)
    a, b = fast.tree_, slow.tree_
    np.testing.assert_array_equal(a.int_nodes, b.int_nodes)
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.catmap, b.catmap)
    np.testing.assert_allclose(a.float_nodes, b.float_nodes, rtol=1e-9, atol=1e-12)
    assert a.n_nodes > 1


@pytest.mark.parametrize("criterion", BUILT_IN)
@pytest.mark.parametrize("settings", [{}, {"nominal_split": "binary"}, {"min_samples_leaf": 3}])
@pytest.mark.parametrize("weighted", [False, True])
def test_uint16_and_int32_ranks_grow_the_same_tree(criterion, settings, weighted):
    # the builder is compiled once per rank width; small data takes uint16, so
    # the int32 version (columns of more than 65,535 values) is checked here on the same rows
    X, y = mixed_frame(400, seed=3)
    params = {"q": 0.7} if "tsallis" in criterion else ({"gamma": 0.2} if criterion == "possibilistic" else {})
    weights = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else None
    narrow = Presorted.for_fit(X, y)
    assert narrow.rank.dtype == np.uint16
    wide = narrow.widened()
    model = TreeClassifier(criterion, **settings, **params)
    a = model.fit(X, y, sample_weight=weights, presorted=narrow).tree_
    b = model.fit(X, y, sample_weight=weights, presorted=wide).tree_
    assert a.n_nodes > 5
    np.testing.assert_array_equal(a.int_nodes, b.int_nodes)
    np.testing.assert_array_equal(a.float_nodes, b.float_nodes)
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.catmap, b.catmap)


def test_rank_width_follows_the_distinct_values():
    rng = np.random.default_rng(5)
    n = 70_000
    few = rng.integers(0, 300, n).astype(float)
    few[rng.random(n) < 0.01] = np.nan
    many = float32_exact(rng.normal(size=n))  # > 65,535 distinct values: ranks need int32
    y = ((few > 150) ^ (many > 0.3)).astype(int)
    narrow = Presorted.from_matrix(np.column_stack([few, few * 2]), y)
    assert narrow.rank.dtype == np.uint16
    assert narrow.n_levels.tolist() == [300, 300]
    wide = Presorted.from_matrix(np.column_stack([few, many]), y)
    assert wide.rank.dtype == np.int32
    assert wide.n_levels[0] == 300 and wide.n_levels[1] == len(np.unique(many))
    np.testing.assert_array_equal(wide.rank[0], narrow.rank[0])  # widened after the first column
    # a fit on the wide ranks is scikit-learn's tree (no ties at these leaf sizes)
    X = np.column_stack([np.nan_to_num(few, nan=-1.0), many])
    ours = TreeClassifier("entropy", max_depth=4, min_samples_leaf=200).fit(X, y)
    theirs = DecisionTreeClassifier(criterion="entropy", max_depth=4, min_samples_leaf=200, random_state=0).fit(X, y)
    assert ours_nested(ours.tree_) == sklearn_nested(theirs)


def test_tsallis_at_q1_grows_the_entropy_tree_and_q2_the_gini_tree():
    X, y = mixed_frame(300, seed=3)
    shannon = TreeClassifier("tsallis", q=1.0).fit(X, y).tree_
    entropy = TreeClassifier("entropy").fit(X, y).tree_
    np.testing.assert_array_equal(shannon.int_nodes, entropy.int_nodes)
    gini_like = TreeClassifier("tsallis", q=2.0).fit(X, y).tree_
    gini = TreeClassifier("gini").fit(X, y).tree_
    np.testing.assert_array_equal(gini_like.int_nodes, gini.int_nodes)
    ratio_like = TreeClassifier("tsallis_gain_ratio", q=1.0).fit(X, y).tree_
    ratio = TreeClassifier("gain_ratio").fit(X, y).tree_
    np.testing.assert_array_equal(ratio_like.int_nodes, ratio.int_nodes)


def test_stopping_rules_hold():
    X, y = make_classification(n_samples=500, n_features=5, n_informative=3, random_state=1)
    deep = TreeClassifier("entropy").fit(X, y).tree_
    assert (deep.leaf_counts() > 0).sum(axis=1).max() == 1 or deep.n_leaves > 1  # grown out
    assert TreeClassifier("entropy", max_depth=3).fit(X, y).tree_.depth <= 3
    leafy = TreeClassifier("entropy", min_samples_leaf=7).fit(X, y).tree_
    assert leafy.leaf_counts().sum(axis=1).min() >= 7
    split = TreeClassifier("entropy", min_samples_split=40).fit(X, y).tree_
    internal = ~split.is_leaf
    assert split.counts[internal].sum(axis=1).min() >= 40
    # a fully grown entropy tree separates the training data when it can
    assert TreeClassifier("entropy").fit(X, y).score(X, y) == 1.0


def test_possibilistic_tree_only_makes_positive_gain_splits_and_is_small():
    X, y = make_classification(n_samples=600, n_features=8, n_informative=3, flip_y=0.2, random_state=2)
    pi = TreeClassifier("possibilistic", gamma=0.05).fit(X, y)
    internal = ~pi.tree_.is_leaf
    assert (pi.tree_.float_nodes[internal, L.SCORE] > 0).all()
    log = TreeClassifier("entropy").fit(X, y)
    assert pi.tree_.n_leaves < log.tree_.n_leaves / 3
    # eq. 18 from the fitted leaves
    crit = criteria.get("possibilistic", gamma=0.05)
    assert pi.tree_quality() == pytest.approx(sum(crit.node_value(c) for c in pi.tree_.leaf_counts()))
    # smaller gamma = wider intervals = fewer splits
    strict = TreeClassifier("possibilistic", gamma=0.001).fit(X, y)
    assert strict.tree_.n_leaves <= pi.tree_.n_leaves


def test_binary_tree_has_two_leaves_per_internal_node_plus_one():
    X, y = mixed_frame(200, seed=5)
    tree = TreeClassifier("gini", nominal_split="binary").fit(X, y).tree_
    assert tree.n_nodes == 2 * tree.n_leaves - 1
    multi = TreeClassifier("entropy").fit(X, y).tree_
    assert (multi.int_nodes[:, L.N_CHILDREN] > 2).any()  # colour splits four ways


def test_missing_values_go_right_and_unseen_categories_take_the_largest_branch():
    X = np.array([[1.0], [2.0], [3.0], [np.nan], [np.nan], [10.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    model = TreeClassifier("entropy").fit(X, y)
    assert model.tree_.float_nodes[0, L.THRESHOLD] == 6.5  # NaN sorts after 10, with the 1s
    assert list(model.predict(np.array([[np.nan], [2.0], [7.0]]))) == [1, 0, 1]
    X = np.array([[1.0], [2.0], [3.0], [np.nan], [np.nan], [np.nan]])
    model = TreeClassifier("entropy").fit(X, y)
    # the split just before the NaN block uses the last observed value
    assert model.tree_.float_nodes[0, L.THRESHOLD] == 3.0
    assert model.predict(np.array([[np.nan]]))[0] == 1
    frame = pd.DataFrame({"c": ["a"] * 5 + ["b"] * 3 + ["c"] * 2})
    labels = np.array([0] * 5 + [1] * 3 + [0] * 2)
    model = TreeClassifier("entropy").fit(frame, labels)
    assert model.tree_.int_nodes[0, L.KIND] == L.NOMINAL_MULTIWAY
    assert list(model.predict(pd.DataFrame({"c": ["a", "b", "zzz", None]}))) == [0, 1, 0, 0]


def test_json_round_trip_and_text_export():
    X, y = mixed_frame(200, seed=7)
    model = TreeClassifier("entropy", max_depth=4).fit(X, y)
    again = Tree.from_json(model.tree_.to_json())
    encoded = model.encoder_.transform(X)
    np.testing.assert_array_equal(again.apply(encoded), model.tree_.apply(encoded))
    assert again.to_dict() == model.tree_.to_dict()
    text = model.export_text()
    assert "colour in {" in text or "size <=" in text
    assert text.count("class:") == model.tree_.n_leaves
    with pytest.raises(ValueError, match="not a treebench tree"):
        Tree.from_dict({"format": "other"})


# -- user criteria in plain numpy ------------------------------------------------------
class MisclassificationGain(Criterion):
    """Resubstitution error decrease: the smallest criterion one can write."""

    name = "test_misclassification"

    def node_value(self, counts):
        counts = np.asarray(counts, dtype=float)
        return 1.0 - counts.max() / counts.sum() if counts.sum() else 0.0

    def split_scores(self, parent, children, context=None):
        children = np.asarray(children, dtype=float)
        errors = (children.sum(axis=2) - children.max(axis=2)).sum(axis=1)
        return self.node_value(parent) - errors / children.sum(axis=(1, 2))


class WeightedGini(Criterion):
    """Gini with per-sample weights taken from ``SplitContext.sample_data``."""

    name = "test_weighted_gini"

    def node_value(self, counts):
        return float(gini_rows(np.asarray(counts, dtype=float)))

    def split_scores(self, parent, children, context: SplitContext | None = None):
        assert context is not None and context.sample_data is not None
        weights = context.sample_data[context.order]
        if context.kind != "numeric":
            return criteria.get("gini").split_scores(parent, children)
        labels = self.labels[context.order]
        one_hot = np.zeros((len(labels), children.shape[2]))
        one_hot[np.arange(len(labels)), labels] = weights
        left = np.cumsum(one_hot, axis=0)[context.positions - 1]
        right = one_hot.sum(axis=0) - left
        weighted = np.stack([left, right], axis=1)
        return criteria.get("gini").split_scores(one_hot.sum(axis=0), weighted)


def test_user_criterion_in_numpy_grows_a_tree():
    if "test_misclassification" not in criteria.available():
        criteria.register(MisclassificationGain)
    X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    model = TreeClassifier("test_misclassification", max_depth=3).fit(X, y)
    assert model.tree_.n_leaves > 1 and model.score(X, y) > 0.7
    with pytest.raises(Exception, match="no compiled kernel"):
        TreeClassifier("test_misclassification", engine="numba").fit(X, y)


def test_criterion_can_read_per_sample_data_through_the_context():
    X, y = make_classification(n_samples=150, n_features=3, n_informative=2, n_redundant=0, random_state=4)
    crit = WeightedGini()
    crit.labels = y
    ones = TreeClassifier(crit, max_depth=4).fit(X, y, sample_data=np.ones(len(y)))
    plain = TreeClassifier("gini", max_depth=4).fit(X, y)
    np.testing.assert_array_equal(ones.tree_.int_nodes, plain.tree_.int_nodes)
    heavy = np.where(y == 1, 10.0, 1.0)
    reweighted = TreeClassifier(crit, max_depth=4).fit(X, y, sample_data=heavy)
    assert ours_nested(reweighted.tree_) != ours_nested(plain.tree_)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(3))
def test_same_tree_as_sklearn_on_few_distinct_values(criterion, seed):
    # integer features with few levels take the histogram scan in large nodes
    X, y = make_classification(n_samples=1500, n_features=6, n_informative=4, n_redundant=0, n_classes=3, random_state=seed)
    X = np.round(X * 3)
    ours = TreeClassifier(criterion, min_samples_leaf=3).fit(X, y)
    theirs = DecisionTreeClassifier(criterion=criterion, min_samples_leaf=3, random_state=0).fit(X, y)
    compared = compare_until_ties(ours.tree_, theirs, X, y, criteria.get(criterion), 3)
    assert compared >= 0.4 * (theirs.tree_.node_count - theirs.get_n_leaves())


@pytest.mark.parametrize("tie_break", ["entropy", "none"])
def test_certainty_tie_break_same_in_both_engines(tie_break):
    X, y = mixed_frame(300, seed=9)
    fast = TreeClassifier("certainty", tie_break=tie_break, engine="numba").fit(X, y).tree_
    slow = TreeClassifier("certainty", tie_break=tie_break, engine="python").fit(X, y).tree_
    np.testing.assert_array_equal(fast.int_nodes, slow.int_nodes)
    np.testing.assert_array_equal(fast.counts, slow.counts)
    binary = {"nominal_split": "binary"}
    fast = TreeClassifier("certainty", tie_break=tie_break, engine="numba", **binary).fit(X, y).tree_
    slow = TreeClassifier("certainty", tie_break=tie_break, engine="python", **binary).fit(X, y).tree_
    np.testing.assert_array_equal(fast.int_nodes, slow.int_nodes)


def test_certainty_ties_broken_by_entropy_avoid_degenerate_chains():
    # two imbalanced classes: most certainty gains are exactly zero
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3))
    y = ((X[:, 0] > 1.2) & (X[:, 1] > 0)).astype(int)
    flat = TreeClassifier("certainty", tie_break="none").fit(X, y).tree_
    ranked = TreeClassifier("certainty").fit(X, y).tree_
    assert ranked.depth < flat.depth / 2
    assert ranked.n_leaves <= flat.n_leaves
    # the entropy-ranked tree starts with one of the two real cuts
    assert int(ranked.int_nodes[0, L.FEATURE]) in (0, 1)
    assert ranked.n_leaves <= 3 * 2  # two clean cuts (and nothing else) explain y


@pytest.mark.parametrize("criterion", ["entropy", "possibilistic", "gain_ratio"])
def test_two_category_nominal_splits_deep_in_the_tree(criterion):
    # multiway splits with exactly two branches route through the per-sample
    # child table, not the two-way side bits (regression: zoo's boolean attributes)
    rng = np.random.default_rng(4)
    n = 400
    X = pd.DataFrame({f"b{j}": rng.random(n) < 0.5 for j in range(6)})
    X["cat"] = pd.Categorical(rng.choice(["u", "v"], n))
    X["x"] = rng.normal(size=n)
    y = (X["b0"] ^ X["b1"]) | ((X["cat"] == "u") & (X["x"] > 0.5))
    fast = TreeClassifier(criterion, engine="numba").fit(X, y.astype(int))
    slow = TreeClassifier(criterion, engine="python").fit(X, y.astype(int))
    np.testing.assert_array_equal(fast.tree_.int_nodes, slow.tree_.int_nodes)
    np.testing.assert_array_equal(fast.tree_.counts, slow.tree_.counts)
    assert (fast.tree_.int_nodes[:, L.KIND] == L.NOMINAL_MULTIWAY).sum() >= 3


@pytest.mark.parametrize("name", ["zoo", "lymph", "soybean", "vote", "ilpd", "credit-g"])
def test_engines_agree_on_real_nominal_and_missing_data(name):
    import os

    if not os.environ.get("TREEBENCH_DATA"):
        pytest.skip("needs the dataset mirror (TREEBENCH_DATA)")
    from treebench.data import load

    data = load(name)
    for criterion in ("entropy", "possibilistic"):
        fast = TreeClassifier(criterion).fit(data.X, data.y).tree_
        slow = TreeClassifier(criterion, engine="python").fit(data.X, data.y).tree_
        np.testing.assert_array_equal(fast.int_nodes, slow.int_nodes)
        np.testing.assert_array_equal(fast.counts, slow.counts)


@pytest.mark.parametrize("criterion", ["tsallis", "tsallis_gain_ratio"])
@pytest.mark.parametrize("q", [3.0, 6.0, 9.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_tsallis_with_a_large_q_grows_the_same_tree_in_both_engines(criterion, q, weighted):
    # c^q spans 1 to 1e31 here: the compiled scan's running sum for the right
    # child must not carry the rounding of the parent's terms into a child of
    # a few samples (it once made such a child's impurity hugely negative and
    # peeled single samples off the root, scores in the billions)
    rng = np.random.default_rng(3)
    n = 2000
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int) + (X[:, 1] > 1)
    w = rng.uniform(0.5, 2.0, size=n) if weighted else None
    fast = TreeClassifier(criterion, q=q, engine="numba", min_samples_leaf=3).fit(X, y, sample_weight=w)
    slow = TreeClassifier(criterion, q=q, engine="python", min_samples_leaf=3).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(fast.tree_.int_nodes, slow.tree_.int_nodes)
    np.testing.assert_allclose(fast.tree_.float_nodes, slow.tree_.float_nodes, rtol=1e-9, atol=1e-12)
    assert fast.tree_.n_leaves > 20
