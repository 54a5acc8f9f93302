"""A store written before extra measures were open is still read and resumed.

``tests/fixtures/stores/legacy-0.1.1.sqlite`` was written by treebench 0.1.1
(commit a0b7132) from ``legacy.yaml``; it keeps ``pignistic_error`` in a
column of its own.  Today's code must read that column as the extra measure,
skip the stored trials on a rerun, and recompute a removed trial to the same
numbers.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "stores"


@pytest.fixture
def legacy_store(tmp_path, monkeypatch):
    import treebench
    from treebench.experiment.store import ResultsStore

    path = tmp_path / "legacy.sqlite"
    shutil.copy(FIXTURES / "legacy-0.1.1.sqlite", path)
    with ResultsStore(path) as store:
        version = store.meta()["treebench_version"]
    # the trial keys hash treebench's version: pretend to be the writer's release
    monkeypatch.setattr(treebench, "__version__", version)
    return path


def test_legacy_column_is_read_as_the_extra_measure(legacy_store):
    from treebench.experiment.store import ResultsStore

    with ResultsStore(legacy_store) as store:
        frame = store.to_frame()
    assert "pignistic_error" in frame.columns
    belief = frame[frame["algorithm"] == "belief-uncertain"]["pignistic_error"]
    assert len(belief) == 2 and belief.between(0, 1).all()
    assert frame[frame["algorithm"] != "belief-uncertain"]["pignistic_error"].isna().all()
    assert frame.attrs["metrics"]["pignistic_error"].unit == "%"
    # the fixed contract is unchanged around it
    assert list(frame.columns).index("pignistic_error") == list(frame.columns).index("tree_quality") + 1


def test_legacy_store_resumes_and_recomputes_the_same_numbers(legacy_store):
    from treebench.experiment.runner import run_experiment
    from treebench.experiment.store import ResultsStore

    with ResultsStore(legacy_store) as store:
        before = store.to_frame().set_index(["algorithm", "fold"])
    with sqlite3.connect(legacy_store) as conn:  # forget two finished trials
        conn.execute("DELETE FROM trials WHERE (algorithm, fold) IN (('belief-uncertain', 1), ('cart', 0))")
    summary = run_experiment(
        FIXTURES / "legacy.yaml", store_path=legacy_store, quiet=True, echo=lambda line: None, jobs=1
    )
    assert (summary.planned, summary.skipped, summary.done, summary.failed) == (6, 4, 2, 0)
    with ResultsStore(legacy_store) as store:
        after = store.to_frame().set_index(["algorithm", "fold"])
    for column in ("accuracy", "n_leaves", "pignistic_error"):
        np.testing.assert_allclose(
            after.loc[before.index, column].to_numpy(dtype=float),
            before[column].to_numpy(dtype=float),
            rtol=0, atol=1e-12, equal_nan=True,
        )


def test_extra_measures_are_listed_like_the_fixed_ones(legacy_store):
    from click.testing import CliRunner

    from treebench.cli import cli

    runner = CliRunner()
    shown = runner.invoke(cli, ["results", "show", str(legacy_store), "--metric", "pignistic_error"])
    assert shown.exit_code == 0, shown.output
    assert "pignistic_error %" in shown.output  # displayed with the measure's own unit
    compared = runner.invoke(cli, ["compare", str(legacy_store), "--metric", "pignistic_error", "--test", "ttest"])
    assert compared.exit_code == 0, compared.output
    assert "pignistic" in compared.output and "belief-uncertain" in compared.output
    unknown = runner.invoke(cli, ["compare", str(legacy_store), "--metric", "pignistic"])
    message = str(unknown.exception)  # the CLI's main() prints it as one line
    assert "unknown metric 'pignistic'" in message and "pignistic_error" in message
