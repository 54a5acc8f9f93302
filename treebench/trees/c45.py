"""C4.5 as Weka's J48 grows it (C4.5 release 8 rules, Weka 3.6 ``weka.classifiers.trees.j48``).

A self-contained learner whose trees follow J48 ``-C 0.25 -M 2`` node for node:

* **growing** (``C45ModelSelection.selectModel``, ``C45Split``): a node is a leaf when its weight
  is below ``2 M`` or pure; every attribute proposes one split: numeric attributes a binary cut
  chosen by information gain among cuts leaving at least ``minSplit`` weight on each side, with
  Quinlan's MDL penalty ``log2(#cuts) / weight``; nominal attributes one branch per declared value
  (empty ones included).  Gains are scaled by the known fraction and gain ratios use a split
  entropy with the unknowns as one more bag.  The winner has the largest gain ratio among splits
  whose gain is at least the average gain; its cut is moved down to a value of the training data.
* **missing values** (``Distribution.addInstWithUnknown``, ``ClassifierSplitModel.split``,
  ``ClassifierTree.getProbs``): a case whose split value is unknown goes down every branch with
  its weight times the branch's share of the known weight, at training and at prediction.
* **pruning** (``C45PruneableClassifierTree``): collapse, then pessimistic error-based pruning
  with subtree raising, the estimated errors of ``Stats.addErrs``.

Speed: :meth:`C45Classifier.fit` grows, collapses and prunes the whole tree in numba, one call
each (:mod:`treebench.kernels.c45_build`, :mod:`treebench.kernels.c45_prune`), for numeric and
nominal attributes alike.  Without missing values and with whole-number weights (no
``sample_weight``, or integer ones) every numeric attribute is sorted once at the root and each
split partitions the sorted columns between the children; every weight sum is then an exact whole
number and ``x log2 x`` comes from a table this module computes.  Otherwise (J48's fractional
cases) each node keeps its cases in the order of the reference below and sorts them per attribute,
and every sum is added in numpy's order.  The readable grower of this module (:class:`_Grower`)
stays as the reference: ``tests/test_c45_compiled.py`` checks that both build the same trees, bit
for bit in every distribution.  Collapsing and pruning add up every subtree's errors once, in the
recursive definitions' order.

The tolerances of ``weka.core.Utils`` (``gr``, ``sm``, ``eq``: 1e-6) are kept where they decide
a comparison, since they decide ties and so the shape of the tree.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from treebench.errors import TreebenchError
from treebench.kernels import c45_build, c45_predict, c45_prune
from treebench.kernels.c45_build import DN, DST, EMPTY, FEAT, KID, NKID, NOM
from treebench.kernels.c45_scan import first_record
from treebench.kernels.c45_split import choose_tied
from treebench.kernels.c45_sums import last_below
from treebench.kernels.sort_order import stable_order
from treebench.kernels.ties import tie_state
from treebench.trees.encoding import FeatureEncoder, as_2d_input
from treebench.trees.fitted import (
    as_labels,
    check_columns,
    check_fitted,
    check_sample_weight,
    label_codes,
)
from treebench.trees.pruning import added_errors
from treebench.trees.randomness import tie_seed
from treebench.trees.settings import validate_tree_param

#: ``weka.core.Utils.SMALL``: the slack of every Weka comparison.
SMALL = 1e-6
#: Consecutive sorted values closer than this are one value for a numeric cut (``C45Split``).
SAME_VALUE = 1e-5
_LOG2 = math.log(2.0)


# --------------------------------------------------------------------------- entropy pieces
def _xlog2x(a: Any) -> np.ndarray:
    """``x log2 x`` elementwise, 0 below 1e-6 (``EntropyBasedSplitCrit.logFunc``)."""
    a = np.asarray(a, dtype=np.float64)
    out = np.zeros_like(a)
    big = a >= SMALL
    out[big] = a[big] * np.log(a[big]) / _LOG2
    return out


def _old_ent(per_class: np.ndarray) -> float:
    """Entropy (times weight) of the class distribution before the split (``oldEnt``)."""
    return float(_xlog2x(per_class.sum()) - _xlog2x(per_class).sum())


def info_gain(bags: np.ndarray, node_weight: float) -> float:
    """``InfoGainSplitCrit.splitCritValue``: gain per unit of known weight, scaled by the known share.

    Parameters
    ----------
    bags:
        ``(n_bags, n_classes)`` weights of the cases with a known value.
    node_weight:
        All the node's weight, unknowns included.
    """
    known = float(bags.sum())
    numerator = _old_ent(bags.sum(axis=0)) - _new_ent(bags)
    numerator *= 1.0 - (node_weight - known) / node_weight
    if abs(numerator) < SMALL:
        return 0.0
    return numerator / known


def _new_ent(bags: np.ndarray) -> float:
    """Weighted entropy after the split (``newEnt``)."""
    return float(_xlog2x(bags.sum(axis=1)).sum() - _xlog2x(bags).sum())


def split_info(per_bag: np.ndarray, node_weight: float) -> float:
    """Split entropy with the unknown weight as one more bag (``GainRatioSplitCrit.splitEnt``)."""
    known = float(per_bag.sum())
    if known <= SMALL:
        return 0.0
    return float(-_xlog2x(per_bag).sum() - _xlog2x(node_weight - known) + _xlog2x(node_weight))


def gain_ratio(gain: float, per_bag: np.ndarray, node_weight: float) -> float:
    """``GainRatioSplitCrit.splitCritValue``: 0 for a trivial split."""
    entropy = split_info(per_bag, node_weight)
    if abs(entropy) < SMALL:
        return 0.0
    return gain / (entropy / node_weight)


def mdl_penalty(n_cuts: int, node_weight: float) -> float:
    """Quinlan's (1996) correction of a numeric gain: ``log2(#candidate cuts) / weight``."""
    return math.log2(n_cuts) / node_weight


