"""The kernels' dispatch on the built-in criteria, generated at first use from the criterion modules.

The compiled kernels choose a criterion's formulas by its integer id through
ladders of tests on the id whose branches call the criterion modules of
:mod:`treebench.criteria.builtin` directly (why generated source and not a
table of functions: :mod:`treebench.criteria.builtin.generate`).  The ladders
are not committed: on import this module renders them from the modules'
``KERNELS``, writes them once into the kernel cache folder of the current
sources (:func:`treebench.kernels.kernel_cache.cache_folder`, named by a hash
of every numba-using file, so a new criterion module gives a new folder and no
stale compiled caller survives), imports that file and re-exports its names.
numba caches the ladders' compiled code beside it like any other module's.

The one import from a higher layer (kernels -> criteria) in the package: the
kernels reach the criteria only through this module (tests/test_layers.py).
The generic scoring built on it is :mod:`treebench.kernels.scoring`.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from treebench.criteria.builtin.generate import render
from treebench.kernels.kernel_cache import cache_folder

#: The name the generated module is imported under (its functions' ``__module__``).
GENERATED_NAME = "treebench.kernels._generated_dispatch"


def _write_once(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` unless it already holds it; atomic, for concurrent first uses."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".dispatch-", suffix=".py")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, path)


def _load() -> tuple[ModuleType, Path]:
    path = cache_folder() / "dispatch.py"
    _write_once(path, render())
    spec = importlib.util.spec_from_file_location(GENERATED_NAME, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[GENERATED_NAME] = module
    spec.loader.exec_module(module)
    return module, path


_generated, GENERATED_PATH = _load()
globals().update({name: getattr(_generated, name) for name in _generated.__all__})
__all__ = [*_generated.__all__, "GENERATED_NAME", "GENERATED_PATH"]  # noqa: PLE0605 - filled from the generated module
