"""The multiprocessing context of the local worker pool (kept import-light).

On POSIX the pool forks its workers from a ``forkserver`` that has preloaded
:mod:`treebench.experiment.warmup` (the trial code, with numba's kernels
loaded).  Forking from a clean server is safe even though the driver runs
threads (tqdm, SQLite), and forked workers start in milliseconds.
:func:`prestart` launches that server early, so its imports overlap with the
driver's own start-up instead of following it.

Starting a worker blocks until the server has finished its preload (seconds on
a busy machine), so the driver asks :func:`ready` first and runs trials itself
until then: the preload ends by leaving a marker file named after the
driver's process id (:func:`marker`), which the driver only has to look for.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import tempfile
from pathlib import Path

PRELOAD = ["treebench.experiment.warmup"]
#: Added to the fork server's (and so the workers') nice value: they take the idle cores, not the driver's.
NICENESS = 10

_started_by: int | None = None  # the pid that first started the server (a forked test process is another)
_marked = True  # False when the temporary folder cannot hold the marker: then never wait for it


def context() -> multiprocessing.context.BaseContext:
    """``forkserver`` (with the preload) where available, else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        forkserver = multiprocessing.get_context("forkserver")
        forkserver.set_forkserver_preload(PRELOAD)
        return forkserver
    return multiprocessing.get_context("spawn")  # pragma: no cover - Windows


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
