"""``feature_ties``: which of several equally good split features a tree takes.

``"first"`` must grow exactly the trees treebench grew before the option
(golden arrays in tests/fixtures/ties); ``"random"`` must pick among exactly
the tied features, each sometimes, deterministically given ``random_state``,
and the compiled and reference engines must draw the same.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from treebench.criteria.mee import class_sets, error_entropy_curve
from treebench.errors import TreebenchError
from treebench.kernels import layout as L
from treebench.kernels.mee import xlogx_table
from treebench.kernels.ties import TIE_RULES, pick_tied, replaces_tied, tie_state
from treebench.kernels.tolerances import TIE_TOLERANCE
from treebench.trees.c45 import C45Classifier
from treebench.trees.estimator import TreeClassifier
from treebench.trees.mee import MEE, MEETreeClassifier, _best_split, _enough_cases
from treebench.trees.online import OnlineTreeClassifier
from treebench.trees.settings import FEATURE_TIES, ORDERS, TREE_PARAMS, validate_tree_param

FIXTURES = Path(__file__).parent / "fixtures" / "ties"
sys.path.insert(0, str(FIXTURES))
from make_first_rule import fixtures, grow_all  # noqa: E402
from make_mee_first_rule import grow_all as grow_all_mee  # noqa: E402
from make_mee_first_rule import mee_fixtures  # noqa: E402

SEEDS = range(24)


def duplicated(n: int = 1500, seed: int = 0) -> tuple[np.ndarray, np.ndarray, dict[int, int]]:
    """Continuous data whose column 4 copies column 0 and column 5 copies column 2 (copy -> original).

    Distinct continuous columns almost never tie in nodes of hundreds of
    examples (:data:`SHALLOW`), so the copies are the only ties.
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.7 * X[:, 2] + 0.8 * rng.normal(size=n) > 0).astype(int)
    return np.hstack([X, X[:, [0, 2]]]), y, {4: 0, 5: 2}


#: The copy tests' trees stay shallow: small nodes tie between distinct columns too.
SHALLOW = {"max_depth": 3, "min_samples_split": 150}


def relabelled(int_nodes: np.ndarray, copies: dict[int, int]) -> np.ndarray:
    """Node arrays with every copy's feature index replaced by its original's."""
    out = int_nodes.copy()
    for copy, original in copies.items():
        out[out[:, 0] == copy, 0] = original
    return out


def used_features(int_nodes: np.ndarray) -> set[int]:
    return {int(f) for f in int_nodes[:, 0] if f >= 0}


# -- the option's values ---------------------------------------------------------------
def test_rules_are_written_once_per_layer():
    assert FEATURE_TIES == TIE_RULES
    assert TREE_PARAMS["feature_ties"] == "first, random"
    assert ORDERS[0] == "shuffled"  # the online default, unchanged


@pytest.mark.parametrize("name, value", [("feature_ties", "last"), ("feature_ties", None), ("order", "sorted")])
def test_bad_values_name_the_accepted_ones(name, value):
    with pytest.raises(TreebenchError) as info:
        validate_tree_param(name, value, python=True)
    text = str(info.value)
    assert "\n" not in text and name in text and "accepted:" in text


def test_estimators_refuse_a_bad_rule():
    X, y, _ = duplicated()
    for model in (TreeClassifier(feature_ties="any"), OnlineTreeClassifier(feature_ties="any"),
                  C45Classifier(feature_ties="any"), OnlineTreeClassifier(order="sorted")):
        with pytest.raises(TreebenchError, match="accepted: "):
            model.fit(X, y)


def test_bad_random_state_is_one_line():
    X, y, _ = duplicated()
    with pytest.raises(TreebenchError, match="random_state=-1 is invalid; accepted: None, an integer"):
        TreeClassifier(feature_ties="random", random_state=-1).fit(X, y)


# -- the draw ---------------------------------------------------------------------------
def test_replaces_tied_is_uniform_over_the_tied():
    state = tie_state(11)
    wins = np.zeros(4, int)
    for _ in range(8000):
        kept = 0
        for n_tied in range(2, 5):
            if replaces_tied(state, n_tied):
                kept = n_tied - 1
        wins[kept] += 1
    assert np.all(np.abs(wins / wins.sum() - 0.25) < 0.03), wins


