"""The pignistic error E of evidential classifiers (paper 004, eqs. 23-24)."""

from __future__ import annotations

import numpy as np

from treebench.errors import TreebenchError


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
