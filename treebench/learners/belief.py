"""The learner of belief-function trees (paper 004) and its pignistic error.

It differs from :class:`~treebench.learners.trees.CriterionLearner` in two
ways: fits receive the examples' label masses (looked up by the rows' index,
so inner-CV folds get theirs too), and each trial also measures the
pignistic error E of eqs. 23-24 against the test examples' label masses.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.learners.trees import CriterionLearner
from treebench.stats.metrics import Metric

PIGNISTIC_ERROR = Metric(
    "pignistic_error", "pignistic error E (paper 004, eq. 23)", False, scale=100.0, decimals=2, unit="%"
)


def pignistic_error(proba: np.ndarray, label_masses: np.ndarray) -> float:
    """``E = mean_i (1 - BetP_i(m_i))`` with ``BetP_i(m_i) = sum_A m_i(A) BetP_i(A)``.

    Parameters
    ----------
    proba:
        ``(n, k)`` pignistic probabilities the classifier outputs (``BetP_i``
        on the singletons).
    label_masses:
        ``(n, k + 1)`` label belief structures of the test examples: masses of
        the ``k`` singletons, then ``m(Omega)``.  ``BetP_i(Omega) = 1``, so an
        example with ``m(Omega) = 1`` adds nothing to the sum (it still counts
        in ``n``, as in eq. 23); for crisp labels E is the mean of
        ``1 - BetP_i(true class)``.
    """
    proba = np.asarray(proba, dtype=float)
    masses = np.asarray(label_masses, dtype=float)
    if proba.ndim != 2 or masses.shape != (proba.shape[0], proba.shape[1] + 1):
        raise TreebenchError(
            f"pignistic_error: label masses must have shape (n, k + 1) = "
            f"({proba.shape[0]}, {proba.shape[1] + 1}) for proba of shape {proba.shape}; got {masses.shape}"
        )
    if len(proba) == 0:
        raise TreebenchError("pignistic_error: no test examples")
    betp_of_label = (masses[:, :-1] * proba).sum(axis=1) + masses[:, -1]
    return float(np.mean(1.0 - betp_of_label))


class BeliefLearner(CriterionLearner):
    """:class:`treebench.trees.belief.BeliefTreeClassifier` with optional label masses.

    With ``labels: crisp`` in the algorithm's params (a ``belief`` criterion
    parameter) the masses are ignored: the tree sees crisp labels only.
    """

    extra_metrics: ClassVar[tuple[Metric, ...]] = (PIGNISTIC_ERROR,)
    uses_label_masses: ClassVar[bool] = True

    def __init__(self, criterion: str, pruning: str | None = None, *, random_state: int = 0) -> None:
        super().__init__(criterion, pruning, random_state=random_state)  # the compiled builder: a grid's fits share one presort
        self.masses: pd.DataFrame | None = None

    def kernel_groups(self) -> tuple[str, ...]:
        return (*super().kernel_groups(), "belief")  # the builder's label-mass specialisation

    def use_label_masses(self, masses: np.ndarray | None, index: pd.Index) -> None:
        self.masses = None if masses is None else pd.DataFrame(masses, index=index)

    def view(self, X: pd.DataFrame) -> pd.DataFrame:
        return X  # keep the row index: it finds each inner fold's label masses

    def fit(self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None) -> Any:
        from treebench.trees.belief import BeliefTreeClassifier

        if params.get("engine") == "python":
            prepared = None
        model = BeliefTreeClassifier(self.criterion, pruning=self.pruning, **self.estimator_params(params))
        masses = None if self.masses is None else self.masses.loc[X.index].to_numpy()
        return model.fit(X, y, label_masses=masses, presorted=prepared)

    def pignistic_proba(self, model: Any, X: pd.DataFrame, n_classes: int) -> np.ndarray:
        """Pignistic probabilities over all ``n_classes`` codes (classes unseen in training: 0)."""
        proba = np.zeros((len(X), n_classes))
        proba[:, np.asarray(model.classes_, dtype=np.int64)] = model.predict_proba(X)
        return proba

    def extra_measures(
        self, model: Any, X_test: pd.DataFrame, test_masses: np.ndarray
    ) -> dict[str, float]:
        proba = self.pignistic_proba(model, X_test, test_masses.shape[1] - 1)
        return {PIGNISTIC_ERROR.name: pignistic_error(proba, test_masses)}