def min_split(known_weight: float, n_classes: int, min_leaf: float) -> float:
    """Least weight on each side of a numeric cut: ``0.1 * known / classes`` clamped to ``[M, 25]``."""
    value = 0.1 * known_weight / n_classes
    if value - min_leaf < SMALL:  # Utils.smOrEq
        return float(min_leaf)
    return 25.0 if value - 25.0 > SMALL else value


def first_max(values: np.ndarray, start: float) -> int:
    """Index of the running best of a Weka ``Utils.gr`` scan: later values must beat it by > 1e-6.

    Returns -1 when none beats ``start``.
    """
    return int(first_record(np.ascontiguousarray(values, dtype=np.float64), float(start), SMALL))


def max_class(per_class: np.ndarray) -> int:
    """``Distribution.maxClass``: first class with the largest weight (0 when all are empty)."""
    return max(first_max(per_class, 0.0), 0)


def num_incorrect(dist: np.ndarray) -> float:
    """Weight not of the majority class (``Distribution.numIncorrect``)."""
    per_class = dist.sum(axis=0)
    return float(per_class.sum() - per_class[max_class(per_class)])


def estimated_errors(dist: np.ndarray, confidence: float) -> float:
    """Pessimistic errors of a leaf holding ``dist`` (``getEstimatedErrorsForDistribution``)."""
    total = float(dist.sum())
    if abs(total) < SMALL:
        return 0.0
    wrong = num_incorrect(dist)
    return wrong + added_errors(total, wrong, confidence)


# --------------------------------------------------------------------------- candidate splits
@dataclass
class Candidate:
    """One attribute's best split at a node (a ``C45Split`` that passed ``checkModel``)."""

    feature: int
    gain: float
    ratio: float
    bags: np.ndarray  # (n_bags, n_classes) weights of the known cases
    cut: float = math.nan  # numeric: the midpoint cut before snapping to a data value


def numeric_candidate(
    j: int, x: np.ndarray, y: np.ndarray, w: np.ndarray, k: int, node_weight: float, min_leaf: float,
    mdl: bool,
) -> Candidate | None:
    """``C45Split.handleNumericAttribute``: the best binary cut of one numeric attribute, or ``None``."""
    known = ~np.isnan(x)
    n_known = int(known.sum())
    order = np.argsort(x[known], kind="stable")
    xs, ys, ws = x[known][order], y[known][order], w[known][order]
    cum = np.zeros((n_known, k))
    cum[np.arange(n_known), ys] = ws
    np.cumsum(cum, axis=0, out=cum)
    known_weight = float(cum[-1].sum()) if n_known else 0.0
    least = min_split(known_weight, k, min_leaf)
    if 2 * least - n_known > SMALL:  # Weka counts cases here, not weight
        return None
    # cut after position p - 1 when the next value differs by more than 1e-5
    cuts = np.flatnonzero(xs[:-1] + SAME_VALUE < xs[1:])  # index of the last case on the left
    left_w = np.cumsum(ws)[cuts]
    ok = (left_w - least > -SMALL) & ((known_weight - left_w) - least > -SMALL)
    cuts = cuts[ok]
    if cuts.size == 0:
        return None
    left = cum[cuts]
    right = cum[-1] - left
    old = _old_ent(cum[-1])
    new = (_xlog2x(left.sum(axis=1)) - _xlog2x(left).sum(axis=1)
           + _xlog2x(right.sum(axis=1)) - _xlog2x(right).sum(axis=1))
    numerator = (old - new) * (1.0 - (node_weight - known_weight) / node_weight)
    gains = np.where(np.abs(numerator) < SMALL, 0.0, numerator / known_weight)
    best = first_max(gains, 0.0)
    gain = (float(gains[best]) if best >= 0 else 0.0) - (mdl_penalty(cuts.size, node_weight) if mdl else 0.0)
    if gain < SMALL:  # Utils.smOrEq(gain, 0)
        return None
    at = int(cuts[best])
    cut = (xs[at] + xs[at + 1]) / 2
    if cut == xs[at + 1]:  # rounding put the midpoint on the upper value
        cut = xs[at]
    bags = np.vstack([cum[at], cum[-1] - cum[at]])
    return Candidate(j, gain, gain_ratio(gain, bags.sum(axis=1), node_weight), bags, float(cut))


def nominal_candidate(
    j: int, x: np.ndarray, y: np.ndarray, w: np.ndarray, k: int, n_values: int, node_weight: float,
    min_leaf: float,
) -> Candidate | None:
    """``C45Split.handleEnumeratedAttribute``: one branch per value; ``None`` unless two reach ``M``."""
    known = ~np.isnan(x)
    codes = x[known].astype(np.int64)
    bags = np.bincount(codes * k + y[known], weights=w[known], minlength=n_values * k).reshape(n_values, k)
    if int((bags.sum(axis=1) - min_leaf > -SMALL).sum()) < 2:
        return None
    gain = info_gain(bags, node_weight)
    return Candidate(j, gain, gain_ratio(gain, bags.sum(axis=1), node_weight), bags)


