"""treebench: reproducible experiments on decision-tree split criteria."""

from __future__ import annotations

__version__ = "0.1.1"

__all__ = ["TreeClassifier", "__version__"]


def __getattr__(name: str):
    # Lazy import keeps `import treebench` (and the CLI start-up) cheap: the
    # estimator pulls in numba kernels.
    if name == "TreeClassifier":
        from treebench.trees.estimator import TreeClassifier

        return TreeClassifier
    raise AttributeError(f"module 'treebench' has no attribute {name!r}")
