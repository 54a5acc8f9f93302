"""Effects, intervals, verdicts and protocol calibration of the reproduction reports,
on hand-built frames whose effects are known exactly."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from treebench.papers.catalogue import PAPERS, get_paper
from treebench.report.causes import load_causes
from treebench.report.cells import (
    CALIBRATED,
    EXCLUDED,
    MISMATCH,
    NOT_IN_PAPER,
    compare_cells,
    what_differs,
)
from treebench.report.claims import (
    GRADES,
    INCONCLUSIVE,
    LARGER,
    NOT_REPRODUCED,
    REPRODUCED,
    REVERSED,
    SMALLER,
    ClaimOutcome,
    FewerClaim,
    MeanDiffClaim,
    MostClaim,
    OneWayClaim,
    UnderlineClaim,
    WilcoxonClaim,
)
from treebench.report.reference import COLUMNS, load_reference
from treebench.report.reproduce import build_report, report_latex, report_markdown
from treebench.report.spec import PaperDataset, PaperSpec
from treebench.report.verdicts import (
    grade_count,
    grade_difference,
    grade_equivalence,
    grade_significance,
    grade_trend,
    power_to_detect,
)
from treebench.stats.bootstrap import nested_bootstrap
from treebench.stats.multiple import holm

DATASETS = ("glass", "wine", "yeast", "vehicle", "haberman", "car")


def make_frame(shift, datasets=DATASETS, algorithms=("new", "old"), repeats=2, folds=4, seed=1, old=None):
    """Accuracy trials on ``repeats x folds`` paired splits per dataset.

    ``old`` gets a random base accuracy per split (``old(dataset, base)`` may move it);
    ``new`` is ``old + shift(dataset, repeat, fold)`` on the same split.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for i, ds in enumerate(datasets):
        for rep in range(repeats):
            for fold in range(folds):
                base = 0.6 + 0.03 * i + rng.normal(0, 0.02)
                base_old = old(ds, base) if old else base
                values = {"old": base_old, "new": base_old + shift(ds, rep, fold)}
                for alg in algorithms:
                    acc = values[alg]
                    rows.append(dict(dataset=ds, algorithm=alg, repeat=rep, fold=fold, status="ok", accuracy=acc,
                                     error=1 - acc, n_leaves={"old": 30, "new": 10}[alg] + fold, n_nodes=0,
                                     n_train=70, n_test=30))
    return pd.DataFrame(rows)


def make_reference(values, datasets=DATASETS, metric="accuracy", unit="percent", std=math.nan, marks=None):
    """A reference table: per dataset, ``values`` = {algorithm: published value}."""
    rows = []
    for ds in datasets:
        for alg, value in values.items():
            rows.append(dict(paper="999", source="Table 9", dataset_label=ds.capitalize(), dataset=ds,
                             algorithm_label=alg.upper(), algorithm=alg, metric=metric, value=value, std=std,
                             unit=unit, mark=(marks or {}).get((ds, alg), ""), note=""))
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame


def spec_with(*claims, **changes) -> PaperSpec:
    return PaperSpec(key="toy", number="999", citation="A toy paper", reference="toy.csv", claims=claims, **changes)


BEATS = WilcoxonClaim("new beats old", "new", "old", "accuracy", True)
SAME = WilcoxonClaim("new vs old: no difference", "new", "old", "accuracy", False)
DIFF = MeanDiffClaim("new beats old by about 3 points", "new", ("old",), "accuracy")


def evaluate(claim, frame, reference=None):
    reference = make_reference({"new": 83.0, "old": 80.0}) if reference is None else reference
    return claim.evaluate(compare_cells(reference, frame), frame)


# -- the grades: one rule per claim kind ----------------------------------------------------
@pytest.mark.parametrize("paper, low, high, expected", [
    (3.0, 2.5, 3.5, REPRODUCED),
    (3.0, 3.5, 6.0, LARGER),                     # wholly above the paper's effect
    (3.0, 0.5, 1.5, SMALLER),
    (3.0, -0.5, 4.0, INCONCLUSIVE),              # holds 0 and the paper's effect: the rerun cannot tell
    (3.0, -0.5, 2.0, NOT_REPRODUCED),            # holds 0, excludes the paper's effect: contradicts it
    (3.0, -4.0, -1.0, REVERSED),
    (math.nan, 0.5, 1.0, REPRODUCED),            # no size printed: only the direction is judged
    (math.nan, -0.5, 1.0, INCONCLUSIVE),         # ... and without a size there is nothing to contradict
    (-1.0, 0.5, 1.0, REPRODUCED),                # the paper's own numbers go the other way: direction only
    (-1.0, -0.5, 1.0, INCONCLUSIVE),
])
def test_difference_rule(paper, low, high, expected):
    assert grade_difference(paper, low, high) == expected


