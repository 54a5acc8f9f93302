"""The learner of belief-function trees (paper 004) in experiments.

It differs from :class:`~treebench.experiment.learners.CriterionLearner` in
two ways: fits receive the examples' label masses (looked up by the rows'
index, so inner-CV folds get theirs too), and the trial reads pignistic
probabilities to compute the pignistic error E.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from treebench.experiment.learners import CriterionLearner


class BeliefLearner(CriterionLearner):
    """:class:`treebench.trees.belief.BeliefTreeClassifier` with optional label masses.

    With ``labels: crisp`` in the algorithm's params (a ``belief`` criterion
    parameter) the masses are ignored: the tree sees crisp labels only.
    """

    def __init__(self, criterion: str, pruning: str | None = None) -> None:
        super().__init__(criterion, pruning)
        self.uses_presort = False
        self.masses: pd.DataFrame | None = None

    def use_label_masses(self, masses: np.ndarray | None, index: pd.Index) -> None:
        """The dataset's label masses (``None``: crisp labels), rows labelled by ``index``."""
        self.masses = None if masses is None else pd.DataFrame(masses, index=index)

    def view(self, X: pd.DataFrame) -> pd.DataFrame:
        return X  # keep the row index: it finds each inner fold's label masses

    def prepare(self, X: pd.DataFrame, y: np.ndarray) -> Any:
        return None

    def fit(self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None) -> Any:
        from treebench.trees.belief import BeliefTreeClassifier

        model = BeliefTreeClassifier(self.criterion, pruning=self.pruning, **params)
        masses = None if self.masses is None else self.masses.loc[X.index].to_numpy()
        return model.fit(X, y, label_masses=masses)

    def pignistic_proba(self, model: Any, X: pd.DataFrame, n_classes: int) -> np.ndarray:
        """Pignistic probabilities over all ``n_classes`` codes (classes unseen in training: 0)."""
        proba = np.zeros((len(X), n_classes))
        proba[:, np.asarray(model.classes_, dtype=np.int64)] = model.predict_proba(X)
        return proba
