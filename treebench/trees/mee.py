"""Minimum entropy-of-error trees (paper 001): the estimator and its builder.

At every node each candidate class set (one class, or up to ``max_merged``
merged classes) is coded ``t = 1`` against the rest; for every feature the
error-entropy curve of ``x <= threshold`` is computed in both orientations,
curves the crude rule calls concave (on a grid over the whole training set's
range of the feature, as the paper says) are discarded, and the split is the
lowest error entropy over the remaining ones.  No usable curve, no class set
with enough cases, a pure node or ``max_depth`` makes a leaf -- the paper's
stopping conditions -- and, by default (``must_lower=True``), a curve offers a
split only where it goes below its own ends, the error entropy of not
splitting (the argument is in :class:`MEETreeClassifier`).  No pruning.
Candidates of several features that tie go to the first feature, or with
``feature_ties="random"`` to one of them drawn from ``random_state``
(:mod:`treebench.kernels.mee_ties`).

The result is an ordinary :class:`treebench.trees.structure.Tree` (binary
numeric splits), so prediction, sizes and ``export_text`` are shared with
every other tree; the chosen class set and orientation of each split are
kept in :attr:`MEETreeClassifier.split_sets_`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from treebench.criteria.mee import (
    MEE,
    class_sets,
    coded_error_entropy,
    convexity_grid,
    convexity_verdicts,
    count_class_sets,
    error_entropy_curve,
    unsplit_error_entropy,
)
from treebench.errors import TreebenchError
from treebench.kernels import layout as L
from treebench.kernels.mee import best_mee_split, xlogx_table
from treebench.kernels.mee_grow import grow_mee_tree, presort
from treebench.kernels.mee_ties import child_key
from treebench.kernels.ties import replaces_tied, tie_state
from treebench.kernels.tolerances import TIE_TOLERANCE
from treebench.trees.encoding import FeatureEncoder
from treebench.trees.fitted import FittedTreeMixin
from treebench.trees.limits import check_grid
from treebench.trees.randomness import tie_seed
from treebench.trees.settings import validate_tree_param
from treebench.trees.structure import Tree

THRESHOLDS = ("observed", "midpoint")
ENGINES = ("numba", "python")
#: Most candidate class sets per node (``floor(c/2)`` merged classes give
#: ``2**(c-1) - 1`` sets: 17 classes at most); every set is scanned on every
#: feature of every node, so more would run without end (a continuous target
#: of 30 values asked for 5e8 sets and over 21 GB).
MAX_CLASS_SETS = 2**16 - 1


@dataclass
class GrownMEE:
    """A grown MEE tree: node arrays (:mod:`treebench.kernels.layout`) and each split's class set."""

    ints: np.ndarray
    floats: np.ndarray
    counts: np.ndarray
    #: per node: the class codes coded ``t = 1`` by its split, ``None`` for a leaf
    split_sets: list[tuple[int, ...] | None]
    #: per node: 0 (``x <= threshold`` assigned the set), 1 (``x > threshold``) or -1 (a leaf)
    orientations: np.ndarray


@dataclass
class _Nodes:
    """Growing node arrays of the per-node builder (lists until the tree is finished)."""

    n_classes: int
    ints: list[list[int]] = field(default_factory=list)
    floats: list[list[float]] = field(default_factory=list)
    counts: list[np.ndarray] = field(default_factory=list)
    split_sets: list[tuple[int, ...] | None] = field(default_factory=list)
    orientations: list[int] = field(default_factory=list)

    def add(self, depth: int) -> int:
        row = [-1] * L.N_INT_FIELDS
        row[L.KIND], row[L.N_CHILDREN], row[L.DEPTH] = L.LEAF, 0, depth
        self.ints.append(row)
        self.floats.append([0.0] * L.N_FLOAT_FIELDS)
        self.counts.append(np.zeros(self.n_classes, np.int64))
        self.split_sets.append(None)
        self.orientations.append(-1)
        return len(self.ints) - 1

    def finish(self) -> GrownMEE:
        return GrownMEE(
            ints=np.asarray(self.ints, dtype=np.int64).reshape(-1, L.N_INT_FIELDS),
            floats=np.asarray(self.floats, dtype=np.float64).reshape(-1, L.N_FLOAT_FIELDS),
            counts=np.asarray(self.counts, dtype=np.int64).reshape(-1, self.n_classes),
            split_sets=list(self.split_sets),
            orientations=np.asarray(self.orientations, dtype=np.int64),
        )