def test_power_to_detect_against_a_simulation():
    """The normal-approximation power equals the share of simulated estimates, centred on the paper's
    effect with the interval's standard error, whose interval excludes 0."""
    rng = np.random.default_rng(7)
    for paper, low, high in ((3.0, -0.5, 4.0), (1.0, -1.85, 2.48), (0.5, 0.1, 0.3)):
        se = (high - low) / (2 * 1.959963984540054)
        draws = rng.normal(paper, se, 400_000)
        simulated = np.mean(np.abs(draws) > 1.959963984540054 * se)
        assert power_to_detect(paper, low, high) == pytest.approx(simulated, abs=0.003)
    assert math.isnan(power_to_detect(math.nan, 0.0, 1.0)) and math.isnan(power_to_detect(1.0, 1.0, 1.0))


@pytest.mark.parametrize("low, high, margin, expected", [
    (-0.5, 0.5, 1.0, REPRODUCED),
    (0.2, 0.9, 1.0, REPRODUCED),                 # a difference inside the margin is still equivalence
    (-5.8, 0.8, 1.0, INCONCLUSIVE),              # paper 004's C4.5 claim: wide, never "reproduced"
    (-0.5, 1.5, 1.0, INCONCLUSIVE),
    (1.2, 3.0, 1.0, NOT_REPRODUCED),             # a difference larger than the margin
    (-3.0, -1.1, 1.0, NOT_REPRODUCED),
])
def test_equivalence_rule(low, high, margin, expected):
    assert grade_equivalence(low, high, margin) == expected
    assert grade_equivalence(low, high, math.nan) == "not testable (no equivalence margin)"


@pytest.mark.parametrize("p, alpha, ours, expected", [
    (0.004, 0.01, 1.0, REPRODUCED),
    (0.01, 0.01, 1.0, NOT_REPRODUCED),           # rejects only below the level
    (0.2, 0.05, 3.0, NOT_REPRODUCED),            # a large effect without the test is not "significantly"
    (0.001, 0.05, -1.0, REVERSED),
])
def test_significance_rule(p, alpha, ours, expected):
    assert grade_significance(p, alpha, ours) == expected
    assert grade_significance(math.nan, alpha, ours).startswith("not testable")


def test_trend_and_count_rules():
    assert grade_trend(0.1, 0.9) == REPRODUCED and grade_trend(-0.2, 0.9) == INCONCLUSIVE
    assert grade_trend(-0.2, 0.4, 0.8) == NOT_REPRODUCED and grade_trend(0.1, 0.4, 0.8) == SMALLER
    assert grade_trend(-0.9, -0.1) == REVERSED
    assert grade_count(4, 0, 4) == REPRODUCED and grade_count(3, 1, 4) == NOT_REPRODUCED
    assert grade_count(0, 4, 4) == REVERSED and grade_count(0, 0, 0).startswith("not testable")


def test_without_an_interval_nothing_is_graded():
    assert grade_difference(3.0, math.nan, math.nan) == "not testable (no interval)"
    assert grade_trend(math.nan, 1.0) == "not testable (no interval)"


# -- the statistics helpers ----------------------------------------------------------------
def test_holm_by_hand_and_with_nan():
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    out = holm([0.02, math.nan, 0.5])  # m = 2: NaN is not a test
    assert out[0] == pytest.approx(0.04) and math.isnan(out[1]) and out[2] == pytest.approx(0.5)
    assert holm([0.3, 0.2]) == pytest.approx([0.4, 0.4]) and holm([0.9, 0.8]).tolist() == [1.0, 1.0]
    assert holm([]).size == 0


