"""Kernels compiled before the trials: every group's warm-up, and the run's own progress line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from treebench.kernels.readiness import KERNELS, uncached
from treebench.trees import warm


def test_every_registered_kernel_is_a_cached_numba_dispatcher():
    """A plain function in the registry makes its group's check answer "cannot tell" forever."""
    import importlib

    for kernel in KERNELS:
        function = getattr(importlib.import_module(kernel.module), kernel.function)
        assert hasattr(function, "_cache"), f"{kernel.label} is not an njit(cache=True) kernel"


def test_every_registered_group_has_a_warmer():
    assert {k.group for k in KERNELS} <= set(warm.WARMERS)


@pytest.mark.parametrize("group", sorted(set(warm.WARMERS) - {"large"}))
def test_each_warmer_runs_and_leaves_its_group_cached(group):
    warm.warm_group(group)
    assert uncached([group]) in ([], None)  # None: numba's cache cannot be read here


def test_a_cold_cache_is_filled_by_the_warmer(tmp_path):
    """In a fresh cache folder the MEE kernels are missing; one warm-up leaves them on disk."""
    code = (
        "from treebench.kernels.readiness import uncached\n"
        "from treebench.trees.warm import warm_group\n"
        "before = uncached(['mee'])\n"
        "warm_group('mee')\n"
        "print(bool(before), uncached(['mee']))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "[]"]


def test_the_compile_bar_runs_every_group_and_keeps_going_after_a_failure(monkeypatch, capsys):
    from treebench.experiment import cli as run_cli

    seen = []

    def fake(group):
        seen.append(group)
        if group == "mee":
            raise RuntimeError("broken warm-up")

    monkeypatch.setattr("treebench.trees.warm.warm_group", fake)
    run_cli._compile_groups(["tree", "mee", "c4.5"], quiet=False)
    assert seen == ["tree", "mee", "c4.5"]
    assert "compiling kernels" in capsys.readouterr().err


def test_the_compile_bar_leaves_no_thread_behind(monkeypatch):
    """Workers fork from the driver only while no other thread is alive (experiment/pool.py)."""
    import threading

    from treebench.experiment import cli as run_cli

    monkeypatch.setattr("treebench.trees.warm.warm_group", lambda group: None)
    before = threading.active_count()
    run_cli._compile_groups(["tree"], quiet=False)
    assert threading.active_count() == before
