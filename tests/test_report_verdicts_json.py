"""verdicts.json of every paper, the cell agreement rule, the cause registries and the anomaly flags.

The five papers' reports are built through the real code path (``build_report``
with each paper's spec and reference) on small synthetic stores made from the
published numbers plus seeded noise, so the invariants of issue 28 are checked
on every claim kind of every paper without a rerun.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from treebench.errors import TreebenchError
from treebench.papers.catalogue import PAPERS, get_paper
from treebench.report.anomalies import (
    BELOW_MAJORITY,
    GRID_EDGE,
    ONE_LEAF,
    TRAIN_TEST,
    config_grids,
    find_anomalies,
    skipped_checks,
)
from treebench.report.causes import KINDS, load_causes
from treebench.report.cells import AGREEMENT_Z, agreement, compare_cells, standard_errors
from treebench.report.reference import COLUMNS, load_reference
from treebench.report.reproduce import build_report, report_markdown, with_causes, write_report
from treebench.report.site import PaperPage, render_index
from treebench.report.verdicts import (
    DIFFERENCE,
    EQUIVALENCE,
    REPRODUCED,
    SIGNIFICANCE,
    cell_records,
    check_document,
    summary,
    summary_text,
    verdicts_document,
)
from treebench.report.verdicts import (
    KINDS as CLAIM_KINDS,
)

ROOT = Path(__file__).resolve().parents[1]
#: Cards for papers whose reference names none (004's EEG data is not public).
STAND_INS = ("wine", "glass", "haberman")


def fake_store(spec, reference: pd.DataFrame, seed: int, noise: float = 0.02) -> pd.DataFrame:
    """Trials of every (dataset, algorithm) of the reference, near the published numbers.

    Count metrics (paper 003) get one ordered split; the others 2 x 3 splits.
    """
    rng = np.random.default_rng(seed)
    cards = [c for c in dict.fromkeys(reference["dataset"].fillna("")) if c] or list(STAND_INS)
    algorithms = list(dict.fromkeys(reference["algorithm"]))
    if spec.key == "belief":
        algorithms += ["c4.5"]
    counts = reference["metric"].isin(["train_errors", "test_errors"]).any()
    splits = [(0, 0)] if counts else [(r, f) for r in range(2) for f in range(3)]
    n_train, n_test = (1000, 250) if counts else (140, 60)

    def published(card: str, alg: str, metric: str) -> float:
        sub = reference[(reference["dataset"].fillna("") == card) & (reference["algorithm"] == alg)
                        & (reference["metric"] == metric)] if card in set(reference["dataset"]) else \
            reference[(reference["algorithm"] == alg) & (reference["metric"] == metric)]
        return float(sub["value"].iloc[0]) if len(sub) else math.nan

    rows = []
    for card in cards:
        base = rng.uniform(0.65, 0.9)
        for alg in algorithms:
            acc = published(card, alg, "accuracy") / 100
            if math.isnan(acc):
                acc = 1 - published(card, alg, "error")
            if math.isnan(acc):
                acc = base + rng.normal(0, 0.03)
            train_err, test_err = published(card, alg, "train_errors"), published(card, alg, "test_errors")
            leaves = int(rng.integers(3, 40))
            for rep, fold in splits:
                a = float(np.clip(acc + rng.normal(0, noise), 0.01, 0.999))
                row = dict(dataset=card, algorithm=alg, repeat=rep, fold=fold, status="ok", accuracy=a, error=1 - a,
                           train_accuracy=min(1.0, a + 0.1), n_leaves=leaves + fold, n_nodes=2 * (leaves + fold) - 1,
                           n_train=n_train, n_test=n_test, pignistic_error=(1 - a) * 0.8,
                           chosen=json.dumps({"q": float(rng.choice([0.5, 2.0, 3.0]))}) if "tsallis" in alg else "")
                if not math.isnan(train_err):
                    row["train_accuracy"] = 1 - max(train_err + rng.normal(0, 3), 0) / n_train
                if not math.isnan(test_err):
                    row["error"] = max(test_err + rng.normal(0, 3), 0) / n_test
                    row["accuracy"] = 1 - row["error"]
                rows.append(row)
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Every paper's report on two synthetic stores (close to the paper, and noisier)."""
    out = {}
    for key, spec in PAPERS.items():
        reference = load_reference(spec.reference)
        for seed, noise in ((1, 0.005), (2, 0.05)):
            frame = fake_store(spec, reference, seed, noise)
            folder = tmp_path_factory.mktemp(f"{key}-{seed}")
            out[(key, seed)] = (build_report(spec, frame, reference, folder, figures=False), folder)
    return out


