"""Published numbers next to the rerun's: the cells of a reproduction report.

:func:`compare_cells` lines every published number up with the rerun's value
for the same dataset, algorithm and metric, in the paper's unit
(:func:`trial_values`); :class:`Matcher` maps the reference's names onto the
store's (case and punctuation ignored).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd


def ok_trials(frame: pd.DataFrame) -> pd.DataFrame:
    """The successful trials of ``frame`` (all rows when it has no ``status`` column)."""
    return frame[frame["status"].astype(str) == "ok"] if "status" in frame.columns else frame


def norm(name: object) -> str:
    """Loose name key: lower case, letters and digits only (``O-PiTree`` == ``opitree``)."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


# -- our values in the paper's units ----------------------------------------------
def _json_value(text: object, key: str) -> float:
    """``key`` of a JSON object given as text (``params``/``chosen``); NaN when absent or not a number."""
    try:
        value = json.loads(text) if isinstance(text, str) and text else {}
    except ValueError:
        return math.nan
    v = value.get(key) if isinstance(value, dict) else None
    return float(v) if isinstance(v, (int, float)) else math.nan


def trial_values(frame: pd.DataFrame, metric: str, unit: str) -> pd.Series:
    """Per-trial values of a reference metric, in the reference's unit.

    ``train_errors``/``test_errors`` are counts: the error rate times the
    size of the part (``n_train``/``n_test`` columns of the store).  ``q``
    (or any other name that is not a store column) is read from the tuned
    values (``chosen``), else from ``params``.
    """
    n = len(frame)
    nan = pd.Series(np.full(n, np.nan), index=frame.index)
    num = lambda col: pd.to_numeric(frame[col], errors="coerce") if col in frame.columns else nan  # noqa: E731
    if metric == "train_errors":
        values = (1.0 - num("train_accuracy")) * num("n_train")
    elif metric == "test_errors":
        values = num("error") * num("n_test")
    elif metric in frame.columns:
        values = num(metric)
    else:
        values = nan.copy()
        for col in ("chosen", "params"):
            if col in frame.columns:
                found = frame[col].map(lambda t: _json_value(t, metric))
                values = values.fillna(found)
    if unit == "percent":
        values = values * 100.0
    if unit == "count" and metric in ("train_errors", "test_errors"):
        values = values.round()
    return values


@dataclass
class Matcher:
    """Map reference dataset/algorithm names onto the names in the frame."""

    frame_datasets: list[str]
    frame_algorithms: list[str]

    @classmethod
    def of(cls, frame: pd.DataFrame) -> Matcher:
        """The names of ``frame``'s ``dataset`` and ``algorithm`` columns (none for an empty frame)."""
        if not len(frame):
            return cls([], [])
        return cls(sorted(set(frame["dataset"].astype(str))), sorted(set(frame["algorithm"].astype(str))))

    @staticmethod
    def _find(candidates: list[str], *names: str) -> str | None:
        keys = {norm(c): c for c in candidates}
        for name in names:
            if name and norm(name) in keys:
                return keys[norm(name)]
        return None

    def dataset(self, name: str, label: str = "") -> str | None:
        """The frame's dataset called ``name`` (else ``label``); ``None`` if neither is there."""
        return self._find(self.frame_datasets, name, label) if name else None

    def algorithm(self, name: str, label: str = "") -> str | None:
        """The frame's algorithm called ``name`` (else ``label``); ``None`` if neither is there."""
        return self._find(self.frame_algorithms, name, label)


def compare_cells(reference: pd.DataFrame, frame: pd.DataFrame) -> pd.DataFrame:
    """Every published number next to ours.

    Returns
    -------
    DataFrame
        The reference columns plus ``ours``, ``our_std``, ``n`` (trials),
        ``diff`` (ours - paper), ``within_std`` (``|diff| <= paper std``;
        None without a paper std or without our value) and ``status``
        (``ok``, ``no dataset``, ``not run``, ``no value``).
    """
    ok = ok_trials(frame)
    match = Matcher.of(ok)
    rows = []
    for ref in reference.itertuples(index=False):
        row = ref._asdict()
        row.update(ours=math.nan, our_std=math.nan, n=0, diff=math.nan, within_std=None)
        ds = match.dataset(ref.dataset, ref.dataset_label) if ref.dataset else None
        alg = match.algorithm(ref.algorithm, ref.algorithm_label)
        if not ref.dataset:
            row["status"] = "no dataset"
        elif ds is None or alg is None:
            row["status"] = "not run"
        else:
            sub = ok[(ok["dataset"].astype(str) == ds) & (ok["algorithm"].astype(str) == alg)]
            vals = trial_values(sub, ref.metric, ref.unit).dropna()
            if vals.empty:
                row["status"] = "no value"
            else:
                row["status"] = "ok"
                row["ours"] = float(vals.median() if ref.metric == "q" else vals.mean())
                row["our_std"] = float(vals.std(ddof=1)) if len(vals) > 1 else math.nan
                row["n"] = int(len(vals))
                row["diff"] = row["ours"] - float(ref.value)
                if not math.isnan(ref.std):
                    row["within_std"] = bool(abs(row["diff"]) <= ref.std + 1e-9)
        rows.append(row)
    return pd.DataFrame(rows)
