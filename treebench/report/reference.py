"""The papers' published numbers (``results/reference/*.csv``) as a DataFrame."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from treebench.errors import TreebenchError

COLUMNS = ("paper", "source", "dataset_label", "dataset", "algorithm_label", "algorithm", "metric",
           "value", "std", "unit", "mark", "note")
UNITS = ("percent", "fraction", "count", "parameter")


def reference_dir() -> Path:
    """``results/reference`` of the working directory, else of the source checkout."""
    here = Path("results/reference")
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "results" / "reference"


def load_reference(filename: str, directory: Path | None = None) -> pd.DataFrame:
    """Read one reference CSV and check its shape.

    Returns
    -------
    DataFrame
        :data:`COLUMNS`; ``value`` and ``std`` numeric (``std`` NaN when the
        paper gives none), text columns with empty strings instead of NaN.

    Raises
    ------
    TreebenchError
        Missing file, missing columns or an unknown unit.
    """
    path = (directory or reference_dir()) / filename
    if not path.exists():
        raise TreebenchError(f"reference numbers {path} not found")
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise TreebenchError(f"{path}: missing column(s) {', '.join(missing)}")
    bad = sorted(set(frame["unit"]) - set(UNITS))
    if bad:
        raise TreebenchError(f"{path}: unknown unit {bad[0]!r}; accepted: {', '.join(UNITS)}")
    frame["value"] = pd.to_numeric(frame["value"], errors="raise")
    frame["std"] = pd.to_numeric(frame["std"].replace("", None), errors="coerce")
    return frame
