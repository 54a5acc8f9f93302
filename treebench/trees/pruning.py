"""Post-pruning of array trees: C4.5's error-based pruning and CART's
cost-complexity (weakest-link) pruning.

Both work on a mutable copy (children lists and counts) and rebuild a compact
:class:`~treebench.trees.structure.Tree` at the end, renumbered in depth-first
pre-order with the children of a node consecutive, as the builder makes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from treebench.errors import TreebenchError
from treebench.kernels import layout as L
from treebench.trees.structure import Tree

#: Slack of C4.5/J48 when comparing estimated error counts.
C45_SLACK = 0.1


# -- C4.5 error estimate ---------------------------------------------------------
def added_errors(n: float, errors: float, confidence: float) -> float:
    """Extra errors C4.5 adds to ``errors`` observed on ``n`` cases.

    The upper limit of the binomial confidence interval at level
    ``confidence`` (C4.5's CF), with a normal approximation and continuity
    correction, as in Quinlan's ``AddErrs`` and Weka's ``Stats.addErrs``:
    exact for zero errors, linear between 0 and 1 error, and ``n - e`` when
    ``e + 0.5 >= n``.
    """
    return _added(n, errors, confidence, _z(confidence))


_Z_CACHE: dict[float, float] = {}


def _z(confidence: float) -> float:
    """The normal quantile of ``1 - confidence`` (computed once per level)."""
    z = _Z_CACHE.get(confidence)
    if z is None:
        from scipy.special import ndtri

        z = _Z_CACHE[confidence] = float(ndtri(1.0 - confidence))
    return z


def _added(n: float, errors: float, confidence: float, z: float) -> float:
    if errors < 1:
        base = n * (1.0 - confidence ** (1.0 / n))
        if errors == 0:
            return base
        return base + errors * (_added(n, 1.0, confidence, z) - base)
    if errors + 0.5 >= n:
        return max(n - errors, 0.0)
    f = (errors + 0.5) / n
    upper = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
    return upper * n - errors


def _estimate(n: float, top: float, confidence: float, z: float) -> float:
    """:func:`estimated_errors` of a leaf with ``n`` cases, ``top`` of the majority class."""
    if n <= 0:
        return 0.0
    errors = n - top
    return errors + _added(n, errors, confidence, z)


def estimated_errors(counts: np.ndarray, confidence: float) -> float:
    """C4.5's pessimistic error count of a leaf with class ``counts``."""
    return _estimate(float(counts.sum()), float(counts.max()), confidence, _z(confidence))


# -- mutable working copy ------------------------------------------------------------
@dataclass
class _Work:
    tree: Tree
    int_nodes: np.ndarray
    float_nodes: np.ndarray
    counts: np.ndarray
    children: list[list[int]]

    @classmethod
    def of(cls, tree: Tree) -> _Work:
        starts = tree.int_nodes[:, L.CHILD_START].tolist()
        sizes = tree.int_nodes[:, L.N_CHILDREN].tolist()
        children = [list(range(start, start + size)) if start >= 0 else [] for start, size in zip(starts, sizes)]
        return cls(tree, tree.int_nodes.copy(), tree.float_nodes.copy(), tree.counts.copy(), children)

    def make_leaf(self, node: int) -> None:
        self.children[node] = []
        self.int_nodes[node, L.KIND] = L.LEAF
        self.int_nodes[node, L.FEATURE] = -1

    def leaves(self, node: int) -> list[int]:
        """The leaves under ``node``, left to right."""
        out: list[int] = []
        stack = [node]
        children = self.children
        while stack:
            current = stack.pop()
            kids = children[current]
            if kids:
                stack.extend(reversed(kids))
            else:
                out.append(current)
        return out

    def route(self, node: int, X: np.ndarray, samples: np.ndarray) -> list[np.ndarray]:
        """Split ``samples`` (row indices of the encoded ``X``) among the children."""
        feature = int(self.int_nodes[node, L.FEATURE])
        kind = int(self.int_nodes[node, L.KIND])
        x = X[samples, feature]
        if kind == L.NUMERIC:
            goes_first = x <= self.float_nodes[node, L.THRESHOLD]  # NaN goes second
            return [samples[goes_first], samples[~goes_first]]
        last = int(self.tree.n_categories[feature]) - 1
        codes = np.where(np.isnan(x), last, x).astype(np.int64)
        codes[(codes < 0) | (codes > last)] = last
        if kind == L.NOMINAL_BINARY:
            first = codes == int(self.int_nodes[node, L.CATEGORY])
            return [samples[first], samples[~first]]
        offsets = self.tree.catmap[int(self.int_nodes[node, L.CATMAP_START]) + codes]
        offsets = np.where(offsets >= 0, offsets, int(self.int_nodes[node, L.DEFAULT_CHILD]))
        return [samples[offsets == j] for j in range(len(self.children[node]))]

    def compact(self) -> Tree:
        """The pruned tree, renumbered depth-first with consecutive children."""
        # depth-first; a node's children get consecutive ids when it is visited
        children = self.children
        order: list[int] = []
        depth_of: list[int] = []
        next_id = 1
        stack = [(0, 0)]
        child_of: dict[int, int] = {0: 0}
        while stack:
            node, depth = stack.pop()
            order.append(node)
            depth_of.append(depth)
            kids = children[node]
            for child in kids:
                child_of[child] = next_id
                next_id += 1
            stack.extend((child, depth + 1) for child in reversed(kids))
        n_nodes = next_id
        old = np.asarray(order, np.int64)
        new = np.fromiter((child_of[node] for node in order), np.int64, n_nodes)
        int_nodes = np.empty((n_nodes, L.N_INT_FIELDS), np.int64)
        float_nodes = np.empty((n_nodes, L.N_FLOAT_FIELDS))
        counts = np.empty((n_nodes, self.counts.shape[1]), self.counts.dtype)
        int_nodes[new] = self.int_nodes[old]
        float_nodes[new] = self.float_nodes[old]
        counts[new] = self.counts[old]
        first_child = np.fromiter(
            (child_of[children[node][0]] if children[node] else -1 for node in order), np.int64, n_nodes
        )
        n_kids = np.fromiter((len(children[node]) for node in order), np.int64, n_nodes)
        internal = n_kids > 0
        rows = new[internal]
        int_nodes[rows, L.CHILD_START] = first_child[internal]
        int_nodes[rows, L.N_CHILDREN] = n_kids[internal]
        leaf_rows = new[~internal]
        int_nodes[leaf_rows, L.KIND] = L.LEAF
        int_nodes[leaf_rows, L.FEATURE] = -1
        int_nodes[leaf_rows, L.CHILD_START] = -1
        int_nodes[leaf_rows, L.N_CHILDREN] = -1
        int_nodes[new, L.DEPTH] = np.asarray(depth_of, np.int64)
        t = self.tree
        return Tree(int_nodes, float_nodes, counts, t.catmap.copy(), t.n_categories, t.feature_names, t.classes, t.categories, dict(t.criterion))


# -- C4.5 error-based pruning -------------------------------------------------------------
def prune_pessimistic(
    tree: Tree,
    X: np.ndarray,
    y: np.ndarray,
    confidence: float = 0.25,
    subtree_raising: bool = False,
    collapse: bool = True,
    sample_weight: np.ndarray | None = None,
) -> Tree:
    """C4.5's error-based pruning, following Weka's J48.

    Parameters
    ----------
    tree:
        A fitted tree.
    X, y:
        The encoded training matrix and label codes the tree was grown on
        (subtree raising re-routes them).
    confidence:
        C4.5's CF, in ``(0, 0.5]``; smaller prunes more.
    subtree_raising:
        Also consider replacing a node by its largest branch, re-routing the
        node's training samples through it (J48's default; off by default
        here, as the paper-000 baseline "PrunTree" describes replacement).
    collapse:
        First remove splits that do not reduce the training error (J48's
        ``collapseTree``), top-down.
    sample_weight:
        The rows' weights when the tree was grown with them (its counts are
        then sums of weights, and error counts are weighted, as J48's
        instance weights); subtree raising re-counts with them.

    Notes
    -----
    Bottom-up, every internal node is replaced by a leaf when the leaf's
    estimated errors (observed errors plus :func:`added_errors`) are at most
    the subtree's estimated errors + 0.1.  Missing values are routed as in
    prediction; J48's fractional instances are not used.

    Every node's estimate is computed once (again only when subtree raising
    re-counts it); without subtree raising the training rows are not
    re-routed at all, as the decisions depend on the counts only.
    """
    if not 0.0 < confidence <= 0.5:
        raise TreebenchError(f"confidence={confidence!r} is out of range; accepted: 0 < confidence <= 0.5")
    work = _Work.of(tree)
    state = _State(work, confidence)
    if collapse:
        _collapse(work, state)
    if subtree_raising:
        _prune_node(work, state, 0, X, _Labels(y, sample_weight), np.arange(len(y)))
    else:
        _prune_by_counts(work, state)
    return work.compact()


@dataclass
class _Labels:
    """The training label codes and optional row weights, for re-counting subsets."""

    codes: np.ndarray
    weights: np.ndarray | None

    def counts(self, samples: np.ndarray, n_classes: int) -> np.ndarray:
        weights = None if self.weights is None else self.weights[samples]
        return np.bincount(self.codes[samples], weights=weights, minlength=n_classes)


class _State:
    """Per-node caches: class totals, majority counts and C4.5 estimates."""

    def __init__(self, work: _Work, confidence: float) -> None:
        self.confidence = confidence
        self.z = _z(confidence)
        counts = work.counts
        # per-row reductions over the contiguous class axis equal row.sum() / row.max()
        self.totals = counts.sum(axis=1).tolist()
        self.tops = counts.max(axis=1).tolist() if counts.shape[1] else [0] * counts.shape[0]
        self.estimates: list[float | None] = [None] * counts.shape[0]

    def estimate(self, node: int) -> float:
        value = self.estimates[node]
        if value is None:
            value = self.estimates[node] = _estimate(
                float(self.totals[node]), float(self.tops[node]), self.confidence, self.z
            )
        return value

    def recount(self, work: _Work, node: int, counts: np.ndarray) -> None:
        work.counts[node] = counts
        row = work.counts[node]
        self.totals[node] = row.sum()
        self.tops[node] = row.max()
        self.estimates[node] = None


def _collapse(work: _Work, state: _State) -> None:
    """Top-down, make a leaf of every node whose leaves make no fewer training errors."""
    errors = np.asarray(work.counts.sum(axis=1) - work.counts.max(axis=1)) if work.counts.shape[1] else None
    leaf_seq = np.asarray(work.leaves(0), np.int64)
    # each node's leaves are a contiguous run of the root's leaves, left to right
    first = np.empty(len(work.children), np.int64)
    stop = np.empty(len(work.children), np.int64)
    position = {leaf: i for i, leaf in enumerate(leaf_seq.tolist())}
    for node in reversed(_descendants(work, 0)):  # children before parents
        kids = work.children[node]
        if kids:
            first[node], stop[node] = first[kids[0]], stop[kids[-1]]
        else:
            first[node] = position[node]
            stop[node] = first[node] + 1
    leaf_errors = errors[leaf_seq] if errors is not None else None
    stack = [0]
    while stack:
        node = stack.pop()
        kids = work.children[node]
        if not kids:
            continue
        row = work.counts[node]
        as_leaf = float(row.sum() - row.max())
        # sum left to right, as the readable sum over the leaves does
        training = float(np.cumsum(leaf_errors[first[node] : stop[node]])[-1])
        if training >= as_leaf - 1e-3:
            work.make_leaf(node)
            continue
        stack.extend(reversed(kids))


def _prune_by_counts(work: _Work, state: _State) -> None:
    """Bottom-up subtree replacement, from the counts alone (no subtree raising)."""
    leaves_of: dict[int, list[int]] = {}
    for node in reversed(_descendants(work, 0)):  # children before parents
        kids = work.children[node]
        if not kids:
            leaves_of[node] = [node]
            continue
        leaves = [leaf for child in kids for leaf in leaves_of.pop(child)]
        errors_leaf = state.estimate(node)
        errors_tree = sum([state.estimate(leaf) for leaf in leaves])
        if errors_leaf <= errors_tree + C45_SLACK and errors_leaf <= math.inf + C45_SLACK:
            work.make_leaf(node)
            leaves_of[node] = [node]
        else:
            leaves_of[node] = leaves


def _subtree_errors(work: _Work, state: _State, node: int) -> float:
    return sum([state.estimate(leaf) for leaf in work.leaves(node)])


def _branch_errors(work: _Work, state: _State, node: int, X, y, samples) -> float:
    """Estimated errors of the subtree at ``node`` if ``samples`` went through it."""
    if not work.children[node]:
        counts = y.counts(samples, work.counts.shape[1])
        return _estimate(float(counts.sum()), float(counts.max()), state.confidence, state.z)
    return sum(
        _branch_errors(work, state, child, X, y, part)
        for child, part in zip(work.children[node], work.route(node, X, samples))
    )


def _redistribute(work: _Work, state: _State, node: int, X, y, samples) -> None:
    state.recount(work, node, y.counts(samples, work.counts.shape[1]))
    if work.children[node]:
        for child, part in zip(work.children[node], work.route(node, X, samples)):
            _redistribute(work, state, child, X, y, part)


def _prune_node(work: _Work, state: _State, node, X, y, samples) -> None:
    if not work.children[node]:
        return
    for child, part in zip(work.children[node], work.route(node, X, samples)):
        _prune_node(work, state, child, X, y, part)
    sizes = [state.totals[child] for child in work.children[node]]
    largest = work.children[node][int(np.argmax(sizes))]
    errors_leaf = state.estimate(node)
    errors_tree = _subtree_errors(work, state, node)
    errors_branch = _branch_errors(work, state, largest, X, y, samples)
    if errors_leaf <= errors_tree + C45_SLACK and errors_leaf <= errors_branch + C45_SLACK:
        work.make_leaf(node)
        return
    if errors_branch <= errors_tree + C45_SLACK:
        # raise the largest branch into this node, re-route this node's samples
        work.int_nodes[node, : L.DEPTH] = work.int_nodes[largest, : L.DEPTH]
        work.float_nodes[node, L.THRESHOLD] = work.float_nodes[largest, L.THRESHOLD]
        work.float_nodes[node, L.SCORE] = work.float_nodes[largest, L.SCORE]
        work.children[node] = work.children[largest]
        _redistribute(work, state, node, X, y, samples)
        _prune_node(work, state, node, X, y, samples)


# -- CART cost-complexity pruning --------------------------------------------------------------
def _descendants(work: _Work, node: int) -> list[int]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(work.children[current])
    return out


def _prune_weakest(work: _Work, alpha: float | None) -> list[tuple[float, int]]:
    """Prune weakest links while g(t) <= alpha (down to the root if alpha is None).

    g(t) = (R(t) - R(T_t)) / (|T_t| - 1), R in fractions of the root's
    samples; every node with the smallest g (within 1e-12) is pruned in one
    step.  Returns the path: (effective alpha, number of leaves) after each
    step.  The steps run in :func:`treebench.kernels.pruning.weakest_link_prune`.
    """
    from treebench.kernels.pruning import weakest_link_prune

    counts = work.counts
    n_nodes = counts.shape[0]
    own_errors = np.asarray(counts.sum(axis=1) - counts.max(axis=1), dtype=np.float64)
    total = float(counts[0].sum())
    child_start = np.full(n_nodes, -1, np.int64)
    n_children = np.zeros(n_nodes, np.int64)
    is_leaf = np.ones(n_nodes, np.bool_)
    for node, kids in enumerate(work.children):
        if kids:
            child_start[node], n_children[node], is_leaf[node] = kids[0], len(kids), False
    if not is_leaf[0] and total == 0.0:
        raise ZeroDivisionError("float division by zero")
    n_internal = int((~is_leaf).sum())
    path_alpha = np.empty(n_internal + 1, np.float64)
    path_leaves = np.empty(n_internal + 1, np.int64)
    length = weakest_link_prune(
        child_start, n_children, own_errors, total, 0.0 if alpha is None else float(alpha), alpha is not None,
        is_leaf, path_alpha, path_leaves,
    )
    for node in np.flatnonzero(is_leaf & (n_children > 0)).tolist():
        work.make_leaf(node)
    return list(zip(path_alpha[:length].tolist(), path_leaves[:length].tolist()))


def prune_cost_complexity(tree: Tree, alpha: float) -> Tree:
    """Minimal cost-complexity pruning (Breiman et al. 1984) with parameter ``alpha``.

    R(t) is the resubstitution (misclassification) error of node ``t`` as a
    fraction of the root's samples, as in Breiman et al.; weakest links are
    pruned while ``g(t) <= alpha``.  (scikit-learn's ``ccp_alpha`` uses the
    weighted impurity instead of the error, so its alphas are not comparable.)
    """
    if not (isinstance(alpha, (int, float)) and alpha >= 0 and math.isfinite(alpha)):
        raise TreebenchError(f"ccp_alpha={alpha!r} is invalid; accepted: a number >= 0")
    work = _Work.of(tree)
    _prune_weakest(work, float(alpha))
    return work.compact()


def cost_complexity_path(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """Effective alphas of the weakest-link sequence and the leaf count after each."""
    work = _Work.of(tree)
    path = _prune_weakest(work, None)
    alphas, leaves = zip(*path)
    return np.asarray(alphas), np.asarray(leaves)
