"""MEE trees (paper 001): error entropy, the convex/concave rule, class sets, the tree."""

from __future__ import annotations

import math
import textwrap
from math import comb

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.base import clone

from treebench import criteria
from treebench.cli import cli
from treebench.criteria.mee import class_sets, error_entropy, error_entropy_curve, is_convex
from treebench.errors import TreebenchError
from treebench.experiment.config import parse_config
from treebench.kernels.mee import best_mee_split, xlogx_table
from treebench.learners.mee import MEELearner
from treebench.trees import TreeClassifier
from treebench.trees.mee import MEETreeClassifier, reference_best_split


def shannon(probabilities: list[float]) -> float:
    return -sum(p * math.log(p) for p in probabilities if p > 0)


# -- error entropy ----------------------------------------------------------------
def test_error_entropy_of_hand_counted_confusions():
    # rows: true code -1, 1; columns: assigned code -1, 1.  n = 10:
    # e = -2 for n(-1,1) = 1, e = 2 for n(1,-1) = 2, e = 0 for the other 7.
    assert error_entropy([[5, 1], [2, 2]]) == pytest.approx(shannon([0.1, 0.2, 0.7]), abs=1e-12)
    assert error_entropy([[5, 1], [2, 2]]) == pytest.approx(0.8018185525433372, abs=1e-12)
    # the joint-frequency reading of P2: not p * n(1,-1)/n = 0.4 * 0.2
    assert error_entropy([[5, 1], [2, 2]]) != pytest.approx(shannon([0.1, 0.08, 0.82]))
    assert error_entropy([[6, 0], [0, 4]]) == 0.0  # a perfect split
    assert error_entropy([[1, 1], [1, 0]]) == pytest.approx(math.log(3))  # the maximum
    # no split (every case assigned t = 1): h(n_S / n), the value of both curve ends
    assert error_entropy([[0, 6], [0, 4]]) == pytest.approx(shannon([0.6, 0.4]))


def test_printed_error_rates_weight_by_the_prevalence():
    # p = n_1 / n = 4/10; P(e=2) = 0.4 * 2/10, P(e=-2) = 0.6 * 1/10
    value = error_entropy([[5, 1], [2, 2]], error_rates="printed")
    assert value == pytest.approx(shannon([0.08, 0.06, 0.86]), abs=1e-12)
    with pytest.raises(TreebenchError, match="accepted: joint, printed"):
        error_entropy([[5, 1], [2, 2]], error_rates="literal")


def test_error_entropy_refuses_bad_tables():
    with pytest.raises(TreebenchError, match="2x2 non-negative"):
        error_entropy([[1, 2, 3]])
    with pytest.raises(TreebenchError, match="no cases"):
        error_entropy([[0, 0], [0, 0]])


def test_error_entropy_curve_counts_both_orientations():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    t = np.array([1, 1, -1, -1])
    grid, h0, o0 = error_entropy_curve(x, t, None, 0)
    _, h1, _ = error_entropy_curve(x, t, None, 1)
    assert grid.tolist() == [1, 2, 3, 4] and o0 == 0
    # x <= 1 assigned to t=1: one e=2 (the case at 2) -> P = (1/4, 0, 3/4)
    assert h0[0] == pytest.approx(shannon([0.25, 0.75]))
    assert h0[1] == 0.0  # the perfect split
    # orientation 1 at x <= 2: both t=1 on the wrong side, both t=-1 too
    assert h1[1] == pytest.approx(shannon([0.5, 0.5]))
    # both ends (every case on one side) are h(n_S / n)
    assert h0[-1] == pytest.approx(shannon([0.5, 0.5])) and h1[-1] == h0[-1]
    assert error_entropy_curve(x, t)[2] == 0  # orientation reaching the lower minimum


