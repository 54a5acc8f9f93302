"""Tree structure, induction (compiled and generic), pruning, online trees, estimators.

Imports are lazy: the estimators pull in scikit-learn and the compiled
kernels, which command-line start-up should not pay for.
"""

from __future__ import annotations

from treebench.lazy import lazy_getattr

_LAZY = {
    "GrowSettings": "treebench.trees.settings",
    "Presorted": "treebench.trees.builder",
    "grow": "treebench.trees.builder",
    "Tree": "treebench.trees.structure",
    "TreeClassifier": "treebench.trees.estimator",
    "OnlineTreeClassifier": "treebench.trees.online",
}

__all__ = sorted(_LAZY)


__getattr__ = lazy_getattr('treebench.trees', _LAZY)
