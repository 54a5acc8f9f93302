"""Paper 001's claims inventory (issue 38): every results statement, its grade, and the new claim kinds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from treebench.papers import get_paper
from treebench.papers.mee import claims as mee_claims
from treebench.papers.mee import side_runs
from treebench.papers.mee.claims import (
    NO_VALUES,
    CurveShapeClaim,
    MergedSplitsClaim,
    NoOverfittingClaim,
    VersusIGRateClaim,
    VersusIGTypeClaim,
    no_rise_grade,
    rise_rows,
)
from treebench.papers.mee.sections import VersusIG
from treebench.report.cells import drop_excluded
from treebench.report.claims import ClaimOutcome, OneWayClaim
from treebench.report.reference import load_reference
from treebench.report.reproduce import grade_paper_on_paper

#: The claim texts the report used before the inventory (verdict files name a claim by its text).
KEPT = ("Significantly best (bold) and worst (underlined) per dataset, Table 2",
        "MEE trees are smaller (mean nodes) than C4.5's on every dataset (section 5)",
        "MEE trees generalise better: a lower R = |m_R − m_CV| / s̄ than CART's and C4.5's (section 5)")


#: Paper 001's inventory as its paper.yaml gives it.
STATEMENTS = get_paper("mee").claims


def _rerun(*datasets: str) -> pd.DataFrame:
    """A stand-in of the rerun's store: one MEE trial per dataset, with a test size and a tree size."""
    return pd.DataFrame([dict(dataset=d, algorithm="mee", status="ok", repeat=0, fold=0, n_test=1, error=0.0,
                              n_leaves=3.0, n_nodes=5.0) for d in datasets])


#: The paper's own table as trials (report.paper_frame): published values, no test sizes.
PUBLISHED = pd.DataFrame([dict(dataset="glass", algorithm="mee", repeat=0, fold=0, status="ok", error=0.27,
                               accuracy=0.73)])


# -- the inventory ---------------------------------------------------------------------------------
def test_every_statement_has_its_location_scope_and_test_as_applied():
    assert len(STATEMENTS) == 20
    for s in STATEMENTS:
        assert s.location and s.scope and s.test_as_applied and s.text
        assert s.claim is not None or len(s.why_not) > 30
    assert [s.claim.text for s in STATEMENTS if s.claim is not None][:3] == list(KEPT)
    graded = [s for s in STATEMENTS if s.claim is not None]
    assert len(graded) == 12 and len({s.text for s in STATEMENTS}) == 20
    # Glass's three underlined cells are named in the Table 2 statement's scope
    assert "Glass" in STATEMENTS[0].scope


def test_a_statement_that_cannot_be_graded_says_why_in_its_verdict():
    s = next(s for s in STATEMENTS if s.location.startswith("Section 4, Figs. 3-4"))
    out = s.evaluate(pd.DataFrame(), _rerun("glass"))
    assert out.verdict.startswith("not testable (the sample behind Figs. 3-4 is not published")
    assert out.location == s.location and out.scope == s.scope


# -- paper-on-paper --------------------------------------------------------------------------------
def _paper_on_paper() -> dict[str, ClaimOutcome]:
    spec = get_paper("mee")
    cells, _ = drop_excluded(load_reference(spec.reference), pd.DataFrame(columns=["dataset", "algorithm"]),
                             spec.excluded)
    outcomes = [ClaimOutcome(c.text, "", "", "", None) for c in spec.claims]
    grade_paper_on_paper(spec, cells, outcomes)
    return {o.text: o for o in outcomes}


def test_the_paper_on_paper_grade_of_every_statement():
    grades = {t: o.paper_on_paper for t, o in _paper_on_paper().items()}
    # the two claims with published numbers: Table 2 (its pooled effect reproduces; its per-dataset
    # one-way tests need the folds the table does not print) and section 4's stated 1 %
    marks = grades[KEPT[0]]
    assert marks.verdict.startswith("not testable (the paper's table cannot carry this rule")
    assert marks.outcome == "reproduced"
    rate = grades["MEE picks another root feature than information gain in only about 1 % of the runs (section 4)"]
    assert rate.verdict == "reproduced" and rate.ours == pytest.approx(0.01)
    assert rate.low > 0 and rate.low < 0.01 < rate.high
    # every other statement prints no values to grade (figures, sentences, no tree sizes or training errors)
    assert all(e.verdict.startswith("not testable") for e in grades.values() if e is not rate and e is not marks)
    side = [s.text for s in STATEMENTS if type(s.claim).__module__ == mee_claims.__name__
            and not isinstance(s.claim, VersusIGRateClaim) and s.text != KEPT[2]]
    assert len(side) == 7
    assert all(NO_VALUES in grades[t].verdict for t in side)


