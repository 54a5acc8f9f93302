"""Reproduction report built from a small fake frame and the real reference CSVs,
and the ``reproduce`` command while no paper config exists."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from treebench.cli import cli
from treebench.papers.catalogue import PAPERS, get_paper
from treebench.report.cells import compare_cells
from treebench.report.reference import load_reference
from treebench.report.reproduce import build_report, report_markdown, write_report


def fake_000(datasets=("lymph", "yeast", "diabetes", "wine")) -> pd.DataFrame:
    """10 folds per cell, centred on the published means (with noise), for some of 000's datasets."""
    ref = load_reference("000_serrurier2015_table1.csv")
    rng = np.random.default_rng(5)
    rows = []
    for r in ref[ref["dataset"].isin(datasets)].itertuples():
        for fold in range(10):
            acc = r.value / 100 + rng.normal(0, r.std / 100)
            leaves = {"logtree": 60, "pruntree": 25, "pitree": 20, "o-pitree": 30, "j48": 22}[r.algorithm]
            rows.append(dict(dataset=r.dataset, algorithm=r.algorithm, protocol="cv10x1", repeat=0, fold=fold,
                             status="ok", accuracy=acc, error=1 - acc, n_leaves=leaves + fold % 3, n_nodes=0,
                             params=json.dumps({"gamma": 0.05}), n_train=90, n_test=10))
    return pd.DataFrame(rows)


def test_cells_line_up_with_the_reference():
    ref = load_reference("000_serrurier2015_table1.csv")
    frame = fake_000(("lymph", "yeast"))
    cells = compare_cells(ref, frame)
    assert len(cells) == len(ref) == 80
    done = cells[cells["status"] == "ok"]
    assert set(done["dataset"]) == {"lymph", "yeast"} and len(done) == 10
    row = done[(done["dataset"] == "yeast") & (done["algorithm"] == "pitree")].iloc[0]
    sub = frame[(frame["dataset"] == "yeast") & (frame["algorithm"] == "pitree")]
    assert row["ours"] == pytest.approx(100 * sub["accuracy"].mean())
    assert row["diff"] == pytest.approx(row["ours"] - 57.1)
    assert row["within_std"] == (abs(row["diff"]) <= 3.4)
    assert set(cells.loc[cells["status"] != "ok", "status"]) == {"not run"}


def test_report_for_paper_000_from_a_fake_frame(tmp_path):
    spec = get_paper("serrurier2015")
    rep = build_report(spec, fake_000(), load_reference(spec.reference), tmp_path)
    by_text = {c.text: c for c in rep.claims}
    w = by_text["ΠTree beats LogTree (Wilcoxon over datasets)"]
    assert w.paper == "significant"
    assert "over 16 datasets" in w.paper_numbers  # the claim recomputed on the published numbers
    assert "over 4 datasets" in w.ours and w.literal is not None
    most = by_text["LogTree always produces the most complex trees (Fig. 4)"]
    assert most.ours == "largest on 4 of 4 datasets" and most.literal is True
    paths = write_report(rep, tmp_path, config="configs/serrurier2015.yaml", store="results/x.sqlite")
    md = paths[0].read_text(encoding="utf-8")
    assert "| YEAST | PTREE | 57.1 ± 3.4 |" in md
    assert "## The paper's conclusions, recomputed" in md and "![" in md
    for _, path in rep.figures:
        assert path.exists() and path.with_suffix(".svg").exists()
    assert {f.name for f, _ in rep.figures} == {"leaves", "cd"}
    assert (tmp_path / "report.tex").read_text().startswith(r"\documentclass")


def test_report_for_paper_001_recomputes_the_bold_and_underline_marks(tmp_path):
    spec = get_paper("mee")
    ref = load_reference(spec.reference)
    rng = np.random.default_rng(2)
    rows = []
    for r in ref[ref["dataset"].isin(["olive", "breast-tissue4"])].itertuples():
        for fold in range(25):
            err = max(0.0, r.value + rng.normal(0, r.std))
            rows.append(dict(dataset=r.dataset, algorithm=r.algorithm, repeat=0, fold=fold, status="ok",
                             accuracy=1 - err, error=err))
    rep = build_report(spec, pd.DataFrame(rows), ref, tmp_path, figures=False)
    claim = rep.claims[0]
    assert claim.ours.startswith("same marks on") and claim.ours.endswith("of 2 datasets")
    assert any(d.startswith("Olive: paper best cart / worst mee") for d in claim.details)
    md = report_markdown(rep)
    assert "0.0962 ± 0.0120 (bold)" in md


def test_nothing_run_yet_gives_a_readable_report(tmp_path):
    spec = get_paper("certainty")
    empty = pd.DataFrame(columns=["dataset", "algorithm", "status", "accuracy", "error"])
    rep = build_report(spec, empty, load_reference(spec.reference), tmp_path)
    md = report_markdown(rep)
    assert "not run" in md and "no dataset" in md
    assert all(c.literal is None for c in rep.claims)


