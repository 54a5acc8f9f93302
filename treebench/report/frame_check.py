"""Whether an exported results frame (``.csv``/``.parquet``) holds rows a results store could hold.

``compare`` and ``plot`` take a frame written by ``treebench results export``
as their input.  The file is plain text anyone can edit, and nothing in it is
checked by the store that wrote it: an accuracy of 1.7 would be tabulated (and
set in bold as the best), a word in a numeric column or an out-of-protocol fold
dropped from the pairing without a word, a trial given twice averaged in.  So a
frame is checked when it is loaded, once per column (not per row in Python):
the first impossible value is named with its file, row and column.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError

#: Fractions (a store keeps accuracy and error as fractions, not percent).
FRACTIONS = ("accuracy", "error", "train_accuracy")
#: Counts and sizes: whole numbers for the split indices, >= 0 for all.
WHOLE = ("repeat", "fold", "seed")
NON_NEGATIVE = ("n_leaves", "n_nodes", "depth", "n_train", "n_test", "fit_seconds", "predict_seconds",
                "tune_seconds")
#: Numeric without a range the store knows (the criterion's own tree measure).
NUMERIC = ("tree_quality",)
#: The statuses a results store's trials table allows (its CHECK constraint).
STATUSES = ("ok", "failed")
#: How far ``accuracy + error`` may be from 1 (rounding only; the store checks the same).
ERROR_TOLERANCE = 1e-9
#: One row per trial: the split a trial's test set is (as :data:`treebench.stats.frame.PAIR_KEYS`).
TRIAL = ("dataset", "algorithm", "protocol", "repeat", "fold")

# protocol labels with a number of folds and repeats (ProtocolSpec.label): cv10x1, openml:10x3, holdout0.3x5
_FOLDS_REPEATS = re.compile(r"^(?:cv|openml:)(\d+)x(\d+)(?:-unstratified)?$")
_REPEATS = re.compile(r"^holdout[0-9.e-]+x(\d+)(?:-unstratified)?$")


def _where(path: Path, frame: pd.DataFrame, index: int) -> str:
    """The file and row of ``frame``'s row ``index`` (a CSV row also by its line, the header being line 1)."""
    row = f"row {index + 1}" + (f" (line {index + 2})" if path.suffix.lower() == ".csv" else "")
    names = [str(frame[c].iloc[index]) for c in ("dataset", "algorithm") if c in frame.columns]
    return f"results frame {str(path)!r}, {row}" + (f" ({' / '.join(names)})" if names else "")


