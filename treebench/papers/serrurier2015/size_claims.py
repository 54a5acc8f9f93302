"""Paper 000's own claim kinds for the rest of Fig. 4's paragraph: similar sizes, accuracy where sizes differ,
O-ΠTree's stability.

The paragraph under Fig. 4 says, besides "LogTree always produces the most
complex trees" and O-ΠTree's "three cases" (:mod:`.sizes`):

* ΠTree "behaves similarly to PrunTree and J4.8 w.r.t. the size of the trees"
  -- :class:`SimilarSizeClaim`, an ``equivalence`` of the log ratio of the mean
  leaves;
* "when the size is significantly different, ... the accuracy of ΠTree is
  better" -- :class:`SizeDiffersClaim`, a ``trend`` over the (dataset, rival)
  pairs whose sizes differ by a paired test;
* "O-ΠTree is less stable" -- :class:`StabilityClaim`, a ``trend`` of the
  spread of the leaves over the folds.

Fig. 4 prints no numbers, so none of them has a paper's effect computed
from a table: what the text states is the paper's side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from treebench.report.claims import (
    EQUIVALENCE,
    TREND,
    ClaimOutcome,
    Effect,
    measured_effect,
    net_share,
    not_testable,
)
from treebench.report.registry import claim_kind

if TYPE_CHECKING:
    import pandas as pd

#: "Similarly" sets no tolerance: ours is a factor of 1.5 either way in mean leaves (chosen before any
#: run and stated in the report; the paper prints no sizes, so no design margin can be derived).
SIMILAR_FACTOR = 1.5


def _rerun(cells: pd.DataFrame, frame: pd.DataFrame, metric: str):
    """The rerun's trials (:class:`~treebench.report.claims._Rerun`), or why ``metric`` cannot be read there."""
    from treebench.report.claims import _Rerun

    rerun = _Rerun(cells, frame)
    if not len(rerun.ok):
        return None, "nothing rerun"
    if metric not in rerun.ok.columns:
        # the paper's Table 1 read as trials has accuracies only: Fig. 4 prints no sizes
        return None, f"no {metric} in the trials (Fig. 4 prints no numbers)"
    return rerun, ""


