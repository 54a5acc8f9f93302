"""``baseline: sklearn``: any scikit-learn compatible classifier, named by ``estimator:``.

Covers the acceptance run (a forest and gradient boosting beside two criteria
run, resume and compare), the trial keys (old configs keep theirs, the
estimator enters its own), the sizes read off trees and ensembles, the
nominal encoding shared with ``sklearn-cart`` and the seeding rule.  The
factories used here live in this module (importable as
``test_sklearn_estimator_baseline`` while the tests run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, load_wine

from treebench.cli import main
from treebench.experiment.config import load_config, parse_config
from treebench.experiment.runner import run_experiment
from treebench.experiment.specs import AlgorithmSpec
from treebench.experiment.store import TIMING_COLUMNS, ResultsStore
from treebench.experiment.trial import code_version, trial_key
from treebench.learners.registry import make_learner
from treebench.learners.sklearn_cart import SklearnCart
from treebench.learners.sklearn_estimator import (
    SklearnEstimator,
    estimator_code_version,
    model_sizes,
)

HERE = "test_sklearn_estimator_baseline"
TINY = Path(__file__).parent / "fixtures" / "configs" / "tiny.yaml"
RF = "sklearn.ensemble.RandomForestClassifier"
GB = "sklearn.ensemble.GradientBoostingClassifier"
HGB = "sklearn.ensemble.HistGradientBoostingClassifier"

ACCEPTANCE = f"""
experiment: sklearn-baselines
seed: 11
datasets: [iris, wine]
protocol: {{type: cv, folds: 3, repeats: 1}}
tuning: {{folds: 3}}
algorithms:
  - {{name: entropy, criterion: entropy}}
  - {{name: gini, criterion: gini, grid: {{max_depth: [2, null]}}}}
  - name: RF
    baseline: sklearn
    estimator: {RF}
    params: {{n_estimators: 5}}
    grid: {{max_depth: [2, null]}}
  - name: GB
    baseline: sklearn
    estimator: {GB}
    params: {{n_estimators: 5, max_depth: 2}}
metrics: [accuracy, n_leaves, n_nodes, depth]
"""


# -- factories and classes named by estimator paths ------------------------------------------
def scaled_forest():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), RandomForestClassifier(n_estimators=4))


def seeded_forest():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=4, random_state=7)


def small_forest():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=4)


def smaller_forest():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=3)


class ThreadCounter:
    """A duck-typed classifier that records the native thread pools' sizes during its fit."""

    def fit(self, X, y):
        from threadpoolctl import threadpool_info

        self.threads_ = [pool["num_threads"] for pool in threadpool_info()]
        self.label_ = np.bincount(np.asarray(y)).argmax()
        return self

    def predict(self, X):
        return np.full(len(X), self.label_)


# -- helpers ------------------------------------------------------------------------------------
def frame(store: Path) -> pd.DataFrame:
    with ResultsStore(store) as results:
        out = results.to_frame(all_columns=True)
    return out.drop(columns=list(TIMING_COLUMNS)).sort_values("trial_key").reset_index(drop=True)


def iris() -> tuple[pd.DataFrame, np.ndarray]:
    X, y = load_iris(return_X_y=True, as_frame=True)
    return X, y.to_numpy()


# -- the acceptance run -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def acceptance(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("sklearn-baselines")
    config = folder / "c.yaml"
    config.write_text(ACCEPTANCE, encoding="utf-8")
    store = folder / "store.sqlite"
    summary = run_experiment(config, store_path=store, jobs=2, quiet=True, echo=lambda *_: None)
    assert (summary.planned, summary.done, summary.failed) == (24, 24, 0)
    return config, store


