"""Paper 003 (certainty): the excluded KDD file stays out of every count; the seeded-shuffle reading."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from treebench.experiment.config import load_config
from treebench.experiment.protocols import outer_splits
from treebench.papers import get_paper
from treebench.papers.certainty.error_counts import certainty_section
from treebench.papers.reproduce import reading_configs
from treebench.report.reference import load_reference
from treebench.report.reproduce import build_report, report_markdown

ROOT = Path(__file__).resolve().parents[1]
SPEC = get_paper("certainty")
#: The reading of the rows' order (paper.yaml), and the algorithms of configs/certainty.yaml it reruns.
SHUFFLED = next(r for r in SPEC.readings if r.name == "seeded shuffle")
ALGORITHMS = ("certainty", "c50", "c50-pruned", "j48", "gain-ratio", "c4.5")


def _yaml(path: str) -> dict:
    return yaml.safe_load((ROOT / path).read_text())


def test_the_shuffled_reading_is_declared_with_its_own_config():
    assert SPEC.readings[0] == SHUFFLED  # then "no tie-break" (tests/test_certainty_ties.py)
    assert "first 80%" in SPEC.default_reading.replace(" %", "%") and "file order" in SPEC.default_reading
    assert reading_configs(SPEC)[0] == Path("configs/certainty-shuffled.yaml")
    default = _yaml(SPEC.config)
    assert tuple(a["name"] for a in default["algorithms"]) == ALGORITHMS
    assert SHUFFLED.rename == {a: a for a in ALGORITHMS}  # every algorithm rerun under the reading


def test_the_shuffled_config_differs_from_the_papers_only_in_the_split():
    default, shuffled = _yaml(SPEC.config), _yaml(SHUFFLED.config)
    assert default["protocol"] == {"type": "ordered", "train_fraction": 0.8}
    assert shuffled["protocol"] == {"type": "holdout", "test_size": 0.2, "repeats": 5, "stratified": False}
    assert shuffled["store"] != default["store"] and shuffled["experiment"] != default["experiment"]
    same = ("seed", "algorithms", "metrics")
    assert {k: shuffled[k] for k in same} == {k: default[k] for k in same}
    names = [d["name"] if isinstance(d, dict) else d for d in shuffled["datasets"]]
    assert names == default["datasets"]  # the same datasets, in the same order
    # the excluded 494,021-row file, counted nowhere, gets one shuffle instead of five
    assert shuffled["datasets"][0]["protocol"] == {**shuffled["protocol"], "repeats": 1}


def test_the_shuffled_split_is_a_seeded_permutation_cut_80_20():
    protocol = load_config(ROOT / SHUFFLED.config).datasets[0].protocol
    ordered = load_config(ROOT / SPEC.config).datasets[0].protocol
    y = np.array([0] * 300 + [1] * 132)  # sorted, as monks' files are sorted by attribute values
    (train_o, test_o), = outer_splits(ordered, 2016, "monks-1", y, pd.DataFrame(), 0)
    assert list(test_o) == list(range(345, 432))  # file order: the last 87 rows (train = floor(0.8 n))
    tests = []
    for repeat in range(protocol.n_repeats):
        (train, test), = outer_splits(protocol, 2016, "monks-1", y, pd.DataFrame(), repeat)
        assert len(test) == round(0.2 * len(y)) == 86 and len(set(train) | set(test)) == len(y)
        tests.append(frozenset(test))
    assert len(set(tests)) == protocol.n_repeats and frozenset(test_o) not in tests
    (again, _), = outer_splits(protocol, 2016, "monks-1", y, pd.DataFrame(), 0)
    assert list(again) == list(outer_splits(protocol, 2016, "monks-1", y, pd.DataFrame(), 0)[0][0])


def test_monks_in_file_order_tests_a_corner_training_never_saw():
    """The artefact the shuffle removes: monks' last 20 % is a1 = 3, and a1 = a2 = 3 is never trained on."""
    from treebench.data.loader import load

    try:
        data = load("monks-1")
    except Exception as exc:  # noqa: BLE001 - no local copy of the data: nothing to check
        pytest.skip(f"monks-1 not available: {exc}")
    X, k = data.X, int(0.8 * len(data.X))
    train, test = X.iloc[:k], X.iloc[k:]
    assert set(test["a1"].astype(str)) == {"3"}
    corner = (train["a1"].astype(str) == "3") & (train["a2"].astype(str) == "3")
    assert not corner.any()
    unseen = (test["a2"].astype(str) == "3") & (test["a5"].astype(str) != "1")
    assert int(unseen.sum()) == 36  # every learner's 36 test errors on monks-1 in file order


