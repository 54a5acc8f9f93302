"""What every estimator holding a fitted :class:`Tree` shares: input checks, fit bookkeeping, prediction.

An estimator mixing in :class:`FittedTreeMixin` checks, in ``fit``, ``X``
with :meth:`FittedTreeMixin._check_X` (``reset=True``: scikit-learn's
``validate_data`` records ``n_features_in_`` and, for a DataFrame with string
column names, ``feature_names_in_``), ``y`` with
:meth:`FittedTreeMixin._fit_labels` (sets ``classes_``) and sets
``encoder_``, ``criterion_`` (:meth:`FittedTreeMixin._fit_inputs`) and
``tree_`` (a :class:`treebench.trees.structure.Tree`).  Everything after
fitting goes through them: a sample is checked against the fitted columns
(count, and names in the same order), encoded, routed to its leaf, and the
leaf answers.  An estimator whose leaves answer differently (belief trees:
pignistic probabilities of the leaf's belief structure) overrides only the
two leaf hooks, :meth:`FittedTreeMixin._leaf_proba` and
:meth:`FittedTreeMixin._leaf_class_index`.

scikit-learn is imported only where its checks decide something the usual
case does not need (a 2-d ``y``, weights, an unusual target, columns that
differ from the fitted ones, an unfitted estimator): a trial's fits and
predictions never import it (about 1 s of start-up in every process).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.kernels import layout as L
from treebench.trees.encoding import as_2d_input


def one_line(message: str) -> str:
    """A multi-line scikit-learn message as one line (its ``- name`` lists joined by commas)."""
    text = re.sub(r":\s*\n- ", ": ", message.strip())
    return " ".join(text.replace("\n- ", ", ").split())


def as_labels(y: Any, n_samples: int) -> np.ndarray:
    """``y`` as a 1-d array of ``n_samples`` class labels, or a one-line error.

    A column vector is accepted with scikit-learn's ``DataConversionWarning``.
    Labels must be discrete: a continuous (non-integer float) target is
    refused with scikit-learn's "Unknown label type" message.

    Parameters
    ----------
    y:
        Labels: array-like, Series or one-column DataFrame.
    n_samples:
        Rows of the feature matrix the labels belong to.

    Raises
    ------
    TreebenchError
        On no ``y``, a wrong shape or length, no samples, a missing or
        infinite label, or a continuous target.
    """
    if y is None:
        raise TreebenchError("fit requires y to be passed, but the target y is None; accepted: one label per row of X")
    labels = y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else np.asarray(y)
    if labels.ndim == 2 and labels.shape[1] == 1:
        from sklearn.utils.validation import column_or_1d

        labels = column_or_1d(labels, warn=True)  # warns like scikit-learn
    if labels.ndim != 1:
        raise TreebenchError(f"y must be 1-dimensional (one label per row); got shape {labels.shape}")
    if labels.shape[0] != n_samples:
        raise TreebenchError(f"y has {labels.shape[0]} labels; X has {n_samples} rows")
    if n_samples == 0:
        raise TreebenchError("cannot fit on 0 samples")
    if pd.isna(labels).any():
        raise TreebenchError("y contains missing labels (NaN/None)")
    if labels.dtype.kind == "f" and np.isinf(labels).any():
        raise TreebenchError("y contains infinite labels (inf); accepted: finite class labels")
    if labels.dtype.kind == "c":
        raise TreebenchError("Complex data not supported in y; accepted: class labels")
    _check_discrete(labels)
    return labels


def _check_discrete(labels: np.ndarray) -> None:
    """scikit-learn's refusal of a regression target, as one line.

    Object labels that are not strings (Python ints, bools, mixed) are judged
    by their values, so they stay accepted as before; scikit-learn would call
    them "unknown".
    """
    kind = labels.dtype.kind
    if kind in "iubUS" or (kind == "f" and bool(np.all(labels == np.floor(labels)))):
        return  # discrete by type or by value: scikit-learn's check (0.5 ms a fit) would agree
    judged = labels
    if labels.dtype == object and not isinstance(labels[0], str):
        try:
            judged = np.asarray(labels.tolist())
        except (TypeError, ValueError):
            judged = labels
    from sklearn.utils.multiclass import check_classification_targets

    try:
        check_classification_targets(judged)
    except ValueError as error:
        raise TreebenchError(one_line(str(error)) + " Accepted: class labels (integers, strings, bools)") from None


def label_codes(labels: Any) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct classes and every label's code ``0..k-1`` (int64).

    The codes every builder and presort works on; one definition so that a
    presort made outside an estimator matches the estimator's own codes.
    """
    try:
        classes, codes = np.unique(labels, return_inverse=True)
    except TypeError:
        raise TreebenchError(
            "Unknown label type: y mixes labels that cannot be ordered; accepted: class labels of one type"
        ) from None
    return classes, codes.astype(np.int64).ravel()


