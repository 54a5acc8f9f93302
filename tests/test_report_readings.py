"""Readings: an under-specified protocol run more than one way, every verdict shown side by side."""

from __future__ import annotations

import pandas as pd
from test_report_verdicts import BEATS, make_frame, make_reference, spec_with

from treebench.report.claims import REPRODUCED, REVERSED
from treebench.report.reproduce import build_report, reading_frame, report_latex, report_markdown
from treebench.report.spec import Reading

#: "old" run a second way ("old-b"): under that reading the new algorithm loses by 4 points.
OTHER = Reading("other baseline", "the baseline as another implementation", {"old-b": "old"})


def frame_with_other_baseline() -> pd.DataFrame:
    frame = make_frame(lambda *_: 0.03)
    other = frame[frame["algorithm"] == "old"].copy()
    other["algorithm"] = "old-b"
    other["accuracy"] = other["accuracy"] + 0.07  # new is old + 0.03, so new - old-b = -0.04
    return pd.concat([frame, other], ignore_index=True)


def test_reading_frame_replaces_the_stood_in_for_algorithm():
    frame = frame_with_other_baseline()
    view = reading_frame(frame, OTHER)
    assert sorted(view["algorithm"].unique()) == ["new", "old"]
    merged = view[view["algorithm"] == "old"].merge(
        frame[frame["algorithm"] == "old-b"], on=["dataset", "repeat", "fold"], suffixes=("", "_b"))
    assert len(merged) == len(frame[frame["algorithm"] == "old-b"])
    assert (merged["accuracy"] == merged["accuracy_b"]).all()


def test_each_reading_gets_its_own_verdicts_beside_the_default(tmp_path):
    spec = spec_with(BEATS, readings=(OTHER,), default_reading="one engine for both")
    rep = build_report(spec, frame_with_other_baseline(), make_reference({"new": 83.0, "old": 80.0}), tmp_path,
                       figures=False)
    assert rep.claims[0].effect.verdict == REPRODUCED
    (reading,) = rep.readings
    assert reading.status == "ok" and reading.claims[0].effect.verdict == REVERSED
    md = report_markdown(rep)
    assert "## Readings" in md and "Default reading: one engine for both" in md
    assert f"| new beats old | {REPRODUCED} /" in md and f"| {REVERSED} /" in md
    assert "other baseline" in report_latex(rep)


def test_a_reading_without_its_trials_says_so(tmp_path):
    spec = spec_with(BEATS, readings=(OTHER, Reading("elsewhere", "another split order", {"new": "new"},
                                                     config="configs/none.yaml")))
    rep = build_report(spec, make_frame(lambda *_: 0.03), make_reference({"new": 83.0, "old": 80.0}), tmp_path,
                       figures=False)
    assert [r.status for r in rep.readings] == ["not run: no trials of old-b in the store",
                                                "not run: no store for configs/none.yaml yet "
                                                "(treebench run configs/none.yaml)"]
    assert "not run: no trials of old-b" in report_markdown(rep)


def test_a_spec_without_readings_has_no_readings_section(tmp_path):
    rep = build_report(spec_with(BEATS), make_frame(lambda *_: 0.03), make_reference({"new": 83.0, "old": 80.0}),
                       tmp_path, figures=False)
    assert rep.readings == [] and "## Readings" not in report_markdown(rep)


def test_a_reading_on_fewer_datasets_is_shown_beside_the_default_on_the_same_datasets(tmp_path):
    """A reading run on a subset is compared like for like: the default is judged again on that subset."""
    frame = frame_with_other_baseline()
    datasets = sorted(frame["dataset"].unique())
    kept = datasets[:4]  # too few datasets for the claim's Wilcoxon test to reject at 0.05
    frame = frame[(frame["algorithm"] != "old-b") | frame["dataset"].isin(kept)]
    rep = build_report(spec_with(BEATS, readings=(OTHER,)), frame, make_reference({"new": 83.0, "old": 80.0}),
                       tmp_path, figures=False)
    (reading,) = rep.readings
    assert reading.datasets == tuple(kept)
    assert rep.claims[0].effect.verdict == REPRODUCED  # the default, on all six datasets
    assert reading.default_same is not None
    same = reading.default_same[0].effect.verdict
    assert same != REPRODUCED  # the same default on the reading's four: the subset alone changes the verdict
    assert f"default on the same {len(kept)} datasets: {same}" in report_markdown(rep)


def test_a_reading_on_every_dataset_needs_no_second_default(tmp_path):
    rep = build_report(spec_with(BEATS, readings=(OTHER,)), frame_with_other_baseline(),
                       make_reference({"new": 83.0, "old": 80.0}), tmp_path, figures=False)
    assert rep.readings[0].default_same is None and "default on the same" not in report_markdown(rep)
