"""The runner end to end on embedded data: backends agree, reruns skip, failures are recorded.

"Identical stores" means every column except the timing ones
(:data:`treebench.experiment.store.TIMING_COLUMNS`), which measure this run.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pandas as pd
import pytest

from treebench.cli import main
from treebench.errors import TreebenchError
from treebench.experiment.config import load_config
from treebench.experiment.runner import plan, run_experiment
from treebench.experiment.store import COLUMNS, TIMING_COLUMNS, ResultsStore

FIXTURES = Path(__file__).parent / "fixtures" / "configs"
TINY = FIXTURES / "tiny.yaml"
FAILING = FIXTURES / "failing.yaml"


def comparable(path: Path) -> pd.DataFrame:
    with ResultsStore(path) as store:
        frame = store.to_frame(all_columns=True)
    return frame.drop(columns=list(TIMING_COLUMNS)).sort_values("trial_key").reset_index(drop=True)


def run(config: Path, store: Path, **kwargs):
    lines: list[str] = []
    summary = run_experiment(config, store_path=store, quiet=True, echo=lines.append, **kwargs)
    return summary, "\n".join(lines)


@pytest.fixture(scope="module")
def sequential_store(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("seq") / "tiny.sqlite"
    summary, output = run(TINY, store, jobs=1)
    assert (summary.done, summary.failed, summary.exit_code) == (36, 0, 0), output
    return store


def test_the_store_follows_the_results_contract(sequential_store):
    with ResultsStore(sequential_store) as store:
        frame = store.to_frame()
        meta = store.meta()
    assert tuple(frame.columns) == COLUMNS
    assert len(frame) == 36 and frame["trial_key"].is_unique
    assert set(frame["status"]) == {"ok"} and frame["error_text"].isna().all()
    assert set(frame["protocol"]) == {"cv3x2"} and set(frame["experiment"]) == {"tiny"}
    assert frame.groupby(["dataset", "algorithm"]).size().tolist() == [6] * 6  # 3 folds x 2 repeats
    assert frame["repeat"].dtype == "int64" and frame["accuracy"].dtype == "float64"
    assert (frame["error"] + frame["accuracy"] - 1).abs().max() < 1e-12
    pi = frame[frame["algorithm"] == "PiTree"]
    assert pi["tree_quality"].notna().all() and frame[frame["algorithm"] != "PiTree"]["tree_quality"].isna().all()
    assert all(set(json.loads(p)) == {"gamma"} for p in pi["params"])
    cart = frame[frame["algorithm"] == "CART"]
    assert all(json.loads(p)["criterion"] == "gini" and "max_depth" in json.loads(p) for p in cart["params"])
    assert meta["experiment"] == "tiny" and meta["config"] == TINY.read_text() and meta["treebench_version"]


def test_two_processes_give_the_same_store_as_sequential(sequential_store, tmp_path):
    # the driver runs trials until the fork server is ready (tests/test_runner_parallel.py
    # checks that a ready pool takes trials); here whatever the timing gives
    summary, _ = run(TINY, tmp_path / "p.sqlite", jobs=2)
    assert summary.done == 36
    pd.testing.assert_frame_equal(comparable(sequential_store), comparable(tmp_path / "p.sqlite"))


def test_a_dask_local_cluster_gives_the_same_store(sequential_store, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        summary, output = run(TINY, tmp_path / "d.sqlite", scheduler=cluster.scheduler_address)
    assert summary.done == 36 and summary.failed == 0, output
    pd.testing.assert_frame_equal(comparable(sequential_store), comparable(tmp_path / "d.sqlite"))


def test_rerun_skips_everything_and_force_recomputes(sequential_store, tmp_path):
    store = tmp_path / "copy.sqlite"
    with sqlite3.connect(sequential_store) as source, sqlite3.connect(store) as target:
        source.backup(target)
    summary, output = run(TINY, store, jobs=1)
    assert (summary.done, summary.skipped, summary.exit_code) == (0, 36, 0)
    assert "tiny finished: 0 done, 36 skipped, 0 failed of 36 trials" in output
    assert "PiTree" in output and "accuracy %" in output  # the comparison table
    summary, _ = run(TINY, store, jobs=1, force=True)
    assert (summary.done, summary.skipped) == (36, 0)
    pd.testing.assert_frame_equal(comparable(sequential_store), comparable(store))
    with ResultsStore(store) as opened:
        assert opened.count() == 36


def test_a_failing_trial_is_recorded_and_the_others_go_on(tmp_path):
    store = tmp_path / "f.sqlite"
    summary, output = run(FAILING, store, jobs=2)
    assert (summary.done, summary.failed, summary.exit_code) == (9, 3, 1)
    assert "failing finished: 9 done, 0 skipped, 3 failed of 9 trials" in output
    assert "failed: iris / Broken repeat 0 fold 0: RuntimeError: boom" in output
    frame = comparable(store)
    broken = frame[frame["algorithm"] == "Broken"]
    assert set(broken["status"]) == {"failed"} and broken["accuracy"].isna().all()
    assert all(t.startswith("RuntimeError: boom: this criterion explodes on purpose (at exploding.py:") for t in
               broken["error_text"])
    assert all(json.loads(p) == {"explode": True} for p in broken["params"])
    others = frame[frame["algorithm"] != "Broken"]
    assert set(others["status"]) == {"ok"} and len(others) == 6
    # a rerun retries only the failed trials (same error again), and updates their rows in place
    summary, _ = run(FAILING, store, jobs=1)
    assert (summary.done, summary.skipped, summary.failed) == (3, 6, 3)
    assert len(comparable(store)) == 9


def test_cli_exit_codes_summary_and_export(tmp_path, capsys):
    store = tmp_path / "f.sqlite"
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(FAILING), "--jobs", "1", "--store", str(store), "--quiet"])
    assert exit_info.value.code == 1
    out = capsys.readouterr().out
    assert "3 failed of 9 trials" in out
    main(["results", "export", str(store), "--format", "csv", "--out", str(tmp_path / "f.csv")])
    csv = pd.read_csv(tmp_path / "f.csv")
    assert list(csv.columns[: len(COLUMNS)]) == list(COLUMNS) and len(csv) == 9
    assert {"n_train", "n_test", "chosen"} <= set(csv.columns)
    pytest.importorskip("pyarrow")
    main(["results", "export", str(store), "--format", "parquet"])
    parquet = pd.read_parquet(store.with_suffix(".parquet"))
    pd.testing.assert_frame_equal(parquet.drop(columns=["finished_at"]), csv.drop(columns=["finished_at"]),
                                  check_dtype=False)


def test_cli_user_errors_are_one_line_with_exit_2(tmp_path, capsys, monkeypatch):
    cases = [
        (["run", str(tmp_path / "none.yaml")], "error: config file"),
        (["results", "export", str(tmp_path / "none.sqlite")], "error: no results store at"),
        (["run", str(TINY), "--jobs", "2", "--scheduler", "tcp://127.0.0.1:1"], "exclude each other"),
    ]
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if dask were not installed
    cases.append((["run", str(TINY), "--scheduler", "tcp://127.0.0.1:1", "--store", str(tmp_path / "x.sqlite")],
                  "pip install 'treebench[dask]'"))
    for argv, fragment in cases:
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        err = capsys.readouterr().err
        assert exit_info.value.code == 2 and fragment in err and err.count("\n") == 1, err


def test_parquet_without_pyarrow_says_what_to_install(sequential_store, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(SystemExit):
        main(["results", "export", str(sequential_store), "--format", "parquet", "--out", str(tmp_path / "x")])
    assert capsys.readouterr().err == "error: --format parquet needs pyarrow, which is not installed: pip install pyarrow\n"


def test_one_writer_per_store(sequential_store):
    with ResultsStore(sequential_store) as first:
        first.lock()
        with pytest.raises(TreebenchError, match="is being written by another treebench run"):
            run(TINY, sequential_store, jobs=1)


def test_a_worker_with_other_data_fails_its_trials_clearly(tmp_path):
    config = load_config(FIXTURES / "failing.yaml")
    trial = plan(config)[0]
    from dataclasses import replace

    from treebench.experiment.trial import run_trial

    result = run_trial(replace(trial, checksum="0" * 64))
    assert result.status == "failed"
    assert "every worker must load the same copy (check TREEBENCH_DATA)" in result.error_text


def yeast_config() -> Path:
    """``configs/yeast.yaml``; the test is skipped without the yeast mirror (TREEBENCH_DATA)."""
    from treebench.data.cards import CardRegistry
    from treebench.data.loader import local_sources
    from treebench.data.settings import Settings

    settings = Settings.from_env()
    registry = CardRegistry(settings.cards_dir)
    if "mirror" not in local_sources(registry.get("yeast"), registry, settings):
        pytest.skip("yeast mirror not available (set TREEBENCH_DATA)")
    return Path(__file__).resolve().parents[1] / "configs" / "yeast.yaml"


def test_yeast_config_runs_and_reruns_with_everything_skipped(tmp_path):
    """The issue's acceptance run (needs the yeast mirror: TREEBENCH_DATA)."""
    config = yeast_config()
    store = tmp_path / "yeast.sqlite"
    summary, output = run(config, store, jobs=2)
    assert (summary.done, summary.failed) == (20, 0), output
    frame = comparable(store)
    pi = frame[frame["algorithm"] == "PiTree"]
    grid = {0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7}
    assert len(pi) == 10 and all(json.loads(c)["gamma"] in grid for c in pi["chosen"])
    assert (frame["n_train"] + frame["n_test"] == 1484).all()
    summary, output = run(config, store)
    assert (summary.done, summary.skipped) == (0, 20)


