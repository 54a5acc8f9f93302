"""``feature_ties``, ``order`` and ``draw`` in configs: checked up front, part of the trial key only when written."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from treebench.errors import TreebenchError
from treebench.experiment.config import load_config
from treebench.experiment.specs import DatasetSpec, ProtocolSpec, TuningSpec
from treebench.experiment.trial import trial_key
from treebench.learners.registry import make_learner
from treebench.learners.trees import drawn_seed

REPO = Path(__file__).resolve().parents[1]

BASE = """\
experiment: demo
seed: 3
datasets: [iris]
protocol: {type: cv, folds: 5}
algorithms:
  - name: tree
    criterion: possibilistic
"""


def load(tmp_path: Path, extra: str):
    path = tmp_path / "c.yaml"
    path.write_text(textwrap.dedent(BASE) + textwrap.indent(textwrap.dedent(extra), "    "))
    return load_config(path)


def problems(tmp_path: Path, extra: str) -> str:
    with pytest.raises(TreebenchError) as info:
        load(tmp_path, extra)
    return str(info.value)


def key(algorithm) -> str:
    dataset = DatasetSpec("iris", "iris", ProtocolSpec("cv", folds=5))
    return trial_key("demo", dataset, "sum", algorithm, TuningSpec(), 3, 0, 0)


def test_values_are_checked_with_the_accepted_ones(tmp_path):
    text = problems(tmp_path, "params: {feature_ties: last}")
    assert "feature_ties='last' is invalid; accepted: first, random" in text
    assert "accepted: shuffled, file" in problems(tmp_path, "online: true\nparams: {order: sorted}")
    assert "an integer >= 0" in problems(tmp_path, "params: {draw: -1}")


def test_order_needs_an_online_tree(tmp_path):
    assert "'order' applies to online trees only" in problems(tmp_path, "params: {order: file}")
    assert load(tmp_path, "online: true\nparams: {order: file}").algorithms[0].fixed_params == {"order": "file"}


def test_keys_change_only_when_the_options_are_written(tmp_path):
    plain = load(tmp_path, "grid: {gamma: [0.1]}").algorithms[0]
    spelled = {text: load(tmp_path, text + "\ngrid: {gamma: [0.1]}").algorithms[0]
               for text in ("params: {feature_ties: random}", "params: {feature_ties: first}", "params: {draw: 1}")}
    keys = {key(a) for a in spelled.values()}
    assert key(plain) not in keys and len(keys) == 3  # written: a trial of its own, even at the default


def test_the_paper_configs_are_valid():
    for name in ("serrurier2015", "serrurier2015-readings", "serrurier2015-orders", "serrurier2015-tuning"):
        config = load_config(REPO / "configs" / f"{name}.yaml")
        for algorithm in config.algorithms:
            if algorithm.criterion == "possibilistic":
                # a tune_as algorithm searches its tuner's grid (o-pitree-batch-tuned: pitree's)
                tuned = algorithm.tune_as or algorithm
                gammas = dict(tuned.grid)["gamma"]
                assert len(gammas) == 10 and 0 < min(gammas) and max(gammas) < 1  # ]0, 1[, as the paper


def test_drawn_seeds():
    assert drawn_seed(12345, 0) == 12345
    seeds = {drawn_seed(12345, k) for k in range(1, 6)}
    assert len(seeds) == 5 and 12345 not in seeds and all(0 <= s < 2**31 for s in seeds)


def test_learners_seed_the_ties_from_the_trial():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])
    X["c"] = X["a"]
    y = (X["a"] + 0.5 * rng.normal(size=200) > 0).astype(int).to_numpy()
    roots = set()
    for seed in range(12):
        learner = make_learner(criterion="entropy", random_state=seed)
        model = learner.fit({"feature_ties": "random", "max_depth": 1}, X, y, learner.prepare(X, y))
        assert model.random_state == seed
        roots.add(int(model.tree_.int_nodes[0, 0]))
        again = learner.fit({"feature_ties": "random", "max_depth": 1}, X, y, learner.prepare(X, y))
        assert int(again.tree_.int_nodes[0, 0]) == int(model.tree_.int_nodes[0, 0])
    assert roots == {0, 2}
    online = make_learner(criterion="possibilistic", online=True, random_state=4)
    fitted = online.fit({"gamma": 0.1, "order": "file", "draw": 2}, X, y, online.prepare(X, y))
    assert fitted.order == "file" and fitted.random_state == drawn_seed(4, 2)
    final = online.fit_final({"gamma": 0.1, "order": "file", "draw": 2}, X, y, 4)
    np.testing.assert_array_equal(final.tree_.int_nodes, fitted.tree_.int_nodes)


def test_c45_baseline_takes_the_options(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(BASE.replace("criterion: possibilistic", "baseline: c4.5\n    params: {feature_ties: random, draw: 1}"))
    assert load_config(path).algorithms[0].fixed_params == {"feature_ties": "random", "draw": 1}
    path.write_text(BASE.replace("criterion: possibilistic", "baseline: c4.5\n    params: {feature_ties: any}"))
    with pytest.raises(TreebenchError, match="accepted: first or random"):
        load_config(path)


def test_batch_tuned_online_trees_tune_batch_trees_without_an_order():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    y = (X["a"] > 0).astype(int).to_numpy()
    learner = make_learner(criterion="possibilistic", online=True, tune_online=False, random_state=2)
    params = {"gamma": 0.1, "order": "file", "feature_ties": "random"}
    inner = learner.fit(params, X, y, learner.prepare(X, y))
    assert type(inner).__name__ == "TreeModel" and inner.feature_ties == "random"  # TreeClassifier, no sklearn bases
    assert learner.fit_final(params, X, y, 2).order == "file"
