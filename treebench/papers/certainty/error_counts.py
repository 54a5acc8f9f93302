"""Paper 003 (certainty): the report's error-count section.

Every algorithm's error counts on every dataset, the paper's dataset filter, and
the claim "certainty makes fewer training and test errors than C5.0" counted
over all rerun datasets (not only those the paper lists).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from treebench.report.cells import excluded_reason, ok_trials
from treebench.report.formats import md_table
from treebench.report.sections import Section

#: Datasets of the paper that have no treebench card (listed, not rerun).
NOT_RERUN = {
    "Crime (San Francisco)": "Kaggle's SF crime data has no public card here",
    "Arcene": "Arcene (NIPS 2003 feature selection) has no card here",
}
#: The paper keeps a dataset when correct guesses >= 3 x incorrect ones.
FILTER_RATIO = 3.0
CERTAINTY = "certainty"
C50_NAMES = ("c50", "c50-pruned")


def error_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, algorithm) of successful trials: train/test errors, sizes, leaves."""
    ok = ok_trials(frame)
    if ok.empty:
        return pd.DataFrame(columns=["dataset", "algorithm", "train_errors", "test_errors", "n_test",
                                     "n_leaves", "n_nodes"])
    out = pd.DataFrame({
        "dataset": ok["dataset"].astype(str),
        "algorithm": ok["algorithm"].astype(str),
        # error rates times part sizes, as the store keeps rates (rounded: counts are integers)
        "train_errors": ((1.0 - ok["train_accuracy"].astype(float)) * ok["n_train"].astype(float)).round(),
        "test_errors": (ok["error"].astype(float) * ok["n_test"].astype(float)).round(),
        "n_test": ok["n_test"].astype(float),
        "n_leaves": ok["n_leaves"],
        "n_nodes": ok["n_nodes"],
    })
    return out.groupby(["dataset", "algorithm"], sort=False, as_index=False).first()


def passes_filter(test_errors: float, n_test: float) -> bool:
    """The paper's filter: correct guesses at least three times the incorrect ones."""
    return bool(n_test - test_errors >= FILTER_RATIO * test_errors)


def _int(value: object) -> str:
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(int(value))


def certainty_section(frame: pd.DataFrame, excluded: dict[str, str] | None = None) -> Section:
    """The per-dataset error table, the filter flag and the counts against real C5.0 (``excluded``
    datasets -> reason: shown in the table, left out of every count: the filter's and C5.0's)."""
    counts = error_counts(frame)
    algorithms = list(dict.fromkeys(counts["algorithm"]))
    datasets = list(dict.fromkeys(counts["dataset"]))
    table = counts.set_index(["dataset", "algorithm"])
    head = ["dataset", "filter (certainty)"] + [f"{a} train / test errors (leaves)" for a in algorithms]
    excluded = excluded or {}
    rows, kept, judged = [], [], 0
    for d in datasets:
        flag = ""
        if (d, CERTAINTY) in table.index:
            r = table.loc[(d, CERTAINTY)]
            flag = "kept" if passes_filter(r["test_errors"], r["n_test"]) else "dropped"
            if excluded_reason(excluded, d) is None:  # excluded: flagged in the table, not counted
                judged += 1
                if flag == "kept":
                    kept.append(d)
        cells = []
        for a in algorithms:
            if (d, a) in table.index:
                r = table.loc[(d, a)]
                cells.append(f"{_int(r['train_errors'])} / {_int(r['test_errors'])} ({_int(r['n_leaves'])})")
            else:
                cells.append("failed / not run")
        rows.append([d, flag, *cells])
    lines = [
        "Training and test error counts of every algorithm (first 80 % of the rows train, last 20 % "
        "test), leaves in brackets. *filter*: the paper keeps a dataset when the correct test "
        "guesses are at least three times the incorrect ones (here judged on the certainty tree).",
        "",
        *md_table(head, rows, "l" * len(head)),
        "",
    ]
    for c50 in C50_NAMES:
        wins, compared = [], 0
        for d in [d for d in datasets if excluded_reason(excluded, d) is None]:
            if (d, CERTAINTY) in table.index and (d, c50) in table.index:
                compared += 1
                mine, theirs = table.loc[(d, CERTAINTY)], table.loc[(d, c50)]
                if mine["train_errors"] < theirs["train_errors"] and mine["test_errors"] < theirs["test_errors"]:
                    wins.append(d)
        if compared:
            lines.append(
                f"- Certainty makes fewer training **and** fewer test errors than real C5.0 (`{c50}`) on "
                f"{len(wins)} of {compared} datasets" + (f": {', '.join(wins)}." if wins else ".")
            )
    if judged:
        lines.append(f"- The paper's filter keeps {len(kept)} of {judged} datasets"
                     + (f": {', '.join(kept)}." if kept else "."))
    left_out = [f"{d} ({excluded_reason(excluded, d)})" for d in datasets if excluded_reason(excluded, d) is not None]
    if left_out:
        lines.append("- Left out of these counts: " + "; ".join(left_out) + ".")
    if "kddcup99-10pct" in datasets:
        lines.append(
            "- kddcup99-10pct is the 10 % file (494,021 rows); the paper used the full KDD Cup 1999 "
            "file (about 5 million rows), so its KDDCUP numbers are not compared with these."
        )
    lines.append("")
    lines.append("Not rerun: " + "; ".join(f"{k} ({v})" for k, v in NOT_RERUN.items()) + ".")
    return Section("Error counts per dataset and the claim against real C5.0", lines, _latex(lines, head, rows))


def _latex(lines: list[str], head: list[str], rows: list[list[str]]) -> list[str]:
    """The same section for report.tex: prose escaped, the table as a tabular."""
    from treebench.report.formats import tex_escape, tex_table

    def prose(text: str) -> str:
        text = text.replace("**", "").replace("`", "").replace("*", "")
        return tex_escape(text[2:] if text.startswith("- ") else text)

    out = [prose(lines[0]), "", *tex_table(head, rows, "l" * len(head)), ""]
    out += [part for line in lines[len(rows) + 5:] if line for part in (prose(line), "")]
    return out
