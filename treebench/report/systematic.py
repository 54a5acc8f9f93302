"""The systematic deviation of a rerun from a paper: per algorithm, ours − paper over datasets.

A rerun whose baselines land on the published cells while the paper's own
method sits below them on most datasets says something no single cell says:
the difference is in the method (its implementation, reading or tuning), not
in the data or the protocol.  This module computes that line for the top of
every report (issue 38, item 6):

- per algorithm, the mean over datasets of ours − paper on the paper's main
  metric, a 95 % percentile-bootstrap interval over datasets, how many
  datasets lie below and above, and Wilcoxon's signed-rank p;
- per algorithm that is not a baseline (the paper's own methods), its
  *shortfall net of the baselines' shift*: per dataset, its deviation minus
  the mean deviation of the baselines on that dataset, with the same
  interval and test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: Bootstrap resamples and seed of the intervals (fixed: a report is reproducible).
RESAMPLES = 10_000
SEED = 0
#: The metrics a report's deviation line is computed on, first present wins (the papers' main measures).
MAIN_METRICS = ("accuracy", "error", "test_errors")


@dataclass(frozen=True)
class Deviation:
    """ours − paper of one algorithm over the datasets where both have a value.

    Attributes
    ----------
    algorithm
        The reference's algorithm name.
    metric, unit
        What is compared, in the paper's unit.
    n
        Datasets compared.
    mean, low, high
        Mean difference and its 95 % bootstrap interval over datasets.
    below, above
        Datasets where ours is below / above the paper.
    p
        Wilcoxon's signed-rank p (two-sided; NaN with fewer than 2 non-zero differences).
    baseline
        Whether the algorithm is one of the paper's baselines.
    net
        For a paper's own method: True when this is its deviation net of the baselines' mean shift.
    """

    algorithm: str
    metric: str
    unit: str
    n: int
    mean: float
    low: float
    high: float
    below: int
    above: int
    p: float
    baseline: bool
    net: bool = False

    def text(self) -> str:
        """One line: ``name: +0.4 [−0.3, +1.1] points over 16 datasets (below on 5, above on 11; Wilcoxon p = 0.2)``."""
        unit = {"percent": " points", "fraction": "", "count": ""}.get(self.unit, "")
        what = f"{self.algorithm} net of the baselines" if self.net else self.algorithm
        p = "–" if math.isnan(self.p) else f"{self.p:.3g}"
        return (f"{what}: {self.mean:+.3g} [{self.low:+.3g}, {self.high:+.3g}]{unit} over {self.n} dataset"
                f"{'s' if self.n != 1 else ''} (below on {self.below}, above on {self.above}; Wilcoxon p = {p})")

    def as_dict(self) -> dict[str, Any]:
        """For ``verdicts.json``."""
        def num(x: float) -> float | None:
            return None if math.isnan(x) else float(x)
        return {"algorithm": self.algorithm, "metric": self.metric, "unit": self.unit, "datasets": self.n,
                "mean": num(self.mean), "interval": [num(self.low), num(self.high)], "below": self.below,
                "above": self.above, "wilcoxon_p": num(self.p), "baseline": self.baseline, "net_of_baselines": self.net}


def main_metric(cells: pd.DataFrame) -> str | None:
    """The first of :data:`MAIN_METRICS` with compared cells, else None."""
    if not len(cells) or "status" not in cells.columns:
        return None
    ok = cells[cells["status"] == "ok"]
    return next((m for m in MAIN_METRICS if (ok["metric"] == m).any()), None)


def _interval(values: np.ndarray) -> tuple[float, float]:
    if values.size < 2 or np.all(values == values[0]):
        return float(values.mean()), float(values.mean())
    rng = np.random.default_rng(SEED)
    means = values[rng.integers(0, values.size, (RESAMPLES, values.size))].mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def _wilcoxon(values: np.ndarray) -> float:
    from scipy.stats import wilcoxon

    if np.count_nonzero(values) < 2:
        return math.nan
    return float(wilcoxon(values).pvalue)


def _deviation(name: str, metric: str, unit: str, d: pd.Series, baseline: bool, net: bool = False) -> Deviation:
    v = d.dropna().to_numpy(dtype=float)
    low, high = _interval(v) if v.size else (math.nan, math.nan)
    return Deviation(name, metric, unit, int(v.size), float(v.mean()) if v.size else math.nan, low, high,
                     int(np.sum(v < 0)), int(np.sum(v > 0)), _wilcoxon(v) if v.size else math.nan, baseline, net)


def systematic(cells: pd.DataFrame, baselines: tuple[str, ...],
               excluded: dict[str, str] | None = None) -> list[Deviation]:
    """Every algorithm's deviation on the main metric, then each own method's deviation net of the baselines.

    ``cells`` are a report's compared cells (``value`` = paper, ``ours``, ``status``); each dataset
    counts once per algorithm (its cells averaged); ``excluded`` datasets (the spec's) are left out,
    as in every claim.
    """
    from treebench.report.cells import drop_excluded

    cells, _ = drop_excluded(cells, pd.DataFrame(), excluded or {})
    metric = main_metric(cells)
    if metric is None:
        return []
    ok = cells[(cells["status"] == "ok") & (cells["metric"] == metric)]
    unit = str(ok["unit"].iloc[0]) if "unit" in ok.columns and len(ok) else ""
    diff = (ok.assign(d=ok["ours"] - ok["value"])
            .pivot_table(index="dataset_label", columns="algorithm", values="d", aggfunc="mean"))
    out = [_deviation(str(a), metric, unit, diff[a], a in baselines) for a in diff.columns]
    present = [b for b in baselines if b in diff.columns]
    if present:
        shift = diff[present].mean(axis=1)
        for a in diff.columns:
            if a not in baselines:
                out.append(_deviation(str(a), metric, unit, diff[a] - shift, False, net=True))
    return out


def systematic_markdown(deviations: list[Deviation]) -> list[str]:
    """The report's lines: the deviation of each algorithm, then the own methods' net shortfalls."""
    if not deviations:
        return ["No published cell of an accuracy or error metric was compared: no systematic deviation to show."]
    first = deviations[0]
    unit = {"percent": "percentage points", "fraction": "fraction", "count": "count"}.get(first.unit, first.unit)
    lines = [f"Ours − paper on {first.metric} ({unit}) over the datasets each algorithm was compared on, with a "
             f"95 % bootstrap interval over datasets ({RESAMPLES:,} resamples, seed {SEED}) and Wilcoxon's "
             "signed-rank test; then each of the paper's own methods net of the baselines' mean shift on the same "
             "datasets (a shortfall the baselines do not share points at the method: its implementation, reading "
             "or tuning).", ""]
    lines += [f"- {'baseline' if d.baseline else 'paper' + chr(39) + 's method'}: {d.text()}"
              for d in deviations if not d.net]
    lines += [f"- **{d.text()}**" for d in deviations if d.net]
    return lines