# -- verdicts.json on all five papers ---------------------------------------------------------------
def test_every_paper_has_a_fixture():
    assert {k for k, _ in [(key, 0) for key in PAPERS]} == {"serrurier2015", "mee", "tsallis", "certainty", "belief"}


@pytest.mark.parametrize("key", sorted(PAPERS))
@pytest.mark.parametrize("seed", (1, 2))
def test_verdicts_json_keeps_its_invariants(reports, key, seed):
    rep, folder = reports[(key, seed)]
    paths = write_report(rep, folder)
    doc = json.loads((folder / "verdicts.json").read_text(encoding="utf-8"))
    assert folder / "verdicts.json" in paths
    assert check_document(doc) == []
    assert doc["summary"] == summary(c["verdict"] for c in doc["claims"])
    assert doc["summary"]["total"] == len(rep.claims) == len(doc["claims"])
    for claim in doc["claims"]:
        assert claim["kind"] in CLAIM_KINDS and set(claim) >= {"claim", "kind", "verdict", "effect", "interval",
                                                               "datasets"}
        lo, hi = claim["interval"]
        if claim["kind"] == EQUIVALENCE and not claim["verdict"].startswith("not testable"):
            assert claim["margin"] is not None and claim["margin"] > 0
            if claim["verdict"] == REPRODUCED:
                assert -claim["margin"] <= lo <= hi <= claim["margin"]
        if claim["kind"] == SIGNIFICANCE and claim["verdict"] == REPRODUCED:
            if not claim["test"]["as_applied"]:
                assert lo > 0  # no test named: the effect is graded
            elif "units" in claim:
                units = [u["grade"] for u in claim["units"] if not u["grade"].startswith("not testable")]
                assert units.count(REPRODUCED) > len(units) / 2
            else:
                assert claim["test"]["p"] < claim["test"]["alpha"]
        if claim["kind"] == SIGNIFICANCE:
            assert set(claim["views"]) <= {"Holm across claims", "every unit after Holm",
                                           "our test, majority of units"}
        if claim["kind"] == DIFFERENCE and claim["verdict"] == REPRODUCED:
            assert not lo <= 0 <= hi
    for cell in doc["cells"]:
        assert set(cell) >= {"dataset", "metric", "paper", "ours", "se_paper", "se_ours", "agrees", "cause"}
        assert cell["agrees"] in (True, False, None)
        if cell["agrees"] is None:
            assert cell["why"].startswith("not judged")


@pytest.mark.parametrize("key", sorted(PAPERS))
def test_headline_report_and_json_give_the_same_counts(reports, key):
    rep, folder = reports[(key, 1)]
    doc = verdicts_document(rep)
    text = summary_text(doc["summary"])
    assert f"**Verdicts** (all datasets; the same counts as `verdicts.json` and the page): {text}." in \
        report_markdown(rep)
    html = render_index([PaperPage(rep.spec, rep)], folder, env={})
    assert text.replace(" claims: ", " claims recomputed: ").replace(" claim: ", " claim recomputed: ") in html
    assert f"{rep.spec.number} {rep.spec.key}: {text}" in html