# --------------------------------------------------------------------------- the tree
@dataclass(eq=False)
class Node:
    """A J48 node: a leaf (one bag) or a split with one child per bag.

    ``dist`` is the node's ``(n_bags, n_classes)`` training distribution, unknowns included;
    ``rows``/``weights`` the (fractional) training cases reaching it, kept for subtree raising.
    """

    dist: np.ndarray
    rows: np.ndarray
    weights: np.ndarray
    feature: int = -1
    threshold: float = math.nan
    nominal: bool = False
    children: list[Node] = field(default_factory=list)
    is_empty: bool = False

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def shares(self) -> np.ndarray:
        """Each branch's share of the weight (``C45Split.weights``)."""
        per_bag = self.dist.sum(axis=1)
        return per_bag / per_bag.sum()

    def make_leaf(self) -> None:
        self.children, self.feature = [], -1
        self.dist = self.dist.sum(axis=0, keepdims=True)


@dataclass(eq=False)
class FinalTree:
    """The compiled grower's result: its node table after collapsing and pruning (root 0),
    and the training cases each final node holds (``segment`` into ``rows``/``weights``)."""

    nodes: np.ndarray
    thresholds: np.ndarray
    dist: np.ndarray
    k: int
    order: np.ndarray  #: the final nodes, every parent before its children
    segment: np.ndarray
    rows: np.ndarray
    weights: np.ndarray


class TreeInfo:
    """Sizes counted as J48 does (empty leaves included), and the tree.

    The Python grower hands over its :class:`Node` objects; the compiled grower its arrays
    (:class:`FinalTree`), which predict without them: ``root`` builds the objects on first use.
    """

    def __init__(self, root: Node | None, n_leaves: int, n_nodes: int, max_depth: int,
                 arrays: FinalTree | None = None) -> None:
        self._root, self.arrays = root, arrays
        self.n_leaves, self.n_nodes, self.max_depth = n_leaves, n_nodes, max_depth
        self.node_count = n_nodes

    @property
    def root(self) -> Node:
        """The root :class:`Node` (built from the arrays the first time it is asked for)."""
        if self._root is None:
            assert self.arrays is not None
            self._root = _as_nodes(self.arrays)
        return self._root

    @property
    def depth(self) -> int:
        """Depth of the deepest leaf (root 0), the name the other treebench trees use."""
        return self.max_depth


def _sizes(node: Node, depth: int = 0) -> tuple[int, int, int]:
    if node.is_leaf:
        return 1, 1, depth
    leaves, nodes, deepest = 0, 1, depth
    for child in node.children:
        a, b, c = _sizes(child, depth + 1)
        leaves, nodes, deepest = leaves + a, nodes + b, max(deepest, c)
    return leaves, nodes, deepest


