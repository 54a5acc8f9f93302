"""Paper 000, Figures 2-3: the random-tree experiment drawn, smoothed and checked.

* :func:`lowess` — tricube-weighted local-linear smoother (Cleveland 1979, no
  robustness iterations), in numpy;
* :func:`plot_entropy_vs_size` (Fig. 2) and :func:`plot_accuracy_vs_entropy`
  (Fig. 3): classical entropy on top (trees thresholded with the log entropy),
  ``H*(T, gamma)`` below (trees thresholded with the possibilistic entropy),
  as in the paper -- first in the default reading of eq. 18 (weighted by the
  leaves' shares of the examples, see :data:`READING`), then as printed
  (an unweighted sum), so both are drawn;
* :func:`summarize` — the paper's qualitative claims as booleans with the
  numbers behind them, the H* ones under both readings;
* :func:`random_trees_section` — the section of ``treebench reproduce
  serrurier2015`` (runs the experiment of
  :mod:`treebench.papers.serrurier2015.random_trees`, or reuses
  ``random_trees.csv`` in the report folder when it was made with the same
  settings).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from treebench.report.figures import new_figure, save
from treebench.report.sections import Section

#: The default reading of eq. 18 for Figs. 2-3 (column of the random-tree frame) and the other one.
H_STAR = "h_star_weighted"
H_STAR_PRINTED = "h_star"
#: Why the default is the weighted sum; from the paper's text only (also in docs/reports.md).
READING = (
    "Reading of eq. 18 for Figs. 2–3: H*(T, γ) = Σ_l n_l/N · H*(p_l, n_l, γ), the leaves weighted by their share "
    "of the training examples (default); eq. 18 as printed, Σ_l H*(p_l, n_l, γ) without weights, is drawn and "
    "checked beside it. The text supports the weights: (1) Fig. 2 puts H*(T, γ) beside \"the classical entropy of "
    "the tree\", which \"always decreases when its size increases\" -- true of the weighted Σ n_l/N · H(p_l) "
    "(a split never raises it), not of an unweighted Σ H(p_l), which grows with every split into impure leaves; "
    "(2) H* is said to increase \"when the tree becomes too complex w.r.t. the number of examples\": weighted, a "
    "split changes the measure by −(n/N) times eq. 17's gain (children at γ), which §4.1 says turns negative "
    "when a split \"has no statistically significant advantage\"; unweighted, every new leaf adds a positive "
    "term whatever its number of examples; (3) §4.1 introduces eq. 18 right after eq. 17, whose children are "
    "weighted by |v_k|/n. Against it: the printed formula carries no weight."
)
#: The panels: (rule whose trees are shown, measure column, label).
PANELS = (("log", "entropy", "classical entropy (bits)"),
          ("possibilistic", H_STAR, "weighted H*(T, γ)"),
          ("possibilistic", H_STAR_PRINTED, "unweighted H*(T, γ)"))
#: Panel titles' endings naming the reading of eq. 18.
_READING_TITLES = {H_STAR: ";\ndefault reading of eq. 18, H*(T, γ) = Σ_l n_l/N · H*(p_l, n_l, γ)",
                   H_STAR_PRINTED: ";\neq. 18 as printed, H*(T, γ) = Σ_l H*(p_l, n_l, γ)"}
SPAN = 0.3


def lowess(x: np.ndarray, y: np.ndarray, grid: np.ndarray | None = None, *, frac: float = SPAN) -> np.ndarray:
    """Locally weighted linear regression of ``y`` on ``x`` at ``grid`` (default: at ``x``).

    Each point of ``grid`` fits a straight line to its ``ceil(frac * n)``
    nearest ``x`` with tricube weights ``(1 - (d / d_max)^3)^3``, ``d_max``
    the distance to the farthest of them; the fit's value there is returned.
    A line (and so a straight curve) is reproduced exactly.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    grid = x if grid is None else np.asarray(grid, dtype=float)
    n = x.size
    if n == 0:
        return np.full(grid.shape, np.nan)
    r = min(n, max(2, int(math.ceil(frac * n))))
    out = np.empty(grid.size)
    for start in range(0, grid.size, 256):  # blocks bound the memory of the distance matrix
        g = grid.ravel()[start:start + 256]
        d = np.abs(x[None, :] - g[:, None])
        h = np.partition(d, r - 1, axis=1)[:, r - 1:r]
        h = np.where(h > 0, h * (1 + 1e-12), 1.0)
        w = np.clip(1.0 - (d / h) ** 3, 0.0, None) ** 3
        sw = w.sum(axis=1)
        mx = (w @ x) / sw
        my = (w @ y) / sw
        dx = x[None, :] - mx[:, None]
        sxx = (w * dx * dx).sum(axis=1)
        sxy = (w * dx * (y[None, :] - my[:, None])).sum(axis=1)
        slope = np.divide(sxy, sxx, out=np.zeros_like(sxy), where=sxx > 1e-12 * np.maximum(1.0, sw))
        out[start:start + g.size] = my + slope * (g - mx)
    return out.reshape(grid.shape)


