"""Whether an exported results frame (``.csv``/``.parquet``) holds rows a results store could hold.

``compare`` and ``plot`` take a frame written by ``treebench results export``
as their input.  The file is plain text anyone can edit, and nothing in it is
checked by the store that wrote it: an accuracy of 1.7 would be tabulated (and
set in bold as the best), a word in a numeric column or an out-of-protocol fold
dropped from the pairing without a word, a trial given twice (or two exports of
different protocols joined into one cell) averaged in.  So a
frame is checked when it is loaded, once per column (not per row in Python):
the first impossible value is named with its file, row and column.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.experiment.store import ERROR_SUM_TOLERANCE  # the store's own rule

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
        A column naming a trial missing, a value that is not a number in a numeric column, a
        fraction outside [0, 1], a count or time below 0, a repeat, fold or seed that is no whole
        number, a fold or repeat outside its row's protocol, two rows of one split, or one
        (dataset, algorithm) under two protocols.
    """
    if {"truth", "predicted"} <= set(frame.columns) and "accuracy" not in frame.columns:
        # one row per test row: many rows per trial, and no metric a table of trials reads
        raise TreebenchError(f"results frame {str(path)!r} is an export of kept predictions (one row per test "
                             "row), not of trials; accepted: a frame written by `treebench results export` "
                             "without --predictions")
    _check_trial_columns(frame, path)
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
    _check_one_trial_per_split(frame, path)
    _check_one_protocol_per_cell(frame, path)
    return frame


def _check_trial_columns(frame: pd.DataFrame, path: Path) -> None:
    """Every column that names a trial is there: without its split index (``repeat``, ``fold``) or
    its ``protocol`` a trial given twice cannot be told from two trials, nor two protocols apart, and
    every export has them all."""
    missing = [c for c in TRIAL if c not in frame.columns]
    if missing:
        raise TreebenchError(f"results frame {str(path)!r} lacks the column(s) {', '.join(missing)}, without "
                             f"which its rows are no trials (a trial given twice would pass for two); accepted: "
                             f"a frame with the columns {', '.join(TRIAL)}, as `treebench results export` "
                             "writes it")


def _check_one_trial_per_split(frame: pd.DataFrame, path: Path) -> None:
    """One row per (dataset, algorithm, protocol, repeat, fold): a second row of one split is either the
    same trial again (an edit) or another version of the algorithm (a store keeps the trials of an
    earlier config or plugin beside the current ones, under their own trial keys)."""
    keys = frame[list(TRIAL)].astype(str).reset_index(drop=True)  # positions, and NaN as a value
    again = keys.duplicated().to_numpy()
    if not again.any():
        return
    second = int(np.flatnonzero(again)[0])  # the first row repeating an earlier one, and that row
    first = int(np.flatnonzero((keys == keys.iloc[second]).all(axis=1).to_numpy())[0])
    split = ", ".join(f"{k} {frame[k].iloc[first]}" for k in TRIAL)
    if "trial_key" in frame.columns and str(frame["trial_key"].iloc[first]) != str(frame["trial_key"].iloc[second]):
        differ = [f"{c} {_short(frame[c].iloc[first])} / {_short(frame[c].iloc[second])}"
                  for c in ("params", "seed", "dataset_checksum")
                  if c in frame.columns and str(frame[c].iloc[first]) != str(frame[c].iloc[second])]
        how = (f"other {'; '.join(differ)}" if differ else
               "same params, another trial key: another version of a plugin's code, or an edited row")
        raise TreebenchError(f"{_where(path, frame, second)} is another trial of the split of row {first + 1} "
                             f"({split}; {how}): two versions of one algorithm, as a store holds after its "
                             "config or a plugin changed between runs, which a table would average; accepted: "
                             "one trial per split, e.g. the config's current trials (`treebench results export "
                             "CONFIG.yaml`, or `treebench compare CONFIG.yaml`)")
    raise TreebenchError(f"{_where(path, frame, second)} is the trial of row {first + 1} again ({split}); "
                         f"accepted: one row per ({', '.join(TRIAL)}), as a results store holds")


def _short(value: object) -> str:
    """A cell's value for a message, at most 40 characters (params may be long JSON)."""
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_one_protocol_per_cell(frame: pd.DataFrame, path: Path) -> None:
    """The trials of one (dataset, algorithm) share one protocol, as in any store of one config: a
    frame joining two exports would otherwise average, say, 3 CV folds and a holdout split into one
    cell and test them as one cross-validation.  Different algorithms under different protocols (paper
    001's CART under 25-fold CV beside leave-one-out) stay apart: their splits never pair."""
    cells = frame[["dataset", "algorithm", "protocol"]].astype(str).reset_index(drop=True)
    firsts = cells.drop_duplicates()  # each cell's first row under each of its protocols
    other = firsts.duplicated(subset=["dataset", "algorithm"])
    if not other.any():
        return
    second = int(firsts.index[other.to_numpy()][0])  # the first row of a cell's second protocol
    same_cell = (cells["dataset"] == cells["dataset"].iloc[second]) & (cells["algorithm"] == cells["algorithm"].iloc[second])
    first = int(np.flatnonzero(same_cell.to_numpy())[0])
    raise TreebenchError(f"{_where(path, frame, second)} is under protocol {cells['protocol'].iloc[second]}, "
                         f"row {first + 1} of the same dataset and algorithm under {cells['protocol'].iloc[first]}: "
                         "a table would average the two protocols into one cell and test them as one; accepted: "
                         "one protocol per (dataset, algorithm), as a store of one config holds (exports of "
                         "other protocols joined only for other algorithms or datasets)")


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
        off = np.abs(accuracy + error - 1.0) > ERROR_SUM_TOLERANCE
        off |= np.isnan(accuracy) != np.isnan(error)  # one of the pair emptied
    if off.any():
        index = int(np.flatnonzero(off)[0])
        raise TreebenchError(f"{_where(path, frame, index)}: accuracy {accuracy[index]:g} and error "
                             f"{error[index]:g} do not sum to 1; accepted: error = 1 - accuracy, as "
                             "`treebench results export` writes it")
