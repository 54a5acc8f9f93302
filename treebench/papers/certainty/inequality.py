"""The certainty-raising inequality of paper 003 as tables (Markdown or CSV) and a bar plot.

The numbers come from :func:`treebench.criteria.inequality.inequality_report`;
this module only formats its two tables and draws the plot for
``treebench certainty`` (:mod:`treebench.papers.certainty.cli`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _number(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "inf" if value == float("inf") else f"{value:.4f}"
    return str(value)


def markdown_table(frame: Any) -> list[str]:
    """A pandas frame as a GitHub Markdown table (``|`` in cells escaped)."""
    head = [str(c) for c in frame.columns]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for row in frame.itertuples(index=False):
        out.append("| " + " | ".join(_number(v).replace("|", "\\|") for v in row) + " |")
    return out


def render(report: Any, dataset: str, fmt: str, table: str) -> str:
    """The report as Markdown (headings + tables) or CSV (one table, or both one after the other)."""
    parts = [("attributes", report.attributes), ("values", report.values)]
    chosen = [(name, frame) for name, frame in parts if table in ("both", name)]
    if fmt == "csv":
        return "\n".join(frame.to_csv(index=False, float_format="%.10g") for _, frame in chosen)
    raises = int(report.attributes["raises"].sum())
    lines = [
        f"# Certainty-raising inequality: {dataset}",
        "",
        f"I(C) = {report.class_certainty:.4f}; {raises} of {len(report.attributes)} attributes raise "
        "certainty (I(C|A) > I(C)).",
    ]
    for name, frame in chosen:
        lines += ["", "## Attributes ranked by I(C|A)" if name == "attributes" else
                  "## Causal certainty per value: p(c|a)/I(C|A) > p(c)/I(C)", ""]
        lines += markdown_table(frame)
    return "\n".join(lines) + "\n"


def plot(report: Any, dataset: str, path: Path) -> list[Path]:
    """Bars of I(C|A) per attribute (raising ones coloured), a line at I(C)."""
    from treebench.report.figures import new_figure, palette, save

    frame = report.attributes
    fig, ax = new_figure(max(4.0, 0.3 * len(frame) + 2.0), 3.5)
    colours = palette(2)
    ax.bar(range(len(frame)), frame["I(C|A)"],
           color=[colours[0] if r else colours[1] for r in frame["raises"]])
    ax.axhline(report.class_certainty, color="black", linestyle="--", linewidth=1,
               label=f"I(C) = {report.class_certainty:.3f}")
    ax.set_xticks(range(len(frame)))
    ax.set_xticklabels(frame["attribute"], rotation=90, fontsize=7)
    ax.set_ylabel("I(C|A)")
    ax.set_title(f"{dataset}: conditional certainty per attribute (coloured: raises certainty)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, path)
