"""Paper 000: O-ΠTree under the readings the paper leaves open -- arrival order and attribute ties.

The paper states neither the order in which O-ΠTree's examples arrive nor
which attribute wins when several have the same best gain.  The default
reading (configs/serrurier2015.yaml) feeds the training part in a seeded
shuffle and draws tied attributes at random; this section shows, per
dataset, the O-ΠTree accuracy

* over five arrival orders (draw 0 is the paper config's own ``o-pitree``,
  draws 1-4 come from configs/serrurier2015-orders.yaml), with their mean,
  range and standard deviation -- the spread due to the order alone, on the
  same splits;
* under the other readings of configs/serrurier2015-readings.yaml: the file's
  order, first-column ties, and both.
"""

from __future__ import annotations

import pandas as pd

from treebench.report.sections import Section

#: Algorithm name -> column heading of the readings table.
READING_COLUMNS: dict[str, str] = {
    "o-pitree-file": "file order",
    "o-pitree-first": "first-column ties",
    "o-pitree-file-first": "file order + first-column ties",
}
#: The order draws of configs/serrurier2015-orders.yaml (draw 0: the paper config's o-pitree).
DRAWS: tuple[str, ...] = tuple(f"o-pitree-draw-{k}" for k in range(1, 5))

WHY = (
    "Default reading: a seeded shuffle of the training part and random ties between attributes. The paper "
    "describes O-ΠTree's revision step (\"search the attribute with the best G\") but gives no arrival order "
    "and no tie rule; nothing in the text or in eq. 17 ranks equally good attributes, so a tied choice is drawn "
    "at random rather than left to the column order, and the examples arrive in a random order rather than in "
    "the file's, which is a sorting artefact (wine and zoo are sorted by class). O-ΠTree splits leaves of a "
    "few examples, where ties are frequent, so both choices move its accuracy; the spread over orders below "
    "is the part of a cell that the order alone explains."
)


def _mean_accuracy(frame: pd.DataFrame, algorithm: str) -> pd.Series:
    """Per dataset: the cross-validated mean accuracy (percent) of ``algorithm``'s ok trials."""
    if frame is None or not len(frame) or "algorithm" not in frame.columns:
        return pd.Series(dtype=float)
    rows = frame[(frame["algorithm"] == algorithm) & (frame["status"].astype(str) == "ok")]
    return rows.groupby("dataset")["accuracy"].mean() * 100.0


def order_table(frame: pd.DataFrame, orders: pd.DataFrame | None, readings: pd.DataFrame | None,
                reference: pd.DataFrame) -> pd.DataFrame:
    """One row per dataset with O-ΠTree under every order draw and reading (accuracy, percent).

    Columns: ``paper``, ``draw 0`` .. ``draw 4``, ``mean``, ``min``, ``max``, ``std`` (over the draws
    present, ``ddof=1``), then :data:`READING_COLUMNS`.  Datasets: those with at least one other draw.
    """
    draws = {"draw 0": _mean_accuracy(frame, "o-pitree")}
    for k, name in enumerate(DRAWS, start=1):
        draws[f"draw {k}"] = _mean_accuracy(orders, name)
    table = pd.DataFrame(draws)
    others = [f"draw {k}" for k in range(1, len(DRAWS) + 1)]
    table = table[table[others].notna().any(axis=1)]
    spread = table[["draw 0", *others]]
    table["mean"] = spread.mean(axis=1)
    table["min"] = spread.min(axis=1)
    table["max"] = spread.max(axis=1)
    table["std"] = spread.std(axis=1, ddof=1)
    for name, heading in READING_COLUMNS.items():
        table[heading] = _mean_accuracy(readings, name).reindex(table.index)
    paper = reference[(reference["algorithm"] == "o-pitree") & (reference["metric"] == "accuracy")]
    table.insert(0, "paper", paper.set_index("dataset")["value"].reindex(table.index))
    return table


def _cell(value: float) -> str:
    return "–" if pd.isna(value) else f"{value:.1f}"


def orders_section(frame: pd.DataFrame, orders: pd.DataFrame | None, readings: pd.DataFrame | None,
                   reference: pd.DataFrame) -> Section | None:
    """The section, or ``None`` while neither store of the readings has O-ΠTree trials."""
    from treebench.report.formats import tex_escape

    table = order_table(frame, orders, readings, reference)
    if not len(table):
        return None
    title = "O-ΠTree over arrival orders and tie rules"
    columns = list(table.columns)
    md = [WHY, "",
          "Accuracy (%) of O-ΠTree, 10-fold CV mean per dataset. Draws 0–4: five seeded arrival orders (and tie "
          "draws) on the same splits, draw 0 being the default row of Table 1; std over the draws (ddof = 1). "
          "The last columns are the other readings (configs/serrurier2015-readings.yaml); "
          "the paper column is shown beside, never used to choose.", "",
          "| dataset | " + " | ".join(columns) + " |", "| --- |" + " ---: |" * len(columns)]
    for dataset, row in table.iterrows():
        md.append(f"| {dataset} | " + " | ".join(_cell(row[c]) for c in columns) + " |")
    tex = [tex_escape(WHY), "", r"\begin{tabular}{l" + "r" * len(columns) + "}",
           "dataset & " + " & ".join(tex_escape(c) for c in columns) + r" \\ \hline"]
    for dataset, row in table.iterrows():
        tex.append(tex_escape(str(dataset)) + " & " + " & ".join(_cell(row[c]) for c in columns) + r" \\")
    tex.append(r"\end{tabular}")
    return Section(title, md, tex)