def test_bootstrap_is_seeded_and_degenerate_when_every_split_agrees():
    units = [np.full((8, 1), 3.0) for _ in range(5)]
    ci = nested_bootstrap(units)
    assert ci.estimate == pytest.approx(3.0) and ci.low == pytest.approx(3.0) and ci.high == pytest.approx(3.0)
    rng = np.random.default_rng(0)
    noisy = [rng.normal(1.0, 1.0, size=(10, 1)) for _ in range(6)]
    assert nested_bootstrap(noisy) == nested_bootstrap(noisy)
    assert nested_bootstrap(noisy, seed=1) != nested_bootstrap(noisy, seed=2)


def test_bootstrap_width_matches_the_standard_error_of_the_two_levels():
    # 40 datasets with true means spread by sd 1, 10 splits each with noise sd 2: the mean over
    # datasets of the split means has se = sqrt(1 + 4 / 10) / sqrt(40) ~ 0.187 -> 95 % half-width ~ 0.367
    rng = np.random.default_rng(3)
    units = [rng.normal(rng.normal(0, 1), 2, size=(10, 1)) for _ in range(40)]
    means = np.array([u.mean() for u in units])
    ci = nested_bootstrap(units, resamples=4000)
    half = (ci.high - ci.low) / 2
    # the dataset level already carries the split noise of each mean (sd of means / sqrt(n));
    # redrawing the splits adds that variance once more, so the width lies between the two
    one_level = 1.96 * means.std(ddof=1) / math.sqrt(40)
    two_level = 1.96 * math.sqrt(means.var(ddof=1) + 4 / 10) / math.sqrt(40)
    assert one_level * 0.9 < half < two_level * 1.1
    assert ci.low < means.mean() < ci.high


def test_bootstrap_with_one_dataset_resamples_its_splits():
    rng = np.random.default_rng(4)
    rows = rng.normal(0.0, 1.0, size=(200, 1))
    ci = nested_bootstrap([rows], resamples=4000)
    se = rows.std(ddof=1) / math.sqrt(200)
    assert (ci.high - ci.low) / 2 == pytest.approx(1.96 * se, rel=0.15)


def test_bootstrap_summaries_see_the_paired_columns():
    # per split: a = b + 2, so a - b is 2 whatever splits are drawn
    rng = np.random.default_rng(5)
    units = []
    for _ in range(4):
        b = rng.normal(0.5, 0.1, size=12)
        units.append(np.column_stack([b + 2.0, b]))
    ci = nested_bootstrap(units, lambda m: m[:, 0] - m[:, 1])
    assert ci.low == pytest.approx(2.0) and ci.high == pytest.approx(2.0)


# -- effects and verdicts of the claim kinds on known frames ---------------------------------
def test_an_effect_of_exactly_three_points_everywhere_reproduces_a_paper_effect_of_three():
    out = evaluate(BEATS, make_frame(lambda *_: 0.03))
    e = out.effect
    assert e.paper == pytest.approx(3.0) and e.n_paper == 6
    assert e.ours == pytest.approx(3.0) and e.low == pytest.approx(3.0) and e.high == pytest.approx(3.0)
    assert out.verdict == e.verdict == REPRODUCED and e.n_datasets == 6
    assert e.test is not None and e.test.ours_p < 0.05 and e.test.family == "wilcoxon"


def test_a_reversed_effect_is_reversed():
    assert evaluate(BEATS, make_frame(lambda *_: -0.03)).verdict == REVERSED


def test_a_smaller_effect_of_the_same_sign():
    out = evaluate(DIFF, make_frame(lambda *_: 0.01))
    assert out.effect.high == pytest.approx(1.0) and out.verdict == SMALLER
    # a significance claim is judged by its test, not by the size of the effect
    assert evaluate(BEATS, make_frame(lambda *_: 0.01)).verdict == REPRODUCED


def test_an_interval_containing_zero_is_not_reproduced():
    # +2 / -2 points on alternate folds: zero on average in every dataset, not in every resample
    frame = make_frame(lambda ds, rep, fold: 0.02 if fold % 2 else -0.02)
    out = evaluate(BEATS, frame)
    assert out.effect.low < 0 < out.effect.high and out.effect.ours == pytest.approx(0.0, abs=1e-9)
    assert out.verdict == NOT_REPRODUCED
    # the same data reproduce a "no difference" claim; a clear difference does not
    assert evaluate(SAME, frame).verdict == REPRODUCED
    assert evaluate(SAME, make_frame(lambda *_: 0.03)).verdict == NOT_REPRODUCED


