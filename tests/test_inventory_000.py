"""Paper 000's claims inventory (issue 38, item 1): every results statement of the text, its new claim kinds on
hand-made frames, and the paper-on-paper grade of every statement with published numbers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from treebench.papers.catalogue import get_paper
from treebench.papers.serrurier2015 import figure_claims
from treebench.papers.serrurier2015.figure_claims import (
    RandomTreesClaim,
    expected_settings,
    resampled,
)
from treebench.papers.serrurier2015.size_claims import (
    SimilarSizeClaim,
    SizeDiffersClaim,
    StabilityClaim,
)
from treebench.report.cells import drop_excluded
from treebench.report.claims import ClaimOutcome
from treebench.report.reference import load_reference
from treebench.report.reproduce import grade_paper_on_paper
from treebench.report.statements import Statement

SPEC = get_paper("serrurier2015")

#: The claims the reports graded before the inventory: their texts name them in verdict files.
EXISTING = (
    "ΠTree beats LogTree (Wilcoxon over datasets)",
    "ΠTree beats PrunTree (Wilcoxon over datasets)",
    "ΠTree vs J4.8: no significant difference",
    "O-ΠTree vs LogTree: no significant difference",
    "O-ΠTree vs PrunTree: no significant difference",
    "Underlined: significantly better (paired t-test) than LogTree and PrunTree",
    "LogTree always produces the most complex trees (Fig. 4)",
    "O-ΠTree may in three cases induce the largest trees (Fig. 4; against LogTree, PrunTree, ΠTree, J4.8)",
    "O-ΠTree grows up slowly (§4.2): fewer leaves than ΠTree, the same gain grown in batch (trend)",
)


# -- the inventory --------------------------------------------------------------------------------------------
def test_every_statement_has_a_location_scope_and_test_as_applied():
    assert all(isinstance(s, Statement) for s in SPEC.claims)
    assert len(SPEC.claims) == 28
    for s in SPEC.claims:
        assert s.location and s.scope and s.test_as_applied, s.text
        assert s.claim is not None or s.why_not, s.text
    graded = [s for s in SPEC.claims if s.claim is not None]
    assert len(graded) == 17 and len(SPEC.claims) - len(graded) == 11
    assert len({s.text for s in SPEC.claims}) == len(SPEC.claims)  # a verdict file names each by its text


def test_the_existing_claims_keep_their_texts_and_each_section_is_covered():
    texts = [s.text for s in SPEC.claims]
    for text in EXISTING:
        assert text in texts
    locations = {s.location for s in SPEC.claims}
    for where in ("Section 5, Table 1 (Wilcoxon)", "Table 1 (underlined cells)", "Fig. 4 paragraph (section 5)",
                  "Section 4.2", "Section 5, Fig. 2 (top)", "Section 5, Fig. 2 (bottom)", "Section 5, Fig. 3 (top)",
                  "Section 5, Fig. 3 (bottom)", "Section 6 (conclusion)"):
        assert where in locations
    # Fig. 4's paragraph: LogTree's "always" and O-ΠTree's caveat graded as separate claims, each on its own scope
    fig4 = [s for s in SPEC.claims if s.location.startswith("Fig. 4")]
    assert len(fig4) == 9
    most = next(s for s in fig4 if s.text == EXISTING[6])
    assert most.claim.others == ("pruntree", "pitree", "j48") and "sets O-ΠTree apart" in most.scope
    caveat = next(s for s in fig4 if s.text == EXISTING[7])
    assert caveat.claim.others == ("logtree", "pruntree", "pitree", "j48") and caveat.claim.cases == 3
    timing = [s for s in fig4 if s.claim is None]
    assert len(timing) == 3 and all("authors" in s.why_not or "timing" in s.why_not for s in timing)


def test_the_kinds_of_the_inventory():
    assert [s.kind for s in SPEC.claims] == [
        "significance", "significance", "equivalence", "equivalence", "equivalence", "difference", "significance",
        "count", "count", "equivalence", "equivalence", "trend", "trend", "trend", "difference", "difference",
        "difference", "trend", "difference", "difference", "difference", "difference", "difference", "difference",
        "difference", "difference", "difference", "difference"]


# -- paper-on-paper --------------------------------------------------------------------------------------------
def _paper_on_paper() -> dict[str, str]:
    cells, _ = drop_excluded(load_reference(SPEC.reference), pd.DataFrame(columns=["dataset", "algorithm"]),
                             SPEC.excluded)
    outcomes = [ClaimOutcome(c.text, "", "", "", None) for c in SPEC.claims]
    grade_paper_on_paper(SPEC, cells, outcomes)
    return {o.text: o.paper_on_paper.verdict for o in outcomes}


def test_paper_on_paper_grade_of_every_statement():
    grades = _paper_on_paper()
    # Table 1 prints numbers: the paper's own table passes its own Wilcoxon claims
    assert grades[EXISTING[0]] == "reproduced" and grades[EXISTING[1]] == "reproduced"
    assert grades[EXISTING[3]] == "reproduced" and grades[EXISTING[4]] == "reproduced"
    # ΠTree vs J4.8: the paper's own interval reaches past the margin its design resolves
    assert grades[EXISTING[2]] == "inconclusive"
    assert grades[EXISTING[5]].startswith("not testable (the paper's table cannot carry this rule")
    # everything else has no published number: Fig. 4, Figs. 2-3 and the text print none
    printed = set(EXISTING[:6])
    for text, grade in grades.items():
        if text not in printed:
            assert grade.startswith("not testable"), (text, grade)
    fig = next(g for t, g in grades.items() if t.startswith("Fig. 2: a tree's classical"))
    assert "Figs. 2–3 print no numbers" in fig


# -- Fig. 4's new kinds, on hand-made trials ---------------------------------------------------------------------
def trials(leaves: dict[str, dict[str, float]], accuracy: dict[str, dict[str, float]] | None = None,
           spread: dict[str, float] | None = None, folds: int = 10) -> pd.DataFrame:
    """Fold values per dataset and algorithm: leaves around the given means (± ``spread`` share), accuracy too."""
    rows = []
    for d, by_alg in leaves.items():
        for a, mean in by_alg.items():
            for fold in range(folds):
                wobble = (spread or {}).get(a, 0.05) * (1 if fold % 2 else -1) * (1 + fold % 3)
                acc = (accuracy or {}).get(d, {}).get(a, 0.8) + 0.002 * (fold % 3 - 1)
                rows.append(dict(dataset=d, algorithm=a, repeat=0, fold=fold, status="ok",
                                 n_leaves=mean * (1 + wobble), accuracy=acc, error=1 - acc))
    return pd.DataFrame(rows)


DATASETS = ("lymph", "yeast", "diabetes", "wine", "zoo", "ecoli")


def test_similar_size_holds_within_the_factor_and_fails_beyond_it():
    near = trials({d: {"pitree": 20 + i, "pruntree": 22 + i} for i, d in enumerate(DATASETS)})
    out = SimilarSizeClaim("similar", "pitree", "pruntree").evaluate(pd.DataFrame(), near)
    assert out.verdict == "reproduced" and out.literal is True
    assert out.effect.margin == pytest.approx(np.log(1.5)) and "factor of 1.5" in out.effect.margin_source
    expected = np.mean([np.log((20 + i) / (22 + i)) for i in range(6)])
    assert out.effect.ours == pytest.approx(expected, abs=1e-3)
    far = trials({d: {"pitree": 60 + i, "pruntree": 20 + i} for i, d in enumerate(DATASETS)})
    out = SimilarSizeClaim("similar", "pitree", "pruntree").evaluate(pd.DataFrame(), far)
    assert out.verdict == "not reproduced" and out.literal is False
    no_sizes = far.drop(columns=["n_leaves"])
    assert SimilarSizeClaim("s", "pitree", "pruntree").evaluate(pd.DataFrame(), no_sizes).verdict.startswith(
        "not testable (no n_leaves in the trials")


def test_size_differs_counts_only_the_pairs_whose_sizes_differ():
    leaves = {d: {"pitree": 20, "pruntree": 40, "j48": 20.5} for d in DATASETS}
    better = {d: {"pitree": 0.85, "pruntree": 0.80, "j48": 0.95} for d in DATASETS}
    claim = SizeDiffersClaim("differs", "pitree", ("pruntree", "j48"))
    # J4.8's leaves move against ΠTree's over the folds: the same size up to noise
    noisy = {"j48": -0.05, "pruntree": -0.05}
    out = claim.evaluate(pd.DataFrame(), trials(leaves, better, noisy))
    # J4.8's sizes are ΠTree's (its lower accuracy there does not count); PrunTree's differ on every dataset
    assert len(out.details) == 6 and all("/ pruntree" in d for d in out.details)
    assert out.effect.holds == 6 and out.effect.fails == 0 and out.verdict == "reproduced"
    worse = {d: {"pitree": 0.75, "pruntree": 0.80, "j48": 0.95} for d in DATASETS}
    out = claim.evaluate(pd.DataFrame(), trials(leaves, worse, noisy))
    assert out.effect.fails == 6 and out.verdict == "reversed" and out.literal is False
    same = {d: {"pitree": 20, "pruntree": 20.5, "j48": 20.5} for d in DATASETS}
    assert claim.evaluate(pd.DataFrame(), trials(same, better, noisy)).verdict.startswith("not testable (no dataset")


def test_stability_compares_the_spread_over_the_folds():
    leaves = {d: {"o-pitree": 50, "pitree": 20} for d in DATASETS}
    shaky = trials(leaves, spread={"o-pitree": 0.2, "pitree": 0.02})
    claim = StabilityClaim("less stable", "o-pitree", "pitree")
    out = claim.evaluate(pd.DataFrame(), shaky)
    assert out.effect.holds == 6 and out.verdict == "reproduced"
    steady = trials(leaves, spread={"o-pitree": 0.02, "pitree": 0.2})
    out = claim.evaluate(pd.DataFrame(), steady)
    assert out.effect.fails == 6 and out.verdict == "reversed"
    # the coefficient of variation is the population std over the mean of the fold values
    sub = shaky[(shaky["dataset"] == "wine") & (shaky["algorithm"] == "o-pitree")]["n_leaves"]
    wine = next(d for d in claim.evaluate(pd.DataFrame(), shaky).details if d.startswith("wine"))
    assert f"o-pitree {sub.std(ddof=0) / sub.mean():.2f}" in wine


# -- Figs. 2-3 as graded claims, on hand-made random trees ---------------------------------------------------------
def random_frame(h_shape: str = "valley", entropy_sign: float = -1.0, accuracy_sign: float = -1.0,
                 low_end: str = "drop", reps: int = 40, seed: int = 0) -> pd.DataFrame:
    """Random trees with the shapes the statements describe (or their opposites)."""
    rng = np.random.default_rng(seed)
    rows = []
    for rep in range(reps):
        for tree in range(10):
            leaves = int(rng.integers(1, 201))
            entropy = 2.0 + entropy_sign * 0.008 * leaves + rng.normal(0, 0.05)
            # accuracy rises as log entropy falls, except over the lowest entropies (over-fitting) with "drop"
            accuracy = 0.6 - 0.1 * (entropy - 0.4)
            if low_end == "drop" and entropy < 0.9:
                accuracy = 0.6 - 0.1 * (0.9 - 0.4) - 0.1 * (0.9 - entropy)
            rows.append(dict(repetition=rep, tree=tree, rule="log", n_leaves=leaves, entropy=entropy, h_star=1.0,
                             h_star_weighted=1.0, accuracy=accuracy + rng.normal(0, 0.01), train_accuracy=0.9))
            h = (0.3 + 1e-5 * (leaves - 70) ** 2) if h_shape == "valley" else 0.3 + 0.001 * leaves
            h += rng.normal(0, 0.002)
            rows.append(dict(repetition=rep, tree=tree, rule="possibilistic", n_leaves=leaves, entropy=entropy,
                             h_star=0.7 * leaves, h_star_weighted=h,
                             accuracy=0.5 + accuracy_sign * (h - 0.3) + rng.normal(0, 0.01), train_accuracy=0.9))
    return pd.DataFrame(rows)


def stored(folder, frame: pd.DataFrame, settings: dict | None = None):
    folder.mkdir(parents=True, exist_ok=True)
    frame.to_csv(folder / "random_trees.csv", index=False)
    (folder / "random_trees.json").write_text(json.dumps({"settings": settings or expected_settings()}))
    return folder


RERUN = pd.DataFrame([dict(dataset="yeast", algorithm="pitree", repeat=0, fold=0, status="ok", accuracy=0.5,
                           n_leaves=20)])


@pytest.mark.parametrize("statistic", ["entropy_falls", "h_star_valley", "log_plateau", "h_star_accuracy"])
def test_each_figure_statement_holds_on_its_shape_and_fails_on_the_opposite(tmp_path, statistic):
    good = stored(tmp_path / "good", random_frame())
    bad = stored(tmp_path / "bad", random_frame(h_shape="rise", entropy_sign=1.0, accuracy_sign=1.0,
                                                low_end="rise"))
    held = RandomTreesClaim("c", statistic, str(good)).evaluate(pd.DataFrame(), RERUN)
    assert held.verdict == "reproduced" and held.effect.low > 0 and held.literal is True
    failed = RandomTreesClaim("c", statistic, str(bad)).evaluate(pd.DataFrame(), RERUN)
    assert failed.verdict == "reversed" and failed.effect.high < 0 and failed.literal is False


def test_the_figure_statistics_are_the_plain_computations():
    trees = random_frame()
    log, pos = trees[trees["rule"] == "log"], trees[trees["rule"] == "possibilistic"]
    rho = spearmanr(log["n_leaves"], log["entropy"])[0]
    assert resampled(trees, "entropy_falls", "h_star_weighted", 200, resamples=50)[0] == pytest.approx(-rho)
    rho = spearmanr(pos["h_star_weighted"], pos["accuracy"])[0]
    assert resampled(trees, "h_star_accuracy", "h_star_weighted", 200, resamples=50)[0] == pytest.approx(-rho)
    early, late = pos[pos["n_leaves"] <= 200 / 3], pos[pos["n_leaves"] >= 400 / 3]
    slopes = [np.polyfit(p["n_leaves"], p["h_star_weighted"], 1)[0] for p in (early, late)]
    valley = resampled(trees, "h_star_valley", "h_star_weighted", 200, resamples=50)[0]
    assert valley == pytest.approx(100 * min(-slopes[0], slopes[1]))
    low = log[log["entropy"] <= np.quantile(log["entropy"], 0.2)]
    plateau = resampled(trees, "log_plateau", "h_star_weighted", 200, resamples=50)[0]
    assert plateau == pytest.approx(np.polyfit(low["entropy"], 100 * low["accuracy"], 1)[0])


def test_the_figure_statements_say_why_they_are_not_graded(tmp_path):
    claim = RandomTreesClaim("c", "entropy_falls", str(tmp_path / "none"))
    assert claim.evaluate(pd.DataFrame(), RERUN).verdict.startswith("not testable (the random trees are not in")
    other = stored(tmp_path / "other", random_frame(), {**expected_settings(), "n_repetitions": 3})
    assert RandomTreesClaim("c", "entropy_falls", str(other)).evaluate(pd.DataFrame(), RERUN).verdict.startswith(
        "not testable (the random trees in")
    # the paper's table as trials has no trees: the figures' own grade is never ours again
    good = stored(tmp_path / "good", random_frame())
    table = RERUN.drop(columns=["n_leaves"])
    assert "print no numbers" in RandomTreesClaim("c", "entropy_falls", str(good)).evaluate(
        pd.DataFrame(), table).verdict


def test_the_printed_reading_of_eq18_is_shown_beside_the_weighted_one(tmp_path):
    good = stored(tmp_path / "good", random_frame())
    out = RandomTreesClaim("c", "h_star_accuracy", str(good)).evaluate(pd.DataFrame(), RERUN)
    assert out.details and out.details[0].startswith("eq. 18 as printed")


def test_a_first_report_grades_the_figures_the_section_has_just_made(tmp_path, monkeypatch):
    """The claims are judged after the sections: the random trees the section writes are graded at once."""
    from test_random_trees import toy
    from test_report_reproduce import fake_000

    from treebench.papers.serrurier2015.random_trees import VERSION, RandomTreeSettings
    from treebench.report.reproduce import build_report

    options = {"n_repetitions": 6, "n_trees": 4, "max_leaves": 24}
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(figure_claims, "expected_settings", lambda: {
        **RandomTreeSettings(**options).as_dict(), "version": VERSION, "dataset": "custom"})
    out = tmp_path / "another-out-dir"  # not results/serrurier2015: the claims read the report's own folder
    rep = build_report(SPEC, fake_000(("lymph",)), load_reference(SPEC.reference), out, figures=False,
                       extras={"random_trees": {"dataset": toy(n=200), "n_jobs": 1, **options}})
    figs = [c for c in rep.claims if c.location.startswith("Section 5, Fig.")]
    assert len(figs) == 4
    assert all(not c.verdict.startswith("not testable") for c in figs), [c.verdict for c in figs]


# -- causes of the misses ----------------------------------------------------------------------------------------
def test_a_statement_with_a_located_cause_is_no_open_question():
    from types import SimpleNamespace

    from treebench.report.misses import explained_claims, open_questions
    from treebench.report.verdicts import claim_record

    caused = [s for s in SPEC.claims if s.cause]
    assert [s.text for s in caused] == [EXISTING[7], EXISTING[8]]
    assert all("investigations/opitree_tiny_leaves.py" in s.cause and "minleaf" in s.cause for s in caused)
    leaves = trials({d: {"o-pitree": 60, "pitree": 20, "logtree": 40, "pruntree": 25, "j48": 22} for d in DATASETS})
    outcomes = [s.evaluate(pd.DataFrame(), leaves) for s in SPEC.claims if s.location.startswith(("Fig. 4", "Sect"))
                and s.claim is not None and s.claim.__class__.__name__ in ("FewCasesLargestClaim", "FewerClaim")]
    assert [o.verdict.split(" (")[0] for o in outcomes] == ["reversed", "reversed"]
    rep = SimpleNamespace(cells=pd.DataFrame(), claims=outcomes)
    assert open_questions(rep) == []
    assert len(explained_claims(rep)) == 2 and all("reversed — reading (minimum leaf)" in x
                                                   for x in explained_claims(rep))
    assert claim_record(outcomes[0])["cause"] == caused[0].cause
    bare = [SimpleNamespace(**{**vars(o), "cause": ""}) for o in outcomes]
    assert len(open_questions(SimpleNamespace(cells=pd.DataFrame(), claims=bare))) == 2


def test_a_cause_on_an_agreeing_cell_is_flagged_stale(tmp_path):
    from treebench.report.causes import load_causes
    from treebench.report.cells import compare_cells
    from treebench.report.reproduce import with_causes

    registry = tmp_path / "causes.yaml"
    registry.write_text("causes:\n  - {dataset: wine, algorithm: pitree, kind: tie rule, text: a rule, "
                        "source: {kind: measurement, where: here}}\n")
    reference = load_reference(SPEC.reference)
    wine = reference[(reference["dataset"] == "wine") & (reference["algorithm"] == "pitree")].iloc[0]
    rows = [dict(dataset="wine", algorithm="pitree", repeat=0, fold=f, status="ok", accuracy=wine["value"] / 100,
                 error=1 - wine["value"] / 100) for f in range(10)]
    cells = with_causes(compare_cells(reference, pd.DataFrame(rows)), load_causes(registry))
    cell = cells[(cells["dataset"] == "wine") & (cells["algorithm"] == "pitree")].iloc[0]
    assert bool(cell["agrees"]) and cell["cause"].startswith("stale (the cell agrees with the paper):")
    assert load_causes(SPEC.causes).causes == ()  # 000's only cell cause was such a stale one (wine, O-ΠTree)
