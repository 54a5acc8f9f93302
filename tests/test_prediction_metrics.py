"""Prediction metrics against hand computations and scikit-learn's own functions."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from treebench.errors import TreebenchError
from treebench.stats.prediction_metrics import (
    PREDICTION_METRICS,
    get_prediction_metric,
    score_predictions,
)

LABELS = np.array(["a", "b", "c"])


def _case(seed: int, n: int = 40) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = LABELS[rng.integers(0, 3, n)]
    proba = rng.dirichlet(np.ones(3), size=n)
    proba[np.arange(n), np.searchsorted(LABELS, y)] += rng.uniform(0, 1.5, n)  # informative
    proba /= proba.sum(axis=1, keepdims=True)
    return y, LABELS[np.argmax(proba, axis=1)], proba


def test_hand_computed_values_on_a_small_case():
    y = np.array(["a", "a", "b", "b", "c", "c"])
    pred = np.array(["a", "b", "b", "b", "c", "a"])
    proba = np.array([[0.8, 0.1, 0.1], [0.4, 0.5, 0.1], [0.2, 0.7, 0.1],
                      [0.1, 0.8, 0.1], [0.1, 0.1, 0.8], [0.5, 0.2, 0.3]])
    got = score_predictions(list(PREDICTION_METRICS), y, pred, proba, LABELS)
    recalls = [1 / 2, 2 / 2, 1 / 2]
    assert got["balanced_accuracy"] == pytest.approx(np.mean(recalls))
    precision = [1 / 2, 2 / 3, 1 / 1]
    f1 = [2 * p * r / (p + r) for p, r in zip(precision, recalls)]
    assert got["f1_macro"] == pytest.approx(np.mean(f1))
    observed = 4 / 6
    expected = sum((np.sum(y == c) / 6) * (np.sum(pred == c) / 6) for c in LABELS)
    assert got["kappa"] == pytest.approx((observed - expected) / (1 - expected))
    truth = proba[np.arange(6), [0, 0, 1, 1, 2, 2]]
    assert got["log_loss"] == pytest.approx(-np.mean(np.log(truth)))
    onehot = np.eye(3)[[0, 0, 1, 1, 2, 2]]
    assert got["brier"] == pytest.approx(np.mean(np.sum((proba - onehot) ** 2, axis=1)))


@pytest.mark.parametrize("seed", range(5))
def test_equal_to_scikit_learn(seed):
    y, pred, proba = _case(seed)
    got = score_predictions(list(PREDICTION_METRICS), y, pred, proba, LABELS)
    assert got["balanced_accuracy"] == pytest.approx(skm.balanced_accuracy_score(y, pred))
    assert got["f1_macro"] == pytest.approx(skm.f1_score(y, pred, average="macro", labels=LABELS))
    assert got["kappa"] == pytest.approx(skm.cohen_kappa_score(y, pred))
    assert got["log_loss"] == pytest.approx(skm.log_loss(y, proba, labels=LABELS))
    assert got["roc_auc_ovr"] == pytest.approx(skm.roc_auc_score(y, proba, multi_class="ovr", labels=LABELS))
    assert got["brier"] == pytest.approx(skm.brier_score_loss(y, proba, labels=LABELS, scale_by_half=False))


def test_binary_auc_and_a_test_part_without_some_classes():
    y = np.array([0, 0, 1, 1, 1])
    proba = np.array([[0.9, 0.1], [0.4, 0.6], [0.3, 0.7], [0.6, 0.4], [0.2, 0.8]])
    got = score_predictions(["roc_auc_ovr"], y, (proba[:, 1] > 0.5).astype(int), proba, np.array([0, 1]))
    assert got["roc_auc_ovr"] == pytest.approx(skm.roc_auc_score(y, proba[:, 1]))
    # a fold where class "c" is absent: AUC over the present classes; one class only: undefined
    y, pred, proba = _case(1)
    keep = y != "c"
    got = score_predictions(["roc_auc_ovr", "f1_macro"], y[keep], pred[keep], proba[keep], LABELS)
    by_class = [skm.roc_auc_score(y[keep] == c, proba[keep][:, i]) for i, c in enumerate(LABELS[:2])]
    assert got["roc_auc_ovr"] == pytest.approx(np.mean(by_class))
    single = score_predictions(["roc_auc_ovr", "kappa"], np.array(["a"] * 4), np.array(["a"] * 4),
                               np.tile([1.0, 0.0, 0.0], (4, 1)), LABELS)
    assert np.isnan(single["roc_auc_ovr"]) and np.isnan(single["kappa"])


def test_unknown_names_and_missing_probabilities_are_refused():
    with pytest.raises(TreebenchError, match="accepted: balanced_accuracy"):
        get_prediction_metric("auc")
    with pytest.raises(ValueError, match="log_loss needs class probabilities"):
        score_predictions(["log_loss"], ["a"], ["a"], None, LABELS)
