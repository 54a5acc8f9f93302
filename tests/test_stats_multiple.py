"""Multiple-comparison corrections and how ``compare`` applies them (issue 21, item 4)."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from treebench.errors import TreebenchError
from treebench.report.formats import render
from treebench.report.table import build_table
from treebench.stats import multiple

# Differences chosen so that both candidates beat the baseline at 5 % on their own
# (paired t-test p = 0.0309 and 0.0404) but not after Holm (2 x 0.0309 > 0.05).
BASE = np.array([0.80, 0.82, 0.78, 0.81, 0.79, 0.83, 0.80, 0.77, 0.82, 0.81])
D1 = np.array([0.004, 0.009, -0.01, 0.021, 0.032, 0.031, -0.003, 0.012, 0.008, 0.006])
D2 = np.array([0.016, -0.002, -0.008, 0.001, -0.002, 0.024, 0.011, 0.025, 0.019, 0.005])


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running max 0.06
    np.testing.assert_allclose(multiple.holm(p), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(multiple.bonferroni(p), [0.04, 0.16, 0.12, 0.02])
    np.testing.assert_allclose(multiple.adjust(p, "none"), p)
    np.testing.assert_allclose(multiple.adjust(p, "auto"), multiple.holm(p))
    # NaN (a test not run) stays NaN and does not count in m; results are capped at 1
    out = multiple.bonferroni([0.3, math.nan, 0.6])
    assert math.isnan(out[1]) and out[0] == pytest.approx(0.6) and out[2] == 1.0


def test_resolve_auto_is_holm_only_for_two_or_more_tests():
    assert multiple.resolve("auto", 1) == "none"
    assert multiple.resolve("auto", 2) == "holm"
    assert multiple.resolve("bonferroni", 1) == "none"
    assert multiple.resolve("bonferroni", 3) == "bonferroni"
    with pytest.raises(TreebenchError, match="unknown correction 'sidak'"):
        multiple.resolve("sidak", 3)


def _frame() -> pd.DataFrame:
    """Two datasets x three algorithms, 10 folds each; base is listed first."""
    rows = []
    for ds, shift in (("d1", 0.0), ("d2", -0.05), ("d3", 0.03)):
        for alg, d in (("base", 0 * D1), ("cand1", D1), ("cand2", D2)):
            for fold, v in enumerate(BASE + shift + d):
                rows.append({"dataset": ds, "algorithm": alg, "repeat": 0, "fold": fold, "status": "ok",
                             "accuracy": float(v)})
    return pd.DataFrame(rows)


def test_marks_use_the_adjusted_p_values_per_dataset():
    frame = _frame()
    p1 = stats.ttest_rel(BASE + D1, BASE).pvalue
    p2 = stats.ttest_rel(BASE + D2, BASE).pvalue
    assert p1 < 0.05 and p2 < 0.05 and 2 * min(p1, p2) > 0.05  # the case the correction changes
    raw = build_table(frame, test="ttest", baseline="base", correction="none")
    holm = build_table(frame, test="ttest", baseline="base", correction="auto")
    bonf = build_table(frame, test="ttest", baseline="base", correction="bonferroni")
    assert raw.mark_correction == "none" and holm.mark_correction == "holm"
    for ds in ("d1", "d2", "d3"):
        assert raw.cells[(ds, "cand1")].mark == "v" and raw.cells[(ds, "cand2")].mark == "v"
        c1, c2 = holm.cells[(ds, "cand1")], holm.cells[(ds, "cand2")]
        assert c1.p_value == pytest.approx(p1) and c2.p_value == pytest.approx(p2)
        np.testing.assert_allclose([c1.p_adjusted, c2.p_adjusted], multiple.holm([p1, p2]))
        assert c1.mark == "" and c2.mark == ""
        assert bonf.cells[(ds, "cand1")].p_adjusted == pytest.approx(2 * p1)
    assert raw.wtl["cand1"] == (3, 0, 0) and holm.wtl["cand1"] == (0, 3, 0)
    text = render(holm, "md")
    assert "Holm-adjusted per dataset" in text and "raw / Holm-adjusted" in text
    assert f"{p1:.4f} / {2 * p1:.4f}" in text


def test_a_single_comparison_is_not_adjusted():
    frame = _frame()
    t = build_table(frame[frame["algorithm"] != "cand2"], test="ttest", correction="auto")
    assert t.mark_correction == "none"
    c = t.cells[("d1", "cand1")]
    assert c.p_adjusted == pytest.approx(c.p_value) and c.mark == "v"
    assert "adjusted" not in render(t, "md")


def test_pairwise_wilcoxon_is_holm_adjusted_and_csv_carries_it():
    frame = _frame()
    t = build_table(frame, test="wilcoxon", baseline="base", correction="auto")
    a = t.analysis
    assert a.correction == "holm" and len(a.wilcoxon) == 3
    raw = [r.p_value for r in a.wilcoxon]
    np.testing.assert_allclose(a.wilcoxon_p_adjusted, multiple.holm(raw))
    md = render(t, "md")
    assert "| p (Holm) |" in md and "adjusted over the 3 pairwise tests" in md
    rows = list(csv.DictReader(io.StringIO(render(t, "csv"))))
    kinds = [r["kind"] for r in rows]
    assert kinds.count("cell") == 9 and kinds.count("wilcoxon") == 3
    w = [r for r in rows if r["kind"] == "wilcoxon"]
    for r, res, adj in zip(w, a.wilcoxon, a.wilcoxon_p_adjusted):
        assert (r["algorithm"], r["opponent"]) == (res.a, res.b)
        assert float(r["p_value"]) == pytest.approx(res.p_value)
        assert float(r["p_adjusted"]) == pytest.approx(adj)
        assert r["correction"] == "holm" and r["significant"] == str(int(adj <= 0.05))
    cell = next(r for r in rows if r["kind"] == "cell" and r["dataset"] == "d1" and r["algorithm"] == "cand1")
    assert float(cell["p_adjusted"]) == pytest.approx(t.cells[("d1", "cand1")].p_adjusted)
    assert cell["correction"] == "holm" and cell["significant"] == "0"


def test_csv_carries_friedman_and_kruskal_results():
    frame = _frame()
    t = build_table(frame, test="friedman")
    rows = list(csv.DictReader(io.StringIO(render(t, "csv"))))
    f = t.analysis.friedman
    fr = next(r for r in rows if r["kind"] == "friedman")
    assert float(fr["statistic"]) == pytest.approx(f.statistic) and float(fr["p_value"]) == pytest.approx(f.p_value)
    ranks = {r["algorithm"]: float(r["statistic"]) for r in rows if r["kind"] == "rank"}
    assert ranks == pytest.approx(f.ranks.to_dict())
    assert sum(r["kind"] == "nemenyi" for r in rows) == 3
    k = build_table(frame, test="kruskal")
    rows = list(csv.DictReader(io.StringIO(render(k, "csv"))))
    assert {r["dataset"] for r in rows if r["kind"] == "oneway"} == {"d1", "d2", "d3"}


def test_unknown_correction_is_a_one_line_error():
    with pytest.raises(TreebenchError, match=r"unknown correction 'sidak'; accepted: .*holm"):
        build_table(_frame(), correction="sidak")
