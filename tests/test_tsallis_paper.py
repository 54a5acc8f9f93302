"""Paper 002 (Tsallis): tune_as, nominal attributes as codes, the q sweep and report numbers (issue 7)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from treebench.errors import TreebenchError
from treebench.experiment.config import load_config, parse_config
from treebench.experiment.protocols import inner_splits, outer_splits
from treebench.experiment.runner import run_experiment
from treebench.experiment.store import ResultsStore
from treebench.experiment.trial import load_data, nominal_as_codes
from treebench.kernels import layout as L
from treebench.papers.tsallis.q_sweep import best_q, q_grid, sweep
from treebench.report import reproduce as R
from treebench.report.claims import MeanDiffClaim
from treebench.trees.estimator import TreeClassifier

ROOT = Path(__file__).resolve().parents[1]
PAPER_CONFIG = ROOT / "configs" / "tsallis.yaml"
QS = [0.5, 1.5, 2.5, 4.0]


def small_config(tmp_path: Path, datasets: str = "[glass, monks-2]", repeats: int = 2) -> Path:
    """configs/tsallis.yaml with two datasets, two repeats, a four-point q grid and 3 inner folds."""
    text = PAPER_CONFIG.read_text(encoding="utf-8")
    lines = []
    for line in text.splitlines():
        if line.startswith("datasets:"):
            line = f"datasets: {datasets}"
        elif line.strip().startswith("monks-2, abalone-18"):
            continue
        elif line.strip().startswith("repeats:"):
            line = f"  repeats: {repeats}"
        elif line.strip().startswith("folds: 10"):
            line = "  folds: 3"
        elif line.strip().startswith("q: ["):
            line = f"      q: {QS}"
        lines.append(line)
    path = tmp_path / "tsallis-small.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tsallis")
    config = small_config(tmp)
    store = tmp / "tsallis.sqlite"
    summary = run_experiment(config, store_path=store, quiet=True, echo=lambda *_: None, jobs=1)
    assert (summary.done, summary.failed) == (2 * 2 * 9, 0)  # 7 algorithms and the 2 tuned on the test split
    with ResultsStore(store) as opened:
        frame = opened.to_frame(all_columns=True)
    return config, frame


# -- the paper's config ------------------------------------------------------------
def test_paper_config_follows_the_protocol():
    config = load_config(PAPER_CONFIG)
    names = [a.name for a in config.algorithms]
    assert names == ["id3", "cart", "c45", "tsallis", "tsallis-gr", "cart-sklearn", "c45-j48", "tsallis-test-tuned",
                     "tsallis-gr-test-tuned"]
    assert len(config.datasets) == 11 and all(d.nominal == "codes" for d in config.datasets)
    protocol = config.datasets[0].protocol
    assert (protocol.kind, protocol.test_size, protocol.repeats) == ("holdout", 0.3, 10)
    assert config.tuning.folds == 10
    for algorithm in config.algorithms:
        assert algorithm.fixed_params["min_samples_leaf"] == 5 and algorithm.pruning is None
    # the "reference implementations" reading: J48 unpruned (-U -M 5), scikit-learn's CART
    assert config.algorithms[6].fixed_params == {"min_samples_leaf": 5, "unpruned": True}
    qs = [p["q"] for p in config.algorithms[3].grid_points()]
    published = {0.6, 0.8, 1.2, 1.4, 2.6, 3.1, 7.1, 8.6, 8.9}  # the q row of Table II
    assert published <= set(qs)
    gr = config.algorithms[4]
    assert gr.grid == () and gr.tune_as is not None and gr.tune_as.name == "tsallis"
    assert gr.tuning_points() == config.algorithms[3].grid_points()
    # the reading "tuned on the test split (optimistic bound)": the same grid, scored on the test part
    test_tuned, test_gr = config.algorithms[7], config.algorithms[8]
    assert test_tuned.tune_on == "test" and test_tuned.grid == config.algorithms[3].grid
    assert test_gr.tune_as == test_tuned and not config.algorithms[3].tuned_on_test


# -- tune_as validation ---------------------------------------------------------
BASE = """
experiment: t
datasets: [iris]
protocol: {type: holdout, repeats: 1}
algorithms:
  - name: ts
    criterion: tsallis
    grid: {q: [0.5, 2.0]}