def test_every_paper_has_a_reference_file_with_its_algorithms():
    for spec in PAPERS.values():
        ref = load_reference(spec.reference)
        assert (ref["paper"] == spec.number).all()
        names = set(ref["algorithm"])
        for claim in spec.claims:
            for attr in ("a", "b"):
                if hasattr(claim, attr):
                    assert getattr(claim, attr) in names, (spec.key, claim)


def test_reproduce_without_a_config_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # no paper's config here: the folder is wrong, which is what the line says (not "no config yet")
    result = CliRunner().invoke(cli, ["reproduce", "tsallis"])
    assert result.exit_code != 0
    assert str(result.exception) == (f"tsallis's config 'configs/tsallis.yaml' is not in this folder ({tmp_path}), "
                                     "nor any paper's; accepted: run it from the folder holding configs/ (the "
                                     "repository's root)")
    # another paper's config is here: this one has none yet
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "mee.yaml").write_text("experiment: mee\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["reproduce", "tsallis"])
    assert result.exit_code != 0
    assert "no config for tsallis yet (configs/tsallis.yaml)" in str(result.exception)
    assert "results/reference/002_tsallis_table2.csv" in str(result.exception)
    result = CliRunner().invoke(cli, ["reproduce", "nope"])
    assert f"accepted: {', '.join(PAPERS)}" in str(result.exception)


def test_qualitative_claims_have_no_invented_numbers():
    ref = load_reference("003_certainty_errors.csv")
    assert not set(ref["dataset_label"]) & {"Monks-1", "Monks-2", "Optdigits", "Pendigits"}
    assert not any(math.isnan(v) for v in ref["value"])
    assert Path("results/reference/README.md").exists() or (Path(__file__).parents[1] / "results/reference/README.md").exists()


def test_no_difference_claims_fail_on_a_difference_in_either_direction():
    import pandas as pd

    from treebench.report.claims import WilcoxonClaim

    datasets = [f"d{i}" for i in range(12)]
    rows = []
    for i, name in enumerate(datasets):
        # paper: a and b alternate (no difference); ours: b wins everywhere
        rows.append({"dataset_label": name, "algorithm": "a", "metric": "accuracy", "value": 80 + (i % 2), "ours": 70.0 + i * 0.1, "status": "ok"})
        rows.append({"dataset_label": name, "algorithm": "b", "metric": "accuracy", "value": 80 + ((i + 1) % 2), "ours": 80.0 + i * 0.2, "status": "ok"})
    cells = pd.DataFrame(rows)
    same = WilcoxonClaim("a vs b: no difference", "a", "b", "accuracy", False).evaluate(cells, pd.DataFrame())
    assert same.literal is False and "significant, b better" in same.ours
    beats = WilcoxonClaim("a beats b", "a", "b", "accuracy", True).evaluate(cells, pd.DataFrame())
    assert beats.literal is False
    reverse = WilcoxonClaim("b beats a", "b", "a", "accuracy", True).evaluate(cells, pd.DataFrame())
    assert reverse.literal is True and "significant, b better" in reverse.ours


def test_every_claim_of_every_paper_gets_a_verdict_in_both_views(tmp_path):
    from treebench.report.claims import GRADES

    empty = pd.DataFrame(columns=["dataset", "algorithm", "status", "accuracy", "error"])
    for spec in PAPERS.values():
        rep = build_report(spec, empty, load_reference(spec.reference), tmp_path, figures=False)
        assert rep.calibration is not None
        for c in rep.claims:
            assert c.verdict.startswith("not testable (") and c.verdict_calibrated.startswith("not testable ("), c
    spec = get_paper("serrurier2015")
    rep = build_report(spec, fake_000(), load_reference(spec.reference), tmp_path, figures=False)
    # the fake cells sit near the published means, so the baselines calibrate all four datasets
    assert [r.label for r in rep.calibration.calibrated] == ["LYMPH", "YEAST", "DIABETES", "WINE2"]
    for statement, c in zip(spec.claims, rep.claims):
        assert c.effect.grade in GRADES and c.calibrated.grade in GRADES
        # graded from the trials: not the text's untestable statements, nor Figs. 2-3's random trees (a section's)
        if getattr(statement, "claim", statement) is not None and not c.location.startswith("Section 5, Fig."):
            assert not c.verdict.startswith("not testable"), c.verdict
    wilcoxon = [c.effect.test for c in rep.claims if c.effect.test is not None and c.effect.test.family]
    assert len(wilcoxon) == 5 and all(t.ours_p_holm >= t.ours_p for t in wilcoxon)
    md = report_markdown(rep)
    assert "| LYMPH | calibrated | 3 of 3 |" in md and "Wilcoxon signed-rank over datasets: ours p = " in md