def test_a_run_of_treebench_trees_never_imports_scikit_learn(tmp_path):
    """The runner fits ``TreeModel`` (TreeClassifier without scikit-learn's bases): importing
    scikit-learn costs every process about a second before its first trial."""
    import subprocess
    import sys

    config = yeast_config()
    code = (
        "import sys\n"
        "from treebench.experiment.runner import run_experiment\n"
        f"s = run_experiment({str(config)!r}, store_path={str(tmp_path / 'y.sqlite')!r}, jobs=1, quiet=True,\n"
        "                   echo=lambda *a, **k: None)\n"
        "print(s.done, s.failed, sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split()[:2] == ["20", "0"], done.stdout + done.stderr
    assert "sklearn.base" not in done.stdout, done.stdout


def test_the_costliest_trials_start_first():
    """Trials run longest first: trees grown (grid x inner folds + 1) times the dataset's cells."""
    from treebench.experiment.runner import _expected_cost, trees_per_trial

    config = load_config(TINY)
    trials = plan(config)
    ordered = sorted(trials, key=_expected_cost(config))
    trees = {a.name: trees_per_trial(a, config.tuning.folds)[0] for a in config.algorithms}
    assert trees == {"ID3": 1, "PiTree": 3 * 3 + 1, "CART": 2 * 3 + 1}
    # wine (178 x 13) has more cells than iris (150 x 4): its tuned PiTree comes first, iris's ID3 last
    assert {(t.dataset.label, t.algorithm.name) for t in ordered[:6]} == {("wine", "PiTree")}
    assert {(t.dataset.label, t.algorithm.name) for t in ordered[-6:]} == {("iris", "ID3")}
    costs = [-_expected_cost(config)(t) for t in ordered]
    assert costs == sorted(costs, reverse=True)
