"""The comparison table model: what ``treebench compare`` shows, before formatting.

A :class:`ComparisonTable` holds, for a datasets x algorithms grid, each
cell's mean ± std, whether it is the best of its row, its Weka mark against
the baseline, the paper-000 underline, and the across-dataset analysis the
user asked for.  Renderers in :mod:`treebench.report.formats` only format it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError, one_of
from treebench.experiment.order import config_algorithm_order, source_algorithm_order  # noqa: F401 - re-exported
from treebench.stats import across, bayes, multiple, oneway, paired, posthoc
from treebench.stats.frame import Trials, cell_summary, means_matrix, pair_keys, select_trials
from treebench.stats.metrics import Metric, metric_in

#: ``--test`` choices: two per-dataset paired tests and four across-dataset analyses.
TESTS = ("wilcoxon", "ttest", "corrected-ttest", "friedman", "kruskal", "bayes")
#: ``correction`` choices: ``auto`` is Holm for a family of two or more tests, else none.
CORRECTIONS = ("auto", *multiple.CORRECTIONS)


@dataclass
class Cell:
    """One (dataset, algorithm) cell, in display units (see ``Metric.scale``).

    ``mark`` is ``"v"``/``"*"``/``""`` against the baseline (None for the
    baseline itself); ``flag`` is ``"best"``/``"worst"`` from the per-dataset
    one-way protocol (``--test kruskal``) or empty.
    """

    mean: float
    std: float
    n: int
    mark: str | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    best: bool = False
    underline: bool = False
    flag: str = ""


@dataclass
class AcrossAnalysis:
    """The across-dataset part of a comparison.

    Attributes
    ----------
    kind
        ``"wilcoxon"``, ``"friedman"``, ``"kruskal"`` or ``"none"``.
    unit
        What the paired units are: ``"datasets"`` or, for a store with one
        dataset, ``"folds"`` (Wilcoxon/Friedman over its paired trials).
    n_units
        How many units entered the test.
    wilcoxon, friedman, oneway
        The results for the chosen kind.
    dropped
        Datasets left out because some algorithm has no result there.
    error
        Why the analysis could not run (too few datasets...), else empty.
    """

    kind: str
    unit: str = "datasets"
    n_units: int = 0
    wilcoxon: list[across.WilcoxonResult] = field(default_factory=list)
    friedman: across.FriedmanResult | None = None
    oneway: dict[str, oneway.OneWayResult] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    error: str = ""
    wilcoxon_p_adjusted: list[float] = field(default_factory=list)
    correction: str = "none"
    bayes: list[bayes.BayesResult] = field(default_factory=list)
    posthoc: pd.DataFrame | None = None
    posthoc_correction: str = "none"


@dataclass
class ComparisonTable:
    """Everything a rendered comparison shows.

    Attributes
    ----------
    metric
        The metric tabulated.
    datasets, algorithms
        Row and column order.
    cells
        ``(dataset, algorithm) -> Cell``; absent when the pair has no trial.
    baseline
        The algorithm the marks are relative to.
    paired_test
        ``"ttest"`` or ``"corrected-ttest"``.
    alpha
        Significance level of every test.
    ratios
        ``n_test/n_train`` used by the corrected test, per dataset.
    wtl
        Per non-baseline algorithm: datasets where it is significantly
        better / not different / significantly worse than the baseline.
    underline_against
        Opponents for the underline rule (empty: rule off).
    analysis
        The across-dataset analysis.
    notes
        Lines to print under the table (excluded trials, fallbacks...).
    mark_correction
        Correction applied to the marks' p-values (``"holm"``, ``"bonferroni"``,
        ``"none"``); the family is one dataset's comparisons with the baseline.
    """

    metric: Metric
    datasets: list[str]
    algorithms: list[str]
    cells: dict[tuple[str, str], Cell]
    baseline: str
    paired_test: str
    alpha: float
    ratios: dict[str, float]
    wtl: dict[str, tuple[int, int, int]]
    underline_against: tuple[str, ...]
    analysis: AcrossAnalysis
    notes: list[str] = field(default_factory=list)
    mark_correction: str = "none"

    def fmt(self, value: float) -> str:
        """A value in display units with the metric's decimals."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "–"
        return f"{value:.{self.metric.decimals}f}"


