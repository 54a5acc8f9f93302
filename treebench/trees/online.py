"""Online trees: O-ΠTree of paper 000, §4.2, for any criterion.

Every leaf keeps its examples.  A new example goes down to its leaf and is
added there; the best split of that leaf's examples is searched (with the same
builder as batch trees, one level deep) and the leaf is split only if the
criterion accepts it -- for the possibilistic gain, only if the gain is
positive.  Nothing else in the tree is revisited, so the tree grows slowly as
evidence accumulates.
"""

from __future__ import annotations

import time
from dataclasses import replace
from numbers import Integral
from typing import Any

import numpy as np

from treebench.errors import TreebenchError
from treebench.kernels import layout as L
from treebench.trees.builder import grow
from treebench.trees.encoding import FeatureEncoder
from treebench.trees.estimator import ESTIMATOR_PARAMS, TreeClassifier
from treebench.trees.fitted import as_labels
from treebench.trees.structure import Tree


class GrowingTree:
    """A tree that grows one example at a time (array layout of :class:`Tree`).

    Node arrays grow by doubling and :meth:`tree` returns views of them, so an
    update costs a traversal, a count increment per level and, at the reached
    leaf only, one split search.
    """

    def __init__(self, n_features: int, encoder: FeatureEncoder, classes: list, criterion, settings) -> None:
        self.encoder = encoder
        self.classes = classes
        self.criterion = criterion
        self.settings = settings
        self.X = np.empty((64, n_features))
        self.y = np.empty(64, np.int64)
        self.n_seen = 0
        self.int_nodes = np.full((16, L.N_INT_FIELDS), -1, np.int64)
        self.float_nodes = np.zeros((16, L.N_FLOAT_FIELDS))
        self.counts = np.zeros((16, len(classes)), np.int64)
        self.parents = np.full(16, -1, np.int64)
        self.int_nodes[0, L.KIND], self.int_nodes[0, L.DEPTH] = L.LEAF, 0
        self.n_nodes = 1
        self.catmap = np.zeros(0, np.int64)
        self.leaf_samples: dict[int, list[int]] = {0: []}
        self._view: Tree | None = None

    def tree(self) -> Tree:
        """The current tree: views of the growing arrays, rebuilt only when a
        split changes them (counts update in place through the views)."""
        if self._view is not None:
            return self._view
        n = self.n_nodes
        self._view = Tree(
            int_nodes=self.int_nodes[:n],
            float_nodes=self.float_nodes[:n],
            counts=self.counts[:n],
            catmap=self.catmap,
            n_categories=self.encoder.n_categories,
            feature_names=list(self.encoder.names),
            classes=list(self.classes),
            categories=list(self.encoder.categories),
            criterion={"name": self.criterion.name, **self.criterion.values},
        )
        return self._view

    # -- one example ----------------------------------------------------------------
    def add(self, row: np.ndarray, label: int) -> bool:
        """Add one encoded example; returns whether its leaf was split."""
        sample = self._store(row, label)
        leaf = int(self.tree().apply(row[None, :])[0]) if self.n_nodes > 1 else 0
        node = leaf
        while node >= 0:  # the example now counts in every node on its path
            self.counts[node, label] += 1
            node = self.parents[node]
        self.leaf_samples[leaf].append(sample)
        return self._try_split(leaf)

    def _store(self, row: np.ndarray, label: int) -> int:
        if self.n_seen == self.X.shape[0]:
            self.X = np.concatenate([self.X, np.empty_like(self.X)])
            self.y = np.concatenate([self.y, np.empty_like(self.y)])
        self.X[self.n_seen] = row
        self.y[self.n_seen] = label
        self.n_seen += 1
        return self.n_seen - 1

    def _try_split(self, leaf: int) -> bool:
        depth = int(self.int_nodes[leaf, L.DEPTH])
        if self.settings.max_depth is not None and depth >= self.settings.max_depth:
            return False
        samples = np.asarray(self.leaf_samples[leaf])
        if len(samples) < self.settings.min_samples_split or np.count_nonzero(self.counts[leaf]) < 2:
            return False
        stump = grow(
            self.X[samples],
            self.y[samples],
            len(self.classes),
            self.encoder,
            self.criterion,
            replace(self.settings, max_depth=1),
        )
        if stump.n_nodes == 1:
            return False
        self._graft(leaf, stump, samples)
        return True

    def _reserve(self, n_nodes: int) -> None:
        if n_nodes <= self.int_nodes.shape[0]:
            return
        size = max(n_nodes, 2 * self.int_nodes.shape[0])
        grown = np.full((size, L.N_INT_FIELDS), -1, np.int64)
        grown[: self.n_nodes] = self.int_nodes[: self.n_nodes]
        self.int_nodes = grown
        self.float_nodes = np.concatenate([self.float_nodes, np.zeros((size - len(self.float_nodes), L.N_FLOAT_FIELDS))])
        self.counts = np.concatenate([self.counts, np.zeros((size - len(self.counts), self.counts.shape[1]), np.int64)])
        self.parents = np.concatenate([self.parents, np.full(size - len(self.parents), -1, np.int64)])

    def _graft(self, leaf: int, stump: Tree, samples: np.ndarray) -> None:
        """Turn ``leaf`` into the stump's root split, with the stump's leaves as children."""
        first_child = self.n_nodes
        n_children = stump.n_nodes - 1
        self._reserve(first_child + n_children)
        root = stump.int_nodes[0]
        row = self.int_nodes[leaf]
        for field in (L.FEATURE, L.KIND, L.CATEGORY, L.DEFAULT_CHILD):
            row[field] = root[field]
        row[L.CHILD_START], row[L.N_CHILDREN] = first_child, n_children
        if root[L.KIND] == L.NOMINAL_MULTIWAY:
            start, width = int(root[L.CATMAP_START]), int(stump.n_categories[int(root[L.FEATURE])])
            row[L.CATMAP_START] = len(self.catmap)
            self.catmap = np.concatenate([self.catmap, stump.catmap[start : start + width]])
        self.float_nodes[leaf, L.THRESHOLD] = stump.float_nodes[0, L.THRESHOLD]
        self.float_nodes[leaf, L.SCORE] = stump.float_nodes[0, L.SCORE]
        children = slice(first_child, first_child + n_children)
        self.int_nodes[children, L.KIND] = L.LEAF
        self.int_nodes[children, L.DEPTH] = row[L.DEPTH] + 1
        self.float_nodes[children] = stump.float_nodes[1:]
        self.counts[children] = stump.counts[1:]
        self.parents[children] = leaf
        self.n_nodes += n_children
        self._view = None  # new nodes (and possibly new arrays after _reserve)
        destination = stump.apply(self.X[samples]) - 1 + first_child
        for child in range(first_child, first_child + n_children):
            self.leaf_samples[child] = samples[destination == child].tolist()
        del self.leaf_samples[leaf]


