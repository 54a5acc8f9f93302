"""Paper 002's own claim kinds: statements of its section IV about q, about Table II as a whole and about Fig. 1.

Each kind is a frozen dataclass with ``text`` and ``evaluate(cells, frame)``
(a :class:`~treebench.report.claims.Claim`), graded by the rule of its kind
(:mod:`treebench.report.verdicts`).  On the paper's own table (the report's
paper-on-paper grade, :mod:`treebench.report.paper_frame`) ``frame`` holds one
trial per published cell, with the tuned q in a ``q`` column; on the rerun the
chosen q of every split is read from the store (``chosen``, else ``params``).

- :class:`AheadOfAllClaim` (trend): ``a`` is ahead of every one of ``others`` on most datasets.
- :class:`NeitherPrevailsClaim` (count): on each metric, each of two algorithms is ahead somewhere.
- :class:`QNotClassicClaim` (trend): the chosen q is usually neither 1 nor 2.
- :class:`ClassesQClaim` (trend): the more classes a dataset has, the smaller its chosen q.
- :class:`QChainClaim` (count): along a list of datasets, q increases.
- :class:`SameResultsClaim` (equivalence): every algorithm about as accurate on one dataset.
- :class:`SweepOptimumClaim` (count): Fig. 1's optimum on the untuned q sweep.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from treebench.report.claims import (
    COUNT,
    EQUIVALENCE,
    TREND,
    ClaimOutcome,
    Effect,
    measured_effect,
    net_share,
    not_testable,
    rate_design_margin,
)
from treebench.report.registry import claim_kind
from treebench.report.verdicts import MARGINS, judge
from treebench.stats.bootstrap import unit_means

if TYPE_CHECKING:
    import pandas as pd

#: The q values at which Tsallis entropy is Shannon entropy (1) and the Gini index (2), section III-D.
CLASSIC_Q = (1.0, 2.0)
#: Resamples and seed of the intervals this module bootstraps itself (those of the report's effects).
RESAMPLES = 2000
SEED = 20


def _rerun(cells: pd.DataFrame, frame: pd.DataFrame):
    """The report's view of the trials (names matched onto the reference's)."""
    from treebench.report.claims import _Rerun

    return _Rerun(cells, frame)


def _higher(metric: str) -> bool:
    from treebench.report.claims import _higher as higher

    return higher(metric)


def _unit(cells: pd.DataFrame, metric: str) -> str:
    from treebench.report.claims import _unit as unit

    return unit(cells, metric)


def _paper_wide(cells: pd.DataFrame, metric: str) -> pd.DataFrame | None:
    """Datasets x algorithms of the paper's published ``metric`` (``None`` without cells)."""
    if not len(cells) or "dataset_label" not in cells.columns:
        return None
    sub = cells[cells["metric"] == metric]
    return sub.pivot_table(index="dataset_label", columns="algorithm", values="value", aggfunc="mean")


def _source(n: int) -> str:
    return f"its table, {n} dataset{'' if n == 1 else 's'}"


