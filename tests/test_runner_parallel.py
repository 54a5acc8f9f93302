"""``--jobs N`` scheduling: workers forked from the warmed driver take trials from the start; without
that (another thread alive, or not Linux) the driver runs trials while the fork server starts, hands
them over once it is ready, takes back what a starved worker holds -- and the store is the sequential
one in every case.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pandas as pd
import pytest
from test_runner import FAILING, TINY, comparable, run

from treebench.experiment import executors, pool

FIXTURES = Path(__file__).parent / "fixtures" / "configs"


@pytest.fixture(scope="module")
def sequential_store(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("seq") / "tiny.sqlite"
    summary, output = run(TINY, store, jobs=1)
    assert summary.done == 36 and summary.failed == 0, output
    return store


@pytest.fixture
def forkserver_only(monkeypatch) -> None:
    """The fallback path: as if a thread were alive in the driver (or the platform had no fork)."""
    monkeypatch.setattr(pool, "can_fork", lambda: False)


def wait_until_ready(limit: float = 120.0) -> None:
    pool.prestart()
    deadline = time.monotonic() + limit
    while not pool.ready():
        if time.monotonic() > deadline:
            pytest.fail(f"the fork server's preload left no marker within {limit:g} s")
        time.sleep(0.05)


@pytest.fixture
def pool_submissions(monkeypatch) -> list[str]:
    """Trial keys given to the worker pool (wrapping the real pool's submit)."""
    keys: list[str] = []
    new_pool = executors.ProcessExecutor._new_pool

    def counting(self):
        real = new_pool(self)
        submit = real.submit

        def submit_and_count(fn, trial):
            keys.append(trial.key)
            return submit(fn, trial)

        real.submit = submit_and_count
        return real

    monkeypatch.setattr(executors.ProcessExecutor, "_new_pool", counting)
    return keys


def test_while_the_pool_starts_the_driver_runs_every_trial(forkserver_only, sequential_store, tmp_path, monkeypatch):
    monkeypatch.setattr(pool, "ready", lambda: False)
    monkeypatch.setattr(executors.ProcessExecutor, "_new_pool", lambda self: pytest.fail("no pool before ready"))
    summary, output = run(TINY, tmp_path / "d.sqlite", jobs=2)
    assert summary.done == 36 and summary.failed == 0, output
    pd.testing.assert_frame_equal(comparable(sequential_store), comparable(tmp_path / "d.sqlite"))


def test_a_ready_fork_server_takes_trials_beside_the_driver(forkserver_only, sequential_store, tmp_path, pool_submissions):
    wait_until_ready()
    summary, output = run(TINY, tmp_path / "p.sqlite", jobs=2)
    assert summary.done == 36 and summary.failed == 0, output
    assert 0 < len(set(pool_submissions)) <= 36
    pd.testing.assert_frame_equal(comparable(sequential_store), comparable(tmp_path / "p.sqlite"))


def test_the_pool_joins_mid_run(forkserver_only, sequential_store, tmp_path, monkeypatch, pool_submissions):
    wait_until_ready()
    asked = []
    monkeypatch.setattr(pool, "ready", lambda: asked.append(1) or len(asked) > 6)
    summary, output = run(TINY, tmp_path / "m.sqlite", jobs=2)
    assert summary.done == 36, output
    assert 0 < len(set(pool_submissions)) < 36  # the driver ran the first trials
    pd.testing.assert_frame_equal(comparable(sequential_store), comparable(tmp_path / "m.sqlite"))


def test_a_failing_trial_in_a_fork_server_worker_is_stored_with_its_error(forkserver_only, tmp_path, pool_submissions):
    wait_until_ready()
    summary, output = run(FAILING, tmp_path / "f.sqlite", jobs=2)
    assert (summary.done, summary.failed) == (9, 3), output
    assert pool_submissions
    frame = comparable(tmp_path / "f.sqlite")
    broken = frame[frame["algorithm"] == "Broken"]
    assert all(t.startswith("RuntimeError: boom") for t in broken["error_text"])


class StarvedPool:
    """A pool whose workers start every trial and never finish one (a worker starved of CPU)."""

    def __init__(self) -> None:
        self.futures: list[Future] = []
        self.stopped = False

    def submit(self, fn, trial) -> Future:
        future: Future = Future()
        future.set_running_or_notify_cancel()  # started: it cannot be cancelled any more
        self.futures.append(future)
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        assert not wait, "the driver must not wait for a copy it has already run"
        self.stopped = True


def test_the_driver_takes_back_what_a_starved_worker_holds(sequential_store, tmp_path, monkeypatch):
    starved = StarvedPool()
    monkeypatch.setattr(pool, "ready", lambda: True)
    monkeypatch.setattr(executors.ProcessExecutor, "_new_pool", lambda self: starved)
    monkeypatch.setattr(executors.ProcessExecutor, "_patience", lambda self: 0.01)
    summary, output = run(TINY, tmp_path / "s.sqlite", jobs=2)
    assert summary.done == 36 and summary.failed == 0, output
    assert starved.futures and starved.stopped
    pd.testing.assert_frame_equal(comparable(sequential_store), comparable(tmp_path / "s.sqlite"))


def test_patience_follows_the_driver_trials():
    executor = executors.ProcessExecutor.__new__(executors.ProcessExecutor)
    executor.driver_seconds = []
    assert executor._patience() == 1.0
    executor.driver_seconds = [0.2, 0.4, 9.0]
    assert executor._patience() == pytest.approx(0.8)
    executor.driver_seconds = [0.001]
    assert executor._patience() == 0.05


def test_the_fork_server_leaves_its_marker_for_this_driver_only(forkserver_only):
    wait_until_ready()
    assert pool.marker().exists() and pool.ready()
    assert pool.marker().name == f"treebench-forkserver-{os.getpid()}.ready"


# --------------------------------------------------------------------------- workers forked from the driver
# Run in a fresh interpreter: an earlier test (the Dask cluster's) may leave a
# thread alive in this one, and then the executor rightly takes the fork server.
FORK_PROBE = """
import json, os, signal, sys
from treebench.experiment import executors, pool
from treebench.experiment.runner import run_experiment

contexts, keys = [], []
new_pool = executors.ProcessExecutor._new_pool

def recording(self):
    real = new_pool(self)
    contexts.append(real._mp_context.get_start_method())
    submit = real.submit
    def counting(fn, trial):
        keys.append(trial.key)
        return submit(fn, trial)
    real.submit = counting
    return real

def worker_state(_):
    return [signal.getsignal(signal.SIGINT) is signal.SIG_IGN, os.nice(0) >= pool.NICENESS,
            signal.getsignal(signal.SIGTERM) is signal.SIG_DFL,
            pool._warmed_in == os.getppid()]  # the kernels came loaded from the driver

executors.ProcessExecutor._new_pool = recording
pool.prestart = lambda: sys.exit("no fork server on the fork path")
summary = run_experiment(sys.argv[1], jobs=2, store_path=sys.argv[2], quiet=True, echo=lambda line: None)
signal.signal(signal.SIGTERM, lambda signum, frame: None)  # as the runner's handler during a run
# the run's pool may still be winding its manager thread down (slowly under NUMBA_BOUNDSCHECK):
# with a thread alive the executor rightly takes the fork server, which cannot load this script's function
import threading, time
deadline = time.monotonic() + 60
while threading.active_count() > 1 and time.monotonic() < deadline:
    time.sleep(0.05)
workers = new_pool(executors.ProcessExecutor(2))
state = workers.submit(worker_state, 0).result(timeout=60)
workers.shutdown(wait=True)
print(json.dumps({"contexts": contexts, "pool_trials": len(set(keys)), "done": summary.done,
                  "failed": summary.failed, "worker": state}))
"""


def run_probe(config: Path, store: Path) -> dict:
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", FORK_PROBE, str(config), str(store)],
        capture_output=True, text=True, timeout=300, env=dict(os.environ),
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not pool.fork_supported(), reason="workers fork from the driver on Linux only")
def test_workers_forked_from_the_driver_take_trials_at_once(sequential_store, tmp_path):
    probe = run_probe(TINY, tmp_path / "w.sqlite")
    assert probe["contexts"] == ["fork"]  # forked from the driver, no fork server started
    assert (probe["done"], probe["failed"]) == (36, 0)
    assert 0 < probe["pool_trials"] < 36
    # a forked worker ignores Ctrl-C, runs niced, takes SIGTERM's default back, and has the driver's kernels
    assert probe["worker"] == [True, True, True, True]
    pd.testing.assert_frame_equal(comparable(sequential_store), comparable(tmp_path / "w.sqlite"))


