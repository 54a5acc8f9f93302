"""The multiprocessing context of the local worker pool (kept import-light).

On POSIX the pool forks its workers from a ``forkserver`` that has preloaded
:mod:`treebench.experiment.warmup` (the trial code, with numba's kernels
loaded).  Forking from a clean server is safe even though the driver runs
threads (tqdm, SQLite), and forked workers start in milliseconds.
:func:`prestart` launches that server early, so its imports overlap with the
driver's own start-up instead of following it.
"""

from __future__ import annotations

import multiprocessing

PRELOAD = ["treebench.experiment.warmup"]


def context() -> multiprocessing.context.BaseContext:
    """``forkserver`` (with the preload) where available, else ``spawn``."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        forkserver = multiprocessing.get_context("forkserver")
        forkserver.set_forkserver_preload(PRELOAD)
        return forkserver
    return multiprocessing.get_context("spawn")  # pragma: no cover - Windows


def prestart() -> None:
    """Start the fork server now (no-op where there is none); it preloads in the background."""
    if context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()
