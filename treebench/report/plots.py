"""``treebench plot``: leaves per dataset, metrics against a hyperparameter, CD diagrams.

Each function takes the tidy results frame and an output path without
suffix, writes ``.png`` and ``.svg`` and returns their paths.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.report.cd_diagram import draw_cd
from treebench.report.figures import new_figure, palette, save
from treebench.stats import across
from treebench.stats.frame import cell_summary, means_matrix, select_trials
from treebench.stats.metrics import metric_in

PLOTS = ("leaves", "param", "cd")


def plot_leaves(
    frame: pd.DataFrame,
    path: Path,
    *,
    metric: str = "n_leaves",
    datasets: Sequence[str] | None = None,
    algorithms: Sequence[str] | None = None,
    log: bool | None = None,
) -> list[Path]:
    """Grouped bars: mean ``metric`` (default leaves) per dataset, one bar per algorithm.

    Error bars are ± one std over trials.  A log scale is used when the means
    span more than two orders of magnitude (``log=None``), so small trees stay
    visible next to large ones.
    """
    m = metric_in(frame, metric)
    trials = select_trials(frame, m, datasets=datasets, algorithms=algorithms)
    summary = cell_summary(trials)
    ds, algs = list(trials.datasets), list(trials.algorithms)
    mean = summary.pivot(index="dataset", columns="algorithm", values="mean").reindex(index=ds, columns=algs)
    std = summary.pivot(index="dataset", columns="algorithm", values="std").reindex(index=ds, columns=algs)
    positive = mean.to_numpy()[mean.to_numpy() > 0]
    if log is None:
        log = positive.size > 0 and positive.max() / positive.min() > 100

    width = max(6.5, 0.28 * len(ds) * len(algs) + 1.8)
    fig, ax = new_figure(min(width, 18.0), 4.6)
    group = 0.8
    bar = group / len(algs)
    x = np.arange(len(ds))
    for i, (alg, colour) in enumerate(zip(algs, palette(len(algs)))):
        ax.bar(x - group / 2 + (i + 0.5) * bar, mean[alg].to_numpy(), bar * 0.92,
               yerr=np.nan_to_num(std[alg].to_numpy()), label=alg, color=colour,
               error_kw={"elinewidth": 0.7, "capsize": 1.5, "ecolor": "0.3"})
    ax.set_xticks(x)
    ax.set_xticklabels(ds, rotation=35 if len(ds) > 4 else 0, ha="right" if len(ds) > 4 else "center")
    ax.set_xlim(-0.6, len(ds) - 0.4)
    ax.set_ylabel(f"mean {m.label}" + (" (log scale)" if log else ""))
    if log:
        ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(ncol=len(algs) if len(algs) <= 8 else (len(algs) + 1) // 2, loc="lower center", bbox_to_anchor=(0.5, 1.01), frameon=False, fontsize=9)
    return save(fig, path)


def _param_values(frame: pd.DataFrame, param: str) -> pd.Series:
    """The value of ``param`` per trial: tuned (``chosen``) first, then ``params``."""
    def read(text: object) -> float:
        try:
            data = json.loads(text) if isinstance(text, str) and text else {}
        except ValueError:
            return math.nan
        v = data.get(param) if isinstance(data, dict) else None
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan

    values = pd.Series(np.nan, index=frame.index)
    for col in ("params", "chosen"):
        if col in frame.columns:
            values = frame[col].map(read).where(lambda s: s.notna(), values)
    return values


def plot_param(
    frame: pd.DataFrame,
    path: Path,
    *,
    param: str,
    dataset: str | None = None,
    metrics: Sequence[str] = ("accuracy", "n_nodes"),
    algorithms: Sequence[str] | None = None,
) -> list[Path]:
    """Metrics against a hyperparameter (e.g. a criterion's parameter): one panel per metric.

    Each line is one algorithm (one per dataset and algorithm when several
    datasets are plotted); the band is ± one std over trials at that value.

    Raises
    ------
    TreebenchError
        When no trial records ``param`` or it takes fewer than two values.
    """
    data = frame
    if "status" in data.columns:
        data = data[data["status"].astype(str) == "ok"]
    if dataset is not None:
        if dataset not in set(data["dataset"].astype(str)):
            known = ", ".join(sorted(set(data["dataset"].astype(str))))
            raise TreebenchError(f"unknown dataset {dataset!r} in the results; accepted: {known}")
        data = data[data["dataset"].astype(str) == dataset]
    if algorithms:
        data = data[data["algorithm"].isin(list(algorithms))]
    data = data.assign(_x=_param_values(data, param)).dropna(subset=["_x"])
    if data["_x"].nunique() < 2:
        raise TreebenchError(
            f"no trials vary parameter {param!r}" + (f" on {dataset}" if dataset else "")
            + "; plot param needs results at two or more values (a grid run without tuning)"
        )
    several = data["dataset"].nunique() > 1
    data = data.assign(_line=data["dataset"] + " / " + data["algorithm"] if several else data["algorithm"])
    lines = list(dict.fromkeys(data["_line"]))
    fig, axes = new_figure(5.0 * len(metrics) + 0.6, 3.9, ncols=len(metrics))
    axes = np.atleast_1d(axes)
    for ax, metric in zip(axes, metrics):
        m = metric_in(frame, metric)
        for line, colour in zip(lines, palette(len(lines))):
            sub = data[data["_line"] == line]
            g = pd.to_numeric(sub[metric], errors="coerce").groupby(sub["_x"]).agg(["mean", "std"]).sort_index()
            y, s = g["mean"] * m.scale, g["std"].fillna(0) * m.scale
            ax.plot(g.index, y, marker="o", ms=3.5, lw=1.4, color=colour, label=line)
            ax.fill_between(g.index, y - s, y + s, color=colour, alpha=0.15, lw=0)
            best = y.idxmax() if m.higher_is_better else y.idxmin()
            ax.plot([best], [y[best]], marker="*", ms=11, color=colour, mec="black", mew=0.6, zorder=5)
        ax.set_xlabel(param)
        ax.set_ylabel(m.label + (f" ({m.unit})" if m.unit else ""))
        ax.grid(alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
    title = f"{dataset}: " if dataset else ""
    fig.suptitle(f"{title}{' and '.join(metric_in(frame, x).label for x in metrics)} against {param} (★ = best)",
                 fontsize=11)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(lines), 4), frameon=False,
               bbox_to_anchor=(0.5, -0.02 - 0.045 * ((len(lines) - 1) // 4)), fontsize=9)
    fig.tight_layout(rect=(0, 0.06 + 0.045 * ((len(lines) - 1) // 4), 1, 1))
    return save(fig, path)


def plot_cd(
    frame: pd.DataFrame,
    path: Path,
    *,
    metric: str = "accuracy",
    alpha: float = 0.05,
    datasets: Sequence[str] | None = None,
    algorithms: Sequence[str] | None = None,
) -> list[Path]:
    """Friedman + Nemenyi critical-difference diagram of per-dataset mean ranks."""
    m = metric_in(frame, metric)
    trials = select_trials(frame, m, datasets=datasets, algorithms=algorithms)
    means, _ = means_matrix(trials)
    res = across.friedman(means, m.higher_is_better, alpha)
    title = (f"{m.label} ranks over {res.n_datasets} datasets\n"
             f"Friedman p = {res.p_value:.3g}; Nemenyi CD = {res.cd:.2f} at alpha = {alpha:g}")
    return draw_cd(res.ranks, res.cd, res.groups, path, title=title)
