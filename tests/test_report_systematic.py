"""The systematic-deviation line: per algorithm, ours − paper over datasets, and the net shortfall."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import wilcoxon

from treebench.report.systematic import systematic, systematic_markdown


def _cells(deltas: dict[str, list[float]], metric: str = "accuracy") -> pd.DataFrame:
    rows = []
    for alg, ds in deltas.items():
        for i, d in enumerate(ds):
            rows.append({"dataset_label": f"D{i}", "dataset": f"d{i}", "algorithm": alg, "metric": metric,
                         "unit": "percent", "value": 80.0, "ours": 80.0 + d, "status": "ok"})
    rows.append({"dataset_label": "D0", "dataset": "d0", "algorithm": "method", "metric": metric, "unit": "percent",
                 "value": 80.0, "ours": math.nan, "status": "not run"})
    return pd.DataFrame(rows)


def test_deviations_and_the_net_shortfall_against_an_independent_computation():
    rng = np.random.default_rng(1)
    base = rng.normal(0.3, 0.5, 12)
    other = rng.normal(-0.1, 0.5, 12)
    method = base - 2.0 + rng.normal(0, 0.2, 12)
    cells = _cells({"base": list(base), "other": list(other), "method": list(method)})
    out = {(d.algorithm, d.net): d for d in systematic(cells, ("base", "other"))}
    dev = out[("method", False)]
    assert dev.n == 12 and dev.mean == pytest.approx(method.mean())
    assert dev.below == int(np.sum(method < 0)) and dev.p == pytest.approx(wilcoxon(method).pvalue)
    assert dev.low < dev.mean < dev.high and not dev.baseline
    net = out[("method", True)]
    expected = method - (base + other) / 2
    assert net.mean == pytest.approx(expected.mean()) and net.p == pytest.approx(wilcoxon(expected).pvalue)
    assert net.high < 0  # a shortfall the baselines do not share
    assert out[("base", False)].baseline and ("base", True) not in out
    text = "\n".join(systematic_markdown(list(out.values())))
    assert "**method net of the baselines:" in text and "points over 12 datasets" in text


def test_excluded_datasets_and_other_metrics_are_left_out():
    cells = _cells({"base": [1.0, 2.0, 3.0], "method": [-1.0, -2.0, -9.0]})
    out = systematic(cells, ("base",), {"d2": "a different dataset"})
    method = next(d for d in out if d.algorithm == "method" and not d.net)
    assert method.n == 2 and method.mean == pytest.approx(-1.5)
    assert systematic(_cells({"base": [1.0]}, metric="leaves"), ("base",)) == []
    assert systematic_markdown([])[0].startswith("No published cell")
