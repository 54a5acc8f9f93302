"""Paper 004 (belief): readings over the simulated `confused` share, the fold-tested claims, C4.5."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from treebench.papers import get_paper
from treebench.papers.belief.spec import ALGORITHMS, C45_CLAIM, DEFAULT_CONFUSED, OTHER_CONFUSED
from treebench.papers.belief.tables import belief_section
from treebench.papers.reproduce import reading_configs
from treebench.report.claims import NOT_REPRODUCED, REPRODUCED, REVERSED, FoldsClaim
from treebench.report.reference import load_reference
from treebench.report.reproduce import build_report, report_markdown
from treebench.report.verdicts import views

ROOT = Path(__file__).resolve().parents[1]
SPEC = get_paper("belief")
DATASETS = ("diabetes", "sonar", "wdbc")


def _yaml(path: str) -> dict:
    return yaml.safe_load((ROOT / path).read_text())


# -- the readings ------------------------------------------------------------------------------
def test_one_reading_per_other_confused_share_each_with_its_config():
    assert [r.name for r in SPEC.readings] == [f"confused = {s}" for s in OTHER_CONFUSED]
    assert reading_configs(SPEC) == [Path(f"configs/belief-confused-{s}.yaml") for s in OTHER_CONFUSED]
    assert all(r.rename == {a: a for a in ALGORITHMS} for r in SPEC.readings)
    assert "at least one expert" in SPEC.default_reading and f"confused = {DEFAULT_CONFUSED:g}" in SPEC.default_reading


def test_reading_configs_differ_from_the_papers_only_in_confused():
    default = _yaml(SPEC.config)
    assert tuple(a["name"] for a in default["algorithms"]) == ALGORITHMS
    assert default["label_uncertainty"]["confused"] == DEFAULT_CONFUSED
    assert {"name": "c4.5", "baseline": "c4.5"} in default["algorithms"]
    shares = {DEFAULT_CONFUSED}
    for reading in SPEC.readings:
        other = _yaml(reading.config)
        shares.add(other["label_uncertainty"]["confused"])
        assert other["store"] != default["store"] and other["experiment"] != default["experiment"]
        for key in ("seed", "datasets", "protocol", "tuning", "algorithms", "metrics"):
            assert other[key] == default[key], (reading.config, key)
        lu = dict(other["label_uncertainty"], confused=DEFAULT_CONFUSED)
        assert lu == default["label_uncertainty"]
    assert shares == {0, 0.1, 0.2, 0.3}


def test_the_default_share_comes_closest_to_the_texts_k_complex_class():
    """Section 4: the K-complex class is every pattern some expert named, half without a majority."""
    from treebench.data.label_uncertainty import LabelUncertainty, simulate_label_masses

    y = np.array([0] * 500 + [1] * 268)  # diabetes' classes
    no_majority = {}
    for share in (0.0, 0.1, 0.2, 0.3):
        shares = []
        for seed in range(5):
            masses, labels = simulate_label_masses(y, LabelUncertainty(confused=share), np.random.default_rng(seed))
            shares.append(float(np.mean(masses[labels == 1, 1] < 0.5)))
        no_majority[share] = float(np.mean(shares))
    assert no_majority[0.0] < 0.1  # the crisp class 1 almost all majority-named: not the paper's set
    assert sorted(no_majority, key=lambda s: abs(no_majority[s] - 0.5))[0] == DEFAULT_CONFUSED


# -- FoldsClaim ---------------------------------------------------------------------------------
def _frame(delta_e: float, delta_c45: float, noise: float = 0.002, folds: int = 5) -> pd.DataFrame:
    """belief-uncertain = belief-crisp - delta_e on E; c4.5 = belief-crisp + delta_c45 on the error rate."""
    rng = np.random.default_rng(4)
    rows = []
    for i, ds in enumerate(DATASETS):
        for fold in range(folds):
            err = 0.2 + 0.02 * i + rng.normal(0, 0.01)
            e = 0.25 + rng.normal(0, 0.01)
            values = {"belief-crisp": (err, e), "belief-uncertain": (err - 0.005, e - delta_e + rng.normal(0, noise)),
                      "entropy": (err + 0.01, math.nan), "c4.5": (err + delta_c45 + rng.normal(0, noise), math.nan)}
            for alg, (error, pign) in values.items():
                rows.append(dict(dataset=ds, algorithm=alg, repeat=0, fold=fold, status="ok", error=error,
                                 accuracy=1 - error, pignistic_error=pign, n_leaves=8 + fold, depth=3,
                                 n_train=80, n_test=20, chosen='{"lam": 0.4}' if alg.startswith("belief") else ""))
    return pd.DataFrame(rows)


def _claims(frame: pd.DataFrame, tmp_path) -> list:
    return build_report(SPEC, frame, load_reference(SPEC.reference), tmp_path, figures=False).claims


def test_significantly_lower_e_is_tested_over_each_datasets_folds(tmp_path):
    frame = _frame(delta_e=0.04, delta_c45=0.0)
    _, e_claim = _claims(frame, tmp_path)
    effect = e_claim.effect
    assert effect.paper == pytest.approx(0.04) and effect.n_paper == 1  # Table 1: 0.26 -> 0.22
    assert effect.ours == pytest.approx(0.04, abs=0.005) and effect.n_datasets == len(DATASETS)
    assert e_claim.verdict == REPRODUCED and e_claim.literal is True
    test = effect.test
    assert "paired t-test over each dataset's outer folds" in test.name and "our choice" in test.name
    assert [u for u, _, _ in test.parts] == list(DATASETS)
    assert all(q <= 0.05 for _, _, q in test.parts)
    assert "3 after Holm" in str(test)
    # the C4.5 claim is a "no difference" claim: the interval holds 0, no dataset differs
    c45_claim = C45_CLAIM.evaluate(pd.DataFrame(), frame)
    assert c45_claim.effect.null and c45_claim.verdict == REPRODUCED and c45_claim.literal is True
    assert c45_claim.effect.paper_source.startswith("stated")


def test_no_gain_in_e_is_not_reproduced_and_a_loss_is_reversed(tmp_path):
    _, flat = _claims(_frame(delta_e=0.0, delta_c45=0.0, noise=0.01), tmp_path)
    assert flat.verdict == NOT_REPRODUCED and flat.literal is False
    worse_frame = _frame(delta_e=-0.05, delta_c45=0.08)
    _, worse = _claims(worse_frame, tmp_path)
    c45 = C45_CLAIM.evaluate(pd.DataFrame(), worse_frame)
    # the paper names no test, so the verdict grades the effect: its interval lies wholly below 0; the fold
    # tests (ours, one-sided in the claim's direction: behind gives p = 1) are a second view
    assert worse.verdict == REVERSED and worse.effect.high < 0
    assert all(p == 1.0 for _, p, _ in worse.effect.test.parts)  # behind: no evidence for the claim
    assert views(worse.effect) == {"every unit after Holm": NOT_REPRODUCED,
                                   "our test, majority of units": NOT_REPRODUCED}
    assert c45.verdict == NOT_REPRODUCED and c45.literal is False  # C4.5 clearly worse: not "equivalent"


def test_folds_claim_without_the_algorithms_is_not_testable():
    claim = FoldsClaim("x", "belief-crisp", "c4.5", "error", significant=False)
    frame = _frame(0.04, 0.0)
    out = claim.evaluate(pd.DataFrame(columns=["metric"]), frame[frame["algorithm"] != "c4.5"])
    assert out.verdict == "not testable (c4.5 not run)"


# -- the section and the report -------------------------------------------------------------------
def test_the_section_sets_the_papers_c45_sentence_beside_ours_under_each_reading():
    same, worse = _frame(0.04, 0.0), _frame(0.04, 0.08)
    outcomes = {"default": C45_CLAIM.evaluate(pd.DataFrame(), same),
                "confused = 0": C45_CLAIM.evaluate(pd.DataFrame(), worse)}
    text = "\n".join(belief_section(same, outcomes).markdown)
    assert "Quinlan's C4.5 algorithm (not shown in Table 1)" in text
    assert "| dataset | error % belief (crisp) | error % C4.5 |" in text
    assert "No significant difference at 0.05 on 3 of 3 datasets." in text
    assert f"| 3 | {REPRODUCED} | 0 of 3 (0 after Holm) |" in text
    assert "| confused = 0 | +8.1 [+8.0, +8.2] |" in text and f"| 3 | {NOT_REPRODUCED} | 3 of 3 (3 after Holm) |" in text


def test_report_judges_every_confused_reading(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no reading store on disk: the section judges C4.5 on the default only
    sources = {r.name: _frame(0.04 if r.name != "confused = 0" else 0.0, 0.0, noise=0.01) for r in SPEC.readings}
    rep = build_report(SPEC, _frame(0.04, 0.0), load_reference(SPEC.reference), tmp_path, figures=False,
                       extras=True, reading_sources=sources)
    assert [r.status for r in rep.readings] == ["ok"] * len(OTHER_CONFUSED)
    zero = rep.readings[0]
    assert zero.claims[1].verdict == NOT_REPRODUCED and rep.claims[1].verdict == REPRODUCED
    md = report_markdown(rep)
    assert "## Readings" in md and "confused = 0.1" in md and "Default reading: confused = 0.3" in md
    assert "| default (confused = 0.3) |" in md  # the C4.5 claim, in the section


def test_tiny_run_gives_c45_the_simulated_crisp_labels(tmp_path):
    """A belief config's baseline trains and is scored on the simulated crisp labels, not the data's."""
    from treebench.experiment.runner import run_experiment
    from treebench.experiment.store import ResultsStore

    config = tmp_path / "belief.yaml"
    body = ("seed: 3\ndatasets: [wdbc]\nprotocol: {type: cv, folds: 2, repeats: 1}\n"
            "algorithms:\n  - {name: c4.5, baseline: c4.5}\nmetrics: [error]\n")
    errors = {}
    for name, extra in (("plain", ""), ("noisy", "label_uncertainty: {uncertain_class: 1, share: 0.5, "
                                                   "confused: 0.5, experts: [0.5, 0.5, 0.5]}\n")):
        config.write_text(f"experiment: belief-c45-{name}\n" + extra + body)
        store_path = tmp_path / f"{name}.sqlite"
        summary = run_experiment(config, store_path=store_path, quiet=True, echo=lambda line: None, jobs=1)
        assert (summary.done, summary.failed) == (2, 0)
        with ResultsStore(store_path) as store:
            frame = store.to_frame()
        errors[name] = float(frame["error"].mean())
    assert errors["noisy"] > errors["plain"] + 0.1  # ~44 % of class 0 relabelled 1 at random