def _trial_rows(errors: dict[tuple[str, str], tuple[int, int]], repeats: int = 1) -> pd.DataFrame:
    rows = []
    for (dataset, algorithm), (train_errors, test_errors) in errors.items():
        for repeat in range(repeats):
            rows.append({"dataset": dataset, "algorithm": algorithm, "status": "ok", "repeat": repeat, "fold": 0,
                         "n_train": 800, "n_test": 200, "train_accuracy": 1 - train_errors / 800,
                         "error": test_errors / 200, "accuracy": 1 - test_errors / 200, "n_leaves": 5, "n_nodes": 9,
                         "depth": 3})
    return pd.DataFrame(rows)


#: certainty wins on monks-1 and wdbc in file order, loses on both after the shuffle; kddcup (excluded)
#: always wins for certainty and must count nowhere.
ORDERED = {("kddcup99-10pct", "certainty"): (2, 100), ("kddcup99-10pct", "c50"): (90, 200),
           ("monks-1", "certainty"): (0, 20), ("monks-1", "c50"): (5, 36),
           ("wdbc", "certainty"): (0, 5), ("wdbc", "c50"): (2, 7)}
SHUFFLED_ERRORS = {**ORDERED, ("monks-1", "certainty"): (9, 20), ("monks-1", "c50"): (5, 10),
                   ("wdbc", "certainty"): (4, 9), ("wdbc", "c50"): (2, 7)}


def test_claims_and_the_shuffled_readings_claims_leave_kddcup_out(tmp_path):
    frame = _trial_rows(ORDERED)
    shuffled = _trial_rows(SHUFFLED_ERRORS, repeats=2)
    # the reading renames only the two algorithms of this toy store (the real one holds all six)
    spec = replace(SPEC, readings=(replace(SHUFFLED, rename={"certainty": "certainty", "c50": "c50"}),))
    rep = build_report(spec, frame, load_reference(SPEC.reference), tmp_path, figures=False,
                       reading_sources={SHUFFLED.name: shuffled})
    trend = [c for c in rep.claims if "trend" in c.text]
    assert trend and all(c.effect.n_datasets == 2 for c in trend)  # monks-1, wdbc: not kddcup
    assert all("kddcup" not in " ".join(c.details) for c in rep.claims)
    (reading,) = rep.readings
    assert reading.status == "ok"
    shuffled_trend = [c for c in reading.claims if "trend" in c.text]
    assert all(c.effect.n_datasets == 2 for c in shuffled_trend)
    assert [c.effect.ours for c in trend] == [1.0, 1.0]
    assert [c.effect.ours for c in shuffled_trend] == [-1.0, -1.0]
    md = report_markdown(rep)
    assert "## Readings" in md and "seeded shuffle" in md and "file order" in md


def test_the_error_section_counts_neither_filter_nor_wins_on_kddcup():
    errors = {**ORDERED, ("monks-1", "certainty"): (0, 80)}  # monks-1 fails the filter (120 right < 3 x 80)
    text = "\n".join(certainty_section(_trial_rows(errors), SPEC.excluded).markdown)
    assert "- The paper's filter keeps 1 of 2 datasets: wdbc." in text
    assert "(`c50`) on 1 of 2 datasets: wdbc." in text
    assert "- Left out of these counts: kddcup99-10pct" in text
