"""The leaderboard's plots: accuracy against tree size (Pareto) and where each algorithm wins."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from treebench.report.figures import new_figure, new_grid, palette, save

#: Meta-feature columns of the winners table -> axis label and whether the axis is logarithmic.
META_AXES: dict[str, tuple[str, bool]] = {
    "rows": ("rows", True),
    "features": ("features", True),
    "classes": ("classes", False),
    "imbalance": ("class imbalance (largest / smallest class)", True),
    "nominal_share": ("share of nominal features", False),
}


def _plain_log(axis) -> None:  # noqa: ANN001 - a matplotlib axis
    """A log axis labelled 10, 100, 1000 (no 10^k, no crowded minor labels)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def pareto_plot(points: pd.DataFrame, front: list[str], path: Path) -> list[Path]:
    """Mean accuracy against mean leaves (log axis); the Pareto front joined and its points filled.

    ``points`` is indexed by algorithm with columns ``leaves`` and ``accuracy``.
    """
    fig, ax = new_figure(7.5, 4.8)
    ordered = points.loc[front].sort_values("leaves")
    ax.plot(ordered["leaves"], ordered["accuracy"] * 100, color="0.4", lw=1.0, ls="--", zorder=1,
            label="Pareto front")
    labels: dict[tuple[float, float], list[str]] = {}
    for (name, p), colour in zip(points.iterrows(), palette(len(points))):
        on = name in front
        ax.scatter(p["leaves"], p["accuracy"] * 100, s=46, color=colour if on else "white", edgecolors=colour,
                   linewidths=1.6, zorder=2)
        labels.setdefault((float(p["leaves"]), float(p["accuracy"])), []).append(str(name))
    for (leaves, accuracy), names in labels.items():  # rows at the same point share one label
        ax.annotate(" = ".join(names), (leaves, accuracy * 100), xytext=(4, 3), textcoords="offset points",
                    fontsize=8)
    if (points["leaves"] > 0).all():
        ax.set_xscale("log")
        _plain_log(ax.xaxis)
    ax.set_xlabel("mean leaves over datasets (log scale)")
    ax.set_ylabel("mean accuracy over datasets (%)")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    ax.set_title("Accuracy against tree size (filled: on the Pareto front)", fontsize=10)
    return save(fig, path)


def wins_plot(winners: pd.DataFrame, path: Path) -> list[Path]:
    """One panel per meta-feature: each dataset's value, on the row of each algorithm that wins it."""
    exploded = winners.assign(winner=winners["winners"].str.split(", ")).explode("winner")
    names = sorted(exploded["winner"].dropna().unique())
    fig, axes = new_grid(len(META_AXES), 2.4, 0.35 * max(len(names), 3) + 1.2, max_columns=len(META_AXES))
    colours = dict(zip(names, palette(len(names))))
    for i_ax, (ax, (column, (label, log))) in enumerate(zip(axes, META_AXES.items())):
        for i, name in enumerate(names):
            values = exploded.loc[exploded["winner"] == name, column].to_numpy(dtype=float)
            ax.scatter(values, np.full(values.size, i), s=22, color=colours[name], alpha=0.8)
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(names if i_ax == 0 else [], fontsize=8)  # one row of names for every panel
        ax.set_ylim(-0.6, len(names) - 0.4)
        if log and (exploded[column] > 0).all():
            ax.set_xscale("log")
            _plain_log(ax.xaxis)
        ax.set_xlabel(label, fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle("Where each algorithm wins: the datasets it has the best mean accuracy on", fontsize=10)
    return save(fig, path)