def check_frame(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    """``frame`` with its numeric columns as numbers, or a one-line error at its first impossible value.

    Raises
    ------
    TreebenchError
        A value that is not a number in a numeric column, a fraction outside [0, 1], a count or
        time below 0, a repeat, fold or seed that is no whole number, a fold or repeat outside its
        row's protocol, or two rows of one trial.
    """
    if {"truth", "predicted"} <= set(frame.columns) and "accuracy" not in frame.columns:
        # one row per test row: many rows per trial, and no metric a table of trials reads
        raise TreebenchError(f"results frame {str(path)!r} is an export of kept predictions (one row per test "
                             "row), not of trials; accepted: a frame written by `treebench results export` "
                             "without --predictions")
    frame = frame.copy()
    _check_status(frame, path)
    for column in (*FRACTIONS, *WHOLE, *NON_NEGATIVE, *NUMERIC):
        if column not in frame.columns:
            continue
        raw = frame[column]
        values = pd.to_numeric(raw, errors="coerce")
        # empty cells are NaN (a failed trial has no accuracy): only text that is no number is refused
        text = values.isna() & raw.notna() & (raw.astype(str).str.strip() != "")
        bad = text.to_numpy()
        finite = np.isfinite(values.to_numpy(dtype=float))
        if column in FRACTIONS:
            low, high, what = 0.0, 1.0, "a fraction in [0, 1]"
        elif column in WHOLE:
            low, high, what = 0.0, np.inf, "a whole number >= 0"
        elif column in NON_NEGATIVE:
            low, high, what = 0.0, np.inf, "a number >= 0"
        else:
            low, high, what = -np.inf, np.inf, "a finite number or empty"
        number = values.to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            out = (~np.isnan(number) & ~finite) | (finite & ((number < low) | (number > high)))
        if column in WHOLE:  # a split index or seed is never empty or fractional
            out |= np.isnan(number) | (finite & (np.floor(number) != number))
        elif column in ("accuracy", "error") and "status" in frame.columns:
            # a finished trial always has its accuracy and error: an empty or "nan" one was edited out
            out |= np.isnan(number) & (frame["status"].astype(str) == "ok").to_numpy()
        wrong = bad | out
        if wrong.any():
            index = int(np.flatnonzero(wrong)[0])
            value = raw.iloc[index]
            shown = f"{value:g}" if isinstance(value, float) else str(value)[:30]  # a CSV's "-3" is read as -3.0
            raise TreebenchError(f"{_where(path, frame, index)}, column {column}: {shown!r} is impossible; "
                                 f"accepted: {what}, as `treebench results export` writes it")
        frame[column] = values.astype("int64") if column in WHOLE else values
    _check_error_is_complement(frame, path)
    _check_protocol(frame, path)
    keys = [c for c in TRIAL if c in frame.columns]
    if {"dataset", "algorithm", "repeat", "fold"} <= set(keys):  # without a split index no row is a trial
        twice = frame.duplicated(subset=keys, keep=False).to_numpy()
        if twice.any():
            first, second = (int(i) for i in np.flatnonzero(twice)[:2])
            same = ", ".join(f"{k} {frame[k].iloc[first]}" for k in keys)
            raise TreebenchError(f"{_where(path, frame, second)} is the trial of row {first + 1} again ({same}); "
                                 f"accepted: one row per ({', '.join(keys)}), as a results store holds")
    return frame


def _check_protocol(frame: pd.DataFrame, path: Path) -> None:
    """A fold or repeat outside the protocol its row names (fold 7 of ``cv3x1``) is no split of it."""
    if "protocol" not in frame.columns:
        return
    labels = frame["protocol"].astype(str)
    for label in labels.unique():
        folds = repeats = None
        match = _FOLDS_REPEATS.match(label)
        if match:
            folds, repeats = int(match.group(1)), int(match.group(2))
        else:
            match = _REPEATS.match(label)
            if match:
                repeats = int(match.group(1))
        rows = (labels == label).to_numpy()
        for column, limit in (("fold", folds), ("repeat", repeats)):
            if limit is None or column not in frame.columns:
                continue
            over = rows & (frame[column].to_numpy(dtype=float) >= limit)
            if over.any():
                index = int(np.flatnonzero(over)[0])
                raise TreebenchError(f"{_where(path, frame, index)}, column {column}: {column} "
                                     f"{frame[column].iloc[index]:g} is outside protocol {label}; accepted: "
                                     f"0 to {limit - 1}")


def _check_status(frame: pd.DataFrame, path: Path) -> None:
    """A status other than a store's two (``ok``, ``failed``): no store holds the row, and reading it as a
    failed trial would drop a scored trial under a note that it failed."""
    if "status" not in frame.columns:
        return
    text = frame["status"].astype(str)
    odd = (~text.isin(STATUSES)).to_numpy()
    if odd.any():
        index = int(np.flatnonzero(odd)[0])
        raise TreebenchError(f"{_where(path, frame, index)}, column status: {str(frame['status'].iloc[index])[:30]!r} "
                             f"is impossible; accepted: {' or '.join(STATUSES)}, as `treebench results export` "
                             "writes it")


def _check_error_is_complement(frame: pd.DataFrame, path: Path) -> None:
    """A store writes ``error = 1 - accuracy`` on every row (and checks it on reading): a row where they
    disagree was edited, and the two metrics would report different trials."""
    if not {"accuracy", "error"} <= set(frame.columns):
        return
    accuracy, error = frame["accuracy"].to_numpy(dtype=float), frame["error"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        off = np.abs(accuracy + error - 1.0) > ERROR_TOLERANCE
        off |= np.isnan(accuracy) != np.isnan(error)  # one of the pair emptied
    if off.any():
        index = int(np.flatnonzero(off)[0])
        raise TreebenchError(f"{_where(path, frame, index)}: accuracy {accuracy[index]:g} and error "
                             f"{error[index]:g} do not sum to 1; accepted: error = 1 - accuracy, as "
                             "`treebench results export` writes it")
