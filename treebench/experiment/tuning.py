"""Grid search by inner stratified cross-validation on the training part only.

Tie-breaking (deterministic, no floating point involved for accuracy):

1. the most correct predictions summed over all inner validation folds
   (integer counts; with equal-size folds this is the best mean accuracy) —
   or, with ``tuning.metric`` another metric of predictions, its value on the
   validation predictions of all inner folds pooled (probabilities too), so that
   a fold missing a class does not count as a score of its own;
2. on a tie, the fewest leaves summed over the inner fits (the simpler tree);
3. on a remaining tie, the grid point that comes first in the config's order
   (the grid's parameters as written, the last one varying fastest; values in
   the order listed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.experiment.outputs import check_predictions
from treebench.learners.base import Learner, take
from treebench.sampling import Split


@dataclass(frozen=True)
class GridScore:
    """Inner-CV totals of one grid point (``value``: the tuning metric when it is not accuracy)."""

    point: dict[str, Any]
    correct: int
    total: int
    leaves: int
    value: float | None = None

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else float("nan")


@dataclass(frozen=True)
class TuningOutcome:
    chosen: dict[str, Any]
    scores: tuple[GridScore, ...] = ()


def best_index(scores: list[GridScore] | tuple[GridScore, ...], higher_is_better: bool = True) -> int:
    """Index of the winning grid point under the documented tie-breaking rule."""
    def key(i: int) -> tuple:
        score = scores[i]
        if score.value is None:
            return (score.correct, -score.leaves, -i)
        value = score.value if np.isfinite(score.value) else -np.inf  # undefined loses
        return ((value if higher_is_better or not np.isfinite(score.value) else -value), -score.leaves, -i)

    return max(range(len(scores)), key=key)


def grid_search(
    learner: Learner,
    fixed: dict[str, Any],
    points: list[dict[str, Any]],
    X: pd.DataFrame | np.ndarray,
    y: np.ndarray,
    inner: list[Split],
    metric: str = "accuracy",
    labels: np.ndarray | None = None,
) -> TuningOutcome:
    """Score every grid point on the ``inner`` splits of (``X``, ``y``) and pick one.

    A single point (no grid) is returned without any fitting.  Each inner
    training part is prepared once (e.g. presorted) and shared by every grid
    point, which is where most of the tuning time would otherwise go.
    ``metric`` other than accuracy is scored on the pooled validation predictions
    over ``labels`` (default: the classes of ``y``).
    """
    if len(points) <= 1:
        return TuningOutcome(chosen=dict(points[0]) if points else {})
    X = learner.view(X) if isinstance(X, pd.DataFrame) else X
    scorer = None
    if metric != "accuracy":
        from treebench.stats.prediction_metrics import get_prediction_metric

        scorer = get_prediction_metric(metric)
        labels = np.unique(y) if labels is None else np.asarray(labels)
    # another metric than accuracy: each point's validation predictions (and probabilities)
    # of every inner fold are pooled, then scored once
    truth: list[np.ndarray] = []
    predicted: list[list[np.ndarray]] = [[] for _ in points]
    proba: list[list[np.ndarray]] = [[] for _ in points]
    correct = np.zeros(len(points), dtype=np.int64)
    leaves = np.zeros(len(points), dtype=np.int64)
    total = 0
    for train, valid in inner:
        X_train, y_train = take(X, train), y[train]
        X_valid, y_valid = take(X, valid), y[valid]
        prepared = learner.prepare(X_train, y_train)
        total += len(valid)
        truth.append(y_valid)
        for i, point in enumerate(points):
            model = learner.fit({**fixed, **point}, X_train, y_train, prepared)
            # a label per row, or one label broadcast against them all would count as many
            guess = check_predictions(learner.predict(model, X_valid), len(valid), None, _who(learner))
            correct[i] += int(np.count_nonzero(guess == y_valid))
            leaves[i] += learner.n_leaves(model)
            if scorer is None:
                continue
            predicted[i].append(guess)
            if scorer.needs_proba:
                full = label_probabilities(learner, model, X_valid, labels)
                if full is None:
                    raise TreebenchError(f"{_who(learner)} gives no class probabilities; tuning.metric {metric} "
                                         "needs them")
                proba[i].append(full)
    if scorer is None:
        scores = tuple(GridScore(dict(p), int(c), total, int(n)) for p, c, n in zip(points, correct, leaves))
        return TuningOutcome(chosen=dict(points[best_index(scores)]), scores=scores)
    from treebench.stats.prediction_metrics import score_predictions

    y_all = np.concatenate(truth)
    values = [score_predictions([metric], y_all, np.concatenate(predicted[i]),
                                np.vstack(proba[i]) if scorer.needs_proba else None, labels)[metric]
              for i in range(len(points))]
    scores = tuple(GridScore(dict(p), int(c), total, int(n), float(v))
                   for p, c, n, v in zip(points, correct, leaves, values))
    return TuningOutcome(chosen=dict(points[best_index(scores, scorer.metric.higher_is_better)]), scores=scores)


def label_probabilities(learner: Learner, model: Any, X: Any, labels: np.ndarray) -> np.ndarray | None:
    """The learner's class probabilities of the rows of ``X``, one column per class of ``labels``
    (a class the training part lacked gets 0); ``None`` for a learner that gives none."""
    given = learner.predict_proba(model, X)
    if given is None:
        return None
    proba, classes = np.asarray(given[0], dtype=np.float64), np.asarray(given[1])
    if proba.shape != (len(X), len(classes)):
        raise TreebenchError(f"{_who(learner)}: predict_proba returned shape {proba.shape} for {len(X)} rows "
                             f"and {len(classes)} classes")
    full = np.zeros((len(X), len(labels)))
    full[:, np.searchsorted(labels, classes)] = proba
    return full


def _who(learner: Learner) -> str:
    """The learner for messages: its estimator's path, else its name."""
    estimator = getattr(learner, "estimator", None)
    return f"estimator {estimator!r}" if isinstance(estimator, str) else f"learner {getattr(learner, 'name', '?')!r}"
