"""The learner of belief-function trees (paper 004) and its pignistic error.

It differs from :class:`~treebench.learners.trees.CriterionLearner` in two
ways: fits receive the examples' label masses (looked up by the rows' index,
so inner-CV folds get theirs too), and each trial also measures the
pignistic error E of eqs. 23-24 against the test examples' label masses.

With the criterion parameter ``lam_tuning: pignistic-error`` the learner
chooses lambda itself (:meth:`BeliefLearner.fit_final`): an inner stratified
5-fold CV of the training part over :data:`LAM_GRID`, keeping the value of
lowest pooled E on the validation examples' label masses (paper 004, section
4: lambda is chosen by cross-validation, and E is the measure the paper
calls the meaningful one for uncertain labels).  ``pignistic-error-own-labels``
measures E on the labels the tree learns from instead: a ``labels: crisp``
tree then tunes on its one-hot crisp labels and never sees the masses.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.learners.base import take
from treebench.learners.trees import CriterionLearner
from treebench.stats.metrics import Metric

#: The lambda values the learner's own tuning tries (configs/belief.yaml's accuracy-tuned grid, the same values).
LAM_GRID = (0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0)
#: Folds of that inner CV (the paper: 5-fold cross-validation).
LAM_FOLDS = 5
#: Stream id of its fold draw, apart from the trial's own inner splits.
LAM_STREAM = 1040

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

    def fits_per_trial(self, params: dict[str, Any]) -> int | None:
        if params.get("lam_tuning", "config") != "config":
            return LAM_FOLDS * len(LAM_GRID) + 1
        return 1

    def label_masses_of(self, X: pd.DataFrame, y: np.ndarray, params: dict[str, Any] | None = None) -> np.ndarray:
        """The label masses of the rows of ``X`` that E is measured on while tuning.

        One-hot from ``y`` when the run has none, or with ``lam_tuning:
        pignistic-error-own-labels`` and ``labels: crisp`` (a tree that ignores
        the masses measures E on its own crisp labels).
        """
        params = params or {}
        own_crisp = params.get("lam_tuning") == "pignistic-error-own-labels" and params.get("labels") == "crisp"
        if self.masses is None or own_crisp:
            from treebench.data.label_uncertainty import crisp_label_masses

            return crisp_label_masses(y, 2)
        return self.masses.loc[X.index].to_numpy()

    def fit_final(self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, seed: int) -> Any:
        """The trial's tree; with ``lam_tuning`` other than ``config`` at the lambda :meth:`tune_lam` picks."""
        if params.get("lam_tuning", "config") == "config":
            return self.fit(params, X, y)
        lam, _ = self.tune_lam(params, X, y, seed)
        model = self.fit({**params, "lam": lam}, X, y)
        model.tuned_lam_ = lam
        return model

    def chosen(self, model: Any) -> dict[str, Any]:
        lam = getattr(model, "tuned_lam_", None)
        return {} if lam is None else {"lam": lam}

    def tune_lam(self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray,
                 seed: int) -> tuple[float, np.ndarray]:
        """Lambda of lowest pooled pignistic error E over an inner stratified CV of (``X``, ``y``).

        Every inner validation example adds ``1 - BetP(m_i)`` to its grid
        point's sum (eq. 23 pooled over the folds); ties go to the fewest
        leaves summed over the inner fits, then to the first value of
        :data:`LAM_GRID` (the rules of :mod:`treebench.experiment.tuning`).
        Returns the value and each point's E.
        """
        from treebench.sampling import stratified_kfold

        y = np.asarray(y)
        masses = self.label_masses_of(X, y, params)
        folds = stratified_kfold(y, min(LAM_FOLDS, len(y)), np.random.default_rng([seed, LAM_STREAM]))
        lost = np.zeros(len(LAM_GRID))
        leaves = np.zeros(len(LAM_GRID), dtype=np.int64)
        for train, valid in folds:
            X_train, X_valid = take(X, train), take(X, valid)
            prepared = self.prepare(X_train, y[train])
            for i, lam in enumerate(LAM_GRID):
                model = self.fit({**params, "lam": lam}, X_train, y[train], prepared)
                proba = self.pignistic_proba(model, X_valid, masses.shape[1] - 1)
                lost[i] += len(valid) * pignistic_error(proba, masses[valid])
                leaves[i] += self.n_leaves(model)
        errors = lost / len(y)
        # lowest E, then fewest leaves, then the grid's order (exact: E sums compared as rounded floats)
        best = min(range(len(LAM_GRID)), key=lambda i: (round(float(errors[i]), 12), int(leaves[i]), i))
        return float(LAM_GRID[best]), errors

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
