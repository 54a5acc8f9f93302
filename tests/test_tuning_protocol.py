"""The tuning options of issue 39 (finding 3): ``tuning.ties`` and an algorithm's ``tune_on: test``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from badinput import GOOD_CONFIG, CliCase, case_tests

from treebench.experiment.config import parse_config
from treebench.experiment.runner import plan, trees_per_trial
from treebench.experiment.specs import TuningSpec
from treebench.experiment.trial import load_data, make_learner, outer_split, run_trial
from treebench.experiment.tuning import GridScore, best_index

ALGORITHM = "{name: entropy, criterion: entropy, params: {max_depth: 2}}"
GRID = "{name: d, criterion: entropy, grid: {max_depth: [1, 2, 3]}}"


def cfg(old: str, new: str) -> str:
    assert old in GOOD_CONFIG, old
    return GOOD_CONFIG.replace(old, new)


CASES = [
    CliCase("unknown tie rule", ("run", "c.yaml"),
            r"tuning\.ties: unknown tie rule 'newest'; accepted: fewest-leaves, first, smallest, largest, middle$",
            files={"c.yaml": GOOD_CONFIG + "tuning: {ties: newest}\n"}),
    CliCase("tie rule not text", ("run", "c.yaml"), r"tuning\.ties: unknown tie rule 1; accepted: fewest-leaves, ",
            files={"c.yaml": GOOD_CONFIG + "tuning: {ties: 1}\n"}),
    CliCase("unknown tune_on", ("run", "c.yaml"),
            r"algorithms\[0\]\.tune_on: unknown tune_on 'tests' \(did you mean test\?\); accepted: inner-cv, test$",
            files={"c.yaml": cfg(ALGORITHM, GRID[:-1] + ", tune_on: tests}")}),
    CliCase("tune_on test without a grid", ("run", "c.yaml"),
            r"algorithms\[0\]\.tune_on: tune_on: test chooses among grid values; add a 'grid' or remove it",
            files={"c.yaml": cfg(ALGORITHM, ALGORITHM[:-1] + ", tune_on: test}")}),
    CliCase("tune_on beside tune_as", ("run", "c.yaml"),
            r"algorithms\[1\]\.tune_on: an algorithm with tune_as is tuned where its tuner is; remove tune_on$",
            files={"c.yaml": cfg(ALGORITHM,
                                 GRID + "\n  - {name: r, criterion: gain_ratio, tune_as: d, tune_on: test}")}),
]
test_cli_bad_input, _ = case_tests(CASES)  # no API cases


# --------------------------------------------------------------------------- tie rules
def _scores(correct: list[int], leaves: list[int], values: list[float]) -> list[GridScore]:
    return [GridScore({"q": v}, c, 100, n) for c, n, v in zip(correct, leaves, values)]


def test_tie_rules_pick_among_equal_scores_only():
    # listed out of value order, so "first" and "smallest" differ; point 1 has fewer correct and never wins
    scores = _scores([9, 8, 9, 9, 9], [5, 1, 3, 3, 7], [2.0, 0.5, 3.0, 0.1, 1.0])
    assert best_index(scores) == 2  # most correct, then fewest leaves (3), then the first of those
    assert best_index(scores, ties="fewest-leaves") == 2
    assert best_index(scores, ties="first") == 0
    assert best_index(scores, ties="smallest") == 3
    assert best_index(scores, ties="largest") == 2
    assert best_index(scores, ties="middle") == 4  # tied values 0.1, 1.0, 2.0, 3.0: the lower median is 1.0
    lone = _scores([1, 9, 1], [1, 9, 1], [1.0, 2.0, 3.0])
    assert {best_index(lone, ties=t) for t in ("fewest-leaves", "first", "smallest", "largest", "middle")} == {1}


def test_tie_rules_on_another_metric_compare_values():
    scores = [GridScore({"c": v}, 0, 10, 1, value) for v, value in ((0.1, 0.5), (0.2, 0.7), (0.3, 0.7))]
    assert best_index(scores, True, "smallest") == 1 and best_index(scores, True, "largest") == 2
    assert best_index(scores, False, "largest") == 0  # lower is better: 0.5 is the only best


def test_default_tie_rule_keeps_trial_keys():
    assert TuningSpec().fields() == {"folds": 5, "metric": "accuracy"}
    assert TuningSpec(ties="middle").fields()["ties"] == "middle"


# --------------------------------------------------------------------------- tuned on the test split
TEST_TUNED = (
    "experiment: t\nseed: 3\ndatasets: [iris]\nprotocol: {type: cv, folds: 3, repeats: 1}\n"
    "algorithms:\n"
    "  - {name: d, criterion: entropy, grid: {max_depth: [1, 2, 3]}}\n"
    "  - {name: d-test, criterion: entropy, tune_on: test, grid: {max_depth: [1, 2, 3]}}\n"
    "  - {name: r-test, criterion: gain_ratio, tune_as: d-test}\n"
)


def test_tuned_on_test_picks_the_best_test_accuracy_of_the_grid():
    config = parse_config(TEST_TUNED)
    trials = plan(config)
    by = {}
    for trial in trials:
        by.setdefault(trial.fold, {})[trial.algorithm.name] = trial
    for named in by.values():
        result = run_trial(named["d-test"])
        assert result.status == "ok", result.error_text
        # every depth's own final tree on this fold, scored on the test rows
        trial = named["d-test"]
        data = load_data(trial.dataset)
        train, test = outer_split(trial, data)
        learner = make_learner(trial)
        accuracies = []
        for depth in (1, 2, 3):
            model = learner.fit({"max_depth": depth}, data.X.iloc[train], data.y[train])
            accuracies.append(float(np.mean(learner.predict(model, data.X.iloc[test]) == data.y[test])))
        assert result.accuracy == pytest.approx(max(accuracies))
        chosen = json.loads(result.chosen)["max_depth"]
        assert accuracies[chosen - 1] == max(accuracies)
        # the tune_as follower takes the same value, found on the test split when its tuner is not run
        follower = run_trial(named["r-test"])
        assert follower.status == "ok" and json.loads(follower.chosen) == {"max_depth": chosen}
        # the default algorithm's key differs: the diagnostic is never stored as a default trial
        assert named["d"].key != named["d-test"].key


def test_tuned_on_test_counts_one_tree_per_grid_point():
    config = parse_config(TEST_TUNED)
    named = {a.name: a for a in config.algorithms}
    assert trees_per_trial(named["d-test"], 5)[0] == 3
    assert trees_per_trial(named["r-test"], 5)[0] == 3
    assert trees_per_trial(named["d"], 5)[0] == 16
    assert named["d-test"].fields()["tune_on"] == "test" and "tune_on" not in named["d"].fields()


@pytest.mark.parametrize("paper", ["serrurier2015", "tsallis"])
def test_the_test_split_readings_differ_from_the_default_only_in_where_they_tune(paper):
    """Each algorithm of a paper's reading "tuned on the test split" is its default algorithm with
    ``tune_on: test`` (same criterion, params, grid, pruning, online growth), on the paper's splits."""
    from dataclasses import replace as copy
    from pathlib import Path

    from treebench.experiment.config import load_config
    from treebench.papers.catalogue import get_paper

    repo = Path(__file__).resolve().parents[1]
    spec = get_paper(paper)
    main = load_config(repo / "configs" / f"{paper}.yaml")
    reading = next(r for r in spec.readings if r.name == "tuned on the test split (optimistic bound)")
    config = load_config(repo / reading.config) if reading.config else main
    assert (config.seed, config.datasets[0].protocol, config.tuning) == (main.seed, main.datasets[0].protocol,
                                                                          main.tuning)
    ours = {a.name: a for a in config.algorithms}
    defaults = {a.name: a for a in main.algorithms}
    for name, stands_for in reading.rename.items():
        algorithm, default = ours[name], defaults[stands_for]
        assert (algorithm.tune_as or algorithm).tuned_on_test and not (default.tune_as or default).tuned_on_test
        if algorithm.tune_as is None:
            assert copy(algorithm, name=default.name, tune_on="inner-cv") == default
        else:
            assert algorithm.criterion == default.criterion and algorithm.params == default.params
            assert copy(algorithm.tune_as, name=default.tune_as.name, tune_on="inner-cv") == default.tune_as
    assert "optimistic bound" in reading.name and spec.default_reading.count("test split") == 0


