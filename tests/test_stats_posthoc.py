"""Friedman post-hoc with Shaffer's static procedure, cross-checked with scikit-posthocs and statsmodels."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from treebench.errors import TreebenchError
from treebench.stats import multiple, posthoc

# 14 datasets x 4 algorithms (accuracies; one all-tied row)
DEMSAR = pd.DataFrame(
    [
        [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
        [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
        [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
        [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
        [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970],
    ],
    columns=["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"],
)


def test_shaffer_counts_match_shaffers_table():
    assert sorted(posthoc.shaffer_counts(3)) == [0, 1, 3]
    assert sorted(posthoc.shaffer_counts(4)) == [0, 1, 2, 3, 6]
    assert sorted(posthoc.shaffer_counts(5)) == [0, 1, 2, 3, 4, 6, 10]


def test_shaffer_by_hand_and_never_above_holm():
    # k = 3, m = 3: t = (3, 1, 1) where Holm uses (3, 2, 1)
    p = [0.02, 0.01, 0.04]
    np.testing.assert_allclose(posthoc.shaffer(p, 3), [0.03, 0.03, 0.04])
    np.testing.assert_allclose(multiple.holm(p), [0.04, 0.03, 0.04])
    rng = np.random.default_rng(0)
    for k in (3, 4, 5, 6):
        q = rng.uniform(0, 0.2, math.comb(k, 2))
        s, h = posthoc.shaffer(q, k), multiple.holm(q)
        assert np.all(s <= h + 1e-15) and np.all(s >= q)
    with pytest.raises(TreebenchError, match="needs the 6 p-values of all pairs of 4 algorithms"):
        posthoc.shaffer([0.1, 0.2], 4)


def test_raw_and_holm_equal_scikit_posthocs():
    sp = pytest.importorskip("scikit_posthocs")
    theirs_raw = sp.posthoc_siegel_friedman(DEMSAR.to_numpy())
    theirs_holm = sp.posthoc_siegel_friedman(DEMSAR.to_numpy(), p_adjust="holm")
    ours = posthoc.friedman_posthoc(DEMSAR, correction="holm")
    for row in ours.itertuples():
        i, j = DEMSAR.columns.get_loc(row.a), DEMSAR.columns.get_loc(row.b)
        assert row.p == pytest.approx(theirs_raw.iloc[i, j], abs=1e-9)
        assert row.p_adjusted == pytest.approx(theirs_holm.iloc[i, j], abs=1e-9)
    # z from ranks computed independently (rank 1 = best, ties averaged)
    r = stats.rankdata(-DEMSAR.to_numpy(), axis=1).mean(axis=0)
    ranks = dict(zip(DEMSAR.columns, r))
    z = ours.set_index(["a", "b"])["z"]
    se = math.sqrt(4 * 5 / (6 * 14))
    for a, b in itertools.combinations(ranks, 2):
        assert z[(a, b)] == pytest.approx(abs(ranks[a] - ranks[b]) / se, abs=1e-12)
    # where Shaffer and Holm coincide (the smallest p-value: t_1 = m = 6 for k = 4), so do the results
    sh = posthoc.friedman_posthoc(DEMSAR, correction="shaffer")
    first = int(np.argmin(sh["p"]))
    assert sh["p_adjusted"][first] == pytest.approx(ours["p_adjusted"][first], abs=1e-12)
    assert np.all(sh["p_adjusted"] <= ours["p_adjusted"] + 1e-15)


def test_holm_and_bonferroni_equal_statsmodels():
    sm = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(3)
    for m in (2, 5, 17):
        p = rng.uniform(0, 0.1, m)
        np.testing.assert_allclose(multiple.holm(p), sm.multipletests(p, method="holm")[1], atol=1e-9, rtol=0)
        np.testing.assert_allclose(multiple.bonferroni(p), sm.multipletests(p, method="bonferroni")[1],
                                   atol=1e-9, rtol=0)


def test_unknown_posthoc_correction_is_one_line():
    with pytest.raises(TreebenchError, match="unknown post-hoc correction 'hommel'"):
        posthoc.friedman_posthoc(DEMSAR, correction="hommel")


def test_compare_friedman_shows_the_shaffer_posthoc():
    import csv
    import io

    from treebench.report.formats import render
    from treebench.report.table import build_table

    rows = []
    for d, row in DEMSAR.iterrows():
        for alg, v in row.items():
            for fold in range(2):
                rows.append({"dataset": f"ds{d}", "algorithm": alg, "repeat": 0, "fold": fold, "status": "ok",
                             "accuracy": v})
    frame = pd.DataFrame(rows)
    assert build_table(frame, test="friedman").analysis.posthoc is None  # library default: no correction
    t = build_table(frame, test="friedman", correction="auto")
    assert t.analysis.posthoc_correction == "shaffer"
    expected = posthoc.friedman_posthoc(DEMSAR.set_axis([f"ds{i}" for i in range(14)]), correction="shaffer")
    np.testing.assert_allclose(t.analysis.posthoc["p_adjusted"], expected["p_adjusted"], atol=1e-12)
    assert "p (Shaffer)" in render(t, "md")
    got = [r for r in csv.DictReader(io.StringIO(render(t, "csv"))) if r["kind"] == "friedman-posthoc"]
    assert len(got) == 6 and all(r["correction"] == "shaffer" for r in got)
    assert build_table(frame, test="friedman", correction="holm").analysis.posthoc_correction == "holm"
