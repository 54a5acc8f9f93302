"""Paper 000: the tree sizes of Fig. 4 under every reading, and the O-ΠTree size claim.

Fig. 4's paragraph makes three size statements, each about its own algorithms:

* "LogTree always produces the most complex trees" -- LogTree against PrunTree, ΠTree and J4.8
  (the same paragraph sets O-ΠTree apart in its next sentences), a
  :class:`~treebench.report.claims.MostClaim` with ``others``;
* "O-ΠTree ... may in three cases induce the largest trees" -- :class:`FewCasesLargestClaim`,
  O-ΠTree against the four others of the figure;
* §4.2's "the tree will grow up slowly" -- read as O-ΠTree's trees being no larger than ΠTree's,
  the same gain grown in batch (a :class:`~treebench.report.claims.FewerClaim` in the spec).

``o-pitree-batch-tuned`` is never compared with: the paper did not run it; it stands in for
O-ΠTree only under its own reading.  :func:`sizes_section` lists, per reading, the mean leaves of
the five algorithms of Fig. 4 per dataset, so that every grade of these claims can be checked
against the numbers behind it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from treebench.report.claims import TREND, ClaimOutcome, Effect
from treebench.report.registry import claim_kind
from treebench.report.sections import Section

if TYPE_CHECKING:
    import pandas as pd

    from treebench.report.spec import Reading

#: Fig. 4's algorithms (reference names) and their headings, in the figure's order.
FIG4: dict[str, str] = {"logtree": "LogTree", "pruntree": "PrunTree", "pitree": "ΠTree", "o-pitree": "O-ΠTree",
                        "j48": "J4.8"}
#: "As expected LogTree always produces the most complex trees": against these (not O-ΠTree, set apart).
LOGTREE_RIVALS = ("pruntree", "pitree", "j48")
#: "O-ΠTree ... may in three cases induce the largest trees": against the other four of Fig. 4.
OPITREE_RIVALS = ("logtree", "pruntree", "pitree", "j48")
#: The size table's column of O-ΠTree's leaves over ΠTree's.
RATIO = "O-ΠTree / ΠTree"


@claim_kind("few_cases_largest")
@dataclass(frozen=True)
class FewCasesLargestClaim:
    """"``a`` induces the largest trees in (at most) ``cases`` cases" among ``a`` and ``others`` (a figure).

    Effect (``trend``): the net share of datasets where ``a``'s mean ``metric``
    is *not* the largest (not the largest +1, tied 0, the largest -1); the
    paper's is what it states over the ``of`` datasets of its figure,
    ``(of - 2 cases) / of`` (kept in the calibrated view: the figure does not
    say which datasets the cases are).  Literal view: the largest on at most
    ``cases`` datasets.
    """

    text: str
    a: str
    others: tuple[str, ...]
    metric: str
    cases: int
    of: int

    kind = TREND

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Count the datasets where ``a`` is the largest of ``a`` and ``others``, and the effect."""
        out = ClaimOutcome(self.text, f"yes, in {self.cases} cases (figure)", "–", "not run", None)
        wide = _wide_means(frame, [self.a, *self.others], self.metric)
        out.set_effect(self._effect(cells, frame))
        if wide is None or self.a not in wide.columns or wide.shape[1] < 2:
            return out
        wide = wide.dropna(subset=[self.a])
        rest = wide.drop(columns=[self.a]).max(axis=1)
        largest = [str(d) for d in wide.index[wide[self.a] >= rest - 1e-12]]
        out.ours = f"largest on {len(largest)} of {len(wide)} datasets"
        out.literal = len(largest) <= self.cases
        out.details.append(f"{self.a} the largest on: {', '.join(largest) if largest else 'none'}")
        return out

    def _effect(self, cells: pd.DataFrame, frame: pd.DataFrame) -> Effect:
        from treebench.report.claims import _measured, _net_share, _Rerun

        measure = f"net share of datasets where {self.a} does not have the largest mean {self.metric} (−1 to +1)"
        paper = ((self.of - 2 * self.cases) / self.of, self.of,
                 f"stated (\"in {self.cases} cases\" of {self.of}), read off a figure")
        rerun = _Rerun(cells, frame)
        algs = rerun.algorithms([self.a])
        if isinstance(algs, str):
            return _measured(measure, paper, [], None, kind=self.kind, empty=algs)
        named = [rerun.match.algorithm(o) for o in self.others]
        units = {}
        for ds in rerun.match.frame_datasets:
            here = rerun.ok[rerun.ok["dataset"] == ds]
            present = [str(o) for o in named if o is not None and (here["algorithm"] == o).any()]
            if present and (here["algorithm"] == algs[0]).any():
                found = rerun.units(algs + present, self.metric, "raw", [ds])
                if ds in found:
                    units[ds] = found[ds]

        def not_largest(m: np.ndarray) -> np.ndarray:
            rest = m[:, 1:].max(axis=1)
            return np.where(m[:, 0] < rest, 1.0, np.where(m[:, 0] > rest, -1.0, 0.0))

        return _measured(measure, paper, units, not_largest, _net_share, kind=self.kind,
                         empty=f"{self.a} and none of {', '.join(self.others)} rerun")


def _wide_means(frame: pd.DataFrame, algorithms: Sequence[str], metric: str) -> pd.DataFrame | None:
    """Datasets x ``algorithms`` (those present) of the mean ``metric`` of the ok trials; ``None`` if none."""
    from treebench.report.cells import Matcher, ok_trials

    ok = ok_trials(frame) if len(frame) else frame
    if not len(ok) or metric not in ok.columns:
        return None
    match = Matcher.of(ok)
    names = {match.algorithm(a): a for a in algorithms}
    names.pop(None, None)
    if not names:
        return None
    rows = ok[ok["algorithm"].isin(list(names))]
    wide = rows.pivot_table(index="dataset", columns="algorithm", values=metric, aggfunc="mean")
    return wide.rename(columns=names)[[a for a in algorithms if a in names.values()]]


