"""``treebench plot``: leaves per dataset, metrics against a hyperparameter, CD diagrams,
per-split score distributions.

Each function takes the tidy results frame and an output path without
suffix, writes ``.png`` and ``.svg`` and returns their paths.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.report.cd_diagram import draw_cd
from treebench.report.figures import new_figure, new_grid, palette, save
from treebench.stats import across
from treebench.stats.frame import cell_summary, means_matrix, select_trials
from treebench.stats.metrics import metric_in

PLOTS = ("leaves", "param", "cd", "scores")


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


def _json_values(frame: pd.DataFrame, column: str, param: str) -> pd.Series:
    """The numeric value of ``param`` in each trial's JSON ``column`` (NaN where absent)."""
    def read(text: object) -> float:
        try:
            data = json.loads(text) if isinstance(text, str) and text else {}
        except ValueError:
            return math.nan
        v = data.get(param) if isinstance(data, dict) else None
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan

    if column not in frame.columns:
        return pd.Series(np.nan, index=frame.index, dtype=float)
    return frame[column].map(read).astype(float)


def _other_params(text: object, param: str) -> str:
    """The trial's ``params`` JSON without ``param`` (what must agree along one curve)."""
    try:
        data = json.loads(text) if isinstance(text, str) and text else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    return json.dumps({k: v for k, v in data.items() if k != param}, sort_keys=True)


def _stem(name: str, param: str) -> str:
    """``tree-q0.5`` -> ``tree``: an algorithm name without its trailing value (and param name)."""
    stem = re.sub(r"[\d.]+$", "", name).rstrip("-_=")
    if stem.lower().endswith(param.lower()):
        stem = stem[: len(stem) - len(param)].rstrip("-_=")
    return stem or name


def _sweep_lines(data: pd.DataFrame, param: str) -> pd.Series:
    """One curve label per trial: an algorithm that takes several values of ``param`` is its own
    curve; algorithms fixing one value each (``name-q0.5``, ``name-q1``, ...) join the curve of
    their name's stem and other params."""
    values_per_alg = data.groupby("algorithm")["_x"].nunique()
    others = data["params"].map(lambda t: _other_params(t, param)) if "params" in data.columns else ""
    single = data["algorithm"].map(values_per_alg) < 2
    stems = data["algorithm"].astype(str).map(lambda n: _stem(n, param))
    key = pd.Series(np.where(single, stems + "\x00" + others, data["algorithm"].astype(str) + "\x00*"),
                    index=data.index)
    # A stem shared by groups with different other params would draw two curves under one name.
    label = key.str.split("\x00").str[0]
    clash = key.groupby(label).transform("nunique") > 1
    label = label.where(~clash, label + " " + key.str.split("\x00").str[1])
    return label