def test_forest_and_boosting_run_beside_criteria(acceptance) -> None:
    _, store = acceptance
    results = frame(store)
    assert set(results["status"]) == {"ok"}
    assert results.groupby(["dataset", "algorithm"]).size().tolist() == [3] * 8
    for name in ("RF", "GB"):
        rows = results[results["algorithm"] == name]
        assert (rows["accuracy"] > 0.6).all()
        assert rows[["n_leaves", "n_nodes", "depth"]].notna().all().all()
    rf = results[results["algorithm"] == "RF"]
    assert all(json.loads(c).keys() == {"max_depth"} for c in rf["chosen"])  # tuned by the runner
    assert all(json.loads(p)["n_estimators"] == 5 for p in rf["params"])
    gb = results[results["algorithm"] == "GB"]
    # 5 iterations x 3 classes of depth-2 regression trees: at most 4 leaves and 7 nodes each
    assert (gb["depth"] <= 2).all() and (gb["n_leaves"] <= 60).all() and (gb["n_leaves"] >= 15).all()
    assert (gb["n_nodes"] == 2 * gb["n_leaves"] - 15).all()  # binary trees: nodes = 2 leaves - 1


def test_a_second_run_skips_every_trial(acceptance) -> None:
    config, store = acceptance
    before = frame(store)
    summary = run_experiment(config, store_path=store, jobs=1, quiet=True, echo=lambda *_: None)
    assert (summary.planned, summary.skipped, summary.done) == (24, 24, 0)
    pd.testing.assert_frame_equal(before, frame(store))


def test_compare_reads_the_store(acceptance, capsys: pytest.CaptureFixture) -> None:
    _, store = acceptance
    capsys.readouterr()
    code = 0
    try:
        main(["compare", str(store)])
    except SystemExit as exc:  # click's exit; a success may also just return
        code = exc.code or 0
    out = capsys.readouterr().out
    assert code == 0
    header = next(line for line in out.splitlines() if line.startswith("| dataset"))
    assert all(name in header for name in ("RF", "GB", "entropy", "gini"))


def test_one_process_gives_the_same_store(acceptance, tmp_path: Path) -> None:
    config, store = acceptance
    summary = run_experiment(config, store_path=tmp_path / "s.sqlite", jobs=1, quiet=True, echo=lambda *_: None)
    assert summary.done == 24
    pd.testing.assert_frame_equal(frame(store), frame(tmp_path / "s.sqlite"))


def test_a_pipeline_factory_is_tuned_through_its_step_names(tmp_path: Path) -> None:
    text = (
        "experiment: pipe\nseed: 2\ndatasets: [iris]\nprotocol: {type: cv, folds: 3}\ntuning: {folds: 2}\n"
        f"algorithms:\n  - name: P\n    baseline: sklearn\n    estimator: {HERE}.scaled_forest\n"
        "    grid: {randomforestclassifier__max_depth: [1, null]}\n"
    )
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    summary = run_experiment(tmp_path / "c.yaml", store_path=tmp_path / "s.sqlite", jobs=1, quiet=True, echo=lambda *_: None)
    assert (summary.done, summary.failed) == (3, 0)
    results = frame(tmp_path / "s.sqlite")
    assert results["n_leaves"].notna().all()  # measured on the pipeline's last step, a forest
    assert all("randomforestclassifier__max_depth" in json.loads(c) for c in results["chosen"])


# -- trial keys ---------------------------------------------------------------------------------
#: Keys of tiny.yaml's CART trials (iris, wine; repeat 1, fold 2) computed by the code
#: before ``baseline: sklearn`` existed, with both versions pinned to "0.0-pinned".
PINNED_CART_KEYS = {
    "iris": "8325b090be31a262c68737c4f0fc6c3f67883f786aa0cf727dc6a9961646a975",
    "wine": "a0ef2ad4b8842c15b01de48f738f2c30635842e89ede48e79f4a47b32a5edd39",
}