class MEETreeClassifier(FittedTreeMixin, ClassifierMixin, BaseEstimator):
    """Binary decision tree grown by minimum entropy-of-error splits.

    Parameters
    ----------
    threshold:
        ``"observed"`` (the paper: the largest value sent left is the
        threshold) or ``"midpoint"`` (halfway to the next observed value).
        Both give the same training partition.
    min_class_cases:
        A class set with fewer cases than this at the node -- or whose
        complement has fewer -- is not a candidate (default 5).  A node with
        no candidate is a leaf.
    min_child_cases:
        A threshold leaving fewer cases on either side is not a candidate
        (default 1: every threshold).
    max_merged:
        Largest number of merged classes in a candidate set; ``None`` (or 0)
        means ``floor(c / 2)`` for the ``c`` classes present at the node.
    convexity_points:
        Grid size of the convex/concave rule (the paper: 100).
    convexity_range:
        ``"whole"`` (default; the paper: "a 100-point grid on the whole
        feature range"): the grid spans the feature's range over the whole
        training set at every node; ``"node"``: the node's cases' range.
    must_lower:
        ``True`` (default): a threshold is a split only where the curve goes
        below its ends, the error entropies of not splitting (every case
        given the class set, or every case its complement); a convex curve
        with no such threshold offers no split.  ``False`` (the former
        default, kept as the reading "may rise"): the lowest threshold of
        any convex curve splits, even above not splitting.  See Notes.
    convexity_test:
        ``"per_orientation"`` (default, the rule before the option): the
        convex/concave rule judges each orientation's curve of a class set on
        its own; ``"envelope"``: once per class set and feature, on the lower
        envelope of the two orientations' curves (the better labelling of the
        two sides at every grid point), and that verdict holds for both.  See
        Notes.
    max_depth:
        Maximum depth (root = 0); ``None`` for no limit.
    error_rates:
        ``"joint"`` (default): ``P(e=2) = n_{1,-1}/n``; ``"printed"``: the
        paper's formula as printed, ``P(e=2) = p n_{1,-1}/n`` (see
        :func:`treebench.criteria.mee.error_entropy`).
    engine:
        ``"numba"`` (compiled scan) or ``"python"`` (the plain-numpy
        reference, for tests).
    feature_ties:
        ``"first"`` (default, the rule before the option): of candidates of
        several features whose error entropies tie (within the kernels' tie
        tolerance), the first feature's; ``"random"``: one of the tied
        features, each equally likely, drawn from ``random_state`` (see
        ``docs/criteria.md``, "Ties between features").  Ties within one
        feature keep their order (class set, orientation, smallest threshold).
    random_state:
        Seed of ``feature_ties="random"``: ``None``, an integer >= 0, or a numpy
        ``Generator`` or ``RandomState``; unused with ``"first"``.

    Attributes
    ----------
    tree_ : Tree
    classes_ : ndarray
    n_features_in_ : int
    split_sets_ : list
        Per node: the class labels coded ``t = 1`` by the split, or ``None``
        for a leaf.
    split_orientations_ : ndarray
        Per node: 0 when ``x <= threshold`` was assigned the class set, 1
        when ``x > threshold`` was, -1 for a leaf.
    feature_names_in_ : ndarray
        Column names, only when fitted on a DataFrame with string column names.
    feature_importances_ : ndarray
        Normalised weighted decrease of the node value, the error entropy of
        not splitting (see ``docs/criteria.md``, "Estimators").

    Notes
    -----
    *Why a split must lower the error entropy* (paper 001, section 2).  The
    entropy-of-error curve is drawn over the whole feature range, so its two
    ends are the thresholds that leave every case on one side: the error
    entropy of not splitting.  The text takes "the entropy minimum" of a
    curve as the split ("a global minimum corresponding to the interesting
    split is found", "we stick to the entropy minimum") and calls the global
    minimum of a concave curve, which lies towards an end, "useless"; a node
    with "no valid split" is a leaf, and section 4 speaks of "no valid
    minimum" for a feature.  A threshold above the curve's ends is therefore not the
    curve's minimum and not a valid split: the minimum is not to split.  The
    crude five-interval rule cannot see this (a curve may pass it with its
    lowest point at an end), so ``must_lower`` states it exactly.  Section 5
    fits this reading -- no split under heavy class overlap, no pruning
    needed, trees smaller than C4.5's -- and the former default does not:
    it grew chains (segment: about 500 leaves at depth about 500; see
    ``docs/investigations.md``, "MEE chains").  The text's other leaf
    condition, "the number of cases for any candidate class is very small",
    is ``min_class_cases`` (5: our choice of "very small"; 2 and 10 are run
    as readings); it says nothing of a child's size, so ``min_child_cases``
    stays 1 (5 is run as a reading).

    *Which curve the convex/concave rule judges* (``convexity_test``).  The
    text searches "the f x m space" -- features by candidate classes -- and
    draws one curve per feature and class (Fig. 1); its split is a Stoller
    split, whose labelling of the two sides is part of the rule, and its
    multiclass candidates are merged classes "up to c/2" (a set, not its
    complement), so a set that lies on the right of a threshold needs the
    second orientation.  Whether the crude rule then judges each orientation's
    curve on its own or one curve per set and feature is open.  The default
    (``per_orientation``, treebench's rule before the option) is the
    former: a set on the left and the same set on the right are two candidates,
    as the step function ``x <= Delta -> class`` applied to a set and to its
    complement.  ``envelope`` is the latter: the curve of a (set, feature) pair
    is, at each threshold, the lower of the two orientations' error entropies
    -- the Stoller split's best labelling -- and one verdict on it gates both
    orientations; the split is then the envelope's minimum.  A labelling fixed
    by one side only (``x <= Delta`` always assigned the set) would make the
    tree depend on a feature's sign and is not offered.

    Features must be numeric and finite, in fitting and in prediction (NaN
    and inf are refused); a target may have at most as many classes as give
    :data:`MAX_CLASS_SETS` candidate class sets (17 with ``max_merged=None``).
    """

    def __init__(
        self,
        threshold: str = "observed",
        min_class_cases: int = 5,
        min_child_cases: int = 1,
        max_merged: int | None = None,
        convexity_points: int = 100,
        max_depth: int | None = None,
        error_rates: str = "joint",
        convexity_range: str = "whole",
        must_lower: bool = True,
        convexity_test: str = "per_orientation",
        engine: str = "numba",
        feature_ties: str = "first",
        random_state: Any = None,
    ) -> None:
        self.threshold = threshold
        self.min_class_cases = min_class_cases
        self.min_child_cases = min_child_cases
        self.max_merged = max_merged
        self.convexity_points = convexity_points
        self.max_depth = max_depth
        self.error_rates = error_rates
        self.convexity_range = convexity_range
        self.must_lower = must_lower
        self.convexity_test = convexity_test
        self.engine = engine
        self.feature_ties = feature_ties
        self.random_state = random_state

    def _validate(self) -> MEE:
        if self.threshold not in THRESHOLDS:
            raise TreebenchError(f"threshold={self.threshold!r} is invalid; accepted: {', '.join(THRESHOLDS)}")
        if self.engine not in ENGINES:
            raise TreebenchError(f"engine={self.engine!r} is invalid; accepted: {', '.join(ENGINES)}")
        validate_tree_param("max_depth", self.max_depth, python=True)
        validate_tree_param("feature_ties", self.feature_ties, python=True)
        merged = 0 if self.max_merged is None else self.max_merged
        # the criterion validates its own parameters with one-line errors
        return MEE(
            min_class_cases=self.min_class_cases,
            min_child_cases=self.min_child_cases,
            max_merged=merged,
            convexity_points=self.convexity_points,
            error_rates=self.error_rates,
            convexity_range=self.convexity_range,
            must_lower=self.must_lower,
            convexity_test=self.convexity_test,
        )

    # -- fitting ------------------------------------------------------------------
    def fit(self, X: Any, y: Any) -> MEETreeClassifier:
        """Grow the tree on numeric, finite features ``X`` and labels ``y``."""
        criterion = self._validate()
        encoder, matrix = FeatureEncoder.fit(_numeric_input(self._check_X(X, reset=True)))
        if encoder.is_nominal.any():
            bad = encoder.names[int(np.flatnonzero(encoder.is_nominal)[0])]
            raise TreebenchError(f"MEE trees split numeric features only; feature {bad!r} is nominal")
        _check_finite(matrix, encoder.names, "fit")
        codes = self._fit_labels(y, matrix.shape[0])
        n_classes, merged = len(self.classes_), criterion.max_merged or None
        n_sets = count_class_sets(n_classes, merged)
        if n_sets > MAX_CLASS_SETS:
            most = n_classes - 1  # the set count grows with the classes: the largest allowed is below
            while count_class_sets(most, merged) > MAX_CLASS_SETS:
                most -= 1
            raise TreebenchError(
                f"MEE trees: y has {n_classes} classes, which give {n_sets:,} candidate class sets "
                f"with max_merged={self.max_merged!r}; accepted: at most {MAX_CLASS_SETS:,} sets "
                f"({most} classes with this max_merged; a smaller max_merged allows more)"
            )
        check_grid(int(criterion.convexity_points), n_classes)
        self._fit_inputs(encoder, criterion)
        grow = grow_mee if self.engine == "numba" else grow_mee_per_node
        seed = None if self.feature_ties == "first" else tie_seed(self.random_state)
        grown = grow(
            np.ascontiguousarray(matrix, dtype=np.float64),
            codes,
            len(self.classes_),
            criterion,
            max_depth=self.max_depth,
            midpoint=self.threshold == "midpoint",
            engine=self.engine,
            seed=seed,
        )
        self.tree_ = Tree(
            int_nodes=grown.ints,
            float_nodes=grown.floats,
            counts=grown.counts,
            catmap=np.zeros(0, np.int64),
            n_categories=encoder.n_categories,
            feature_names=list(encoder.names),
            classes=self.classes_.tolist(),
            categories=list(encoder.categories),
            criterion={"name": criterion.name, **criterion.values, "threshold": self.threshold},
        )
        self.split_sets_ = [
            None if s is None else tuple(self.classes_[list(s)].tolist()) for s in grown.split_sets
        ]
        self.split_orientations_ = grown.orientations
        return self

    def _encode(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "tree_")
        matrix = self.encoder_.transform(_numeric_input(self._check_X(X, reset=False)))
        _check_finite(matrix, self.encoder_.names, "predict")
        return matrix

    # -- prediction ------------------------------------------------------------------
    def predict_at_depth(self, X: Any, depth: int) -> np.ndarray:
        """Predictions of the tree truncated at ``depth`` (root = 0).

        Nodes at that depth answer with their own majority class, as if they
        were leaves (the per-level errors of the paper's Fig. 5).
        """
        return self.predict_levels(X, [depth])[0]

    def predict_levels(self, X: Any, depths: Any) -> np.ndarray:
        """:meth:`predict_at_depth` at each of ``depths``, shape ``(len(depths), n)``.

        ``X`` is checked, encoded and routed to its leaves once; a row's answer
        at depth ``d`` is then that of its leaf's ancestor at ``d`` (the leaf
        itself when it is shallower).
        """
        check_is_fitted(self, "tree_")
        depths = list(depths)
        for depth in depths:
            if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 0:
                raise TreebenchError(f"depth={depth!r} is invalid; accepted: an integer >= 0")
        tree = self.tree_
        node = tree.apply(self._encode(X))
        node_depth = tree.int_nodes[:, L.DEPTH]
        parent = tree.parents()
        out = np.empty((len(depths), node.shape[0]), dtype=self.classes_.dtype)
        # deepest first: each level climbs from where the previous one stopped
        for i in sorted(range(len(depths)), key=lambda i: -depths[i]):
            deeper = node_depth[node] > depths[i]
            while deeper.any():
                node[deeper] = parent[node[deeper]]
                deeper = node_depth[node] > depths[i]
            out[i] = self.classes_[tree.class_index_at(node)]
        return out

    def tree_quality(self) -> float | None:
        return None  # the MEE criterion has no tree-level measure