# -- the convex / concave rule ------------------------------------------------------
def test_convex_rule_on_constructed_curves():
    u = np.linspace(0.0, 1.0, 100)
    assert is_convex(np.abs(u - 0.5))  # a dip in the middle
    assert not is_convex(1.0 - np.abs(u - 0.5))  # a bulge: its minimum is at an end
    assert is_convex(np.full(100, 0.3))  # m_c = m_e is not "m_c > m_e"
    # the rule compares fifths, not the minimum: a curve rising at one end only
    assert is_convex(np.where(u < 0.2, 1.0, 0.5))
    assert not is_convex(np.where((u >= 0.2) & (u < 0.8), 0.6, 0.5))


def test_entropy_curves_of_separated_and_overlapping_classes():
    x = np.arange(30.0)
    separated = np.where(x < 15, 1, -1)
    _, curve, _ = error_entropy_curve(x, separated, 100, 0)
    assert is_convex(curve)
    middle_band = np.where((x >= 10) & (x < 20), 1, -1)
    for orientation in (0, 1):
        assert not is_convex(error_entropy_curve(x, middle_band, 100, orientation)[1])


# -- candidate class sets ----------------------------------------------------------
@pytest.mark.parametrize("c", range(2, 9))
def test_class_sets_enumerate_up_to_half_the_classes(c):
    sets = class_sets(range(c))
    half = c // 2
    expected = sum(comb(c, k) for k in range(1, half + 1))
    if c % 2 == 0:
        expected -= comb(c, half) // 2  # a size-c/2 set and its complement are one partition
    assert len(sets) == expected == len(set(sets))
    assert all(1 <= len(s) <= half for s in sets)
    partitions = {frozenset(s) if 0 in s else frozenset(set(range(c)) - set(s)) for s in sets}
    assert len(partitions) == len(sets)  # no set comes with its complement
    assert len(class_sets(range(c), max_merged=1)) == (1 if c == 2 else c)


def test_segment_has_63_class_sets():
    assert len(class_sets(range(7))) == 7 + 21 + 35


# -- the tree ----------------------------------------------------------------------
@pytest.mark.parametrize("engine", ["numba", "python"])
def test_a_node_with_only_concave_curves_is_a_leaf(engine):
    x = np.arange(30.0)
    y = np.where((x >= 10) & (x < 20), "band", "out")
    X = np.column_stack([x, x[::-1] * 2.0])
    model = MEETreeClassifier(min_class_cases=1, engine=engine).fit(X, y)
    assert model.tree_.n_nodes == 1
    assert model.predict(X).tolist() == ["out"] * 30  # the majority class


@pytest.mark.parametrize("engine", ["numba", "python"])
def test_separated_classes_split_at_the_boundary(engine):
    x = np.arange(30.0)
    y = np.where(x < 12, 0, 1)
    model = MEETreeClassifier(engine=engine).fit(x[:, None], y)
    assert model.tree_.n_nodes == 3
    assert model.tree_.float_nodes[0, 0] == 11.0  # the observed value
    midpoint = MEETreeClassifier(threshold="midpoint", engine=engine).fit(x[:, None], y)
    assert midpoint.tree_.float_nodes[0, 0] == 11.5
    assert (model.predict(x[:, None]) == y).all()


def test_too_few_cases_of_every_class_set_makes_a_leaf():
    x = np.arange(12.0)[:, None]
    y = np.array([0] * 9 + [1] * 3)
    assert MEETreeClassifier(min_class_cases=4).fit(x, y).tree_.n_nodes == 1
    assert MEETreeClassifier(min_class_cases=3).fit(x, y).tree_.n_nodes == 3


def test_multiclass_split_merges_classes():
    # classes 0 and 1 below 10, classes 2 and 3 above: one merged split does it
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(0, 9, 40), rng.uniform(11, 20, 40)])
    noise = rng.uniform(0, 1, 80)
    y = np.array([0, 1] * 20 + [2, 3] * 20)
    model = MEETreeClassifier().fit(np.column_stack([noise, x]), y)
    assert model.split_sets_[0] in ((0, 1), (2, 3))
    assert model.tree_.int_nodes[0, 0] == 1 and model.tree_.float_nodes[0, 0] == x[:40].max()


