"""A paper's conclusions as objects that recompute themselves.

Every claim kind is a small frozen dataclass with a ``text`` (how the report
names it) and one method, ``evaluate(cells, frame)``, that recomputes the
conclusion on the rerun — and, where it makes sense, on the paper's published
numbers too, to show whether the claim even follows from them — and returns a
:class:`ClaimOutcome`.  ``cells`` is :func:`treebench.report.cells.compare_cells`'s
table (column ``value`` = the paper's number, ``ours`` = the rerun's), ``frame``
the rerun's trials.  A paper may define its own kind: anything with ``text``
and ``evaluate`` is a :class:`Claim`.

Every built-in kind also measures the claim's *effect* (:class:`Effect`):
one number oriented so that a positive value goes the way the claim says
(a difference of means, a net share of datasets where the claim holds),
computed on the paper's published numbers and on ours, ours with a 95 %
interval from :func:`treebench.stats.bootstrap.nested_bootstrap` (datasets
resampled, and inside each the paired ``(repeat, fold)`` splits), and graded
by its kind's rule (:func:`treebench.report.verdicts.judge`) into a verdict.  Claims the paper backs with a test carry
that test (:class:`ClaimTest`), recomputed; the report adjusts the p-values
of one family of claims with Holm's method.  ``docs/reports.md`` defines the
grades.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from treebench.errors import TreebenchError
from treebench.report.registry import claim_kind
from treebench.report.verdicts import (  # re-exported: the specs and the report use them
    COUNT,
    DIFFERENCE,
    EQUIVALENCE,
    GRADES,
    INCONCLUSIVE,
    LARGER,
    MARGINS,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    REPRODUCED,
    REVERSED,
    SIGNIFICANCE,
    SMALLER,
    TREND,
    grade_difference,
    judge,
    not_testable,
    power_to_detect,
)

if TYPE_CHECKING:
    import pandas as pd

# pandas, scipy and the cell helpers are imported where a claim is evaluated:
# the papers' specs build claims at import, and listing the papers stays cheap.

__all__ = ["COUNT", "DIFFERENCE", "EQUIVALENCE", "GRADES", "INCONCLUSIVE", "LARGER", "NOT_REPRODUCED",
           "NOT_TESTABLE", "REPRODUCED", "REVERSED", "SIGNIFICANCE", "SMALLER", "TREND", "Claim", "ClaimOutcome",
           "ClaimTest", "Effect", "FewerClaim", "FoldsClaim", "MeanDiffClaim", "MostClaim", "OneWayClaim",
           "UnderlineClaim", "WilcoxonClaim", "adjust_families", "evaluate_claim", "not_testable", "rejudge"]


@dataclass
class ClaimTest:
    """The test a paper backs a claim with, on its published numbers and on ours.

    Attributes
    ----------
    name
        The test, as the paper used it (e.g. "Wilcoxon signed-rank over datasets").
    alpha
        The paper's level.
    ours_p, paper_p
        Raw two-sided p-values on our numbers and on the paper's (NaN: not computable).
    family
        Tests of one report with the same family are Holm-adjusted together
        (:func:`adjust_families`); empty: no adjustment across claims.
    ours_p_holm, paper_p_holm
        The Holm-adjusted p-values (NaN until adjusted).
    parts
        For a claim tested unit by unit (cells, datasets): ``(unit, raw p, Holm p)``,
        adjusted within the claim.
    summary
        One line on the parts (how many significant before and after Holm).
    correction
        The multiplicity correction of the strict second view (Holm across claims, or
        over the units), in words; the verdict uses no correction the paper did not apply.
    as_applied
        Whether this is the paper's own test (False: the paper names none, the test is
        ours, and the verdict is the effect's replication grade, :attr:`Effect.outcome`).
    units
        For a claim tested unit by unit: ``(unit, grade)``, each unit graded by the
        paper's test on our data at the paper's level, uncorrected
        (:func:`~treebench.report.verdicts.grade_units` makes the claim's verdict).
    """

    name: str
    alpha: float
    ours_p: float = math.nan
    paper_p: float = math.nan
    family: str = ""
    ours_p_holm: float = math.nan
    paper_p_holm: float = math.nan
    parts: list[tuple[str, float, float]] = field(default_factory=list)
    summary: str = ""
    correction: str = ""
    as_applied: bool = True
    units: list[tuple[str, str]] = field(default_factory=list)

    @property
    def p_verdict(self) -> float:
        """The p the verdict uses: the paper's test on our data as the paper applied it, with no
        correction across claims (NaN for a test run unit by unit: its units are graded one by one)."""
        return math.nan if self.parts else self.ours_p

    @property
    def p_adjusted(self) -> float:
        """The p-value of the strict second view, after :attr:`correction`.

        A test run unit by unit (``parts``) backs the claim only when every
        unit rejects, so its p is the largest Holm-adjusted p of the units;
        otherwise the family's Holm-adjusted p, or the raw p of a lone test.
        """
        if self.parts:
            adjusted = [q for _, _, q in self.parts if not math.isnan(q)]
            return max(adjusted) if adjusted else math.nan
        return self.ours_p if math.isnan(self.ours_p_holm) else self.ours_p_holm

    @property
    def p(self) -> float:
        """The raw p behind :attr:`p_adjusted` (the weakest unit's, for a test run unit by unit)."""
        if self.parts:
            kept = [(q, raw) for _, raw, q in self.parts if not math.isnan(q)]
            return max(kept)[1] if kept else math.nan
        return self.ours_p

    def __str__(self) -> str:
        if self.summary:
            return f"{self.name}: {self.summary}"
        out = []
        for who, raw, adj in (("ours", self.ours_p, self.ours_p_holm), ("paper's numbers", self.paper_p,
                                                                      self.paper_p_holm)):
            if not math.isnan(raw):
                text = f"{who} p = {raw:.4g}"
                if not math.isnan(adj):
                    text += f", Holm {adj:.4g}"
                out.append(text)
        verdict = ""
        if not math.isnan(self.ours_p):
            p = self.ours_p if math.isnan(self.ours_p_holm) else self.ours_p_holm
            verdict = f" → ours {'significant' if p <= self.alpha else 'not significant'} at {self.alpha:g}"
        return f"{self.name}: " + ("; ".join(out) or "not computed") + verdict


@dataclass
class Effect:
    """A claim's effect on one set of datasets: the paper's, ours with an interval, and the verdict.

    Attributes
    ----------
    measure
        What is measured, with its orientation (a positive value goes the way the claim says).
    paper
        The effect on the paper's own numbers (NaN when it prints none to compute it from).
    paper_source
        Where ``paper`` comes from ("its table, 11 datasets", "stated in the text").
    ours, low, high
        Our effect and its 95 % bootstrap interval (NaN when not computed).
    n_datasets, n_paper
        Datasets behind ours and behind the paper's effect.
    kind
        The claim's kind (:data:`~treebench.report.verdicts.KINDS`): which rule grades it.
    margin
        The equivalence margin, in the effect's unit (``equivalence`` claims).
    holds, fails, counted
        Datasets where the claim holds, where the opposite holds, and all counted
        (means compared; ``count`` and ``trend`` claims).
    datasets
        The datasets behind ours (the store's names).
    verdict
        One of :data:`GRADES`; ``not testable`` with its reason (:func:`~treebench.report.verdicts.judge`).
    test
        The paper's test recomputed, when the claim rests on one.
    """

    measure: str
    paper: float = math.nan
    paper_source: str = ""
    ours: float = math.nan
    low: float = math.nan
    high: float = math.nan
    n_datasets: int = 0
    n_paper: int = 0
    kind: str = DIFFERENCE
    margin: float = math.nan
    holds: int = 0
    fails: int = 0
    counted: int = 0
    datasets: list[str] = field(default_factory=list)
    verdict: str = not_testable("nothing computed")
    test: ClaimTest | None = None
    margin_source: str = ""
    fixed_margin: float = math.nan
    unit_points: list[tuple[str, float]] = field(default_factory=list)

    @property
    def null(self) -> bool:
        """Whether the claim is "no (significant) difference" (an ``equivalence`` claim)."""
        return self.kind == EQUIVALENCE

    @property
    def grade(self) -> str:
        """The verdict without the reason of ``not testable``."""
        return NOT_TESTABLE if self.verdict.startswith(NOT_TESTABLE) else self.verdict

    @property
    def outcome(self) -> str:
        """The replication grade of the effect's interval against 0 and the paper's effect
        (:func:`~treebench.report.verdicts.grade_difference`): the verdict of a ``difference`` or
        ``trend``, shown beside the test's verdict for a ``significance`` claim."""
        if math.isnan(self.ours):
            return self.verdict if self.verdict.startswith(NOT_TESTABLE) else not_testable("no effect")
        return grade_difference(self.paper, self.low, self.high)

    @property
    def power(self) -> float:
        """The rerun's power to detect the paper's effect (:func:`~treebench.report.verdicts.power_to_detect`)."""
        return power_to_detect(self.paper, self.low, self.high)

    def paper_text(self) -> str:
        """The paper's effect as text: value and source."""
        if math.isnan(self.paper):
            return self.paper_source or "–"
        return f"{_num(self.paper)} ({self.paper_source})" if self.paper_source else _num(self.paper)

    def ours_text(self) -> str:
        """Our effect as text: value, interval and number of datasets."""
        if math.isnan(self.ours):
            return "–"
        ci = "" if math.isnan(self.low) else f" [{_num(self.low)}, {_num(self.high)}]"
        text = f"{_num(self.ours)}{ci} ({self.n_datasets} dataset{'s' if self.n_datasets != 1 else ''})"
        if self.kind == EQUIVALENCE and not math.isnan(self.margin):
            text += f", margin ± {abs(self.margin):.3g}" + (f" ({self.margin_source})" if self.margin_source else "")
        if self.kind in (DIFFERENCE, TREND, SIGNIFICANCE) and self.outcome == INCONCLUSIVE \
                and not math.isnan(self.power):
            text += f", power to detect the paper's effect {self.power:.0%}"
        if self.kind == COUNT and self.counted:
            ties = self.counted - self.holds - self.fails
            text += f", holds on {self.holds} of {self.counted}" + (f" ({ties} tied)" if ties else "")
        return text

    def __str__(self) -> str:
        return f"{self.measure}: paper {self.paper_text()}; ours {self.ours_text()}: {self.verdict}"


def _num(x: float) -> str:
    """A signed number with 3 significant digits (at least 2 decimals below 10)."""
    if abs(x) >= 100:
        return f"{x:+.0f}"
    if abs(x) >= 10:
        return f"{x:+.1f}"
    if abs(x) >= 0.1 or x == 0:
        return f"{x:+.2f}"
    return f"{x:+.3g}"


def adjust_families(outcomes: Sequence[ClaimOutcome], attribute: str = "effect") -> None:
    """Holm-adjust, in place, the p-values of the tests that share a family.

    ``attribute`` names the :class:`Effect` of each outcome to use
    (``effect`` for all datasets, ``calibrated`` for the calibrated ones);
    ours and the paper's numbers are adjusted separately.
    """
    from treebench.stats.multiple import holm

    tests = [getattr(o, attribute, None) for o in outcomes]
    tests = [e.test for e in tests if e is not None and e.test is not None and e.test.family]
    for family in dict.fromkeys(t.family for t in tests):
        members = [t for t in tests if t.family == family]
        for raw, adj in (("ours_p", "ours_p_holm"), ("paper_p", "paper_p_holm")):
            adjusted = holm([getattr(t, raw) for t in members])
            for t, value in zip(members, adjusted):
                setattr(t, adj, float(value))
        for t in members:
            t.correction = (f"Holm over the paper's {len(members)} claim{'s' if len(members) != 1 else ''} "
                            f"tested this way ({family}; a second view: the paper corrects nothing across claims)")


def rejudge(outcomes: Sequence[ClaimOutcome]) -> None:
    """Grade every outcome's two effects again (after :func:`adjust_families` changed their p-values)."""
    for o in outcomes:
        for attribute, slot in (("effect", "verdict"), ("calibrated", "verdict_calibrated")):
            effect = getattr(o, attribute, None)
            if isinstance(effect, Effect):
                effect.verdict = judge(effect)
                setattr(o, slot, effect.verdict)


@dataclass
class ClaimOutcome:
    """One recomputed conclusion: what the paper says, what its numbers and ours give.

    Attributes
    ----------
    text
        The claim as the report names it.
    paper
        What the paper states.
    paper_numbers
        The claim recomputed on the paper's published numbers (``–`` when not applicable).
    ours
        The claim recomputed on the rerun (``not run`` when nothing to compute on).
    literal
        The claim read literally on our per-dataset means, with no interval and
        no noise (e.g. "fewer on every dataset", "the same marks everywhere",
        "significant on more than half the datasets"): a second, stricter view
        beside the verdict, never counted in the headline; ``None`` when it
        could not be judged.
    details
        Extra lines (e.g. one per dataset) listed under the claims table.
    effect
        The claim's effect over all datasets (less those the spec excludes), with its verdict.
    calibrated
        The same over the calibrated datasets only (set by the report).
    verdict, verdict_calibrated
        The two verdicts as text (``effect.verdict`` and ``calibrated.verdict``).
    paper_on_paper
        The same claim graded by the same rule on the paper's own published numbers
        (:mod:`treebench.report.paper_frame`); ``None`` until the report sets it.
    location, scope, test_as_applied
        Where the paper states it, the scope of its sentence and the test the paper
        applied (from the paper's inventory, :class:`~treebench.report.statements.Statement`;
        empty for a bare claim).
    cause
        What explains a miss of the claim, with the run or investigation (and its command) that
        establishes it (the statement's, :attr:`~treebench.report.statements.Statement.cause`); empty:
        none located, and a miss is an open question (:mod:`treebench.report.misses`).
    """

    text: str
    paper: str
    paper_numbers: str
    ours: str
    literal: bool | None
    details: list[str] = field(default_factory=list)
    effect: Effect | None = None
    calibrated: Effect | None = None
    verdict: str = ""
    verdict_calibrated: str = ""
    paper_on_paper: Effect | None = None
    location: str = ""
    scope: str = ""
    test_as_applied: str = ""
    cause: str = ""

    def set_effect(self, effect: Effect) -> ClaimOutcome:
        """Attach the effect over all datasets and its verdict; returns self."""
        self.effect, self.verdict = effect, effect.verdict
        return self

    def set_calibrated(self, effect: Effect) -> ClaimOutcome:
        """Attach the effect over the calibrated datasets and its verdict; returns self."""
        self.calibrated, self.verdict_calibrated = effect, effect.verdict
        return self


class Claim(Protocol):
    """What the report needs of a claim kind."""

    text: str

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Recompute the claim on the cells of the report and the rerun's trials."""
        ...


def _means(cells: pd.DataFrame, metric: str, column: str) -> pd.DataFrame:
    """Datasets x algorithms matrix of ``column`` (``value`` = paper, ``ours``) for one metric."""
    sub = cells[(cells["metric"] == metric)]
    if column == "ours":
        sub = sub[sub["status"] == "ok"]
    return sub.pivot_table(index="dataset_label", columns="algorithm", values=column, aggfunc="mean")


def _higher(metric: str) -> bool:
    """Whether a higher value of ``metric`` is better (unknown metrics: lower is better)."""
    from treebench.stats.metrics import METRICS

    m = METRICS.get(metric)
    return m.higher_is_better if m else False


def _unit(cells: pd.DataFrame, metric: str) -> str:
    """The paper's unit of ``metric`` (from the cells), else the store's own (``raw``)."""
    if len(cells) and {"metric", "unit"} <= set(cells.columns):
        units = cells.loc[cells["metric"] == metric, "unit"]
        if len(units):
            return str(units.iloc[0])
    return "raw"


#: The power at which an equivalence margin is the smallest difference the paper's design detects.
DESIGN_POWER = 0.8


def design_margin(differences: np.ndarray, alpha: float, power: float = DESIGN_POWER) -> float:
    """The smallest mean difference a Wilcoxon signed-rank test over these datasets detects with ``power``.

    The paired t-test's approximation, ``(t_{n-1, 1-alpha/2} + t_{n-1, power}) * sd / sqrt(n)``, with
    the Wilcoxon test's asymptotic relative efficiency to the t-test under normality (3/pi) shrinking
    ``n``: the design's own resolution, from the spread ``sd`` of the paper's per-dataset differences.
    NaN with fewer than 3 datasets (0 when the differences do not vary; the caller then keeps the
    fixed margin).
    """
    from scipy.stats import t as student

    d = np.asarray(differences, dtype=float)
    d = d[~np.isnan(d)]
    if d.size < 3:
        return math.nan
    n_eff = d.size * 3.0 / math.pi
    df = d.size - 1
    return float((student.ppf(1 - alpha / 2, df) + student.ppf(power, df)) * d.std(ddof=1) / math.sqrt(n_eff))


def rate_design_margin(rate: float, cases: int, alpha: float = 0.05, power: float = DESIGN_POWER) -> float:
    """The smallest difference between two error rates near ``rate``, each measured on ``cases`` cases,
    that a two-sided test at ``alpha`` detects with ``power``: ``(z_{1-alpha/2} + z_power) sqrt(2 r (1-r) / N)``
    (two independent binomial rates: the most a reader can derive when the paper gives no paired counts)."""
    from scipy.stats import norm

    if math.isnan(rate) or cases <= 0:
        return math.nan
    return float((norm.ppf(1 - alpha / 2) + norm.ppf(power)) * math.sqrt(2 * rate * (1 - rate) / cases))


def _margin(margin: float, unit: str, metric: str) -> float:
    """The equivalence margin: the claim's own, else :data:`~treebench.report.verdicts.MARGINS` by unit
    (a rate in the store's own unit counts as a fraction)."""
    if not math.isnan(margin):
        return float(margin)
    if unit == "raw" and (metric in ("accuracy", "error") or metric.endswith("_error")):
        unit = "fraction"
    return MARGINS.get(unit, math.nan)


def _unit_name(unit: str, metric: str) -> str:
    return {"percent": "percentage points", "fraction": "fraction", "count": "count"}.get(unit, metric)


class _Rerun:
    """The rerun's successful trials, with the reference's names mapped onto the frame's."""

    def __init__(self, cells: pd.DataFrame, frame: pd.DataFrame) -> None:
        from treebench.report.cells import Matcher, ok_trials

        usable = len(frame) and {"dataset", "algorithm"} <= set(frame.columns)
        self.cells = cells
        self.ok = ok_trials(frame) if usable else frame.iloc[0:0]
        self.match = Matcher.of(self.ok) if len(self.ok) else Matcher([], [])

    def algorithms(self, names: Sequence[str]) -> list[str] | str:
        """The frame's names of ``names``, or the reason why not (``"x not run"``)."""
        if not len(self.ok):
            return "nothing run"
        found = [self.match.algorithm(n) for n in names]
        missing = [n for n, f in zip(names, found) if f is None]
        if missing:
            return f"{', '.join(missing)} not run"
        return [str(f) for f in found]

    def paper_datasets(self, metric: str) -> dict[str, str]:
        """Frame dataset -> the paper's label, for the paper's datasets of ``metric`` that were rerun."""
        out: dict[str, str] = {}
        if not len(self.cells) or "dataset_label" not in self.cells.columns:
            return out
        sub = self.cells[self.cells["metric"] == metric]
        for r in sub.drop_duplicates("dataset_label").itertuples(index=False):
            card = getattr(r, "dataset", "") or ""
            name = self.match.dataset(card, r.dataset_label) if card else None
            if name:
                out[name] = str(r.dataset_label)
        return out

    def units(self, algorithms: list[str], metric: str, unit: str, datasets: Sequence[str], *,
              paired: bool = False) -> dict[str, Any]:
        """Per dataset of ``datasets``, the split values of ``algorithms`` (frame names) for an effect's bootstrap.

        Paired by split where they share splits; where they were run under different protocols, each
        algorithm's own values (:class:`~treebench.stats.bootstrap.UnpairedColumns`), unless ``paired``
        (for a paired test, which needs the same splits: such a dataset is then left out).
        """
        from treebench.report.cells import paired_values

        ok = self.ok[self.ok["dataset"].astype(str).isin(list(datasets))]
        return paired_values(ok, algorithms, metric, unit, unpaired=not paired)


def _measured(
    measure: str,
    paper: tuple[float, int, str],
    units: dict[str, np.ndarray] | list[np.ndarray],
    summary: Callable[[np.ndarray], np.ndarray] | Sequence[Callable[[np.ndarray], np.ndarray]] | None,
    aggregate: Callable[[np.ndarray], np.ndarray] | None = None,
    *,
    kind: str = DIFFERENCE,
    margin: float = math.nan,
    empty: str = "nothing rerun",
    test: ClaimTest | None = None,
    datasets: Sequence[str] | None = None,
) -> Effect:
    """An :class:`Effect` of ``kind``: the paper's ``(value, datasets, source)``, ours bootstrapped over
    ``units``, graded by the kind's rule (:func:`~treebench.report.verdicts.judge`).

    ``datasets`` names the units when they are a list.  For every kind the
    datasets where the per-dataset summary (on the means) is above and below
    zero are counted (``holds``/``fails``).
    """
    from treebench.stats.bootstrap import nested_bootstrap

    value, n_paper, source = paper
    effect = Effect(measure, value, source, n_paper=n_paper, kind=kind, margin=margin, test=test)
    arrays = list(units.values()) if isinstance(units, dict) else list(units)
    effect.datasets = [str(k) for k in units] if isinstance(units, dict) else [str(d) for d in datasets or ()]
    if not arrays:
        effect.verdict = not_testable(empty)
        return effect
    ci = nested_bootstrap(arrays, summary, aggregate)
    effect.ours, effect.low, effect.high, effect.n_datasets = ci.estimate, ci.low, ci.high, ci.n_units
    points = _unit_points(arrays, summary)
    effect.holds, effect.fails, effect.counted = int(np.sum(points > 0)), int(np.sum(points < 0)), len(points)
    effect.unit_points = list(zip(effect.datasets, (float(p) for p in points)))
    effect.verdict = judge(effect)
    return effect


def _unit_points(arrays: list[np.ndarray], summary: object) -> np.ndarray:
    """Each dataset's summary of its column means (the value the bootstrap resamples around)."""
    from treebench.stats.bootstrap import unit_means

    out = []
    for i, arr in enumerate(arrays):
        means = unit_means(arr)[None, :]
        f = summary[i] if isinstance(summary, (list, tuple)) else summary
        out.append(float(np.asarray(f(means) if f is not None else means[:, 0]).ravel()[0]))
    return np.asarray(out)


#: The correction of a test run unit by unit (:attr:`ClaimTest.p_adjusted`).
_UNITS_CORRECTION = ("Holm over the {n} {units}, every one rejecting (largest adjusted p): a second view; "
                     "the verdict grades each unit uncorrected")


def _unit_grades(raw: Sequence[tuple[str, float]], alpha: float) -> list[tuple[str, str]]:
    """Each unit's grade by its uncorrected p (already 1 where the unit goes against the claim)."""
    return [(u, not_testable("the test could not be computed") if math.isnan(p)
             else REPRODUCED if p < alpha else NOT_REPRODUCED) for u, p in raw]


def _table_source(n: int, what: str = "") -> str:
    """``its table, n dataset(s) [what]``: where a paper effect comes from."""
    return f"its table, {n} dataset{'' if n == 1 else 's'}" + (f" {what}" if what else "")


def _net_share(values: np.ndarray) -> np.ndarray:
    """Aggregate of per-dataset signs: (holds - fails) / datasets."""
    return values.mean(axis=1)


# the effect machinery, for a paper's own claim kinds (papers/*/claims.py)
measured_effect = _measured
net_share = _net_share


def _sign_of_first(means: np.ndarray) -> np.ndarray:
    return np.sign(means[:, 0])


def _paper_net(signs: list[float]) -> float:
    return float(np.mean(signs)) if signs else math.nan


@claim_kind("wilcoxon")
@dataclass(frozen=True)
class WilcoxonClaim:
    """"``a`` is (not) significantly better than ``b``" by a Wilcoxon signed-rank test over datasets.

    Evaluated on the per-dataset means of the paper and of the rerun.  "Beats"
    (``significant``) is a ``significance`` claim: reproduced when Wilcoxon's
    test over our datasets rejects at ``alpha`` after Holm over the report's
    ``wilcoxon`` family, ``a`` ahead.  "No significant difference" is an
    ``equivalence`` claim: reproduced when the interval of the effect lies
    inside ± ``margin`` (NaN: the unit's default,
    :data:`~treebench.report.verdicts.MARGINS`); the test is shown beside it.

    Effect: the mean over datasets of ``a - b`` (``b - a`` for a metric where
    lower is better), in the paper's unit.
    """

    text: str
    a: str
    b: str
    metric: str
    significant: bool
    alpha: float = 0.05
    margin: float = math.nan

    @property
    def kind(self) -> str:
        """``significance`` ("beats", by the test) or ``equivalence`` ("no significant difference")."""
        return SIGNIFICANCE if self.significant else EQUIVALENCE

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Wilcoxon test of ``a`` against ``b`` on the paper's means and on ours, and the effect."""
        from treebench.stats import across

        hib = _higher(self.metric)
        paper_says = "significant" if self.significant else "not significant"
        out = ClaimOutcome(self.text, paper_says, "–", "not run", None)
        test = ClaimTest("Wilcoxon signed-rank over datasets", self.alpha, family="wilcoxon")
        for column, slot in (("value", "paper_numbers"), ("ours", "ours")):
            wide = _means(cells, self.metric, column)
            if self.a not in wide or self.b not in wide:
                continue
            both = wide[[self.a, self.b]].dropna()
            if len(both) < 2:
                setattr(out, slot, f"only {len(both)} dataset(s)")
                continue
            r = across.wilcoxon(both[self.a].to_numpy(), both[self.b].to_numpy(), self.a, self.b, hib)
            different = r.significant(self.alpha)
            a_better = different and r.wins > r.losses
            verdict = (
                f"significant, {self.a} better" if a_better
                else f"significant, {self.b} better" if different
                else "not significant"
            )
            text = (f"W = {r.statistic:g}, p = {r.p_value:.4f} over {r.n} datasets "
                    f"({r.wins}/{r.ties}/{r.losses} win/tie/loss): {verdict}")
            setattr(out, slot, text)
            setattr(test, "paper_p" if column == "value" else "ours_p", r.p_value)
            if column == "ours":
                out.literal = a_better if self.significant else not different
        return out.set_effect(self._effect(cells, frame, hib, test))

    def _effect(self, cells: pd.DataFrame, frame: pd.DataFrame, hib: bool, test: ClaimTest) -> Effect:
        sign = 1.0 if hib else -1.0
        unit = _unit(cells, self.metric)
        measure = (f"mean {self.a} − {self.b} over datasets ({self.metric}, {_unit_name(unit, self.metric)}; "
                   f"+ = {self.a} better)")
        wide = _means(cells, self.metric, "value") if len(cells) else None
        paper = (math.nan, 0, "no numbers in the paper's table")
        if wide is not None and self.a in wide and self.b in wide:
            d = sign * (wide[self.a] - wide[self.b]).dropna()
            if len(d):
                paper = (float(d.mean()), len(d), _table_source(len(d)))
        margin = self.margin
        if not self.significant and math.isnan(margin) and wide is not None and self.a in wide and self.b in wide:
            margin = design_margin((wide[self.a] - wide[self.b]).dropna().to_numpy(), self.alpha)
            margin = math.nan if margin == 0 else margin  # no spread, no resolution: the fixed margin
        rerun = _Rerun(cells, frame)
        algs = rerun.algorithms([self.a, self.b])
        if isinstance(algs, str):
            return _measured(measure, paper, [], None, kind=self.kind, empty=algs, test=test)
        units = rerun.units(algs, self.metric, unit, list(rerun.paper_datasets(self.metric)))
        effect = _measured(measure, paper, units, lambda m: sign * (m[:, 0] - m[:, 1]), kind=self.kind,
                           margin=_margin(margin, unit, self.metric),
                           empty=f"no dataset of the paper's table with {self.a} and {self.b} rerun", test=test)
        if not self.significant and not math.isnan(margin):
            effect.margin_source = (f"the smallest difference the paper's Wilcoxon test over its {len(wide[[self.a, self.b]].dropna())} "
                                    f"datasets detects with 80 % power at {self.alpha:g}, from the spread of its own "
                                    "per-dataset differences")
            effect.fixed_margin = _margin(math.nan, unit, self.metric)
        return effect


@claim_kind("one_way")
@dataclass(frozen=True)
class OneWayClaim:
    """Per dataset, which algorithms are significantly best and worst.

    The reference marks them ``bold`` (best) and ``underline`` (worst); the
    rerun decides by Levene, then ANOVA or Kruskal-Wallis and post-hoc tests
    (:func:`treebench.stats.oneway.oneway_protocol`) on the per-trial values;
    where the algorithms of a dataset were run under different protocols
    (one under 25-fold CV, the others under leave-one-out), on the per-case
    values instead (0/1 errors, :func:`~treebench.report.cells.case_values`),
    which a leave-one-out trial already is.

    Effect: over the datasets where the paper marks both a best and a worst
    algorithm, the mean of (the marked worst's value - the marked best's),
    oriented so that + = the marked best is better (each side averaged when
    several algorithms carry the mark).  Test: the omnibus test of each
    dataset, Holm-adjusted over the datasets.
    """

    text: str
    metric: str = "error"
    alpha: float = 0.05

    #: Significantly best and worst: the paper's one-way tests, on our folds.
    kind = SIGNIFICANCE

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Count the datasets where our best/worst sets equal the paper's marks, and the effect."""
        from treebench.report.cells import Matcher, case_values, ok_trials, trial_values
        from treebench.stats import oneway
        from treebench.stats.multiple import holm

        hib = _higher(self.metric)
        out = ClaimOutcome(self.text, "bold/underline in the table", "–", "not run", None)
        sub = cells[cells["metric"] == self.metric]
        ok = ok_trials(frame)
        match = Matcher.of(ok)
        agreements, total = 0, 0
        omnibus: list[tuple[str, float]] = []
        unit_grades: list[tuple[str, str]] = []
        for label, group in sub.groupby("dataset_label", sort=False):
            paper_best = sorted(group.loc[group["mark"] == "bold", "algorithm"])
            paper_worst = sorted(group.loc[group["mark"] == "underline", "algorithm"])
            ds = match.dataset(group["dataset"].iloc[0], label)
            found = {}
            for alg in group["algorithm"]:
                name = match.algorithm(alg)
                if ds is not None and name is not None:
                    found[alg] = ok[(ok["dataset"].astype(str) == ds) & (ok["algorithm"].astype(str) == name)]
            # algorithms run under different protocols (LOO beside k-fold): their trials are values of
            # different kinds, so all of them are compared per test case (0/1), which LOO trials already are
            mixed = "protocol" in ok.columns and len({str(p) for rows in found.values() for p in rows["protocol"]}) > 1
            groups = {}
            for alg, rows in found.items():
                vals = case_values(rows, self.metric) if mixed else None
                if vals is None:
                    vals = trial_values(rows, self.metric, "fraction").dropna().to_numpy()
                if vals.size >= 2:
                    groups[alg] = vals
            if len(groups) < 2:
                out.details.append(f"{label}: paper best {paper_best or '–'}, worst {paper_worst or '–'}; ours: not run")
                continue
            res = oneway.oneway_protocol(groups, hib, self.alpha)
            omnibus.append((str(label), res.p_value))
            total += 1
            same = sorted(res.best) == paper_best and sorted(res.worst) == paper_worst
            agreements += same
            marked = str(label), same and res.p_value < self.alpha
            # every cell marked alike (all underlined: 001's Glass) singles out no best or worst: nothing asserted
            alike = len(paper_best) == len(group) or len(paper_worst) == len(group)
            unit_grades.append((marked[0], not_testable(f"the paper marks all {len(group)} cells alike, so it "
                                                        "asserts no best or worst") if alike else
                                REPRODUCED if marked[1] else NOT_REPRODUCED)
                               if paper_best or paper_worst else
                               (marked[0], not_testable("the paper marks no best or worst")))
            out.details.append(
                f"{label}: paper best {', '.join(paper_best) or '–'} / worst {', '.join(paper_worst) or '–'}; "
                f"ours ({'Kruskal-Wallis' if res.test == 'kruskal' else 'ANOVA'}, p = {res.p_value:.4f}) "
                f"best {', '.join(res.best) or '–'} / worst {', '.join(res.worst) or '–'}"
                f"{'' if same else '  ← differs'}"
            )
        if total:
            out.ours = f"same marks on {agreements} of {total} datasets"
            out.literal = agreements == total
        test = ClaimTest("Levene → ANOVA / Kruskal-Wallis per dataset (omnibus)", self.alpha, units=unit_grades)
        if omnibus:
            adjusted = holm([p for _, p in omnibus])
            test.parts = [(label, p, float(q)) for (label, p), q in zip(omnibus, adjusted)]
            test.correction = _UNITS_CORRECTION.format(n=len(omnibus), units="datasets")
            raw_sig = sum(p <= self.alpha for _, p in omnibus)
            adj_sig = int(np.sum(adjusted <= self.alpha))
            test.summary = (f"a difference on {raw_sig} of {len(omnibus)} datasets at {self.alpha:g} "
                            f"({adj_sig} after Holm over the datasets)")
        return out.set_effect(self._effect(cells, frame, hib, test))

    def _effect(self, cells: pd.DataFrame, frame: pd.DataFrame, hib: bool, test: ClaimTest) -> Effect:
        sign = 1.0 if hib else -1.0
        unit = _unit(cells, self.metric)
        measure = (f"mean over datasets of the paper's significantly best − worst ({self.metric}, "
                   f"{_unit_name(unit, self.metric)}; + = the marked best better)")
        sub = cells[cells["metric"] == self.metric] if len(cells) else cells
        rerun = _Rerun(cells, frame)
        paper_d: list[float] = []
        units: list[np.ndarray] = []
        summaries: list[Callable[[np.ndarray], np.ndarray]] = []
        names: list[str] = []
        skipped: list[str] = []
        for label, group in (sub.groupby("dataset_label", sort=False) if len(sub) else ()):
            best = sorted(group.loc[group["mark"] == "bold", "algorithm"])
            worst = sorted(group.loc[group["mark"] == "underline", "algorithm"])
            if not best or not worst:
                continue
            vals = group.groupby("algorithm")["value"].mean()
            paper_d.append(sign * (float(vals[best].mean()) - float(vals[worst].mean())))
            algs = rerun.algorithms(best + worst)
            ds = rerun.match.dataset(group["dataset"].iloc[0], label) if "dataset" in group.columns else None
            if isinstance(algs, str) or ds is None:
                skipped.append(str(label))
                continue
            found = rerun.units(algs, self.metric, unit, [ds])
            if ds in found:
                units.append(found[ds])
                names.append(ds)
                k = len(best)
                summaries.append(lambda m, k=k: sign * (m[:, :k].mean(axis=1) - m[:, k:].mean(axis=1)))
        paper = ((float(np.mean(paper_d)), len(paper_d), _table_source(len(paper_d), "with both marks"))
                 if paper_d else (math.nan, 0, "the table marks no best and worst on one dataset"))
        return _measured(measure, paper, units, summaries, test=test, kind=self.kind, datasets=names,
                         empty="no dataset with both marks rerun" if not skipped else f"not rerun: {', '.join(skipped)}")


@claim_kind("underline")
@dataclass(frozen=True)
class UnderlineClaim:
    """Cells significantly better (paired ``test`` per dataset) than every one of ``opponents``.

    The reference marks them ``underline``; the rerun's are those of
    :func:`treebench.report.table.build_table` with ``underline_against``.

    Effect: over the paper's underlined cells, the mean margin of the cell's
    algorithm over the better of the opponents (averaged per dataset, then
    over datasets; + = the underlined algorithm better).  Test: the paired
    ``test`` of each underlined cell against each opponent on our splits (a
    cell's p is the larger of the two, 1 when it is not ahead of both),
    Holm-adjusted over the cells.
    """

    text: str
    opponents: tuple[str, ...]
    metric: str = "accuracy"
    test: str = "ttest"
    alpha: float = 0.05

    #: Underlined = significantly better, by the paper's paired test.
    kind = SIGNIFICANCE

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Compare our underlined cells with the paper's, on the datasets we ran, and the effect."""
        from treebench.report.cells import Matcher, ok_trials
        from treebench.report.table import build_table

        paper_cells = cells[(cells["metric"] == self.metric) & (cells["mark"].str.startswith("underline"))]
        paper_set = {(r.dataset_label, r.algorithm) for r in paper_cells.itertuples()}
        out = ClaimOutcome(self.text, f"{len(paper_set)} underlined cells (as read, see the reference README)",
                           "–", "not run", None)
        out.set_effect(self._effect(cells, frame, paper_cells))
        ok = ok_trials(frame)
        if ok.empty:
            return out
        match = Matcher.of(ok)
        opp = [match.algorithm(o) for o in self.opponents]
        if any(o is None for o in opp):
            return out
        try:
            table = build_table(ok, metric=self.metric, test=self.test, alpha=self.alpha, underline_against=opp)
        except TreebenchError as exc:
            out.ours = f"not computed: {exc}"
            return out
        labels = {}
        for r in cells[cells["metric"] == self.metric].itertuples():
            ds, alg = match.dataset(r.dataset, r.dataset_label), match.algorithm(r.algorithm)
            if ds and alg:
                labels[(ds, alg)] = (r.dataset_label, r.algorithm)
        ours = {labels[k] for k, cell in table.cells.items() if cell.underline and k in labels}
        covered = set(labels.values())
        paper_in = {p for p in paper_set if p in covered}
        both = ours & paper_in
        out.ours = f"{len(ours)} underlined; {len(both)} of the paper's {len(paper_in)} (on datasets run) among them"
        out.literal = ours == paper_in
        for ds_label, alg in sorted(ours ^ paper_in):
            who = "ours only" if (ds_label, alg) in ours else "paper only"
            out.details.append(f"{ds_label} / {alg}: {who}")
        return out

    def _effect(self, cells: pd.DataFrame, frame: pd.DataFrame, paper_cells: pd.DataFrame) -> Effect:
        from treebench.stats.multiple import holm
        from treebench.stats.paired import run_paired

        hib = _higher(self.metric)
        sign = 1.0 if hib else -1.0
        unit = _unit(cells, self.metric)
        measure = (f"mean margin of the underlined cells over the better of {', '.join(self.opponents)} "
                   f"({self.metric}, {_unit_name(unit, self.metric)}; + = underlined better)")
        test = ClaimTest(f"paired {'t-test' if self.test == 'ttest' else self.test} per underlined cell "
                         f"against each of {', '.join(self.opponents)}", self.alpha)
        sub = cells[cells["metric"] == self.metric]
        rerun = _Rerun(cells, frame)
        opponents = rerun.algorithms(list(self.opponents))
        paper_d: list[float] = []
        units: list[np.ndarray] = []
        summaries: list[Callable[[np.ndarray], np.ndarray]] = []
        names: list[str] = []
        raw: list[tuple[str, float]] = []
        for label, group in paper_cells.groupby("dataset_label", sort=False):
            everything = sub[sub["dataset_label"] == label].groupby("algorithm")["value"].mean()
            chosen = sorted(group["algorithm"])
            if any(o not in everything for o in self.opponents):
                continue
            best_opp = everything[list(self.opponents)].max() if hib else everything[list(self.opponents)].min()
            paper_d.append(float(np.mean([sign * (everything[a] - best_opp) for a in chosen])))
            algs = rerun.algorithms(chosen)
            ds = rerun.match.dataset(group["dataset"].iloc[0], label)
            if isinstance(algs, str) or isinstance(opponents, str) or ds is None:
                continue
            found = rerun.units(algs + opponents, self.metric, unit, [ds])
            if ds not in found:
                continue
            rows, k = found[ds], len(algs)
            units.append(rows)
            names.append(ds)
            summaries.append(lambda m, k=k: np.mean([sign * (m[:, i] - (m[:, k:].max(axis=1) if hib
                                                                         else m[:, k:].min(axis=1)))
                                                     for i in range(k)], axis=0))
            for i, alg in enumerate(chosen):
                if len(rows) < 2:  # one value per cell (the paper's own table): no paired test to run
                    raw.append((f"{label} / {alg}", math.nan))
                    continue
                ps = []
                for j in range(len(opponents)):
                    r = run_paired(self.test, rows[:, i], rows[:, k + j])
                    ps.append(r.p_value if sign * r.mean_diff > 0 else 1.0)
                raw.append((f"{label} / {alg}", max(ps)))
        if raw:
            adjusted = holm([p for _, p in raw])
            test.parts = [(u, p, float(q)) for (u, p), q in zip(raw, adjusted)]
            test.units = _unit_grades(raw, self.alpha)
            test.correction = _UNITS_CORRECTION.format(n=len(raw), units="underlined cells")
            test.summary = (f"{sum(p <= self.alpha for _, p in raw)} of {len(raw)} underlined cells significant at "
                            f"{self.alpha:g} ({int(np.sum(adjusted <= self.alpha))} after Holm over the cells)")
        paper = ((float(np.mean(paper_d)), len(paper_d), _table_source(len(paper_d), "with underlines"))
                 if paper_d else (math.nan, 0, "no underlined cell"))
        empty = opponents if isinstance(opponents, str) else "no underlined cell's dataset rerun"
        return _measured(measure, paper, units, summaries, test=test, empty=empty, kind=self.kind, datasets=names)


@claim_kind("fewer")
@dataclass(frozen=True)
class FewerClaim:
    """"``a`` has a lower mean ``metric`` than ``b`` on each of ``datasets``" (no test).

    An empty ``datasets`` means every dataset of the rerun (and, for the
    paper's side, every dataset of its table with both numbers).

    Effect: the net share of datasets where ``a`` is lower, (lower - higher) /
    datasets, from -1 to +1 (ties count zero).  The paper's is computed from
    its table when it prints both numbers; when it only states the claim, it
    is taken as stated: +1 on the listed datasets.
    """

    text: str
    a: str
    b: str
    metric: str
    datasets: tuple[str, ...]

    @property
    def kind(self) -> str:
        """``count`` on the named datasets ("on each of ..."), else ``trend`` (most datasets)."""
        return COUNT if self.datasets else TREND

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Compare the two algorithms' mean ``metric`` dataset by dataset on the rerun, and the effect."""
        from treebench.report.cells import Matcher, ok_trials, trial_values

        out = ClaimOutcome(self.text, "yes", "–", "not run", None)
        out.set_effect(self._effect(cells, frame))
        ok = ok_trials(frame)
        if ok.empty:
            return out
        match = Matcher.of(ok)
        a, b = match.algorithm(self.a), match.algorithm(self.b)
        datasets = [match.dataset(d) for d in self.datasets] if self.datasets else match.frame_datasets
        results = []
        for want, ds in zip(self.datasets or datasets, datasets):
            if ds is None or a is None or b is None:
                out.details.append(f"{want}: not run")
                continue
            va = trial_values(ok[(ok["dataset"] == ds) & (ok["algorithm"] == a)], self.metric, "count").mean()
            vb = trial_values(ok[(ok["dataset"] == ds) & (ok["algorithm"] == b)], self.metric, "count").mean()
            if math.isnan(va) or math.isnan(vb):
                out.details.append(f"{ds}: no {self.metric} in the store")
                continue
            results.append(va < vb)
            out.details.append(f"{ds}: {self.a} {va:.4g} vs {self.b} {vb:.4g} → {'fewer' if va < vb else 'not fewer'}")
        if results:
            out.ours = f"fewer on {sum(results)} of {len(results)} dataset(s)"
            out.literal = all(results)
        paper = self._paper_table(cells)
        if paper:
            out.paper_numbers = f"fewer on {sum(s > 0 for s in paper)} of {len(paper)} dataset(s) of its table"
        return out

    def _paper_table(self, cells: pd.DataFrame) -> list[float]:
        """Per dataset of the paper's table (restricted to ``datasets``): sign(b - a)."""
        from treebench.report.cells import norm

        if not len(cells) or "dataset_label" not in cells.columns:
            return []
        wide = _means(cells, self.metric, "value")
        if self.a not in wide or self.b not in wide:
            return []
        both = wide[[self.a, self.b]].dropna()
        if self.datasets:
            wanted = {norm(d) for d in self.datasets}
            cards = cells.drop_duplicates("dataset_label").set_index("dataset_label")
            card = cards["dataset"] if "dataset" in cards.columns else cards.index.to_series()
            both = both[[norm(card.get(lab, "")) in wanted or norm(lab) in wanted for lab in both.index]]
        return [float(np.sign(r[self.b] - r[self.a])) for _, r in both.iterrows()]

    def _effect(self, cells: pd.DataFrame, frame: pd.DataFrame) -> Effect:
        unit = _unit(cells, self.metric)
        measure = f"net share of datasets where {self.a} has the lower {self.metric} than {self.b} (−1 to +1)"
        signs = self._paper_table(cells)
        if signs:
            paper = (_paper_net(signs), len(signs), _table_source(len(signs)))
        elif self.datasets:
            paper = (1.0, len(self.datasets), "stated in the text, no numbers printed")
        else:
            paper = (1.0, 0, "stated, no numbers")
        rerun = _Rerun(cells, frame)
        algs = rerun.algorithms([self.a, self.b])
        if isinstance(algs, str):
            return _measured(measure, paper, [], None, kind=self.kind, empty=algs)
        if self.datasets:
            names = [rerun.match.dataset(d) for d in self.datasets]
            names = [n for n in names if n]
        else:
            names = rerun.match.frame_datasets
        units = rerun.units(algs, self.metric, unit, names)
        return _measured(measure, paper, units, lambda m: np.sign(m[:, 1] - m[:, 0]), _net_share,
                         kind=self.kind, empty=f"none of {', '.join(self.datasets) or 'the datasets'} rerun with {self.a} and {self.b}")


@claim_kind("most")
@dataclass(frozen=True)
class MostClaim:
    """"``a`` has the largest mean ``metric`` on every dataset" (read off a figure, no test).

    Effect: the net share of datasets where ``a``'s mean is the largest
    (largest: +1, tied for largest: 0, not largest: -1); the paper states +1
    ("always") on the datasets of its table.  ``others`` limits the comparison
    to the algorithms the sentence names (empty: every other algorithm of the
    rerun), so that an algorithm the claim does not speak of cannot decide it.
    """

    text: str
    a: str
    metric: str
    others: tuple[str, ...] = ()

    #: "Always": on every dataset.
    kind = COUNT

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Count the datasets where ``a``'s mean is the largest on the rerun, and the effect."""
        from treebench.report.cells import Matcher, ok_trials

        out = ClaimOutcome(self.text, "yes (figure)", "–", "not run", None)
        out.set_effect(self._effect(cells, frame))
        ok = ok_trials(frame)
        if ok.empty or self.metric not in ok.columns:
            return out
        a = Matcher.of(ok).algorithm(self.a)
        if a is None:
            return out
        wide = ok.pivot_table(index="dataset", columns="algorithm", values=self.metric, aggfunc="mean")
        if self.others:
            named = {Matcher.of(ok).algorithm(o) for o in self.others} - {None}
            wide = wide[[c for c in wide.columns if c == a or c in named]]
        top = wide.max(axis=1)
        hits = int((wide[a] >= top - 1e-12).sum())
        out.ours = f"largest on {hits} of {len(wide)} datasets"
        out.literal = hits == len(wide)
        return out

    def _effect(self, cells: pd.DataFrame, frame: pd.DataFrame) -> Effect:
        measure = f"net share of datasets where {self.a} has the largest mean {self.metric} (−1 to +1)"
        n_paper = int(cells["dataset_label"].nunique()) if len(cells) and "dataset_label" in cells.columns else 0
        paper = (1.0, n_paper, "stated (\"always\"), read off a figure")
        rerun = _Rerun(cells, frame)
        if not len(rerun.ok) or self.metric not in rerun.ok.columns:
            return _measured(measure, paper, [], None, kind=self.kind, empty=f"no {self.metric} rerun")
        algs = rerun.algorithms([self.a])
        if isinstance(algs, str):
            return _measured(measure, paper, [], None, kind=self.kind, empty=algs)
        others = [str(x) for x in rerun.match.frame_algorithms if x != algs[0]]
        if self.others:
            named = {rerun.match.algorithm(o) for o in self.others} - {None}
            others = [o for o in others if o in named]
        if not others:
            return _measured(measure, paper, [], None, kind=self.kind, empty="no other algorithm rerun")
        units = {}
        for ds in rerun.match.frame_datasets:
            present = [o for o in others if ((rerun.ok["dataset"] == ds) & (rerun.ok["algorithm"] == o)).any()]
            if present:
                found = rerun.units(algs + present, self.metric, "raw", [ds])
                if ds in found:
                    units[ds] = found[ds]

        def largest(m: np.ndarray) -> np.ndarray:
            rest = m[:, 1:].max(axis=1)
            return np.where(m[:, 0] > rest, 1.0, np.where(m[:, 0] < rest, -1.0, 0.0))

        return _measured(measure, paper, units, largest, _net_share, kind=self.kind,
                         empty=f"{self.a} and no other algorithm rerun")


@claim_kind("mean_diff")
@dataclass(frozen=True)
class MeanDiffClaim:
    """The mean over datasets of ``a - b`` for each of ``others``, paper vs ours.

    Also against the best of ``others`` per dataset.  ``paper`` is what the
    paper states (e.g. the size of the gain).

    Effect: the mean over datasets of ``a`` minus the mean of ``others`` (the
    average gain over the others; + = ``a`` better), on the paper's table and
    on ours.
    """

    text: str
    a: str
    others: tuple[str, ...]
    metric: str
    paper: str = "–"

    #: A size of an advantage: a difference.
    kind = DIFFERENCE

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """The mean differences on the paper's numbers and on ours, and the effect."""
        out = ClaimOutcome(self.text, self.paper, "–", "not run", None)
        for column, slot in (("value", "paper_numbers"), ("ours", "ours")):
            wide = _means(cells, self.metric, column)
            parts = []
            for b in self.others:
                if self.a in wide and b in wide:
                    d = (wide[self.a] - wide[b]).dropna()
                    if len(d):
                        parts.append(f"vs {b} {d.mean():+.2f}")
            others = [b for b in self.others if b in wide]
            if self.a in wide and others:
                # per dataset, against whichever of the others did best there
                best = wide[others].max(axis=1) if _higher(self.metric) else wide[others].min(axis=1)
                d = (wide[self.a] - best).dropna()
                if len(d):
                    parts.append(f"vs the best of {', '.join(others)} per dataset {d.mean():+.2f}")
            if parts:
                setattr(out, slot, "; ".join(parts))
        return out.set_effect(self._effect(cells, frame))

    def _effect(self, cells: pd.DataFrame, frame: pd.DataFrame) -> Effect:
        sign = 1.0 if _higher(self.metric) else -1.0
        unit = _unit(cells, self.metric)
        names = [self.a, *self.others]
        measure = (f"mean {self.a} − mean of {', '.join(self.others)} over datasets ({self.metric}, "
                   f"{_unit_name(unit, self.metric)}; + = {self.a} better)")
        wide = _means(cells, self.metric, "value") if len(cells) else None
        paper = (math.nan, 0, "no numbers in the paper's table")
        if wide is not None and all(n in wide for n in names):
            full = wide[names].dropna()
            if len(full):
                d = sign * (full[self.a] - full[list(self.others)].mean(axis=1))
                paper = (float(d.mean()), len(d), _table_source(len(d)))
        rerun = _Rerun(cells, frame)
        algs = rerun.algorithms(names)
        if isinstance(algs, str):
            return _measured(measure, paper, [], None, empty=algs)
        units = rerun.units(algs, self.metric, unit, list(rerun.paper_datasets(self.metric)))
        return _measured(measure, paper, units, lambda m: sign * (m[:, 0] - m[:, 1:].mean(axis=1)),
                         empty=f"no dataset of the paper's table with {', '.join(names)} rerun")


def evaluate_claim(claim: Claim, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
    """``claim.evaluate(cells, frame)``, with a ``not testable`` effect when the claim kind computes none."""
    out = claim.evaluate(cells, frame)
    if getattr(out, "effect", None) is None:
        effect = Effect("–", verdict=not_testable("this claim kind computes no effect"))
        if isinstance(out, ClaimOutcome):
            out.set_effect(effect)
        else:  # a paper's own outcome type: give it the attributes the report reads
            out.effect, out.verdict = effect, effect.verdict
    return out


def in_report_folder(claim: Claim, folder: str | Path) -> Claim:
    """``claim`` reading the files of the report being built in ``folder``.

    A claim that grades what a section of its paper writes into the report's
    folder (paper 000's Figs. 2-3 grade the random trees of their section)
    has ``in_folder(folder)`` returning a copy bound to that folder; any
    other claim is returned as it is.  Binding at build time keeps the grade
    on this report's files, whatever the working directory or ``--out-dir``.
    """
    bind = getattr(claim, "in_folder", None)
    return bind(folder) if callable(bind) else claim


#: The test :class:`FoldsClaim` runs on each dataset's folds, as the report names it.
FOLD_TEST_NAMES = {"ttest": "paired t-test", "corrected-ttest": "corrected resampled t-test"}


@claim_kind("folds")
@dataclass(frozen=True)
class FoldsClaim:
    """"``a`` is (not) significantly better than ``b`` on ``metric``", tested over each dataset's outer folds.

    For a paper whose "significantly" names no test, or whose own datasets are
    not rerun (so :class:`WilcoxonClaim`, a test over the paper's datasets, has
    nothing to work on).  Effect: the mean over the rerun's datasets of
    ``a - b`` (``b - a`` for a metric where lower is better; + = ``a``
    better), in the paper's unit, with the paired two-level bootstrap
    interval; the paper's effect is the same difference on its table when it
    prints both cells, else what the text states (``stated``:
    ``paper_effect``).  ``significant`` makes it a ``significance`` claim
    (reproduced when the test rejects on every dataset after Holm, ``a``
    ahead); false an ``equivalence`` claim (reproduced when the interval lies
    inside ± ``margin``; NaN: the unit's default margin).

    Test (our choice, stated in the report): ``test`` on the paired fold values
    of each dataset, two-sided; for a directional claim a dataset counts when
    ``a`` is ahead and p <= ``alpha``; p-values Holm-adjusted over the datasets.
    ``literal``: a directional claim holds on more than half the datasets after
    Holm; a "no difference" claim on none of them is a difference found.
    """

    text: str
    a: str
    b: str
    metric: str
    significant: bool = True
    test: str = "ttest"
    alpha: float = 0.05
    stated: str = ""
    paper_effect: float = math.nan
    margin: float = math.nan
    design_cases: int = 0
    design_rate: float = math.nan

    @property
    def kind(self) -> str:
        """``significance`` ("significantly better") or ``equivalence`` ("equivalent")."""
        return SIGNIFICANCE if self.significant else EQUIVALENCE

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """The per-dataset fold tests, the summary and the effect."""
        from treebench.stats.multiple import holm
        from treebench.stats.paired import run_paired

        hib = _higher(self.metric)
        sign = 1.0 if hib else -1.0
        unit = _unit(cells, self.metric)
        paper_says = ("significantly " if self.significant else "no significant difference: ") + (
            f"{self.a} better than {self.b}" if self.significant else f"{self.a} equivalent to {self.b}")
        out = ClaimOutcome(self.text, self.stated or paper_says, "–", "not run", None)
        name = FOLD_TEST_NAMES.get(self.test, self.test)
        test = ClaimTest(f"{name} over each dataset's outer folds (our choice: the paper names no test)",
                         self.alpha, as_applied=False)
        measure = (f"mean {self.a} − {self.b} over datasets ({self.metric}, {_unit_name(unit, self.metric)}; "
                   f"+ = {self.a} better)")
        paper = self._paper(cells, sign, out)
        rerun = _Rerun(cells, frame)
        algs = rerun.algorithms([self.a, self.b])
        if isinstance(algs, str):
            return out.set_effect(_measured(measure, paper, [], None, kind=self.kind, empty=algs,
                                            test=test))
        units = rerun.units(algs, self.metric, unit, rerun.match.frame_datasets, paired=True)
        raw: list[tuple[str, float]] = []
        for dataset, rows in units.items():
            if len(rows) < 2:
                continue
            r = run_paired(self.test, rows[:, 0], rows[:, 1])
            p = r.p_value if not math.isnan(r.p_value) else 1.0
            if self.significant and not sign * r.mean_diff > 0:
                p = 1.0  # not ahead: no evidence for the claimed direction
            raw.append((str(dataset), p))
        if raw:
            adjusted = holm([p for _, p in raw])
            test.parts = [(u, p, float(q)) for (u, p), q in zip(raw, adjusted)]
            test.units = _unit_grades(raw, self.alpha)
            test.correction = _UNITS_CORRECTION.format(n=len(raw), units="datasets")
            hits = int(np.sum(adjusted <= self.alpha))
            what = f"{self.a} significantly better" if self.significant else "significantly different"
            test.summary = (f"{what} on {sum(p <= self.alpha for _, p in raw)} of {len(raw)} datasets at "
                            f"{self.alpha:g} ({hits} after Holm over the datasets)")
            out.ours = test.summary
            out.literal = hits > len(raw) / 2 if self.significant else hits == 0
            out.details = [f"{u}: p = {p:.4g}, Holm {q:.4g}" for u, p, q in test.parts]
        margin = self.margin
        design = not self.significant and math.isnan(margin) and self.design_cases > 0
        if design:
            margin = rate_design_margin(self.design_rate, self.design_cases) * (100.0 if unit == "percent" else 1.0)
        effect = _measured(measure, paper, units, lambda m: sign * (m[:, 0] - m[:, 1]), kind=self.kind,
                           margin=_margin(margin, unit, self.metric),
                           empty=f"no dataset rerun with {self.a} and {self.b}", test=test)
        if design:
            effect.margin_source = (f"the smallest difference of two error rates near {self.design_rate:g} that the "
                                    f"paper's {self.design_cases} cases detect with 80 % power (unpaired: the paper "
                                    "gives no discordant counts)")
            effect.fixed_margin = _margin(math.nan, unit, self.metric)
        return out.set_effect(effect)

    def _paper(self, cells: pd.DataFrame, sign: float, out: ClaimOutcome) -> tuple[float, int, str]:
        """The paper's effect from its table when it prints both cells, else as stated."""
        wide = _means(cells, self.metric, "value") if len(cells) else None
        if wide is not None and self.a in wide and self.b in wide:
            both = wide[[self.a, self.b]].dropna()
            if len(both):
                out.paper_numbers = "; ".join(f"{lab}: {self.a} {r[self.a]:g}, {self.b} {r[self.b]:g}"
                                              for lab, r in both.iterrows())
                d = sign * (both[self.a] - both[self.b])
                n = len(both)
                return float(d.mean()), n, f"its table, {n} dataset{'' if n == 1 else 's'}"
        if self.significant:
            return self.paper_effect, 0, "stated, no numbers"
        return (0.0 if math.isnan(self.paper_effect) else self.paper_effect), 0, "stated in the text, not shown"
