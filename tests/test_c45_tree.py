"""Hand-checkable cases of the J48 rules of ``treebench.trees.c45`` (one test per rule)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError

from treebench.errors import TreebenchError
from treebench.trees.c45 import (
    C45Classifier,
    first_max,
    gain_ratio,
    mdl_penalty,
    min_split,
    nominal_candidate,
    numeric_candidate,
)
from treebench.trees.estimator import TreeClassifier
from treebench.trees.fitted import check_columns, one_line

LOG2_5 = math.log2(5)


def h(p: float) -> float:
    """Binary entropy in bits."""
    return -sum(q * math.log2(q) for q in (p, 1 - p) if q > 0)


# --------------------------------------------------------------------------- numeric cuts
def test_mdl_penalty_on_eight_cases():
    # 8 cases, 4 + 4: minSplit = max(0.1 * 8 / 2, M = 2) = 2, so cuts leave 2..6 cases on the
    # left: 5 candidates.  The best cut (4 | 4) gains 1 bit; MDL takes log2(5) / 8 off it.
    x = np.arange(1.0, 9.0)
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    cand = numeric_candidate(0, x, y, np.ones(8), 2, 8.0, 2.0, mdl=True)
    assert mdl_penalty(5, 8.0) == pytest.approx(LOG2_5 / 8)
    assert cand.gain == pytest.approx(1 - LOG2_5 / 8)
    assert cand.ratio == pytest.approx(1 - LOG2_5 / 8)  # split information of 4 | 4 is 1 bit
    assert cand.cut == 4.5
    plain = numeric_candidate(0, x, y, np.ones(8), 2, 8.0, 2.0, mdl=False)
    assert plain.gain == pytest.approx(1.0)


def test_mdl_can_veto_a_weak_cut():
    # gain of the only admissible cut is small; log2(#cuts) / n wipes it out
    x = np.arange(1.0, 11.0)
    y = np.array([0, 1, 0, 1, 0, 1, 0, 1, 1, 0])
    assert numeric_candidate(0, x, y, np.ones(10), 2, 10.0, 2.0, mdl=True) is None


@pytest.mark.parametrize(
    ("known", "classes", "expected"),
    [(100.0, 2, 5.0), (10.0, 2, 2.0), (1000.0, 2, 25.0), (300.0, 3, 10.0), (41.0, 2, 2.05)],
)
def test_min_split_is_clamped_to_m_and_25(known, classes, expected):
    assert min_split(known, classes, 2.0) == pytest.approx(expected)


def test_min_split_restricts_the_cuts():
    # 100 cases, 2 classes: minSplit = 5, so the pure cut after 3 cases is not a candidate;
    # the best admissible one leaves exactly 5 cases on the left
    x = np.arange(100.0)
    y = np.r_[np.zeros(3, int), np.ones(97, int)]
    cand = numeric_candidate(0, x, y, np.ones(100), 2, 100.0, 2.0, mdl=False)
    assert cand.cut == 4.5
    np.testing.assert_allclose(cand.bags, [[3, 2], [0, 95]])


def test_values_closer_than_1e5_are_one_value():
    x = np.array([1.0, 1.0 + 5e-6, 2.0, 3.0, 4.0, 5.0])
    y = np.array([0, 1, 1, 1, 1, 1])
    cand = numeric_candidate(0, x, y, np.ones(6), 2, 6.0, 2.0, mdl=False)
    assert cand is None or cand.cut > 1.1  # never between 1 and 1 + 5e-6


def test_threshold_is_snapped_to_a_training_value():
    # the midpoint between 4 and 10 is 7; J48 reports (and splits at) 4, the largest value <= 7
    X = np.array([[1.0], [2.0], [3.0], [4.0], [10.0], [11.0], [12.0], [13.0]])
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    model = C45Classifier().fit(X, y)
    assert model.tree_.root.threshold == 4.0
    assert model.export_text().splitlines()[0] == "x0 <= 4: 0 (4.0)"
    assert model.predict([[6.9], [4.0], [4.0000001]]).tolist() == [1, 0, 0]


def test_first_max_needs_more_than_1e6():
    assert first_max(np.array([0.5, 0.5 + 5e-7, 0.4]), 0.0) == 0
    assert first_max(np.array([0.5, 0.5 + 5e-6]), 0.0) == 1
    assert first_max(np.array([1e-7]), 0.0) == -1


# --------------------------------------------------------------------------- missing values
def missing_case() -> tuple[np.ndarray, np.ndarray]:
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0], [8.0], [np.nan]])
    return X, np.array([0, 0, 0, 0, 1, 1, 1, 1, 0])


def test_gain_is_scaled_by_the_known_share():
    X, y = missing_case()
    # 8 of 9 cases known: gain = 8/9 * 1 bit, minus log2(5) / 9 (MDL uses the node's weight 9);
    # split information counts the unknown case as a third bag: 4, 4, 1 of 9
    cand = numeric_candidate(0, X[:, 0], y, np.ones(9), 2, 9.0, 2.0, mdl=True)
    assert cand.gain == pytest.approx(8 / 9 - LOG2_5 / 9)
    split_info = -(2 * (4 / 9) * math.log2(4 / 9) + (1 / 9) * math.log2(1 / 9))
    assert cand.ratio == pytest.approx(cand.gain / split_info)
    assert gain_ratio(cand.gain, np.array([4.0, 4.0]), 9.0) == pytest.approx(cand.ratio)


def test_unknown_case_goes_down_both_branches_with_half_weight():
    X, y = missing_case()
    root = C45Classifier(unpruned=True).fit(X, y).tree_.root
    left, right = root.children
    np.testing.assert_allclose(root.dist, [[4.5, 0.0], [0.5, 4.0]])
    np.testing.assert_allclose(left.dist, [[4.5, 0.0]])
    np.testing.assert_allclose(right.dist, [[0.5, 4.0]])
    assert sorted(right.weights.tolist()) == [0.5, 1, 1, 1, 1]


def test_unknown_value_at_prediction_mixes_the_branches():
    X, y = missing_case()
    model = C45Classifier(unpruned=True).fit(X, y)
    # shares 4.5/9 each: 0.5 * [1, 0] + 0.5 * [0.5, 4] / 4.5
    np.testing.assert_allclose(model.predict_proba([[np.nan]]), [[0.5 + 0.5 / 9, 4 / 9]])
    assert model.predict([[np.nan]]).tolist() == [0]


# --------------------------------------------------------------------------- nominal splits
def test_empty_nominal_branch_is_a_counted_leaf():
    X = pd.DataFrame({"f": pd.Categorical(list("aaaabbbb"), categories=["a", "b", "c"])})
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    model = C45Classifier().fit(X, y)
    assert (model.tree_.n_leaves, model.tree_.n_nodes) == (3, 4)
    assert model.tree_.root.children[2].is_empty
    assert model.export_text().splitlines()[2] == "f = c: 0 (0.0)"
    # an empty branch answers with its parent's class distribution; the first class wins a tie
    new = pd.DataFrame({"f": pd.Categorical(["c"], categories=["a", "b", "c"])})
    np.testing.assert_allclose(model.predict_proba(new), [[0.5, 0.5]])
    assert model.predict(new).tolist() == [0]


def test_ordered_categorical_is_nominal():
    X = pd.DataFrame({"f": pd.Categorical(list("lllmmmhhh"), categories=["l", "m", "h"], ordered=True)})
    y = np.array([0, 0, 0, 1, 1, 1, 0, 0, 0])
    model = C45Classifier(min_samples_leaf=1).fit(X, y)
    assert model.tree_.root.nominal and len(model.tree_.root.children) == 3


def test_nominal_split_needs_two_branches_with_m_cases():
    y = np.array([0, 0, 0, 0, 0, 1])
    x = np.array([0.0, 0, 0, 0, 0, 1])  # the second branch holds one case < M = 2
    assert nominal_candidate(0, x, y, np.ones(6), 2, 2, 6.0, 2.0) is None
    assert nominal_candidate(0, x, y, np.ones(6), 2, 2, 6.0, 1.0) is not None


def test_average_gain_rule_overrides_the_best_ratio():
    # B: four values, 5 cases each -> gain 1 - H(0.2)/2 = 0.639, split info 2, ratio 0.319.
    # A: isolates 4 pure cases -> gain 1 - 0.8 H(0.375) = 0.237, split info H(0.2), ratio 0.328.
    # A has the larger ratio but a gain below the average 0.438, so J48 splits on B.
    y = np.r_[np.zeros(10, int), np.ones(10, int)]
    a = np.r_[np.zeros(4), np.ones(16)]
    b = np.array([0] * 5 + [1] * 4 + [2] + [1] + [2] * 4 + [3] * 5, dtype=float)
    cand_a = nominal_candidate(0, a, y, np.ones(20), 2, 2, 20.0, 2.0)
    cand_b = nominal_candidate(1, b, y, np.ones(20), 2, 4, 20.0, 2.0)
    assert cand_a.gain == pytest.approx(1 - 0.8 * h(0.375))
    assert cand_b.gain == pytest.approx(1 - 0.5 * h(0.2))
    assert cand_a.ratio > cand_b.ratio
    assert cand_a.gain < (cand_a.gain + cand_b.gain) / 2 - 1e-3
    X = pd.DataFrame({"A": pd.Categorical(a.astype(int)), "B": pd.Categorical(b.astype(int))})
    model = C45Classifier(unpruned=True, collapse=False).fit(X, y)
    assert model.tree_.root.feature == 1


# --------------------------------------------------------------------------- weights, API
def test_integer_sample_weight_equals_repeated_rows():
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    weight = rng.integers(1, 3, size=len(y))
    weighted = C45Classifier().fit(X, y, sample_weight=weight)
    repeated = C45Classifier().fit(np.repeat(X, weight, axis=0), np.repeat(y, weight))
    assert weighted.export_text() == repeated.export_text()
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X))


def test_zero_weight_rows_are_ignored():
    X, y = load_iris(return_X_y=True)
    weight = np.ones(len(y))
    weight[::7] = 0
    a = C45Classifier().fit(X, y, sample_weight=weight)
    b = C45Classifier().fit(X[weight > 0], y[weight > 0])
    assert a.export_text() == b.export_text()


def test_estimator_api():
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    model = clone(C45Classifier(confidence=0.1)).fit(X, labels)
    assert model.classes_.tolist() == ["setosa", "versicolor", "virginica"]
    assert model.predict(X[:3]).tolist() == ["setosa"] * 3
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    assert model.tree_.n_leaves <= C45Classifier(unpruned=True).fit(X, y).tree_.n_leaves
    assert model.score(X, labels) > 0.9


@pytest.mark.parametrize(
    ("params", "fit_args", "match"),
    [
        ({"confidence": 0.0}, {}, "confidence"),
        ({"confidence": 0.9}, {}, "confidence"),
        ({"min_samples_leaf": 0}, {}, "min_samples_leaf"),
        ({"min_samples_leaf": 1.5}, {}, "min_samples_leaf"),
        ({}, {"y": None}, "y"),
        ({}, {"y": [0, 1, None, 1]}, "missing labels"),
        ({}, {"y": [0, 1, 1]}, "labels"),
        ({}, {"sample_weight": [1, -1, 1, 1]}, "sample_weight"),
        ({}, {"X": [[1.0], [np.inf], [2.0], [3.0]]}, "infinite"),
    ],
)
def test_bad_input_is_one_line(params, fit_args, match):
    args = {"X": [[1.0], [2.0], [3.0], [4.0]], "y": [0, 0, 1, 1], **fit_args}
    with pytest.raises(TreebenchError, match=match) as info:
        C45Classifier(**params).fit(**args)
    assert "\n" not in str(info.value)


def test_predict_checks_fit_and_width():
    with pytest.raises(NotFittedError):
        C45Classifier().predict([[1.0]])
    model = C45Classifier().fit([[1.0], [2.0], [3.0], [4.0]], [0, 0, 1, 1])
    with pytest.raises(TreebenchError, match="features"):
        model.predict([[1.0, 2.0]])


def _reference_check(model, X, fit):
    """The column check as scikit-learn's ``validate_data`` makes it every time (the reference)."""
    from sklearn.utils.validation import validate_data

    try:
        validate_data(model, X, reset=fit, skip_check_array=True)
    except (TypeError, ValueError) as error:
        raise TreebenchError(one_line(str(error))) from None