#: (min_child, error_rates, whole-range grid, must_lower): the readings the engines must agree on.
ENGINE_CASES = (
    (1, "joint", False, False), (4, "joint", False, False), (1, "printed", False, False),
    (1, "joint", True, False), (1, "printed", True, False), (1, "joint", False, True),
    (1, "printed", True, True), (4, "joint", True, True),
)


@pytest.mark.parametrize("seed", range(6))
def test_numba_and_reference_agree_on_random_data(seed):
    rng = np.random.default_rng(seed)
    n, d, k = 60, 3, 4
    X = rng.integers(0, 12, size=(n, d)).astype(float)  # ties between values
    X[:, 0] += rng.normal(0, 0.5, n)
    y = rng.integers(0, k, n)
    y[X[:, 1] > 8] = 0  # some structure to split on
    y[X[:, 1] < 3] = 1
    sets = class_sets(range(k))
    set_classes = np.full((len(sets), 2), -1, np.int64)
    for i, s in enumerate(sets):
        set_classes[i, : len(s)] = s
    sizes = np.array([len(s) for s in sets], np.int64)
    # a "whole" range wider than these cases, as at a node below the root
    span = (X.min(axis=0) - rng.uniform(0, 6, d), X.max(axis=0) + rng.uniform(0, 6, d))
    for min_child, rates, whole, must_lower in ENGINE_CASES:
        fast = best_mee_split(X, y, set_classes, sizes, k, 100, min_child, rates == "printed", xlogx_table(n),
                              whole, span[0], span[1], must_lower)
        slow = reference_best_split(X, y, sets, 100, min_child, rates, span=span if whole else None,
                                    must_lower=must_lower)
        assert fast[1:4] == slow[1:4] and fast[4:] == slow[4:]
        assert fast[0] == pytest.approx(slow[0], abs=1e-12)
    for _, rates, whole, must_lower in ENGINE_CASES:
        kwargs = {"min_class_cases": 2, "error_rates": rates, "convexity_range": "whole" if whole else "node",
                  "must_lower": must_lower}
        numba_tree = MEETreeClassifier(**kwargs).fit(X, y).tree_
        python_tree = MEETreeClassifier(engine="python", **kwargs).fit(X, y).tree_
        assert numba_tree.n_nodes > 1
        np.testing.assert_array_equal(numba_tree.int_nodes, python_tree.int_nodes)
        np.testing.assert_allclose(numba_tree.float_nodes, python_tree.float_nodes, rtol=0, atol=1e-12)


# -- the readings of the text: the whole-range grid and no extra stopping rule ------------
def test_the_convexity_grid_over_the_whole_range_can_make_a_node_curve_concave():
    # ten cases 0..9, t = 1 below 5; orientation 0 (x <= threshold assigned t = 1)
    x = np.arange(10.0)
    t = np.where(x < 5, 1, -1)
    grid, node, _ = error_entropy_curve(x, t, 100, 0)
    assert grid[0] == 0.0 and grid[-1] == 9.0 and is_convex(node)  # the dip at 4 lies in the central fifths
    grid, whole, _ = error_entropy_curve(x, t, 100, 0, span=(0.0, 100.0))
    assert grid[0] == 0.0 and grid[-1] == 100.0
    # past 9 every case goes left, assigned t = 1: five e = -2 errors, H = h(1/2) = ln 2 -- all the
    # central fifths (20 <= x < 80); the dip (H = 0 for 4 <= x < 5) is in the first fifth: m_c > m_e
    assert np.allclose(whole[grid >= 9.0], math.log(2))
    assert whole[(grid >= 4) & (grid < 5)].tolist() == [0.0]
    assert not is_convex(whole)
    # the first grid point, x <= 0: one t = 1 case left (right), four t = 1 cases right: P(e=2) = 4/10
    assert whole[0] == pytest.approx(shannon([0.4, 0.6]))