def build_table(
    frame: pd.DataFrame,
    *,
    metric: str = "accuracy",
    test: str = "corrected-ttest",
    baseline: str | None = None,
    alpha: float = 0.05,
    paired_test: str | None = None,
    test_train_ratio: float | None = None,
    underline_against: Sequence[str] = (),
    datasets: Sequence[str] | None = None,
    algorithms: Sequence[str] | None = None,
    correction: str = "none",
    algorithm_order: Sequence[str] | None = None,
    rope: float = 1.0,
    bayes_samples: int = bayes.DEFAULT_SAMPLES,
    seed: int = bayes.DEFAULT_SEED,
) -> ComparisonTable:
    """Build the comparison of every algorithm on every dataset.

    Parameters
    ----------
    frame
        Tidy results, one row per trial (``ResultsStore.to_frame()``).
    metric
        Column to compare: a fixed metric (:data:`treebench.stats.metrics.METRICS`) or an
        extra measure the frame declares (``frame.attrs["metrics"]``).
    test
        One of :data:`TESTS`.  ``ttest``/``corrected-ttest`` choose the
        per-dataset test behind the marks; ``wilcoxon``, ``friedman`` and
        ``kruskal`` add that across-dataset (or, for ``kruskal``,
        per-dataset unpaired) analysis, with marks from ``paired_test``.
    baseline
        Algorithm the marks compare against (default: the first one).
    alpha
        Significance level, in (0, 1).
    paired_test
        Test behind the marks when ``test`` is not a paired test (default
        ``corrected-ttest``, Weka's default).
    test_train_ratio
        ``n_test/n_train`` for the corrected test; default from the frame's
        ``n_test``/``n_train`` columns, else its ``protocol``, else 1/9.
    underline_against
        Underline rule: underline a cell when its algorithm is
        significantly better (paired test) than every one of these.
    datasets, algorithms
        Optional selection and order.
    correction
        Multiple-comparison correction of every family of pairwise tests (one of
        :data:`CORRECTIONS`): the marks (per dataset, the comparisons with the
        baseline) and the pairwise Wilcoxon tests.  ``"auto"`` (``compare``'s
        default) is Holm for a family of two or more tests; the default here,
        ``"none"``, keeps the raw p-values.
    algorithm_order
        Preferred column order when ``algorithms`` is not given (e.g. the
        config's order); names absent from the results are ignored, results
        not named keep their first-appearance order after the named ones.  The
        default baseline is the first column.
    rope
        ``test="bayes"``: half-width of the region of practical equivalence,
        in display units (accuracy points for accuracy).
    bayes_samples, seed
        ``test="bayes"``: Monte Carlo draws and their seed.
    """
    if test not in TESTS:
        raise one_of(test, TESTS, "test")
    if correction not in CORRECTIONS:
        raise one_of(correction, CORRECTIONS, "correction")
    if not 0.0 < alpha < 1.0:
        raise TreebenchError(f"--alpha must be in (0, 1), got {alpha}")
    m = metric_in(frame, metric)
    trials = select_trials(frame, m, datasets=datasets, algorithms=algorithms)
    algs = list(trials.algorithms)
    if algorithm_order and not algorithms:
        known = [a for a in dict.fromkeys(algorithm_order) if a in algs]
        algs = known + [a for a in algs if a not in known]
        trials = dataclasses.replace(trials, algorithms=tuple(algs))
    if baseline is None:
        baseline = algs[0]
    elif baseline not in algs:
        if algorithms and baseline in set(frame["algorithm"].astype(str)):
            from treebench.report.mcnemar_table import baseline_left_out

            raise TreebenchError(baseline_left_out(baseline, algs))
        raise one_of(baseline, algs, "baseline algorithm")
    ptest = test if test in paired.PAIRED_TESTS else (paired_test or "corrected-ttest")
    if ptest not in paired.PAIRED_TESTS:
        raise one_of(ptest, paired.PAIRED_TESTS, "paired test")
    for opp in underline_against:
        if opp not in algs:
            raise one_of(opp, algs, "algorithm for --underline-against")

    ratios = _ratios(frame, trials, test_train_ratio)
    cells = _cells(trials)
    _mark_best(cells, trials, m)
    wtl, mark_correction = _marks(cells, trials, baseline, ptest, alpha, ratios, correction)
    if underline_against:
        _underline(cells, trials, tuple(underline_against), ptest, alpha, ratios)

    notes = []
    if trials.n_failed:
        notes.append(f"{trials.n_failed} failed trial(s) excluded.")
    if trials.n_missing:
        notes.append(f"{trials.n_missing} finished trial(s) without a {m.name} value excluded.")
    analysis = _analysis(test, trials, alpha, correction, rope, bayes_samples, seed)
    if test == "kruskal":
        for ds, res in analysis.oneway.items():
            for alg in res.best:
                cells[(ds, alg)].flag = "best"
            for alg in res.worst:
                cells[(ds, alg)].flag = "worst"
    return ComparisonTable(
        metric=m,
        datasets=list(trials.datasets),
        algorithms=algs,
        cells=cells,
        baseline=baseline,
        paired_test=ptest,
        alpha=alpha,
        ratios=ratios,
        wtl=wtl,
        underline_against=tuple(underline_against),
        analysis=analysis,
        notes=notes,
        mark_correction=mark_correction,
    )


