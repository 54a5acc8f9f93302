"""Warm a worker: import the trial code and load the compiled kernels once.

Imported by the local process pool's fork server (``set_forkserver_preload``):
the fallback of :mod:`treebench.experiment.pool` where workers cannot fork from
the warmed driver itself (not Linux, or a thread alive).  Every worker forked
from that server starts with numba's kernels already loaded from their on-disk
cache instead of paying for that on its first trial.  Importing
this module has that side effect on purpose; nothing else imports it.  When it
is done it leaves :func:`treebench.experiment.pool.marker` of its parent (the
driver, which runs trials itself until then).

The fork server and the workers forked from it run at a lower priority
(:data:`treebench.experiment.pool.NICENESS`): they use the cores nothing else
wants, so on a busy machine ``--jobs N`` cannot slow the driver, which runs
trials at normal priority, below ``--jobs 1``.
"""

from __future__ import annotations

import os

from treebench.experiment.pool import NICENESS, marker

_DRIVER = os.getppid()  # read first: a driver gone before the preload ends leaves the server to init

try:  # first: the imports below are most of the preload
    os.nice(NICENESS)
except OSError:  # pragma: no cover - not allowed: the usual priority
    pass

import treebench.experiment.trial  # noqa: E402, F401 - the worker's code, imported once


def warm() -> None:
    """Load the kernels the workers use (:func:`treebench.experiment.pool.warm`), announced by the driver only."""
    from treebench.experiment.pool import warm as load_kernels
    from treebench.kernels.readiness import mark_announced

    mark_announced()  # the driver speaks of a first compile, not every worker
    load_kernels()


try:
    warm()
except Exception:  # pragma: no cover - warming is an optimisation, never a failure
    pass
finally:
    try:
        if os.getppid() == _DRIVER:
            marker(_DRIVER).touch()
    except OSError:  # pragma: no cover - no writable temp folder: the driver keeps the trials
        pass
