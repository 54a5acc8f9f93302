"""TreeClassifier as a scikit-learn estimator."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, load_wine
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.tree import DecisionTreeClassifier

from treebench import TreeClassifier
from treebench.errors import TreebenchError


def mirror() -> Path | None:
    """The first folder of TREEBENCH_DATA (default ../shared/datasets) that exists."""
    default = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
    for folder in os.environ.get("TREEBENCH_DATA", str(default)).split(os.pathsep):
        if folder and Path(folder).is_dir():
            return Path(folder)
    return None


def test_params_protocol_includes_criterion_params():
    model = TreeClassifier("tsallis", q=2.5, max_depth=3)
    params = model.get_params()
    assert params["q"] == 2.5 and params["criterion"] == "tsallis" and params["max_depth"] == 3
    copy = clone(model)
    assert copy.get_params() == params and copy is not model
    model.set_params(q=0.5, min_samples_leaf=2)
    assert model.q == 0.5 and model.min_samples_leaf == 2
    assert "q=0.5" in repr(model)


def test_cross_val_score_and_grid_search():
    X, y = load_wine(return_X_y=True)
    scores = cross_val_score(TreeClassifier("entropy"), X, y, cv=5)
    assert scores.mean() > 0.8
    search = GridSearchCV(
        TreeClassifier("tsallis", q=1.0), {"q": [0.5, 1.0, 2.0, 4.0]}, cv=StratifiedKFold(5, shuffle=True, random_state=0)
    ).fit(X, y)
    assert search.best_params_["q"] in (0.5, 1.0, 2.0, 4.0)
    assert search.best_estimator_.criterion_.q == search.best_params_["q"]
    gamma_search = GridSearchCV(TreeClassifier("possibilistic", gamma=0.05), {"gamma": [0.01, 0.1, 0.5]}, cv=3).fit(X, y)
    assert gamma_search.best_estimator_.tree_.n_leaves >= 2


def test_string_labels_and_dataframes_with_categories():
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame(
        {
            "colour": pd.Categorical(rng.choice(["red", "green", "blue"], size=n)),
            "grade": pd.Categorical(rng.choice(["low", "mid", "high"], size=n), categories=["low", "mid", "high"], ordered=True),
            "flag": rng.random(n) < 0.5,
            "x": rng.normal(size=n),
        }
    )
    labels = np.where((frame["colour"] == "red") | (frame["grade"] == "high"), "yes", "no")
    model = TreeClassifier("entropy").fit(frame, labels)
    assert list(model.classes_) == ["no", "yes"]
    assert model.encoder_.kinds == ["nominal", "numeric", "nominal", "numeric"]  # ordinal -> ordered codes
    assert model.score(frame, labels) == 1.0
    assert list(model.feature_names_in_) == ["colour", "grade", "flag", "x"]
    unseen = frame.head(3).assign(colour=pd.Categorical(["purple", "red", None]))
    assert model.predict(unseen).shape == (3,)
    proba = model.predict_proba(frame)
    assert proba.shape == (n, 2) and np.allclose(proba.sum(axis=1), 1)


def test_numpy_nominal_features_by_index():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.integers(0, 4, 200), rng.normal(size=200)])
    y = (X[:, 0] == 2).astype(int)
    multi = TreeClassifier("entropy", nominal_features=[0]).fit(X, y)
    assert multi.tree_.int_nodes[0, 3] == 4  # four branches at the root
    binary = TreeClassifier("entropy", nominal_features=[0], nominal_split="binary").fit(X, y)
    assert binary.tree_.n_leaves == 2 and binary.score(X, y) == 1.0


@pytest.mark.parametrize(
    "kwargs, fit_args, message",
    [
        ({"criterion": "nope"}, None, "unknown criterion 'nope'"),
        ({"criterion": "tsallis", "q": -1}, None, "accepted: q > 0"),
        ({"max_depth": -2}, None, "max_depth=-2 is invalid"),
        ({"min_samples_leaf": 0}, None, "min_samples_leaf=0 is invalid"),
        ({"threshold": "mean"}, None, "accepted: midpoint, observed"),
        ({"nominal_features": [9]}, None, "nominal_features index 9 out of range"),
        ({}, (np.zeros((5, 2)), np.zeros(4)), "y has 4 labels; X has 5 rows"),
        ({}, (np.zeros(5), np.zeros(5)), "X must be 2-dimensional"),
        ({}, (np.zeros((2, 2)), np.array([0.0, np.nan])), "missing labels"),
    ],
)
def test_bad_input_is_a_clear_error(kwargs, fit_args, message):
    X, y = fit_args if fit_args is not None else load_iris(return_X_y=True)
    with pytest.raises(TreebenchError, match=message.replace("(", r"\(")):
        TreeClassifier(**kwargs).fit(X, y)


def test_predict_checks_feature_count_and_fit_state():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(Exception, match="not fitted"):
        TreeClassifier().predict(X)
    model = TreeClassifier().fit(X, y)
    with pytest.raises(TreebenchError, match="X has 3 features, but TreeClassifier is expecting 4"):
        model.predict(X[:, :3])


def test_pendigits_accuracy_matches_sklearn_within_half_a_point():
    folder = mirror()
    path = folder / "pendigits.csv.gz" if folder else None
    if path is None or not path.exists():
        pytest.skip("pendigits not in the dataset mirror (set TREEBENCH_DATA)")
    frame = pd.read_csv(path)
    y = frame.pop("class").to_numpy()
    X = frame.to_numpy(dtype=float)
    cv = StratifiedKFold(10, shuffle=True, random_state=0)
    ours = cross_val_score(TreeClassifier("entropy"), X, y, cv=cv).mean()
    theirs = cross_val_score(DecisionTreeClassifier(criterion="entropy", random_state=0), X, y, cv=cv).mean()
    assert abs(ours - theirs) <= 0.005, (ours, theirs)
    assert ours > 0.95