class _Grower:
    """Grows, collapses and prunes one tree on an encoded training matrix: the readable reference
    of the compiled kernels (:class:`_Compiled`), run when ``C45Classifier._compiled`` is False."""

    def __init__(self, X: np.ndarray, y: np.ndarray, n_values: np.ndarray, k: int, est: C45Classifier):
        self.X, self.y, self.n_values, self.k = X, y, n_values, k
        self.tie_stream = est._tie_stream()
        self.min_leaf = float(est.min_samples_leaf)
        self.confidence = float(est.confidence)
        self.mdl = bool(est.mdl_correction)
        self.n_train = X.shape[0]
        # C45ModelSelection: many-valued nominal attributes drop out of the average gain unless
        # every attribute is such a one
        self.many_valued = (n_values > 0) & ~(n_values - 0.3 * self.n_train < -SMALL)
        self.multi_val = bool(self.many_valued.all())
        self.sorted_values = [
            np.unique(X[~np.isnan(X[:, j]), j]) if n_values[j] == 0 else None for j in range(X.shape[1])
        ]

    # -- growing ------------------------------------------------------------------------------
    def grow(self, rows: np.ndarray, weights: np.ndarray) -> Node:
        per_class = np.bincount(self.y[rows], weights=weights, minlength=self.k).astype(np.float64)
        node = Node(per_class[None, :], rows, weights)
        best = self.select(rows, weights, per_class)
        if best is None:
            node.is_empty = abs(float(per_class.sum())) < SMALL
            return node
        node.feature, node.nominal = best.feature, self.n_values[best.feature] > 0
        if not node.nominal:
            node.threshold = self.snap(best.feature, best.cut)
        node.dist = self.with_unknowns(best.bags, rows, weights, best.feature)
        node.children = [self.grow(r, w) for r, w in self.split(node, rows, weights)]
        return node

    def select(self, rows: np.ndarray, weights: np.ndarray, per_class: np.ndarray) -> Candidate | None:
        """``C45ModelSelection.selectModel``: the split to make, or ``None`` for a leaf."""
        total = float(per_class.sum())
        if 2 * self.min_leaf - total > SMALL or abs(total - per_class[max_class(per_class)]) < SMALL:
            return None
        y = self.y[rows]
        found: list[Candidate] = []
        for j in range(self.X.shape[1]):
            x = self.X[rows, j]
            if self.n_values[j] > 0:
                cand = nominal_candidate(j, x, y, weights, self.k, int(self.n_values[j]), total, self.min_leaf)
            else:
                cand = numeric_candidate(j, x, y, weights, self.k, total, self.min_leaf, self.mdl)
            if cand is not None:
                found.append(cand)
        counted = [c.gain for c in found if self.multi_val or not self.many_valued[c.feature]]
        if not counted:
            return None
        average = sum(counted) / len(counted)
        best, top = None, 0.0
        for cand in found:
            if cand.gain >= average - 1e-3 and cand.ratio - top > SMALL:
                best, top = cand, cand.ratio
        if best is not None and self.tie_stream is not None:  # the kernels' draw, on the same arrays
            picked = choose_tied(
                found.index(best), np.ones(len(found), np.bool_), np.array([c.gain for c in found]),
                np.array([c.ratio for c in found]),
                np.array([self.multi_val or not self.many_valued[c.feature] for c in found], np.bool_),
                self.tie_stream,
            )
            best = found[int(picked)]
        return best

    def snap(self, j: int, cut: float) -> float:
        """``C45Split.setSplitPoint``: the largest training value of the attribute not above the cut."""
        values = self.sorted_values[j]
        below = int(last_below(values, float(cut), SMALL))  # the predicate is monotone in value
        return float(values[below]) if below >= 0 else cut

    def with_unknowns(self, bags: np.ndarray, rows: np.ndarray, weights: np.ndarray, j: int) -> np.ndarray:
        """The chosen split's distribution with the cases whose value is unknown added."""
        missing = np.isnan(self.X[rows, j])
        return self.add_unknowns(bags, self.y[rows[missing]], weights[missing])

    def route(self, node: Node, rows: np.ndarray) -> np.ndarray:
        """Branch of each case, -1 when its value is unknown (``C45Split.whichSubset``)."""
        x = self.X[rows, node.feature]
        bag = np.full(len(rows), -1, dtype=np.int64)
        known = ~np.isnan(x)
        if node.nominal:
            bag[known] = x[known].astype(np.int64)
        else:
            bag[known] = np.where(x[known] - node.threshold < SMALL, 0, 1)
        return bag

    def split(self, node: Node, rows: np.ndarray, weights: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """``ClassifierSplitModel.split``: unknown cases go to every branch of positive share."""
        bag = self.route(node, rows)
        unknown = bag < 0
        shares = node.shares()
        parts = []
        for b, share in enumerate(shares):
            mine = bag == b
            if share > SMALL and unknown.any():
                parts.append((np.concatenate([rows[mine], rows[unknown]]),
                              np.concatenate([weights[mine], weights[unknown] * share])))
            else:
                parts.append((rows[mine], weights[mine]))
        return parts

    def reset_distribution(self, node: Node, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """``C45Split.resetDistribution``: known cases by branch, then the unknown ones added by the
        branches' new known shares (``addInstWithUnknown``); a leaf (``NoSplit``) holds them all."""
        y = self.y[rows]
        if node.is_leaf:
            return np.bincount(y, weights=weights, minlength=self.k).astype(np.float64)[None, :]
        bag = self.route(node, rows)
        n_bags = len(node.children)
        known = bag >= 0
        bags = np.bincount(bag[known] * self.k + y[known], weights=weights[known],
                           minlength=n_bags * self.k).reshape(n_bags, self.k).astype(np.float64)
        return self.add_unknowns(bags, y[~known], weights[~known])

    def add_unknowns(self, bags: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """``Distribution.addInstWithUnknown``: unknown cases added to every bag by its known share."""
        if y.size == 0:
            return bags
        total = bags.sum()
        probs = bags.sum(axis=1) / total if abs(total) >= SMALL else np.full(len(bags), 1.0 / len(bags))
        unknown = np.bincount(y, weights=weights, minlength=self.k)
        return bags + probs[:, None] * unknown[None, :]

    # -- collapsing and pruning ---------------------------------------------------------------
    def training_errors(self, node: Node, into: dict[int, float] | None = None) -> float:
        """Training errors of ``node``'s leaves, summed recursively; ``into`` keeps every node's."""
        if node.is_leaf:
            value = num_incorrect(node.dist)
        else:
            value = sum(self.training_errors(c, into) for c in node.children)
        if into is not None:
            into[id(node)] = value
        return value

    def collapse(self, node: Node, errors: dict[int, float] | None = None) -> None:
        """``ClassifierTree.collapse``: a subtree no better than a leaf on training data becomes one.

        Top-down, so a node's subtree is intact when it is judged: every node's training errors
        are computed once beforehand (``errors``).
        """
        if errors is None:
            errors = {}
            self.training_errors(node, errors)
        if node.is_leaf:
            return
        if errors[id(node)] >= num_incorrect(node.dist) - 1e-3:
            node.make_leaf()
            return
        for child in node.children:
            self.collapse(child, errors)

    def subtree_errors(self, node: Node) -> float:
        if node.is_leaf:
            return estimated_errors(node.dist, self.confidence)
        return sum(self.subtree_errors(c) for c in node.children)

    def branch_errors(self, node: Node, rows: np.ndarray, weights: np.ndarray) -> float:
        """``getEstimatedErrorsForBranch``: estimated errors of ``node``'s subtree on other cases."""
        if node.is_leaf:
            per_class = np.bincount(self.y[rows], weights=weights, minlength=self.k)
            return estimated_errors(per_class[None, :].astype(np.float64), self.confidence)
        saved = node.dist
        node.dist = self.reset_distribution(node, rows, weights)
        parts = self.split(node, rows, weights)
        node.dist = saved
        return sum(self.branch_errors(c, r, w) for c, (r, w) in zip(node.children, parts, strict=True))

    def new_distribution(self, node: Node, rows: np.ndarray, weights: np.ndarray) -> None:
        """``newDistribution``: re-fill a raised subtree with the cases of its new position."""
        node.dist = self.reset_distribution(node, rows, weights)
        node.rows, node.weights = rows, weights
        if node.is_leaf:
            if abs(float(weights.sum())) >= SMALL:
                node.is_empty = False
            return
        for child, (r, w) in zip(node.children, self.split(node, rows, weights), strict=True):
            self.new_distribution(child, r, w)

    def prune(self, node: Node, raising: bool) -> float:
        """``C45PruneableClassifierTree.prune``: leaf, largest branch or subtree, by estimated errors.

        Returns the pruned subtree's estimated errors (:meth:`subtree_errors`, summed the same
        way), so that a parent need not add up its leaves again.
        """
        if node.is_leaf:
            return estimated_errors(node.dist, self.confidence)
        below = [self.prune(child, raising) for child in node.children]
        per_bag = node.dist.sum(axis=1)
        largest = int(np.flatnonzero(per_bag - per_bag.max() > -SMALL)[-1])  # maxBag: last maximum
        branch = self.branch_errors(node.children[largest], node.rows, node.weights) if raising else math.inf
        leaf = estimated_errors(node.dist, self.confidence)
        tree = sum(below)
        if leaf - (tree + 0.1) < SMALL and leaf - (branch + 0.1) < SMALL:
            node.make_leaf()
            return estimated_errors(node.dist, self.confidence)
        if branch - (tree + 0.1) < SMALL:
            raised = node.children[largest]
            node.children, node.feature = raised.children, raised.feature
            node.threshold, node.nominal, node.dist = raised.threshold, raised.nominal, raised.dist
            self.new_distribution(node, node.rows, node.weights)
            return self.prune(node, raising)
        return tree


# --------------------------------------------------------------------------- compiled growth
def counted_attributes(n_values: np.ndarray, n_train: int) -> np.ndarray:
    """``C45ModelSelection``: attributes whose gain enters the average (many-valued nominal ones,
    at least 30 % as many values as training cases, drop out unless every attribute is one)."""
    many_valued = (n_values > 0) & ~(n_values - 0.3 * n_train < -SMALL)
    return np.ones(len(n_values), dtype=np.bool_) if many_valued.all() else ~many_valued


class _Compiled:
    """:class:`_Grower`'s tree from the kernels of :mod:`treebench.kernels.c45_build` and
    :mod:`treebench.kernels.c45_prune`, turned into :class:`Node` objects at the end.

    Data without missing values and with whole-number weights of a modest total grows presorted
    (every sum exact, ``x log2 x`` from a table numpy computed); other data grows with J48's
    fractional cases in the reference's order.
    """

    #: Room for the fractional cases of subtree raising (``None``: ``4 n + 1024``, doubled until
    #: enough; tests set it small to check the retry).
    first_capacity: int | None = None

    def __init__(self, X: np.ndarray, y: np.ndarray, w: np.ndarray, n_values: np.ndarray, k: int,
                 est: C45Classifier):
        self.X = np.asfortranarray(X, dtype=np.float64)
        self.y, self.w, self.n_values, self.k, self.est = y.astype(np.int64), w, n_values, k, est
        self.tie_stream = est._tie_stream()
        n = X.shape[0]
        total = float(w.sum()) if n else 0.0
        fits_table = total <= 16.0 * n + 1e6
        self.whole = bool(n and fits_table and (w == np.floor(w)).all() and not np.isnan(self.X).any())
        # x log2 x of every whole number a weight sum can reach (a prefix when the total is huge)
        self.tab = _xlog2x(np.arange(int(total if fits_table else 16.0 * n + 1e6) + 2, dtype=np.float64))

    def sorted_values(self) -> tuple[np.ndarray, np.ndarray]:
        """Every numeric attribute's distinct known values (for snapping cuts), flat, with offsets."""
        parts = [np.unique(col[~np.isnan(col)]) if nv == 0 else np.empty(0)
                 for col, nv in zip(self.X.T, self.n_values, strict=True)]
        offsets = np.zeros(len(parts) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(v) for v in parts])
        return (np.concatenate(parts) if parts else np.empty(0)), offsets

    def grow(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """The grown tree's arrays, and the presorted row order (``None`` when not presorted)."""
        est, X = self.est, self.X
        counted = counted_attributes(self.n_values, X.shape[0])
        args = (self.k, float(est.min_samples_leaf), bool(est.mdl_correction), self.tab)
        if not self.whole:
            values, offsets = self.sorted_values()
            nodes, thr, dist = c45_build.grow_general(
                X, self.y, self.w, self.n_values, counted, values, offsets, *args, False, self.tie_stream)
            return nodes, thr, dist, None
        numeric = np.flatnonzero(self.n_values == 0)
        order = np.empty((len(numeric) + 1, X.shape[0]), dtype=np.int64)
        for at, j in enumerate(numeric):  # each column contiguous (X is column-major): no gathered copy
            order[at] = stable_order(X[:, j])
        order[-1] = np.arange(X.shape[0])
        column = np.full(X.shape[1], -1, dtype=np.int64)
        column[numeric] = np.arange(len(numeric))
        values, offsets = c45_build.distinct_sorted(X, order, column)
        nodes, thr, dist = c45_build.grow_presorted(
            X, self.y, self.w, self.n_values, counted, order, column, values, offsets, *args, True, self.tie_stream)
        return nodes, thr, dist, order[-1]

    def fit(self) -> TreeInfo:
        """Grow, collapse and prune; the tree as :class:`Node` objects, with its sizes."""
        from scipy.special import ndtri

        est, n, k = self.est, self.X.shape[0], self.k
        nodes, thr, dist, ident = self.grow()
        inplace = ident is not None
        z = float(ndtri(1.0 - float(est.confidence)))
        capacity = self.first_capacity or 4 * n + 1024
        while True:
            work = (nodes.copy(), thr.copy(), dist.copy()) if not inplace else (nodes, thr, dist)
            if inplace:
                rows = ident.copy()
            else:
                rows = np.empty(capacity, dtype=np.int64)
                rows[:n] = np.arange(n)
            wts = np.empty(len(rows))
            wts[:n] = self.w[rows[:n]]
            done = c45_prune.collapse_and_prune(
                *work, self.X, self.y, rows, wts, n, k, float(est.confidence), z, bool(est.collapse),
                not est.unpruned, bool(est.subtree_raising), inplace,
            )
            if done:
                break
            capacity *= 2  # the fractional cases of subtree raising needed more room
        nodes, thr, dist = work
        segment, rows, wts = c45_prune.final_cases(nodes, thr, dist, self.X, rows[:n].copy() if not inplace else rows,
                                                   wts[:n].copy() if not inplace else wts, n, k, inplace)
        order = np.empty(len(nodes) + 1, dtype=np.int64)
        order[0] = 0
        order = order[: c45_prune.top_down(nodes, order)]
        leaves, deepest = c45_predict.leaves_and_depth(nodes, order)
        return TreeInfo(None, leaves, len(order), deepest, FinalTree(nodes, thr, dist, k, order, segment, rows, wts))


def _as_nodes(tree: FinalTree) -> Node:
    """The final tree's arrays as :class:`Node` objects; the root."""
    nodes, order, k = tree.nodes, tree.order, tree.k
    position = np.full(len(nodes), -1, dtype=np.int64)
    position[order] = np.arange(len(order))
    # Python numbers of the final nodes only: faster to read than numpy scalars
    fields, thresholds, where = nodes[order].tolist(), tree.thresholds[order].tolist(), tree.segment[order].tolist()
    kids = np.where(nodes[order, NKID] > 0, position[np.maximum(nodes[order, KID], 0)], 0).tolist()
    bags = tree.dist.reshape(-1, k)  # one view: a node's distribution is a slice of its rows
    rows, wts = tree.rows, tree.weights
    made: list[Node] = []
    for row, threshold, (start, length) in zip(fields, thresholds, where, strict=True):
        first = row[DST]
        made.append(Node(bags[first:first + row[DN]], rows[start:start + length], wts[start:start + length],
                         row[FEAT], threshold, row[NOM] == 1, [], row[EMPTY] == 1))
    for at, (row, kid) in enumerate(zip(fields, kids, strict=True)):
        if row[NKID]:  # children are consecutive in ``order`` too (breadth first)
            made[at].children = made[kid:kid + row[NKID]]
    return made[0]


# --------------------------------------------------------------------------- the estimator
class C45Classifier(ClassifierMixin, BaseEstimator):
    """C4.5 grown, collapsed and pruned exactly as Weka's J48.

    Parameters
    ----------
    confidence:
        Pruning confidence ``CF`` (J48 ``-C``), in ``(0, 0.5]``.
    min_samples_leaf:
        ``M`` (J48 ``-M``): least weight in two branches of a split.
    unpruned:
        J48 ``-U``: no error-based pruning (collapsing still applies, as in J48).
    subtree_raising:
        Consider raising the largest branch while pruning (J48 default; ``-S`` turns it off).
    collapse:
        Collapse subtrees that do not reduce training errors (J48 default; ``-O`` turns it off).
    mdl_correction:
        Quinlan's MDL penalty on numeric cuts (J48 default; ``-J`` turns it off).
    feature_ties:
        ``"first"`` (J48's rule): of attributes whose splits have the same gain
        ratio, the first column's; ``"random"``: one of them at random, drawn
        from ``random_state`` (see :class:`treebench.trees.estimator.TreeClassifier`).
    random_state:
        Seed of ``feature_ties="random"``: ``None``, an integer >= 0, or a numpy
        ``Generator`` or ``RandomState``; unused with ``"first"``.

    Attributes
    ----------
    classes_ : ndarray
        The sorted class labels.
    tree_ : TreeInfo
        The root and J48's sizes: ``n_leaves``, ``n_nodes`` (every node, empty leaves included).
    """

    def __init__(
        self,
        confidence: float = 0.25,
        min_samples_leaf: int = 2,
        unpruned: bool = False,
        subtree_raising: bool = True,
        collapse: bool = True,
        mdl_correction: bool = True,
        feature_ties: str = "first",
        random_state: Any = None,
    ) -> None:
        self.confidence = confidence
        self.min_samples_leaf = min_samples_leaf
        self.unpruned = unpruned
        self.subtree_raising = subtree_raising
        self.collapse = collapse
        self.mdl_correction = mdl_correction
        self.feature_ties = feature_ties
        self.random_state = random_state

    # -- fitting ---------------------------------------------------------------------------------
    def _check_params(self) -> None:
        if not isinstance(self.confidence, (int, float)) or not 0 < self.confidence <= 0.5:
            raise TreebenchError(f"confidence must be in (0, 0.5]; got {self.confidence!r}")
        if isinstance(self.min_samples_leaf, bool) or not isinstance(self.min_samples_leaf, (int, np.integer)) \
                or self.min_samples_leaf < 1:
            raise TreebenchError(f"min_samples_leaf must be an integer >= 1; got {self.min_samples_leaf!r}")
        validate_tree_param("feature_ties", self.feature_ties, python=True)

    def _tie_stream(self) -> np.ndarray | None:
        """The stream random ties are drawn from (``None`` for ``feature_ties="first"``)."""
        return None if self.feature_ties == "first" else tie_state(tie_seed(self.random_state))

    def _encode(self, X: Any, fit: bool) -> np.ndarray:
        """Float matrix with nominal codes ``0..c-1`` and NaN for missing (unseen categories too)."""
        if not fit:
            check_fitted(self)
        X = as_2d_input(X)
        check_columns(self, X, fit)
        if fit:
            # J48 sees every categorical, ordered or not, as nominal (multiway)
            self.encoder_, Z = FeatureEncoder.fit(X, ordered_nominal=True)
        else:
            Z = self.encoder_.transform(X)
        Z = np.asarray(Z, dtype=np.float64, order="F")
        if not Z.flags.writeable:
            Z = Z.copy(order="F")  # the kernels take writeable arrays (read-only ones compile anew)
        nominal = [j for j, cats in enumerate(self.encoder_.categories) if cats is not None]
        if nominal:  # the encoder's "missing" code (its number of categories) becomes NaN
            codes = Z[:, nominal]
            missing = codes >= [len(self.encoder_.categories[j]) for j in nominal]
            if missing.any():
                if isinstance(X, np.ndarray) and np.shares_memory(Z, X):
                    Z = Z.copy(order="F")  # never written into the caller's array
                codes[missing] = np.nan
                Z[:, nominal] = codes
        if np.isinf(Z).any():
            raise TreebenchError("X contains infinite values; accepted: finite numbers or NaN for missing")
        return Z

    #: Grow, collapse and prune in the compiled kernels (tests turn it off to run the reference).
    _compiled = True

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> C45Classifier:
        """Grow (and unless ``unpruned``, prune) the tree on ``X``, ``y``.

        Parameters
        ----------
        X:
            Array or DataFrame; categorical/string columns are nominal, NaN is missing.
        y:
            Class labels.
        sample_weight:
            Case weights (Weka instance weights); zero-weight rows are dropped.
        """
        self._check_params()
        return self._fit_encoded(self._encode(X, fit=True), y, sample_weight)

    def _fit_encoded(self, Z: np.ndarray, y: Any, sample_weight: Any = None) -> C45Classifier:
        """:meth:`fit` after :meth:`_encode` (``benchmarks/bench_c45_speed.py`` times the two)."""
        if isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "iub" and len(y) == Z.shape[0]:
            labels = y  # integer labels: discrete and never missing, nothing to check
        else:
            labels = as_labels(y, Z.shape[0])
        self.classes_, codes = label_codes(labels)
        weights = check_sample_weight(sample_weight, Z)
        weights = np.ones(Z.shape[0]) if weights is None else weights
        self.n_features_in_ = Z.shape[1]
        n_values = np.array([len(c) if c is not None else 0 for c in self.encoder_.categories], dtype=np.int64)
        keep = np.flatnonzero(weights > 0)
        kept = weights[keep].astype(np.float64)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 10_000))
        try:
            if self._compiled:
                Zk, ck = (Z, codes) if len(keep) == len(codes) else (Z[keep], codes[keep])
                self.tree_ = _Compiled(Zk, ck, kept, n_values, len(self.classes_), self).fit()
            else:
                grower = _Grower(Z[keep], codes[keep], n_values, len(self.classes_), self)
                root = grower.grow(np.arange(len(keep)), kept)
                if self.collapse:
                    grower.collapse(root)
                if not self.unpruned:
                    grower.prune(root, bool(self.subtree_raising))
                self.tree_ = TreeInfo(root, *_sizes(root))
        finally:
            sys.setrecursionlimit(limit)
        return self

    # -- prediction ------------------------------------------------------------------------------
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities (``ClassifierTree.getProbs``; unknown values share out by branch weight)."""
        Z = self._encode(X, fit=False)
        out = np.zeros((Z.shape[0], len(self.classes_)))
        arrays = self.tree_.arrays
        if arrays is not None:
            c45_predict.predict_proba(arrays.nodes, arrays.thresholds, arrays.dist, arrays.k, Z, out)
        else:  # the Python grower's tree (and the reference walk the kernel is tested against)
            self._descend(self.tree_.root, Z, np.arange(Z.shape[0]), np.ones(Z.shape[0]), out)
        return out

    def _descend(self, node: Node, Z: np.ndarray, rows: np.ndarray, weight: np.ndarray, out: np.ndarray) -> None:
        if rows.size == 0:
            return
        if node.is_leaf:
            out[rows] += weight[:, None] * _probs(node.dist.sum(axis=0))[None, :]
            return
        x = Z[rows, node.feature]
        known = ~np.isnan(x)
        bag = np.full(len(rows), -1, dtype=np.int64)
        if node.nominal:
            bag[known] = x[known].astype(np.int64)
        else:
            bag[known] = np.where(x[known] - node.threshold < SMALL, 0, 1)
        shares = node.shares()
        for b, child in enumerate(node.children):
            mine = bag == b
            if child.is_empty:  # the parent's distribution answers for an empty branch
                bag_dist = node.dist[b] if node.dist[b].sum() > SMALL else node.dist.sum(axis=0)
                out[rows[mine]] += weight[mine, None] * _probs(bag_dist)[None, :]
                continue
            self._descend(child, Z, rows[mine], weight[mine], out)
            self._descend(child, Z, rows[~known], weight[~known] * shares[b], out)

    def predict(self, X: Any) -> np.ndarray:
        """The class of largest probability, the first on near-ties (``ClassifierTree.classifyInstance``)."""
        proba = self.predict_proba(X)
        best = np.zeros(len(proba), dtype=np.int64)
        top = np.full(len(proba), -1.0)
        for c in range(proba.shape[1]):
            better = proba[:, c] - top > SMALL
            best[better], top[better] = c, proba[better, c]
        return self.classes_[best]

    # -- size and printing -----------------------------------------------------------------------
    def get_n_leaves(self) -> int:
        """Leaves as J48 counts them (empty leaves included)."""
        check_fitted(self)
        return self.tree_.n_leaves

    def get_depth(self) -> int:
        """Depth of the deepest leaf (root 0)."""
        check_fitted(self)
        return self.tree_.depth

    @property
    def feature_importances_(self) -> np.ndarray:
        """Normalised total entropy decrease brought by each feature (scikit-learn's mean decrease
        in impurity with ``criterion="entropy"``): every split adds ``W H(t) - sum_b W_b H(b)``
        over its branches' training weights (fractional cases included); all zeros for one leaf."""
        check_fitted(self)
        importances = np.zeros(self.n_features_in_)
        pending = [self.tree_.root]
        while pending:
            node = pending.pop()
            if node.is_leaf:
                continue
            bags = np.asarray(node.dist, dtype=np.float64)
            weights = bags.sum(axis=1)
            importances[node.feature] += weights.sum() * _entropy(bags.sum(axis=0)) - float(
                sum(w * _entropy(b) for w, b in zip(weights, bags)))
            pending += node.children
        total = importances.sum()
        return importances / total if total > 0 else importances

    def export_graphviz(self, max_depth: int | None = None) -> str:
        """The tree as Graphviz DOT text: each node's test, training weight, class weights and class."""
        from treebench.trees.view import to_dot, view_of

        check_fitted(self)
        return to_dot(view_of(self), max_depth=max_depth)

    def tree_quality(self) -> None:
        """C4.5 defines no tree-quality measure (the criterion trees' ``tree_quality``)."""
        return None

    def export_text(self) -> str:
        """The tree in J48's layout (``attr <= v``, ``|   `` per level, ``class (weight/errors)``)."""
        check_fitted(self)
        root = self.tree_.root
        if root.is_leaf:
            return ": " + self._label(root.dist.sum(axis=0))
        lines: list[str] = []
        self._dump(root, 0, lines)
        return "\n".join(lines)

    def _dump(self, node: Node, depth: int, lines: list[str]) -> None:
        name = self.encoder_.names[node.feature]
        for b, child in enumerate(node.children):
            if node.nominal:
                test = f"{name} = {self.encoder_.categories[node.feature][b]}"
            else:
                test = f"{name} {'<=' if b == 0 else '>'} {_weka_number(node.threshold)}"
            text = "|   " * depth + test
            if child.is_leaf:
                lines.append(f"{text}: {self._label(node.dist[b], node.dist.sum(axis=0))}")
            else:
                lines.append(text)
                self._dump(child, depth + 1, lines)

    def _label(self, per_class: np.ndarray, fallback: np.ndarray | None = None) -> str:
        """``NoSplit``/``C45Split.dumpLabel``: majority class, weight and errors rounded to 2 places."""
        source = per_class if per_class.sum() > 0 or fallback is None else fallback
        label = self.classes_[max_class(source)]
        total = float(per_class.sum())
        wrong = total - float(per_class[max_class(source)])
        tail = f"/{round(wrong, 2)}" if wrong > SMALL else ""
        return f"{label} ({round(total, 2)}{tail})"


def _probs(per_class: np.ndarray) -> np.ndarray:
    """``Distribution.prob``: relative weights, all 0 for an empty distribution."""
    total = per_class.sum()
    return per_class / total if abs(total) >= SMALL else np.zeros_like(per_class)


def _entropy(counts: np.ndarray) -> float:
    """Shannon entropy (bits) of class weights (0 for none)."""
    total = counts.sum()
    if total <= 0:
        return 0.0
    p = counts[counts > 0] / total
    return float(-(p * np.log2(p)).sum())


def _weka_number(value: float) -> str:
    """``Utils.doubleToString(value, 6)``: at most 6 decimals, no trailing zeros."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