def check_sample_weight(sample_weight: Any, X: np.ndarray) -> np.ndarray | None:
    """Validated float64 weights of the rows of ``X`` (scikit-learn's rules), or ``None``.

    ``None`` (no weights) and all-ones weights both return ``None``: unit
    weights grow the unweighted tree, which then runs on integer counts.

    Raises
    ------
    TreebenchError
        On a wrong shape or length, a negative, NaN or infinite weight, or
        weights that are all zero.
    """
    if sample_weight is None:
        return None
    from sklearn.utils.validation import _check_sample_weight

    try:
        weights = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    except (TypeError, ValueError) as error:
        raise TreebenchError(f"sample_weight: {one_line(str(error))}") from None
    return None if (weights == 1.0).all() else weights


def check_fitted(estimator: Any, attribute: str = "tree_") -> None:
    """scikit-learn's ``check_is_fitted(estimator, attribute)``: one ``hasattr`` when fitted.

    An unfitted estimator goes through scikit-learn's own check, which raises
    its ``NotFittedError`` with its message.
    """
    if not hasattr(estimator, attribute):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(estimator, attribute)


def check_columns(estimator: Any, X: pd.DataFrame | np.ndarray, fit: bool) -> None:
    """Record (at fit) or check ``n_features_in_`` and ``feature_names_in_`` as scikit-learn's
    ``validate_data`` does.

    The usual cases are decided here (an array; a frame whose column names
    are all strings, the fitted ones at predict); any other goes through
    ``validate_data``, for its warnings and its errors (as one line).
    """
    names = string_names(X)
    if fit and (names is not None or isinstance(X, np.ndarray)):
        if names is not None:
            estimator.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(estimator, "feature_names_in_"):  # fitted again on data without names
            del estimator.feature_names_in_
        estimator.n_features_in_ = X.shape[1]
        return
    if not fit and X.shape[1] == getattr(estimator, "n_features_in_", None):
        fitted = getattr(estimator, "feature_names_in_", None)
        if (fitted is None and isinstance(X, np.ndarray)) or (
                fitted is not None and names is not None and fitted.tolist() == names):
            return
    from sklearn.utils.validation import validate_data

    try:
        validate_data(estimator, X, reset=fit, skip_check_array=True)
    except (TypeError, ValueError) as error:
        raise TreebenchError(one_line(str(error))) from None


def string_names(X: pd.DataFrame | np.ndarray) -> list[str] | None:
    """A frame's column names when they are all strings (scikit-learn's feature names), else ``None``."""
    if not isinstance(X, pd.DataFrame) or X.shape[1] == 0:
        return None
    names = X.columns.to_numpy(dtype=object).tolist()  # ``tolist`` of string columns goes value by value
    return names if all(type(name) is str for name in names) else None


