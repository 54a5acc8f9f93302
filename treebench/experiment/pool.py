"""How the local worker pool starts its workers (kept import-light).

Two ways, chosen when the pool is created:

* **fork from the driver** (Linux, no other Python thread alive): the driver
  first loads the compiled kernels itself (:func:`warm`, the load its own
  first trial would pay anyway), then forks its workers, which start in
  milliseconds with treebench imported, the kernels loaded and the datasets
  the driver has already read in memory.  Nothing is imported or loaded twice,
  so a short run costs no CPU the driver would not spend.  Forking a process
  that runs threads can leave a lock held in the child, hence the check
  (:func:`can_fork`); the runner's progress bar runs no monitor thread for that
  reason.  Native threads that Python does not see (OpenBLAS's pool) register
  their own ``pthread_atfork`` handlers and are safe to fork.
* **fork server** (elsewhere, or when a thread is alive): workers fork from a
  ``forkserver`` that preloads :mod:`treebench.experiment.warmup` (the trial
  code, with numba's kernels loaded), safe whatever the driver runs.
  :func:`prestart` launches that server early, so its imports overlap with
  the driver's own start-up instead of following it.  Starting a worker
  blocks until the server has finished its preload (seconds on a busy
  machine), so the driver asks :func:`ready` first and runs trials itself
  until then: the preload ends by leaving a marker file named after the
  driver's process id (:func:`marker`), which the driver only has to look for.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import sys
import tempfile
import threading
from pathlib import Path

PRELOAD = ["treebench.experiment.warmup"]
#: Added to the fork server's (and so its workers') nice value: its preload takes the idle cores, not the driver's.
NICENESS = 10

_started_by: int | None = None  # the pid that first started the server (a forked test process is another)
_marked = True  # False when the temporary folder cannot hold the marker: then never wait for it
_warmed_in: int | None = None  # the pid whose kernels :func:`warm` has loaded


def fork_supported() -> bool:
    """Whether this platform forks workers from the driver: Linux (macOS's system libraries are not fork-safe)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def can_fork() -> bool:
    """Whether workers may be forked from this process now: supported, no other Python thread alive,
    and no Java VM started here (its threads are invisible to ``threading``, and a forked copy of a
    JVM crashes in JPype's native code when the child exits)."""
    return fork_supported() and threading.active_count() == 1 and not jvm_started()


def jvm_started() -> bool:
    """Whether this process has started a Java VM through JPype (the weka-j48 learner's engine)."""
    jpype = sys.modules.get("jpype")
    try:
        return bool(jpype is not None and jpype.isJVMStarted())
    except Exception:  # noqa: BLE001 - a JPype too old or broken to ask: assume a JVM
        return True


def context() -> multiprocessing.context.BaseContext:
    """The fork server's context (``forkserver`` with the preload) where available, else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        forkserver = multiprocessing.get_context("forkserver")
        forkserver.set_forkserver_preload(PRELOAD)
        return forkserver
    return multiprocessing.get_context("spawn")  # pragma: no cover - Windows


def fork_context() -> multiprocessing.context.BaseContext:
    """The context that forks workers from the driver itself (check :func:`can_fork` first)."""
    return multiprocessing.get_context("fork")


def warm() -> None:
    """Fit and apply one tiny tree, once per process: loads the induction and traversal kernels.

    Called by the driver before it forks its workers (they inherit the loaded
    kernels) and by the fork server's preload.  Loading is what the first
    trial would do anyway; with a cold cache this compiles them (once, on disk).
    """
    global _warmed_in
    if _warmed_in == os.getpid():
        return
    import numpy as np

    from treebench.trees.model import TreeModel  # what the trials fit: no scikit-learn import

    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    TreeModel("entropy").fit(X, y).predict(X)
    TreeModel("entropy", feature_ties="random", random_state=0).fit(X, y)  # the seeded tie draws
    _warmed_in = os.getpid()


def marker(driver: int | None = None) -> Path:
    """The file the fork server's preload of ``driver`` (default: this process) leaves when it is done."""
    return Path(tempfile.gettempdir()) / f"treebench-forkserver-{os.getpid() if driver is None else driver}.ready"


def prestart() -> None:
    """Start the fork server now (no-op where there is none); it preloads in the background."""
    global _started_by, _marked
    if context().get_start_method() != "forkserver":
        return  # pragma: no cover - Windows
    from multiprocessing import forkserver

    if _started_by != os.getpid():
        # a marker left by an earlier process with this pid would say "ready" too soon
        marker().unlink(missing_ok=True)
        _marked = os.access(tempfile.gettempdir(), os.W_OK)
        _started_by = os.getpid()
        atexit.register(marker().unlink, missing_ok=True)
    forkserver.ensure_running()


def ready() -> bool:
    """Whether a worker can start without waiting for the fork server's preload.

    ``True`` where there is no fork server (workers are spawned: nothing to
    wait for that waiting would shorten).
    """
    if context().get_start_method() != "forkserver" or not _marked:
        return True  # pragma: no cover - Windows, or no marker to wait for
    return marker().exists()
