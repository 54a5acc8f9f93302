"""Belief-function trees (paper 004): leaves keep belief structures, predictions are pignistic."""

from __future__ import annotations

from typing import Any

import numpy as np

from treebench.criteria.belief import crisp_masses, pignistic
from treebench.errors import TreebenchError
from treebench.trees.estimator import TreeClassifier
from treebench.trees.fitted import check_fitted


def check_label_masses(label_masses: Any, n_samples: int, n_classes: int) -> np.ndarray:
    """Validate per-example label masses: shape ``(n, k + 1)``, non-negative, rows summing to 1."""
    masses = np.asarray(label_masses, dtype=float)
    if masses.shape != (n_samples, n_classes + 1):
        raise TreebenchError(
            f"label masses must have shape (n_samples, n_classes + 1) = ({n_samples}, {n_classes + 1}); "
            f"got {masses.shape}"
        )
    if not np.isfinite(masses).all() or (masses < 0).any() or not np.allclose(masses.sum(axis=1), 1.0, atol=1e-9):
        raise TreebenchError("label masses must be finite, non-negative and sum to 1 in every row")
    return masses


class BeliefTreeClassifier(TreeClassifier):
    """A tree grown with the ``belief`` criterion that can learn from uncertain labels.

    ``fit(X, y, label_masses=...)`` takes, besides the crisp labels ``y``
    (which order the classes and drive the usual purity stop), the label
    belief structures of the examples: columns ``m(classes_[0])``,
    ``m(classes_[1])``, ``m(Omega)`` (two classes).  Without them the labels are
    crisp and any number of classes works; the criterion parameter
    ``labels="crisp"`` ignores given masses (the paper's "crisp labels" arm).  Every leaf keeps the belief
    structure of its training examples (eq. 22, or eqs. 15-16 when crisp);
    :meth:`predict_proba` returns its pignistic probabilities.
    """

    def __init__(self, criterion: Any = "belief", **params: Any) -> None:
        super().__init__(criterion, **params)

    def fit(
        self, X: Any, y: Any, label_masses: Any = None, sample_weight: Any = None, **kwargs: Any
    ) -> BeliefTreeClassifier:
        """Grow the tree on crisp labels ``y``, or on their belief structures ``label_masses``.

        ``sample_weight`` weighs the crisp class counts (see
        :meth:`TreeClassifier.fit`; as frequencies, since ``m(Omega) =
        1/(n + 1)`` depends on their size); it cannot be combined with
        ``label_masses``.
        """
        if getattr(self._make_criterion(), "labels", "masses") == "crisp":
            label_masses = None  # uncertainty ignored: the crisp labels only
        if label_masses is not None:
            n_classes = len(np.unique(np.asarray(y)))
            if n_classes != 2:
                raise TreebenchError(
                    f"uncertain labels need exactly two classes; the training labels have {n_classes}"
                )
            masses = check_label_masses(label_masses, len(np.asarray(y)), 2)
            kwargs["sample_data"] = masses  # scored by the compiled builder (eq. 22 sweeps)
        super().fit(X, y, sample_weight=sample_weight, **kwargs)
        self.leaf_masses_ = np.zeros((self.tree_.n_nodes, len(self.classes_) + 1))
        self.leaf_masses_[:, -1] = 1.0  # unreached nodes: vacuous
        if label_masses is None:
            self.leaf_masses_[:] = crisp_masses(self.tree_.counts)
        else:
            from treebench.kernels.belief import node_masses

            leaves = self.apply(X)
            for leaf in np.unique(leaves):
                self.leaf_masses_[leaf] = node_masses(masses[leaves == leaf])
        return self

    def predict_masses(self, X: Any) -> np.ndarray:
        """Belief structure (singletons, then Omega) of the leaf each sample reaches."""
        check_fitted(self, "leaf_masses_")
        return self.leaf_masses_[self.apply(X)]

    # predict_proba and predict come from FittedTreeMixin; only the leaves answer differently
    def _leaf_proba(self, leaves: np.ndarray) -> np.ndarray:
        """Pignistic probabilities ``m({w_j}) + m(Omega)/k`` of each reached leaf."""
        check_fitted(self, "leaf_masses_")
        return pignistic(self.leaf_masses_[leaves])

    def _leaf_class_index(self, leaves: np.ndarray) -> np.ndarray:
        """Class of largest pignistic probability (first class on ties)."""
        return np.argmax(self._leaf_proba(leaves), axis=1)