def test_pick_tied_only_among_ties_and_the_average_rule():
    split = np.array([0.5, 0.7, -np.inf, 0.7, 0.7 + 1e-13, 0.69])
    candidate = np.array([0.5, 0.7, -np.inf, 0.1, 0.7, 0.69])
    no_ties = np.full(6, -np.inf)
    picked = {int(pick_tied(1, candidate, split, no_ties, False, False, tie_state(s))) for s in range(60)}
    assert picked == {1, 3, 4}
    # feature 3's gain is under the average: C4.5's rule keeps it out
    picked = {int(pick_tied(1, candidate, split, no_ties, False, True, tie_state(s))) for s in range(60)}
    assert picked == {1, 4}
    # a second key (certainty's entropy) ranks within the ties first
    second = np.array([0.0, 0.3, 0.0, 0.3, 0.1, 0.0])
    picked = {int(pick_tied(1, candidate, split, second, True, False, tie_state(s))) for s in range(60)}
    assert picked == {1, 3}


# -- "first": today's trees, bit for bit --------------------------------------------------
def test_first_grows_the_trees_of_before_the_option():
    golden = np.load(FIXTURES / "first_rule.npz")
    now = grow_all()
    assert set(now) == set(golden.files)
    for key in golden.files:
        np.testing.assert_array_equal(now[key], golden[key], err_msg=key)


def test_first_always_takes_the_lowest_copy():
    X, y, copies = duplicated()
    for model in (TreeClassifier("entropy"), TreeClassifier("possibilistic", gamma=0.2),
                  OnlineTreeClassifier("possibilistic", gamma=0.2), TreeClassifier("entropy", engine="python")):
        used = used_features(model.fit(X, y).tree_.int_nodes)
        assert used and not used & set(copies), type(model).__name__


# -- "random": each copy wins sometimes, the trees are otherwise the same --------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda s: TreeClassifier("entropy", feature_ties="random", random_state=s, **SHALLOW),
        lambda s: TreeClassifier("possibilistic", gamma=0.2, feature_ties="random", random_state=s,
                                 **SHALLOW),
        lambda s: TreeClassifier("gini", feature_ties="random", random_state=s, engine="python",
                                 **SHALLOW),
        lambda s: OnlineTreeClassifier("possibilistic", gamma=0.2, feature_ties="random", random_state=s,
                                       **SHALLOW),
    ],
    ids=["entropy", "possibilistic", "gini-python", "online"],
)
def test_random_picks_among_the_copies(make):
    X, y, copies = duplicated()
    reference = make(0).fit(X, y).tree_
    copies_used = set()
    for seed in SEEDS:
        tree = make(seed).fit(X, y).tree_
        copies_used |= used_features(tree.int_nodes) & set(copies)
        if isinstance(make(0), OnlineTreeClassifier):
            continue  # the arrival order changes with the seed too: another tree
        np.testing.assert_array_equal(relabelled(tree.int_nodes, copies), relabelled(reference.int_nodes, copies))
        np.testing.assert_array_equal(tree.float_nodes, reference.float_nodes)
        np.testing.assert_array_equal(tree.counts, reference.counts)
    assert copies_used == set(copies)


def test_random_online_in_file_order_is_the_first_tree_relabelled():
    X, y, copies = duplicated()
    first = OnlineTreeClassifier(gamma=0.2, order="file", **SHALLOW).fit(X, y).tree_
    originals_used = set()
    for seed in SEEDS:
        tree = OnlineTreeClassifier(gamma=0.2, order="file", feature_ties="random", random_state=seed,
                                    **SHALLOW).fit(X, y).tree_
        originals_used |= used_features(tree.int_nodes) & set(copies.values())
        np.testing.assert_array_equal(relabelled(tree.int_nodes, copies), first.int_nodes)
        np.testing.assert_array_equal(tree.counts, first.counts)
    assert originals_used == set(copies.values())  # and the originals still win sometimes


