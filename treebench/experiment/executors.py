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
import socket
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool

from treebench.errors import TreebenchError
from treebench.experiment import pool
from treebench.experiment.trial import Result, Trial, run_trial

Finished = list[tuple[Trial, Result]]


#: Seconds :func:`probe_scheduler` waits for a Dask scheduler to accept a connection.
PROBE_SECONDS = 5.0
#: How long the Dask client may take to connect and shake hands.
CONNECT_TIMEOUT = "15s"
#: Dask address schemes whose location is ``HOST:PORT`` (the others: inproc, ucx).
_HOST_PORT_SCHEMES = ("tcp", "tls", "ws", "wss")


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def check_jobs(jobs: int, warn: Callable[[str], None]) -> int:
    """``--jobs`` as run: at most :func:`default_jobs`, with a warning when capped.

    More workers than cores only share the cores (and memory) among more
    processes, so the count is capped rather than refused.

    Raises
    ------
    TreebenchError
        ``jobs`` is 0 or negative.
    """
    cores = default_jobs()
    if jobs < 1:
        raise TreebenchError(
            f"--jobs {jobs} is out of range; accepted: an integer >= 1 (this machine runs at most {cores})"
        )
    if jobs > cores:
        warn(f"warning: --jobs {jobs} is more than the {cores} cores this process may use; running {cores}")
        return cores
    return jobs


def _unusable_schemes(backends: dict) -> dict[str, str]:
    """The schemes Dask knows that can never reach a scheduler from a treebench command, with why.

    ``inproc://`` names a scheduler inside the Python process that started it
    (a new process never finds it); ``ucx://`` is a stub in recent Dask
    releases unless the ``distributed-ucxx`` package replaced it.
    """
    unusable = {"inproc": "an inproc:// scheduler is reachable only from inside the Python process that "
                          "started it, never from a treebench command"}
    ucx = backends.get("ucx")
    if ucx is not None and type(ucx).__module__ == "distributed.comm.ucx":
        unusable["ucx"] = ("this Dask release removed its ucx:// support (it needs the distributed-ucxx "
                           "package, which is not installed)")
    return unusable


def check_scheduler(address: str) -> tuple[str, str]:
    """Check that ``address`` names a Dask scheduler, without connecting to it.

    Returns
    -------
    tuple of str
        The address scheme (``tcp``...) and its location (``HOST:PORT``...).

    Raises
    ------
    TreebenchError
        ``dask.distributed`` is not installed, or ``address`` is not
        ``SCHEME://HOST:PORT`` with a scheme Dask knows and a port in 1..65535,
        or its scheme can never reach a scheduler from here (:func:`_unusable_schemes`).
    """
    try:
        import distributed  # noqa: F401 - the package first: its submodules may be cached alone
        from distributed.comm.addressing import parse_address, parse_host_port
        from distributed.comm.registry import backends
    except ImportError:
        raise TreebenchError(
            "--scheduler needs dask.distributed, which is not installed; "
            "pip install 'treebench[dask]' (or 'dask[distributed]')"
        ) from None
    unusable = _unusable_schemes(backends)
    schemes = sorted(s for s in backends if s not in unusable)
    accepted = f"accepted: SCHEME://HOST:PORT with SCHEME one of {', '.join(schemes)}"
    scheme, location = parse_address(address, strict=False)  # no scheme: Dask's default, tcp
    if scheme not in backends:
        raise TreebenchError(
            f"--scheduler {address!r}: unknown address scheme {scheme!r}; {accepted}"
        )
    if scheme in unusable:  # Dask would fail only when connecting: 30 s later, after the store is written
        raise TreebenchError(f"--scheduler {address!r}: {unusable[scheme]}; {accepted}")
    if scheme in _HOST_PORT_SCHEMES:
        try:
            host, port = parse_host_port(location)
        except ValueError:  # no port, or one that is not a number
            host, port = "", 0
        if not host or any(c.isspace() for c in host) or not 0 < int(port) < 65536:
            raise TreebenchError(f"--scheduler {address!r} is not a Dask scheduler address; {accepted}")
    return scheme, location


