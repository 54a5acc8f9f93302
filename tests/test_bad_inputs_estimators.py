"""Bad input to the estimators' API: one case per line, each a one-line error naming the problem."""

from __future__ import annotations

import numpy as np
import pytest
from badinput import ApiCase, run_api_case
from scipy.sparse import csr_matrix
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError

from treebench.errors import TreebenchError
from treebench.trees.belief import BeliefTreeClassifier
from treebench.trees.builder import grow
from treebench.trees.encoding import FeatureEncoder
from treebench.trees.estimator import TreeClassifier
from treebench.trees.mee import MEETreeClassifier
from treebench.trees.online import OnlineTreeClassifier
from treebench.trees.settings import GrowSettings

X, y = load_iris(return_X_y=True)
FRAME = load_iris(as_frame=True).data
E = TreebenchError
#: Fitted once, lazily (collection stays fast): the estimator each predict case calls.
_FITTED: dict[str, object] = {}


def fitted(name: str):
    if name not in _FITTED:
        model = {"tree": TreeClassifier(max_depth=3), "mee": MEETreeClassifier(max_depth=2),
                 "online": OnlineTreeClassifier("entropy")}[name]
        _FITTED[name] = model.fit(FRAME, y)
    return _FITTED[name]


def fit(model, X_=X, y_=y, **kwargs):
    return lambda: model.fit(X_, y_, **kwargs)


def predict(name: str, X_):
    return lambda: fitted(name).predict(X_)


def zero_feature_grow():
    encoder, matrix = FeatureEncoder.fit(X)
    return grow(matrix[:, :0], np.zeros(150, np.int64), 3, encoder, TreeClassifier()._make_criterion(), GrowSettings())