@pytest.mark.parametrize("compiled", [True, False])
def test_c45_random_picks_among_the_copies(compiled, monkeypatch):
    monkeypatch.setattr(C45Classifier, "_compiled", compiled)
    X, y, copies = duplicated()
    first = C45Classifier(unpruned=True, min_samples_leaf=40).fit(X, y)
    assert first.tree_.root.feature in copies.values()
    roots = {C45Classifier(unpruned=True, min_samples_leaf=40, feature_ties="random",
                           random_state=s).fit(X, y).tree_.root.feature
             for s in SEEDS}
    assert roots == {first.tree_.root.feature, next(c for c, o in copies.items() if o == first.tree_.root.feature)}


def test_c45_growers_draw_the_same(monkeypatch):
    X, y = fixtures()["integers"]
    for seed in range(6):
        model = C45Classifier(feature_ties="random", random_state=seed)
        compiled = model.fit(X, y).predict(X)
        monkeypatch.setattr(C45Classifier, "_compiled", False)
        reference = model.fit(X, y).predict(X)
        monkeypatch.setattr(C45Classifier, "_compiled", True)
        np.testing.assert_array_equal(compiled, reference)


# -- determinism and the engines ----------------------------------------------------------
@pytest.mark.parametrize("criterion, params", [("entropy", {}), ("possibilistic", {"gamma": 0.05}),
                                               ("certainty", {}), ("certainty", {"tie_break": "none"}),
                                               ("gain_ratio", {})])
def test_random_engines_draw_the_same(criterion, params):
    for name, (X, y) in fixtures().items():
        for seed in range(3):
            fast = TreeClassifier(criterion, feature_ties="random", random_state=seed, **params).fit(X, y).tree_
            slow = TreeClassifier(criterion, feature_ties="random", random_state=seed, engine="python",
                                  **params).fit(X, y).tree_
            np.testing.assert_array_equal(fast.int_nodes, slow.int_nodes, err_msg=f"{name} {seed}")
            np.testing.assert_allclose(fast.float_nodes, slow.float_nodes, rtol=1e-9, atol=1e-12)


def test_random_is_deterministic_given_random_state():
    X, y = fixtures()["integers"]
    for model in (TreeClassifier("possibilistic", gamma=0.05, feature_ties="random", random_state=7),
                  OnlineTreeClassifier(gamma=0.05, feature_ties="random", random_state=7),
                  C45Classifier(feature_ties="random", random_state=7)):
        a, b = model.fit(X, y).predict(X), model.fit(X, y).predict(X)
        np.testing.assert_array_equal(a, b)
    trees = [TreeClassifier("entropy", feature_ties="random", random_state=np.random.default_rng(5)).fit(X, y).tree_
             for _ in range(2)]
    np.testing.assert_array_equal(trees[0].int_nodes, trees[1].int_nodes)


def test_online_kernel_and_regrowing_oracle_draw_the_same(monkeypatch):
    X, y = fixtures()["integers"]
    for seed in range(4):
        model = OnlineTreeClassifier(gamma=0.05, feature_ties="random", random_state=seed)
        fast = model.fit(X, y).tree_
        monkeypatch.setattr(OnlineTreeClassifier, "_regrowing", True)
        slow = model.fit(X, y).tree_
        monkeypatch.setattr(OnlineTreeClassifier, "_regrowing", False)
        np.testing.assert_array_equal(fast.int_nodes, slow.int_nodes)
        np.testing.assert_array_equal(fast.counts, slow.counts)


# -- online arrival order --------------------------------------------------------------------
def test_file_order_feeds_the_rows_as_given():
    X, y = fixtures()["wine"]
    by_file = OnlineTreeClassifier(gamma=0.05, order="file").fit(X, y).tree_
    one_by_one = OnlineTreeClassifier(gamma=0.05)
    one_by_one.partial_fit(X[:1], y[:1], classes=np.unique(y))
    one_by_one.partial_fit(X[1:], y[1:])
    np.testing.assert_array_equal(by_file.int_nodes, one_by_one.tree_.int_nodes)
    shuffled = OnlineTreeClassifier(gamma=0.05).fit(X, y).tree_
    assert not np.array_equal(shuffled.counts, by_file.counts) or shuffled.n_nodes != by_file.n_nodes


