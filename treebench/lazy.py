"""Lazy package attributes: import a submodule only when its name is used.

Command-line start-up imports the packages' ``cli`` modules; the heavy
dependencies (pandas, scipy, scikit-learn, numba kernels) load only when an
attribute that needs them is first touched.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_getattr(package: str, names: dict[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` resolving ``names`` (attribute -> module)."""

    def __getattr__(name: str) -> Any:
        if name in names:
            return getattr(importlib.import_module(names[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
