"""Grid search by inner stratified cross-validation on the training part only.

Tie-breaking (deterministic, no floating point involved):

1. the most correct predictions summed over all inner validation folds
   (integer counts; with equal-size folds this is the best mean accuracy);
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

from treebench.experiment.outputs import check_predictions
from treebench.learners.base import Learner, take
from treebench.sampling import Split


@dataclass(frozen=True)
class GridScore:
    """Inner-CV totals of one grid point."""

    point: dict[str, Any]
    correct: int
    total: int
    leaves: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else float("nan")


@dataclass(frozen=True)
class TuningOutcome:
    chosen: dict[str, Any]
    scores: tuple[GridScore, ...] = ()


def best_index(scores: list[GridScore] | tuple[GridScore, ...]) -> int:
    """Index of the winning grid point under the documented tie-breaking rule."""
    return max(range(len(scores)), key=lambda i: (scores[i].correct, -scores[i].leaves, -i))


def grid_search(
    learner: Learner,
    fixed: dict[str, Any],
    points: list[dict[str, Any]],
    X: pd.DataFrame | np.ndarray,
    y: np.ndarray,
    inner: list[Split],
) -> TuningOutcome:
    """Score every grid point on the ``inner`` splits of (``X``, ``y``) and pick one.

    A single point (no grid) is returned without any fitting.  Each inner
    training part is prepared once (e.g. presorted) and shared by every grid
    point, which is where most of the tuning time would otherwise go.
    """
    if len(points) <= 1:
        return TuningOutcome(chosen=dict(points[0]) if points else {})
    X = learner.view(X) if isinstance(X, pd.DataFrame) else X
    correct = np.zeros(len(points), dtype=np.int64)
    leaves = np.zeros(len(points), dtype=np.int64)
    total = 0
    for train, valid in inner:
        X_train, y_train = take(X, train), y[train]
        X_valid, y_valid = take(X, valid), y[valid]
        prepared = learner.prepare(X_train, y_train)
        total += len(valid)
        for i, point in enumerate(points):
            model = learner.fit({**fixed, **point}, X_train, y_train, prepared)
            # a label per row, or one label broadcast against them all would count as many
            predicted = check_predictions(learner.predict(model, X_valid), len(valid), None, _who(learner))
            correct[i] += int(np.count_nonzero(predicted == y_valid))
            leaves[i] += learner.n_leaves(model)
    scores = tuple(
        GridScore(dict(p), int(c), total, int(n)) for p, c, n in zip(points, correct, leaves)
    )
    return TuningOutcome(chosen=dict(points[best_index(scores)]), scores=scores)


def _who(learner: Learner) -> str:
    """The learner for messages: its estimator's path, else its name."""
    estimator = getattr(learner, "estimator", None)
    return f"estimator {estimator!r}" if isinstance(estimator, str) else f"learner {getattr(learner, 'name', '?')!r}"