def test_params_round_trip():
    model = OnlineTreeClassifier(order="file", feature_ties="random", random_state=3)
    params = model.get_params()
    assert params["order"] == "file" and params["feature_ties"] == "random" and params["random_state"] == 3
    assert TreeClassifier().get_params()["feature_ties"] == "first"


# -- MEE trees (paper 001) -------------------------------------------------------------------
def test_mee_first_grows_the_trees_of_before_the_option():
    golden = np.load(FIXTURES / "mee_first_rule.npz")
    now = grow_all_mee()
    assert set(now) == set(golden.files)
    for key in golden.files:
        np.testing.assert_array_equal(now[key], golden[key], err_msg=key)
    # "first" spelled out: random_state is unused
    for name, (X, y) in fixtures().items():
        tree = MEETreeClassifier(feature_ties="first", random_state=99, must_lower=False).fit(X, y).tree_
        np.testing.assert_array_equal(tree.int_nodes, golden[f"{name}/default/int_nodes"])
        np.testing.assert_array_equal(tree.float_nodes, golden[f"{name}/default/float_nodes"])


def test_mee_random_takes_either_copy_half_the_time():
    X, y = fixtures()["wine"]
    d = X.shape[1]
    doubled, copies = np.hstack([X, X]), {f + d: f for f in range(d)}
    first = MEETreeClassifier().fit(doubled, y)
    assert not used_features(first.tree_.int_nodes) & set(copies)
    copy_at_root, copies_used = 0, set()
    for seed in range(40):
        model = MEETreeClassifier(feature_ties="random", random_state=seed).fit(doubled, y)
        tree = model.tree_
        # the same tree, each split on the column or its copy
        np.testing.assert_array_equal(relabelled(tree.int_nodes, copies), first.tree_.int_nodes)
        np.testing.assert_array_equal(tree.float_nodes, first.tree_.float_nodes)
        np.testing.assert_array_equal(tree.counts, first.tree_.counts)
        np.testing.assert_array_equal(model.split_orientations_, first.split_orientations_)
        copy_at_root += int(tree.int_nodes[0, L.FEATURE] >= d)
        copies_used |= used_features(tree.int_nodes) & set(copies)
    # Binomial(40, 1/2) lies in [10, 30] with probability 0.998; a biased draw would not
    assert 10 <= copy_at_root <= 30, copy_at_root
    assert copies_used == {f + d for f in used_features(first.tree_.int_nodes)}


def _node_cases(int_nodes: np.ndarray, float_nodes: np.ndarray, X: np.ndarray) -> dict[int, np.ndarray]:
    """The training rows reaching every node (binary numeric splits)."""
    cases, stack = {}, [(0, np.arange(X.shape[0]))]
    while stack:
        node, rows = stack.pop()
        cases[node] = rows
        if int_nodes[node, L.N_CHILDREN] > 0:
            left = X[rows, int_nodes[node, L.FEATURE]] <= float_nodes[node, L.THRESHOLD]
            child = int_nodes[node, L.CHILD_START]
            stack += [(child, rows[left]), (child + 1, rows[~left])]
    return cases


def test_mee_random_splits_score_as_the_first_winner():
    X, y = mee_fixtures()["digits"]
    criterion, n_classes = MEE(must_lower=False), int(y.max()) + 1
    span = (X.min(axis=0), X.max(axis=0))
    model = MEETreeClassifier(feature_ties="random", random_state=3, must_lower=False).fit(X, y)  # a deep tree
    tree, other_feature = model.tree_, 0
    cases = _node_cases(tree.int_nodes, tree.float_nodes, X)
    for node in np.flatnonzero(tree.int_nodes[:, L.N_CHILDREN] > 0):
        rows = cases[node]
        counts = np.bincount(y[rows], minlength=n_classes)
        sets = [s for s in class_sets(np.flatnonzero(counts), None) if _enough_cases(counts, s, 5)]
        h, _, f, _, _, _ = _best_split(X[rows], y[rows], sets, n_classes, criterion, "numba",
                                       xlogx_table(X.shape[0]), span)
        score = tree.float_nodes[node, L.SCORE]
        assert abs(score - h) <= TIE_TOLERANCE, node
        other_feature += int(tree.int_nodes[node, L.FEATURE] != f)
        # the chosen split's own error entropy is that score
        x = X[rows, tree.int_nodes[node, L.FEATURE]]
        t = np.where(np.isin(y[rows], model.split_sets_[node]), 1, -1)
        levels, curve, _ = error_entropy_curve(x, t, None, int(model.split_orientations_[node]), "joint")
        at = int(np.searchsorted(levels, tree.float_nodes[node, L.THRESHOLD]))
        assert curve[at] == pytest.approx(score, abs=1e-12)
    assert other_feature > 0  # some splits went to another tied feature


