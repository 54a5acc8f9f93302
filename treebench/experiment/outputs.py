"""Checks on what a learner returns, where it enters a trial: code treebench does not own.

An estimator given by ``estimator:`` (or any learner) may return one label
for the whole test part, a column ``(n, 1)``, labels it never saw, or
probabilities that are not probabilities.  Scored as they are, the first is
broadcast against the test labels and the second gives an "accuracy" of n;
here each fails the trial with one line naming the estimator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treebench.errors import TreebenchError


class OutputError(TreebenchError):
    """A learner (an estimator, a plugin's tree) returned predictions the trial cannot score."""


def learner_name(algorithm: Any) -> str:
    """``estimator 'path' (algorithm 'name')``, or ``algorithm 'name'``, for messages."""
    if algorithm.estimator:
        return f"estimator {algorithm.estimator!r} (algorithm {algorithm.name!r})"
    return f"algorithm {algorithm.name!r}"


def training_classes(learner: Any, y_train: np.ndarray, masses: np.ndarray | None) -> np.ndarray:
    """The label codes a prediction may take: the training part's (every class, for a
    learner that learns from label masses, which may give weight to a class no crisp label has)."""
    if learner.uses_label_masses and masses is not None:
        return np.arange(np.asarray(masses).shape[1] - 1)
    return np.unique(y_train)


def check_predictions(predicted: Any, n_rows: int, classes: np.ndarray | None, who: str) -> np.ndarray:
    """``predicted`` as an array of ``n_rows`` labels among ``classes``, else :class:`OutputError`.

    Without it one label is broadcast against the test labels and a column
    ``(n, 1)`` compared with them gives an "accuracy" of n.
    """
    accepted = f"accepted: one label per row (shape ({n_rows},)) among the training classes"
    try:
        array = np.asarray(predicted)
    except Exception:  # noqa: BLE001 - a ragged list, an object numpy cannot read
        raise OutputError(f"{who}: predict returned a {type(predicted).__name__} numpy cannot read; {accepted}") from None
    if array.shape != (n_rows,):
        what = "a single value" if array.ndim == 0 else f"shape {array.shape}"
        raise OutputError(f"{who}: predict returned {what} for {n_rows} rows; {accepted}")
    if classes is None:
        return array
    try:
        known = np.isin(array, classes)
    except Exception:  # noqa: BLE001 - values that do not compare with the codes
        known = np.zeros(n_rows, bool)
    if not known.all():
        bad = array[np.flatnonzero(~known)[0]]
        listing = ", ".join(str(int(c)) for c in classes[:20])
        raise OutputError(
            f"{who}: predict returned {bad!r}, not a training class (codes {listing}); {accepted}"
        )
    return array


#: How far a row of probabilities may sum from 1 (float32 models round).
PROBABILITY_TOLERANCE = 1e-6


def check_probabilities(model: Any, X: Any, learner: Any, who: str) -> None:
    """When ``model`` has ``predict_proba``: one row per test row, one column per class, each in [0, 1] summing to 1."""
    if not hasattr(model, "predict_proba"):
        return
    from treebench.learners.sklearn_cart import codes_matrix
    from treebench.learners.sklearn_estimator import one_thread

    n_rows = len(X)
    with one_thread(getattr(learner, "estimator", "")):  # as the learner's own predict
        proba = model.predict_proba(codes_matrix(X))
    classes = getattr(model, "classes_", None)
    width = len(classes) if classes is not None else None
    accepted = "accepted: one row per test row, one column per class, each in [0, 1], each row summing to 1"
    try:
        array = np.asarray(proba, dtype=np.float64)
    except (TypeError, ValueError):
        raise OutputError(f"{who}: predict_proba returned a {type(proba).__name__} of non-numbers; {accepted}") from None
    if array.ndim != 2 or array.shape[0] != n_rows or (width is not None and array.shape[1] != width):
        raise OutputError(
            f"{who}: predict_proba returned shape {array.shape} for {n_rows} rows and "
            f"{width if width is not None else '?'} classes; {accepted}"
        )
    outside = ~((array >= 0.0) & (array <= 1.0))  # NaN included
    if outside.any():
        row, column = np.argwhere(outside)[0]
        raise OutputError(f"{who}: predict_proba returned {array[row, column]} (row {row + 1}); {accepted}")
    sums = array.sum(axis=1)
    off = np.abs(sums - 1.0) > PROBABILITY_TOLERANCE
    if off.any():
        row = int(np.flatnonzero(off)[0])
        raise OutputError(f"{who}: predict_proba's row {row + 1} sums to {sums[row]:.6g}; {accepted}")