def test_an_existing_config_keeps_its_trial_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    import sklearn

    import treebench

    monkeypatch.setattr(treebench, "__version__", "0.0-pinned")
    monkeypatch.setattr(sklearn, "__version__", "0.0-pinned")
    config = load_config(TINY)
    assert all("estimator" not in a.fields() for a in config.algorithms)
    cart = next(a for a in config.algorithms if a.name == "CART")
    for dataset in config.datasets:
        key = trial_key(config.experiment, dataset, "0" * 64, cart, config.tuning, config.seed, 1, 2)
        assert key == PINNED_CART_KEYS[dataset.label]


def test_the_estimator_and_its_versions_enter_the_key() -> None:
    import sklearn

    config = load_config(TINY)
    dataset, tuning = config.datasets[0], config.tuning
    forest = AlgorithmSpec("X", baseline="sklearn", estimator=RF)
    boost = AlgorithmSpec("X", baseline="sklearn", estimator=GB)
    assert forest.fields()["estimator"] == RF
    code = code_version(forest)["baseline"]
    assert code.startswith(f"scikit-learn {sklearn.__version__}; defaults ")
    keys = {trial_key("e", dataset, "0" * 64, a, tuning, 0, 0, 0) for a in (forest, boost)}
    assert len(keys) == 2
    # a factory outside scikit-learn: its package's version, and its defaults' digest
    small, smaller = (code_version(AlgorithmSpec("X", baseline="sklearn", estimator=f"{HERE}.{f}"))["baseline"] for f in ("small_forest", "smaller_forest"))
    assert f"{HERE} (no version)" in small and small != smaller


def test_the_code_version_is_the_same_in_another_process() -> None:
    path = f"{HERE}.scaled_forest"
    script = f"from treebench.learners.sklearn_estimator import estimator_code_version as v; print(v({path!r}))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *sys.path])}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == estimator_code_version(path)


def test_a_package_version_comes_from_its_distribution() -> None:
    import yaml

    from treebench.learners.sklearn_estimator import _package_version

    assert _package_version("yaml") == f"PyYAML {yaml.__version__}"


# -- sizes --------------------------------------------------------------------------------------
def fitted(path: str, params: dict | None = None, data=None):
    X, y = data if data is not None else iris()
    learner = SklearnEstimator(random_state=3, estimator=path)
    return learner, learner.fit(params or {}, X, y)


def test_a_forest_sums_its_trees_and_keeps_the_largest_depth() -> None:
    learner, model = fitted(RF, {"n_estimators": 7})
    trees = model.estimators_
    assert len(trees) == 7
    expected = {
        "n_leaves": sum(t.get_n_leaves() for t in trees),
        "n_nodes": sum(t.tree_.node_count for t in trees),
        "depth": max(t.get_depth() for t in trees),
        "tree_quality": None,
    }
    assert learner.measures(model) == expected
    assert learner.n_leaves(model) == expected["n_leaves"] > 7


def test_gradient_boosting_counts_every_tree_of_its_array() -> None:
    learner, model = fitted(GB, {"n_estimators": 4, "max_depth": 2})
    assert model.estimators_.shape == (4, 3)  # iterations x classes
    sizes = learner.measures(model)
    trees = model.estimators_.ravel()
    assert sizes["n_leaves"] == sum(t.get_n_leaves() for t in trees)
    assert sizes["n_nodes"] == sum(t.tree_.node_count for t in trees)
    assert sizes["depth"] == 2


def test_histogram_boosting_counts_its_predictors() -> None:
    learner, model = fitted(HGB, {"max_iter": 3})
    nodes = [p.nodes for per_iteration in model._predictors for p in per_iteration]
    assert len(nodes) == 3 * 3
    sizes = learner.measures(model)
    assert sizes["n_leaves"] == sum(int(n["is_leaf"].sum()) for n in nodes)
    assert sizes["n_nodes"] == sum(len(n) for n in nodes)
    assert sizes["depth"] == max(int(n["depth"].max()) for n in nodes)


