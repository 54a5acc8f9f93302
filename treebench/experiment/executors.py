"""Where trials run: in the driver, in local worker processes, or on a Dask cluster.

All executors have the same small interface, used by the runner's loop: the
driver keeps a bounded number of trials in flight, collects finished ones as
they complete (any order) and writes them itself -- workers never touch the
store.  Because :func:`~treebench.experiment.trial.run_trial` is a pure
function of its trial, the backend changes the timing, never the numbers.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool

from treebench.errors import TreebenchError
from treebench.experiment import pool
from treebench.experiment.trial import Result, Trial, run_trial

Finished = list[tuple[Trial, Result]]


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class Executor:
    """Interface: ``submit`` up to ``capacity`` trials, ``wait`` for at least one."""

    name = "executor"
    capacity = 1

    def submit(self, trial: Trial) -> None:
        raise NotImplementedError

    def in_flight(self) -> int:
        raise NotImplementedError

    def wait(self) -> Finished:
        """Block until at least one submitted trial finishes; return those finished."""
        raise NotImplementedError

    def cancel_pending(self) -> int:
        """Drop submitted trials that have not started; returns how many."""
        return 0

    def shutdown(self, abort: bool = False) -> None:
        """Release workers; ``abort`` stops running trials too."""

    def describe(self) -> str:
        return self.name


class SequentialExecutor(Executor):
    """Runs trials one by one in the driver process (``--jobs 1``)."""

    name = "sequential"

    def __init__(self) -> None:
        self.queue: deque[Trial] = deque()

    def submit(self, trial: Trial) -> None:
        self.queue.append(trial)

    def in_flight(self) -> int:
        return len(self.queue)

    def wait(self) -> Finished:
        trial = self.queue.popleft()
        return [(trial, run_trial(trial))]

    def cancel_pending(self) -> int:
        dropped = len(self.queue)
        self.queue.clear()
        return dropped


_ENV_PREFIX = "TREEBENCH_"


def _init_worker(env: dict[str, str], driver: int) -> None:
    # Ctrl-C reaches the whole process group: workers ignore it so the driver
    # alone decides (finish the trials in flight, then stop).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The data layer reads TREEBENCH_* at load time; a forkserver may have been
    # started with an older environment, so hand the driver's over explicitly.
    for name in [n for n in os.environ if n.startswith(_ENV_PREFIX)]:
        del os.environ[name]
    os.environ.update(env)
    threading.Thread(target=_exit_with_driver, args=(driver,), daemon=True).start()


def _exit_with_driver(driver: int) -> None:
    """Leave when the driver is gone (e.g. ``kill -9``).

    A pool worker otherwise waits for work forever: it holds both ends of its
    own task queue, so it never sees the driver's end close.
    """
    while True:
        time.sleep(1.0)
        try:
            os.kill(driver, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # pragma: no cover - the pid was reused by another user
            os._exit(0)


class ProcessExecutor(Executor):
    """A pool of local worker processes (``--jobs N``)."""

    name = "processes"

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.capacity = 2 * jobs  # enough to keep workers busy, few to cancel on Ctrl-C
        self.futures: dict[Future, Trial] = {}
        self.pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        env = {k: v for k, v in os.environ.items() if k.startswith(_ENV_PREFIX)}
        return ProcessPoolExecutor(
            max_workers=self.jobs,
            mp_context=pool.context(),
            initializer=_init_worker,
            initargs=(env, os.getpid()),
        )

    def describe(self) -> str:
        return f"{self.jobs} local processes"

    def submit(self, trial: Trial) -> None:
        self.futures[self.pool.submit(run_trial, trial)] = trial

    def in_flight(self) -> int:
        return len(self.futures)

    def wait(self) -> Finished:
        done, _ = wait_futures(list(self.futures), return_when=FIRST_COMPLETED)
        finished, broken = [], False
        for future in done:
            trial = self.futures.pop(future)
            if future.cancelled():
                continue
            try:
                finished.append((trial, future.result()))
            except BrokenProcessPool:
                broken = True
                finished.append(
                    (trial, _failed(trial, "a worker process died (killed or out of memory)"))
                )
            except Exception as exc:  # e.g. a result that cannot be unpickled
                finished.append((trial, _failed(trial, f"{type(exc).__name__}: {exc}")))
        if broken:
            # Every trial of a broken pool fails the same way; start a new pool
            # so the trials still to submit get a fresh chance.
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = self._new_pool()
        return finished

    def cancel_pending(self) -> int:
        cancelled = [f for f in self.futures if f.cancel()]
        for future in cancelled:
            del self.futures[future]
        return len(cancelled)

    def shutdown(self, abort: bool = False) -> None:
        if abort:
            processes = list((getattr(self.pool, "_processes", None) or {}).values())
            self.pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
        else:
            self.pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor(Executor):
    """Trials on a ``dask.distributed`` cluster (``--scheduler ADDRESS``)."""

    name = "dask"

    def __init__(self, address: str) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise TreebenchError(
                "--scheduler needs dask.distributed, which is not installed; "
                "pip install 'treebench[dask]' (or 'dask[distributed]')"
            ) from None
        try:
            self.client = Client(address, timeout="15s", set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise TreebenchError(
                f"cannot connect to the Dask scheduler at {address!r}: {exc}"
            ) from None
        self.address = address
        threads = sum(self.client.nthreads().values()) or 1
        self.capacity = 2 * threads
        self.futures: dict = {}

    def describe(self) -> str:
        return f"Dask cluster at {self.address}"

    def submit(self, trial: Trial) -> None:
        self.futures[self.client.submit(run_trial, trial, pure=False)] = trial

    def in_flight(self) -> int:
        return len(self.futures)

    def wait(self) -> Finished:
        from distributed import wait

        with self.client.as_current():  # `wait` uses the current client, not necessarily ours
            done = wait(list(self.futures), return_when="FIRST_COMPLETED").done
        finished = []
        for future in done:
            trial = self.futures.pop(future)
            if future.status == "finished":
                finished.append((trial, future.result()))
            elif future.status != "cancelled":
                exc = future.exception()
                finished.append((trial, _failed(trial, f"{type(exc).__name__}: {exc}")))
            future.release()
        return finished

    def shutdown(self, abort: bool = False) -> None:
        if abort and self.futures:
            self.client.cancel(list(self.futures))
        self.futures.clear()
        self.client.close()


def _failed(trial: Trial, text: str) -> Result:
    import json

    return Result(
        key=trial.key,
        status="failed",
        error_text=text,
        params=json.dumps(trial.algorithm.fixed_params, sort_keys=True),
    )


def make_executor(jobs: int | None, scheduler: str | None) -> Executor:
    """Dask if ``scheduler`` is given, else processes for ``jobs > 1``, else sequential."""
    if scheduler:
        return DaskExecutor(scheduler)
    jobs = default_jobs() if jobs is None or jobs <= 0 else jobs
    return SequentialExecutor() if jobs == 1 else ProcessExecutor(jobs)