rng = np.random.default_rng(0)
CASES = [
    # estimator parameters
    ApiCase("unknown-criterion", fit(TreeClassifier("nope")), r"unknown criterion 'nope'.*accepted: ", E),
    ApiCase("criterion-param-range", fit(TreeClassifier("tsallis", q=0)), r"parameter q=0 is out of range; accepted: q > 0", E),
    ApiCase("unknown-criterion-param", fit(TreeClassifier("gini", gamma=0.1)), r"TreeClassifier\('gini'\) has no parameter 'gamma'.*; accepted: max_depth, .*; and the criterion's min_gain", E),
    ApiCase("max-depth", fit(TreeClassifier(max_depth=-1)), r"max_depth=-1 is invalid; accepted: None or an integer >= 0", E),
    ApiCase("min-samples-split", fit(TreeClassifier(min_samples_split=1)), r"min_samples_split=1 is invalid; accepted: an integer >= 2", E),
    ApiCase("pruning", fit(TreeClassifier(pruning="yes")), r"pruning='yes' is invalid; accepted: None, pessimistic, cost-complexity", E),
    ApiCase("confidence", fit(TreeClassifier(pruning="pessimistic", confidence=0.9)), r"confidence=0.9 is out of range", E),
    ApiCase("engine", fit(TreeClassifier(engine="gpu")), r"engine='gpu' is invalid; accepted: auto, numba, python", E),
    ApiCase("nominal-feature-name", fit(TreeClassifier(nominal_features=["colour"])), r"unknown column 'colour'; accepted: x0, x1", E),
    ApiCase("online-random-state", fit(OnlineTreeClassifier(random_state=-1)), r"random_state=-1 is invalid; accepted: None, an integer >= 0", E),
    ApiCase("online-pruning", fit(OnlineTreeClassifier(pruning="pessimistic")), r"online trees are not pruned; use pruning=None", E),
    ApiCase("mee-threshold", fit(MEETreeClassifier(threshold="mean")), r"threshold='mean' is invalid; accepted: observed, midpoint", E),
    ApiCase("mee-convexity-points", fit(MEETreeClassifier(convexity_points=3)), r"convexity_points=3 is out of range; accepted: convexity_points >= 5", E),
    # X
    ApiCase("x-1d", fit(TreeClassifier(), X[:, 0]), r"X must be 2-dimensional .* Reshape your data", E),
    ApiCase("x-3d", fit(TreeClassifier(), X[:, :, None]), r"X must be 2-dimensional \(n_samples, n_features\); got 3 dimensions", E),
    ApiCase("x-sparse", fit(TreeClassifier(), csr_matrix(X)), r"sparse input is not supported \(X is a csr_matrix\)", E),
    ApiCase("x-complex", fit(TreeClassifier(), X + 1j), r"Complex data not supported; X has dtype complex128", E),
    ApiCase("x-no-features", fit(TreeClassifier(), X[:, :0]), r"0 feature\(s\) \(shape=\(150, 0\)\) while a minimum of 1 is required", E),
    ApiCase("x-no-samples", fit(TreeClassifier(), X[:0], y[:0]), r"0 sample\(s\) \(shape=\(0, 4\)\) while a minimum of 1 is required", E),
    ApiCase("x-mixed-column-names", fit(TreeClassifier(), FRAME.set_axis(["a", 1, "b", 2], axis=1)), r"Feature names are only supported if all input features have string names", E),
    ApiCase("mee-nominal-column", fit(MEETreeClassifier(), FRAME.assign(c="x")), r"MEE trees split numeric features only; feature 'c' is nominal", E),
    ApiCase("mee-inf", fit(MEETreeClassifier(), np.where(X == X[0, 0], np.inf, X)), r"feature 'x0' has infinite values \(inf\) in fit", E),
    ApiCase("grow-no-features", zero_feature_grow, r"0 feature\(s\) \(shape=\(150, 0\)\)", E),
    # y
    ApiCase("y-none", fit(TreeClassifier(), X, None), r"requires y to be passed, but the target y is None", E),
    ApiCase("y-length", fit(TreeClassifier(), X, y[:-1]), r"y has 149 labels; X has 150 rows", E),
    ApiCase("y-2d", fit(TreeClassifier(), X, np.column_stack([y, y])), r"y must be 1-dimensional \(one label per row\); got shape \(150, 2\)", E),
    ApiCase("y-nan", fit(TreeClassifier(), X, np.where(y == 2, np.nan, y)), r"y contains missing labels \(NaN/None\)", E),
    ApiCase("y-inf", fit(TreeClassifier(), X, np.where(y == 2, np.inf, y)), r"y contains infinite labels \(inf\)", E),
    ApiCase("y-continuous", fit(TreeClassifier(), X, X[:, 0]), r"Unknown label type: continuous.*Accepted: class labels", E),
    ApiCase("mee-too-many-classes", fit(MEETreeClassifier(), X, np.arange(150) % 20), r"y has 20 classes, which give 524,287 candidate class sets .* accepted: at most 65,535", E),
    ApiCase("online-unknown-class", lambda: OnlineTreeClassifier().partial_fit(X, y, classes=[0, 1]), r"label 2 was not among the classes given at the first partial_fit", E),
    ApiCase("belief-masses-shape", fit(BeliefTreeClassifier(), X[:100], y[:100], label_masses=np.ones((100, 2))), r"label masses must have shape \(n_samples, n_classes \+ 1\) = \(100, 3\)", E),
    ApiCase("belief-masses-classes", fit(BeliefTreeClassifier(), label_masses=np.ones((150, 4)) / 4), r"uncertain labels need exactly two classes; the training labels have 3", E),
    # sample_weight
    ApiCase("weight-negative", fit(TreeClassifier(), sample_weight=np.where(y == 1, -1.0, 1.0)), r"sample_weight: Negative values in data passed to `sample_weight`", E),
    ApiCase("weight-length", fit(TreeClassifier(), sample_weight=np.ones(10)), r"sample_weight.shape == \(10,\), expected \(150,\)", E),
    ApiCase("weight-2d", fit(TreeClassifier(), sample_weight=np.ones((150, 2))), r"Sample weights must be 1D array or scalar", E),
    ApiCase("weight-all-zero", fit(TreeClassifier(), sample_weight=np.zeros(150)), r"Sample weights must contain at least one non-zero number", E),
    ApiCase("weight-nan", fit(TreeClassifier(), sample_weight=np.where(y == 1, np.nan, 1.0)), r"sample_weight: Input sample_weight contains NaN", E),
    ApiCase("weight-with-sample-data", fit(TreeClassifier("entropy"), sample_weight=rng.random(150), sample_data=np.zeros((150, 3))), r"sample_weight cannot be combined with sample_data", E),
    ApiCase("weight-with-label-masses", fit(BeliefTreeClassifier(), X[:100], y[:100], label_masses=np.tile([0.5, 0.5, 0.0], (100, 1)), sample_weight=rng.random(100)), r"sample_weight cannot be combined", E),
    # predicting
    ApiCase("predict-before-fit", lambda: TreeClassifier().predict(X), r"This TreeClassifier instance is not fitted yet", NotFittedError),
    ApiCase("predict-feature-count", predict("tree", X[:, :3]), r"X has 3 features, but TreeClassifier is expecting 4 features as input", E),
    ApiCase("predict-column-order", predict("tree", FRAME[FRAME.columns[::-1]]), r"Feature names must be in the same order as they were in fit", E),
    ApiCase("predict-column-names", predict("tree", FRAME.add_prefix("new ")), r"Feature names unseen at fit time: new petal length \(cm\)", E),
    ApiCase("predict-1d", predict("tree", X[0]), r"Reshape your data", E),
    ApiCase("mee-predict-nan", predict("mee", FRAME.where(FRAME > 1.0)), r"feature 'petal length \(cm\)' has missing values \(NaN\) in predict", E),
    ApiCase("mee-depth", lambda: fitted("mee").predict_at_depth(X, -1), r"depth=-1 is invalid; accepted: an integer >= 0", E),
    ApiCase("online-partial-fit-columns", lambda: fitted("online").partial_fit(FRAME[FRAME.columns[::-1]], y), r"Feature names must be in the same order", E),
    ApiCase("online-sample-data", fit(OnlineTreeClassifier(), sample_data=np.zeros(150)), r"online trees take neither sample_data nor presorted data", E),
]


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")  # a matrix after a frame: warned, then refused
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input(case: ApiCase) -> None:
    run_api_case(case)


def test_cases_have_distinct_ids() -> None:
    assert len({case.id for case in CASES}) == len(CASES) >= 25
