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
from dataclasses import dataclass, replace
from numbers import Integral
from typing import Any

import numpy as np

from treebench.criteria.builtin import whole_split_marker
from treebench.errors import TreebenchError
from treebench.kernels import layout as L
from treebench.kernels import online as K
from treebench.kernels import online_rows as R
from treebench.kernels.scoring import class_params
from treebench.trees.builder import MAX_BRANCHES, grow
from treebench.trees.encoding import FeatureEncoder
from treebench.trees.estimator import ESTIMATOR_PARAMS, TreeClassifier
from treebench.trees.fitted import as_labels, label_codes
from treebench.trees.settings import validate_tree_param
from treebench.trees.structure import Tree


class GrowingTree:
    """The state of an online tree grown by the compiled kernel (:mod:`treebench.kernels.online`).

    Node arrays, the leaves' sorted rows and the scan tables live in buffers
    that grow by doubling; :meth:`add_rows` hands them to the kernel and
    keeps what it returns.  :meth:`tree` returns views of the node arrays,
    rebuilt only when a split or a reallocation changed them (counts update
    in place through the views).
    """

    def __init__(
        self, encoder: FeatureEncoder, classes: list, criterion, settings, tie_stream: np.ndarray | None = None
    ) -> None:
        n_features = encoder.n_features
        k = len(classes)
        n_categories = encoder.n_categories
        if settings.nominal_split == "multiway" and encoder.is_nominal.any() and n_categories.max() > MAX_BRANCHES:
            worst = int(np.argmax(np.where(encoder.is_nominal, n_categories, 0)))
            raise TreebenchError(
                f"feature {encoder.names[worst]!r} has {n_categories[worst] - 1} categories; accepted: at most "
                f"{MAX_BRANCHES - 1} for multiway splits (or nominal_split='binary')"
            )
        self.encoder = encoder
        self.classes = classes
        self.criterion = criterion
        max_branches = int(n_categories.max()) if n_categories.size else 2
        # the builder's parameters for this encoder (grow() computes them the same way)
        params = np.asarray(criterion.kernel_params(max(max_branches, 2)), dtype=np.float64)
        # completed for the class count as the builder does (the belief impurities need k)
        cid, self.params = class_params(np.int64(criterion.kernel_id), params, np.int64(k))
        self.min_gain = float(criterion.min_gain)
        config = np.zeros(K.N_CONFIG, np.int64)
        config[K.CFG_CID] = cid
        config[K.CFG_AVERAGE_RULE] = bool(criterion.average_gain_rule)
        config[K.CFG_STRICT] = not criterion.accepts(self.min_gain)  # as builder._strict_accept
        config[K.CFG_MAX_DEPTH] = -1 if settings.max_depth is None else settings.max_depth
        config[K.CFG_MIN_SPLIT] = settings.min_samples_split
        config[K.CFG_MIN_LEAF] = settings.min_samples_leaf
        config[K.CFG_NOMINAL_BINARY] = settings.nominal_split == "binary"
        config[K.CFG_MIDPOINT] = settings.threshold == "midpoint"
        config[K.CFG_RANDOM_TIES] = tie_stream is not None
        self.config = config
        # the kernel takes a stream either way; it reads it only with CFG_RANDOM_TIES
        self.tie_stream = tie_stream if tie_stream is not None else np.zeros(1, np.uint64)
        self.whole = whole_split_marker(criterion.kernel_id)  # None but for a criterion scored whole
        self.is_nominal = encoder.is_nominal
        self.n_categories = n_categories
        self.int_nodes = np.full((16, L.N_INT_FIELDS), -1, np.int64)
        self.float_nodes = np.zeros((16, L.N_FLOAT_FIELDS))
        self.counts = np.zeros((16, k), np.int64)
        self.parents = np.full(16, -1, np.int64)
        self.catmap = np.full(16, -1, np.int64)
        self.segments = np.zeros((16, 3), np.int64)
        self.levels = np.zeros((16, n_features), np.int64)
        self.ceilings = np.full((16, 2), np.inf)
        self.int_nodes[0, L.KIND], self.int_nodes[0, L.DEPTH] = L.LEAF, 0
        self.segments[0, R.SEG_CAP] = R.MIN_CAPACITY
        self.arena = R.new_arena(n_features, 64)
        self.destination = np.zeros(64, np.int64)
        self.buffers = (np.zeros(1), np.zeros(1), np.empty(0, np.float32), np.empty((1, k), np.int32))
        self.meta = np.zeros(K.N_META, np.int64)
        self.meta[K.META_NODES] = 1
        self.meta[K.META_ARENA_USED] = R.MIN_CAPACITY
        self._view: Tree | None = None

    @property
    def n_nodes(self) -> int:
        return int(self.meta[K.META_NODES])

    @property
    def n_splits(self) -> int:
        return int(self.meta[K.META_SPLITS])

    def add_rows(self, matrix: np.ndarray, codes: np.ndarray) -> int:
        """Add encoded rows (C-ordered float64) with label codes (int64) one at a time; returns the splits made."""
        before = self.n_splits
        (
            self.int_nodes, self.float_nodes, self.counts, self.parents, self.catmap, self.segments, self.levels,
            self.ceilings, self.arena, self.destination, self.buffers,
        ) = K.feed(
            matrix, codes, self.int_nodes, self.float_nodes, self.counts, self.parents, self.catmap, self.segments,
            self.levels, self.ceilings, self.arena, self.destination, self.buffers, self.meta, self.is_nominal, self.n_categories,
            self.config, self.params, self.min_gain, self.tie_stream, self.whole,
        )
        view = self._view
        if view is not None and (
            view.n_nodes != self.n_nodes or view.counts.base is not self.counts or view.catmap.base is not self.catmap
        ):
            self._view = None
        return self.n_splits - before

    def tree(self) -> Tree:
        """The current tree: views of the growing arrays."""
        if self._view is not None:
            return self._view
        n = self.n_nodes
        self._view = Tree(
            int_nodes=self.int_nodes[:n],
            float_nodes=self.float_nodes[:n],
            counts=self.counts[:n],
            catmap=self.catmap[: self.meta[K.META_CATMAP]],
            n_categories=self.encoder.n_categories,
            feature_names=list(self.encoder.names),
            classes=list(self.classes),
            categories=list(self.encoder.categories),
            criterion={"name": self.criterion.name, **self.criterion.values},
        )
        return self._view