@claim_kind("ahead_of_all")
@dataclass(frozen=True)
class AheadOfAllClaim:
    """"``a`` outperforms every one of ``others`` on ``metric``" (no test): a tendency over datasets.

    Effect: the net share of datasets where ``a``'s mean is better than the best of ``others``'
    (better: +1, tied: 0, worse: −1), on the paper's table and on ours (datasets and splits resampled).
    """

    text: str
    a: str
    others: tuple[str, ...]
    metric: str = "accuracy"

    #: Most datasets, no test.
    kind = TREND

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """The datasets where ``a`` leads, on the paper's table and on ours, and the effect."""
        sign = 1.0 if _higher(self.metric) else -1.0
        out = ClaimOutcome(self.text, f"{self.a} ahead of {', '.join(self.others)}", "–", "not run", None)
        measure = (f"net share of datasets where {self.a} has a better mean {self.metric} than every one of "
                   f"{', '.join(self.others)} (−1 to +1)")
        names = [self.a, *self.others]
        paper = (math.nan, 0, "no numbers in the paper's table")
        wide = _paper_wide(cells, self.metric)
        if wide is not None and all(n in wide for n in names):
            full = wide[names].dropna()
            if len(full):
                signs = np.sign(sign * (full[self.a] - (full[list(self.others)].max(axis=1) if sign > 0
                                                       else full[list(self.others)].min(axis=1))))
                paper = (float(signs.mean()), len(full), _source(len(full)))
                out.paper_numbers = f"{self.a} ahead on {int((signs > 0).sum())} of {len(full)} datasets"
        rerun = _rerun(cells, frame)
        algs = rerun.algorithms(names)
        if isinstance(algs, str):
            return out.set_effect(measured_effect(measure, paper, [], None, kind=self.kind, empty=algs))
        units = rerun.units(algs, self.metric, _unit(cells, self.metric), list(rerun.paper_datasets(self.metric)))

        def ahead(m: np.ndarray) -> np.ndarray:
            best = m[:, 1:].max(axis=1) if sign > 0 else m[:, 1:].min(axis=1)
            return np.sign(sign * (m[:, 0] - best))

        effect = measured_effect(measure, paper, units, ahead, net_share, kind=self.kind,
                                 empty=f"no dataset of the paper's table with {', '.join(names)} rerun")
        if effect.counted:
            out.ours = f"{self.a} ahead on {effect.holds} of {effect.counted} datasets"
            out.literal = effect.holds == effect.counted
        return out.set_effect(effect)


@claim_kind("neither_prevails")
@dataclass(frozen=True)
class NeitherPrevailsClaim:
    """"Neither of ``a`` and ``b`` prevails absolutely": on each of ``metrics``, each is ahead on some dataset.

    A ``count`` over the metrics (means compared, no test): a metric holds when each of the two has a
    better mean on at least one dataset, fails when one of them is ahead (or tied) on every dataset.
    """

    text: str
    a: str
    b: str
    metrics: tuple[str, ...] = ("accuracy", "n_nodes")

    #: Per metric, a yes or no on the means.
    kind = COUNT

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Per metric, the datasets where each is ahead, on the paper's table and on ours."""
        out = ClaimOutcome(self.text, "neither ahead on every dataset", "–", "not run", None)
        measure = (f"metrics ({', '.join(self.metrics)}) on which each of {self.a} and {self.b} has the better "
                   "mean on at least one dataset")
        paper_parts, holds, points = [], 0, []
        wide_ok = True
        for metric in self.metrics:
            wide = _paper_wide(cells, metric)
            if wide is None or self.a not in wide or self.b not in wide:
                wide_ok = False
                continue
            a_ahead, b_ahead = self._ahead(wide[[self.a, self.b]].dropna().to_numpy(), metric)
            paper_parts.append(f"{metric}: {self.a} ahead on {a_ahead}, {self.b} on {b_ahead}")
            holds += a_ahead > 0 and b_ahead > 0
        if paper_parts:
            out.paper_numbers = "; ".join(paper_parts)
        n_paper = len(paper_parts)
        paper = ((holds / n_paper, n_paper, "its table") if wide_ok and n_paper else
                 (math.nan, 0, "no numbers in the paper's table"))
        effect = Effect(measure, paper[0], paper[2], n_paper=paper[1], kind=self.kind)
        rerun = _rerun(cells, frame)
        algs = rerun.algorithms([self.a, self.b])
        if isinstance(algs, str):
            effect.verdict = not_testable(algs)
            return out.set_effect(effect)
        ours_parts = []
        for metric in self.metrics:
            units = rerun.units(algs, metric, _unit(cells, metric), list(rerun.paper_datasets(metric)))
            if not units:
                continue
            means = np.array([unit_means(u) for u in units.values()])
            a_ahead, b_ahead = self._ahead(means, metric)
            ours_parts.append(f"{metric}: {self.a} ahead on {a_ahead}, {self.b} on {b_ahead} of {len(means)}")
            points.append((metric, 1.0 if a_ahead and b_ahead else -1.0))
            effect.datasets = sorted(set(effect.datasets) | {str(d) for d in units})
        if not points:
            effect.verdict = not_testable(f"no dataset of the paper's table with {self.a} and {self.b} rerun")
            return out.set_effect(effect)
        effect.holds = sum(p > 0 for _, p in points)
        effect.fails = sum(p < 0 for _, p in points)
        effect.counted = len(points)
        effect.unit_points = points
        effect.ours = effect.low = effect.high = effect.holds / effect.counted
        effect.n_datasets = len(effect.datasets)
        effect.verdict = judge(effect)
        out.ours = "; ".join(ours_parts)
        out.literal = effect.holds == effect.counted
        return out.set_effect(effect)

    @staticmethod
    def _ahead(pairs: np.ndarray, metric: str) -> tuple[int, int]:
        """How many rows have the first (second) column strictly better."""
        sign = 1.0 if _higher(metric) else -1.0
        d = sign * (pairs[:, 0] - pairs[:, 1]) if len(pairs) else np.array([])
        return int(np.sum(d > 0)), int(np.sum(d < 0))