def probe_scheduler(address: str, timeout: float = PROBE_SECONDS) -> None:
    """Fail fast, in one line, unless a Dask scheduler answers at ``address``.

    First a plain TCP connection (``HOST:PORT`` schemes), which fails at once
    when nothing listens -- Dask itself would retry until its timeout --, then
    (``tcp://`` only) Dask's own handshake, which fails when something else
    answers: Dask would otherwise read that program's bytes as a message
    length and run out of memory.  Each step waits at most ``timeout`` seconds, before any dataset
    is loaded.
    """
    import asyncio

    from distributed.comm import connect
    from distributed.comm.addressing import parse_host_port

    scheme, location = check_scheduler(address)

    def refuse(why: str) -> TreebenchError:
        return TreebenchError(
            f"cannot reach the Dask scheduler at {address!r}: {why} (waited at most {timeout:g} s)"
        )

    if scheme in _HOST_PORT_SCHEMES:
        host, port = parse_host_port(location)
        try:
            socket.create_connection((host, int(port)), timeout=timeout).close()
        except OSError as exc:
            raise refuse(exc.strerror or str(exc) or type(exc).__name__) from None

    if scheme != "tcp":  # tls and ws need the cluster's security settings to shake hands
        return

    async def handshake() -> None:
        comm = await connect(address, timeout=timeout)
        await comm.close()

    try:
        asyncio.run(asyncio.wait_for(handshake(), timeout))
    except TimeoutError:
        raise refuse("no answer") from None
    except OSError as exc:
        raise refuse(str(exc) or type(exc).__name__) from None
    except Exception:  # noqa: BLE001 - e.g. a MemoryError reading another program's bytes
        raise refuse("something other than a Dask scheduler answers there") from None


class _Signals:
    """How many Ctrl-C / SIGTERM the runner's handlers have seen (:func:`count_interrupt`)."""

    count = 0


def count_interrupt() -> None:
    """Called by the runner's SIGINT and SIGTERM handlers before they raise."""
    _Signals.count += 1


def run_in_driver(trial: Trial) -> Result:
    """Run a trial in this process; raise :class:`KeyboardInterrupt` if a Ctrl-C came meanwhile.

    A signal that arrives while a compiled kernel runs surfaces as a
    ``SystemError`` ("returned a result with an exception set"), which
    :func:`run_trial` records as the trial's failure: the run would neither
    stop nor store a true result.  The trial is dropped instead (a rerun does it).
    """
    before = _Signals.count
    result = run_trial(trial)
    if _Signals.count != before:
        raise KeyboardInterrupt
    return result


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
        return [(trial, run_in_driver(trial))]

    def cancel_pending(self) -> int:
        dropped = len(self.queue)
        self.queue.clear()
        return dropped


_ENV_PREFIX = "TREEBENCH_"


def _init_worker(env: dict[str, str], driver: int) -> None:
    """Set up a worker of the fork server (:func:`pool.context`)."""
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