def test_a_no_difference_claim_shows_the_papers_own_test_on_our_data():
    """"No significant difference (Wilcoxon)": beside the margin's grade, the paper's test on ours -- it rejects on
    a clear, consistent difference (not reproduced) and not on noise around zero (reproduced)."""
    from treebench.report.verdicts import views

    rng = np.random.default_rng(0)
    noise = evaluate(SAME, make_frame(lambda ds, rep, fold: rng.normal(0, 0.01)))
    assert noise.effect.test.ours_p >= 0.05 and views(noise.effect)["the paper's test on ours"] == REPRODUCED
    clear = evaluate(SAME, make_frame(lambda *_: 0.03))
    assert clear.effect.test.ours_p < 0.05 and views(clear.effect)["the paper's test on ours"] == NOT_REPRODUCED
    assert "the paper's test on ours" not in views(evaluate(BEATS, make_frame(lambda *_: 0.03)).effect)


def test_a_missing_algorithm_is_not_testable():
    frame = make_frame(lambda *_: 0.03, algorithms=("old",))
    out = evaluate(BEATS, frame)
    assert out.verdict == "not testable (new not run)"
    assert out.effect.paper == pytest.approx(3.0)  # the paper's side is still computed
    nothing = BEATS.evaluate(compare_cells(make_reference({"new": 83.0, "old": 80.0}), pd.DataFrame()),
                             pd.DataFrame())
    assert nothing.verdict == "not testable (nothing run)"


def test_error_metrics_are_oriented_so_that_plus_is_the_claimed_direction():
    frame = make_frame(lambda *_: 0.03)  # new has 3 points less error
    ref = make_reference({"new": 0.17, "old": 0.20}, metric="error", unit="fraction")
    out = evaluate(WilcoxonClaim("new beats old", "new", "old", "error", True), frame, ref)
    assert out.effect.paper == pytest.approx(0.03) and out.effect.ours == pytest.approx(0.03)
    assert out.verdict == REPRODUCED


def test_mean_difference_claims_now_have_a_verdict():
    claim = MeanDiffClaim("new improves by about 3 points", "new", ("old",), "accuracy", paper="≈ 3 points")
    out = evaluate(claim, make_frame(lambda *_: 0.03))
    assert out.effect.paper == pytest.approx(3.0) and out.verdict == REPRODUCED
    assert out.paper_numbers == "vs old +3.00; vs the best of old per dataset +3.00"  # the old text stays


def test_fewer_claims_count_datasets_with_an_interval():
    frame = make_frame(lambda ds, rep, fold: -0.05 if ds == "car" else 0.03)  # new loses on car only
    claim = FewerClaim("new makes fewer errors", "new", "old", "error", ())
    ref = make_reference({"new": 0.1, "old": 0.2}, metric="error", unit="fraction")
    out = evaluate(claim, frame, ref)
    assert out.effect.paper == pytest.approx(1.0) and out.effect.paper_source == "its table, 6 datasets"
    assert out.effect.ours == pytest.approx(4 / 6)  # 5 wins, 1 loss
    assert out.ours == "fewer on 5 of 6 dataset(s)" and out.literal is False
    # 5 wins of 6 is no evidence: P(3+ losses in 6 draws) = 6 % > 2.5 %, so the interval reaches 0;
    # it also reaches the paper's share (all 6), so the rerun cannot tell
    assert out.effect.low == pytest.approx(0.0) and out.effect.high == pytest.approx(1.0)
    assert out.verdict == INCONCLUSIVE
    listed = FewerClaim("fewer on wine and car", "new", "old", "error", ("wine", "car")).evaluate(
        compare_cells(make_reference({"x": 1.0}), frame), frame)
    assert listed.effect.paper_source == "stated in the text, no numbers printed"
    assert listed.effect.ours == pytest.approx(0.0) and listed.verdict == NOT_REPRODUCED


