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
    if errors < 1:
        base = n * (1.0 - confidence ** (1.0 / n))
        if errors == 0:
            return base
        return base + errors * (added_errors(n, 1.0, confidence) - base)
    if errors + 0.5 >= n:
        return max(n - errors, 0.0)
    from scipy.special import ndtri

    z = float(ndtri(1.0 - confidence))
    f = (errors + 0.5) / n
    upper = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
    return upper * n - errors


def estimated_errors(counts: np.ndarray, confidence: float) -> float:
    """C4.5's pessimistic error count of a leaf with class ``counts``."""
    n = float(counts.sum())
    if n <= 0:
        return 0.0
    errors = n - float(counts.max())
    return errors + added_errors(n, errors, confidence)


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
        children = [list(tree.children(node)) for node in range(tree.n_nodes)]
        return cls(tree, tree.int_nodes.copy(), tree.float_nodes.copy(), tree.counts.copy(), children)

    def make_leaf(self, node: int) -> None:
        self.children[node] = []
        self.int_nodes[node, L.KIND] = L.LEAF
        self.int_nodes[node, L.FEATURE] = -1

    def leaves(self, node: int) -> list[int]:
        if not self.children[node]:
            return [node]
        return [leaf for child in self.children[node] for leaf in self.leaves(child)]

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
        order: list[int] = []
        new_id = {0: 0}
        next_id = 1
        stack = [0]
        while stack:
            node = stack.pop()
            order.append(node)
            for child in self.children[node]:
                new_id[child] = next_id
                next_id += 1
            stack.extend(reversed(self.children[node]))
        n_nodes = next_id
        int_nodes = np.empty((n_nodes, L.N_INT_FIELDS), np.int64)
        float_nodes = np.empty((n_nodes, L.N_FLOAT_FIELDS))
        counts = np.empty((n_nodes, self.counts.shape[1]), self.counts.dtype)
        for old in order:
            new = new_id[old]
            int_nodes[new] = self.int_nodes[old]
            float_nodes[new] = self.float_nodes[old]
            counts[new] = self.counts[old]
            kids = self.children[old]
            if kids:
                int_nodes[new, L.CHILD_START] = new_id[kids[0]]
                int_nodes[new, L.N_CHILDREN] = len(kids)
            else:
                int_nodes[new, L.KIND] = L.LEAF
                int_nodes[new, L.FEATURE] = -1
                int_nodes[new, L.CHILD_START] = -1
                int_nodes[new, L.N_CHILDREN] = -1
        _fix_depths(int_nodes)
        t = self.tree
        return Tree(int_nodes, float_nodes, counts, t.catmap.copy(), t.n_categories, t.feature_names, t.classes, t.categories, dict(t.criterion))