def _init_forked_worker(driver: int) -> None:
    """Set up a worker forked from the driver itself (:func:`pool.fork_context`).

    It runs at a lower priority (:data:`pool.NICENESS`): on a busy machine
    the driver's trials come first, on an idle core the worker runs at full
    speed.  It inherits the driver's memory, signal handlers and open files: it
    ignores Ctrl-C (the driver decides), takes SIGTERM's default back (the
    driver's handler would turn the pool's ``terminate`` into an exception
    inside a trial), and dies with the driver.  It only runs
    :func:`~treebench.experiment.trial.run_trial` and leaves by ``os._exit``
    (multiprocessing's fork start), so the driver's SQLite connection, its
    store lock and its ``atexit`` handlers are never used nor closed here.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:  # the driver keeps its core: a worker takes what is idle, so N jobs cannot be slower than 1
        os.nice(pool.NICENESS)
    except OSError:  # pragma: no cover - not allowed: the usual priority
        pass
    if not _die_with_parent(driver):
        threading.Thread(target=_exit_with_driver, args=(driver,), daemon=True).start()


def _die_with_parent(driver: int) -> bool:
    """Ask Linux to kill this process when the driver dies; ``False`` where it cannot.

    Immediate, even while a compiled kernel holds the GIL, so a ``kill -9``
    of the driver leaves no worker holding (a copy of) the store's lock.
    """
    try:
        import ctypes

        pr_set_pdeathsig = 1
        if ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL) != 0:
            return False
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return False
    if os.getppid() != driver:  # the driver died before the request: nobody would send the signal
        os._exit(0)
    return True


class ProcessExecutor(Executor):
    """``--jobs N``: the driver runs trials itself, beside a pool of ``N - 1`` local worker processes.

    Where it can (:func:`pool.can_fork`), the driver loads the kernels, then
    forks its workers (:func:`pool.warm`): they start with everything loaded,
    at once, and take trials from the first one on.  Otherwise the workers
    come from a fork server that must first import treebench and load the
    kernels (:mod:`treebench.experiment.warmup`), seconds that a short run
    would otherwise spend waiting: the driver then hands trials to the pool
    only once :func:`pool.ready` says a worker starts at once.  Either way the
    driver is one of the ``N`` processes and keeps the pool fed with just what
    its workers run and prefetch, so that no trial sits in a busy worker's
    queue while the driver is free.  Results are collected before the driver
    starts its next trial, and the driver alone writes them.  The trials are
    the same pure function wherever they run.
    """

    name = "processes"

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.workers = max(jobs - 1, 1)
        self.capacity = 2 * jobs  # enough to keep everyone busy, few to cancel on Ctrl-C
        # what a pool holds without a free worker to take it: one running and one prefetched per worker
        self.pool_capacity = self.workers + 1
        self.futures: dict[Future, Trial] = {}
        self.waiting: deque[Trial] = deque()  # submitted, not yet given to the pool nor run
        self.superseded: set[Future] = set()  # pool copies of trials the driver ran itself
        self.driver_seconds: list[float] = []  # how long the driver's own trials took
        self.stopping = False
        self.pool: ProcessPoolExecutor | None = None
        self.forked = False  # whether the current pool's workers are forked from the driver
        if not pool.fork_supported():
            pool.prestart()  # no-op when the command line has started it already

    def _new_pool(self) -> ProcessPoolExecutor:
        """A pool forked from the (warmed) driver where :func:`pool.can_fork`, else the fork server's."""
        self.forked = pool.can_fork()
        if self.forked:
            pool.warm()  # before the fork: the workers inherit the loaded kernels
            return ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=pool.fork_context(),
                initializer=_init_forked_worker,
                initargs=(os.getpid(),),
            )
        env = {k: v for k, v in os.environ.items() if k.startswith(_ENV_PREFIX)}
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=pool.context(),
            initializer=_init_worker,
            initargs=(env, os.getpid()),
        )

    def _pool_ready(self) -> bool:
        """Whether a new pool's workers would start at once: forked from the driver, or a preloaded server."""
        if pool.can_fork():
            return True
        pool.prestart()  # the fallback (a thread is alive): no-op once started
        return pool.ready()

    def describe(self) -> str:
        return f"{self.jobs} local processes"

    def submit(self, trial: Trial) -> None:
        self.waiting.append(trial)
        self._hand_over()

    def _hand_over(self) -> None:
        """Fill the pool up to what its workers run and prefetch, once they start without waiting."""
        if self.pool is None and self.waiting and self._pool_ready():
            self.pool = self._new_pool()
        with warnings.catch_warnings():
            # Python 3.12+ warns when it forks a process with threads, counting
            # those Python does not run (OpenBLAS's): they are fork-safe, and
            # pool.can_fork() has checked that no Python thread runs.  The
            # workers are forked at the pool's first submit.
            warnings.filterwarnings("ignore", message=".*fork", category=DeprecationWarning)
            while self.pool is not None and self.waiting and len(self.futures) < self.pool_capacity:
                trial = self.waiting.popleft()
                self.futures[self.pool.submit(run_trial, trial)] = trial

    def in_flight(self) -> int:
        return len(self.futures) + len(self.waiting)

    def wait(self) -> Finished:
        self._hand_over()
        overdue = False
        while True:
            if self.stopping or any(future.done() for future in self.futures):
                return self._collect()
            # Nothing to store yet: the driver runs the next trial itself, or,
            # with none left, takes back the newest one a worker holds: at once
            # if no worker has started it, else once the pool has returned
            # nothing for twice a trial's usual time (a worker slow to start or
            # starved of CPU).  A trial is a pure function: of two copies, the
            # driver's is stored and the worker's dropped.
            trial = self.waiting.popleft() if self.waiting else self._take_back(overdue)
            if trial is not None:
                started = time.perf_counter()
                finished = [(trial, run_in_driver(trial))]
                self.driver_seconds.append(time.perf_counter() - started)
                return finished + (self._collect() if any(f.done() for f in self.futures) else [])
            finished = self._collect(timeout=self._patience())
            if finished:
                return finished
            overdue = True

    def _patience(self) -> float:
        """Twice the median seconds of the driver's recent trials (1 s before any)."""
        if not self.driver_seconds:
            return 1.0
        recent = sorted(self.driver_seconds[-20:])
        return max(2.0 * recent[len(recent) // 2], 0.05)

    def _take_back(self, overdue: bool) -> Trial | None:
        """The trial of the newest pool future, if no worker started it or ``overdue``."""
        if not self.futures:
            return None
        future = next(reversed(self.futures))
        if future.cancel():
            return self.futures.pop(future)
        if not overdue:
            return None
        self.superseded.add(future)  # its result is dropped; its worker is stopped at the end
        return self.futures.pop(future)

    def _collect(self, timeout: float | None = None) -> Finished:
        """Wait (at most ``timeout`` s) for pool trials; those finished, a dead worker's as failed."""
        done, _ = wait_futures(list(self.futures), timeout=timeout, return_when=FIRST_COMPLETED)
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
        if broken and self.pool is not None:
            # Every trial of a broken pool fails the same way; a new pool gives
            # the trials still to submit a fresh chance.  Its workers have been
            # terminated, so waiting for the pool's own thread to end is short
            # (and lets the next pool fork from a driver without threads).
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
            self._hand_over()
        return finished

    def cancel_pending(self) -> int:
        self.stopping = True  # from now on only collect what the workers run
        cancelled = [f for f in self.futures if f.cancel()]
        for future in cancelled:
            del self.futures[future]
        dropped = len(cancelled) + len(self.waiting)
        self.waiting.clear()
        return dropped

    def shutdown(self, abort: bool = False) -> None:
        self.waiting.clear()
        if self.pool is None:
            return
        if abort or any(not future.done() for future in self.superseded):
            processes = list((getattr(self.pool, "_processes", None) or {}).values())
            self.pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            for process in processes:  # a forked worker holds the store's lock until it has exited
                process.join(10.0)
        else:
            self.pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor(Executor):
    """Trials on a ``dask.distributed`` cluster (``--scheduler ADDRESS``)."""

    name = "dask"

    def __init__(self, address: str) -> None:
        check_scheduler(address)  # one line for a missing dask or a malformed address
        from distributed import Client

        try:
            self.client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except Exception as exc:  # noqa: BLE001 - e.g. MemoryError when another program answers
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