def _ratios(frame: pd.DataFrame, trials: Trials, override: float | None) -> dict[str, float]:
    """n_test/n_train per dataset: explicit value, stored sizes, protocol, or 1/9."""
    out = {}
    for ds in trials.datasets:
        if override is not None:
            out[ds] = float(override)
            continue
        sub = frame[frame["dataset"].astype(str) == ds]
        if {"n_test", "n_train"} <= set(sub.columns):
            r = pd.to_numeric(sub["n_test"], errors="coerce") / pd.to_numeric(sub["n_train"], errors="coerce")
            r = r[np.isfinite(r)]
            if len(r):
                out[ds] = float(r.mean())
                continue
        protocol = sub["protocol"].dropna().iloc[0] if "protocol" in sub.columns and sub["protocol"].notna().any() else None
        out[ds] = paired.ratio_from_protocol(protocol)
    return out


def _cells(trials: Trials) -> dict[tuple[str, str], Cell]:
    s = trials.metric.scale
    return {
        (r.dataset, r.algorithm): Cell(mean=r.mean * s, std=r.std * s, n=int(r.n))
        for r in cell_summary(trials).itertuples(index=False)
    }


def _mark_best(cells: dict[tuple[str, str], Cell], trials: Trials, m: Metric) -> None:
    """Bold the best mean of each row; equal displayed values are all bold."""
    for ds in trials.datasets:
        row = {a: round(c.mean, m.decimals) for (d, a), c in cells.items() if d == ds}
        if not row:
            continue
        best = max(row.values()) if m.higher_is_better else min(row.values())
        for alg, v in row.items():
            cells[(ds, alg)].best = v == best


def _marks(
    cells: dict[tuple[str, str], Cell],
    trials: Trials,
    baseline: str,
    test: str,
    alpha: float,
    ratios: dict[str, float],
    correction: str = "none",
) -> tuple[dict[str, tuple[int, int, int]], str]:
    """Weka marks of every cell against the baseline, and win/tie/loss counts.

    On each dataset the comparisons with the baseline form one family: their
    p-values are adjusted together (``correction``) and a cell is marked when
    its adjusted p-value is at most ``alpha``.  Returns the counts and the
    correction applied (``"auto"`` resolved by the largest family).
    """
    wtl = {a: [0, 0, 0] for a in trials.algorithms if a != baseline}
    applied = "none"
    for ds in trials.datasets:
        found: list[tuple[str, Cell, paired.PairedResult]] = []
        for alg in wtl:
            cell = cells.get((ds, alg))
            if cell is None or (ds, baseline) not in cells:
                continue
            x, y = trials.paired(ds, alg, baseline)
            res = paired.run_paired(test, x, y, ratios[ds])
            cell.p_value = res.p_value if res.k > 1 else None
            found.append((alg, cell, res))
        raw = np.array([np.nan if c.p_value is None else c.p_value for _, c, _ in found], dtype=float)
        method = multiple.resolve(correction, multiple.family_size(raw))
        if method != "none":
            applied = method
        adjusted = multiple.adjust(raw, method)
        for (alg, cell, res), adj in zip(found, adjusted):
            cell.p_adjusted = None if np.isnan(adj) else float(adj)
            ok = cell.p_adjusted is not None and cell.p_adjusted <= alpha
            cell.mark = paired.weka_mark(res, alpha, trials.metric.higher_is_better) if ok else ""
            wtl[alg][{"v": 0, "": 1, "*": 2}[cell.mark]] += 1
    return {a: (counts[0], counts[1], counts[2]) for a, counts in wtl.items()}, applied


