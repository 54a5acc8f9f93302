"""Every claim's rule applied to the paper's own published numbers first (issue 38, item 2)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import wilcoxon

from treebench.papers import get_paper
from treebench.papers.catalogue import PAPERS as CATALOGUE
from treebench.report.cells import drop_excluded, trial_values
from treebench.report.claims import ClaimOutcome, design_margin
from treebench.report.paper_frame import paper_frame
from treebench.report.reference import load_reference
from treebench.report.reproduce import grade_paper_on_paper

PAPERS = tuple(CATALOGUE)  # every catalogued paper


def _paper_on_paper(key: str) -> list[ClaimOutcome]:
    spec = get_paper(key)
    cells, _ = drop_excluded(load_reference(spec.reference), pd.DataFrame(columns=["dataset", "algorithm"]),
                             spec.excluded)
    outcomes = [ClaimOutcome(c.text, "", "", "", None) for c in spec.claims]
    grade_paper_on_paper(spec, cells, outcomes)
    return outcomes


@pytest.mark.parametrize("key", PAPERS)
def test_the_paper_frame_reads_back_every_published_value(key):
    reference = load_reference(get_paper(key).reference)
    frame = paper_frame(reference)
    for r in reference[reference["dataset"] != ""].to_dict("records"):
        row = frame[(frame["dataset"] == r["dataset"]) & (frame["algorithm"] == r["algorithm"])]
        assert len(row) == 1
        assert trial_values(row, r["metric"], r["unit"]).iloc[0] == pytest.approx(r["value"])


@pytest.mark.parametrize("n", (16, 30))
def test_the_design_margin_is_detected_with_eighty_percent_power(n):
    """At a true mean difference equal to the margin, Wilcoxon's test over n normal differences of the
    same spread rejects about 80 % of the time (simulated with scipy's exact test)."""
    rng = np.random.default_rng(3)
    sd = 1.5
    z = rng.normal(size=n)
    spread = sd * (z - z.mean()) / z.std(ddof=1)  # per-dataset differences with sample sd exactly 1.5
    margin = design_margin(spread, 0.05)
    rejections = [wilcoxon(rng.normal(margin, sd, n)).pvalue < 0.05 for _ in range(3000)]
    assert np.mean(rejections) == pytest.approx(0.8, abs=0.04)
    assert math.isnan(design_margin(np.array([1.0, 2.0]), 0.05))


def test_paper_000_on_its_own_numbers():
    grades = {o.text: o.paper_on_paper.verdict for o in _paper_on_paper("serrurier2015")}
    assert grades["ΠTree beats LogTree (Wilcoxon over datasets)"] == "reproduced"
    assert grades["ΠTree beats PrunTree (Wilcoxon over datasets)"] == "reproduced"
    # the two O-ΠTree "no difference" claims hold inside the margin the paper's design could resolve;
    # ΠTree vs J4.8 does not: the paper's own interval reaches past it
    assert grades["O-ΠTree vs LogTree: no significant difference"] == "reproduced"
    assert grades["O-ΠTree vs PrunTree: no significant difference"] == "reproduced"
    assert grades["ΠTree vs J4.8: no significant difference"] == "inconclusive"
    underline = next(v for k, v in grades.items() if k.startswith("Underlined"))
    assert underline.startswith("not testable (the paper's table cannot carry this rule")


def test_paper_002_on_its_own_numbers():
    # the three Wilcoxon tests and the 4-point gain; the rest of the inventory: tests/test_inventory_002.py
    assert {o.paper_on_paper.verdict for o in _paper_on_paper("tsallis")[:4]} == {"reproduced"}


def test_paper_001_and_003_on_their_own_numbers():
    by_text = {o.text: o for o in _paper_on_paper("mee")}  # its whole inventory: tests/test_inventory_001.py
    marks, sizes, lower_r = (next(o for t, o in by_text.items() if t.startswith(start))
                             for start in ("Significantly best", "MEE trees are smaller", "MEE trees generalise"))
    assert marks.paper_on_paper.verdict.startswith("not testable (the paper's table cannot carry this rule")
    assert marks.paper_on_paper.outcome == "reproduced"  # its pooled effect excludes 0
    assert sizes.paper_on_paper.verdict.startswith("not testable")  # Table 2 prints no tree sizes
    assert lower_r.paper_on_paper.verdict.startswith("not testable")  # nor training errors
    grades = {o.text: o.paper_on_paper.verdict for o in _paper_on_paper("certainty")}
    trends = [v for t, v in grades.items() if t.endswith("(the trend the Results section reports)")]
    assert trends == ["reproduced", "reproduced"]  # the trends, on its table
    named = [v for t, v in grades.items() if t.endswith("on Monks-1, Monks-2, Optdigits, Pendigits")]
    assert len(named) == 2 and all(g.startswith("not testable") for g in named)  # no numbers for those datasets


@pytest.mark.parametrize("key", PAPERS)
def test_every_claim_the_papers_own_numbers_do_not_carry_says_why(key):
    """Issue 38: a claim whose rule the paper's own numbers fail has a reason, read off that grade."""
    from treebench.report.verdicts import own_numbers_why

    for outcome in _paper_on_paper(key):
        own = outcome.paper_on_paper
        why = own_numbers_why(own)
        assert (why == "") == (own.verdict == "reproduced"), (outcome.text, own.verdict, why)


def test_the_reason_names_the_interval_and_what_it_fails():
    from treebench.report.claims import Effect
    from treebench.report.verdicts import own_numbers_why

    by_text = {o.text: o.paper_on_paper for o in _paper_on_paper("serrurier2015")}
    j48 = own_numbers_why(by_text["ΠTree vs J4.8: no significant difference"])
    assert "reaching past the margin ± 1.09" in j48 and "[+0.025, +1.33]" in j48
    trend = Effect("m", ours=0.4, low=-0.2, high=1.0, n_datasets=11, kind="trend", verdict="inconclusive")
    assert own_numbers_why(trend) == ("the paper's own numbers over its 11 datasets give +0.4 [-0.2, +1], an "
                                      "interval holding 0: they do not establish the effect at the 95 % level "
                                      "under this rule")
    untestable = Effect("m", verdict="not testable (figure only)")
    assert own_numbers_why(untestable) == "figure only"
    assert own_numbers_why(Effect("m", ours=1.0, low=0.5, high=2.0, verdict="reproduced")) == ""