def _curve(x: np.ndarray, y: np.ndarray, points: int = 120, frac: float = SPAN) -> tuple[np.ndarray, np.ndarray]:
    grid = np.linspace(np.min(x), np.max(x), points)
    return grid, lowess(x, y, grid, frac=frac)


def _panel_data(frame: pd.DataFrame, rule: str) -> pd.DataFrame:
    return frame[frame["rule"].astype(str) == rule]


def _style(ax: Any) -> None:
    ax.grid(alpha=0.3)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)


def _panels(frame: pd.DataFrame, path: Path, x_of, y_of, xlabel_of, ylabel_of, title: str,
            mark_min: bool) -> list[Path]:
    fig, axes = new_figure(6.4, 10.5)
    fig.clf()
    axes = fig.subplots(len(PANELS), 1)
    n_reps = frame["repetition"].nunique() if len(frame) else 0
    for ax, (rule, measure, label), colour in zip(axes, PANELS, ("tab:blue", "tab:orange", "tab:gray")):
        sub = _panel_data(frame, rule)
        x, y = x_of(sub, measure), y_of(sub, measure)
        ax.scatter(x, y, s=4, alpha=0.12 if len(sub) > 2000 else 0.35, color=colour, lw=0, rasterized=True,
                   label=f"{len(sub)} trees")
        if len(sub) >= 5:
            gx, gy = _curve(x.to_numpy(), y.to_numpy())
            ax.plot(gx, gy, color="black", lw=2.0, label=f"LOWESS (span {SPAN:g})")
            if mark_min:
                i = int(np.argmin(gy))
                ax.plot([gx[i]], [gy[i]], marker="v", ms=9, color="crimson", zorder=5,
                        label=f"smoothed minimum at {gx[i]:.0f} leaves")
        ax.set_xlabel(xlabel_of(label))
        ax.set_ylabel(ylabel_of(label))
        reading = _READING_TITLES.get(measure, "")
        ax.set_title(f"threshold by {'log entropy' if rule == 'log' else 'possibilistic entropy'}{reading}",
                     fontsize=10)
        from matplotlib.lines import Line2D

        handles, labels = ax.get_legend_handles_labels()
        handles[0] = Line2D([], [], ls="", marker="o", ms=4, color=colour, alpha=0.6)
        ax.legend(handles, labels, loc="best", fontsize=8, frameon=False)
        _style(ax)
    fig.suptitle(f"{title} ({n_reps} random 90/10 splits)", fontsize=11)
    fig.tight_layout()
    return save(fig, path)


def plot_entropy_vs_size(frame: pd.DataFrame, path: Path) -> list[Path]:
    """Fig. 2: training entropy of the tree against its number of leaves."""
    return _panels(frame, path, lambda s, m: s["n_leaves"], lambda s, m: s[m],
                       lambda label: "tree size (leaves)", lambda label: f"training {label}",
                       "Tree entropy against size on yeast", mark_min=True)


def plot_accuracy_vs_entropy(frame: pd.DataFrame, path: Path) -> list[Path]:
    """Fig. 3: test accuracy against the tree's training entropy."""
    return _panels(frame, path, lambda s, m: s[m], lambda s, m: s["accuracy"],
                       lambda label: f"training {label}", lambda label: "test accuracy",
                       "Test accuracy against tree entropy on yeast", mark_min=False)


# -- the claims --------------------------------------------------------------------------
@dataclass
class FigureClaim:
    """One qualitative claim of Figs. 2-3, judged on our trees.

    Attributes
    ----------
    text
        The claim.
    holds
        Whether our smoothed curves (or rank correlations) show it.
    numbers
        The numbers behind the verdict.
    """

    text: str
    holds: bool | None
    numbers: str