def _outcome(model, X, fit, check):
    """What checking ``X`` does to ``model``: the error or warnings, and the recorded attributes."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            check(model, X, fit)
            error = None
        except TreebenchError as raised:
            error = str(raised)
    names = getattr(model, "feature_names_in_", None)
    return (error, [str(w.message) for w in caught],
            getattr(model, "n_features_in_", None), None if names is None else names.tolist())


@pytest.mark.parametrize("make", [C45Classifier, TreeClassifier], ids=["C45Classifier", "TreeClassifier"])
def test_the_column_check_is_validate_datas(make):
    """``check_columns`` decides the usual cases itself (no scikit-learn import in a trial) and must
    record, refuse and warn exactly as ``validate_data`` does, for every pair of fit / predict inputs."""
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    inputs = [frame, frame[["b", "a"]], frame.rename(columns={"b": "c"}), frame.to_numpy(),
              frame.to_numpy()[:, :1], frame.set_axis([0, 1], axis=1), frame.set_axis(["a", 1], axis=1),
              frame[["a"]], pd.DataFrame(np.ones((2, 0)))]
    for first in inputs:
        for second in inputs:
            ours, reference = make(), make()
            assert _outcome(ours, first, True, check_columns) == _outcome(reference, first, True, _reference_check)
            assert _outcome(ours, second, False, check_columns) == _outcome(
                reference, second, False, _reference_check), (first, second)
            # a new fit resets
            assert _outcome(ours, second, True, check_columns) == _outcome(reference, second, True, _reference_check)


# --------------------------------------------------------------------------- compiled growth
# (random nominal columns, missing values and fractional weights: tests/test_c45_compiled.py)
from test_c45_compiled import fit_both, same_nodes  # noqa: E402


def presorted_case(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Numeric data with ties, values 1e-6 apart, up to 10 classes and whole-number weights."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(30, 600)), int(rng.integers(1, 6))
    k = int(rng.choice([2, 3, 9, 10]))
    X = rng.normal(size=(n, p))
    X[:, 0] = np.round(X[:, 0], 1)  # many ties
    if p > 1:
        m = n // 2
        X[:m, 1] = X[m : 2 * m, 1] + 1e-6  # values closer than 1e-5
    y = (X.sum(axis=1) * 2 + rng.normal(size=n)).astype(np.int64) % k
    weights = rng.integers(1, 4, size=n).astype(float) if seed % 3 == 0 else None
    return X, y, weights


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(
    "params",
    [{}, {"unpruned": True}, {"subtree_raising": False}, {"collapse": False}, {"mdl_correction": False},
     {"min_samples_leaf": 5, "confidence": 0.1}],
)
def test_presorted_growth_is_the_reference(seed, params, monkeypatch):
    """Numeric data without missing values grows presorted into the reference's tree."""
    from treebench.kernels import c45_build

    X, y, weights = presorted_case(seed)

    def refuse(*args, **kwargs):
        raise AssertionError("the general grower ran")

    monkeypatch.setattr(c45_build, "grow_general", refuse)
    fast, reference = fit_both(X, y, weights, **params)
    assert same_nodes(fast.tree_.root, reference.tree_.root)
    assert fast.export_text() == reference.export_text()
    np.testing.assert_array_equal(fast.predict_proba(X), reference.predict_proba(X))


