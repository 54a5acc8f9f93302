"""Tree structure, induction (compiled and generic), pruning, online trees, estimators.

Imports are lazy: the estimators pull in scikit-learn and the compiled
kernels, which command-line start-up should not pay for.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "GrowSettings": "treebench.trees.builder",
    "Presorted": "treebench.trees.builder",
    "grow": "treebench.trees.builder",
    "Tree": "treebench.trees.structure",
    "TreeClassifier": "treebench.trees.estimator",
    "OnlineTreeClassifier": "treebench.trees.online",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'treebench.trees' has no attribute {name!r}")
