"""Where treebench's compiled kernels are cached: one folder per version of the compiled sources.

numba keys a cached function on its own source file (a hash of its bytes)
and its bytecode, not on the functions it calls from other files.  After an
edit of a callee -- a helper in :mod:`treebench.kernels.arith`, a criterion
module, the generated dispatch -- a caller's cached machine code would still
hold the old callee inlined, and a warm cache would give a silent wrong
number (a new criterion's id would fall through every branch of a stale
ladder and score 0).  So every treebench kernel is cached under a folder
named by the :func:`fingerprint` of *all* the package's files that use
numba: change any of them and the next process compiles afresh into a new
folder; the same sources (another clone, another virtualenv) share one.

The folder's parent, :func:`cache_root`:

* ``$NUMBA_CACHE_DIR/treebench`` when numba's own setting is given (the
  bounds-checked suite and the cold-compile tests use a folder of their own);
* else ``$XDG_CACHE_HOME/treebench/kernels`` (``~/.cache/treebench/kernels``);
* else, when that cannot be written, a folder in the system's temporary one.

Folders unused for :data:`KEEP_DAYS` days, or beyond the :data:`KEEP_FOLDERS`
most recently used ones (and idle for six hours), are deleted when a process
installs the locator, so a developer's edits do not fill the disk (a folder
holds about 36 MB).

:func:`install` puts :func:`locator_class` first in numba's list of cache
locators; importing :mod:`treebench.kernels`, which every module with a
compiled function does before defining it (tested), calls it as soon as numba
is imported (:func:`install_when_numba_loads`).  With
``NUMBA_CACHE_LOCATOR_CLASSES`` set, numba uses the user's list and this one
is not consulted.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import os
import shutil
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

#: The package folder, whose numba-using files make the fingerprint.
PACKAGE_DIR = Path(__file__).resolve().parents[1]
#: Module-name prefix of the functions this locator caches.
PACKAGE_PREFIX = "treebench."
#: A cache folder unused for this many days is deleted.
KEEP_DAYS = 30
#: At most this many folders are kept once they have been idle for :data:`KEEP_IDLE_HOURS`.
KEEP_FOLDERS = 8
#: The file whose modification time says when a folder was last used.
USED_MARK = ".last-used"
#: A folder beyond the :data:`KEEP_FOLDERS` most recent is deleted only after this long unused.
KEEP_IDLE_HOURS = 6


def _uses_numba(text: str) -> bool:
    return "from numba" in text or "import numba" in text


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """A hash of every package file that uses numba (name and bytes), numba's and Python's versions.

    The generated dispatch is a function of the criterion modules, which are among those files.
    """
    import numba

    digest = hashlib.sha256(f"numba {numba.__version__} python {sys.version_info[:2]}".encode())
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        data = path.read_bytes()
        if _uses_numba(data.decode("utf-8", errors="replace")):
            digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0" + data + b"\0")
    return digest.hexdigest()[:16]


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


@lru_cache(maxsize=1)
def cache_root() -> Path:
    """The folder holding one subfolder per fingerprint (see the module docstring)."""
    from numba.core import config

    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / "treebench"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    root = Path(base) / "treebench" / "kernels"
    if _writable(root):
        return root
    user = os.getuid() if hasattr(os, "getuid") else os.getpid()
    return Path(tempfile.gettempdir()) / f"treebench-kernels-{user}"


def cache_folder() -> Path:
    """This version's folder: ``cache_root() / fingerprint()``."""
    return cache_root() / fingerprint()


@lru_cache(maxsize=1)
def locator_class() -> type:
    """numba's cache locator for treebench's functions: ``<cache_folder()>/<module name>``.

    Staleness within a folder is numba's usual test (the hash of the function's own
    file); across files the folder's fingerprint changes (the module docstring).
    Built on first call, so that importing this module does not import numba.
    """
    from numba.core import caching

    class TreebenchCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        def __init__(self, py_func, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(cache_folder() / py_func.__module__)

        def get_cache_path(self) -> str:
            return self._cache_path

        @classmethod
        def from_function(cls, py_func, py_file: str):
            if not getattr(py_func, "__module__", "").startswith(PACKAGE_PREFIX):
                return None
            return super().from_function(py_func, py_file)

    return TreebenchCacheLocator


def _prune(root: Path, keep: Path) -> None:
    """Delete the folders of other fingerprints that are unused (see the module docstring)."""
    now = time.time()
    folders = []
    for folder in root.iterdir():
        if folder == keep or not (folder / USED_MARK).exists():
            continue
        try:
            folders.append(((folder / USED_MARK).stat().st_mtime, folder))
        except OSError:
            continue
    folders.sort(reverse=True)
    for rank, (used, folder) in enumerate(folders, start=1):
        idle = now - used
        if idle > KEEP_DAYS * 86400 or (rank >= KEEP_FOLDERS and idle > KEEP_IDLE_HOURS * 3600):
            shutil.rmtree(folder, ignore_errors=True)


def install() -> None:
    """Put the locator first in numba's locators (once), mark the folder used, prune the others."""
    from numba.core import caching

    classes = caching.CacheImpl._locator_classes
    locator = locator_class()
    if locator in classes:
        return
    classes.insert(0, locator)
    folder = cache_folder()
    try:  # cache_root() has probed the root: the folder only needs making
        folder.mkdir(parents=True, exist_ok=True)
        (folder / USED_MARK).touch()
        _prune(cache_root(), folder)
    except OSError:  # a read-only root, or another process pruning at the same time
        pass


class _AfterNumbaImport(importlib.abc.MetaPathFinder):
    """Runs :func:`install` as soon as numba is imported (a post-import hook).

    ``import treebench.kernels`` must not import numba itself: the command line's
    start-up reads light modules of this package (tests/test_layers.py).
    """

    def find_spec(self, fullname, path, target=None):
        if fullname != "numba":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            install()

        spec.loader.exec_module = exec_module
        return spec


def install_when_numba_loads() -> None:
    """:func:`install` now if numba is loaded, else right after its import (before any kernel is defined)."""
    if "numba" in sys.modules:
        install()
    elif not any(isinstance(finder, _AfterNumbaImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterNumbaImport())