def test_the_whole_range_grid_in_the_split_search_and_the_must_lower_rule():
    x = np.arange(10.0)[:, None]
    y = (x[:, 0] >= 5).astype(np.int64)  # class 0 = x < 5, the candidate set
    sets, sizes = np.array([[0]]), np.array([1])
    low, high = np.array([0.0]), np.array([100.0])

    def search(whole, must_lower):
        return best_mee_split(x, y, sets, sizes, 2, 100, 1, False, xlogx_table(10), whole, low, high, must_lower)

    # node range: orientation 0 is convex, the perfect split x <= 4, H = 0
    assert search(False, False) == (0.0, 0, 0, 0, 4.0, 5.0)
    # whole range [0, 100]: orientation 0 is concave (test above); orientation 1 (x > threshold assigned
    # the set) starts high -- x <= 0: one e = 2, five e = -2, H(.1, .5, .4) -- and stays at ln 2 past 9,
    # so its end fifths outweigh its centre: convex.  Its lowest point is x <= 4 again, where all five
    # set cases are left (e = 2) and all five others right (e = -2): H = h(1/2) = ln 2
    h, s, f, orientation, threshold, _ = search(True, False)
    assert (s, f, orientation, threshold) == (0, 0, 1, 4.0) and h == pytest.approx(math.log(2))
    # ln 2 is also the error entropy of not splitting: the must-lower rule (the default) refuses it
    assert search(True, True)[1] == -1


def test_may_rise_splits_a_convex_curve_above_the_no_split_entropy_and_the_default_does_not():
    # six cases 0..5 of classes 0 1 1 0 0 1; the set {0} coded t = 1; no split: h(1/2) = ln 2
    X = np.arange(6.0)[:, None]
    y = np.array([0, 1, 1, 0, 0, 1])
    # x <= 2 with the right side assigned the set: one e = 2 (x = 0), one e = -2 (x = 5), four right
    best = shannon([1 / 6, 1 / 6, 4 / 6])
    assert best > math.log(2)
    for engine in ("numba", "python"):
        may_rise = MEETreeClassifier(min_class_cases=1, must_lower=False, engine=engine).fit(X, y)
        assert may_rise.tree_.n_nodes > 1 and may_rise.tree_.float_nodes[0, 0] == 2.0
        assert may_rise.tree_.float_nodes[0, 2] == pytest.approx(best)  # the split's error entropy (SCORE)
        # the default: the curve's minimum is at its ends (not splitting), so there is no valid split
        assert MEETreeClassifier(min_class_cases=1, engine=engine).fit(X, y).tree_.n_nodes == 1


def test_mee_parameters_default_to_the_papers_text():
    params = MEETreeClassifier().get_params()
    assert params["error_rates"] == "joint" and params["convexity_range"] == "whole"
    assert params["must_lower"] is True and params["convexity_points"] == 100
    assert params["min_class_cases"] == 5 and params["min_child_cases"] == 1
    crit = criteria.get("mee")
    assert crit.values["convexity_range"] == "whole" and crit.values["must_lower"] is True