@pytest.mark.skipif(not pool.fork_supported(), reason="workers fork from the driver on Linux only")
def test_a_failing_trial_in_a_forked_worker_is_stored_with_its_error(tmp_path):
    probe = run_probe(FAILING, tmp_path / "ff.sqlite")
    assert probe["contexts"] == ["fork"] and probe["pool_trials"] > 0
    assert (probe["done"], probe["failed"]) == (9, 3)
    frame = comparable(tmp_path / "ff.sqlite")
    broken = frame[frame["algorithm"] == "Broken"]
    assert len(broken) == 3 and all(t.startswith("RuntimeError: boom") for t in broken["error_text"])


def test_no_fork_from_a_driver_running_a_thread():
    release = threading.Event()
    thread = threading.Thread(target=release.wait, daemon=True)
    thread.start()
    try:
        assert not pool.can_fork()
    finally:
        release.set()
        thread.join()


def test_a_ctrl_c_during_a_driver_trial_stops_the_run_instead_of_failing_the_trial(monkeypatch):
    # what a Ctrl-C inside a compiled kernel gives: run_trial returns a "failed" SystemError
    def interrupted(trial):
        executors.count_interrupt()  # as the runner's handler does
        return "failed: SystemError: CPUDispatcher(...) returned a result with an exception set"

    monkeypatch.setattr(executors, "run_trial", interrupted)
    trial = object()
    with pytest.raises(KeyboardInterrupt):
        executors.run_in_driver(trial)
    monkeypatch.setattr(executors, "run_trial", lambda trial: "result")
    assert executors.run_in_driver(trial) == "result"


def test_no_fork_from_a_process_with_a_java_vm(monkeypatch):
    """A forked copy of a JVM crashes in JPype's native code: the pool then uses its fork server."""
    import sys
    import types

    from treebench.experiment import pool

    fake = types.SimpleNamespace(isJVMStarted=lambda: True)
    monkeypatch.setitem(sys.modules, "jpype", fake)
    assert pool.jvm_started() and not pool.can_fork()
    fake.isJVMStarted = lambda: False
    assert not pool.jvm_started()