def _underline(
    cells: dict[tuple[str, str], Cell],
    trials: Trials,
    opponents: tuple[str, ...],
    test: str,
    alpha: float,
    ratios: dict[str, float],
) -> None:
    """Underline a cell when it is significantly better than every opponent."""
    hib = trials.metric.higher_is_better
    for (ds, alg), cell in cells.items():
        if alg in opponents:
            continue
        ok = True
        for opp in opponents:
            x, y = trials.paired(ds, alg, opp)
            if paired.weka_mark(paired.run_paired(test, x, y, ratios[ds]), alpha, hib) != "v":
                ok = False
                break
        cell.underline = ok


def _analysis(
    test: str,
    trials: Trials,
    alpha: float,
    correction: str = "none",
    rope: float = 1.0,
    bayes_samples: int = bayes.DEFAULT_SAMPLES,
    seed: int = bayes.DEFAULT_SEED,
) -> AcrossAnalysis:
    """Run the across-dataset analysis named by ``test``."""
    hib = trials.metric.higher_is_better
    if test in paired.PAIRED_TESTS:
        return AcrossAnalysis("none")
    if test == "kruskal":
        out = AcrossAnalysis("kruskal", unit="trials", n_units=len(trials.datasets))
        for ds in trials.datasets:
            groups = {a: trials.values(ds, a) for a in trials.algorithms}
            groups = {a: v for a, v in groups.items() if v.size}
            try:
                out.oneway[ds] = oneway.oneway_protocol(groups, hib, alpha)
            except TreebenchError as exc:
                out.error = f"{ds}: {exc}"
        return out
    units, unit, dropped = _units(trials)
    out = AcrossAnalysis(test, unit=unit, n_units=len(units), dropped=dropped)
    if len(units) < 2:
        out.error = "needs at least two datasets (or paired trials) with results for every algorithm"
        return out
    if test == "wilcoxon":
        out.wilcoxon = across.pairwise_wilcoxon(units, hib)
        raw = np.array([r.p_value for r in out.wilcoxon], dtype=float)
        out.correction = multiple.resolve(correction, multiple.family_size(raw))
        out.wilcoxon_p_adjusted = [float(p) for p in multiple.adjust(raw, out.correction)]
    elif test == "bayes":
        if unit != "datasets":
            out.error = "the Bayesian signed-rank test compares over datasets; this comparison has only one"
            return out
        out.bayes = bayes.pairwise_signed_rank(units * trials.metric.scale, rope, hib,
                                               nsamples=bayes_samples, seed=seed)
    else:
        try:
            out.friedman = across.friedman(units, hib, alpha)
        except TreebenchError as exc:
            out.error = str(exc)
            return out
        if correction != "none":  # pairwise rank z-tests, Shaffer's static procedure by default
            out.posthoc_correction = "shaffer" if correction == "auto" else correction
            out.posthoc = posthoc.friedman_posthoc(units, hib, out.posthoc_correction)
    return out


def _units(trials: Trials) -> tuple[pd.DataFrame, str, list[str]]:
    """The units x algorithms matrix for the across tests.

    With two or more datasets the units are datasets (per-dataset means, as
    Demšar prescribes).  A store with a single dataset has no across-dataset
    question; its paired trials (same repeat and fold) are used instead, and
    the output says so — they are not independent, so read such p-values
    as descriptive.
    """
    means, dropped = means_matrix(trials)
    if len(trials.datasets) >= 2:
        return means, "datasets", dropped
    ds = trials.datasets[0]
    sub, keys = pair_keys(trials.frame[trials.frame["dataset"] == ds])
    if not {"repeat", "fold"} & set(keys):
        return means, "datasets", dropped
    wide = sub.pivot_table(index=keys, columns="algorithm", values="value", aggfunc="mean")
    wide = wide.reindex(columns=list(trials.algorithms)).dropna()
    return wide, "folds", []
