"""What a trial fits: a treebench tree with a registered criterion, or a baseline.

A :class:`Learner` hides the differences between the two kinds of algorithm
behind four calls -- ``prepare`` (work shared by every fit on one training
matrix, e.g. the presort), ``fit``, ``predict`` and ``measures`` -- so that
tuning and trials treat them alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError

#: Tree-growing parameters a criterion algorithm accepts besides the
#: criterion's own (see :class:`treebench.trees.builder.GrowSettings`).
TREE_PARAMS: dict[str, str] = {
    "max_depth": "null or an integer >= 0",
    "min_samples_split": "an integer >= 2",
    "min_samples_leaf": "an integer >= 1",
    "threshold": "midpoint, observed",
    "nominal_split": "multiway, binary",
    "engine": "auto, numba, python",
    "confidence": "0 < confidence <= 0.5; with pruning: pessimistic",
    "subtree_raising": "true or false; with pruning: pessimistic",
    "ccp_alpha": "a number >= 0; with pruning: cost-complexity",
}
#: Which pruning each pruning parameter belongs to.
PRUNING_PARAMS = {
    "confidence": "pessimistic",
    "subtree_raising": "pessimistic",
    "ccp_alpha": "cost-complexity",
}


#: Accepted values of the tree's text parameters (as in treebench.trees.builder).
_CHOICES = {
    "threshold": ("midpoint", "observed"),
    "nominal_split": ("multiway", "binary"),
    "engine": ("auto", "numba", "python"),
}
_MINIMUM = {"max_depth": 0, "min_samples_split": 2, "min_samples_leaf": 1}


def validate_tree_param(name: str, value: Any) -> Any:
    """Check one tree parameter; returns the value or raises a one-line error.

    The rules are :class:`treebench.trees.builder.GrowSettings`' (which checks
    them again at fit time); they are restated here because importing
    :mod:`treebench.trees` pulls in scikit-learn, seconds that validating a
    config -- and an all-skipped rerun -- should not pay.
    """
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise TreebenchError(
                f"{name}={value!r} is invalid; accepted: {', '.join(_CHOICES[name])}"
            )
        return value
    if name in _MINIMUM:
        if name == "max_depth" and value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < _MINIMUM[name]:
            raise TreebenchError(f"{name}={value!r} is invalid; accepted: {TREE_PARAMS[name]}")
        return value
    if name == "subtree_raising":
        if not isinstance(value, bool):
            raise TreebenchError(f"subtree_raising={value!r} is invalid; accepted: true or false")
        return value
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "confidence" and not (number and 0 < value <= 0.5):
        raise TreebenchError(
            f"confidence={value!r} is out of range; accepted: 0 < confidence <= 0.5"
        )
    if name == "ccp_alpha" and not (number and value >= 0):
        raise TreebenchError(f"ccp_alpha={value!r} is invalid; accepted: a number >= 0")
    return float(value)


def criterion_params(criterion: str) -> dict[str, Any]:
    """Declared parameters of a registered criterion: name -> :class:`~treebench.criteria.Param`."""
    from treebench.criteria import criterion_class

    return {p.name: p for p in criterion_class(criterion).all_params()}


def take(X: pd.DataFrame | np.ndarray, rows: np.ndarray) -> pd.DataFrame | np.ndarray:
    """Rows of a frame or of a matrix."""
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]


class Learner:
    """Interface used by tuning and trials."""

    def view(self, X: pd.DataFrame) -> pd.DataFrame | np.ndarray:
        """The form of ``X`` that the many fits of a tuning grid use (default: ``X``)."""
        return X

    def prepare(self, X: pd.DataFrame, y: np.ndarray) -> Any:
        """Work shared by every fit on exactly this training data (default: none)."""
        return None

    def fit(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None
    ) -> Any:
        raise NotImplementedError

    def fit_final(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, seed: int
    ) -> Any:
        """The trial's model, once the grid values are chosen (default: :meth:`fit`)."""
        return self.fit(params, X, y)

    def will_predict(self, *frames: pd.DataFrame) -> None:
        """The frames the trial will predict after :meth:`fit_final` (default: ignored).

        A learner that runs an external program (``weka-j48``) predicts them in
        the same call as the fit instead of starting the program again.
        """

    def chosen(self, model: Any) -> dict[str, Any]:
        """Parameter values the learner tuned itself during the fit (default: none)."""
        return {}

    def predict(self, model: Any, X: pd.DataFrame) -> np.ndarray:
        return model.predict(X)

    def n_leaves(self, model: Any) -> int:
        return int(self.measures(model)["n_leaves"])

    def measures(self, model: Any) -> dict[str, Any]:
        """``n_leaves``, ``n_nodes``, ``depth`` and ``tree_quality`` (``None`` if undefined)."""
        raise NotImplementedError