def test_mee_random_is_reproducible_and_seeds_differ():
    X, y = mee_fixtures()["digits"]
    trees = {}
    for seed in range(6):
        a = MEETreeClassifier(feature_ties="random", random_state=seed, must_lower=False).fit(X, y).tree_
        b = MEETreeClassifier(feature_ties="random", random_state=seed, must_lower=False).fit(X, y).tree_
        np.testing.assert_array_equal(a.int_nodes, b.int_nodes)
        np.testing.assert_array_equal(a.float_nodes, b.float_nodes)
        trees[a.int_nodes.tobytes()] = seed
    assert len(trees) >= 3
    by_rng = [MEETreeClassifier(feature_ties="random", random_state=np.random.default_rng(5),
                                must_lower=False).fit(X, y).tree_
              for _ in range(2)]
    np.testing.assert_array_equal(by_rng[0].int_nodes, by_rng[1].int_nodes)


# "may rise" (must_lower=False, the default until issue 39) grows the deep trees where ties between features occur
@pytest.mark.parametrize("params", [{"must_lower": False},
                                    {"error_rates": "printed", "threshold": "midpoint", "must_lower": False},
                                    {"convexity_range": "node", "must_lower": False},
                                    {"error_rates": "printed"},
                                    {"max_merged": 1, "min_child_cases": 3, "error_rates": "printed",
                                     "must_lower": False}],
                         ids=["may-rise", "printed", "node", "must-lower", "merged1-child3"])
def test_mee_random_engines_draw_the_same(params):
    """The compiled loop (bound-pruned tie pass, larger child first) against the numpy per-node builder."""
    data = {**fixtures(), "copies": mee_fixtures()["copies"]}
    drawn = 0  # fits whose tree differs from the first rule's
    for name, (X, y) in data.items():
        first = MEETreeClassifier(**params).fit(X, y).tree_
        for seed in range(3):
            fast = MEETreeClassifier(feature_ties="random", random_state=seed, **params).fit(X, y)
            drawn += int(not np.array_equal(fast.tree_.int_nodes, first.int_nodes))
            slow = MEETreeClassifier(feature_ties="random", random_state=seed, engine="python", **params).fit(X, y)
            np.testing.assert_array_equal(fast.tree_.int_nodes, slow.tree_.int_nodes, err_msg=f"{name} {seed}")
            np.testing.assert_allclose(fast.tree_.float_nodes, slow.tree_.float_nodes, rtol=0, atol=1e-12)
            np.testing.assert_array_equal(fast.split_orientations_, slow.split_orientations_)
            assert fast.split_sets_ == slow.split_sets_
    assert drawn > 0


def test_mee_refuses_a_bad_rule_and_seed_in_one_line():
    X, y, _ = duplicated(200)
    for model, text in ((MEETreeClassifier(feature_ties="any"), "feature_ties='any' is invalid; accepted: first, random"),
                        (MEETreeClassifier(feature_ties="random", random_state=-1),
                         "random_state=-1 is invalid; accepted: None, an integer")):
        with pytest.raises(TreebenchError, match=text) as info:
            model.fit(X, y)
        assert "\n" not in str(info.value)
    params = MEETreeClassifier(feature_ties="random", random_state=3).get_params()
    assert params["feature_ties"] == "random" and params["random_state"] == 3
