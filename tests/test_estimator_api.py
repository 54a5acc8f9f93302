"""One estimator API across every tree (issue 30, item 4)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris

from treebench.errors import TreebenchError
from treebench.trees.belief import BeliefTreeClassifier
from treebench.trees.c45 import C45Classifier
from treebench.trees.estimator import TreeClassifier
from treebench.trees.mee import MEETreeClassifier
from treebench.trees.online import OnlineTreeClassifier

ESTIMATORS = {
    "tree": lambda: TreeClassifier("gini"),
    "c4.5": lambda: C45Classifier(),
    "mee": lambda: MEETreeClassifier(),
    "online": lambda: OnlineTreeClassifier("possibilistic"),
    "belief": lambda: BeliefTreeClassifier(),
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_the_same_api_on_every_tree(name):
    X, y = load_iris(return_X_y=True, as_frame=True)
    model = ESTIMATORS[name]().fit(X, y)
    assert isinstance(model.get_n_leaves(), int) and model.get_n_leaves() >= 2
    assert isinstance(model.get_depth(), int) and model.get_depth() >= 1
    assert model.n_features_in_ == 4 and list(model.feature_names_in_) == list(X.columns)
    importances = model.feature_importances_
    assert importances.shape == (4,) and (importances >= 0).all() and importances.sum() == pytest.approx(1.0)
    assert importances[2:].sum() > 0.5  # iris is told apart by its petals
    assert list(model.classes_) == [0, 1, 2]
    assert isinstance(model.export_text(), str) and model.export_graphviz().startswith("digraph Tree {")
    proba = model.predict_proba(X)
    assert proba.shape == (150, 3) and np.allclose(proba.sum(axis=1), 1.0)
    assert (model.predict(X) == y).mean() > 0.9
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert clone(model).get_params() == model.get_params()
    with pytest.raises(TreebenchError, match="feature names"):
        model.predict(X[X.columns[::-1]])


@pytest.mark.parametrize("params, message", [
    ({"max_features": 2}, "max_features is not supported"),
    ({"splitter": "random"}, "splitter is not supported"),
    ({"colour": 1}, "accepted: max_depth, .*random_state; and the criterion's min_gain"),
    ({"class_weight": "balanced"}, "class_weight is not supported: give the weights as sample_weight"),
])
def test_parameters_from_scikit_learn_work_or_say_why_not(params, message):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(TreebenchError, match=message):
        TreeClassifier("entropy", **params).fit(X, y)