class OnlineTreeClassifier(TreeClassifier):
    """O-ΠTree: a tree revised one example at a time (paper 000, §4.2).

    ``fit(X, y)`` feeds the training examples one by one in a seeded random
    order, as the paper's online experiment; ``partial_fit`` continues with
    new examples, in the order given.  Parameters are those of
    :class:`TreeClassifier` (default criterion: ``possibilistic``) and:

    Parameters
    ----------
    random_state:
        Seed of the order in which ``fit`` feeds the examples: ``None``, an
        integer >= 0 (numpy's ``default_rng``), or a ``numpy.random.Generator``
        or ``RandomState`` to draw the permutation from.  It is the
        estimator's own parameter, never the criterion's.

    Attributes
    ----------
    update_seconds_ : ndarray
        Time of every single-example update, for the per-update cost the
        paper reports.
    n_splits_ : int
        Number of updates that split a leaf.
    """

    _estimator_params = (*ESTIMATOR_PARAMS, "random_state")

    def __init__(self, criterion: Any = "possibilistic", *, random_state: Any = 0, **params: Any) -> None:
        super().__init__(criterion, **params)
        self.random_state = random_state

    def fit(self, X: Any, y: Any, sample_data: np.ndarray | None = None, presorted: Any = None) -> OnlineTreeClassifier:
        """Feed every example of ``(X, y)``, in the order drawn from ``random_state``, to a new tree."""
        if sample_data is not None or presorted is not None:
            raise TreebenchError("online trees take neither sample_data nor presorted data")
        self._settings()  # parameters first, as TreeClassifier.fit
        self._make_criterion()
        for attribute in ("growing_", "tree_"):
            if hasattr(self, attribute):
                delattr(self, attribute)
        encoder, matrix = FeatureEncoder.fit(self._check_X(X, reset=True), self.nominal_features)
        labels = as_labels(y, matrix.shape[0])
        order = self._permutation(matrix.shape[0])
        return self._feed(encoder, matrix[order], labels[order], np.unique(labels))

    def _permutation(self, n: int) -> np.ndarray:
        """The order of the examples: numpy's ``default_rng(seed)`` for a seed (as always), else the generator's."""
        state = self.random_state
        if isinstance(state, np.random.RandomState):
            return state.permutation(n)
        if state is None or isinstance(state, np.random.Generator) or (
            isinstance(state, Integral) and not isinstance(state, bool) and state >= 0
        ):
            return np.random.default_rng(state).permutation(n)
        raise TreebenchError(
            f"random_state={state!r} is invalid; accepted: None, an integer >= 0, a numpy Generator or RandomState"
        )

    def partial_fit(self, X: Any, y: Any, classes: Any = None) -> OnlineTreeClassifier:
        """Add examples in the given order; the first call fixes ``classes``
        (all classes must be known then, as for scikit-learn's partial_fit)
        and the columns (later calls are checked against them)."""
        if not hasattr(self, "growing_"):
            encoder, matrix = FeatureEncoder.fit(self._check_X(X, reset=True), self.nominal_features)
            labels = as_labels(y, matrix.shape[0])
            known = np.unique(labels) if classes is None else np.unique(np.asarray(classes))
            return self._feed(encoder, matrix, labels, known)
        matrix = self.encoder_.transform(self._check_X(X, reset=False))
        return self._feed(self.encoder_, matrix, as_labels(y, matrix.shape[0]), self.classes_)

    def _feed(self, encoder: FeatureEncoder, matrix: np.ndarray, labels: np.ndarray, classes: np.ndarray) -> OnlineTreeClassifier:
        if self.pruning is not None:
            raise TreebenchError("online trees are not pruned; use pruning=None")
        lookup = {value: code for code, value in enumerate(classes.tolist())}
        unknown = sorted({v for v in labels.tolist() if v not in lookup}, key=str)
        if unknown:
            raise TreebenchError(
                f"label {unknown[0]!r} was not among the classes given at the first partial_fit: {classes.tolist()}"
            )
        if not hasattr(self, "growing_"):
            self.classes_ = classes
            self._fit_inputs(encoder, self._make_criterion())
            self.growing_ = GrowingTree(encoder.n_features, encoder, classes.tolist(), self.criterion_, self._settings())
            self.update_seconds_ = np.zeros(0)
            self.n_splits_ = 0
        times = np.empty(len(labels))
        matrix = np.ascontiguousarray(matrix, dtype=np.float64)
        for i, (row, label) in enumerate(zip(matrix, labels)):
            started = time.perf_counter()
            self.n_splits_ += self.growing_.add(row, lookup[label])
            times[i] = time.perf_counter() - started
        self.update_seconds_ = np.concatenate([self.update_seconds_, times])
        self.tree_ = self.growing_.tree()
        return self
