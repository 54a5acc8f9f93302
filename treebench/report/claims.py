"""A paper's conclusions as objects that recompute themselves.

Every claim kind is a small frozen dataclass with a ``text`` (how the report
names it) and one method, ``evaluate(cells, frame)``, that recomputes the
conclusion on the rerun — and, where it makes sense, on the paper's published
numbers too, to show whether the claim even follows from them — and returns a
:class:`ClaimOutcome`.  ``cells`` is :func:`treebench.report.cells.compare_cells`'s
table (column ``value`` = the paper's number, ``ours`` = the rerun's), ``frame``
the rerun's trials.  A paper may define its own kind: anything with ``text``
and ``evaluate`` is a :class:`Claim`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from treebench.errors import TreebenchError

if TYPE_CHECKING:
    import pandas as pd

# pandas, scipy and the cell helpers are imported where a claim is evaluated:
# the papers' specs build claims at import, and listing the papers stays cheap.


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
    agrees
        Whether the rerun supports the claim; ``None`` when it could not be judged.
    details
        Extra lines (e.g. one per dataset) listed under the claims table.
    """

    text: str
    paper: str
    paper_numbers: str
    ours: str
    agrees: bool | None
    details: list[str] = field(default_factory=list)


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


@dataclass(frozen=True)
class WilcoxonClaim:
    """"``a`` is (not) significantly better than ``b``" by a Wilcoxon signed-rank test over datasets.

    Evaluated on the per-dataset means of the paper and of the rerun.  "Beats"
    (``significant``) needs a significant difference in ``a``'s favour; "no
    significant difference" fails on a difference in either direction.
    """

    text: str
    a: str
    b: str
    metric: str
    significant: bool
    alpha: float = 0.05

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Wilcoxon test of ``a`` against ``b`` on the paper's means and on ours."""
        from treebench.stats import across

        hib = _higher(self.metric)
        paper_says = "significant" if self.significant else "not significant"
        out = ClaimOutcome(self.text, paper_says, "–", "not run", None)
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
            if column == "ours":
                out.agrees = a_better if self.significant else not different
        return out


@dataclass(frozen=True)
class OneWayClaim:
    """Per dataset, which algorithms are significantly best and worst.

    The reference marks them ``bold`` (best) and ``underline`` (worst); the
    rerun decides by Levene, then ANOVA or Kruskal-Wallis and post-hoc tests
    (:func:`treebench.stats.oneway.oneway_protocol`) on the per-trial values.
    """

    text: str
    metric: str = "error"
    alpha: float = 0.05

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Count the datasets where our best/worst sets equal the paper's marks."""
        from treebench.report.cells import Matcher, ok_trials, trial_values
        from treebench.stats import oneway

        hib = _higher(self.metric)
        out = ClaimOutcome(self.text, "bold/underline in the table", "–", "not run", None)
        sub = cells[cells["metric"] == self.metric]
        ok = ok_trials(frame)
        match = Matcher.of(ok)
        agreements, total = 0, 0
        for label, group in sub.groupby("dataset_label", sort=False):
            paper_best = sorted(group.loc[group["mark"] == "bold", "algorithm"])
            paper_worst = sorted(group.loc[group["mark"] == "underline", "algorithm"])
            ds = match.dataset(group["dataset"].iloc[0], label)
            groups = {}
            for alg in group["algorithm"]:
                name = match.algorithm(alg)
                if ds is None or name is None:
                    continue
                rows = ok[(ok["dataset"].astype(str) == ds) & (ok["algorithm"].astype(str) == name)]
                vals = trial_values(rows, self.metric, "fraction").dropna().to_numpy()
                if vals.size >= 2:
                    groups[alg] = vals
            if len(groups) < 2:
                out.details.append(f"{label}: paper best {paper_best or '–'}, worst {paper_worst or '–'}; ours: not run")
                continue
            res = oneway.oneway_protocol(groups, hib, self.alpha)
            total += 1
            same = sorted(res.best) == paper_best and sorted(res.worst) == paper_worst
            agreements += same
            out.details.append(
                f"{label}: paper best {', '.join(paper_best) or '–'} / worst {', '.join(paper_worst) or '–'}; "
                f"ours ({'Kruskal-Wallis' if res.test == 'kruskal' else 'ANOVA'}, p = {res.p_value:.4f}) "
                f"best {', '.join(res.best) or '–'} / worst {', '.join(res.worst) or '–'}"
                f"{'' if same else '  ← differs'}"
            )
        if total:
            out.ours = f"same marks on {agreements} of {total} datasets"
            out.agrees = agreements == total
        return out