# -- estimator basics ------------------------------------------------------------
def test_estimator_basics():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=90), "b": rng.normal(size=90)})
    y = np.array(["x", "y", "z"])[(X["a"] > 0).astype(int) + (X["b"] > 0.5).astype(int)]
    model = MEETreeClassifier().fit(X, y)
    assert model.classes_.tolist() == ["x", "y", "z"]
    assert model.predict(X).shape == (90,) and set(model.predict(X)) <= {"x", "y", "z"}
    proba = model.predict_proba(X)
    assert proba.shape == (90, 3) and np.allclose(proba.sum(axis=1), 1.0)
    assert model.score(X, y) > 0.8
    params = clone(model).get_params()
    assert {"threshold", "min_class_cases", "max_merged", "convexity_points", "max_depth"} <= set(params)
    assert MEETreeClassifier(max_depth=0).fit(X, y).tree_.n_nodes == 1
    # truncation: depth 0 is the root's majority, full depth is the tree itself
    majority = pd.Series(y).value_counts().sort_index().idxmax()
    assert (model.predict_at_depth(X, 0) == majority).all()
    assert (model.predict_at_depth(X, model.get_depth()) == model.predict(X)).all()
    shallow = MEETreeClassifier(max_depth=1).fit(X, y)
    assert (model.predict_at_depth(X, 1) == shallow.predict(X)).all()
    assert "a <=" in model.export_text() or "b <=" in model.export_text()


def test_predictions_by_level_equal_those_of_the_truncated_tree():
    # the oracle: copy the tree with every node at depth >= d made a leaf, route again
    from dataclasses import replace

    from sklearn.datasets import load_breast_cancer

    from treebench.kernels import layout as L

    X, y = load_breast_cancer(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order], y[order]
    model = MEETreeClassifier(must_lower=False).fit(X[:400], y[:400])  # "may rise" grows a chain
    depths = list(range(model.get_depth() + 2))
    assert model.get_depth() >= 10  # a chain: ancestors many levels up
    levels = model.predict_levels(X[200:], depths[::-1])[::-1]
    encoded = model._encode(X[200:])
    parent = model.tree_.parents()
    assert parent[0] == -1 and (parent[1:] >= 0).all()
    for d in depths:
        ints = model.tree_.int_nodes.copy()
        ints[ints[:, L.DEPTH] >= d, L.KIND] = L.LEAF
        truncated = replace(model.tree_, int_nodes=ints)
        expected = model.classes_[truncated.predict_index(encoded)]
        np.testing.assert_array_equal(levels[d], expected)
        np.testing.assert_array_equal(model.predict_at_depth(X[200:], d), expected)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"threshold": "mid"}, "accepted: observed, midpoint"),
        ({"min_class_cases": 0}, "min_class_cases=0 is out of range"),
        ({"max_depth": -1}, "accepted: None or an integer >= 0"),
        ({"convexity_points": 3}, "convexity_points=3 is out of range"),
        ({"convexity_range": "feature"}, r"accepted: convexity_range in \{whole, node\}"),
        ({"feature_ties": "last"}, "feature_ties='last' is invalid; accepted: first, random"),
        ({"feature_ties": "random", "random_state": "x"}, "random_state='x' is invalid; accepted: None, an integer"),
    ],
)
def test_bad_parameters_give_one_line_errors(kwargs, message):
    with pytest.raises(TreebenchError, match=message):
        MEETreeClassifier(**kwargs).fit(np.arange(10.0)[:, None], [0, 1] * 5)


def test_nominal_and_missing_features_are_refused():
    frame = pd.DataFrame({"a": np.arange(6.0), "colour": list("rgbrgb")})
    with pytest.raises(TreebenchError, match="feature 'colour' is nominal"):
        MEETreeClassifier().fit(frame, [0, 1] * 3)
    with pytest.raises(TreebenchError, match="has missing values"):
        MEETreeClassifier().fit(np.array([[1.0], [np.nan], [2.0], [3.0]]), [0, 1, 0, 1])


# -- registration and experiments ----------------------------------------------------
def test_mee_is_a_registered_criterion_with_its_own_builder():
    crit = criteria.get("mee", min_class_cases=3)
    assert "mee" in criteria.available() and crit.min_class_cases == 3
    assert "min_gain" not in crit.values
    # count-level scores: a perfect two-class split has zero error entropy
    parent = np.array([4.0, 4.0])
    scores = crit.split_scores(parent, np.array([[[4, 0], [0, 4]], [[2, 2], [2, 2]]]))
    # [[2, 2], [2, 2]]: two e = 2, two e = -2, four right in either orientation
    assert scores[0] == 0.0 and scores[1] == pytest.approx(-shannon([0.25, 0.25, 0.5]))
    assert crit.accepts(float(scores[1]))
    with pytest.raises(TreebenchError, match="grows its own trees"):
        TreeClassifier("mee").fit(np.arange(4.0)[:, None], [0, 0, 1, 1])


