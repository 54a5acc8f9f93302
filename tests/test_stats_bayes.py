"""Bayesian signed-rank test with a ROPE (Benavoli et al., JMLR 2017), cross-checked with baycomp."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest

from treebench.errors import TreebenchError
from treebench.report.formats import render
from treebench.report.table import build_table
from treebench.stats import bayes

RNG = np.random.default_rng(1)
X = RNG.normal(80, 5, 12)  # per-dataset accuracies (%) of B
Y = X + RNG.normal(0.8, 1.5, 12)  # A: about 0.8 points better


Z = X + np.random.default_rng(2).normal(0.0, 2.0, 12)  # A: no better than B on average

# Recorded from baycomp 1.0.3 (``SignedRankTest.sample(x, y, rope, nsamples=4000, random_state=3)``
# and ``SignedRankTest(...).probs()``), so the check holds where baycomp is not installed; the
# dev extra installs it and test_draws_equal_an_installed_baycomp compares with it directly.
# (x, y, rope) -> (probs (x better, rope, y better), column means of the draws, first draws)
BAYCOMP = [
    (X, Y, 0.0, (0.001, 0.0, 0.999), [0.08527780615687731, 0.0, 0.9147221938431243],
     [[0.02845489319828809, 0.0, 0.9715451068017119], [0.05245160545218863, 0.0, 0.9475483945478114]]),
    (X, Y, 1.0, (0.0, 0.82, 0.18), [0.0, 0.6457619810114145, 0.35423801898858454],
     [[0.0, 0.5175008866713938, 0.4824991133286062], [0.0, 0.7451930296305018, 0.2548069703694982]]),
    (X, Y, 0.5, (0.0, 0.37375, 0.62625), [0.0, 0.4491030639432542, 0.5508969360567452],
     [[0.0, 0.3325070869377076, 0.6674929130622924], [0.0, 0.5248661015621695, 0.4751338984378305]]),
    (X, Z, 0.0, (0.437, 0.0, 0.563), [0.4759597704075019, 0.0, 0.5240402295924969],
     [[0.7105417784085667, 0.0, 0.2894582215914333], [0.5318685735616354, 0.0, 0.4681314264383646]]),
    (X, Z, 0.5, (0.361, 0.11275, 0.52625), [0.3381631233018275, 0.25731464203832133, 0.40452223465985077],
     [[0.6522686384129159, 0.15680126074535716, 0.19093010084172687],
      [0.40480391437345353, 0.19862273829243515, 0.3965733473341113]]),
]


@pytest.mark.parametrize(("x", "y", "rope", "probs", "means", "first"), BAYCOMP)
def test_draws_equal_baycomp_for_the_same_seed_and_sample_count(x, y, rope, probs, means, first):
    ours = bayes.signed_rank_samples(y - x, rope, nsamples=4000, seed=3)
    np.testing.assert_allclose(ours[:2], first, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.mean(axis=0), means, rtol=0, atol=1e-9)
    res = bayes.signed_rank(y, x, "A", "B", rope=rope, nsamples=4000, seed=3)
    # baycomp: (left = x better, rope, right = y better); P(rope) = 0 without a ROPE
    assert (res.p_b_better, res.p_rope, res.p_a_better) == pytest.approx(probs, abs=1e-12)


def test_draws_equal_an_installed_baycomp():
    baycomp = pytest.importorskip("baycomp")  # in the dev extra (make test installs it)
    theirs = baycomp.SignedRankTest.sample(X, Z, 0.5, nsamples=1000, random_state=7)
    np.testing.assert_allclose(bayes.signed_rank_samples(Z - X, 0.5, nsamples=1000, seed=7), theirs, atol=1e-9)


def test_posterior_properties():
    res = bayes.signed_rank(Y, X, rope=1.0, nsamples=2000, seed=0)
    assert res.samples.shape == (2000, 3)
    np.testing.assert_allclose(res.samples.sum(axis=1), 1.0)
    assert res.p_a_better + res.p_rope + res.p_b_better == pytest.approx(1.0)
    # swapping the algorithms mirrors the probabilities
    rev = bayes.signed_rank(X, Y, rope=1.0, nsamples=2000, seed=0)
    assert (rev.p_a_better, rev.p_rope, rev.p_b_better) == pytest.approx((res.p_b_better, res.p_rope, res.p_a_better))
    # lower-is-better metrics flip the direction
    err = bayes.signed_rank(100 - Y, 100 - X, rope=1.0, higher_is_better=False, nsamples=2000, seed=0)
    assert err.p_a_better == pytest.approx(res.p_a_better)
    # a clear, large difference: A is better with near certainty; a huge ROPE: equivalent
    big = bayes.signed_rank(X + 5, X, rope=1.0, nsamples=2000, seed=0)
    assert big.p_a_better > 0.99
    wide = bayes.signed_rank(Y, X, rope=20.0, nsamples=2000, seed=0)
    assert wide.p_rope == 1.0


def test_bad_arguments_are_one_line_errors():
    with pytest.raises(TreebenchError, match="--rope must be a finite value >= 0"):
        bayes.signed_rank(Y, X, rope=-1)
    with pytest.raises(TreebenchError, match="at least one dataset"):
        bayes.signed_rank(np.array([]), np.array([]))


def _frame() -> pd.DataFrame:
    rows = []
    for i, (x, y) in enumerate(zip(X, Y)):
        for fold in range(3):
            rows.append({"dataset": f"ds{i}", "algorithm": "B", "repeat": 0, "fold": fold, "status": "ok",
                         "accuracy": x / 100 + 0.001 * (fold - 1)})
            rows.append({"dataset": f"ds{i}", "algorithm": "A", "repeat": 0, "fold": fold, "status": "ok",
                         "accuracy": y / 100 + 0.001 * (fold - 1)})
    return pd.DataFrame(rows)


def test_compare_bayes_uses_display_units_and_renders(tmp_path):
    t = build_table(_frame(), test="bayes", rope=1.0, bayes_samples=3000, seed=5)
    (r,) = t.analysis.bayes
    assert (r.a, r.b) == ("B", "A")  # first appearance
    expected = bayes.signed_rank(X, Y, rope=1.0, nsamples=3000, seed=5)  # percent, as displayed
    assert (r.p_a_better, r.p_rope, r.p_b_better) == pytest.approx(
        (expected.p_a_better, expected.p_rope, expected.p_b_better), abs=1e-12)
    md = render(t, "md")
    assert "Bayesian signed-rank tests over 12 datasets" in md and f"{r.p_rope:.3f}" in md
    rows = [x for x in csv.DictReader(io.StringIO(render(t, "csv"))) if x["kind"] == "bayes"]
    assert float(rows[0]["p_equivalent"]) == pytest.approx(r.p_rope) and rows[0]["rope"] == "1.0"
    paths = bayes.plot_simplex(t.analysis.bayes, tmp_path / "simplex")
    assert [p.name for p in paths] == ["simplex.png", "simplex.svg"] and all(p.stat().st_size > 0 for p in paths)


def test_bayes_on_a_single_dataset_says_why_not():
    frame = _frame()
    t = build_table(frame[frame["dataset"] == "ds0"], test="bayes")
    assert not t.analysis.bayes and "over datasets" in t.analysis.error


def test_the_bayes_plot_of_many_algorithms_is_a_square_matrix_of_panels(tmp_path):
    """Five algorithms: ten pairs drawn as a 4 x 4 upper triangle, not one row 6000 px wide."""
    import xml.etree.ElementTree as ET

    from matplotlib.image import imread

    rng = np.random.default_rng(3)
    scores = {name: rng.normal(80 + shift, 3, size=12) for name, shift in zip("ABCDE", (0, 1, 1, 3, -2))}
    names = list(scores)
    results = [bayes.signed_rank(scores[a], scores[b], rope=1.0, nsamples=2000, seed=1, a=a, b=b)
               for i, a in enumerate(names) for b in names[i + 1:]]
    png, svg = bayes.plot_simplex(results, tmp_path / "pairs")
    height, width = imread(png).shape[:2]
    assert width <= 2000 and 0.7 <= height / width <= 1.4, (width, height)
    ET.parse(svg)  # well-formed