def test_fractional_weights_grow_with_the_general_grower(monkeypatch):
    from treebench.kernels import c45_build

    def refuse(*args, **kwargs):
        raise AssertionError("the presorted grower ran")

    monkeypatch.setattr(c45_build, "grow_presorted", refuse)
    X, y = load_iris(return_X_y=True)
    fast, reference = fit_both(X, y, np.full(len(y), 0.5))
    assert same_nodes(fast.tree_.root, reference.tree_.root)


# --------------------------------------------------------------------------- J48's own trees
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import _c45_parity as parity  # noqa: E402


def j48_body(text: str) -> str:
    """The tree lines of J48's printout (no header, no counts)."""
    lines = text.split("\n")[3:]
    return "\n".join(x for x in lines if x.strip() and not x.startswith(("Number of", "Size of")))


@pytest.mark.parametrize("variant", sorted(parity.VARIANTS))
@pytest.mark.parametrize("name", parity.DATASETS)
def test_printed_tree_is_j48s(name, variant):
    """Same tests, thresholds, leaf weights and errors as the stored J48 printout."""
    if not parity.mirror_folders() or parity.dataset_file(name) is None:
        pytest.skip(f"no {name}.csv.gz in TREEBENCH_DATA")
    record = parity.read_fixture(name)
    model, _ = parity.fit_treebench(parity.load_dataset(name), record["train"], record["test"], variant)
    assert model.export_text() == j48_body(record[variant]["tree"])