def _interior_minimum(curve: np.ndarray) -> tuple[int, bool]:
    """Where a smoothed curve is lowest, and whether that is strictly below both of its ends."""
    i = int(np.argmin(curve))
    return i, bool(0 < i < len(curve) - 1 and curve[i] < curve[0] - 1e-9 and curve[i] < curve[-1] - 1e-9)


def _h_star_minimum(pos: pd.DataFrame, column: str, text: str) -> FigureClaim:
    gx, gy = _curve(pos["n_leaves"].to_numpy(), pos[column].to_numpy())
    i, interior = _interior_minimum(gy)
    return FigureClaim(text, bool(interior),
                       f"smoothed H* {gy[0]:.3f} at {gx[0]:.0f} leaves, minimum {gy[i]:.3f} at {gx[i]:.0f} "
                       f"leaves, {gy[-1]:.3f} at {gx[-1]:.0f}")


def _h_star_accuracy(pos: pd.DataFrame, column: str, text: str) -> FigureClaim:
    from scipy.stats import spearmanr

    rho, p = spearmanr(pos[column], pos["accuracy"])
    gx, gy = _curve(pos[column].to_numpy(), pos["accuracy"].to_numpy())
    return FigureClaim(text, bool(rho < 0 and p < 0.05),
                       f"Spearman(H*, accuracy) ρ = {rho:+.3f} (p = {p:.2g}); smoothed accuracy "
                       f"{gy[0]:.3f} at the lowest H* {gx[0]:.3f}, {gy[-1]:.3f} at the highest {gx[-1]:.3f}, "
                       f"peak {gy.max():.3f} at {gx[int(np.argmax(gy))]:.3f}")


def summarize(frame: pd.DataFrame) -> list[FigureClaim]:
    """The paper's qualitative claims on our trees (LOWESS span 0.3 on a 120-point grid).

    The H* claims are checked under the default reading of eq. 18 (weighted,
    :data:`H_STAR`) and again as printed (unweighted, :data:`H_STAR_PRINTED`).
    """
    from scipy.stats import spearmanr

    out = []
    log, pos = _panel_data(frame, "log"), _panel_data(frame, "possibilistic")
    if len(log) >= 5:
        gx, gy = _curve(log["n_leaves"].to_numpy(), log["entropy"].to_numpy())
        rises = np.diff(gy)
        worst = float(rises.max()) if rises.size else 0.0
        out.append(FigureClaim("Classical entropy decreases monotonically with size (Fig. 2, top)",
                               bool(worst <= 1e-9),
                               f"smoothed entropy {gy[0]:.3f} bits at {gx[0]:.0f} leaves → {gy[-1]:.3f} at "
                               f"{gx[-1]:.0f}; largest rise between grid points {max(worst, 0.0):.2g} bits; every "
                               "single split lowers or keeps it (a property of the definition)"))
    if len(pos) >= 5:
        out.append(_h_star_minimum(pos, H_STAR, "H*(T, γ) first decreases with size, then increases (interior "
                                                "minimum, Fig. 2, bottom; weighted, the default reading)"))
        out.append(_h_star_minimum(pos, H_STAR_PRINTED, "Same, eq. 18 as printed (Σ_l H*(p_l, n_l, γ), unweighted)"))
    if len(log) >= 5:
        rho, p = spearmanr(log["entropy"], log["accuracy"])
        gx, gy = _curve(log["entropy"].to_numpy(), log["accuracy"].to_numpy())
        i = int(np.argmax(gy))
        plateau = bool(i > 0 and gy[i] - gy[0] > 0.0)
        out.append(FigureClaim("Below some log entropy, lowering it no longer raises test accuracy (Fig. 3, top)",
                               plateau,
                               f"smoothed accuracy peaks at {gy[i]:.3f} for entropy {gx[i]:.3f} bits and is "
                               f"{gy[0]:.3f} at the lowest entropy {gx[0]:.3f}; Spearman(entropy, accuracy) "
                               f"ρ = {rho:+.3f} (p = {p:.2g})"))
    if len(pos) >= 5:
        out.append(_h_star_accuracy(pos, H_STAR, "Lower H*(T, γ) goes with higher test accuracy (Fig. 3, bottom; "
                                                 "weighted, the default reading)"))
        out.append(_h_star_accuracy(pos, H_STAR_PRINTED, "Same, eq. 18 as printed (unweighted)"))
    return out