class FittedTreeMixin:
    """Input checks, fit bookkeeping, ``apply``/``predict``/``predict_proba``,
    ``feature_importances_``, sizes and ``export_text`` over ``tree_``."""

    # -- input checks and fit bookkeeping ---------------------------------------------------
    def _check_X(self, X: Any, *, reset: bool) -> pd.DataFrame | np.ndarray:
        """``X`` as a DataFrame or 2-d array, checked against the fitted columns.

        scikit-learn's ``validate_data`` (without its array conversion, which
        would lose nominal and categorical columns) records, on ``reset``,
        ``n_features_in_`` and ``feature_names_in_``; otherwise it refuses a
        different number of columns, or a DataFrame whose column names differ
        from the fitted ones or come in another order.
        """
        X = as_2d_input(X)
        check_columns(self, X, reset)
        return X

    def _fit_labels(self, y: Any, n_samples: int) -> np.ndarray:
        """Check ``y`` (see :func:`as_labels`), set ``classes_`` and return the label codes."""
        self.classes_, codes = label_codes(as_labels(y, n_samples))
        return codes

    def _fit_inputs(self, encoder: Any, criterion: Any) -> None:
        """Remember the feature encoding and the criterion."""
        self.encoder_ = encoder
        self.criterion_ = criterion

    # -- prediction ------------------------------------------------------------------------
    def _encode(self, X: Any) -> np.ndarray:
        check_fitted(self)
        return self.encoder_.transform(self._check_X(X, reset=False))

    def apply(self, X: Any) -> np.ndarray:
        """Leaf id reached by every sample."""
        encoded = self._encode(X)  # first: an unfitted estimator raises NotFittedError
        return self.tree_.apply(encoded)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of the leaf each sample reaches (see :meth:`_leaf_proba`)."""
        return self._leaf_proba(self.apply(X))

    def predict(self, X: Any) -> np.ndarray:
        """Class the reached leaf predicts (see :meth:`_leaf_class_index`)."""
        leaves = self.apply(X)  # before reading classes_: checks the fit state
        return self.classes_[self._leaf_class_index(leaves)]

    def _leaf_proba(self, leaves: np.ndarray) -> np.ndarray:
        """Per reached leaf: the (weighted) class frequencies of its training samples."""
        return self.tree_.proba_at(leaves)

    def _leaf_class_index(self, leaves: np.ndarray) -> np.ndarray:
        """Per reached leaf: the index in ``classes_`` of its majority class (first on ties)."""
        return self.tree_.class_index_at(leaves)

    # -- importances -----------------------------------------------------------------------
    @property
    def feature_importances_(self) -> np.ndarray:
        """Normalised total decrease of the criterion's node value brought by each feature.

        As scikit-learn's (mean decrease in impurity): every split node ``t``
        adds ``w_t v(t) - sum_c w_c v(c)`` to its feature, where ``w`` is the
        (weighted) number of training samples of a node and ``v`` the
        criterion's :meth:`~treebench.criteria.Criterion.node_value` of its
        class counts, negated for a purity (certainty); the totals are divided
        by their sum (all zeros for a single leaf).  A criterion scored as a
        whole split, with no node value (``importance_from_split_score``:
        Hellinger distance), adds ``w_t`` times its split's score instead.  What ``v`` is for each
        criterion is listed in ``docs/criteria.md`` ("Estimators").
        """
        check_fitted(self)
        tree = self.tree_
        criterion = self.criterion_
        sign = -1.0 if criterion.node_value_is_purity else 1.0
        counts = np.asarray(tree.counts, dtype=np.float64)
        weights = counts.sum(axis=1)
        splits = np.flatnonzero(~tree.is_leaf)
        if criterion.importance_from_split_score:
            # no node value to decrease (every node's is 0): each split adds its size times its score
            decreases = weights[splits] * tree.float_nodes[splits, L.SCORE]
        else:
            values = np.array([sign * criterion.node_value(row) if w > 0 else 0.0 for row, w in zip(counts, weights)])
            decreases = np.empty(len(splits))
            for i, node in enumerate(splits):
                children = np.asarray(tree.children(node))
                decreases[i] = weights[node] * values[node] - float(np.dot(weights[children], values[children]))
        importances = np.zeros(self.n_features_in_)
        np.add.at(importances, tree.int_nodes[splits, L.FEATURE], decreases)  # in node order, as before
        total = importances.sum()
        return importances / total if total > 0 else importances

    # -- size and text -----------------------------------------------------------------------
    def get_n_leaves(self) -> int:
        check_fitted(self)
        return self.tree_.n_leaves

    def get_depth(self) -> int:
        check_fitted(self)
        return self.tree_.depth

    @property
    def n_leaves_(self) -> int:
        return self.get_n_leaves()

    @property
    def n_nodes_(self) -> int:
        check_fitted(self)
        return self.tree_.n_nodes

    def export_text(self, **kwargs: Any) -> str:
        check_fitted(self)
        return self.tree_.export_text(**kwargs)

    def export_graphviz(self, max_depth: int | None = None) -> str:
        """The tree as Graphviz DOT text (``dot -Tpng``), as scikit-learn's ``export_graphviz``
        draws its trees: each node's test, criterion value, samples, class counts and class."""
        from treebench.trees.view import to_dot, view_of

        check_fitted(self)
        return to_dot(view_of(self), max_depth=max_depth)