"""


@pytest.mark.parametrize(
    "extra, message",
    [
        ("  - {name: gr, criterion: tsallis_gain_ratio, tune_as: nope}",
         "tune_as 'nope' is not another algorithm with its own grid; accepted: ts"),
        ("  - {name: gr, criterion: tsallis_gain_ratio, tune_as: gr}",
         "tune_as 'gr' is not another algorithm with its own grid; accepted: ts"),
        ("  - {name: gr, criterion: tsallis_gain_ratio, tune_as: ts, grid: {q: [1.0, 3.0]}}",
         "remove its own 'grid'"),
        ("  - {name: gr, criterion: entropy, tune_as: ts}", "criterion 'entropy' has no parameter 'q'"),
        ("  - {name: gr, baseline: sklearn-cart, tune_as: ts}", "baselines tune their own grids"),
    ],
)
def test_tune_as_errors_name_the_problem(extra, message):
    with pytest.raises(TreebenchError) as info:
        parse_config(BASE + extra + "\n")
    assert message in str(info.value)


def test_nominal_mode_is_validated():
    with pytest.raises(TreebenchError, match="accepted: categories, codes"):
        parse_config(BASE + "nominal: ordinal\n")


def test_tune_as_changes_the_trial_key_only_through_the_tuner():
    plain = parse_config(BASE + "  - {name: gr, criterion: tsallis_gain_ratio}\n").algorithms[1]
    linked = parse_config(BASE + "  - {name: gr, criterion: tsallis_gain_ratio, tune_as: ts}\n").algorithms[1]
    assert "tune_as" not in plain.fields()
    assert linked.fields()["tune_as"]["grid"] == [["q", [0.5, 2.0]]]


def test_a_tune_as_trial_given_the_tuners_values_equals_its_own_search(tmp_path):
    from dataclasses import replace

    from treebench.experiment.runner import plan
    from treebench.experiment.trial import run_trial

    trials = plan(load_config(small_config(tmp_path, datasets="[glass]", repeats=1)))
    by_key = {t.key: t for t in trials}
    dependent = next(t for t in trials if t.algorithm.name == "tsallis-gr")
    tuner = by_key[dependent.tuner_key]
    assert (tuner.algorithm.name, tuner.repeat, tuner.fold) == ("tsallis", dependent.repeat, dependent.fold)
    tuned = json.loads(run_trial(tuner).chosen)
    own, given = run_trial(dependent), run_trial(replace(dependent, tuned=tuned))
    assert own.status == given.status == "ok" and own.key == given.key
    assert (own.chosen, own.accuracy, own.n_leaves) == (given.chosen, given.accuracy, given.n_leaves)
    assert json.loads(given.chosen)["q"] == tuned["q"]
    assert given.tune_seconds < own.tune_seconds


def test_tune_as_trials_wait_for_their_tuner_in_a_run():
    import dataclasses

    from treebench.experiment.runner import _TunedFirst
    from treebench.experiment.trial import Result

    @dataclasses.dataclass(frozen=True)
    class T:  # the fields _TunedFirst reads
        key: str
        tuner_key: str | None = None
        tuned: dict | None = None

    queue = _TunedFirst([T("gr1", "ts1"), T("ts1"), T("gr2", "ts2"), T("ts2"), T("gr3", "elsewhere"),
                         T("other"), T("gr1b", "ts1")])
    first, second, third = queue.next(), queue.next(), queue.next()
    assert [first.key, second.key, third.key] == ["ts1", "ts2", "gr3"]  # gr3's tuner is not in the run
    assert third.tuned is None
    queue.finished(second, Result(key="ts2", status="failed"))
    queue.finished(first, Result(key="ts1", status="ok", chosen='{"q": 2.5}'))
    released = [queue.next(), queue.next(), queue.next(), queue.next()]
    # waiting ones first; gr1b, still queued when ts1 finished, gets ts1's values too
    assert [(t.key, t.tuned) for t in released] == [
        ("gr2", None), ("gr1", {"q": 2.5}), ("other", None), ("gr1b", {"q": 2.5})]
    assert queue.next() is None and queue.drop() == 0


# -- nominal attributes as codes ------------------------------------------------------
def test_nominal_as_codes_keeps_the_category_order_and_missing_values():
    X = pd.DataFrame({
        "colour": pd.Categorical(["red", "blue", None, "green"], categories=["red", "green", "blue"]),
        "size": ["b", "a", "c", None],
        "x": [1.0, 2.0, 3.0, 4.0],
    })
    out = nominal_as_codes(X)
    assert out["colour"].dtype.ordered and list(out["colour"].cat.categories) == ["red", "green", "blue"]
    np.testing.assert_array_equal(out["colour"].cat.codes.to_numpy(), [0, 2, -1, 1])
    np.testing.assert_array_equal(out["size"].cat.codes.to_numpy(), [1, 0, 2, -1])
    assert out["x"].dtype == np.float64 and X["colour"].dtype.ordered is False  # input untouched


def test_codes_give_binary_threshold_splits_on_nominal_data():
    spec = next(d for d in load_config(PAPER_CONFIG).datasets if d.label == "monks-2")
    X, y = load_data(spec).X, load_data(spec).y
    tree = TreeClassifier("tsallis", q=2.0, min_samples_leaf=5).fit(X, y).tree_
    internal = ~tree.is_leaf
    assert np.all(tree.int_nodes[internal, L.N_CHILDREN] == 2)
    assert tree.n_nodes == 2 * tree.n_leaves - 1
    # with categories, the same data grows multiway splits
    from treebench.data import load

    multi = TreeClassifier("tsallis", q=2.0, min_samples_leaf=5).fit(load("monks-2").X, y).tree_
    assert multi.int_nodes[~multi.is_leaf, L.N_CHILDREN].max() > 2


# -- an end-to-end run of the config on two datasets -------------------------------------
def test_small_run_has_binary_trees_and_shares_q(small_run):
    _, frame = small_run
    assert set(frame["status"]) == {"ok"}
    assert set(frame["dataset"]) == {"glass", "monks-2"}
    nodes, leaves = frame["n_nodes"].astype(int), frame["n_leaves"].astype(int)
    assert (nodes == 2 * leaves - 1).all()
    q = frame.assign(q=frame["chosen"].map(lambda t: json.loads(t).get("q")))
    pairs = q[q["algorithm"].isin(["tsallis", "tsallis-gr"])].pivot_table(
        index=["dataset", "repeat", "fold"], columns="algorithm", values="q")
    assert len(pairs) == 4 and (pairs["tsallis"] == pairs["tsallis-gr"]).all()
    assert set(q.loc[q["algorithm"] == "tsallis", "q"]) <= set(QS)


def test_tuned_q_is_the_argmax_of_inner_cv_accuracy(small_run):
    """Recompute the inner CV by hand: most correct, then fewest leaves, then the first q."""
    config_path, frame = small_run
    config = load_config(config_path)
    for dataset in config.datasets:
        data = load_data(dataset)
        for repeat in range(2):
            train, _ = outer_splits(dataset.protocol, config.seed, dataset.seed_name, data.y, data.extra,
                                    repeat)[0]
            X, y = data.X.iloc[train], data.y[train]
            correct, leaves = np.zeros(len(QS), int), np.zeros(len(QS), int)
            for inner_train, valid in inner_splits(y, 3, config.seed, dataset.seed_name, repeat, 0):
                for i, q in enumerate(QS):
                    model = TreeClassifier("tsallis", q=q, min_samples_leaf=5).fit(X.iloc[inner_train],
                                                                                   y[inner_train])
                    correct[i] += int(np.sum(model.predict(X.iloc[valid]) == y[valid]))
                    leaves[i] += model.tree_.n_leaves
            order = sorted(range(len(QS)), key=lambda i: (-correct[i], leaves[i], i))
            row = frame[(frame["dataset"] == dataset.label) & (frame["repeat"] == repeat)
                        & (frame["algorithm"] == "tsallis")]
            assert json.loads(row["chosen"].iloc[0])["q"] == QS[order[0]]


# -- report numbers ----------------------------------------------------------------------
def test_mean_gain_over_the_best_other_per_dataset():
    cells = pd.DataFrame({
        "dataset_label": ["A"] * 3 + ["B"] * 3, "metric": "accuracy",
        "algorithm": ["t", "x", "y"] * 2, "value": [60, 50, 55, 70, 72, 60],
        "ours": [61, 50, 56, 70, 71, 60], "unit": "percent", "status": "ok",
    })
    claim = MeanDiffClaim("t beats the others", "t", ("x", "y"), "accuracy")
    out = claim.evaluate(cells, pd.DataFrame())
    # paper: A 60-55 = +5, B 70-72 = -2 -> +1.5; ours: A 61-56 = +5, B 70-71 = -1 -> +2
    assert "vs the best of x, y per dataset +1.50" in out.paper_numbers
    assert "vs the best of x, y per dataset +2.00" in out.ours


def test_summary_counts_cells_within_the_tolerance():
    cells = pd.DataFrame({
        "metric": "accuracy", "unit": "percent", "status": ["ok", "ok", "ok", "not run"],
        "diff": [1.9, -2.0, 2.5, math.nan], "within_std": [None] * 4,
    })
    line = R._summary(cells, {"accuracy": 2.0})[0]
    assert "within ± 2 of the paper: 2 of 3" in line
    assert "within ±" not in R._summary(cells)[0]


def test_q_grid_has_no_float_drift():
    grid = q_grid(0.1, 9.0, 0.05)
    assert len(grid) == 179 and grid[0] == 0.1 and grid[-1] == 9.0 and 2.6 in grid and 3.9 in grid
    with pytest.raises(TreebenchError, match="accepted"):
        q_grid(0.0, 1.0, 0.1)


def test_sweep_uses_the_configs_splits(tmp_path):
    config = small_config(tmp_path, datasets="[glass]", repeats=2)
    frame = sweep(config, "glass", qs=[1.0, 3.0])
    assert len(frame) == 2 * 2
    spec = load_config(config).datasets[0]
    data = load_data(spec)
    train, test = outer_splits(spec.protocol, load_config(config).seed, "glass", data.y, data.extra, 1)[0]
    model = TreeClassifier("tsallis", q=3.0, min_samples_leaf=5).fit(data.X.iloc[train], data.y[train])
    row = frame[(frame["repeat"] == 1) & (frame["q"] == 3.0)].iloc[0]
    assert row["accuracy"] == pytest.approx(np.mean(model.predict(data.X.iloc[test]) == data.y[test]))
    assert row["n_nodes"] == model.tree_.n_nodes
    q_acc, q_nodes = best_q(frame)
    assert q_acc in (1.0, 3.0) and q_nodes in (1.0, 3.0)
    with pytest.raises(TreebenchError, match="accepted: glass"):
        sweep(config, "wine")