class TreeMeasures:
    """Sizes and quality read off a fitted treebench estimator (``tree_`` and ``tree_quality()``)."""

    def n_leaves(self, model: Any) -> int:
        return int(model.tree_.n_leaves)

    def measures(self, model: Any) -> dict[str, Any]:
        tree = model.tree_
        return {
            "n_leaves": int(tree.n_leaves),
            "n_nodes": int(tree.n_nodes),
            "depth": int(tree.depth),
            "tree_quality": model.tree_quality(),
        }


class CriterionLearner(TreeMeasures, Learner):
    """A :class:`treebench.TreeClassifier` grown with one registered criterion, optionally pruned."""

    def __init__(self, criterion: str, pruning: str | None = None) -> None:
        from treebench.criteria import criterion_class

        self.criterion = criterion
        self.pruning = pruning
        # Only the compiled kernels use a presort; the generic numpy search ignores it.
        self.uses_presort = criterion_class(criterion).kernel_id >= 0

    def view(self, X: pd.DataFrame) -> pd.DataFrame | np.ndarray:
        """An all-numeric frame as its float64 matrix, else the frame itself.

        The estimator encodes a numeric column to exactly these floats, so the
        trees are the same; a matrix just skips pandas' per-call overhead,
        which is more than half of a small fit.  Frames with nominal or ordinal
        (categorical) columns stay frames: their encoding depends on the
        declared categories.
        """
        if all(pd.api.types.is_float_dtype(t) for t in X.dtypes):
            return X.to_numpy(dtype=np.float64)
        return X

    def prepare(self, X: pd.DataFrame, y: np.ndarray) -> Any:
        if not self.uses_presort:
            return None
        from treebench.trees.builder import Presorted
        from treebench.trees.encoding import FeatureEncoder

        # The same encoding and label codes as TreeClassifier.fit computes, so
        # every fit of a grid can share one sort of this training matrix.
        _, matrix = FeatureEncoder.fit(X)
        codes = np.unique(y, return_inverse=True)[1].astype(np.int64).ravel()
        return Presorted.from_matrix(matrix, codes)

    def fit(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None
    ) -> Any:
        from treebench.trees.estimator import TreeClassifier

        if params.get("engine") == "python":
            prepared = None
        model = TreeClassifier(self.criterion, pruning=self.pruning, **params)
        return model.fit(X, y, presorted=prepared)


class OnlineLearner(CriterionLearner):
    """O-ΠTree (paper 000, §4.2): the trial's tree is grown one example at a time.

    Tuning uses batch trees of the same criterion (an online tree per grid
    point and inner fold would cost one split search per example; the paper
    tunes γ "as in the previous algorithm", once, up front).  The final tree
    sees the training part in a permutation seeded by the trial.
    """

    def fit_final(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, seed: int
    ) -> Any:
        from treebench.trees.online import OnlineTreeClassifier

        params = {key: value for key, value in params.items() if key != "engine"}
        return OnlineTreeClassifier(self.criterion, random_state=seed, **params).fit(X, y)


class MEELearner(TreeMeasures, Learner):
    """The minimum entropy-of-error tree (paper 001), which has its own builder.

    Config ``params`` are the ``mee`` criterion's parameters plus
    ``max_depth`` and ``threshold``; other tree parameters are refused.
    """

    def __init__(self, criterion: str = "mee") -> None:
        from treebench.criteria import criterion_class

        cls = criterion_class(criterion)
        self.criterion = criterion
        self.accepted = (*(p.name for p in cls.all_params()), *cls.tree_params)

    def view(self, X: pd.DataFrame) -> pd.DataFrame | np.ndarray:
        from treebench.trees.mee import as_frame_or_matrix

        return as_frame_or_matrix(X)

    def fit(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None
    ) -> Any:
        from treebench.trees.mee import MEETreeClassifier

        unknown = sorted(set(params) - set(self.accepted))
        if unknown:
            raise TreebenchError(
                f"criterion {self.criterion!r} has no parameter {unknown[0]!r}; accepted: {', '.join(self.accepted)}"
            )
        values = dict(params)
        if values.get("max_merged") == 0:
            values["max_merged"] = None  # the criterion's 0 spells floor(c/2)
        return MEETreeClassifier(**values).fit(X, y)
