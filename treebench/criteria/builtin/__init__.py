"""The built-in criteria: one module each, holding everything about the criterion.

A module here holds, for one criterion (as scikit-learn's ``_criterion`` holds
one class per criterion and river's ``split_criterion/`` one small file each):

* its formula in plain numpy, the readable oracle the tests compare the
  compiled code with, and its :class:`~treebench.criteria.Criterion` class
  (name, parameters with their ranges, the paper's reading);
* its compiled (numba) scoring functions, named by the interface of
  :mod:`treebench.criteria.builtin.spec` (``g`` and ``mass`` for a criterion
  whose child mass is a function of ``G = sum_i g(c_i)``, ``row_mass`` and
  ``pair_mass`` for one scored on whole count rows, ...);
* its registration: ``CRITERIA`` (the classes the registry lists) and
  ``KERNELS`` (one :class:`~treebench.criteria.builtin.spec.Kernel` per
  compiled variant: its id and what it defines).

The kernels reach these modules only through :mod:`treebench.kernels.dispatch`,
generated at first use from ``KERNELS`` by :mod:`treebench.criteria.builtin.generate`.
Every module of this package that declares ``KERNELS`` is a criterion module;
adding one is adding a file.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType

import numpy as np

# the compiled layer first: it installs the kernel cache's locator before a module here defines
# a compiled function (numba picks a function's cache folder when it is decorated)
import treebench.kernels  # noqa: F401

#: Modules of this package that are machinery, not criteria.
_MACHINERY = frozenset({"spec", "generate"})


def kernel_modules() -> list[ModuleType]:
    """The criterion modules of this package, by name."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in _MACHINERY:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "KERNELS"):
            found.append(module)
    return found


@functools.cache
def _whole_split_ids() -> frozenset[int]:
    return frozenset(k.id for module in kernel_modules() for k in module.KERNELS if k.whole_split)


def is_whole_split(kernel_id: int) -> bool:
    """Whether the criterion kernel ``kernel_id`` is declared ``whole_split`` (scored on whole count rows)."""
    return int(kernel_id) in _whole_split_ids()


def whole_split_marker(kernel_id: int) -> np.ndarray | None:
    """What the compiled builders get as ``whole`` for the criterion kernel ``kernel_id``.

    ``None``, or for a kernel declared ``whole_split`` (Hellinger distance) a one-element array:
    numba prunes code only by the types of arguments, so passing ``None`` for every other
    criterion keeps the whole-split scoring out of their compiled builders (it made the first
    compile of a default fit half as long again); only the type of the array matters.
    """
    return np.zeros(1) if is_whole_split(kernel_id) else None


def criterion_classes() -> list[type]:
    """The :class:`~treebench.criteria.Criterion` classes the modules register (``CRITERIA``)."""
    return [cls for module in kernel_modules() for cls in module.CRITERIA]
