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
from typing import Any

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


def with_metric(frame: Any, store: str | Path, metric: str) -> Any:
    """``frame`` with the prediction metric ``metric`` computed from the store's kept predictions
    where the trials did not store it (a config that kept predictions but did not list it).

    Raises
    ------
    TreebenchError
        When the store kept no predictions for the trials that lack the metric.
    """
    import pandas as pd

    from treebench.stats.metrics import Metric
    from treebench.stats.prediction_metrics import get_prediction_metric, score_predictions

    scorer = get_prediction_metric(metric)
    frame = frame.copy()
    if metric not in frame.columns:
        frame[metric] = float("nan")
    missing = frame.index[(frame["status"] == "ok") & pd.to_numeric(frame[metric], errors="coerce").isna()]
    found = 0
    for at in missing:
        kept = read(store, str(frame.at[at, "trial_key"]))
        if kept is None:
            continue
        if scorer.needs_proba and kept.proba is None:
            raise TreebenchError(f"{metric} needs class probabilities; the predictions kept for "
                                 f"{frame.at[at, 'algorithm']!r} have none")
        proba = None if kept.proba is None else kept.proba.astype(np.float64)
        frame.at[at, metric] = score_predictions([metric], kept.y_true, kept.y_pred, proba, kept.classes)[metric]
        found += 1
    if len(missing) and not found:
        raise TreebenchError(f"the store holds no {metric} and kept no predictions to compute it from "
                             f"(add {metric} to the config's metrics, or predictions: true, and rerun with --force)")
    declared: dict[str, Metric] = dict(frame.attrs.get("metrics", {}))
    declared[metric] = scorer.metric
    frame.attrs["metrics"] = declared
    return frame


def paired_cases(store: str | Path, frame: Any, dataset: str, a: str, b: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The truth and the two algorithms' predictions on the same test cases of ``dataset``'s one split.

    Raises
    ------
    TreebenchError
        For more than one split (McNemar's test is for a single split), or missing predictions.
    """
    rows = frame[(frame["dataset"] == dataset) & (frame["status"] == "ok")]
    splits = rows[["repeat", "fold"]].drop_duplicates()
    if len(splits) != 1:
        raise TreebenchError(f"McNemar's test compares two algorithms on one split; {dataset!r} has {len(splits)} "
                             "(use --test corrected-ttest for repeated splits)")
    kept = []
    for name in (a, b):
        key = rows.loc[rows["algorithm"] == name, "trial_key"]
        got = read(store, str(key.iloc[0])) if len(key) else None
        if got is None:
            raise TreebenchError(f"no kept predictions of {name!r} on {dataset!r}: McNemar's test needs them "
                                 "(predictions: true in the config, then rerun)")
        order = np.argsort(got.rows, kind="stable")
        kept.append((got.rows[order], got.y_true[order], got.y_pred[order]))
    if not np.array_equal(kept[0][0], kept[1][0]):
        raise TreebenchError(f"{a!r} and {b!r} were tested on different rows of {dataset!r}")
    return kept[0][1], kept[0][2], kept[1][2]


def as_frame(store: str | Path, trials: Any) -> Any:
    """Every kept prediction of the store's trials as one tidy frame (a row per trial and test case).

    Raises
    ------
    TreebenchError
        When the store kept no predictions.
    """
    import pandas as pd

    parts = []
    for row in trials.itertuples(index=False):
        kept = read(store, str(row.trial_key))
        if kept is None:
            continue
        part = pd.DataFrame({"trial_key": row.trial_key, "dataset": row.dataset, "algorithm": row.algorithm,
                             "repeat": row.repeat, "fold": row.fold, "row": kept.rows,
                             "truth": kept.y_true, "predicted": kept.y_pred})
        if kept.proba is not None:
            for j, name in enumerate(kept.classes):
                part[f"proba_{name}"] = kept.proba[:, j]
        parts.append(part)
    if not parts:
        raise TreebenchError(f"{store} kept no predictions (predictions: true in the config keeps them)")
    return pd.concat(parts, ignore_index=True)