# -- Table 2: Glass asserts nothing ----------------------------------------------------------------
def test_glass_all_underlined_is_a_unit_the_paper_asserts_nothing_on():
    ref = load_reference(get_paper("mee").reference)
    rng = np.random.default_rng(1)
    rows = [dict(dataset=d, algorithm=a, status="ok", repeat=0, fold=i, n_test=1, error=float(rng.random() < p))
            for d in ("glass", "breast-tissue4") for a, p in (("cart", 0.4), ("c45", 0.3), ("mee", 0.1))
            for i in range(120)]
    out = OneWayClaim(KEPT[0]).evaluate(ref[ref["dataset"].isin(["glass", "breast-tissue4"])], pd.DataFrame(rows))
    units = dict(out.effect.test.units)
    assert units["Glass"] == "not testable (the paper marks all 3 cells alike, so it asserts no best or worst)"
    assert not units["Breast4"].startswith("not testable")


# -- Fig. 5 ----------------------------------------------------------------------------------------
def _curves(rise: float, reps: int = 20, seed: int = 0) -> pd.DataFrame:
    """Test error by level: falling to level 2, then ``rise`` more at levels 3-4 (noisy per repetition)."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(reps):
        noise = rng.normal(0, 0.01)
        for level, base in enumerate((0.5, 0.3, 0.2, 0.2 + rise / 2, 0.2 + rise)):
            rows.append(dict(repetition=r, level=level, train_error=0.0,
                             test_error=base + noise + rng.normal(0, 0.005)))
    return pd.DataFrame(rows)


def test_rise_rows_choose_the_best_level_on_the_other_repetitions():
    rows, chosen = rise_rows(_curves(0.1))
    assert chosen == [2, 2] and rows.shape == (20, 2)
    assert (rows[:, 0] - rows[:, 1]).mean() == pytest.approx(0.1, abs=0.01)
    assert no_rise_grade(-0.05, 0.01, 0.02) == "reproduced"  # a fall is no overfitting
    assert no_rise_grade(0.03, 0.05, 0.02) == "not reproduced"
    assert no_rise_grade(0.0, 0.05, 0.02) == "inconclusive"


@pytest.mark.parametrize(("rise", "verdict"), ((0.0, "reproduced"), (0.1, "not reproduced")))
def test_fig5_no_overfitting_holds_on_flat_curves_and_fails_on_rising_ones(monkeypatch, rise, verdict):
    monkeypatch.setattr(side_runs, "dataset_levels", lambda name, *a, **k: _curves(rise, seed=len(name)))
    claim = NoOverfittingClaim("no overfitting", ("d1", "d2"))
    out = claim.evaluate(pd.DataFrame(), _rerun("d1", "d2", "other"))
    assert out.effect.kind == "equivalence" and out.effect.datasets == ["d1", "d2"]
    assert out.verdict == verdict
    assert {g for _, g in out.effect.test.units} == {verdict}
    assert "80 % power" in out.effect.margin_source and out.effect.fixed_margin == pytest.approx(0.01)
    assert claim.evaluate(pd.DataFrame(), PUBLISHED).verdict == f"not testable ({NO_VALUES})"


# -- section 4 -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("different", "verdict"), ((10, "reproduced"), (60, "reproduced, larger"),
                                                      (0, "not reproduced")))
def test_section4_rate_against_the_papers_one_percent(monkeypatch, different, verdict):
    batch = {label: VersusIG(1000, 200, different, 800) for label in
             ("default (joint)", "printed", "may rise", "printed + may rise")}
    monkeypatch.setattr(side_runs, "versus_ig_batches", lambda *a, **k: [batch] * 5)
    out = VersusIGRateClaim("1 %").evaluate(pd.DataFrame(), _rerun("glass"))
    assert out.effect.ours == pytest.approx(different / 1000) and out.verdict == verdict
    assert out.ours.startswith(f"{5 * different} of 5000 runs")


@pytest.mark.parametrize(("aspect", "runs", "verdict"), (
    ("unsplit", [side_runs.Difference(True, 0.1, 0.5)] * 3, "reproduced"),
    ("unsplit", [side_runs.Difference(True, 0.1, 0.5)] * 2 + [side_runs.Difference(False, 0.1, 0.5)],
     "not reproduced"),
    ("balanced", [side_runs.Difference(False, 0.1, 0.5)] * 3, "reproduced"),
    ("balanced", [side_runs.Difference(True, 0.6, 0.5)] * 3, "reversed"),
))
def test_section4_types_hold_on_every_differing_run(monkeypatch, aspect, runs, verdict):
    monkeypatch.setattr(side_runs, "versus_ig_differences", lambda *a, **k: runs)
    out = VersusIGTypeClaim("type", aspect).evaluate(pd.DataFrame(), _rerun("glass"))
    assert out.effect.kind == "count" and out.effect.counted == 3 and out.verdict == verdict
    with pytest.raises(ValueError, match="accepted: unsplit, balanced"):
        VersusIGTypeClaim("type", "wrong").evaluate(pd.DataFrame(), _rerun("glass"))


# -- Fig. 1 ----------------------------------------------------------------------------------------
class _Data:
    """A stand-in dataset of 40 cases on one feature: class 'a' below 'b' (``sep``) or alternating (``mixed``)."""

    def __init__(self, name: str) -> None:
        self.X = pd.DataFrame({name: np.arange(40, dtype=float)})
        self.y = np.arange(40) % 2 if name == "mixed" else np.repeat([0, 1], 20)
        self.classes = ["a", "b"]


def _loader(name: str) -> _Data:
    return _Data(name)


@pytest.mark.parametrize(("dataset", "feature", "convex", "verdict"), (
    ("sep", "sep", True, "reproduced"),      # a clean cut: convex, its minimum a split
    ("mixed", "mixed", True, "reversed"),    # alternating classes: concave
    ("mixed", "mixed", False, "reproduced"),
))
def test_fig1_curve_shape(dataset, feature, convex, verdict):
    claim = CurveShapeClaim("curve", dataset, feature, "a", convex, loader=_loader)
    out = claim.evaluate(pd.DataFrame(), _rerun(dataset))
    assert out.effect.kind == "count" and out.verdict == verdict
    assert claim.evaluate(pd.DataFrame(), _rerun("elsewhere")).verdict == "not testable (no MEE trees rerun)"


# -- merged class sets -----------------------------------------------------------------------------
class _Tree:
    def __init__(self, sets):
        self.split_sets_ = sets


@pytest.mark.parametrize(("sets", "verdict"), (([("a", "b"), None, ("c",)], "reproduced"),
                                               ([("a",), None, ("c",)], "reversed")))
def test_fig2_a_split_on_merged_classes(monkeypatch, sets, verdict):
    monkeypatch.setattr(side_runs, "full_tree", lambda name, **k: _Tree(sets))
    out = MergedSplitsClaim("fig 2", ("ecoli4",), every=True).evaluate(pd.DataFrame(), _rerun("ecoli4", "glass"))
    assert out.effect.kind == "count" and out.effect.counted == 1 and out.verdict == verdict


@pytest.mark.parametrize(("merged", "verdict"), ((True, "reproduced"), (False, "inconclusive")))
def test_merged_splits_often(monkeypatch, merged, verdict):
    monkeypatch.setattr(side_runs, "full_tree", lambda name, **k: _Tree([("a", "b") if merged else ("a",), ("c",)]))
    out = MergedSplitsClaim("often").evaluate(pd.DataFrame(), _rerun("d1", "d2", "d3"))
    assert out.effect.kind == "difference" and out.verdict == verdict
    assert out.effect.ours == pytest.approx(0.5 if merged else 0.0)