def test_a_pipeline_is_measured_by_its_last_step_and_other_models_have_no_size() -> None:
    learner, model = fitted(f"{HERE}.scaled_forest")
    forest = model.steps[-1][1]
    assert learner.measures(model)["n_leaves"] == sum(t.get_n_leaves() for t in forest.estimators_)
    learner, model = fitted("sklearn.linear_model.LogisticRegression", {"max_iter": 1000})
    assert model_sizes(model) is None
    assert learner.measures(model) == {"n_leaves": None, "n_nodes": None, "depth": None, "tree_quality": None}
    assert learner.n_leaves(model) == 0  # tuning's tie-break: ties go to the first grid point


def test_a_single_tree_is_exactly_sklearn_cart_with_nominal_codes_and_missing_values() -> None:
    X, y = load_wine(return_X_y=True, as_frame=True)
    X = X.copy()
    rng = np.random.default_rng(0)
    X["colour"] = pd.Categorical(rng.choice(["red", "white", "rose"], len(X)), categories=["rose", "red", "white"])
    X.loc[rng.choice(len(X), 20, replace=False), "colour"] = np.nan
    X.loc[rng.choice(len(X), 20, replace=False), "alcohol"] = np.nan
    y = y.to_numpy()
    ours = make_learner(baseline="sklearn", estimator="sklearn.tree.DecisionTreeClassifier", random_state=5)
    cart = SklearnCart(random_state=5)
    params = {"max_features": 4}  # random feature subsets: the same seed must give the same tree
    a, b = ours.fit(params, X, y), cart.fit(params, X, y)
    assert ours.measures(a) == cart.measures(b)
    np.testing.assert_array_equal(ours.predict(a, X), cart.predict(b, X))
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    assert np.isnan(ours.view(X)[:, -1]).sum() == 20  # missing categories reach it as NaN


# -- seeds and threads --------------------------------------------------------------------------
def test_random_state_is_the_trials_unless_the_config_or_the_factory_sets_it() -> None:
    _, model = fitted(RF, {"n_estimators": 2})
    assert model.random_state == 3
    _, model = fitted(RF, {"n_estimators": 2, "random_state": 42})
    assert model.random_state == 42
    _, model = fitted(f"{HERE}.seeded_forest")
    assert model.random_state == 7
    _, model = fitted(f"{HERE}.scaled_forest")
    assert model.get_params()["randomforestclassifier__random_state"] == 3
    _, model = fitted("sklearn.linear_model.LogisticRegression", {"max_iter": 1000})
    assert model.random_state == 3  # any estimator with the parameter, not only trees


def test_the_same_trial_seed_gives_the_same_forest() -> None:
    X, y = iris()
    first, second = (SklearnEstimator(9, RF).fit({"n_estimators": 3}, X, y) for _ in range(2))
    other = SklearnEstimator(10, RF).fit({"n_estimators": 3}, X, y)
    thresholds = [np.concatenate([t.tree_.threshold for t in m.estimators_]) for m in (first, second, other)]
    np.testing.assert_array_equal(thresholds[0], thresholds[1])
    assert not np.array_equal(thresholds[0], thresholds[2])


def test_fits_run_on_one_native_thread() -> None:
    from threadpoolctl import threadpool_info

    if max((pool["num_threads"] for pool in threadpool_info()), default=1) < 2:
        pytest.skip("every native thread pool has one thread here already: the test would prove nothing")
    _, model = fitted(f"{HERE}.ThreadCounter")
    assert model.threads_ and set(model.threads_) == {1}


def test_a_factory_spec_validates_and_keeps_its_path() -> None:
    text = (
        "experiment: x\ndatasets: [iris]\nprotocol: cv\nalgorithms:\n"
        f"  - {{name: P, baseline: sklearn, estimator: {HERE}.scaled_forest, params: {{randomforestclassifier__n_estimators: 2}}}}\n"
    )
    spec = parse_config(text, "c.yaml").algorithms[0]
    assert (spec.baseline, spec.estimator, spec.fixed_params) == ("sklearn", f"{HERE}.scaled_forest", {"randomforestclassifier__n_estimators": 2})
    assert spec.kind == "baseline:sklearn"
