"""The array-based tree: prediction, size measures, text and JSON forms."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from treebench.kernels import layout as L
from treebench.kernels.arrays import read_only
from treebench.kernels.traversal import apply_tree

FORMAT = "treebench-tree/1"


@dataclass
class Tree:
    """A fitted tree as plain arrays (see :mod:`treebench.kernels.layout`).

    Attributes
    ----------
    int_nodes, float_nodes:
        Per-node structure (feature, kind, children, ...) and floats
        (threshold, node value, split score).
    counts:
        Training class counts of every node, shape ``(n_nodes, n_classes)``:
        int64, or float64 sums of sample weights for a tree grown with them.
    catmap:
        Category -> child offset table of multiway nominal splits.
    n_categories:
        Per feature: number of category codes including the missing code
        (0 for numeric features).
    feature_names, classes:
        Labels used by :meth:`export_text`.
    categories:
        Per feature: the category values of nominal features (``None`` otherwise).
    criterion:
        Name and parameters of the criterion that grew the tree.
    """

    int_nodes: np.ndarray
    float_nodes: np.ndarray
    counts: np.ndarray
    catmap: np.ndarray
    n_categories: np.ndarray
    feature_names: list[str]
    classes: list[Any]
    categories: list[list[Any] | None] = field(default_factory=list)
    criterion: dict[str, Any] = field(default_factory=dict)

    # -- size ----------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return int(self.int_nodes.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        return self.int_nodes[:, L.KIND] == L.LEAF

    @property
    def n_leaves(self) -> int:
        return int(self.is_leaf.sum())

    @property
    def depth(self) -> int:
        return int(self.int_nodes[:, L.DEPTH].max()) if self.n_nodes else 0

    @property
    def n_classes(self) -> int:
        return int(self.counts.shape[1])

    def leaf_counts(self) -> np.ndarray:
        """Class counts of the leaves, shape ``(n_leaves, n_classes)``."""
        return self.counts[self.is_leaf]

    def children(self, node: int) -> range:
        start = int(self.int_nodes[node, L.CHILD_START])
        return range(start, start + int(self.int_nodes[node, L.N_CHILDREN])) if start >= 0 else range(0)

    # -- prediction ------------------------------------------------------------
    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf id of every row of the encoded matrix ``X``."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        arrays = (X, self.int_nodes, self.float_nodes, self.catmap, self.n_categories)
        return apply_tree(*(read_only(a) for a in arrays))

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class frequencies of the leaf each row reaches."""
        return self.proba_at(self.apply(X))

    def predict_index(self, X: np.ndarray) -> np.ndarray:
        """Index of the majority class at the reached leaf (first class on ties)."""
        return self.class_index_at(self.apply(X))

    def proba_at(self, nodes: np.ndarray) -> np.ndarray:
        """Class frequencies of the training samples at each of ``nodes``, shape ``(len(nodes), k)``."""
        node_counts = self.counts[nodes].astype(np.float64)
        return node_counts / node_counts.sum(axis=1, keepdims=True)

    def parents(self) -> np.ndarray:
        """Parent id of every node (``-1`` for the root)."""
        internal = np.flatnonzero(~self.is_leaf)
        first = self.int_nodes[internal, L.CHILD_START]
        n_children = self.int_nodes[internal, L.N_CHILDREN]
        # child j of an internal node is first + j: the offsets within each run of children
        within = np.arange(int(n_children.sum())) - np.repeat(np.cumsum(n_children) - n_children, n_children)
        parent = np.full(self.n_nodes, -1, np.int64)
        parent[np.repeat(first, n_children) + within] = np.repeat(internal, n_children)
        return parent

    def class_index_at(self, nodes: np.ndarray) -> np.ndarray:
        """Index of the majority class at each of ``nodes`` (first class on ties)."""
        # on the counts, not the frequencies: a node left without samples
        # (subtree raising can) answers class 0 without a 0/0
        return np.argmax(self.counts[nodes], axis=1)

    # -- text ----------------------------------------------------------------
    def export_text(self, decimals: int = 4, max_depth: int | None = None) -> str:
        """An indented text rendering, one line per branch and leaf."""
        lines: list[str] = []
        self._export(0, 0, decimals, max_depth, lines)
        return "\n".join(lines) + "\n"

    def _leaf_text(self, node: int) -> str:
        counts = self.counts[node]
        label = self.classes[int(np.argmax(counts))]
        if counts.dtype.kind == "f":  # sums of sample weights
            listed = ", ".join(f"{c:.6g}" for c in counts)
            return f"class: {label} (weight={counts.sum():.6g}, weights=[{listed}])"
        return f"class: {label} (n={int(counts.sum())}, counts={counts.astype(int).tolist()})"

    def _branch_labels(self, node: int, decimals: int) -> list[str]:
        feature = int(self.int_nodes[node, L.FEATURE])
        name = self.feature_names[feature]
        kind = int(self.int_nodes[node, L.KIND])
        if kind == L.NUMERIC:
            threshold = round(float(self.float_nodes[node, L.THRESHOLD]), decimals)
            return [f"{name} <= {threshold}", f"{name} >  {threshold}"]
        cats = self.categories[feature] if self.categories else None

        def label(code: int) -> Any:
            if cats is None:
                return code
            return cats[code] if code < len(cats) else "<missing>"

        if kind == L.NOMINAL_BINARY:
            category = label(int(self.int_nodes[node, L.CATEGORY]))
            return [f"{name} == {category}", f"{name} != {category}"]
        start = int(self.int_nodes[node, L.CATMAP_START])
        n_codes = int(self.n_categories[feature])
        per_child: dict[int, list[str]] = {}
        for code in range(n_codes):
            offset = int(self.catmap[start + code])
            if offset >= 0:
                per_child.setdefault(offset, []).append(str(label(code)))
        default = int(self.int_nodes[node, L.DEFAULT_CHILD])
        labels = []
        for j in range(int(self.int_nodes[node, L.N_CHILDREN])):
            text = f"{name} in {{{', '.join(per_child.get(j, []))}}}"
            if j == default:
                text += " (and unseen values)"
            labels.append(text)
        return labels

    def _export(self, node: int, depth: int, decimals: int, max_depth: int | None, lines: list[str]) -> None:
        indent = "|   " * depth
        if self.is_leaf[node]:
            lines.append(f"{indent}|--- {self._leaf_text(node)}")
            return
        if max_depth is not None and depth >= max_depth:
            total = self.counts[node].sum()
            size = f"weight {total:.6g}" if self.counts.dtype.kind == "f" else f"{int(total)} samples"
            lines.append(f"{indent}|--- ... ({size})")
            return
        for label, child in zip(self._branch_labels(node, decimals), self.children(node)):
            lines.append(f"{indent}|--- {label}")
            self._export(child, depth + 1, decimals, max_depth, lines)

    # -- JSON ------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (lossless: floats keep full precision)."""
        return {
            "format": FORMAT,
            "int_nodes": self.int_nodes.tolist(),
            "float_nodes": self.float_nodes.tolist(),
            "counts": self.counts.tolist(),
            "catmap": self.catmap.tolist(),
            "n_categories": self.n_categories.tolist(),
            "feature_names": list(self.feature_names),
            "classes": [_jsonable(c) for c in self.classes],
            "categories": [None if c is None else [_jsonable(v) for v in c] for c in self.categories],
            "criterion": self.criterion,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tree:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a treebench tree (format {data.get('format')!r}, expected {FORMAT!r})")
        n_classes = len(data["classes"])
        counts = np.asarray(data["counts"])
        # integer counts stay int64; sums of sample weights were written as floats
        count_dtype = np.float64 if counts.dtype.kind == "f" else np.int64
        return cls(
            int_nodes=np.asarray(data["int_nodes"], dtype=np.int64).reshape(-1, L.N_INT_FIELDS),
            float_nodes=np.asarray(data["float_nodes"], dtype=np.float64).reshape(-1, L.N_FLOAT_FIELDS),
            counts=counts.astype(count_dtype).reshape(-1, n_classes),
            catmap=np.asarray(data["catmap"], dtype=np.int64),
            n_categories=np.asarray(data["n_categories"], dtype=np.int64),
            feature_names=list(data["feature_names"]),
            classes=list(data["classes"]),
            categories=list(data.get("categories") or []),
            criterion=dict(data.get("criterion") or {}),
        )

    @classmethod
    def from_json(cls, text: str) -> Tree:
        return cls.from_dict(json.loads(text))


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return value
