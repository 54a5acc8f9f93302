"""A paper's claims at a glance: one forest-plot row per claim.

Each row shows, on the claim's own scale (claims measure different things:
points of accuracy, a net share of datasets, a count), the paper's effect as
a point, our 95 % interval with our estimate, the zero line, the margin band
of an equivalence claim, and the grade as the colour of our interval.  Rows
whose claim computed no interval show their grade only.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from treebench.report.verdicts import (
    INCONCLUSIVE,
    LARGER,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    REPRODUCED,
    REVERSED,
    SMALLER,
    grade_of,
)

#: Colour of each grade (the page's classes use the same families: green, amber, red, grey).
GRADE_COLOURS = {REPRODUCED: "#1a7f37", SMALLER: "#b7791f", LARGER: "#b7791f", INCONCLUSIVE: "#b7791f",
                 NOT_REPRODUCED: "#c0392b", REVERSED: "#c0392b", NOT_TESTABLE: "#8a8a8a"}
#: File name (without extension) of the plot in a report's folder.
FOREST = "forest"


def _wrap(text: str, width: int = 46) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)[:3])


def forest_plot(claims: list[Any], path: Path) -> list[Path]:
    """Draw the claims (:class:`~treebench.report.claims.ClaimOutcome`) as ``path.png`` and ``path.svg``.

    Returns the written files (none when there is no claim).
    """
    from treebench.report.figures import new_grid, save

    if not claims:
        return []
    fig, axes = new_grid(len(claims), 9.0, 0.62, max_columns=1)
    fig.set_figheight(0.62 * len(claims) + 0.6)  # room for the title above one row
    for ax, claim in zip(axes, claims):
        effect = claim.effect
        grade = grade_of(claim.verdict or (effect.verdict if effect is not None else NOT_TESTABLE))
        colour = GRADE_COLOURS.get(grade, "#8a8a8a")
        ax.set_yticks([])
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        ax.set_ylabel(_wrap(claim.text), rotation=0, ha="right", va="center", fontsize=7, labelpad=8)
        ax.set_ylim(-1, 1)
        xs = [0.0]
        if effect is not None and not math.isnan(effect.low):
            margin = effect.margin if effect.kind == "equivalence" and not math.isnan(effect.margin) else math.nan
            if not math.isnan(margin):
                ax.axvspan(-abs(margin), abs(margin), color="#dddddd", zorder=0)
                xs += [-abs(margin), abs(margin)]
            ax.hlines(0, effect.low, effect.high, color=colour, linewidth=3, zorder=2)
            ax.plot([effect.ours], [0], "o", color=colour, markersize=5, zorder=3)
            xs += [effect.low, effect.high]
        elif effect is not None and not math.isnan(effect.ours):
            # a count or share without an interval (e.g. "3 of 3 pairs"): our point alone, no band
            ax.plot([effect.ours], [0], "o", color=colour, markersize=5, zorder=3)
            xs.append(effect.ours)
        if effect is not None and not math.isnan(effect.paper):
            ax.plot([effect.paper], [0], "D", markerfacecolor="white", markeredgecolor="black", markersize=6,
                    zorder=4)
            xs.append(effect.paper)
        ax.axvline(0, color="black", linewidth=0.8, zorder=1)
        lo, hi = min(xs), max(xs)
        pad = 0.15 * (hi - lo) if hi > lo else 1.0
        ax.set_xlim(lo - pad, hi + pad)
        ax.tick_params(axis="x", labelsize=6)
        ax.text(1.01, 0.5, grade, transform=ax.transAxes, fontsize=7, color=colour, va="center", ha="left")
    fig.suptitle("Claims: paper's effect (◇), our estimate and 95 % interval (coloured by grade), "
                 "0 (line), equivalence margin (grey band); each row on its claim's own scale", fontsize=7)
    # the rows' labels sit left of the axes; save() crops to what is drawn (bbox "tight")
    fig.subplots_adjust(hspace=1.2, top=1 - 0.35 / fig.get_figheight())
    return save(fig, Path(path))
