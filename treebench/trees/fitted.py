"""Prediction and size accessors shared by every estimator that holds a fitted :class:`Tree`.

An estimator mixing this in sets ``tree_`` (a :class:`treebench.trees.structure.Tree`),
``encoder_`` (the :class:`treebench.trees.encoding.FeatureEncoder` fitted on ``X``)
and ``classes_`` in ``fit``; everything after fitting goes through them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted


class FittedTreeMixin:
    """``apply``/``predict``/``predict_proba``, sizes and ``export_text`` over ``tree_``."""

    def _encode(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "tree_")
        return self.encoder_.transform(X)

    def apply(self, X: Any) -> np.ndarray:
        """Leaf id reached by every sample."""
        return self.tree_.apply(self._encode(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class frequencies of the training samples in the reached leaf."""
        return self.tree_.predict_proba(self._encode(X))

    def predict(self, X: Any) -> np.ndarray:
        """Majority class of the reached leaf (first class in ``classes_`` on ties)."""
        encoded = self._encode(X)  # checks the fit state first
        return self.classes_[self.tree_.predict_index(encoded)]

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
