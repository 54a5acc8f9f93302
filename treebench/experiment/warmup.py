"""Warm a worker: import the trial code and load the compiled kernels once.

Imported by the local process pool's fork server (``set_forkserver_preload``),
so every worker forked from it starts with numba's kernels already loaded from
their on-disk cache instead of paying for that on its first trial.  Importing
this module has that side effect on purpose; nothing else imports it.
"""

from __future__ import annotations

import numpy as np

import treebench.experiment.trial  # noqa: F401 - the worker's code, imported once


def warm() -> None:
    """Fit and apply one tiny tree (loads the induction and traversal kernels)."""
    from treebench.trees.estimator import TreeClassifier

    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    TreeClassifier("entropy").fit(X, y).predict(X)


try:
    warm()
except Exception:  # pragma: no cover - warming is an optimisation, never a failure
    pass