def test_the_checker_catches_each_broken_invariant():
    claims = [
        {"claim": "eq", "kind": "equivalence", "verdict": "reproduced", "interval": [-2.0, 0.5], "margin": 1.0},
        {"claim": "sig", "kind": "significance", "verdict": "reproduced", "interval": [0.1, 0.2],
         "test": {"name": "t", "as_applied": True, "p": 0.06, "alpha": 0.05}},
        {"claim": "diff", "kind": "difference", "verdict": "reproduced, smaller", "interval": [-0.1, 0.2]},
    ]
    doc = {"claims": claims, "summary": summary(["reproduced"] * 3)}
    problems = check_document(doc)
    assert len(problems) == 4 and problems[0].startswith("summary counts")
    assert any("outside ± 1.0" in p for p in problems) and any(">= alpha" in p for p in problems)
    units = [{"claim": "cells", "kind": "significance", "verdict": "reproduced", "interval": [0.1, 0.2],
              "test": {"name": "t", "as_applied": True, "p": None, "alpha": 0.05},
              "units": [{"unit": "a", "grade": "reproduced"}, {"unit": "b", "grade": "not reproduced"}]},
             {"claim": "named none", "kind": "significance", "verdict": "reproduced", "interval": [-0.1, 0.2],
              "test": {"name": "ours", "as_applied": False, "p": 0.01, "alpha": 0.05}}]
    count = [{"claim": "each", "kind": "count", "verdict": "reproduced", "interval": [0.5, 1.0],
              "units": [{"unit": "monks-1", "grade": "reproduced"}, {"unit": "monks-2", "grade": "reversed"}]}]
    assert check_document({"claims": count, "summary": summary(["reproduced"])}) == [
        "each: count reproduced while its units are reproduced, reversed"]
    assert check_document({"claims": units, "summary": summary(["reproduced"] * 2)}) == [
        "cells: significance reproduced while its units give not reproduced",
        "named none: significance (no test named) reproduced with interval (-0.1, 0.2) reaching 0"]
    assert any("covering 0" in p for p in problems)
    wrong_null = [
        {"claim": "inc", "kind": "difference", "verdict": "inconclusive", "interval": [0.2, 0.9], "paper_effect": 0.5},
        {"claim": "nr", "kind": "trend", "verdict": "not reproduced", "interval": [-0.2, 0.9], "paper_effect": 0.5},
        {"claim": "ok", "kind": "difference", "verdict": "not reproduced", "interval": [-0.2, 0.3], "paper_effect": 0.5},
    ]
    problems = check_document({"claims": wrong_null, "summary": summary(c["verdict"] for c in wrong_null)})
    assert problems == ["inc: inconclusive with interval (0.2, 0.9) excluding 0",
                        "nr: not reproduced with interval (-0.2, 0.9) holding the paper's effect 0.5"]


# -- the rules on the real specs ------------------------------------------------------------------
def test_each_spec_claim_has_a_kind():
    kinds = {key: [c.kind for c in spec.claims] for key, spec in PAPERS.items()}
    # paper 000's inventory (tests/test_inventory_000.py): Table 1, Fig. 4, §4.2, Figs. 2-3, the conclusion
    assert kinds["serrurier2015"] == ["significance", "significance", "equivalence", "equivalence", "equivalence",
                                      "difference", "significance", "count", "count", "equivalence", "equivalence",
                                      "trend", "trend", "trend", "difference", "difference", "difference", "trend",
                                      "difference", "difference", "difference", "difference", "difference",
                                      "difference", "difference", "difference", "difference", "difference"]
    assert kinds["tsallis"][:4] == ["significance"] * 3 + ["difference"]  # the rest: tests/test_inventory_002.py
    assert kinds["certainty"] == (["difference"] * 2 + ["count"] * 8 + ["difference"] + ["count"] * 3  # its inventory
                                  + ["trend"] * 3 + ["difference"])
    assert kinds["belief"] == ["trend", "significance", "equivalence", "difference"]
    assert kinds["mee"][:4] == ["significance", "count", "count", "trend"]  # the rest: tests/test_inventory_001.py


def test_an_equivalence_claim_with_a_wide_interval_is_inconclusive(tmp_path):
    # paper 004's C4.5 sentence: C4.5 about 2 points worse with a wide spread is not "equivalent"
    from treebench.papers import get_paper
    from treebench.papers.belief.sections import c45_claim

    C45_CLAIM = c45_claim(get_paper("belief"))

    rng = np.random.default_rng(3)
    rows = []
    for ds in STAND_INS:
        for fold in range(5):
            base = 0.3 + rng.normal(0, 0.01)
            for alg, err in (("belief-crisp", base), ("c4.5", base + 0.02 + rng.normal(0, 0.04))):
                rows.append(dict(dataset=ds, algorithm=alg, repeat=0, fold=fold, status="ok", error=err))
    fixed = replace(C45_CLAIM, design_cases=0)  # the fixed 1-point margin
    out = fixed.evaluate(pd.DataFrame(), pd.DataFrame(rows))
    assert out.effect.kind == EQUIVALENCE and out.effect.margin == pytest.approx(0.01)
    assert out.effect.low < 0.01 < out.effect.high and out.verdict == "inconclusive"
    # the claim's own margin: two rates near 35 % on the paper's 150 patterns, detected with 80 % power
    design = C45_CLAIM.evaluate(pd.DataFrame(), pd.DataFrame(rows))
    expected = (1.959963984540054 + 0.8416212335729143) * math.sqrt(2 * 0.35 * 0.65 / 150)
    assert design.effect.margin == pytest.approx(expected) and design.verdict == "reproduced"
    assert "150 cases" in design.effect.margin_source


