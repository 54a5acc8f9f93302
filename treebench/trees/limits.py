"""Up-front memory checks of a fit: a request that cannot fit is refused before anything is allocated.

Without them a fit with a million classes, or an MEE grid of a billion
points, runs for seconds to minutes and ends in a ``MemoryError`` (or the
machine swapping); with them it ends at once with one line naming the
limit (:func:`treebench.errors.check_memory`).
"""

from __future__ import annotations

from treebench.errors import check_memory

#: Bytes of one class count (int64, or float64 with weights).
COUNT_BYTES = 8


def tree_nodes_bound(n_classes: int, n_samples: int, max_depth: int | None, min_samples_leaf: int = 1) -> int:
    """The nodes a tree grown to separate ``n_classes`` holds, at most what the data and limits allow.

    A tree grown until its leaves are pure has at least one leaf per class,
    so ``2k - 1`` nodes; it cannot have more than ``2 n / min_samples_leaf``
    leaves, nor more than ``2^depth`` leaves under ``max_depth``.
    """
    nodes = 2 * n_classes - 1
    nodes = min(nodes, 2 * max(n_samples // max(min_samples_leaf, 1), 1) - 1)
    if max_depth is not None and max_depth < 62:
        nodes = min(nodes, 2 ** (max_depth + 1) - 1)
    return max(nodes, 1)


def check_class_counts(n_classes: int, n_samples: int, max_depth: int | None, min_samples_leaf: int = 1) -> None:
    """Refuse a fit whose class-count arrays (one row of ``n_classes`` per node) cannot fit in memory."""
    nodes = tree_nodes_bound(n_classes, n_samples, max_depth, min_samples_leaf)
    needed = float(nodes) * n_classes * COUNT_BYTES
    check_memory(
        needed,
        f"y has {n_classes:,} classes: a tree separating them holds about {nodes:,} nodes of {n_classes:,} "
        "class counts each, which",
        "fewer classes (merge rare ones), or a max_depth that bounds the tree",
    )


def check_grid(points: int, n_classes: int, what: str = "convexity_points") -> None:
    """Refuse an MEE convexity grid whose per-point arrays (``3 + n_classes`` int64 rows) cannot fit."""
    needed = float(points) * (3 + n_classes) * COUNT_BYTES
    check_memory(needed, f"{what}={points:,} (a grid of {3 + n_classes} arrays of that length)",
                 f"a smaller {what} (the paper's rule uses 100 points)")


__all__ = ["check_class_counts", "check_grid", "tree_nodes_bound"]