def size_table(view: pd.DataFrame) -> pd.DataFrame:
    """Per dataset where O-ΠTree ran: Fig. 4's five algorithms' mean leaves, O-ΠTree / ΠTree, the largest.

    Columns: :data:`FIG4`'s headings (those rerun), ``O-ΠTree / ΠTree``, ``largest`` (of the five)
    and ``LogTree largest of its rivals`` (``yes``/``no``: against :data:`LOGTREE_RIVALS`).
    """
    import pandas as pd

    wide = _wide_means(view, list(FIG4), "n_leaves")
    if wide is None or "o-pitree" not in wide.columns:
        return pd.DataFrame()
    wide = wide.dropna(subset=["o-pitree"])
    table = wide.rename(columns=FIG4)
    if "pitree" in wide.columns:
        table[RATIO] = wide["o-pitree"] / wide["pitree"]
    table["largest"] = [", ".join(FIG4[a] for a in wide.columns if row[a] >= row.max() - 1e-12)
                        for _, row in wide.iterrows()]
    rivals = [a for a in LOGTREE_RIVALS if a in wide.columns]
    if "logtree" in wide.columns and rivals:
        table["LogTree largest of its rivals"] = np.where(wide["logtree"] >= wide[rivals].max(axis=1) - 1e-12,
                                                          "yes", "no")
    return table


def reading_views(frame: pd.DataFrame, readings: Sequence[Reading],
                  sources: dict[str, pd.DataFrame]) -> list[tuple[str, pd.DataFrame]]:
    """``(name, trials)`` for the default and each reading whose trials are there, as the report judges it."""
    from treebench.report.reproduce import reading_frame

    views = [("default", frame)]
    for reading in readings:
        source = sources.get(reading.name) if reading.config else None
        if reading.config and source is None:
            continue
        seen = frame if source is None else source
        if "algorithm" not in seen.columns or not set(reading.rename) <= set(seen["algorithm"].astype(str)):
            continue
        if not set(reading.rename.values()) & set(FIG4):
            continue  # a reading that leaves Fig. 4's algorithms as they are adds no size table
        views.append((reading.name, reading_frame(frame, reading, source)))
    return views


def _cell(value: object, column: str = "") -> str:
    """Leaves with one decimal, the ratio with two, text as it is, a missing number as ``–``."""
    if isinstance(value, str):
        return value
    if value is None or not np.isfinite(float(value)):
        return "–"
    return f"{float(value):.2f}" if column == RATIO else f"{float(value):.1f}"


def summary_line(table: pd.DataFrame) -> str:
    """One sentence: how often LogTree and O-ΠTree are the largest, and O-ΠTree's size against ΠTree's."""
    n = len(table)
    parts = []
    if "LogTree largest of its rivals" in table.columns:
        parts.append(f"LogTree the largest of LogTree, PrunTree, ΠTree and J4.8 on "
                     f"{int((table['LogTree largest of its rivals'] == 'yes').sum())} of {n}")
    parts.append(f"O-ΠTree the largest of the five on {int(table['largest'].str.contains('O-ΠTree').sum())} of {n}")
    if RATIO in table.columns:
        ratio = table[RATIO]
        parts.append(f"O-ΠTree smaller than ΠTree on {int((ratio < 1).sum())} of {n}, O-ΠTree / ΠTree "
                     f"{ratio.min():.2f} to {ratio.max():.2f} (median {ratio.median():.2f})")
    return "; ".join(parts) + "."


INTRO = ("Mean number of leaves over the trials (10-fold CV) of Fig. 4's five algorithms, under the default "
         "reading and under every reading that changes one of them, on the datasets that reading ran. The three "
         "size statements are graded on these numbers (claims above, and per reading in the readings section), "
         "each on its own algorithms: LogTree against PrunTree, ΠTree and J4.8 (\"always the most complex\"; the "
         "paragraph sets O-ΠTree apart), O-ΠTree against the four others (\"may in three cases induce the largest "
         "trees\"), and O-ΠTree against ΠTree (§4.2: \"will grow up slowly\"). o-pitree-batch-tuned is not one of "
         "the paper's algorithms and is never a rival; it stands in for O-ΠTree under its own reading only.")


def sizes_section(views: Sequence[tuple[str, pd.DataFrame]]) -> Section | None:
    """The section: one table per reading (``views``: name and trials), or ``None`` without O-ΠTree sizes."""
    from treebench.report.formats import tex_escape

    md, tex = [INTRO, ""], [tex_escape(INTRO), ""]
    built = 0
    for name, view in views:
        table = size_table(view)
        if not len(table):
            continue
        built += 1
        columns = list(table.columns)
        head = f"**{name}** ({len(table)} datasets): {summary_line(table)}"
        md += [head, "", "| dataset | " + " | ".join(columns) + " |", "| --- |" + " ---: |" * len(columns)]
        md += [f"| {d} | " + " | ".join(_cell(row[c], c) for c in columns) + " |" for d, row in table.iterrows()]
        md.append("")
        tex += [tex_escape(head.replace("**", "")), "", r"\begin{tabular}{l" + "r" * len(columns) + "}",
                "dataset & " + " & ".join(tex_escape(c) for c in columns) + r" \\ \hline"]
        tex += [tex_escape(str(d)) + " & " + " & ".join(tex_escape(_cell(row[c], c)) for c in columns) + r" \\"
                for d, row in table.iterrows()]
        tex += [r"\end{tabular}", ""]
    if not built:
        return None
    return Section("Tree sizes (Fig. 4) under each reading", md, tex)
