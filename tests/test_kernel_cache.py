"""The kernel cache: one folder per version of the compiled sources, so no stale compiled caller survives an edit.

numba keys a cached function on its own file only; treebench's locator
(:mod:`treebench.kernels.kernel_cache`) puts every compiled function of the
package under a folder named by a hash of all its numba-using files.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from numba.core.registry import CPUDispatcher

import treebench
from treebench.kernels import kernel_cache

PACKAGE = Path(treebench.__file__).resolve().parent


def _numba_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="treebench."):
        path = PACKAGE.joinpath(*info.name.split(".")[1:])
        source = path / "__init__.py" if info.ispkg else path.with_suffix(".py")
        if source.exists() and "cache=True" in source.read_text(encoding="utf-8"):
            names.append(info.name)
    return names


def test_every_cached_kernel_of_the_package_is_in_this_versions_folder():
    folder = str(kernel_cache.cache_folder())
    seen = 0
    for name in _numba_modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == name \
                    and getattr(value._cache, "_impl", None) is not None:
                locator = value._cache._impl.locator
                assert isinstance(locator, kernel_cache.locator_class()), f"{name}.{value.__name__}: {type(locator)}"
                assert locator.get_cache_path().startswith(folder)
                seen += 1
    assert seen > 100  # the package has a few hundred; a walk that found none would prove nothing


def test_a_module_defining_cached_kernels_installs_the_locator_first():
    """numba picks a function's cache folder when it is decorated: ``treebench.kernels`` must be imported before."""
    late = []
    for name in _numba_modules():
        if name.startswith(("treebench.kernels", "treebench.criteria.builtin")):
            continue  # their package's __init__ (or its parent's) imports treebench.kernels
        text = PACKAGE.joinpath(*name.split(".")[1:]).with_suffix(".py").read_text(encoding="utf-8")
        if not re.search(r"^(from treebench\.kernels[\w.]* import|import treebench\.kernels)", text, re.M):
            late.append(name)
    assert not late


def test_the_fingerprint_follows_numba_using_files_only(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "kernel.py").write_text("from numba import njit\n")
    (package / "report.py").write_text("x = 1\n")

    def fingerprint() -> str:
        kernel_cache.fingerprint.cache_clear()
        return kernel_cache.fingerprint()

    monkeypatch.setattr(kernel_cache, "PACKAGE_DIR", package)
    first = fingerprint()
    (package / "report.py").write_text("x = 2\n")
    assert fingerprint() == first
    (package / "kernel.py").write_text("from numba import njit\n# edited\n")
    assert fingerprint() != first
    (package / "new_criterion.py").write_text("import numba\n")
    assert len({first, fingerprint()}) == 2
    kernel_cache.fingerprint.cache_clear()


def test_idle_folders_of_other_versions_are_pruned(tmp_path):
    now = time.time()
    keep = tmp_path / "current"
    keep.mkdir()
    ages_hours = {"fresh": 0.1, **{f"recent{i}": 7 for i in range(kernel_cache.KEEP_FOLDERS + 2)}, "old": 24 * 31}
    for name, hours in ages_hours.items():
        (tmp_path / name).mkdir()
        mark = tmp_path / name / kernel_cache.USED_MARK
        mark.touch()
        os.utime(mark, (now - hours * 3600, now - hours * 3600))
    (tmp_path / "not-ours").mkdir()  # no mark: not a kernel folder, left alone
    kernel_cache._prune(tmp_path, keep)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert "old" not in left and "fresh" in left and "current" in left and "not-ours" in left
    assert sum(name.startswith("recent") for name in left) == kernel_cache.KEEP_FOLDERS - 2


_SCORE = textwrap.dedent("""
    import numpy as np
    from treebench.kernels.scoring import score_children
    parent = np.array([6, 4], np.int64)
    children = np.array([[[5, 1], [1, 3]]], np.int64)
    gains, _ = score_children(int(sys.argv[1]), np.zeros(1), parent, children)
    print(repr(float(gains[0])))
""")


@pytest.mark.slow
def test_a_criterion_module_added_with_a_warm_cache_is_compiled_into_its_callers(tmp_path):
    """The failure this folder scheme prevents: with numba's own keys, ``score_children`` (kernels/scoring.py,
    unchanged) would be loaded from the cache with the old ladder inlined and score a new id as 0."""
    copy = tmp_path / "src" / "treebench"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(copy.parent), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def score(cid: int) -> float:
        out = subprocess.run([sys.executable, "-c", "import sys\n" + _SCORE, str(cid)], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=900)
        assert out.returncode == 0, out.stderr[-2000:]
        return float(out.stdout.split()[-1])

    gini = score(2)  # warms score_children's cache with the ladders of today's modules
    assert gini > 0
    (copy / "criteria" / "builtin" / "doubled_gini.py").write_text(textwrap.dedent('''
        """A test criterion: twice the Gini decrease (id 90)."""
        from numba import njit
        from treebench.criteria.builtin.gini import g
        from treebench.criteria.builtin.spec import ADDITIVE, Kernel

        @njit(cache=True)
        def mass(q, s, g_sum, g_s):
            return 2.0 * (s - g_sum / s)

        KERNELS = (Kernel(90, "doubled_gini", ADDITIVE),)
        CRITERIA = ()
    '''))
    assert score(90) == pytest.approx(2 * gini)
    folders = [p for p in (tmp_path / "cache" / "treebench").iterdir() if p.is_dir()]
    assert len(folders) == 2  # one per version of the sources