# -- cell agreement --------------------------------------------------------------------------------
def test_agreement_uses_both_noises():
    assert agreement(2.7, 1.0, 1.0) == (True, pytest.approx(AGREEMENT_Z * math.sqrt(2)))
    assert agreement(2.8, 1.0, 1.0)[0] is False
    assert agreement(3.0, 1.0, 0.5)[0] is False
    assert agreement(3.0, math.nan, 1.0) == (None, pytest.approx(math.nan, nan_ok=True))
    # a printed std over 10 folds is a std, not a standard error: divided by sqrt(10)
    se_p, se_o, how = standard_errors(80.0, 4.0, 78.0, 3.0, 10, 60, "accuracy", "percent", "sample")
    assert se_p == pytest.approx(4 / math.sqrt(10)) and se_o == pytest.approx(3 / math.sqrt(10))
    # no std printed: our fold spread stands in for the paper's
    se_p, se_o, how = standard_errors(80.0, math.nan, 78.0, 3.0, 10, 60, "accuracy", "percent", "sample")
    assert se_p == se_o and "stands in" in how
    # one split of counts: binomial errors of each count over the part's cases
    se_p, se_o, _ = standard_errors(36, math.nan, 158, math.nan, 1, 49011, "test_errors", "count", "sample")
    assert se_p == pytest.approx(math.sqrt(36 * (1 - 36 / 49011)))
    assert se_o == pytest.approx(math.sqrt(158 * (1 - 158 / 49011)))


def test_every_cell_shows_an_agreement_value_or_why_not():
    ref = pd.DataFrame([
        dict(paper="9", source="T", dataset_label="Wine", dataset="wine", algorithm_label="A", algorithm="a",
             metric="accuracy", value=90.0, std=math.nan, unit="percent", mark="", note=""),
        dict(paper="9", source="T", dataset_label="Gone", dataset="", algorithm_label="A", algorithm="a",
             metric="accuracy", value=90.0, std=math.nan, unit="percent", mark="", note=""),
    ], columns=list(COLUMNS))
    frame = pd.DataFrame([dict(dataset="wine", algorithm="a", repeat=0, fold=f, status="ok",
                               accuracy=0.9 + 0.01 * (f % 3 - 1), n_test=60) for f in range(10)])
    cells = compare_cells(ref, frame)
    assert cells["agrees"].tolist() == [True, None]
    assert cells["agree_why"].iloc[1] == "not judged: treebench does not have the data"


# -- causes -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(PAPERS))
def test_every_paper_ships_a_valid_cause_registry(key):
    spec = get_paper(key)
    path = Path(spec.causes)
    assert path.is_file() and path.parent.parent == ROOT / "treebench" / "papers"
    causes = load_causes(path)
    # may be empty: paper 000's disagreeing cells have no located cause (its claims' causes sit on its statements)
    assert (causes.causes or key == "serrurier2015") and all(c.kind in KINDS and c.source for c in causes.causes)
    labels = set(load_reference(spec.reference)["dataset_label"])
    cards = set(load_reference(spec.reference)["dataset"].dropna())
    known = {"monks-1", "monks-2"}  # paper 003's named datasets, stated in its text only
    for c in causes.causes:
        assert c.dataset in labels | cards | known, (key, c.dataset)


def test_the_registry_feeds_the_calibration_lines_and_the_cells(tmp_path):
    spec = get_paper("tsallis")
    reference = load_reference(spec.reference)
    frame = fake_store(spec, reference, 4, 0.01)
    frame.loc[frame["dataset"] == "vehicle", "accuracy"] -= 0.3  # force a mismatch on Vehicle
    rep = build_report(spec, frame, reference, tmp_path, figures=False)
    vehicle = next(r for r in rep.calibration.rows if r.label == "Vehicle")
    assert "rows 846 vs the paper's 946 (explained: misprint)" in vehicle.differs
    abalone_cells = rep.cells[rep.cells["dataset_label"] == "Abalone"]
    # the minimum-leaf run explains accuracy and nodes but C4.5's accuracy, and no chosen q (paper 002's causes)
    explained = abalone_cells["metric"].isin(["accuracy", "n_nodes"]) & ~(
        (abalone_cells["algorithm"] == "c45") & (abalone_cells["metric"] == "accuracy"))
    assert abalone_cells.loc[explained, "cause"].str.contains("minimum leaf of 50").all()
    assert (abalone_cells.loc[~explained, "cause"] == "").all() and (~explained).sum() == 3
    assert "Known causes (the paper's cause registry" in report_markdown(rep)