def test_most_claims_and_custom_claims_get_verdicts(tmp_path):
    @dataclass(frozen=True)
    class Custom:
        text: str = "a paper's own claim kind"

        def evaluate(self, cells, frame):
            return ClaimOutcome(self.text, "yes", "–", "no", None)

    most = MostClaim("old has the most leaves", "old", "n_leaves")
    spec = spec_with(most, Custom())
    rep = build_report(spec, make_frame(lambda *_: 0.03), make_reference({"new": 83.0, "old": 80.0}), tmp_path,
                       figures=False)
    assert rep.claims[0].effect.ours == pytest.approx(1.0) and rep.claims[0].verdict == REPRODUCED
    assert rep.claims[1].verdict == "not testable (this claim kind computes no effect)"


def test_one_way_and_underline_claims_get_effects_and_holm_adjusted_tests():
    frame = make_frame(lambda *_: 0.03, repeats=1, folds=10)
    marks = {(ds, "new"): "bold" for ds in DATASETS} | {(ds, "old"): "underline" for ds in DATASETS}
    ref = make_reference({"new": 0.17, "old": 0.20}, metric="error", unit="fraction", marks=marks)
    oneway = evaluate(OneWayClaim("best and worst per dataset"), frame, ref)
    assert oneway.effect.paper == pytest.approx(0.03) and oneway.effect.ours == pytest.approx(0.03)
    assert oneway.verdict == REPRODUCED and len(oneway.effect.test.parts) == 6
    for _, raw, adjusted in oneway.effect.test.parts:
        assert adjusted >= raw
    underlined = make_reference({"new": 83.0, "old": 80.0, "ref": 79.0},
                                marks={(ds, "new"): "underline" for ds in DATASETS[:3]})
    frame3 = make_frame(lambda *_: 0.03, algorithms=("new", "old"))
    extra = frame3[frame3["algorithm"] == "old"].assign(algorithm="ref")
    extra["accuracy"] -= 0.01
    frame3 = pd.concat([frame3, extra], ignore_index=True)
    out = evaluate(UnderlineClaim("underlined beat old and ref", ("old", "ref")), frame3, underlined)
    assert out.effect.paper == pytest.approx(3.0) and out.effect.ours == pytest.approx(3.0)
    assert out.verdict == REPRODUCED and [u for u, _, _ in out.effect.test.parts] == \
        ["Glass / new", "Wine / new", "Yeast / new"]


# -- the report: calibration, both views, exclusions, Holm -----------------------------------
def calibration_case(tmp_path, **changes):
    """``old`` (the baseline) is 20 points below the paper on glass, on the paper elsewhere."""
    frame = make_frame(lambda ds, rep, fold: -0.30 if ds == "glass" else 0.03,
                       old=lambda ds, base: 0.60 if ds == "glass" else 0.80)
    ref = make_reference({"new": 83.0, "old": 80.0})
    settings = dict(baselines=("old",), tolerances={"accuracy": 2.0},
                    datasets={"Glass": PaperDataset(214, 10, 7, "Table 9")}) | changes
    spec = spec_with(DIFF, BEATS, SAME, **settings)
    return build_report(spec, frame, ref, tmp_path, figures=False)


def test_a_baseline_twenty_points_off_marks_a_protocol_mismatch(tmp_path):
    rep = calibration_case(tmp_path)
    status = {r.label: r for r in rep.calibration.rows}
    assert status["Glass"].status == MISMATCH and status["Glass"].within == 0
    assert "ours 60, paper 80" in status["Glass"].worst
    assert status["Glass"].differs.startswith("card glass: features 9 vs the paper's 10; classes 6 vs the paper's 7")
    assert status["Glass"].differs.endswith("no registered cause: the data differ in features, classes")
    assert [r.label for r in rep.calibration.calibrated] == ["Wine", "Yeast", "Vehicle", "Haberman", "Car"]
    beats = rep.claims[0]
    # over all datasets glass (new 30 points worse) drowns the effect; on the calibrated ones it is +3 exactly
    assert beats.effect.n_datasets == 6 and beats.effect.low < 0 < 3.0 <= beats.effect.high + 1e-9
    assert beats.verdict == INCONCLUSIVE
    assert beats.calibrated.n_datasets == 5 and beats.verdict_calibrated == REPRODUCED
    assert beats.calibrated.paper == pytest.approx(3.0) and beats.calibrated.n_paper == 5
    md = report_markdown(rep)
    assert "## Protocol calibration" in md and "## Verdicts" in md
    assert "| Glass | protocol mismatch | 0 of 1 | old accuracy: ours 60, paper 80 (-20; agreement band ± 0) |" in md
    assert "- on the 5 calibrated dataset(s) only (Wine, Yeast, Vehicle, Haberman, Car): accuracy (percent)" in md
    # Wilcoxon over 5 datasets cannot reach p < 0.05: the significance claim is not reproduced there
    assert "- over the calibrated datasets: 3 claims: 1 reproduced, 2 not reproduced" in md
    tex = report_latex(rep)
    assert r"\subsection*{Protocol calibration}" in tex and "−" not in tex