class RegrowingTree:
    """The first O-ΠTree: every arrival re-grows a stump on the whole leaf (plain Python around the builder).

    Node arrays grow by doubling and :meth:`tree` returns views of them; every
    leaf keeps its examples' ids, and the split search at the reached leaf
    is a batch fit (:func:`treebench.trees.builder.grow`, one level deep) of
    them.  Kept for criteria without a compiled kernel (a plugin criterion:
    the generic engine searches its splits), and as the oracle the tests hold
    :class:`GrowingTree` to.
    """

    def __init__(
        self, n_features: int, encoder: FeatureEncoder, classes: list, criterion, settings,
        tie_stream: np.ndarray | None = None,
    ) -> None:
        self.tie_stream = tie_stream
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

    def add_rows(self, matrix: np.ndarray, codes: np.ndarray) -> int:
        """Add encoded rows one at a time, in order; returns how many leaves were split."""
        return sum(self.add(row, int(code)) for row, code in zip(matrix, codes))

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
            tie_stream=self.tie_stream,
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

    ``fit(X, y)`` feeds the training examples one by one, by default in a
    seeded random order (paper 000 states no arrival order: a seeded
    permutation makes the result independent of how the file happens to be
    sorted); ``partial_fit`` continues with new examples, in the order given.
    Parameters are those of :class:`TreeClassifier` (default criterion:
    ``possibilistic``) and:

    Parameters
    ----------
    order:
        ``"shuffled"`` (default): ``fit`` feeds the examples in a permutation
        drawn from ``random_state``; ``"file"``: in the order of ``X``'s rows.
    random_state:
        Seed of the shuffled order and of ``feature_ties="random"``'s draws
        (two independent streams): ``None``, an integer >= 0 (numpy's
        ``default_rng`` for the order), or a ``numpy.random.Generator`` or
        ``RandomState`` to draw from.  Default 0.  It is the estimator's own
        parameter, never the criterion's.

    Attributes
    ----------
    update_seconds_ : ndarray
        Time of every single-example update, for the per-update cost the
        paper reports.
    n_splits_ : int
        Number of updates that split a leaf.
    """

    _estimator_params = (*ESTIMATOR_PARAMS, "order")
    #: Grow with :class:`RegrowingTree` whatever the criterion (the first implementation: the
    #: tests' and benchmarks' reference; never needed otherwise).
    _regrowing: bool = False

    def __init__(
        self, criterion: Any = "possibilistic", *, random_state: Any = 0, order: str = "shuffled", **params: Any
    ) -> None:
        super().__init__(criterion, random_state=random_state, **params)
        self.order = order

    def fit(self, X: Any, y: Any, sample_data: np.ndarray | None = None, presorted: Any = None) -> OnlineTreeClassifier:
        """Feed every example of ``(X, y)`` to a new tree, in the ``order`` chosen (shuffled: drawn from ``random_state``)."""
        if sample_data is not None or presorted is not None:
            raise TreebenchError("online trees take neither sample_data nor presorted data")
        self._forget()
        stream = self.encode_stream(X, y)
        return self.fit_stream(stream, stream.order(self.random_state, self.order))

    def encode_stream(self, X: Any, y: Any) -> EncodedStream:
        """``(X, y)`` checked and encoded once, for :meth:`fit_stream` (e.g. by every fit of a tuning grid)."""
        self._settings()  # parameters first, as TreeClassifier.fit
        validate_tree_param("order", self.order, python=True)
        self._make_criterion()
        X = self._check_X(X, reset=True)
        encoder, matrix = FeatureEncoder.fit(X, self.nominal_features)
        classes, codes = label_codes(as_labels(y, matrix.shape[0]))
        return EncodedStream(X, encoder, np.ascontiguousarray(matrix, dtype=np.float64), classes, codes)

    def fit_stream(self, stream: EncodedStream, order: np.ndarray) -> OnlineTreeClassifier:
        """Feed ``stream``'s examples in ``order`` to a new tree (as :meth:`fit` does in its seeded order)."""
        self._settings()
        self._make_criterion()
        self._forget()
        self._check_X(stream.X, reset=True)  # n_features_in_ and feature_names_in_, as fit records them
        self._start(stream.encoder, stream.classes)
        return self._feed(stream.matrix[order], stream.codes[order])

    def _forget(self) -> None:
        for attribute in ("growing_", "tree_"):
            if hasattr(self, attribute):
                delattr(self, attribute)

    def _permutation(self, n: int) -> np.ndarray:
        """The order of the examples: numpy's ``default_rng(seed)`` for a seed (as always), else the generator's."""
        return permutation(self.random_state, n)

    def partial_fit(self, X: Any, y: Any, classes: Any = None) -> OnlineTreeClassifier:
        """Add examples in the given order; the first call fixes ``classes``
        (all classes must be known then, as for scikit-learn's partial_fit)
        and the columns (later calls are checked against them).

        A later call with a numeric array on a tree first fed a numeric array
        skips scikit-learn's input checks (whose only checks there are the
        column count, made here, and the column names, which such a tree has
        none of), and labels go to their codes through one look-up: checking
        a single example costs microseconds.
        """
        if not hasattr(self, "growing_"):
            X = self._check_X(X, reset=True)
            encoder, matrix = FeatureEncoder.fit(X, self.nominal_features)
            labels = as_labels(y, matrix.shape[0])
            known = np.unique(labels) if classes is None else np.unique(np.asarray(classes))
            self._check_pruning()
            lookup = {value: code for code, value in enumerate(known.tolist())}
            codes = _codes(lookup, known, labels, matrix.shape[0])  # before the tree exists: a bad call leaves none
            self._start(encoder, known)
            return self._feed(matrix, codes)
        matrix = self._plain_matrix(X)
        if matrix is None:
            matrix = self.encoder_.transform(self._check_X(X, reset=False))
        return self._feed(matrix, _codes(self._lookup, self.classes_, y, matrix.shape[0]))

    def _plain_matrix(self, X: Any) -> np.ndarray | None:
        """``X`` itself (as float64) when it needs no check beyond its shape, else ``None``."""
        if not (
            self._plain_input
            and isinstance(X, np.ndarray)
            and X.ndim == 2
            and X.dtype.kind in "biuf"
            and X.shape[1] == self.n_features_in_
        ):
            return None
        return X

    def _encode(self, X: Any) -> np.ndarray:
        """As every tree's, without scikit-learn's checks for the inputs :meth:`partial_fit` lets through too."""
        if hasattr(self, "tree_"):
            matrix = self._plain_matrix(X)
            if matrix is not None:
                return matrix
        return super()._encode(X)

    def _check_pruning(self) -> None:
        if self.pruning is not None:
            raise TreebenchError("online trees are not pruned; use pruning=None")

    def _start(self, encoder: FeatureEncoder, classes: np.ndarray) -> None:
        """A new, empty tree for ``encoder``'s columns and these classes."""
        self._check_pruning()
        criterion = self._make_criterion()
        settings = self._settings()
        self.classes_ = classes
        self._lookup = {value: code for code, value in enumerate(classes.tolist())}
        self._fit_inputs(encoder, criterion)
        ties = self._tie_stream(settings)
        if criterion.kernel_id >= 0 and not self._regrowing:
            self.growing_ = GrowingTree(encoder, classes.tolist(), criterion, settings, ties)
        else:  # no compiled kernel (a plugin criterion): the generic engine searches every leaf
            self.growing_ = RegrowingTree(encoder.n_features, encoder, classes.tolist(), criterion, settings, ties)
        # a numeric array with no column names: later arrays need no check but their width
        self._plain_input = not encoder.from_dataframe and not encoder.is_nominal.any() and not hasattr(
            self, "feature_names_in_"
        )
        self._update_times = np.zeros(64)
        self._n_updates = 0

    def _feed(self, matrix: np.ndarray, codes: np.ndarray) -> OnlineTreeClassifier:
        matrix = np.ascontiguousarray(matrix, dtype=np.float64)
        started = time.perf_counter()
        self.growing_.add_rows(matrix, codes)
        elapsed = time.perf_counter() - started
        n = len(codes)
        if self._n_updates + n > len(self._update_times):
            self._update_times = np.concatenate(
                [self._update_times, np.zeros(max(n, len(self._update_times)))]
            )
        # one compiled call adds every row: each gets the call's mean
        self._update_times[self._n_updates : self._n_updates + n] = elapsed / n
        self._n_updates += n
        self.tree_ = self.growing_.tree()
        return self

    @property
    def update_seconds_(self) -> np.ndarray:
        """Time of every single-example update (for the per-update cost the paper reports).

        The examples of one ``fit`` or ``partial_fit`` call are added by one
        compiled call; each is given that call's mean time (feed one example
        per ``partial_fit`` call for the time of each).
        """
        if not hasattr(self, "growing_"):
            raise AttributeError("update_seconds_ exists once the tree has seen examples")
        return self._update_times[: self._n_updates]

    @property
    def n_splits_(self) -> int:
        """Number of updates that split a leaf."""
        if not hasattr(self, "growing_"):
            raise AttributeError("n_splits_ exists once the tree has seen examples")
        if isinstance(self.growing_, GrowingTree):
            return self.growing_.n_splits
        return self.growing_.n_nodes - int(np.count_nonzero(self.growing_.tree().is_leaf))