def test_a_cause_sits_only_on_the_cells_it_explains_and_is_stale_on_an_agreeing_one(tmp_path):
    spec = get_paper("tsallis")
    reference = load_reference(spec.reference)
    frame = fake_store(spec, reference, 4, 0.01)  # every cell near the paper's: they agree
    registry = tmp_path / "causes.yaml"
    registry.write_text(
        "causes:\n"
        "  - {dataset: Vehicle, kind: misprint, explains: [rows], text: 946 is a typo, source: {kind: text, where: T1}}\n"
        "  - {dataset: Car, algorithm: tsallis, metric: accuracy, kind: reading, text: q tie rule,\n"
        "     source: {kind: measurement, where: here}}\n", encoding="utf-8")
    compared = compare_cells(reference, frame, spec.our_std)
    car = (compared["dataset_label"] == "Car") & (compared["algorithm"] == "tsallis")
    accuracy = car & (compared["metric"] == "accuracy")
    assert accuracy.sum() == 1 and car.sum() > 1
    for agrees in (True, False):
        compared.loc[accuracy, "agrees"] = agrees
        cells = with_causes(compared, load_causes(registry))
        assert (cells.loc[cells["dataset_label"] == "Vehicle", "cause"] == "").all()  # shape: calibration only
        assert (cells.loc[~accuracy, "cause"] == "").all()  # other metrics, other algorithms: not explained
        text = cells.loc[accuracy, "cause"].iloc[0]
        assert text == ("stale (the cell agrees with the paper): " if agrees else "") + \
            "reading: q tie rule (measurement: here)"
        flagged = [c for c in cell_records(cells) if c["cause_stale"]]
        assert [(c["dataset"], c["algorithm"], c["metric"]) for c in flagged] == (
            [("Car", "tsallis", "accuracy")] if agrees else [])


def test_a_bad_registry_entry_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "causes.yaml"
    bad.write_text("causes:\n  - {dataset: x, kind: typo, text: t, source: {kind: text, where: w}}\n")
    with pytest.raises(TreebenchError, match=r"cause 1: kind 'typo' is not accepted; accepted: misprint"):
        load_causes(bad)
    bad.write_text("causes:\n  - {dataset: x, kind: misprint, text: t, source: {kind: guess, where: w}}\n")
    with pytest.raises(TreebenchError, match="source must be"):
        load_causes(bad)
    assert load_causes(tmp_path / "absent.yaml").causes == ()


# -- anomaly flags ------------------------------------------------------------------------------------
def anomaly_frame(top: float = 0.9) -> pd.DataFrame:
    """kddcup-like: one learner far below its train accuracy and the majority; zoo-like: γ at the top."""
    rows = []
    for fold in range(10):
        for alg, acc, train, leaves in (("gain-ratio", 0.258, 0.999, 40), ("c50", 0.79, 0.999, 30),
                                        ("certainty", 0.80, 0.999, 35)):
            rows.append(dict(dataset="kddcup99-10pct", algorithm=alg, repeat=0, fold=fold, status="ok", accuracy=acc,
                             train_accuracy=train, n_leaves=leaves, chosen=""))
        for alg, leaves, gamma in (("o-pitree", 1 if fold < 7 else 3, top if fold < 9 else 0.5),
                                   ("pitree", 6, 0.05)):
            rows.append(dict(dataset="zoo", algorithm=alg, repeat=0, fold=fold, status="ok", accuracy=0.9,
                             train_accuracy=0.95, n_leaves=leaves, chosen=json.dumps({"gamma": gamma})))
    return pd.DataFrame(rows)


