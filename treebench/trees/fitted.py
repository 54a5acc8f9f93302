"""What every estimator holding a fitted :class:`Tree` shares: fit bookkeeping and prediction.

An estimator mixing in :class:`FittedTreeMixin` sets, in ``fit``, ``classes_``
(through :meth:`FittedTreeMixin._fit_labels`), ``encoder_``, ``criterion_``,
``n_features_in_`` and ``feature_names_in_`` (through
:meth:`FittedTreeMixin._fit_inputs`) and ``tree_`` (a
:class:`treebench.trees.structure.Tree`).  Everything after fitting goes
through them: a sample is encoded, routed to its leaf, and the leaf answers.
An estimator whose leaves answer differently (belief trees: pignistic
probabilities of the leaf's belief structure) overrides only the two leaf
hooks, :meth:`FittedTreeMixin._leaf_proba` and
:meth:`FittedTreeMixin._leaf_class_index`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from treebench.errors import TreebenchError


def as_labels(y: Any, n_samples: int) -> np.ndarray:
    """``y`` as a 1-d array of ``n_samples`` labels, or a one-line error.

    Parameters
    ----------
    y:
        Labels: array-like, Series or one-column DataFrame.
    n_samples:
        Rows of the feature matrix the labels belong to.

    Raises
    ------
    TreebenchError
        On a wrong shape or length, no samples, or a missing label.
    """
    labels = y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else np.asarray(y)
    if labels.ndim == 2 and labels.shape[1] == 1:
        labels = labels.ravel()
    if labels.ndim != 1:
        raise TreebenchError(f"y must be 1-dimensional; got shape {labels.shape}")
    if labels.shape[0] != n_samples:
        raise TreebenchError(f"y has {labels.shape[0]} labels; X has {n_samples} rows")
    if n_samples == 0:
        raise TreebenchError("cannot fit on 0 samples")
    if pd.isna(labels).any():
        raise TreebenchError("y contains missing labels (NaN/None)")
    return labels


def label_codes(labels: Any) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct classes and every label's code ``0..k-1`` (int64).

    The codes every builder and presort works on; one definition so that a
    presort made outside an estimator matches the estimator's own codes.
    """
    classes, codes = np.unique(labels, return_inverse=True)
    return classes, codes.astype(np.int64).ravel()


class FittedTreeMixin:
    """Fit bookkeeping, ``apply``/``predict``/``predict_proba``, sizes and ``export_text`` over ``tree_``."""

    # -- fit bookkeeping ------------------------------------------------------------------
    def _fit_labels(self, y: Any, n_samples: int) -> np.ndarray:
        """Check ``y`` (see :func:`as_labels`), set ``classes_`` and return the label codes."""
        self.classes_, codes = label_codes(as_labels(y, n_samples))
        return codes

    def _fit_inputs(self, encoder: Any, criterion: Any) -> None:
        """Remember the feature encoding and criterion; scikit-learn's input attributes.

        ``feature_names_in_`` exists only after a fit on a DataFrame (as in
        scikit-learn), so a refit on a matrix removes a stale one.
        """
        self.encoder_ = encoder
        self.criterion_ = criterion
        self.n_features_in_ = encoder.n_features
        if encoder.from_dataframe:
            self.feature_names_in_ = np.asarray(encoder.names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    # -- prediction ------------------------------------------------------------------------
    def _encode(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "tree_")
        return self.encoder_.transform(X)

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
        """Per reached leaf: the class frequencies of its training samples."""
        return self.tree_.proba_at(leaves)

    def _leaf_class_index(self, leaves: np.ndarray) -> np.ndarray:
        """Per reached leaf: the index in ``classes_`` of its majority class (first on ties)."""
        return self.tree_.class_index_at(leaves)

    # -- size and text -----------------------------------------------------------------------
    def get_n_leaves(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    def get_depth(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.depth

    @property
    def n_leaves_(self) -> int:
        return self.get_n_leaves()

    @property
    def n_nodes_(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.n_nodes

    def export_text(self, **kwargs: Any) -> str:
        check_is_fitted(self, "tree_")
        return self.tree_.export_text(**kwargs)