def _q_units(cells: pd.DataFrame, frame: pd.DataFrame, algorithm: str) -> tuple[dict[str, np.ndarray], dict[str, str],
                                                                             str]:
    """Per dataset of the paper's table, the q chosen on each split (frame name -> array), the frame
    names' paper labels, and why there is nothing (``""`` when there is)."""
    rerun = _rerun(cells, frame)
    algs = rerun.algorithms([algorithm])
    if isinstance(algs, str):
        return {}, {}, algs
    labels = rerun.paper_datasets("q")
    units = rerun.units(algs, "q", "parameter", list(labels))
    if not units:
        return {}, labels, f"no chosen q of {algorithm} in the store"
    return units, labels, ""


@claim_kind("q_not_classic")
@dataclass(frozen=True)
class QNotClassicClaim:
    """"The optimal q ... is usually not equal to 1 or 2" (section III-D): Tsallis is rarely Shannon or Gini.

    Effect (a ``trend``): per dataset, the net share of its splits whose chosen q is neither 1 nor 2
    (+1: none chose 1 or 2; −1: all did), averaged over datasets; the paper's from its one q per
    dataset (Table II).  On a grid of step 0.1 a q of 0.9 or 1.1 counts as "not 1": the sentence says
    "not equal".
    """

    text: str
    algorithm: str = "tsallis"

    kind = TREND

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """The share of the chosen q that are neither 1 nor 2, on the paper's table and on ours."""
        out = ClaimOutcome(self.text, "usually neither 1 nor 2", "–", "not run", None)
        measure = f"net share of {self.algorithm}'s chosen q that are neither 1 nor 2 (per dataset, then mean; −1 to +1)"
        paper = (math.nan, 0, "no q in the paper's table")
        wide = _paper_wide(cells, "q")
        if wide is not None and self.algorithm in wide:
            qs = wide[self.algorithm].dropna().to_numpy(dtype=float)
            if qs.size:
                other = ~np.isin(np.round(qs, 6), CLASSIC_Q)
                paper = (float(np.mean(2.0 * other - 1.0)), int(qs.size), _source(int(qs.size)))
                out.paper_numbers = f"neither 1 nor 2 on {int(other.sum())} of {qs.size} datasets"
        units, _, why = _q_units(cells, frame, self.algorithm)
        if why:
            return out.set_effect(measured_effect(measure, paper, [], None, kind=self.kind, empty=why))
        flags = {d: (~np.isin(np.round(np.asarray(u, dtype=float).reshape(len(u), -1)[:, :1], 6), CLASSIC_Q))
                 .astype(float) for d, u in units.items()}
        effect = measured_effect(measure, paper, flags, lambda m: 2.0 * m[:, 0] - 1.0, kind=self.kind)
        total = sum(len(f) for f in flags.values())
        other = int(sum(f.sum() for f in flags.values()))
        out.ours = f"neither 1 nor 2 on {other} of {total} splits ({len(flags)} datasets)"
        out.literal = other == total
        return out.set_effect(effect)


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation (NaN when either side is constant or fewer than 3 pairs)."""
    from scipy.stats import spearmanr

    if len(x) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    return float(spearmanr(x, y).statistic)


def _median_q_bootstrap(classes: np.ndarray, qs: list[np.ndarray], statistic) -> tuple[float, float, float]:
    """``statistic(classes, median q per dataset)`` and its 95 % percentile interval, resampling the datasets
    and, inside each draw, its splits (the two levels of the report's bootstrap; NaN resamples dropped)."""
    estimate = statistic(classes, np.array([np.median(q) for q in qs]))
    rng = np.random.default_rng(SEED)
    n = len(qs)
    stats = []
    for _ in range(RESAMPLES):
        pick = rng.integers(0, n, n)
        med = np.array([np.median(qs[i][rng.integers(0, len(qs[i]), len(qs[i]))]) for i in pick])
        stats.append(statistic(classes[pick], med))
    values = np.asarray(stats, dtype=float)
    values = values[~np.isnan(values)]
    if not values.size:
        return estimate, math.nan, math.nan
    low, high = np.quantile(values, [0.025, 0.975])
    return estimate, float(low), float(high)


@claim_kind("classes_q")
@dataclass(frozen=True)
class ClassesQClaim:
    """"The more of class number, the smaller q value is tended" (section IV-D, "a fuzzy trend").

    Effect (a ``trend``): minus Spearman's rank correlation between a dataset's number of classes (Table
    I, ``classes``: paper label -> count) and its chosen q (the median over the splits; the paper's one
    q), so + goes the claimed way; ours with a two-level bootstrap interval (datasets, then splits).
    """

    text: str
    classes: tuple[tuple[str, int], ...]
    algorithm: str = "tsallis"

    kind = TREND

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """The rank correlation of classes and q on the paper's table and on ours."""
        out = ClaimOutcome(self.text, "more classes, smaller q (a fuzzy trend)", "–", "not run", None)
        measure = (f"−Spearman rank correlation of the number of classes (Table I) and {self.algorithm}'s chosen q "
                   "(median over splits) across datasets (+ = more classes, smaller q)")
        count = dict(self.classes)
        paper = (math.nan, 0, "no q in the paper's table")
        wide = _paper_wide(cells, "q")
        if wide is not None and self.algorithm in wide:
            col = wide[self.algorithm].dropna()
            col = col[[lab in count for lab in col.index]]
            rho = _spearman(np.array([count[lab] for lab in col.index], dtype=float), col.to_numpy(dtype=float))
            if not math.isnan(rho):
                paper = (-rho, len(col), _source(len(col)))
                out.paper_numbers = f"Spearman ρ = {rho:+.2f} over {len(col)} datasets"
        effect = Effect(measure, paper[0], paper[2], n_paper=paper[1], kind=self.kind)
        units, labels, why = _q_units(cells, frame, self.algorithm)
        kept = {d: u for d, u in units.items() if labels.get(d) in count}
        if why or len(kept) < 3:
            effect.verdict = not_testable(why or f"the chosen q of {len(kept)} dataset(s) with a class count: "
                                                 "a rank correlation needs 3")
            return out.set_effect(effect)
        classes = np.array([count[labels[d]] for d in kept], dtype=float)
        qs = [np.asarray(u, dtype=float).reshape(len(u), -1)[:, 0] for u in kept.values()]
        estimate, low, high = _median_q_bootstrap(classes, qs, lambda c, q: -_spearman(c, q))
        if math.isnan(estimate):
            effect.verdict = not_testable("the class counts or the chosen q do not vary across the datasets")
            return out.set_effect(effect)
        effect.ours, effect.low, effect.high = estimate, low, high
        effect.n_datasets, effect.datasets = len(kept), [str(d) for d in kept]
        effect.verdict = judge(effect)
        out.ours = f"Spearman ρ = {-estimate:+.2f} over {len(kept)} datasets"
        out.literal = estimate > 0
        out.details = [f"{labels[d]}: {count[labels[d]]} classes, median q {np.median(q):g}" for d, q in zip(kept, qs)]
        return out.set_effect(effect)


@claim_kind("q_chain")
@dataclass(frozen=True)
class QChainClaim:
    """"From ``chain[0]`` to ``chain[-1]``, q is increasing" (section IV-D, numeric datasets, Vehicle excepted).

    A ``count`` over the consecutive pairs of ``chain`` (paper labels): a pair holds when the later
    dataset's chosen q (median over the splits; the paper's one q) is larger, fails when smaller.
    """

    text: str
    chain: tuple[str, ...]
    algorithm: str = "tsallis"

    kind = COUNT

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """The pairs along the chain where q rises, on the paper's table and on ours."""
        out = ClaimOutcome(self.text, "q increasing along " + " → ".join(self.chain), "–", "not run", None)
        measure = f"pairs of consecutive datasets ({' → '.join(self.chain)}) along which {self.algorithm}'s q rises"
        wide = _paper_wide(cells, "q")
        pairs = list(zip(self.chain, self.chain[1:]))
        paper_q = ({lab: float(wide.loc[lab, self.algorithm]) for lab in self.chain
                    if wide is not None and self.algorithm in wide and lab in wide.index} if wide is not None else {})
        paper = (math.nan, 0, "no q in the paper's table")
        if len(paper_q) == len(self.chain):
            rises = sum(paper_q[b] > paper_q[a] for a, b in pairs)
            paper = (rises / len(pairs), len(self.chain), _source(len(self.chain)))
            out.paper_numbers = " < ".join(f"{lab} {paper_q[lab]:g}" for lab in self.chain) + \
                f": rises on {rises} of {len(pairs)} pairs"
        effect = Effect(measure, paper[0], paper[2], n_paper=paper[1], kind=self.kind)
        units, labels, why = _q_units(cells, frame, self.algorithm)
        ours = {labels[d]: float(np.median(np.asarray(u, dtype=float).reshape(len(u), -1)[:, 0]))
                for d, u in units.items() if d in labels}
        missing = [lab for lab in self.chain if lab not in ours]
        if why or missing:
            effect.verdict = not_testable(why or f"no chosen q rerun on {', '.join(missing)}")
            return out.set_effect(effect)
        points = [(f"{a} → {b}", float(np.sign(ours[b] - ours[a]))) for a, b in pairs]
        effect.unit_points = points
        effect.holds = sum(p > 0 for _, p in points)
        effect.fails = sum(p < 0 for _, p in points)
        effect.counted = len(points)
        effect.ours = effect.low = effect.high = effect.holds / effect.counted
        effect.n_datasets, effect.datasets = len(self.chain), list(self.chain)
        effect.verdict = judge(effect)
        out.ours = ", ".join(f"{lab} {ours[lab]:g}" for lab in self.chain) + \
            f": rises on {effect.holds} of {effect.counted} pairs"
        out.literal = effect.holds == effect.counted
        return out.set_effect(effect)


@claim_kind("same_results")
@dataclass(frozen=True)
class SameResultsClaim:
    """"On ``dataset``, all the algorithms give almost the same results" (section IV-D, Car).

    An ``equivalence``: the effect is the range (best − worst) of the ``algorithms``' mean ``metric``
    on the dataset, ours with an interval over its resampled splits; reproduced when that interval lies
    inside ± the margin.  The margin is what the paper's design resolves (``design_cases`` test cases in
    all at an error rate near ``design_rate``, :func:`~treebench.report.claims.rate_design_margin`); one
    accuracy point is a second view.
    """

    text: str
    dataset: str
    algorithms: tuple[str, ...]
    metric: str = "accuracy"
    design_cases: int = 0
    design_rate: float = math.nan

    kind = EQUIVALENCE

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """The range of the algorithms' means on the dataset, the paper's and ours."""
        unit = _unit(cells, self.metric)
        scale = 100.0 if unit == "percent" else 1.0
        out = ClaimOutcome(self.text, "almost the same results", "–", "not run", None)
        measure = (f"range (best − worst) of the mean {self.metric} of {', '.join(self.algorithms)} on {self.dataset} "
                   f"({'percentage points' if unit == 'percent' else unit})")
        paper = (math.nan, 0, "no numbers in the paper's table")
        wide = _paper_wide(cells, self.metric)
        if wide is not None and self.dataset in wide.index and all(a in wide for a in self.algorithms):
            row = wide.loc[self.dataset, list(self.algorithms)].astype(float)
            if not row.isna().any():
                paper = (float(row.max() - row.min()), 1, "its table, 1 dataset")
                out.paper_numbers = ", ".join(f"{a} {v:g}" for a, v in row.items())
        margin = rate_design_margin(self.design_rate, self.design_cases) * scale
        rerun = _rerun(cells, frame)
        algs = rerun.algorithms(list(self.algorithms))
        if isinstance(algs, str):
            return out.set_effect(measured_effect(measure, paper, [], None, kind=self.kind, margin=margin, empty=algs))
        labels = {lab: d for d, lab in rerun.paper_datasets(self.metric).items()}
        units = rerun.units(algs, self.metric, unit, [labels[self.dataset]] if self.dataset in labels else [])
        effect = measured_effect(measure, paper, units, lambda m: m.max(axis=1) - m.min(axis=1), kind=self.kind,
                                 margin=margin, empty=f"{self.dataset} not rerun with {', '.join(self.algorithms)}")
        effect.margin_source = (f"the smallest difference of two accuracies near {1 - self.design_rate:.3g} that the "
                                f"paper's {self.design_cases} test cases (10 splits × 30 % of Table I's rows) detect "
                                "with 80 % power (unpaired: the paper gives no paired counts)")
        effect.fixed_margin = MARGINS.get(unit, math.nan)
        if units:
            means = np.asarray(next(iter(units.values())), dtype=float).mean(axis=0)
            out.ours = ", ".join(f"{a} {v:.4g}" for a, v in zip(self.algorithms, means))
            out.literal = bool(means.max() - means.min() <= margin)
        return out.set_effect(effect)


@claim_kind("sweep_optimum")
@dataclass(frozen=True)
class SweepOptimumClaim:
    """Fig. 1: on ``dataset``, ``metric`` depends on q and is best at ``paper_q`` (untuned q sweep).

    A ``count`` on one unit, the dataset, read off :mod:`treebench.papers.tsallis.q_sweep`'s untuned
    sweep of ``algorithm`` over ``grid`` on the config's outer splits (computed once per process, or read
    from its cache).  It holds when (1) Friedman's test across the grid, the splits as blocks, rejects at
    0.05 (the metric depends on q beyond the splits' noise; the paper names no test, this is ours) and (2)
    ``paper_q`` lies inside our 95 % percentile interval of the best q (the splits resampled, the best
    q of each resample's mean curve).  It is ``not reproduced`` otherwise.  The paper prints the figure
    only, so its own numbers cannot carry the rule.

    ``best`` is ``max`` (accuracy) or ``min`` (number of nodes).
    """

    text: str
    paper_q: float
    metric: str = "accuracy"
    best: str = "max"
    dataset: str = "glass"
    algorithm: str = "tsallis"
    config: str = "configs/tsallis.yaml"
    grid: tuple[float, float, float] = (0.1, 9.0, 0.05)
    alpha: float = 0.05

    kind = COUNT

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Run (or reuse) the sweep when ``frame`` is the config's full rerun of the dataset, and grade it."""
        what = "highest" if self.best == "max" else "lowest"
        out = ClaimOutcome(self.text, f"{self.metric} sensitive to q, {what} at q = {self.paper_q:g} (figure)", "–",
                           "not run", None)
        measure = (f"q of the {what} mean {self.metric} on {self.dataset} (untuned sweep), with its 95 % interval "
                   f"over the resampled splits; holds when q = {self.paper_q:g} is inside it and Friedman's test "
                   f"across the grid rejects at {self.alpha:g}")
        effect = Effect(measure, self.paper_q, "Fig. 1 (read off the figure)", n_paper=1, kind=self.kind)
        why = self._why_not(frame)
        if why:
            effect.verdict = not_testable(why)
            return out.set_effect(effect)
        from treebench.papers.tsallis.q_sweep import q_grid, sweep_frame

        try:
            sweep = sweep_frame(self.config, self.dataset, self.algorithm, q_grid(*self.grid))
        except Exception as exc:  # noqa: BLE001 -- the data or config may be missing: the claim says why
            effect.verdict = not_testable(f"the q sweep could not be run: {str(exc).splitlines()[0]}")
            return out.set_effect(effect)
        table = sweep.pivot_table(index=["repeat", "fold"], columns="q", values=self.metric, aggfunc="mean")
        q_values = table.columns.to_numpy(dtype=float)
        values = table.to_numpy(dtype=float)
        best_q, low, high = self._best_q(q_values, values)
        p = self._friedman(values)
        inside = low - 1e-9 <= self.paper_q <= high + 1e-9
        holds = inside and p < self.alpha
        effect.ours, effect.low, effect.high = best_q, low, high
        effect.holds, effect.fails, effect.counted = int(holds), 0, 1
        effect.n_datasets, effect.datasets = 1, [self.dataset]
        effect.unit_points = [(self.dataset, 1.0 if holds else 0.0)]
        effect.verdict = judge(effect)
        out.ours = (f"{what} at q = {best_q:g} (95 % interval {low:g} to {high:g} over the splits); Friedman "
                    f"p = {p:.3g} across {len(q_values)} values of q on {len(values)} splits")
        out.literal = bool(abs(best_q - self.paper_q) < 1e-9)
        out.details = [f"q = {self.paper_q:g} {'inside' if inside else 'outside'} our interval; "
                       f"{self.metric} {'depends' if p < self.alpha else 'does not depend'} on q by Friedman's test "
                       f"at {self.alpha:g}"]
        return out.set_effect(effect)

    def _why_not(self, frame: pd.DataFrame) -> str:
        """Why the sweep is not run on ``frame`` (``""``: it is the config's full rerun of the dataset)."""
        if not len(frame) or not {"dataset", "algorithm"} <= set(frame.columns):
            return "nothing rerun"
        if "params" not in frame.columns and "chosen" not in frame.columns:
            return (f"the paper prints Fig. 1 as a figure only, no curve: its q = {self.paper_q:g} is the claim "
                    "itself")
        rows = frame[(frame["dataset"].astype(str) == self.dataset) & (frame["algorithm"].astype(str) == self.algorithm)]
        if not len(rows):
            return f"{self.algorithm} not rerun on {self.dataset} (in this view of the datasets)"
        from treebench.experiment.config import load_config
        from treebench.experiment.protocols import n_folds

        try:
            config = load_config(self.config)
        except Exception as exc:  # noqa: BLE001 -- a missing config is a reason, not a crash of the report
            return f"config {self.config} not readable: {str(exc).splitlines()[0]}"
        spec = next((d for d in config.datasets if d.label == self.dataset), None)
        if spec is None:
            return f"{self.dataset} is not in {self.config}"
        wanted = spec.protocol.n_repeats * n_folds(spec.protocol, 1000)
        have = rows[["repeat", "fold"]].drop_duplicates().shape[0] if {"repeat", "fold"} <= set(rows.columns) else 0
        if have < wanted:
            return (f"the rerun holds {have} of the config's {wanted} splits of {self.dataset}: the sweep runs on "
                    "the full rerun only")
        return ""

    def _best_q(self, q_values: np.ndarray, values: np.ndarray) -> tuple[float, float, float]:
        """The best q of the mean curve and its 95 % percentile interval over resampled splits."""
        pick = np.argmax if self.best == "max" else np.argmin
        best = float(q_values[pick(values.mean(axis=0))])
        rng = np.random.default_rng(SEED)
        rows = rng.integers(0, len(values), (RESAMPLES, len(values)))
        draws = q_values[pick(values[rows].mean(axis=1), axis=1)]
        low, high = np.quantile(draws, [0.025, 0.975])
        return best, float(low), float(high)

    @staticmethod
    def _friedman(values: np.ndarray) -> float:
        """Friedman's p across the grid's columns, the rows as blocks (1 when nothing varies)."""
        from scipy.stats import friedmanchisquare

        if values.shape[0] < 2 or values.shape[1] < 3 or np.all(values == values[0, 0]):
            return 1.0
        return float(friedmanchisquare(*values.T).pvalue)


__all__ = ["CLASSIC_Q", "AheadOfAllClaim", "ClassesQClaim", "NeitherPrevailsClaim", "QChainClaim",
           "QNotClassicClaim", "SameResultsClaim", "SweepOptimumClaim"]