def test_anomaly_flags_say_what_with_their_numbers():
    grids, ranges = config_grids(ROOT / "configs" / "serrurier2015.yaml")
    top = grids["o-pitree"]["gamma"][-1]  # paper 000's grid over ]0, 1[ (0.99 since the readings)
    assert 0.5 < top < 1
    flags = find_anomalies(anomaly_frame(top), grids=grids, ranges=ranges, majority={"kddcup99-10pct": 0.568})
    by = {(a.flag, a.dataset, a.algorithm): a.text for a in flags}
    assert by[(BELOW_MAJORITY, "kddcup99-10pct", "gain-ratio")] == (
        "gain-ratio on kddcup99-10pct: mean accuracy 25.8 % is below the majority-class rate 56.8 % "
        "(the card's class counts)")
    assert (BELOW_MAJORITY, "kddcup99-10pct", "c50") not in by
    assert "test accuracy 25.8 % against train 99.9 %" in by[(TRAIN_TEST, "kddcup99-10pct", "gain-ratio")]
    assert "one leaf in 7 of 10 trials where the others grow a median of 6 leaves" in by[(ONE_LEAF, "zoo", "o-pitree")]
    edge = by[(GRID_EDGE, "zoo", "o-pitree")]
    assert f"gamma = {top:g}, the top of its grid [0.001 … {top:g}], in 9 of 10 trials" in edge
    assert "the grid could extend towards 1" in edge and "0 < gamma < 1" in edge
    assert [a.flag for a in flags] == sorted((a.flag for a in flags),
                                             key=[BELOW_MAJORITY, ONE_LEAF, GRID_EDGE, TRAIN_TEST].index)


def test_anomaly_checks_that_cannot_run_say_why():
    frame = anomaly_frame().drop(columns=["train_accuracy"])
    assert not [a for a in find_anomalies(frame) if a.flag == TRAIN_TEST]
    skipped = skipped_checks(frame)
    assert "train far from test: not checked (the store has no train accuracy)" in skipped
    assert any(s.startswith("grid edge: not checked") for s in skipped)


def test_compare_prints_the_flags(tmp_path):
    from click.testing import CliRunner

    from treebench.report.cli import compare

    store = tmp_path / "frame.csv"
    frame = anomaly_frame()
    frame["error"] = 1 - frame["accuracy"]
    frame.to_csv(store, index=False)
    result = CliRunner().invoke(compare, [str(store), "--test", "ttest"])
    assert result.exit_code == 0, result.output
    assert "anomaly flags:" in result.output
    assert "train far from test: gain-ratio on kddcup99-10pct" in result.output


def test_literal_view_is_named_and_not_counted(reports):
    rep, _ = reports[("certainty", 1)]
    md = report_markdown(rep)
    assert "| literal reading (means, no interval) |" in md and "| agrees |" not in md
    assert all(hasattr(c, "literal") and not hasattr(c, "agrees") for c in rep.claims)
    html = render_index([PaperPage(rep.spec, rep)], Path("."), env={})
    assert "literal reading (means, no interval; not counted)" in html


# -- the forest plot ----------------------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(PAPERS))
def test_every_paper_gets_a_forest_plot_and_the_page_shows_it(reports, key):
    """Issue 38 item 8: all five papers, whatever their claims compute (004's Section 5 statement has no
    interval), get forest.svg with one grade label per claim, and their part of the page shows it."""
    rep, folder = reports[(key, 2)]
    write_report(rep, folder)
    svg = (folder / "forest.svg").read_text(encoding="utf-8")
    assert rep.claims and svg.lstrip().startswith("<?xml") and "<svg" in svg
    for claim in rep.claims:
        assert claim.verdict.split(" (")[0] in svg
    html = render_index([PaperPage(rep.spec, rep, folder)], folder.parent, env={})
    assert html.count('class="forest"') == 1 and "[figure not found" not in html
    assert html.count('<table class="glance">') == 1


def test_every_report_draws_its_claims_as_a_forest_plot(reports):
    from treebench.report.forest import GRADE_COLOURS

    rep, folder = reports[("serrurier2015", 1)]
    write_report(rep, folder)
    svg = (folder / "forest.svg").read_text(encoding="utf-8")
    assert (folder / "forest.png").stat().st_size > 0
    text = (folder / "report.md").read_text(encoding="utf-8")
    assert "](forest.svg)" in text
    # the claims at a glance open the report: one row per claim with its grade, reason and location
    glance = text.split("## Claims at a glance")[1].split("## ")[0]
    assert glance.count("\n| ") == len(rep.claims) + 2  # the header, its rule and one row per claim
    for claim in rep.claims:
        assert claim.verdict.split(" (")[0] in glance
    for claim in rep.claims:  # each row labelled with its grade, in its grade's colour
        grade = claim.verdict.split(" (")[0]
        assert grade in svg and GRADE_COLOURS[grade].lower() in svg.lower()


