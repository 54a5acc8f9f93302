"""Kept predictions: written whole or not at all, read back exactly, metrics recomputable."""

from __future__ import annotations

import numpy as np
import pytest

from treebench.errors import TreebenchError
from treebench.experiment import predictions as P
from treebench.stats.prediction_metrics import score_predictions


def _trial() -> P.TrialPredictions:
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(3), size=12)
    classes = np.array(["setosa", "versicolor", "virginica"])
    y_true = classes[rng.integers(0, 3, 12)]
    return P.TrialPredictions.from_labels(np.arange(100, 112), y_true, classes[proba.argmax(1)], classes, proba)


def test_round_trip(tmp_path):
    store = tmp_path / "s.sqlite"
    kept = _trial()
    path = P.write(store, "abc", kept)
    assert path == tmp_path / "s.sqlite.predictions" / "abc.npz"
    back = P.read(store, "abc")
    np.testing.assert_array_equal(back.rows, kept.rows)
    np.testing.assert_array_equal(back.y_true, kept.y_true)
    np.testing.assert_array_equal(back.y_pred, kept.y_pred)
    np.testing.assert_array_equal(back.proba, kept.proba)
    assert list(P.keys(store)) == ["abc"] and P.read(store, "missing") is None
    # any metric of predictions, computed again from the file
    again = score_predictions(["f1_macro", "log_loss"], back.y_true, back.y_pred, back.proba, back.classes)
    first = score_predictions(["f1_macro", "log_loss"], kept.y_true, kept.y_pred, kept.proba, kept.classes)
    assert again == pytest.approx(first, rel=1e-6)


def test_a_test_class_the_learner_never_saw_gets_a_code_and_zero_probability():
    kept = P.TrialPredictions.from_labels(np.arange(3), np.array([0, 1, 2]), np.array([0, 1, 1]),
                                          np.array([0, 1]), np.array([[0.9, 0.1], [0.2, 0.8], [0.4, 0.6]]))
    assert list(kept.classes) == ["0", "1", "2"] and kept.proba.shape == (3, 3)
    assert list(kept.y_true) == ["0", "1", "2"] and kept.proba[:, 2].sum() == 0


def test_a_failed_write_leaves_no_file(tmp_path, monkeypatch):
    store = tmp_path / "s.sqlite"

    def broken(path, **arrays):
        with open(path, "wb") as handle:
            handle.write(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", broken)
    with pytest.raises(TreebenchError, match="cannot write predictions"):
        P.write(store, "abc", _trial())
    assert list(P.folder_for(store).iterdir()) == []


def test_a_corrupt_file_is_one_line(tmp_path):
    store = tmp_path / "s.sqlite"
    P.folder_for(store).mkdir()
    (P.folder_for(store) / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(TreebenchError, match="unreadable predictions file"):
        P.read(store, "bad")