def _codes(lookup: dict, classes: np.ndarray, y: Any, n_samples: int) -> np.ndarray:
    """The class codes of the labels ``y``: one look-up each; the full label checks only on a failure."""
    labels = y if isinstance(y, np.ndarray) else None
    if labels is not None and labels.ndim == 1 and labels.shape[0] == n_samples > 0:
        try:
            return np.fromiter((lookup[v] for v in labels.tolist()), np.int64, count=n_samples)
        except (KeyError, TypeError):  # an unknown (or unhashable) label: the checks below say what is wrong
            pass
    labels = as_labels(y, n_samples)
    try:
        return np.fromiter((lookup[v] for v in labels.tolist()), np.int64, count=n_samples)
    except (KeyError, TypeError):
        pass
    unknown = sorted({v for v in labels.tolist() if not _known(lookup, v)}, key=str)
    raise TreebenchError(
        f"label {unknown[0]!r} was not among the classes given at the first partial_fit: {classes.tolist()}"
    )


def _known(lookup: dict, value: Any) -> bool:
    try:
        return value in lookup
    except TypeError:
        return False


def permutation(random_state: Any, n: int) -> np.ndarray:
    """The order in which ``fit`` feeds ``n`` examples: numpy's ``default_rng(seed)`` for a seed, else the generator's."""
    state = random_state
    if isinstance(state, np.random.RandomState):
        return state.permutation(n)
    if state is None or isinstance(state, np.random.Generator) or (
        isinstance(state, Integral) and not isinstance(state, bool) and state >= 0
    ):
        return np.random.default_rng(state).permutation(n)
    raise TreebenchError(
        f"random_state={state!r} is invalid; accepted: None, an integer >= 0, a numpy Generator or RandomState"
    )


@dataclass
class EncodedStream:
    """Training examples checked and encoded once: what every online fit on them starts from.

    ``X`` is the input as checked (for the column bookkeeping of each fit),
    ``matrix`` its encoding (C-ordered float64), ``codes`` the label codes
    ``0..k-1`` of the sorted ``classes``.
    """

    X: Any
    encoder: FeatureEncoder
    matrix: np.ndarray
    classes: np.ndarray
    codes: np.ndarray

    def order(self, random_state: Any, how: str = "shuffled") -> np.ndarray:
        """The order ``OnlineTreeClassifier(random_state=..., order=how).fit`` feeds these examples in."""
        if validate_tree_param("order", how, python=True) == "file":
            return np.arange(len(self.codes))
        return permutation(random_state, len(self.codes))