CONFIG = """\
experiment: mee-demo
datasets: [iris]
protocol: {type: cv, folds: 3}
algorithms:
  - name: MEE
    criterion: mee
    params: {threshold: observed, max_depth: 4}
    grid: {min_class_cases: [2, 5]}
"""


def test_a_config_runs_mee_through_its_learner():
    config = parse_config(CONFIG)
    algorithm = config.algorithms[0]
    assert algorithm.criterion == "mee"
    learner = MEELearner("mee")
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=40)})
    y = (X["a"] > 0).astype(int).to_numpy()
    model = learner.fit({"threshold": "observed", "min_class_cases": 2}, learner.view(X), y)
    assert learner.measures(model)["n_leaves"] == 2
    with pytest.raises(TreebenchError, match="no parameter 'min_samples_split'"):
        learner.fit({"min_samples_split": 4}, X, y)


def test_feature_ties_and_draw_reach_the_tree_from_a_config_and_the_trial_key():
    from treebench.experiment.config import DatasetSpec, ProtocolSpec
    from treebench.experiment.trial import trial_key
    from treebench.learners.trees import drawn_seed

    config = parse_config(CONFIG.replace("max_depth: 4}", "max_depth: 4, feature_ties: random, draw: 2}"))
    algorithm = config.algorithms[0]
    assert dict(algorithm.params)["feature_ties"] == "random"
    plain = parse_config(CONFIG).algorithms[0]
    dataset = DatasetSpec("iris", "iris", ProtocolSpec("cv", folds=3))
    keys = {trial_key("t", dataset, "abc", a, config.tuning, 1, 0, 0) for a in (algorithm, plain)}
    assert len(keys) == 2  # part of the trial key when written
    X, y = np.hstack([np.arange(60.0)[:, None]] * 2), np.arange(60) // 30
    learner = MEELearner("mee", random_state=17)
    model = learner.fit({"feature_ties": "random", "draw": 2}, X, y)
    assert model.feature_ties == "random" and model.random_state == drawn_seed(17, 2)
    assert learner.fit({}, X, y).random_state == 17
    roots = {MEELearner("mee", random_state=s).fit({"feature_ties": "random"}, X, y).tree_.int_nodes[0, 0]
             for s in range(12)}
    assert roots == {0, 1}  # the trial's seed draws between the two equal columns
    with pytest.raises(TreebenchError, match="feature_ties='any' is invalid; accepted: first, random"):
        parse_config(CONFIG.replace("max_depth: 4}", "max_depth: 4, feature_ties: any}"))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("    params: {min_samples_leaf: 2}\n", "has no parameter 'min_samples_leaf'"),
        ("    pruning: pessimistic\n", "grows unpruned batch trees"),
    ],
)
def test_a_config_refuses_what_mee_trees_do_not_do(extra, message):
    text = textwrap.dedent(
        """\
        experiment: mee-demo
        datasets: [iris]
        protocol: {type: cv, folds: 3}
        algorithms:
          - name: MEE
            criterion: mee
        """
    )
    with pytest.raises(TreebenchError, match=message):
        parse_config(text + extra)


def test_criteria_list_shows_mee_with_its_parameters():
    result = CliRunner().invoke(cli, ["criteria", "list"])
    line = next(row for row in result.output.splitlines() if row.startswith("mee "))
    assert "min_class_cases >= 1 (default 5)" in line and "error_rates in {joint, printed}" in line
    assert "convexity_range in {whole, node}" in line and "must_lower in {true, false}" in line
