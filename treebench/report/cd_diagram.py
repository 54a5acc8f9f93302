"""Critical-difference diagrams (Demšar 2006, Fig. 1), drawn with matplotlib.

The axis carries the average ranks (1 = best, on the left).  Each algorithm
hangs from its rank by an elbow line to its name: the better half on the
left, the rest on the right.  Thick bars under the axis join algorithms that
the Nemenyi test does not separate; the CD interval is drawn above the axis.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from treebench.report.figures import new_figure, save


def draw_cd(
    ranks: pd.Series,
    cd: float,
    groups: list[tuple[str, ...]],
    path: Path,
    *,
    title: str = "",
) -> list[Path]:
    """Draw and save (PNG and SVG) a CD diagram.

    Parameters
    ----------
    ranks
        Average rank per algorithm (1 = best).
    cd
        Critical difference (same scale as the ranks).
    groups
        Cliques of algorithms not significantly different (see
        :func:`treebench.stats.across.cd_groups`).
    path
        Output path without suffix (``.png`` and ``.svg`` are written).
    """
    order = ranks.sort_values(kind="mergesort")
    names, values = list(order.index), list(order.to_numpy(dtype=float))
    k = len(names)
    lo, hi = 1, max(k, 2)
    n_left = (k + 1) // 2
    n_rows = max(n_left, k - n_left)
    longest = max(len(n) for n in names)

    width = 7.0 + 0.08 * longest
    height = 1.2 + 0.32 * n_rows + 0.22 * len(groups)
    fig, ax = new_figure(width, height)
    ax.set_axis_off()
    # Data coordinates: x in rank units, padded for the labels; y downwards.
    pad = (hi - lo) * (0.18 + 0.012 * longest)
    ax.set_xlim(lo - pad, hi + pad)
    axis_y, step = 0.0, 0.32
    bottom = axis_y + 0.35 + 0.22 * len(groups) + step * (n_rows - 1) + 0.2
    ax.set_ylim(bottom, -0.9)

    ax.plot([lo, hi], [axis_y, axis_y], color="black", lw=1.2)
    for r in range(lo, hi + 1):
        ax.plot([r, r], [axis_y, axis_y - 0.09], color="black", lw=1.0)
        ax.text(r, axis_y - 0.14, str(r), ha="center", va="bottom", fontsize=10)
    for r in range(lo, hi):
        ax.plot([r + 0.5, r + 0.5], [axis_y, axis_y - 0.05], color="black", lw=0.8)
    # CD interval above the axis, starting at rank 1.
    cd_y = -0.62
    ax.plot([lo, lo + cd], [cd_y, cd_y], color="black", lw=1.4)
    for x in (lo, lo + cd):
        ax.plot([x, x], [cd_y - 0.06, cd_y + 0.06], color="black", lw=1.4)
    ax.text(lo + cd / 2, cd_y - 0.08, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=10)

    # Group bars just under the axis, one row each.
    for i, g in enumerate(groups):
        xs = [values[names.index(n)] for n in g]
        y = axis_y + 0.18 + 0.22 * i
        ax.plot([min(xs) - 0.03, max(xs) + 0.03], [y, y], color="black", lw=3.2, solid_capstyle="round")

    # Elbow lines to the labels.
    label_top = axis_y + 0.35 + 0.22 * len(groups)
    for i, (name, value) in enumerate(zip(names, values)):
        left = i < n_left
        row = i if left else (k - 1 - i)
        y = label_top + step * row
        x_end = lo - pad * 0.15 if left else hi + pad * 0.15
        ax.plot([value, value, x_end], [axis_y, y, y], color="0.25", lw=0.9)
        ax.text(x_end + (-0.05 if left else 0.05), y, f"{name} ({value:.2f})", ha="right" if left else "left",
                va="center", fontsize=10)
    if title:
        ax.set_title(title, fontsize=10, pad=10)
    return save(fig, path)