def plot_param(
    frame: pd.DataFrame,
    path: Path,
    *,
    param: str,
    dataset: str | None = None,
    metrics: Sequence[str] = ("accuracy", "n_nodes"),
    algorithms: Sequence[str] | None = None,
) -> list[Path]:
    """A sensitivity curve: metrics against a hyperparameter fixed (not tuned) at each value.

    The values come from the trials' ``params``; trials whose value was chosen by inner-CV
    tuning (``param`` in their ``chosen`` column) are left out, since the outer-fold score
    grouped by the tuned choice is not how the metric responds to the parameter.  One curve per
    dataset and algorithm: an algorithm that takes several values (a plugin sweep) is its own
    curve; algorithms fixing one value each (``tree-q0.5``, ``tree-q1``, ... with
    ``params: {q: ...}``) are joined by their name's stem.  Points are means over trials, the
    band ± one std; one panel per metric.

    Raises
    ------
    TreebenchError
        When only tuned trials carry ``param`` (one line naming the config change that makes an
        untuned sweep), or no trial fixes it at two or more values.
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
    tuned = _json_values(data, "chosen", param).notna()
    data = data[~tuned].assign(_x=_json_values(data[~tuned], "params", param)).dropna(subset=["_x"])
    if data.empty or data.groupby("dataset")["_x"].nunique().max() < 2:
        where = f" on {dataset}" if dataset else ""
        if tuned.any():
            raise TreebenchError(
                f"{param} was tuned by inner CV in these results{where} (it is in the trials' `chosen`), and "
                f"scores grouped by the tuned value are not a sensitivity curve; sweep it untuned: list the values "
                f"as separate algorithms with `params: {{{param}: VALUE}}` and no `grid:` or `tune_as:` "
                f"(e.g. name: NAME-{param}0.5, ...), one per value, then run the config and plot that store"
            )
        raise TreebenchError(
            f"no trials vary parameter {param!r}{where}; plot param needs an untuned sweep at two or more values: "
            f"one algorithm per value with `params: {{{param}: VALUE}}` and no `grid:`"
        )
    data = data.assign(_line=_sweep_lines(data, param))
    several = data["dataset"].nunique() > 1
    if several:
        data = data.assign(_line=data["dataset"].astype(str) + " / " + data["_line"])
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
            if len(g) > 1 and y.notna().any():
                best = y.idxmax() if m.higher_is_better else y.idxmin()
                ax.plot([best], [y[best]], marker="*", ms=11, color=colour, mec="black", mew=0.6, zorder=5)
        ax.set_xlabel(f"{param} (fixed, untuned)")
        ax.set_ylabel(m.label + (f" ({m.unit})" if m.unit else ""))
        ax.grid(alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
    title = f"{dataset}: " if dataset else ""
    fig.suptitle(f"{title}{' and '.join(metric_in(frame, x).label for x in metrics)} against {param}, "
                 f"mean ± std over splits (★ = best mean)", fontsize=11)
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


def plot_scores(
    frame: pd.DataFrame,
    path: Path,
    *,
    metric: str = "accuracy",
    datasets: Sequence[str] | None = None,
    algorithms: Sequence[str] | None = None,
    style: str = "box",
) -> list[Path]:
    """One panel per dataset: the distribution of ``metric`` over the splits, per algorithm.

    ``style`` is ``box`` (quartiles, whiskers at 1.5 IQR) or ``violin`` (a density, with the
    median marked); every split's value is drawn on top as a dot, so a handful of folds is
    never hidden behind a box.  The mean is a white diamond.
    """
    if style not in ("box", "violin"):
        raise TreebenchError(f"unknown style {style!r}; accepted: box, violin")
    m = metric_in(frame, metric)
    trials = select_trials(frame, m, datasets=datasets, algorithms=algorithms)
    ds, algs = list(trials.datasets), list(trials.algorithms)
    colours = palette(len(algs))
    width = max(2.8, 0.55 * len(algs) + 1.2)
    fig, axes = new_grid(len(ds), min(width, 9.0), 3.4)
    rng = np.random.default_rng(0)  # the dots' horizontal jitter only
    for ax, dataset in zip(axes, ds):
        part = trials.frame[trials.frame["dataset"] == dataset]
        values = [part.loc[part["algorithm"] == a, "value"].to_numpy() * m.scale for a in algs]
        positions = np.arange(1, len(algs) + 1)
        drawn = [(p, v) for p, v in zip(positions, values) if v.size]
        if style == "violin" and drawn:
            parts = ax.violinplot([v for _, v in drawn], [p for p, _ in drawn], showmedians=True, widths=0.8)
            for body, p in zip(parts["bodies"], (p for p, _ in drawn)):
                body.set_facecolor(colours[p - 1])
                body.set_alpha(0.35)
        elif drawn:
            boxes = ax.boxplot([v for _, v in drawn], positions=[p for p, _ in drawn], widths=0.6,
                               patch_artist=True, showfliers=False)
            for box, p in zip(boxes["boxes"], (p for p, _ in drawn)):
                box.set_facecolor(colours[p - 1])
                box.set_alpha(0.35)
        for p, v in drawn:
            ax.scatter(p + rng.uniform(-0.12, 0.12, v.size), v, s=9, color=colours[p - 1], zorder=3, linewidths=0)
            ax.scatter([p], [v.mean()], marker="D", s=22, color="white", edgecolors="black", zorder=4)
        ax.set_title(dataset, fontsize=10)
        ax.set_xticks(positions)
        ax.set_xticklabels(algs, rotation=35 if len(algs) > 3 else 0, ha="right" if len(algs) > 3 else "center",
                           fontsize=8)
        ax.set_ylabel(m.label + (f" ({m.unit})" if m.unit else ""), fontsize=9)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        ax.spines[["top", "right"]].set_visible(False)
    n_splits = trials.frame.groupby(["dataset", "algorithm"]).size()
    fig.suptitle(f"{m.label} over the splits ({int(n_splits.min())}–{int(n_splits.max())} per cell; "
                 "dots: splits, diamond: mean)" if n_splits.min() != n_splits.max() else
                 f"{m.label} over {int(n_splits.iloc[0])} splits per cell (dots: splits, diamond: mean)",
                 fontsize=10)
    fig.tight_layout()
    return save(fig, path)
