"""Metrics computed from a trial's test predictions (and class probabilities), via ``sklearn.metrics``.

Accuracy, sizes and times are measured by every trial; these are asked for in a config's
``metrics:`` (and may drive tuning, ``tuning.metric``).  Each is scored on the trial's test part
with the dataset's classes as the label set (``labels``), so that a fold missing a class scores
on the same scale as the others:

* ``balanced_accuracy`` — mean recall over the classes present in the test part;
* ``f1_macro`` — unweighted mean of the per-class F1 over ``labels`` (0 for a class neither
  predicted nor present, ``zero_division=0``);
* ``kappa`` — Cohen's kappa of predictions against the truth (undefined, NaN, when both are one
  constant class);
* ``log_loss`` — mean negative log-likelihood of the true class, probabilities over ``labels``;
* ``roc_auc_ovr`` — one-vs-rest ROC AUC averaged over the classes present in the test part
  (a class absent from the test part has no AUC), two classes: the usual binary AUC;
* ``brier`` — mean over cases of the squared distance between the probability vector and the
  one-hot truth (Brier's original multi-class score: 0 is perfect, 2 the worst).

The last three need probabilities (:attr:`PredictionMetric.needs_proba`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from treebench.errors import TreebenchError, one_of
from treebench.stats.metrics import Metric


@dataclass(frozen=True)
class PredictionMetric:
    """A metric of predictions: how it is shown (``metric``), whether it needs probabilities, its scorer."""

    metric: Metric
    needs_proba: bool
    score: Callable[[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray], float]

    @property
    def name(self) -> str:
        return self.metric.name


def _quiet(function: Callable[..., float]) -> Callable[..., float]:
    """sklearn warns about ill-defined values (a class never predicted); the docstring says what is done."""
    def wrapped(*args: Any) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(function(*args))
    return wrapped


def _balanced_accuracy(y_true, y_pred, proba, labels) -> float:  # noqa: ANN001
    from sklearn.metrics import balanced_accuracy_score

    return balanced_accuracy_score(y_true, y_pred)


def _f1_macro(y_true, y_pred, proba, labels) -> float:  # noqa: ANN001
    from sklearn.metrics import f1_score

    return f1_score(y_true, y_pred, labels=labels, average="macro", zero_division=0)


def _kappa(y_true, y_pred, proba, labels) -> float:  # noqa: ANN001
    from sklearn.metrics import cohen_kappa_score

    return cohen_kappa_score(y_true, y_pred, labels=labels)


def _log_loss(y_true, y_pred, proba, labels) -> float:  # noqa: ANN001
    from sklearn.metrics import log_loss

    return log_loss(y_true, proba, labels=labels)


def _roc_auc_ovr(y_true, y_pred, proba, labels) -> float:  # noqa: ANN001
    from sklearn.metrics import roc_auc_score

    present = [i for i, label in enumerate(labels) if np.any(y_true == label)]
    if len(present) < 2:
        return float("nan")  # one class in the test part: no ranking to judge
    if len(labels) == 2:
        return roc_auc_score(y_true == labels[1], proba[:, 1])
    return float(np.mean([roc_auc_score(y_true == labels[i], proba[:, i]) for i in present]))


def _brier(y_true, y_pred, proba, labels) -> float:  # noqa: ANN001
    truth = (np.asarray(y_true)[:, None] == np.asarray(labels)[None, :]).astype(np.float64)
    return float(np.mean(np.sum((proba - truth) ** 2, axis=1)))


PREDICTION_METRICS: dict[str, PredictionMetric] = {
    m.name: m
    for m in (
        PredictionMetric(Metric("balanced_accuracy", "balanced accuracy", True, scale=100.0, unit="%"), False,
                         _quiet(_balanced_accuracy)),
        PredictionMetric(Metric("f1_macro", "macro F1", True, scale=100.0, unit="%"), False, _quiet(_f1_macro)),
        PredictionMetric(Metric("kappa", "Cohen's kappa", True, decimals=3), False, _quiet(_kappa)),
        PredictionMetric(Metric("log_loss", "log-loss", False, decimals=3), True, _quiet(_log_loss)),
        PredictionMetric(Metric("roc_auc_ovr", "ROC AUC (one-vs-rest)", True, decimals=3), True, _quiet(_roc_auc_ovr)),
        PredictionMetric(Metric("brier", "Brier score", False, decimals=3), True, _quiet(_brier)),
    )
}


def get_prediction_metric(name: str) -> PredictionMetric:
    """The prediction metric ``name`` (one line listing the accepted names otherwise)."""
    try:
        return PREDICTION_METRICS[name]
    except KeyError:
        raise one_of(name, tuple(PREDICTION_METRICS), "metric") from None


def unknown_metric(name: str, known: Sequence[str], computed_here: bool, elsewhere: str = "") -> TreebenchError:
    """The refusal of a metric name a command cannot show, saying where a metric of predictions comes from.

    Parameters
    ----------
    name
        The ``--metric`` given.
    known
        The measures the source holds (fixed ones and a store's extra ones).
    computed_here
        Whether the command computes metrics of predictions from kept predictions here (then they
        are accepted too); otherwise a metric of predictions is said to need kept predictions.
    elsewhere
        For a command that never computes them: what does (e.g. ``treebench compare --metric``).
    """
    import difflib

    close = difflib.get_close_matches(name, [*known, *PREDICTION_METRICS], n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    listing = ", ".join(known)
    if elsewhere and name in PREDICTION_METRICS:
        return TreebenchError(f"metric {name!r} is a metric of predictions, which this command does not compute; "
                              f"accepted: {listing} ({elsewhere} computes {name} from a store's kept predictions)")
    if computed_here:
        tail = f"; or, computed from the kept predictions, {', '.join(PREDICTION_METRICS)}"
    elif elsewhere:
        tail = ""
    else:
        tail = (f" (the metrics of predictions, {', '.join(PREDICTION_METRICS)}, need kept predictions: "
                "predictions: true in the config)")
    return TreebenchError(f"unknown metric {name!r}{hint}; accepted: {listing}{tail}")


def score_predictions(names: Sequence[str], y_true: Any, y_pred: Any, proba: Any, labels: Any) -> dict[str, float]:
    """Every metric of ``names`` on one test part (NaN where it is undefined there).

    ``proba`` is ``(n, len(labels))`` in the order of ``labels``, or ``None`` when the learner
    gives none (then no metric of ``names`` may need it).
    """
    y_true, y_pred, labels = np.asarray(y_true), np.asarray(y_pred), np.asarray(labels)
    if proba is not None:
        proba = np.asarray(proba, dtype=np.float64)
    out = {}
    for name in names:
        metric = get_prediction_metric(name)
        if metric.needs_proba and proba is None:
            raise ValueError(f"{name} needs class probabilities")
        try:
            value = metric.score(y_true, y_pred, proba, labels)
        except ValueError:  # undefined on this test part (e.g. one class only)
            value = float("nan")
        out[name] = value
    return out