@claim_kind("similar_size")
@dataclass(frozen=True)
class SimilarSizeClaim:
    """"``a``'s trees are about the size of ``b``'s": the mean log ratio of their mean ``metric`` near 0.

    Effect (``equivalence``): the mean over datasets of ``ln(mean a / mean b)``
    (0: the same size), with the paired two-level bootstrap interval; reproduced
    when the interval lies inside ``± ln factor``.  Literal view: the ratio of
    the means within the factor on every dataset.
    """

    text: str
    a: str
    b: str
    metric: str = "n_leaves"
    factor: float = SIMILAR_FACTOR

    #: "Similarly": no difference beyond a margin.
    kind = EQUIVALENCE

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Per dataset the ratio of the two mean sizes, and the equivalence effect."""
        out = ClaimOutcome(self.text, "similar sizes (figure; no numbers, no tolerance stated)", "–", "not run", None)
        margin = math.log(self.factor)
        measure = (f"mean over datasets of ln({self.a} / {self.b} mean {self.metric}) (0 = the same size; "
                   f"margin ± ln {self.factor:g})")
        paper = (0.0, 0, "stated (\"similarly\"), read off a figure with no numbers")
        rerun, why = _rerun(cells, frame, self.metric)
        if rerun is None:
            return out.set_effect(Effect(measure, kind=self.kind, margin=margin, verdict=not_testable(why)))
        algs = rerun.algorithms([self.a, self.b])
        if isinstance(algs, str):
            return out.set_effect(Effect(measure, kind=self.kind, margin=margin, verdict=not_testable(algs)))
        units = {d: rows for d, rows in rerun.units(algs, self.metric, "raw", rerun.match.frame_datasets, paired=True).items()
                 if (rows > 0).all()}
        effect = measured_effect(measure, paper, units, lambda m: np.log(m[:, 0]) - np.log(m[:, 1]),
                                 kind=self.kind, margin=margin, empty=f"no dataset rerun with {self.a} and {self.b}")
        effect.margin_source = (f"our reading of \"similarly\": within a factor of {self.factor:g} either way; the "
                                "paper states no tolerance and Fig. 4 prints no sizes to derive one from")
        out.set_effect(effect)
        if units:
            ratios = {d: float(rows[:, 0].mean() / rows[:, 1].mean()) for d, rows in units.items()}
            inside = [d for d, r in ratios.items() if 1 / self.factor <= r <= self.factor]
            out.ours = (f"{self.a} / {self.b} mean leaves {min(ratios.values()):.2f} to {max(ratios.values()):.2f}; "
                        f"within a factor {self.factor:g} on {len(inside)} of {len(ratios)} datasets")
            out.literal = len(inside) == len(ratios)
            out.details = [f"{d}: {self.a} / {self.b} = {r:.2f}" for d, r in ratios.items()]
        return out


@claim_kind("size_differs")
@dataclass(frozen=True)
class SizeDiffersClaim:
    """"Where ``a``'s trees differ significantly in size from a rival's, ``a`` is the more accurate".

    Units: the (dataset, rival) pairs where a paired ``test`` over the folds
    of ``size_metric`` rejects at ``alpha`` (the paper names no test for sizes;
    Table 1's underlines use a paired t-test, so ours is that).  Effect
    (``trend``): the net share of those units where ``a``'s mean ``metric`` is
    the higher (+1 higher, 0 tied, -1 lower), bootstrapped over the units and
    their folds; the paper's is +1, as stated ("the accuracy of ΠTree is
    better"), no numbers printed.
    """

    text: str
    a: str
    rivals: tuple[str, ...]
    size_metric: str = "n_leaves"
    metric: str = "accuracy"
    test: str = "ttest"
    alpha: float = 0.05

    #: A tendency over the units where the condition holds.
    kind = TREND

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Select the units whose sizes differ, then count where ``a`` is the more accurate."""
        from treebench.report.claims import _higher, _unit
        from treebench.stats.paired import run_paired

        out = ClaimOutcome(self.text, "ΠTree better where sizes differ significantly (figure and Table 1)", "–",
                           "not run", None)
        measure = (f"net share of (dataset, rival) pairs with significantly different {self.size_metric} where "
                   f"{self.a} has the better mean {self.metric} (−1 to +1)")
        paper = (1.0, 0, "stated (\"the accuracy of ΠTree is better\"), no numbers printed")
        rerun, why = _rerun(cells, frame, self.size_metric)
        if rerun is None:
            return out.set_effect(Effect(measure, kind=self.kind, verdict=not_testable(why)))
        sign = 1.0 if _higher(self.metric) else -1.0
        unit = _unit(cells, self.metric)
        units: dict[str, np.ndarray] = {}
        for rival in self.rivals:
            algs = rerun.algorithms([self.a, rival])
            if isinstance(algs, str):
                out.details.append(f"{rival}: {algs}")
                continue
            sizes = rerun.units(algs, self.size_metric, "raw", rerun.match.frame_datasets, paired=True)
            scores = rerun.units(algs, self.metric, unit, list(sizes), paired=True)
            for dataset, rows in sizes.items():
                if len(rows) < 2 or dataset not in scores:
                    continue
                p = run_paired(self.test, rows[:, 0], rows[:, 1]).p_value
                if math.isnan(p) or p >= self.alpha:
                    continue
                acc = scores[dataset]
                units[f"{dataset} / {rival}"] = acc
                out.details.append(f"{dataset} / {rival}: leaves {rows[:, 0].mean():.1f} vs {rows[:, 1].mean():.1f} "
                                   f"(p = {p:.2g}); {self.metric} {acc[:, 0].mean():.4g} vs {acc[:, 1].mean():.4g}")
        effect = measured_effect(measure, paper, units, lambda m: np.sign(sign * (m[:, 0] - m[:, 1])), net_share,
                                 kind=self.kind, empty=f"no dataset where {self.a}'s size differs significantly "
                                                       f"from {' or '.join(self.rivals)}'s")
        out.set_effect(effect)
        if units:
            out.ours = (f"sizes differ on {len(units)} (dataset, rival) pairs; {self.a} more accurate on "
                        f"{effect.holds}, less on {effect.fails}")
            out.literal = effect.holds == len(units)
        return out


@claim_kind("stability")
@dataclass(frozen=True)
class StabilityClaim:
    """"``a`` is less stable than ``b``": a larger spread of ``metric`` over the folds, per dataset.

    Spread: the coefficient of variation (population std over mean) of the
    fold values.  Effect (``trend``): the net share of datasets where ``a``'s
    is the larger, bootstrapped over datasets and folds (the folds' values
    and their squares are resampled together, so each draw's spread is
    recomputed).  The paper prints no number (NaN): the grade is the
    direction.
    """

    text: str
    a: str
    b: str
    metric: str = "n_leaves"

    #: A tendency over datasets.
    kind = TREND

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Per dataset the two coefficients of variation, and the effect."""
        out = ClaimOutcome(self.text, "less stable (figure, no numbers)", "–", "not run", None)
        measure = (f"net share of datasets where {self.a}'s {self.metric} varies more over the folds than "
                   f"{self.b}'s (coefficient of variation; −1 to +1)")
        paper = (math.nan, 0, "stated (\"less stable\"), no numbers printed")
        rerun, why = _rerun(cells, frame, self.metric)
        if rerun is None:
            return out.set_effect(Effect(measure, kind=self.kind, verdict=not_testable(why)))
        algs = rerun.algorithms([self.a, self.b])
        if isinstance(algs, str):
            return out.set_effect(Effect(measure, kind=self.kind, verdict=not_testable(algs)))
        found = rerun.units(algs, self.metric, "raw", rerun.match.frame_datasets, paired=True)
        units = {d: np.column_stack([rows, rows ** 2]) for d, rows in found.items() if len(rows) >= 2}
        effect = measured_effect(measure, paper, units, lambda m: np.sign(_cv(m[:, 0], m[:, 2]) - _cv(m[:, 1], m[:, 3])),
                                 net_share, kind=self.kind, empty=f"no dataset rerun with {self.a} and {self.b} "
                                                                  "on two folds or more")
        out.set_effect(effect)
        for d, m in units.items():
            means = m.mean(axis=0)
            out.details.append(f"{d}: coefficient of variation {self.a} {_cv(means[0], means[2]):.2f}, "
                               f"{self.b} {_cv(means[1], means[3]):.2f}")
        if units:
            out.ours = f"{self.a} varies more on {effect.holds} of {effect.counted} datasets (less on {effect.fails})"
            out.literal = effect.holds > effect.counted / 2
        return out


def _cv(mean: np.ndarray | float, mean_square: np.ndarray | float) -> np.ndarray:
    """Coefficient of variation from the mean and the mean of squares (population std / mean)."""
    mean, mean_square = np.asarray(mean, dtype=float), np.asarray(mean_square, dtype=float)
    std = np.sqrt(np.maximum(mean_square - mean ** 2, 0.0))
    return np.divide(std, mean, out=np.zeros_like(std), where=mean > 0)
