"""Suite-wide set-up: the markers, one kernel compile before parallel workers, a kernel-reach report.

Three jobs, each for a faster or safer suite run (``make test`` runs it with pytest-xdist,
one worker per core):

* **Markers** (declared in ``pyproject.toml``): ``kernels`` on the tests that drive compiled
  code (``make test-boundscheck`` runs only those, with numba's bounds checks on), ``slow``
  on the process-heavy and exhaustive ones (``make test-fast`` leaves them out).  A module
  opts in with ``pytestmark``; :data:`KERNEL_MODULES` and :data:`SLOW_MODULES` below are
  the whole-module lists, so that the choice of a module is visible in one place.
* **One compile, then shared**: before xdist starts its workers, the controller fills numba's
  on-disk cache for every kernel group the cache lacks (:mod:`treebench.trees.warm`), in one
  child process per worker, groups balanced by their compile time.  Without this every
  worker compiled the same kernels itself on first use (about 100 s of a cold run's wall
  time).  Workers then only *read* the cache; a kernel a warmer does not reach still compiles
  in a worker on first use, and numba writes each cache file to a temporary name and
  renames it into place, so two workers never see a half-written file.  A run of paths that
  hold no kernel module (``pytest -n 2 tests/test_stats_paired.py``) skips the warm-up;
  ``TREEBENCH_TEST_NO_WARM=1`` skips it always.
* **Kernel reach**: at the end of a session, which of treebench's compiled entry points (the
  cached kernels Python calls) the tests called: numba records every signature on the dispatcher.
  Printed in the terminal summary; with ``TREEBENCH_KERNEL_REACH=require`` (set by
  ``make test-boundscheck``) a selection that leaves a kernel unreached fails the run, so the
  bounds-checked subset cannot silently drift away from a kernel.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: Test modules whose every test drives compiled kernels (the bounds-checked subset).
KERNEL_MODULES = frozenset({
    "test_bad_inputs_estimators", "test_belief", "test_belief_engine", "test_c45_compiled",
    "test_c45_parity", "test_c45_tree", "test_criteria_values", "test_encoding", "test_estimator",
    "test_estimator_api", "test_estimator_checks", "test_feature_ties", "test_mee", "test_mee_grow",
    "test_mee_envelope", "test_online", "test_online_kernel", "test_plugins", "test_possibilistic_bound", "test_pruning",
    "test_random_trees", "test_serrurier2015", "test_tree_pictures", "test_trees",
})

#: Test modules whose every test starts many processes, compiles with a cold cache or waits on
#: purpose (``make test-fast`` skips them; ``make test`` and CI run them).
SLOW_MODULES = frozenset({
    "test_bad_inputs_surfaces", "test_docs_run", "test_leaderboard", "test_readiness", "test_runner_kill",
    "test_warm",
})

#: Set to ``require`` to fail a run whose selection leaves one of treebench's kernels unreached.
REACH_ENV = "TREEBENCH_KERNEL_REACH"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every test of a listed module its module's markers."""
    for item in items:
        name = item.module.__name__ if getattr(item, "module", None) else ""
        if name in KERNEL_MODULES:
            item.add_marker(pytest.mark.kernels)
        if name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


# --------------------------------------------------------------------------- one compile before the workers
def _is_xdist_controller(config: pytest.Config) -> bool:
    dist = getattr(config.option, "dist", "no")
    return not hasattr(config, "workerinput") and dist not in (None, "no") and bool(
        getattr(config.option, "numprocesses", 0))


def _selection_needs_kernels(config: pytest.Config) -> bool:
    """Whether the run's paths may hold kernel tests: a folder, or a module of :data:`KERNEL_MODULES`.

    ``pytest -n 2 tests/test_stats_paired.py`` on a cold cache should not wait for a compile it
    never uses; a test outside those modules that needs a kernel compiles it on first use.
    """
    here = Path(config.invocation_params.dir)
    for arg in config.args or ["."]:
        path = here / str(arg).split("::", 1)[0]
        if path.is_dir() or path.stem in KERNEL_MODULES:
            return True
    return False


def _missing_groups() -> list[str]:
    from treebench.kernels import readiness

    groups = sorted({kernel.group for kernel in readiness.KERNELS})
    return [g for g in groups if readiness.uncached([g])]


def _balanced(groups: list[str], bins: int) -> list[list[str]]:
    """``groups`` in ``bins`` lists of about equal compile time (longest first, into the lightest bin)."""
    from treebench.kernels.readiness import GROUP_SECONDS

    loads: list[tuple[float, list[str]]] = [(0.0, []) for _ in range(max(1, bins))]
    for group in sorted(groups, key=lambda g: -GROUP_SECONDS.get(g, 5)):
        i = min(range(len(loads)), key=lambda k: loads[k][0])
        loads[i] = (loads[i][0] + GROUP_SECONDS.get(group, 5), loads[i][1] + [group])
    return [names for _, names in loads if names]


