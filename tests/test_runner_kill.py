"""Real `treebench run` processes killed mid-run (SIGKILL) or interrupted (SIGINT), then resumed.

After a kill -9 the store must hold only whole trials, stay consistent, and a
rerun must complete it without a single duplicate row.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from treebench.experiment.config import load_config
from treebench.experiment.runner import plan, run_experiment
from treebench.experiment.store import ResultsStore

FIXTURES = Path(__file__).parent / "fixtures" / "configs"
MANY = FIXTURES / "many.yaml"  # 10-fold CV x 10 repeats x 2 algorithms on iris = 200 trials
TREEBENCH = Path(sys.executable).parent / "treebench"


def rows_in(store: Path) -> int:
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=1) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM trials").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def _ctrl_c_as_in_a_terminal() -> None:
    # A test runner started in the background of a non-interactive shell ignores SIGINT, and a child
    # inherits that; the run respects an ignored Ctrl-C (as under nohup), so give it a terminal's.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    # Below the test's priority: on 2 busy cores (the suite runs in parallel) the polling test must
    # not be starved while the run finishes all its trials, or the signal comes after the last one.
    os.nice(10)


def start_run(store: Path) -> subprocess.Popen:
    # A session of its own: the test can clean up the whole tree (driver and workers).
    return subprocess.Popen(
        [str(TREEBENCH), "run", str(MANY), "--jobs", "2", "--store", str(store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_ctrl_c_as_in_a_terminal,
    )


def wait_for_rows(process: subprocess.Popen, store: Path, at_least: int, limit: float = 60.0) -> int:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        count = rows_in(store)
        if count >= at_least:
            return count
        if process.poll() is not None:
            pytest.fail(f"the run ended before {at_least} rows: {process.communicate()}")
        time.sleep(0.01)
    pytest.fail(f"no {at_least} rows within {limit}s")


def group_empties(group: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def clean_up(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the session's leftover workers, if any
    except ProcessLookupError:
        pass
    process.communicate()


def check_complete(store: Path) -> None:
    """Every planned trial exactly once, all ok, and a consistent file."""
    keys = {t.key for t in plan(load_config(MANY))}
    with sqlite3.connect(store) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = [row[0] for row in conn.execute("SELECT trial_key FROM trials")]
        statuses = {row[0] for row in conn.execute("SELECT DISTINCT status FROM trials")}
    assert len(stored) == len(set(stored)) == len(keys) == 200
    assert set(stored) == keys and statuses == {"ok"}


def test_kill_9_mid_run_then_rerun_gives_a_complete_store_without_duplicates(tmp_path):
    store = tmp_path / "many.sqlite"
    process = start_run(store)
    try:
        wait_for_rows(process, store, at_least=15)
        os.kill(process.pid, signal.SIGKILL)  # the driver only, as a crash would
        assert process.wait(timeout=30) == -signal.SIGKILL
        # orphaned workers (and the fork server) notice and leave by themselves
        assert group_empties(process.pid, within=15.0)
    finally:
        clean_up(process)
    with sqlite3.connect(store) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT DISTINCT status FROM trials").fetchall() == [("ok",)]
    survived = rows_in(store)
    assert 15 <= survived < 200, "the run was not interrupted mid-way"

    lines: list[str] = []
    summary = run_experiment(MANY, store_path=store, jobs=2, quiet=True, echo=lines.append)
    assert summary.skipped == survived and summary.done == 200 - survived and summary.failed == 0
    check_complete(store)


def test_ctrl_c_finishes_in_flight_trials_prints_the_summary_and_exits_130(tmp_path):
    store = tmp_path / "many.sqlite"
    process = start_run(store)
    try:
        wait_for_rows(process, store, at_least=15)
        os.killpg(process.pid, signal.SIGINT)  # like Ctrl-C in a terminal: the whole group
        out, err = process.communicate(timeout=60)
    finally:
        clean_up(process)
    assert process.returncode == 130, (out, err)
    assert "interrupted:" in err and "many interrupted:" in out and "skipped" in out
    stored = rows_in(store)
    assert stored < 200
    summary = run_experiment(MANY, store_path=store, jobs=1, quiet=True, echo=lambda line: None)
    assert summary.skipped == stored and summary.done == 200 - stored
    check_complete(store)
    with ResultsStore(store) as opened:
        runs = opened.conn.execute("SELECT interrupted FROM runs ORDER BY id").fetchall()
    assert runs == [(1,), (0,)]