def grow_mee(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    criterion: MEE,
    *,
    max_depth: int | None = None,
    midpoint: bool = False,
    engine: str = "numba",
    seed: int | None = None,
) -> GrownMEE:
    """Grow the tree with the compiled node loop (:mod:`treebench.kernels.mee_grow`).

    The same tree as :func:`grow_mee_per_node` (its oracle in the tests):
    the children of a node get consecutive ids, the left subtree is grown
    first, and the convexity grid of ``convexity_range="whole"`` spans each
    feature's range over all of ``X``.  ``engine`` is accepted for a uniform
    signature; this builder is compiled only.  ``seed`` (an integer in
    ``[0, 2**64)``) breaks ties between features at random
    (``feature_ties="random"``), ``None`` takes the first feature.
    """
    if X.shape[0] == 0:
        raise TreebenchError("cannot grow a tree on 0 samples")
    n = X.shape[0]
    labels = np.ascontiguousarray(y, dtype=np.int64)
    merged = criterion.max_merged or None
    set_pos, set_size, set_parent, set_first = set_tables(n_classes, merged)
    index, rank, label, level_values, level_start = presort(X, labels)
    ints, floats, counts, rows, orientations, extremes = grow_mee_tree(
        index, rank, label, level_values, level_start,
        np.bincount(labels, minlength=n_classes).astype(np.int64),
        set_pos, set_size, set_parent, set_first, xlogx_table(n),
        int(criterion.convexity_points), int(criterion.min_class_cases), int(criterion.min_child_cases),
        criterion.error_rates == "printed", criterion.convexity_range == "whole",
        np.ascontiguousarray(X.min(axis=0)), np.ascontiguousarray(X.max(axis=0)),
        bool(criterion.must_lower), criterion.convexity_test == "envelope",
        -1 if max_depth is None else int(max_depth), bool(midpoint),
        seed is not None, tie_state(0 if seed is None else seed),
    )
    floats[:, L.IMPURITY] = node_values(counts, extremes, criterion.error_rates)
    split_sets: list[tuple[int, ...] | None] = [None] * ints.shape[0]
    for node in np.flatnonzero(rows >= 0):
        present = np.flatnonzero(counts[node])
        split_sets[node] = tuple(int(c) for c in present[set_pos[rows[node], : set_size[rows[node]]]])
    return GrownMEE(ints, floats, counts, split_sets, orientations)


