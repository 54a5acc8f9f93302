"""Draw a fitted tree (any treebench tree, through :class:`treebench.trees.view.TreeView`).

Leaves are spaced evenly left to right, a parent sits above the middle of its children.  Each
box shows the node's test, its class, the training samples and (where the criterion keeps one)
its node value; the box is tinted with the majority class's colour, stronger the purer the node,
as scikit-learn's ``plot_tree(filled=True)`` does.  Nodes deeper than ``max_depth`` are folded
into their parent, which says so.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from treebench.report.figures import new_figure, palette, save
from treebench.trees.view import TreeView


def _shown(view: TreeView, max_depth: int | None) -> tuple[list[int], dict[int, list[int]]]:
    """Nodes drawn (parents first) and each drawn node's drawn children."""
    order, kids = [], {}
    pending = [0]
    while pending:
        i = pending.pop(0)
        order.append(i)
        deep = max_depth is not None and view.nodes[i].depth >= max_depth
        kids[i] = [] if deep else list(view.nodes[i].children)
        pending += kids[i]
    return order, kids


def _positions(order: list[int], kids: dict[int, list[int]]) -> dict[int, float]:
    """x of every drawn node: leaves 0, 1, 2, ... in depth-first order; parents centred."""
    x: dict[int, float] = {}
    next_leaf = 0.0
    stack: list[tuple[int, bool]] = [(0, False)]
    while stack:
        i, done = stack.pop()
        if not kids[i]:
            x[i], next_leaf = next_leaf, next_leaf + 1.0
        elif done:
            x[i] = (x[kids[i][0]] + x[kids[i][-1]]) / 2
        else:
            stack.append((i, True))
            stack += [(c, False) for c in reversed(kids[i])]
    return x


def _label(view: TreeView, i: int, folded: bool) -> str:
    node = view.nodes[i]
    lines = []
    if node.test is not None and not folded:
        lines.append(node.test)
    elif folded:
        lines.append("(subtree folded)")
    lines.append(f"class {view.majority(i)}")
    lines.append(f"samples {node.counts.sum():.6g}")
    if view.value_name and node.value is not None:
        lines.append(f"{view.value_name} {node.value:.3g}")
    return "\n".join(lines)


def draw_tree(view: TreeView, path: Path, *, max_depth: int | None = 4, title: str = "") -> list[Path]:
    """Draw ``view`` to ``path`` (``.png`` and ``.svg``); return the files written."""
    order, kids = _shown(view, max_depth)
    x = _positions(order, kids)
    leaves = sum(1 for i in order if not kids[i])
    deepest = max(view.nodes[i].depth for i in order)
    fig, ax = new_figure(min(max(6.0, 2.2 * leaves), 60.0), max(2.5, 1.5 * (deepest + 1)))
    colours = palette(len(view.classes))
    for i in order:  # edges under the boxes
        for child, branch in zip(kids[i], view.nodes[i].branches):
            xa, ya, xb, yb = x[i], -view.nodes[i].depth, x[child], -view.nodes[child].depth
            ax.plot([xa, xb], [ya, yb], color="0.45", lw=0.8, zorder=1)
            ax.text((xa + xb) / 2, (ya + yb) / 2, branch, fontsize=7, ha="center", va="center",
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"}, zorder=2)
    for i in order:
        node = view.nodes[i]
        total = node.counts.sum()
        best = int(np.argmax(node.counts))
        purity = float(node.counts[best] / total) if total > 0 else 0.0
        # tint: white for an even mix, the class colour for a pure node
        share = max(0.0, (purity - 1.0 / len(view.classes)) / (1.0 - 1.0 / len(view.classes))) \
            if len(view.classes) > 1 else 1.0
        face = tuple(1.0 - share * 0.6 * (1.0 - c) for c in colours[best][:3])
        folded = bool(node.children) and not kids[i]
        ax.text(x[i], -node.depth, _label(view, i, folded), fontsize=7, ha="center", va="center", zorder=3,
                bbox={"boxstyle": "round,pad=0.35", "fc": face, "ec": "0.3", "lw": 0.7})
    ax.set_xlim(-0.7, max(leaves - 0.3, 0.7))
    ax.set_ylim(-deepest - 0.6, 0.6)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return save(fig, Path(path))