# -- cell noise: the splits behind a published value ------------------------------------------------------
def test_a_single_published_split_has_one_splits_noise_against_our_five():
    """Paper 003 prints one 80/20 split per dataset; against five shuffled splits its noise is the spread of
    one split (our per-split std), not the standard error of a mean over five."""
    reference = pd.DataFrame([{c: "" for c in COLUMNS} | {
        "paper": "003", "dataset_label": "WDBC", "dataset": "wdbc", "algorithm": "certainty", "metric": "test_errors",
        "value": 10.0, "std": math.nan, "unit": "count"}])
    errors = np.array([8.0, 12.0, 9.0, 15.0, 11.0])
    frame = pd.DataFrame({"dataset": "wdbc", "algorithm": "certainty", "status": "ok", "repeat": range(5),
                          "fold": 0, "error": errors / 114, "n_test": 114})
    as_mean = compare_cells(reference, frame).iloc[0]
    one_split = compare_cells(reference, frame, paper_splits=1).iloc[0]
    spread = errors.std(ddof=1)
    assert as_mean["se_paper"] == pytest.approx(spread / math.sqrt(5))
    assert one_split["se_paper"] == pytest.approx(spread) and one_split["se_ours"] == pytest.approx(spread / math.sqrt(5))
    assert "over its 1 split stands in" in one_split["agree_why"]
    assert one_split["agree_bound"] / as_mean["agree_bound"] == pytest.approx(math.sqrt(6 / 2))
    assert get_paper("certainty").paper_splits == 1


# -- the statements inventory ----------------------------------------------------------------------------
def test_every_statement_is_counted_with_its_location_scope_and_test(reports):
    from treebench.report.statements import Statement

    rep, folder = reports[("belief", 1)]
    doc = verdicts_document(rep)
    assert doc["summary"]["total"] == len(get_paper("belief").claims) == 4
    last = doc["claims"][-1]
    assert last["location"] == "Section 5" and last["verdict"].startswith("not testable (the paper runs no experiment")
    assert all(c["location"] and c["scope"] and c["test_as_applied"] for c in doc["claims"])
    assert doc["claims"][1]["test_as_applied"] == 'none named ("significantly")'
    assert "(Section 4, Table 1 (0.35 → 0.34); scope:" in report_markdown(rep)
    with pytest.raises(ValueError, match="give a claim or why it cannot be graded"):
        Statement("Section 9")


def test_every_unexplained_miss_is_an_open_question(reports):
    import copy

    from treebench.report.reproduce import open_questions

    rep = copy.copy(reports[("tsallis", 1)][0])  # near the paper's numbers: make two claims miss
    rep.claims = [copy.copy(c) for c in rep.claims]
    rep.claims[0].verdict, rep.claims[2].verdict = "not reproduced", "reversed"
    found = open_questions(rep)
    cells = rep.cells
    unexplained = cells[(cells["agrees"] == False) & (cells["cause"] == "")]  # noqa: E712
    missed = [c for c in rep.claims if c.verdict.split(" (")[0] in ("not reproduced", "reversed")]
    assert len(found) == len(unexplained) + len(missed) and len(unexplained) and len(missed)
    for r in unexplained.to_dict("records"):
        assert any(q.startswith(f"cell {r['dataset_label']} / {r['algorithm']} / {r['metric']}:") for q in found)
    for c in missed:
        assert any(c.text in q for q in found)
    assert verdicts_document(rep)["open_questions"] == found
    assert "## Unexplained differences (open questions)" in report_markdown(rep)


def test_a_claim_without_an_interval_still_shows_our_point(tmp_path):
    """A count claim ("3 of 3 pairs") has our value but no interval: the forest plot draws its point
    (it drew nothing but the paper's diamond), and one with neither draws only the paper's."""
    import re

    from treebench.report.claims import ClaimOutcome, Effect
    from treebench.report.forest import forest_plot

    def markers(ours: float) -> int:
        out = ClaimOutcome("q rises along the chain", "3 of 3", "3 of 3", "reproduced", None)
        out.set_effect(Effect("pairs in order", paper=3.0, ours=ours, kind="count", verdict="reproduced"))
        forest_plot([out], tmp_path / f"f{ours}")
        svg = (tmp_path / f"f{ours}.svg").read_text(encoding="utf-8")
        return len(re.findall(r"<use xlink:href=\"#m", svg))

    assert markers(2.0) == markers(float("nan")) + 1