@lru_cache(maxsize=32)
def set_tables(n_classes: int, max_merged: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Candidate class sets of a node with ``c`` present classes, for every ``c <= n_classes``.

    Rows ``set_first[c]`` to ``set_first[c + 1]`` of ``set_pos`` are the sets of
    :func:`treebench.criteria.mee.class_sets` over positions ``0..c-1`` (the
    node's present classes in ascending order), padded with -1; ``set_size``
    gives their sizes and ``set_parent`` the row of the set less its last
    class (-1 for one class; always listed earlier, in the same table).
    Cached: the tables depend on the class count only.
    """
    tables = [class_sets(range(c), max_merged) for c in range(n_classes + 1)]
    width = max([len(s) for sets in tables for s in sets], default=1)
    set_first = np.zeros(n_classes + 2, np.int64)
    set_first[1:] = np.cumsum([len(sets) for sets in tables])
    set_pos = np.full((int(set_first[-1]), width), -1, np.int64)
    set_size = np.zeros(int(set_first[-1]), np.int64)
    set_parent = np.full(int(set_first[-1]), -1, np.int64)
    row = 0
    for sets in tables:
        rows: dict[tuple[int, ...], int] = {}  # this table's sets and their rows
        for s in sets:
            set_pos[row, : len(s)] = s
            set_size[row] = len(s)
            set_parent[row] = rows.get(s[:-1], -1)
            rows[s] = row
            row += 1
    for array in (set_pos, set_size, set_parent, set_first):
        array.setflags(write=False)  # shared by every fit through the cache
    return set_pos, set_size, set_parent, set_first


def node_values(counts: np.ndarray, extremes: np.ndarray, error_rates: str) -> np.ndarray:
    """Every node's value: the lowest error entropy of not splitting over its class sets.

    Not splitting scores ``h(n_S / n)``-like values that fall as ``n_S / n``
    moves away from 1/2 (under both readings of the error rates), so the
    lowest is at the smallest or the largest set (``extremes``, -1 for a node
    with fewer than two classes: value 0).  The formula is the per-node
    builder's (:func:`_unsplit_entropy`), element by element, so the values
    are the same numbers.
    """
    values = np.zeros(counts.shape[0])
    nodes = np.flatnonzero(extremes[:, 0] >= 0)
    if nodes.size == 0:
        return values
    n = counts[nodes].sum(axis=1).astype(float)
    best = np.full(nodes.size, np.inf)
    for column in (0, 1):
        inside = extremes[nodes, column].astype(float)
        p = inside / n if error_rates == "printed" else None
        ends = (coded_error_entropy(inside, 0.0 * inside, n, p), coded_error_entropy(0.0 * inside, n - inside, n, p))
        best = np.minimum(best, np.minimum(*ends))
    values[nodes] = best
    return values


def grow_mee_per_node(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    criterion: MEE,
    *,
    max_depth: int | None = None,
    midpoint: bool = False,
    engine: str = "numba",
    seed: int | None = None,
) -> GrownMEE:
    """The per-node builder: every node copies its cases and sorts every feature (slow; the oracle).

    ``engine="numba"`` scans a node with :func:`treebench.kernels.mee.best_mee_split`,
    ``"python"`` with :func:`reference_best_split`.  The children of a node
    get consecutive ids and the left subtree is grown first; the convexity
    grid of ``convexity_range="whole"`` spans each feature's range over all
    of ``X`` (the training set), at every node.  With a ``seed``
    (``feature_ties="random"``) every split is redrawn among the features
    tied with the winner by :func:`reference_tied_split`, from the node's
    stream (:func:`treebench.kernels.mee_ties.child_key`), as the compiled loop does.
    """
    if X.shape[0] == 0:
        raise TreebenchError("cannot grow a tree on 0 samples")
    xlogx = xlogx_table(X.shape[0])
    span = (np.ascontiguousarray(X.min(axis=0)), np.ascontiguousarray(X.max(axis=0)))
    nodes = _Nodes(n_classes)
    scratch = np.zeros(1, np.uint64)
    stack = [(nodes.add(0), np.arange(X.shape[0]), np.uint64(0 if seed is None else seed))]
    while stack:
        node, samples, key = stack.pop()
        depth = nodes.ints[node][L.DEPTH]
        labels = y[samples]
        counts = np.bincount(labels, minlength=n_classes).astype(np.int64)
        nodes.counts[node] = counts
        present = np.flatnonzero(counts)
        if present.size < 2:
            continue  # pure node
        sets = class_sets(present, criterion.max_merged or None)
        nodes.floats[node][L.IMPURITY] = _unsplit_entropy(counts, sets, criterion.error_rates)
        if max_depth is not None and depth >= max_depth:
            continue
        sets = [s for s in sets if _enough_cases(counts, s, criterion.min_class_cases)]
        if not sets:
            continue  # every candidate class set is too small
        h, s, f, orientation, low, high = _best_split(
            X[samples], labels, sets, n_classes, criterion, engine, xlogx, span
        )
        if s < 0:
            continue  # every curve is concave
        if seed is not None:
            h, s, f, orientation, low, high = reference_tied_split(
                X[samples], labels, sets, int(criterion.convexity_points), (h, s, f, orientation, low, high),
                tie_state(int(key)), int(criterion.min_child_cases), str(criterion.error_rates),
                span=span if criterion.convexity_range == "whole" else None, must_lower=bool(criterion.must_lower),
                envelope=criterion.convexity_test == "envelope",
            )
        go_left = X[samples, f] <= low
        threshold = _midpoint(low, high) if midpoint else low
        first = nodes.add(depth + 1)
        nodes.add(depth + 1)
        ints = nodes.ints[node]
        ints[L.FEATURE], ints[L.KIND], ints[L.CHILD_START], ints[L.N_CHILDREN] = f, L.NUMERIC, first, 2
        nodes.floats[node][L.THRESHOLD] = threshold
        nodes.floats[node][L.SCORE] = h
        nodes.split_sets[node] = sets[s]
        nodes.orientations[node] = orientation
        # right child pushed first so the left subtree is grown first
        keys = (np.uint64(child_key(key, 0, scratch)), np.uint64(child_key(key, 1, scratch))) if seed is not None \
            else (key, key)
        stack.append((first + 1, samples[~go_left], keys[1]))
        stack.append((first, samples[go_left], keys[0]))
    return nodes.finish()


def _best_split(X, y, sets, n_classes, criterion, engine, xlogx, span):
    points = int(criterion.convexity_points)
    whole = criterion.convexity_range == "whole"
    must_lower = bool(criterion.must_lower)
    envelope = criterion.convexity_test == "envelope"
    if engine == "python":
        return reference_best_split(
            X, y, sets, points, int(criterion.min_child_cases), str(criterion.error_rates),
            span=span if whole else None, must_lower=must_lower, envelope=envelope,
        )
    width = max(len(s) for s in sets)
    set_classes = np.full((len(sets), width), -1, np.int64)
    for i, s in enumerate(sets):
        set_classes[i, : len(s)] = s
    set_sizes = np.array([len(s) for s in sets], np.int64)
    h, s, f, o, low, high = best_mee_split(
        np.ascontiguousarray(X), y, set_classes, set_sizes, n_classes, points, int(criterion.min_child_cases),
        criterion.error_rates == "printed", xlogx, whole, span[0], span[1], must_lower, envelope,
    )
    return float(h), int(s), int(f), int(o), float(low), float(high)


def reference_best_split(
    X: np.ndarray,
    y: np.ndarray,
    sets: list[tuple[int, ...]],
    points: int,
    min_child: int = 1,
    error_rates: str = "joint",
    *,
    span: tuple[np.ndarray, np.ndarray] | None = None,
    must_lower: bool = False,
    envelope: bool = False,
) -> tuple[float, int, int, int, float, float]:
    """Plain-numpy reference of :func:`treebench.kernels.mee.best_mee_split` (slow; for tests).

    It follows the definitions literally -- one error-entropy curve per
    feature, class set and orientation, from
    :func:`treebench.criteria.mee.error_entropy_curve` -- and visits
    candidates in the compiled kernel's order (feature, class set,
    orientation, threshold), so both must pick the same split.  ``span``
    (per-feature lows and highs) lays the convexity grid over the whole
    training set's range instead of the node's; ``must_lower`` keeps only
    splits below the error entropy of not splitting; ``envelope`` judges a
    class set's convexity once, on its two orientations' lower envelope
    (:func:`treebench.criteria.mee.convexity_verdicts`).
    """
    best = (np.inf, -1, -1, -1, 0.0, 0.0)
    for f in range(X.shape[1]):
        for s, orientation, curve, allowed, levels, unsplit in _reference_curves(
            X[:, f], y, sets, points, min_child, error_rates, None if span is None else (span[0][f], span[1][f]),
            must_lower, envelope,
        ):
            j = int(np.argmin(np.where(allowed, curve, np.inf)))
            if curve[j] < unsplit - TIE_TOLERANCE and curve[j] < best[0] - TIE_TOLERANCE:
                best = (float(curve[j]), s, f, orientation, float(levels[j]), float(levels[j + 1]))
    return best


def reference_tied_split(
    X: np.ndarray,
    y: np.ndarray,
    sets: list[tuple[int, ...]],
    points: int,
    winner: tuple[float, int, int, int, float, float],
    state: np.ndarray,
    min_child: int = 1,
    error_rates: str = "joint",
    *,
    span: tuple[np.ndarray, np.ndarray] | None = None,
    must_lower: bool = False,
    envelope: bool = False,
) -> tuple[float, int, int, int, float, float]:
    """Plain-numpy reference of :func:`treebench.kernels.mee_ties.tied_node_split` (slow; for tests).

    ``winner`` is the first rule's split (:func:`reference_best_split`'s
    tuple).  Another feature ties when a candidate of it that the first rule
    could accept scores within the tie tolerance of the winner; its split is
    the one the first rule keeps among those candidates.  The tied features
    are taken in column order, each further one replacing the kept one with
    probability ``1 / (tied so far)``, drawn from ``state`` (advanced).
    """
    h_first, f_first = winner[0], winner[2]
    chosen, n_tied = winner, 0
    for f in range(X.shape[1]):
        candidate = winner if f == f_first else None
        if f != f_first:
            kept = np.inf
            for s, orientation, curve, allowed, levels, unsplit in _reference_curves(
                X[:, f], y, sets, points, min_child, error_rates,
                None if span is None else (span[0][f], span[1][f]), must_lower, envelope,
            ):
                for j in np.flatnonzero(allowed):
                    h = float(curve[j])
                    if (h < unsplit - TIE_TOLERANCE and h_first - TIE_TOLERANCE <= h <= h_first + TIE_TOLERANCE
                            and h < kept - TIE_TOLERANCE):
                        kept = h
                        candidate = (h, s, f, orientation, float(levels[j]), float(levels[j + 1]))
        if candidate is None:
            continue
        n_tied += 1
        if n_tied == 1 or replaces_tied(state, n_tied):
            chosen = candidate
    return chosen


def _reference_curves(x, y, sets, points, min_child, error_rates, span, must_lower, envelope=False):
    """Every convex curve of one feature with a candidate threshold, in the search's order.

    Yields ``(set, orientation, curve, allowed, levels, unsplit)``: the error
    entropy at each level, which levels are candidate thresholds, the levels
    and the no-split error entropy a split must go below (``inf`` without
    ``must_lower``).  A curve is convex by
    :func:`treebench.criteria.mee.convexity_verdicts` (``envelope``: one
    verdict per set, on both orientations' lower envelope).
    """
    levels = np.unique(x)
    if levels.size < 2:
        return
    grid = points if span is None else convexity_grid(float(span[0]), float(span[1]), points)
    for s, members in enumerate(sets):
        t = np.where(np.isin(y, members), 1, -1)
        unsplit = unsplit_error_entropy(float((t == 1).sum()), float(t.size), error_rates) if must_lower else np.inf
        grid_curves = tuple(error_entropy_curve(x, t, grid, o, error_rates)[1] for o in (0, 1))
        verdicts = convexity_verdicts(grid_curves, "envelope" if envelope else "per_orientation")
        for orientation in (0, 1):
            if not verdicts[orientation]:
                continue
            _, curve, _ = error_entropy_curve(x, t, None, orientation, error_rates)
            n_left = (x[None, :] <= levels[:, None]).sum(axis=1)
            # the last level sends everything left; too small a side is no candidate
            allowed = (n_left >= min_child) & (x.size - n_left >= min_child)
            allowed[-1] = False
            if allowed.any():
                yield s, orientation, curve, allowed, levels, unsplit


def _enough_cases(counts: np.ndarray, members: tuple[int, ...], minimum: int) -> bool:
    inside = int(counts[list(members)].sum())
    return min(inside, int(counts.sum()) - inside) >= minimum


def _unsplit_entropy(counts: np.ndarray, sets: list[tuple[int, ...]], error_rates: str) -> float:
    """Node value: the lowest error entropy of not splitting over the class sets."""
    n = float(counts.sum())
    inside = np.array([counts[list(s)].sum() for s in sets], dtype=float)
    p = inside / n if error_rates == "printed" else None
    ends = (coded_error_entropy(inside, 0.0 * inside, n, p), coded_error_entropy(0.0 * inside, n - inside, n, p))
    return float(np.minimum(*ends).min())


def _midpoint(low: float, high: float) -> float:
    mid = low / 2.0 + high / 2.0
    # adjacent floats: the midpoint may round onto ``high``; keep the partition
    return low if not (low <= mid < high) else mid


def _numeric_input(X: pd.DataFrame | np.ndarray) -> pd.DataFrame | np.ndarray:
    """An object array of numbers as float64 (scikit-learn reads them so); anything else as is.

    Strings stay: the encoder makes them nominal, which the MEE tree refuses
    by name.  A value that is neither (a dict, a list) is a ``TypeError``.
    """
    if not isinstance(X, np.ndarray) or X.dtype != object:
        return X
    try:
        return X.astype(np.float64)
    except ValueError:  # strings: nominal
        return X
    except TypeError as error:
        raise TypeError(f"MEE trees need numbers in X: {error}") from None


def _check_finite(matrix: np.ndarray, names: list[str], where: str) -> None:
    """Refuse NaN and inf: MEE has no rule for missing values, and inf breaks the convexity grid."""
    if np.isfinite(matrix).all():
        return
    column = int(np.flatnonzero(~np.isfinite(matrix).all(axis=0))[0])
    bad = "missing values (NaN)" if np.isnan(matrix[:, column]).any() else "infinite values (inf)"
    raise TreebenchError(
        f"MEE trees need complete data; feature {names[column]!r} has {bad} in {where}; accepted: finite numbers"
    )


def as_frame_or_matrix(X: Any) -> Any:
    """A numeric frame as its float64 matrix (skips pandas overhead in many fits)."""
    if isinstance(X, pd.DataFrame) and all(pd.api.types.is_float_dtype(t) for t in X.dtypes):
        return X.to_numpy(dtype=np.float64)
    return X