@pytest.mark.parametrize("ties, expected", [("fewest-leaves", 20), ("first", 20), ("smallest", 10),
                                            ("largest", 30), ("middle", 20)])
def test_a_configs_tie_rule_reaches_the_trials(ties, expected):
    # depths past the full tree's grow the same tree: every point ties, so the rule alone chooses
    text = (f"experiment: t\nseed: 1\ndatasets: [iris]\nprotocol: {{type: cv, folds: 2, repeats: 1}}\n"
            f"tuning: {{folds: 3, ties: {ties}}}\n"
            "algorithms:\n  - {name: d, criterion: entropy, grid: {max_depth: [20, 10, 30]}}\n")
    trial = plan(parse_config(text))[0]
    assert trial.tuning.ties == ties
    result = run_trial(trial)
    assert result.status == "ok", result.error_text
    assert json.loads(result.chosen) == {"max_depth": expected}  # listed 20, 10, 30: first is not smallest


def test_tuned_on_test_with_another_metric_maximises_it_on_the_test_rows():
    from treebench.stats.prediction_metrics import score_predictions

    text = ("experiment: t\nseed: 5\ndatasets: [wine]\nprotocol: {type: holdout, test_size: 0.3, repeats: 1}\n"
            "tuning: {metric: balanced_accuracy}\n"
            "algorithms:\n  - {name: d, criterion: gini, tune_on: test, grid: {max_depth: [1, 2, 3, 4]}}\n")
    trial = plan(parse_config(text))[0]
    result = run_trial(trial)
    assert result.status == "ok", result.error_text
    data = load_data(trial.dataset)
    train, test = outer_split(trial, data)
    learner = make_learner(trial)
    labels = np.unique(data.y)
    scores = []
    for depth in (1, 2, 3, 4):
        model = learner.fit({"max_depth": depth}, data.X.iloc[train], data.y[train])
        guess = learner.predict(model, data.X.iloc[test])
        scores.append(score_predictions(["balanced_accuracy"], data.y[test], guess, None, labels)["balanced_accuracy"])
    assert scores[json.loads(result.chosen)["max_depth"] - 1] == pytest.approx(max(scores))
