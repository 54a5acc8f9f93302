"""Grid search by inner stratified cross-validation on the training part only.

Tie-breaking (deterministic, no floating point involved for accuracy):

1. the most correct predictions summed over all inner validation folds
   (integer counts; with equal-size folds this is the best mean accuracy) —
   or, with ``tuning.metric`` another metric of predictions, its value on the
   validation predictions of all inner folds pooled (probabilities too), so that
   a fold missing a class does not count as a score of its own;
2. among equal scores, ``tuning.ties`` decides (:data:`TIE_RULES`); the default,
   ``fewest-leaves``, takes the fewest leaves summed over the inner fits (the
   simpler tree), then
3. on a remaining tie, the grid point that comes first in the config's order
   (the grid's parameters as written, the last one varying fastest; values in
   the order listed).

The other rules look at the parameter values only: ``first`` (the config's
order), ``smallest`` / ``largest`` (the values compared as tuples in the grid's
parameter order) and ``middle`` (the median of the tied points in that order,
the lower one of two).  Neither paper that tunes a grid says which it used.

:func:`test_split_search` is the diagnostic of issue 38: the grid point chosen by
its accuracy on the outer *test* split, an optimistic bound, never a default.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.experiment.outputs import check_predictions
from treebench.experiment.specs import TIE_RULES
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


def best_index(scores: list[GridScore] | tuple[GridScore, ...], higher_is_better: bool = True,
               ties: str = "fewest-leaves") -> int:
    """Index of the winning grid point under the documented tie-breaking rule ``ties``."""
    def score_key(i: int) -> tuple:
        score = scores[i]
        if score.value is None:
            return (score.correct,)
        value = score.value if np.isfinite(score.value) else -np.inf  # undefined loses
        return (value if higher_is_better or not np.isfinite(score.value) else -value,)

    if ties == "fewest-leaves":
        return max(range(len(scores)), key=lambda i: (*score_key(i), -scores[i].leaves, -i))
    if ties not in TIE_RULES:
        raise TreebenchError(f"unknown tuning ties {ties!r}; accepted: {', '.join(TIE_RULES)}")
    best = max(score_key(i) for i in range(len(scores)))
    tied = [i for i in range(len(scores)) if score_key(i) == best]  # in the config's order
    if ties == "first":
        return tied[0]
    by_value = sorted(tied, key=lambda i: (_value_key(scores[i].point), i))
    if ties == "smallest":
        return by_value[0]
    if ties == "largest":
        return by_value[-1]
    return by_value[(len(by_value) - 1) // 2]  # middle: the lower median of an even count


def _value_key(point: dict[str, Any]) -> tuple:
    """A grid point's values in its parameters' order, numbers by size (then any other values as text)."""
    return tuple((0, float(v), "") if isinstance(v, (int, float)) else (1, 0.0, str(v)) for v in point.values())


def grid_search(
    learner: Learner,
    fixed: dict[str, Any],
    points: list[dict[str, Any]],
    X: pd.DataFrame | np.ndarray,
    y: np.ndarray,
    inner: list[Split],
    metric: str = "accuracy",
    labels: np.ndarray | None = None,
    ties: str = "fewest-leaves",
) -> TuningOutcome:
    """Score every grid point on the ``inner`` splits of (``X``, ``y``) and pick one (``ties``: the rule
    among equal scores, :data:`TIE_RULES`).

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
        return TuningOutcome(chosen=dict(points[best_index(scores, ties=ties)]), scores=scores)
    from treebench.stats.prediction_metrics import score_predictions

    y_all = np.concatenate(truth)
    values = [score_predictions([metric], y_all, np.concatenate(predicted[i]),
                                np.vstack(proba[i]) if scorer.needs_proba else None, labels)[metric]
              for i in range(len(points))]
    scores = tuple(GridScore(dict(p), int(c), total, int(n), float(v))
                   for p, c, n, v in zip(points, correct, leaves, values))
    return TuningOutcome(chosen=dict(points[best_index(scores, scorer.metric.higher_is_better, ties)]),
                         scores=scores)


def test_split_search(
    learner: Learner,
    fixed: dict[str, Any],
    points: list[dict[str, Any]],
    X_train: pd.DataFrame | np.ndarray,
    y_train: np.ndarray,
    X_test: pd.DataFrame | np.ndarray,
    y_test: np.ndarray,
    seed: int,
    metric: str = "accuracy",
    labels: np.ndarray | None = None,
    ties: str = "fewest-leaves",
) -> tuple[TuningOutcome, Any]:
    """The grid point whose final tree scores best on the outer *test* split, and that tree (``None``
    when it was grown on the shared view: the caller grows the same tree with ``fit_final``).

    A diagnostic, never a default (issue 38): every point's final tree is grown on
    the whole training part exactly as a trial grows it (``fit_final`` with the
    trial's ``seed``; a learner whose final fit is its plain fit shares one
    ``prepare`` of the training part between the points) and scored on the test
    rows, so the chosen tree's accuracy is the best of the grid on that split: an
    optimistic bound on what tuning can reach, since the test rows choose the
    parameter they are then scored on.  Ties are broken like
    :func:`grid_search`'s (``ties``, leaves of the one fit).
    """
    scorer = None
    if metric != "accuracy":
        from treebench.stats.prediction_metrics import get_prediction_metric, score_predictions

        scorer = get_prediction_metric(metric)
        labels = np.unique(y_train) if labels is None else np.asarray(labels)
    # a learner whose final fit is its plain fit (batch trees) shares one presort of the training part
    # between the grid's trees, as grid_search does: the same trees, without 90 sorts for paper 002's q
    shared = type(learner).fit_final is Learner.fit_final
    if shared:
        X_train = learner.view(X_train) if isinstance(X_train, pd.DataFrame) else X_train
        X_test = learner.view(X_test) if isinstance(X_test, pd.DataFrame) else X_test
        prepared = learner.prepare(X_train, y_train)
    models, scores = [], []
    for point in points:
        if shared:
            model = learner.fit({**fixed, **point}, X_train, y_train, prepared)
        else:
            learner.will_predict(X_test, X_train)  # an external program predicts in the same call
            model = learner.fit_final({**fixed, **point}, X_train, y_train, seed)
        guess = check_predictions(learner.predict(model, X_test), len(y_test), None, _who(learner))
        correct, leaves = int(np.count_nonzero(guess == y_test)), int(learner.n_leaves(model))
        value = None
        if scorer is not None:
            proba = label_probabilities(learner, model, X_test, labels) if scorer.needs_proba else None
            if scorer.needs_proba and proba is None:
                raise TreebenchError(f"{_who(learner)} gives no class probabilities; tuning.metric {metric} "
                                     "needs them")
            value = float(score_predictions([metric], y_test, guess, proba, labels)[metric])
        models.append(model)
        scores.append(GridScore(dict(point), correct, len(y_test), leaves, value))
    best = best_index(scores, True if scorer is None else scorer.metric.higher_is_better, ties)
    # a tree grown on the shared view is predicted on views only: the trial grows its own (the same tree)
    return TuningOutcome(chosen=dict(points[best]), scores=tuple(scores)), None if shared else models[best]


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
