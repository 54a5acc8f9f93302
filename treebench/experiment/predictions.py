"""Each trial's test predictions (and class probabilities), kept beside its results store.

With ``predictions: true`` in a config, a trial also returns what it predicted for every test
row; the driver writes it to ``STORE.predictions/KEY.npz`` (one compressed file per trial,
named by the trial key) *before* the trial's row enters the store, by a temporary file and a
rename.  A run killed in between leaves at most a file without a row, which the rerun of that
trial overwrites; a row never points at a missing or half-written file.

A file holds ``rows`` (the test rows' positions in the dataset), ``truth`` and ``predicted``
(indices into ``classes``), ``classes`` (the labels, as text) and, when the learner gives them,
``proba`` (``float32``, one column per class).  Any metric of predictions can be computed again
from them (:mod:`treebench.stats.prediction_metrics`), and two algorithms' files of the same
split pair their cases (McNemar's test).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from treebench.errors import TreebenchError

SUFFIX = ".predictions"


@dataclass
class TrialPredictions:
    """One trial's test predictions (see the module docstring for the fields)."""

    rows: np.ndarray
    truth: np.ndarray
    predicted: np.ndarray
    classes: np.ndarray
    proba: np.ndarray | None = None

    @classmethod
    def from_labels(cls, rows: np.ndarray, y_true: np.ndarray, y_pred: np.ndarray, classes: np.ndarray,
                    proba: np.ndarray | None = None) -> TrialPredictions:
        """From labels: ``classes`` are the learner's (the columns of ``proba``); a label outside them
        (a test class the training part never saw) is added at the end."""
        names = [str(c) for c in classes]
        extra = [str(v) for v in dict.fromkeys(np.concatenate([np.asarray(y_true), np.asarray(y_pred)]).astype(str))
                 if str(v) not in names]
        names += extra
        code = {name: i for i, name in enumerate(names)}
        truth = np.array([code[str(v)] for v in y_true], dtype=np.int32)
        predicted = np.array([code[str(v)] for v in y_pred], dtype=np.int32)
        if proba is not None and extra:  # the learner gave no probability to classes it never saw
            proba = np.hstack([proba, np.zeros((len(proba), len(extra)))])
        return cls(np.asarray(rows, dtype=np.int64), truth, predicted, np.array(names),
                   None if proba is None else np.asarray(proba, dtype=np.float32))

    @property
    def y_true(self) -> np.ndarray:
        return self.classes[self.truth]

    @property
    def y_pred(self) -> np.ndarray:
        return self.classes[self.predicted]


def folder_for(store: str | Path) -> Path:
    """Where the predictions of ``store`` live: ``STORE.predictions/`` beside it."""
    store = Path(store)
    return store.with_name(store.name + SUFFIX)


def write(store: str | Path, key: str, predictions: TrialPredictions) -> Path:
    """Write one trial's predictions (temporary file, then rename); return the file."""
    folder = folder_for(store)
    target = folder / f"{key}.npz"
    tmp = folder / f".{key}.{os.getpid()}.tmp.npz"
    arrays = {"rows": predictions.rows, "truth": predictions.truth, "predicted": predictions.predicted,
              "classes": predictions.classes.astype(str)}
    if predictions.proba is not None:
        arrays["proba"] = predictions.proba
    try:
        folder.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(tmp, **arrays)
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise TreebenchError(f"cannot write predictions to {folder}: {exc.strerror or exc}") from None
    return target


def read(store: str | Path, key: str) -> TrialPredictions | None:
    """One trial's predictions, or ``None`` when the store kept none for it."""
    path = folder_for(store) / f"{key}.npz"
    try:
        with np.load(path, allow_pickle=False) as data:
            return TrialPredictions(data["rows"], data["truth"], data["predicted"], data["classes"],
                                    data["proba"] if "proba" in data.files else None)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError) as exc:
        raise TreebenchError(f"unreadable predictions file {path}: {exc}") from None


def keys(store: str | Path) -> Iterator[str]:
    """Trial keys with kept predictions (finished files only)."""
    folder = folder_for(store)
    if folder.is_dir():
        for path in sorted(folder.glob("*.npz")):
            if not path.name.startswith("."):
                yield path.stem
