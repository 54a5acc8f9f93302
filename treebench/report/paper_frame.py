"""The paper's published table as a rerun: every rule applied to the paper's own numbers first.

A claim is graded by running it on the rerun's trials.  To see whether the
paper's own numbers pass the same rule (the *paper-on-paper* grade, issue 38),
the published cells are turned into trials of the same shape — one trial per
published cell, its value the published mean — and the claim is evaluated on
them exactly as on the rerun.  A rule that needs per-split values (a test over
each dataset's folds, an underlined cell's paired test, a one-way test) finds
one value per cell and says the paper's numbers cannot be tested that way.
"""

from __future__ import annotations

import math

import pandas as pd

from treebench.report.reference import COLUMNS

#: The store column each reference metric is read from (:func:`treebench.report.cells.trial_values`);
#: a metric absent here is stored under its own name.
_COUNT_METRICS = {"train_errors": ("train_accuracy", "n_train"), "test_errors": ("error", "n_test")}


def paper_frame(reference: pd.DataFrame) -> pd.DataFrame:
    """Trials whose values are the paper's published means, one per cell with a dataset card.

    Parameters
    ----------
    reference
        The published cells (:data:`~treebench.report.reference.COLUMNS`, as in a report's cells).

    Returns
    -------
    DataFrame
        ``dataset`` (the card), ``algorithm``, ``repeat`` = ``fold`` = 0, ``status`` ``ok`` and one
        column per metric, in the store's own unit, so that
        :func:`~treebench.report.cells.trial_values` reads back the published value.
    """
    rows: dict[tuple[str, str], dict[str, object]] = {}
    for r in reference.to_dict("records"):
        card, value = str(r.get("dataset") or ""), r.get("value")
        if not card or value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        row = rows.setdefault((card, str(r["algorithm"])), {
            "dataset": card, "algorithm": str(r["algorithm"]), "repeat": 0, "fold": 0, "status": "ok"})
        metric, value = str(r["metric"]), float(value)
        if r.get("unit") == "percent":
            value /= 100.0
        if metric in _COUNT_METRICS:
            column, size = _COUNT_METRICS[metric]
            # a count is rate x size: size 1 keeps the count as printed
            row[column], row[size] = (1.0 - value if column == "train_accuracy" else value), 1.0
        elif metric in ("accuracy", "error"):
            row[metric] = value
            row["error" if metric == "accuracy" else "accuracy"] = 1.0 - value
        else:
            row[metric] = value
    return pd.DataFrame(list(rows.values()))


def paper_cells(cells: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The report's cells with the paper's numbers in place of ours, and the paper's table as trials."""
    from treebench.report.cells import compare_cells

    reference = cells[[c for c in COLUMNS if c in cells.columns]]
    frame = paper_frame(reference)
    if frame.empty:
        return cells.iloc[0:0], frame
    return compare_cells(reference, frame), frame