def test_every_claim_has_a_verdict_in_both_views(tmp_path):
    rep = calibration_case(tmp_path)
    for c in rep.claims:
        assert c.effect.grade in GRADES and c.calibrated.grade in GRADES
        assert c.verdict and c.verdict_calibrated


def test_holm_adjusts_the_wilcoxon_family_in_each_view(tmp_path):
    rep = calibration_case(tmp_path)
    for attribute in ("effect", "calibrated"):
        tests = [getattr(c, attribute).test for c in rep.claims if getattr(c, attribute).test is not None]
        raw = [t.ours_p for t in tests]
        assert [t.ours_p_holm for t in tests] == pytest.approx(list(holm(raw)))
        assert [t.paper_p_holm for t in tests] == pytest.approx(list(holm([t.paper_p for t in tests])))


def test_excluded_datasets_leave_claims_and_counts(tmp_path):
    rep = calibration_case(tmp_path, excluded={"glass": "not the paper's file"})
    row = next(r for r in rep.calibration.rows if r.label == "Glass")
    assert row.status == EXCLUDED and row.reason == "not the paper's file"
    assert rep.claims[0].effect.n_datasets == 5 and rep.claims[0].verdict == REPRODUCED
    assert rep.claims[0].effect.n_paper == 5
    assert "Left out of every claim and count: glass (not the paper's file)." in report_markdown(rep)


def test_without_baselines_or_agreement_the_calibrated_view_is_not_testable(tmp_path):
    rep = calibration_case(tmp_path, baselines=())
    assert all(c.verdict_calibrated == "not testable (the spec names no baseline)" for c in rep.claims)
    frame = make_frame(lambda *_: 0.03, old=lambda ds, base: 0.5)  # every baseline 30 points off
    spec = spec_with(BEATS, baselines=("old",), tolerances={"accuracy": 2.0})
    rep = build_report(spec, frame, make_reference({"new": 83.0, "old": 80.0}), tmp_path, figures=False)
    assert rep.calibration.count(MISMATCH) == 6
    assert rep.claims[0].verdict_calibrated == "not testable (no calibrated dataset)"


def test_the_reports_are_deterministic(tmp_path):
    a, b = calibration_case(tmp_path), calibration_case(tmp_path)
    assert [(c.effect.low, c.effect.high) for c in a.claims] == [(c.effect.low, c.effect.high) for c in b.claims]


def test_datasets_the_paper_does_not_list_are_named_and_not_calibrated(tmp_path):
    frame = make_frame(lambda *_: 0.03)
    ref = make_reference({"new": 83.0, "old": 80.0}, datasets=DATASETS[:4])
    frame = make_frame(lambda *_: 0.03, old=lambda ds, base: 0.80)  # the baseline exactly on the paper's 80
    rep = build_report(spec_with(BEATS, baselines=("old",), tolerances={"accuracy": 2.0}), frame, ref, tmp_path,
                       figures=False)
    extra = [r.label for r in rep.calibration.rows if r.status == NOT_IN_PAPER]
    assert extra == ["car", "haberman"] and rep.calibration.count(CALIBRATED) == 4
    assert rep.claims[0].effect.n_datasets == 4  # a Wilcoxon claim is about the paper's datasets