# -- the reproduction section -------------------------------------------------------------
PAPER_FIG2 = ("Fig. 2 (paper): the classical entropy of the tree always decreases when its size increases; "
              "H*(T, γ) first decreases with size and then increases when the tree becomes too complex "
              "w.r.t. the number of examples.")
PAPER_FIG3 = ("Fig. 3 (paper): there is a threshold below which decreasing log entropy does not increase the "
              "accuracy (over-fitting); decreasing H*(T, γ) on the training set tends to increase the test "
              "accuracy.")


def load_or_run(out_dir: Path, dataset: Any = "yeast", **settings: Any) -> tuple[pd.DataFrame, dict]:
    """The experiment's frame, from ``out_dir/random_trees.csv`` when its settings match, else run and save it."""
    # looked up at call time, so that a test can replace random_trees
    from treebench.papers.serrurier2015.random_trees import (
        VERSION,
        RandomTreeSettings,
        random_trees,
    )

    n_jobs = settings.pop("n_jobs", None)
    wanted = RandomTreeSettings(**settings).as_dict()
    wanted["version"] = VERSION
    wanted["dataset"] = dataset if isinstance(dataset, str) else getattr(dataset, "name", "custom")
    csv, meta_path = out_dir / "random_trees.csv", out_dir / "random_trees.json"
    if csv.exists() and meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("settings") == wanted:
            return pd.read_csv(csv), meta
    start = time.perf_counter()
    frame = random_trees(dataset, n_jobs=n_jobs, **settings)
    meta = {"settings": wanted, "seconds": round(time.perf_counter() - start, 1)}
    from treebench.outpaths import write_text, write_with

    write_with(csv, lambda tmp: frame.to_csv(tmp, index=False))
    write_text(meta_path, json.dumps(meta, indent=1) + "\n")
    return frame, meta


def random_trees_section(out_dir: Path, *, dataset: Any = "yeast", **settings: Any) -> Section:
    """Run (or reuse) the random-tree experiment, draw Figs. 2-3 and check the claims."""
    from treebench.report.formats import tex_escape

    title = "Figures 2–3: random trees on yeast"
    frame, meta = load_or_run(Path(out_dir), dataset, **settings)
    s = meta["settings"]
    fig2 = plot_entropy_vs_size(frame, Path(out_dir) / "random_trees_fig2")[0]
    fig3 = plot_accuracy_vs_entropy(frame, Path(out_dir) / "random_trees_fig3")[0]
    claims = summarize(frame)
    how = (f"{s['n_repetitions']} random {100 - 100 * s['test_fraction']:.0f}/{100 * s['test_fraction']:.0f} "
           f"splits of {s['dataset']} × {s['n_trees']} random trees each, every tree grown twice from the same "
           f"random choices (threshold by log entropy; by possibilistic entropy, γ = {s['gamma']:g}); target "
           f"size uniform on 1..{s['max_leaves']} leaves; seed {s['seed']}; {len(frame)} trees, computed in "
           f"{meta.get('seconds', '?')} s (cached in `random_trees.csv`). γ is our choice: the paper does not "
           "give it. Definitions in docs/reports.md.")
    md = [how, "", READING, "", "| claim | holds on ours | numbers |", "| --- | --- | --- |"]
    md += [f"| {c.text} | {'–' if c.holds is None else ('yes' if c.holds else '**no**')} | {c.numbers} |"
           for c in claims]
    md += ["", f"> {PAPER_FIG2}", "", f"![Fig. 2: tree entropy against size]({fig2.name})", "",
           f"> {PAPER_FIG3}", "", f"![Fig. 3: test accuracy against tree entropy]({fig3.name})", ""]
    tex = [tex_escape(how), "", tex_escape(READING), r"\begin{itemize}"]
    tex += [rf"\item {tex_escape(c.text)}: {'yes' if c.holds else 'no'} --- {tex_escape(c.numbers)}" for c in claims]
    tex += [r"\end{itemize}"]
    for fig, text in ((fig2, PAPER_FIG2), (fig3, PAPER_FIG3)):
        tex += [r"\begin{figure}[htbp]", r"\centering", rf"\includegraphics[width=0.8\linewidth]{{{fig.name}}}",
                rf"\caption{{{tex_escape(text)}}}", r"\end{figure}"]
    return Section(title, md, tex, [fig2, fig3])