def _fix_depths(int_nodes: np.ndarray) -> None:
    int_nodes[0, L.DEPTH] = 0
    for node in range(int_nodes.shape[0]):  # parents come before children
        start, count = int_nodes[node, L.CHILD_START], int_nodes[node, L.N_CHILDREN]
        if int_nodes[node, L.KIND] != L.LEAF:
            int_nodes[start : start + count, L.DEPTH] = int_nodes[node, L.DEPTH] + 1


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
    """
    if not 0.0 < confidence <= 0.5:
        raise TreebenchError(f"confidence={confidence!r} is out of range; accepted: 0 < confidence <= 0.5")
    work = _Work.of(tree)
    if collapse:
        _collapse(work, 0)
    _prune_node(work, 0, X, _Labels(y, sample_weight), np.arange(len(y)), confidence, subtree_raising)
    return work.compact()


@dataclass
class _Labels:
    """The training label codes and optional row weights, for re-counting subsets."""

    codes: np.ndarray
    weights: np.ndarray | None

    def counts(self, samples: np.ndarray, n_classes: int) -> np.ndarray:
        weights = None if self.weights is None else self.weights[samples]
        return np.bincount(self.codes[samples], weights=weights, minlength=n_classes)


def _training_errors(work: _Work, node: int) -> float:
    return float(sum(work.counts[leaf].sum() - work.counts[leaf].max() for leaf in work.leaves(node)))


def _collapse(work: _Work, node: int) -> None:
    if not work.children[node]:
        return
    as_leaf = float(work.counts[node].sum() - work.counts[node].max())
    if _training_errors(work, node) >= as_leaf - 1e-3:
        work.make_leaf(node)
        return
    for child in work.children[node]:
        _collapse(work, child)


def _subtree_errors(work: _Work, node: int, confidence: float) -> float:
    return sum(estimated_errors(work.counts[leaf], confidence) for leaf in work.leaves(node))


def _branch_errors(work: _Work, node: int, X, y, samples, confidence: float) -> float:
    """Estimated errors of the subtree at ``node`` if ``samples`` went through it."""
    if not work.children[node]:
        return estimated_errors(y.counts(samples, work.counts.shape[1]), confidence)
    return sum(
        _branch_errors(work, child, X, y, part, confidence)
        for child, part in zip(work.children[node], work.route(node, X, samples))
    )


def _redistribute(work: _Work, node: int, X, y, samples) -> None:
    work.counts[node] = y.counts(samples, work.counts.shape[1])
    if work.children[node]:
        for child, part in zip(work.children[node], work.route(node, X, samples)):
            _redistribute(work, child, X, y, part)


def _prune_node(work: _Work, node, X, y, samples, confidence: float, raising: bool) -> None:
    if not work.children[node]:
        return
    for child, part in zip(work.children[node], work.route(node, X, samples)):
        _prune_node(work, child, X, y, part, confidence, raising)
    sizes = [work.counts[child].sum() for child in work.children[node]]
    largest = work.children[node][int(np.argmax(sizes))]
    errors_leaf = estimated_errors(work.counts[node], confidence)
    errors_tree = _subtree_errors(work, node, confidence)
    errors_branch = _branch_errors(work, largest, X, y, samples, confidence) if raising else math.inf
    if errors_leaf <= errors_tree + C45_SLACK and errors_leaf <= errors_branch + C45_SLACK:
        work.make_leaf(node)
        return
    if errors_branch <= errors_tree + C45_SLACK:
        # raise the largest branch into this node, re-route this node's samples
        work.int_nodes[node, : L.DEPTH] = work.int_nodes[largest, : L.DEPTH]
        work.float_nodes[node, L.THRESHOLD] = work.float_nodes[largest, L.THRESHOLD]
        work.float_nodes[node, L.SCORE] = work.float_nodes[largest, L.SCORE]
        work.children[node] = work.children[largest]
        _redistribute(work, node, X, y, samples)
        _prune_node(work, node, X, y, samples, confidence, raising)


# -- CART cost-complexity pruning --------------------------------------------------------------
def _weakest_links(work: _Work) -> tuple[list[int], np.ndarray]:
    """Internal nodes still in the tree and their g(t) = (R(t) - R(T_t)) / (|T_t| - 1).

    One post-order pass gives every subtree's leaf errors and leaf count, so a
    pruning step costs O(nodes) rather than a leaf walk per node.
    """
    total = float(work.counts[0].sum())
    order = _descendants(work, 0)  # parents before children
    subtree_errors: dict[int, float] = {}
    subtree_leaves: dict[int, int] = {}
    nodes, links = [], []
    for node in reversed(order):
        own_errors = float(work.counts[node].sum() - work.counts[node].max())
        kids = work.children[node]
        if not kids:
            subtree_errors[node], subtree_leaves[node] = own_errors, 1
            continue
        subtree_errors[node] = sum(subtree_errors[k] for k in kids)
        subtree_leaves[node] = sum(subtree_leaves[k] for k in kids)
        nodes.append(node)
        links.append((own_errors - subtree_errors[node]) / total / (subtree_leaves[node] - 1))
    return nodes[::-1], np.asarray(links[::-1])  # pre-order


def _prune_weakest(work: _Work, alpha: float | None) -> list[tuple[float, int]]:
    """Prune weakest links while g(t) <= alpha (down to the root if alpha is None).

    Returns the path: (effective alpha, number of leaves) after each step.
    """
    path = [(0.0, len(work.leaves(0)))]
    while work.children[0]:
        nodes, links = _weakest_links(work)
        weakest = float(links.min())
        if alpha is not None and weakest > alpha + 1e-12:
            break
        for node, link in zip(nodes, links):
            if link <= weakest + 1e-12:
                work.make_leaf(node)  # a pruned ancestor makes this moot, harmlessly
        path.append((max(weakest, 0.0), len(work.leaves(0))))
    return path


def _descendants(work: _Work, node: int) -> list[int]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(work.children[current])
    return out


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