def test_what_differs_reads_the_card():
    line = what_differs("vehicle", PaperDataset(946, 18, 4, "Table I"))
    assert line == ("card vehicle: rows 846 vs the paper's 946 (Table I); same features, classes; "
                    "no registered cause: the data differ in rows")
    assert what_differs("wine", None).endswith("the paper does not describe this dataset; no registered cause")
    same = what_differs("wine", PaperDataset(178, 13, 3, "Table I"))
    assert "as the paper prints (Table I)" in same and "protocol or the implementation" in same


def test_what_differs_names_the_registered_causes():
    causes = load_causes(get_paper("tsallis").causes)
    vehicle = what_differs("vehicle", PaperDataset(946, 18, 4, "Table I"), causes=causes.for_dataset("Vehicle"))
    assert "rows 846 vs the paper's 946 (explained: misprint)" in vehicle
    assert "known: misprint: Table I prints 946 rows" in vehicle and "(text: Table I" in vehicle
    glass = what_differs("glass", PaperDataset(214, 10, 7, "Table I"), causes=causes.for_dataset("Glass"))
    assert "features 9 vs the paper's 10 (explained: id column)" in glass
    abalone = causes.for_dataset("abalone-18", "Abalone")
    assert {c.kind for c in abalone} == {"minimum leaf"} and "minimum leaf of 50" in abalone[0].text
    # a cause names the cells it explains: C4.5's Abalone size, not its accuracy (paper 002, issue 38 item 7)
    assert [c.kind for c in causes.for_cell("abalone-18", "Abalone", "c45", "accuracy")] == []
    assert [c.kind for c in causes.for_cell("abalone-18", "Abalone", "c45", "n_nodes")] == ["minimum leaf"]


# -- the real specs -------------------------------------------------------------------------------
def test_specs_name_baselines_and_datasets_of_their_reference():
    for spec in PAPERS.values():
        ref = load_reference(spec.reference)
        assert set(spec.baselines) <= set(ref["algorithm"]), spec.key
        assert set(spec.datasets) <= set(ref["dataset_label"]), spec.key
        assert spec.dataset_source, spec.key
    assert get_paper("certainty").excluded.keys() == {"kddcup99-10pct"}
    assert get_paper("tsallis").baselines == ("id3", "cart", "c45")


def test_paper_effects_come_from_the_published_tables(tmp_path):
    empty = pd.DataFrame(columns=["dataset", "algorithm", "status", "accuracy", "error"])
    tsallis = get_paper("tsallis")
    rep = build_report(tsallis, empty, load_reference(tsallis.reference), tmp_path, figures=False)
    gain = next(c for c in rep.claims if isinstance(c.effect.paper, float) and "mean of id3" in c.effect.measure)
    # Table II: Tsallis minus ID3, CART, C4.5 sums to 35.4, 42.7, 51.4 over 11 sets -> (129.5 / 3) / 11
    assert gain.effect.paper == pytest.approx(129.5 / 33) and gain.verdict == "not testable (nothing run)"
    serrurier = get_paper("serrurier2015")
    rep = build_report(serrurier, empty, load_reference(serrurier.reference), tmp_path, figures=False)
    first = rep.claims[0]
    assert first.effect.paper == pytest.approx(36.1 / 16)  # ΠTree − LogTree over Table 1's 16 rows
    assert first.effect.test.paper_p < 0.01 and math.isnan(first.effect.test.ours_p)
    assert all(c.verdict.startswith("not testable") for c in rep.claims)


def test_certainty_section_leaves_the_excluded_file_out_of_its_count():
    from treebench.papers.certainty.error_counts import certainty_section

    rows = []
    for dataset in ("kddcup99-10pct", "wdbc"):
        for algorithm, (train_errors, test_errors) in (("certainty", (0, 5)), ("c50", (3, 8))):
            rows.append({"dataset": dataset, "algorithm": algorithm, "status": "ok", "n_train": 80, "n_test": 20,
                         "train_accuracy": 1 - train_errors / 80, "error": test_errors / 20, "n_leaves": 4,
                         "n_nodes": 7})
    text = "\n".join(certainty_section(pd.DataFrame(rows), get_paper("certainty").excluded).markdown)
    assert "(`c50`) on 1 of 1 datasets: wdbc." in text
    assert "- Left out of these counts: kddcup99-10pct (the 10 % file" in text
    assert "| kddcup99-10pct | kept | 0 / 5 (4) | 3 / 8 (4) |" in text  # still listed