@dataclass(frozen=True)
class UnderlineClaim:
    """Cells significantly better (paired ``test`` per dataset) than every one of ``opponents``.

    The reference marks them ``underline``; the rerun's are those of
    :func:`treebench.report.table.build_table` with ``underline_against``.
    """

    text: str
    opponents: tuple[str, ...]
    metric: str = "accuracy"
    test: str = "ttest"
    alpha: float = 0.05

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Compare our underlined cells with the paper's, on the datasets we ran."""
        from treebench.report.cells import Matcher, ok_trials
        from treebench.report.table import build_table

        paper_cells = cells[(cells["metric"] == self.metric) & (cells["mark"].str.startswith("underline"))]
        paper_set = {(r.dataset_label, r.algorithm) for r in paper_cells.itertuples()}
        out = ClaimOutcome(self.text, f"{len(paper_set)} underlined cells (as read, see the reference README)",
                           "–", "not run", None)
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
        out.agrees = ours == paper_in
        for ds_label, alg in sorted(ours ^ paper_in):
            who = "ours only" if (ds_label, alg) in ours else "paper only"
            out.details.append(f"{ds_label} / {alg}: {who}")
        return out


@dataclass(frozen=True)
class FewerClaim:
    """"``a`` has a lower mean ``metric`` than ``b`` on each of ``datasets``" (no test).

    An empty ``datasets`` means every dataset of the rerun.
    """

    text: str
    a: str
    b: str
    metric: str
    datasets: tuple[str, ...]

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Compare the two algorithms' mean ``metric`` dataset by dataset on the rerun."""
        from treebench.report.cells import Matcher, ok_trials, trial_values

        out = ClaimOutcome(self.text, "yes", "–", "not run", None)
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
            out.agrees = all(results)
        return out


@dataclass(frozen=True)
class MostClaim:
    """"``a`` has the largest mean ``metric`` on every dataset" (read off a figure, no test)."""

    text: str
    a: str
    metric: str

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """Count the datasets where ``a``'s mean is the largest on the rerun."""
        from treebench.report.cells import Matcher, ok_trials

        out = ClaimOutcome(self.text, "yes (figure)", "–", "not run", None)
        ok = ok_trials(frame)
        if ok.empty or self.metric not in ok.columns:
            return out
        a = Matcher.of(ok).algorithm(self.a)
        if a is None:
            return out
        wide = ok.pivot_table(index="dataset", columns="algorithm", values=self.metric, aggfunc="mean")
        top = wide.max(axis=1)
        hits = int((wide[a] >= top - 1e-12).sum())
        out.ours = f"largest on {hits} of {len(wide)} datasets"
        out.agrees = hits == len(wide)
        return out


@dataclass(frozen=True)
class MeanDiffClaim:
    """Descriptive: the mean over datasets of ``a - b`` for each of ``others``, paper vs ours.

    Also against the best of ``others`` per dataset.  ``paper`` is what the
    paper states (e.g. the size of the gain); nothing is judged.
    """

    text: str
    a: str
    others: tuple[str, ...]
    metric: str
    paper: str = "–"

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """The mean differences on the paper's numbers and on ours."""
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
        return out
