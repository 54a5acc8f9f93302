"""One drawable form of every fitted tree: nodes with their test, class counts and value.

The criterion trees keep arrays (:class:`treebench.trees.structure.Tree`), C4.5 keeps J48's node
objects; a picture, a DOT file or any other rendering reads this :class:`TreeView` instead, so
each knows one shape only.  DOT output follows scikit-learn's ``export_graphviz`` conventions
(one box per node, the test on internal nodes, edges labelled with the branch) so the usual
``dot -Tpng`` works on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from treebench.errors import TreebenchError
from treebench.kernels import layout as L


@dataclass
class ViewNode:
    """One node: its test (``None`` for a leaf), the edge label of each child, its class counts."""

    counts: np.ndarray
    test: str | None = None
    children: list[int] = field(default_factory=list)
    branches: list[str] = field(default_factory=list)
    value: float | None = None  # the criterion's node value, where the tree keeps one
    depth: int = 0


@dataclass
class TreeView:
    """A fitted tree as nodes (root 0, parents before children) and the names to print."""

    nodes: list[ViewNode]
    classes: list[Any]
    value_name: str = ""

    def majority(self, node: int) -> Any:
        """The class a node predicts (the first of the largest count)."""
        return self.classes[int(np.argmax(self.nodes[node].counts))]


def view_of(estimator: Any) -> TreeView:
    """The :class:`TreeView` of a fitted treebench tree estimator.

    Raises
    ------
    TreebenchError
        For anything else (an unfitted estimator, another library's model).
    """
    tree = getattr(estimator, "tree_", None)
    if tree is None:
        raise TreebenchError(f"{type(estimator).__name__} is not a fitted treebench tree; fit it first")
    from treebench.trees.structure import Tree

    if isinstance(tree, Tree):
        return _from_arrays(tree)
    if hasattr(tree, "root") and hasattr(estimator, "encoder_"):
        return _from_c45(estimator)
    raise TreebenchError(f"cannot draw {type(estimator).__name__}: not a treebench tree")


def _from_arrays(tree: Any) -> TreeView:
    nodes = []
    for i in range(tree.n_nodes):
        counts = np.asarray(tree.counts[i], dtype=np.float64)
        value = float(tree.float_nodes[i, L.IMPURITY])
        node = ViewNode(counts, value=value if np.isfinite(value) else None, depth=int(tree.int_nodes[i, L.DEPTH]))
        if not tree.is_leaf[i]:
            labels = tree._branch_labels(i, 4)
            name = tree.feature_names[int(tree.int_nodes[i, L.FEATURE])]
            node.test = labels[0] if int(tree.int_nodes[i, L.KIND]) == L.NUMERIC else name
            node.children = list(tree.children(i))
            # the edge says what differs between branches: the feature name is on the node
            node.branches = ["yes", "no"] if int(tree.int_nodes[i, L.KIND]) == L.NUMERIC else [
                label[len(name):].strip() for label in labels]
        nodes.append(node)
    name = str(tree.criterion.get("name", "")) if isinstance(tree.criterion, dict) else ""
    return TreeView(nodes, list(tree.classes), value_name=f"{name} value" if name else "node value")


def _from_c45(estimator: Any) -> TreeView:
    names, categories = estimator.encoder_.names, estimator.encoder_.categories
    nodes: list[ViewNode] = []
    pending = [(estimator.tree_.root, 0, -1, "")]
    while pending:  # breadth first: parents before children
        node, depth, parent, branch = pending.pop(0)
        at = len(nodes)
        view = ViewNode(np.asarray(node.dist.sum(axis=0), dtype=np.float64), depth=depth)
        nodes.append(view)
        if parent >= 0:
            nodes[parent].children.append(at)
            nodes[parent].branches.append(branch)
        if node.is_leaf:
            continue
        name = names[node.feature]
        if node.nominal:
            view.test = name
            labels = [f"= {categories[node.feature][b]}" for b in range(len(node.children))]
        else:
            view.test = f"{name} <= {node.threshold:.6g}"
            labels = ["yes", "no"]
        pending += [(child, depth + 1, at, label) for child, label in zip(node.children, labels)]
    return TreeView(nodes, list(estimator.classes_), value_name="")


def _dot_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def to_dot(view: TreeView, *, max_depth: int | None = None, show_counts: bool = True) -> str:
    """Graphviz DOT text of ``view`` (nodes deeper than ``max_depth`` left out, their parent marked)."""
    lines = ["digraph Tree {", 'node [shape=box, style="rounded", fontname="helvetica"] ;',
             'edge [fontname="helvetica"] ;']
    for i, node in enumerate(view.nodes):
        if max_depth is not None and node.depth > max_depth:
            continue
        cut = max_depth is not None and node.depth == max_depth and node.children
        parts = [node.test] if node.test is not None and not cut else []
        if cut:
            parts.append("(subtree not shown)")
        if view.value_name and node.value is not None:
            parts.append(f"{view.value_name} = {node.value:.4g}")
        total = node.counts.sum()
        parts.append(f"samples = {total:.6g}")
        if show_counts:
            parts.append("counts = [" + ", ".join(f"{c:.6g}" for c in node.counts) + "]")
        parts.append(f"class = {view.majority(i)}")
        lines.append(f'{i} [label="{_dot_text(chr(10).join(parts))}"] ;')
        if cut:
            continue
        for child, branch in zip(node.children, node.branches):
            lines.append(f'{i} -> {child} [label="{_dot_text(branch)}"] ;')
    lines.append("}")
    return "\n".join(lines) + "\n"