_WARM = "import sys\nfrom treebench.trees.warm import warm_group\nfor g in sys.argv[1:]:\n    warm_group(g)\n"


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Fill the kernel cache once, in parallel, before xdist forks its workers (controller only)."""
    config = session.config
    if not _is_xdist_controller(config) or not _selection_needs_kernels(config) \
            or os.environ.get("TREEBENCH_TEST_NO_WARM"):
        return
    try:
        missing = _missing_groups()
    except Exception:  # noqa: BLE001 - a warm-up is an optimisation: the workers compile instead
        return
    if not missing:
        return
    bins = _balanced(missing, int(config.option.numprocesses))
    started = time.perf_counter()
    children = [subprocess.Popen([sys.executable, "-c", _WARM, *names], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for names in bins]
    failed = [(names, child.communicate()[1]) for names, child in zip(bins, children)
              if child.wait() != 0]
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"kernel cache: compiled {', '.join(missing)} in {len(bins)} processes "
                            f"({time.perf_counter() - started:.0f} s) before the workers started")
        for names, err in failed:  # the workers compile on first use instead; their tests say what fails
            reporter.write_line(f"kernel cache: warming {', '.join(names)} failed: {err.strip()[-300:]}")


# --------------------------------------------------------------------------- kernel reach
def _kernels() -> dict[str, object]:
    """treebench's compiled entry points (cached, called from Python), by ``module.function``.

    A compiled function that another compiled function calls is left out: it is compiled into
    its callers (bounds checks included), and a caller loaded from the cache never touches the
    callee's dispatcher, so whether it shows as reached would depend on what the cache held.
    """
    from numba.core.dispatcher import Dispatcher

    import treebench

    for info in pkgutil.walk_packages(treebench.__path__, "treebench."):
        if ".kernels." in info.name:
            try:
                importlib.import_module(info.name)
            except Exception:  # noqa: BLE001 - an optional module that cannot import has no kernels here
                continue
    found = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("treebench.") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, Dispatcher) and getattr(value.py_func, "__module__", None) == name \
                    and type(value._cache).__name__ != "NullCache":
                found[f"{name}.{attr}"] = value
    called = {n for d in found.values() for n in _names(d.py_func.__code__)}
    return {key: d for key, d in found.items() if key.rsplit(".", 1)[1] not in called}


def _names(code) -> set[str]:  # noqa: ANN001 - a code object
    """Every global or attribute name a function's code (and the code nested in it) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def _reached() -> tuple[list[str], list[str]]:
    """(every entry point, the ones this process compiled or loaded)."""
    if "numba" not in sys.modules:
        return [], []
    kernels = _kernels()
    return sorted(kernels), sorted(k for k, d in kernels.items() if d.signatures)


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    every, reached = _reached()
    if hasattr(config, "workerinput"):  # an xdist worker: hand the lists to the controller
        config.workeroutput["treebench_kernels"] = json.dumps([every, reached])
        return
    _merge(config, every, reached)
    _judge_reach(session)


def pytest_testnodedown(node, error) -> None:  # noqa: ANN001 - xdist's hook (WorkerController)
    found = getattr(node, "workeroutput", {}).get("treebench_kernels")
    if found:
        every, reached = json.loads(found)
        _merge(node.config, every, reached)


def _merge(config: pytest.Config, every: list[str], reached: list[str]) -> None:
    state = config.stash.setdefault(_REACH, {"every": set(), "reached": set()})
    state["every"].update(every)
    state["reached"].update(reached)


_REACH = pytest.StashKey[dict]()


def _unreached(config: pytest.Config) -> tuple[int, list[str]]:
    state = config.stash.get(_REACH, None)
    if not state or not state["every"]:
        return 0, []
    return len(state["every"]), sorted(state["every"] - state["reached"])


def _judge_reach(session: pytest.Session) -> None:
    total, unreached = _unreached(session.config)
    if total and unreached and os.environ.get(REACH_ENV) == "require" and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # noqa: ANN001
    total, unreached = _unreached(config)
    if not total:
        return
    line = f"kernel reach: {total - len(unreached)} of {total} compiled entry points of treebench reached"
    required = os.environ.get(REACH_ENV) == "require"
    if unreached and (required or config.get_verbosity() > 0):  # a partial run's list is noise
        line += f"; not reached{' (a failure: ' + REACH_ENV + '=require)' if required else ''}: " \
                + ", ".join(unreached)
    terminalreporter.write_line(line)

