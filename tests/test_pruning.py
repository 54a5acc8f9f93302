"""Post-pruning: C4.5's error-based pruning and cost-complexity pruning."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, make_classification

from treebench import TreeClassifier
from treebench.errors import TreebenchError
from treebench.kernels import layout as L
from treebench.trees import Tree
from treebench.trees.pruning import (
    added_errors,
    cost_complexity_path,
    estimated_errors,
    prune_cost_complexity,
)


def test_added_errors_by_hand():
    # no error: the exact binomial bound N (1 - CF^(1/N)); C4.5's book gives
    # U25%(0, 6) = 0.206, so 6 * 0.206 errors
    assert added_errors(6, 0, 0.25) == pytest.approx(6 * (1 - 0.25 ** (1 / 6)))
    assert added_errors(6, 0, 0.25) == pytest.approx(1.236, abs=2e-3)
    assert added_errors(1, 0, 0.25) == pytest.approx(0.75)
    # one error in 16, normal approximation with continuity correction, z = 0.6745
    z = 0.6744897501960817
    f = 1.5 / 16
    upper = (f + z * z / 32 + z * math.sqrt(f / 16 - f * f / 16 + z * z / (4 * 256))) / (1 + z * z / 16)
    assert estimated_errors(np.array([15, 1]), 0.25) == pytest.approx(16 * upper)
    assert 16 * upper == pytest.approx(2.476, abs=1e-3)
    # between 0 and 1 error: linear interpolation; near N: N - e
    half = added_errors(10, 0.5, 0.25)
    assert half == pytest.approx((added_errors(10, 0, 0.25) + added_errors(10, 1, 0.25)) / 2)
    assert added_errors(4, 3.6, 0.25) == pytest.approx(0.4)
    # smaller confidence, more pessimism
    assert added_errors(20, 3, 0.05) > added_errors(20, 3, 0.25)


def quinlan_vote_tree():
    """C4.5 book, ch. 4: a node with leaves (6, 0), (9, 0), (0, 1) under it."""
    X = pd.DataFrame({"v": ["a"] * 6 + ["b"] * 9 + ["c"]})
    y = np.array([0] * 15 + [1])
    return X, y


def test_quinlans_worked_example_is_pruned_to_a_leaf():
    X, y = quinlan_vote_tree()
    grown = TreeClassifier("entropy").fit(X, y)
    assert grown.tree_.n_leaves == 3
    subtree = sum(estimated_errors(np.array(c), 0.25) for c in ([6, 0], [9, 0], [0, 1]))
    leaf = estimated_errors(np.array([15, 1]), 0.25)
    assert subtree == pytest.approx(3.27, abs=0.01) and leaf == pytest.approx(2.48, abs=0.01)
    pruned = TreeClassifier("entropy", pruning="pessimistic").fit(X, y)
    assert pruned.tree_.n_leaves == 1 and pruned.tree_.n_nodes == 1
    assert list(pruned.tree_.counts[0]) == [15, 1]
    # a permissive confidence keeps it (estimates closer to observed errors)
    kept = TreeClassifier("entropy", pruning="pessimistic", confidence=0.5).fit(X, y)
    assert kept.tree_.n_leaves <= 3


def test_collapse_removes_splits_that_do_not_reduce_training_error():
    # zero-error-reduction splits (certainty makes many) are collapsed first
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] > 0).astype(int)
    y[rng.random(300) < 0.15] ^= 1
    grown = TreeClassifier("certainty").fit(X, y).tree_
    pruned = TreeClassifier("certainty", pruning="pessimistic").fit(X, y).tree_
    assert pruned.n_leaves < grown.n_leaves / 3


@pytest.mark.parametrize("raising", [False, True])
def test_pruned_trees_are_consistent(raising):
    X, y = load_breast_cancer(return_X_y=True)
    model = TreeClassifier("gain_ratio", pruning="pessimistic", subtree_raising=raising).fit(X, y)
    grown = TreeClassifier("gain_ratio").fit(X, y)
    tree = model.tree_
    assert tree.n_leaves < grown.tree_.n_leaves
    assert tree.n_nodes == 2 * tree.n_leaves - 1
    # leaves partition the training data, and counts match what reaches them
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        assert tree.is_leaf[leaf]
        np.testing.assert_array_equal(np.bincount(y[leaves == leaf], minlength=2), tree.counts[leaf])
    assert tree.leaf_counts().sum() == len(y)
    # children are consecutive and depths consistent
    for node in range(tree.n_nodes):
        for child in tree.children(node):
            assert tree.int_nodes[child, L.DEPTH] == tree.int_nodes[node, L.DEPTH] + 1
    assert Tree.from_json(tree.to_json()).to_dict() == tree.to_dict()


def test_subtree_raising_redistributes_counts_and_never_grows_the_tree():
    X, y = make_classification(n_samples=800, n_features=6, n_informative=3, flip_y=0.15, random_state=3)
    plain = TreeClassifier("entropy", pruning="pessimistic").fit(X, y).tree_
    raised = TreeClassifier("entropy", pruning="pessimistic", subtree_raising=True).fit(X, y).tree_
    assert raised.n_leaves <= plain.n_leaves
    leaves = raised.apply(X)
    for leaf in np.unique(leaves):
        np.testing.assert_array_equal(np.bincount(y[leaves == leaf], minlength=2), raised.counts[leaf])


def test_cost_complexity_weakest_link_by_hand():
    # root (10, 10) -> A (9, 1) -> (9, 0), (0, 1)
    #               -> B (1, 9) -> B1 (0, 8), B2 (1, 1) -> (1, 0), (0, 1)
    X = np.array([[0, 0]] * 9 + [[0, 1]] + [[1, 0]] * 8 + [[1, 1], [1, 2]], dtype=float)
    y = np.array([0] * 9 + [1] + [1] * 8 + [0, 1])
    full = TreeClassifier("gini").fit(X, y).tree_
    assert full.n_leaves == 5
    # g = (R(t) - R(T_t)) / (|T_t| - 1), R in fractions of the 20 samples:
    # g(B) = (1/20) / 2 = 0.025 goes first, then g(A) = (1/20) / 1 = 0.05,
    # then the root: (10/20 - 2/20) / 1 = 0.4
    alphas, leaves = cost_complexity_path(full)
    np.testing.assert_allclose(alphas, [0.0, 0.025, 0.05, 0.4])
    np.testing.assert_array_equal(leaves, [5, 3, 2, 1])
    assert prune_cost_complexity(full, 0.03).n_leaves == 3
    assert prune_cost_complexity(full, 0.05).n_leaves == 2
    assert prune_cost_complexity(full, 1.0).n_leaves == 1
    assert prune_cost_complexity(full, 0.0).n_leaves == 5  # every split here reduces the error


def test_cost_complexity_is_monotone_in_alpha_and_validates():
    X, y = make_classification(n_samples=600, n_features=5, flip_y=0.2, random_state=5)
    sizes = [TreeClassifier("gini", pruning="cost-complexity", ccp_alpha=a).fit(X, y).tree_.n_leaves for a in (0.0, 0.002, 0.01, 0.05, 0.5)]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 1
    with pytest.raises(TreebenchError, match="ccp_alpha=-1 is invalid"):
        TreeClassifier("gini", pruning="cost-complexity", ccp_alpha=-1).fit(X, y)
    with pytest.raises(TreebenchError, match="accepted: None, pessimistic, cost-complexity"):
        TreeClassifier("gini", pruning="reduced-error").fit(X, y)
    with pytest.raises(TreebenchError, match="accepted: 0 < confidence <= 0.5"):
        TreeClassifier("gini", pruning="pessimistic", confidence=0.9).fit(X, y)


def test_pruning_keeps_multiway_nominal_structure():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"c": rng.choice(list("abcde"), 400), "x": rng.normal(size=400)})
    y = ((X["c"].isin(["a", "b"])) ^ (rng.random(400) < 0.1)).astype(int)
    model = TreeClassifier("entropy", pruning="pessimistic").fit(X, y)
    assert model.tree_.int_nodes[0, L.KIND] == L.NOMINAL_MULTIWAY
    assert model.score(X, y) > 0.85


# -- equivalence with the readable implementation ------------------------------------------------
# The pure-Python pruning as it was before the numba/vectorised rewrite (issue 18), kept verbatim
# (names prefixed) as the reference the fast version must reproduce exactly.
from dataclasses import dataclass  # noqa: E402

from treebench.trees.pruning import prune_pessimistic  # noqa: E402

#: Slack of C4.5/J48 when comparing estimated error counts.
ref_C45_SLACK = 0.1


# -- C4.5 error estimate ---------------------------------------------------------
def ref_added_errors(n: float, errors: float, confidence: float) -> float:
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
        return base + errors * (ref_added_errors(n, 1.0, confidence) - base)
    if errors + 0.5 >= n:
        return max(n - errors, 0.0)
    from scipy.special import ndtri

    z = float(ndtri(1.0 - confidence))
    f = (errors + 0.5) / n
    upper = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
    return upper * n - errors


def ref_estimated_errors(counts: np.ndarray, confidence: float) -> float:
    """C4.5's pessimistic error count of a leaf with class ``counts``."""
    n = float(counts.sum())
    if n <= 0:
        return 0.0
    errors = n - float(counts.max())
    return errors + ref_added_errors(n, errors, confidence)


# -- mutable working copy ------------------------------------------------------------
@dataclass
class _ref_Work:
    tree: Tree
    int_nodes: np.ndarray
    float_nodes: np.ndarray
    counts: np.ndarray
    children: list[list[int]]

    @classmethod
    def of(cls, tree: Tree) -> _ref_Work:
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
        _ref_fix_depths(int_nodes)
        t = self.tree
        return Tree(int_nodes, float_nodes, counts, t.catmap.copy(), t.n_categories, t.feature_names, t.classes, t.categories, dict(t.criterion))


def _ref_fix_depths(int_nodes: np.ndarray) -> None:
    int_nodes[0, L.DEPTH] = 0
    for node in range(int_nodes.shape[0]):  # parents come before children
        start, count = int_nodes[node, L.CHILD_START], int_nodes[node, L.N_CHILDREN]
        if int_nodes[node, L.KIND] != L.LEAF:
            int_nodes[start : start + count, L.DEPTH] = int_nodes[node, L.DEPTH] + 1


# -- C4.5 error-based pruning -------------------------------------------------------------
def ref_prune_pessimistic(
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
    estimated errors (observed errors plus :func:`ref_added_errors`) are at most
    the subtree's estimated errors + 0.1.  Missing values are routed as in
    prediction; J48's fractional instances are not used.
    """
    if not 0.0 < confidence <= 0.5:
        raise TreebenchError(f"confidence={confidence!r} is out of range; accepted: 0 < confidence <= 0.5")
    work = _ref_Work.of(tree)
    if collapse:
        _ref_collapse(work, 0)
    _ref_prune_node(work, 0, X, _ref_Labels(y, sample_weight), np.arange(len(y)), confidence, subtree_raising)
    return work.compact()


@dataclass
class _ref_Labels:
    """The training label codes and optional row weights, for re-counting subsets."""

    codes: np.ndarray
    weights: np.ndarray | None

    def counts(self, samples: np.ndarray, n_classes: int) -> np.ndarray:
        weights = None if self.weights is None else self.weights[samples]
        return np.bincount(self.codes[samples], weights=weights, minlength=n_classes)


def _ref_training_errors(work: _ref_Work, node: int) -> float:
    return float(sum(work.counts[leaf].sum() - work.counts[leaf].max() for leaf in work.leaves(node)))


def _ref_collapse(work: _ref_Work, node: int) -> None:
    if not work.children[node]:
        return
    as_leaf = float(work.counts[node].sum() - work.counts[node].max())
    if _ref_training_errors(work, node) >= as_leaf - 1e-3:
        work.make_leaf(node)
        return
    for child in work.children[node]:
        _ref_collapse(work, child)


def _ref_subtree_errors(work: _ref_Work, node: int, confidence: float) -> float:
    return sum(ref_estimated_errors(work.counts[leaf], confidence) for leaf in work.leaves(node))


def _ref_branch_errors(work: _ref_Work, node: int, X, y, samples, confidence: float) -> float:
    """Estimated errors of the subtree at ``node`` if ``samples`` went through it."""
    if not work.children[node]:
        return ref_estimated_errors(y.counts(samples, work.counts.shape[1]), confidence)
    return sum(
        _ref_branch_errors(work, child, X, y, part, confidence)
        for child, part in zip(work.children[node], work.route(node, X, samples))
    )


def _ref_redistribute(work: _ref_Work, node: int, X, y, samples) -> None:
    work.counts[node] = y.counts(samples, work.counts.shape[1])
    if work.children[node]:
        for child, part in zip(work.children[node], work.route(node, X, samples)):
            _ref_redistribute(work, child, X, y, part)


def _ref_prune_node(work: _ref_Work, node, X, y, samples, confidence: float, raising: bool) -> None:
    if not work.children[node]:
        return
    for child, part in zip(work.children[node], work.route(node, X, samples)):
        _ref_prune_node(work, child, X, y, part, confidence, raising)
    sizes = [work.counts[child].sum() for child in work.children[node]]
    largest = work.children[node][int(np.argmax(sizes))]
    errors_leaf = ref_estimated_errors(work.counts[node], confidence)
    errors_tree = _ref_subtree_errors(work, node, confidence)
    errors_branch = _ref_branch_errors(work, largest, X, y, samples, confidence) if raising else math.inf
    if errors_leaf <= errors_tree + ref_C45_SLACK and errors_leaf <= errors_branch + ref_C45_SLACK:
        work.make_leaf(node)
        return
    if errors_branch <= errors_tree + ref_C45_SLACK:
        # raise the largest branch into this node, re-route this node's samples
        work.int_nodes[node, : L.DEPTH] = work.int_nodes[largest, : L.DEPTH]
        work.float_nodes[node, L.THRESHOLD] = work.float_nodes[largest, L.THRESHOLD]
        work.float_nodes[node, L.SCORE] = work.float_nodes[largest, L.SCORE]
        work.children[node] = work.children[largest]
        _ref_redistribute(work, node, X, y, samples)
        _ref_prune_node(work, node, X, y, samples, confidence, raising)


# -- CART cost-complexity pruning --------------------------------------------------------------
def _ref_weakest_links(work: _ref_Work) -> tuple[list[int], np.ndarray]:
    """Internal nodes still in the tree and their g(t) = (R(t) - R(T_t)) / (|T_t| - 1).

    One post-order pass gives every subtree's leaf errors and leaf count, so a
    pruning step costs O(nodes) rather than a leaf walk per node.
    """
    total = float(work.counts[0].sum())
    order = _ref_descendants(work, 0)  # parents before children
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


def _ref_prune_weakest(work: _ref_Work, alpha: float | None) -> list[tuple[float, int]]:
    """Prune weakest links while g(t) <= alpha (down to the root if alpha is None).

    Returns the path: (effective alpha, number of leaves) after each step.
    """
    path = [(0.0, len(work.leaves(0)))]
    while work.children[0]:
        nodes, links = _ref_weakest_links(work)
        weakest = float(links.min())
        if alpha is not None and weakest > alpha + 1e-12:
            break
        for node, link in zip(nodes, links):
            if link <= weakest + 1e-12:
                work.make_leaf(node)  # a pruned ancestor makes this moot, harmlessly
        path.append((max(weakest, 0.0), len(work.leaves(0))))
    return path


def _ref_descendants(work: _ref_Work, node: int) -> list[int]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(work.children[current])
    return out


def ref_prune_cost_complexity(tree: Tree, alpha: float) -> Tree:
    """Minimal cost-complexity pruning (Breiman et al. 1984) with parameter ``alpha``.

    R(t) is the resubstitution (misclassification) error of node ``t`` as a
    fraction of the root's samples, as in Breiman et al.; weakest links are
    pruned while ``g(t) <= alpha``.  (scikit-learn's ``ccp_alpha`` uses the
    weighted impurity instead of the error, so its alphas are not comparable.)
    """
    if not (isinstance(alpha, (int, float)) and alpha >= 0 and math.isfinite(alpha)):
        raise TreebenchError(f"ccp_alpha={alpha!r} is invalid; accepted: a number >= 0")
    work = _ref_Work.of(tree)
    _ref_prune_weakest(work, float(alpha))
    return work.compact()


def ref_cost_complexity_path(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """Effective alphas of the weakest-link sequence and the leaf count after each."""
    work = _ref_Work.of(tree)
    path = _ref_prune_weakest(work, None)
    alphas, leaves = zip(*path)
    return np.asarray(alphas), np.asarray(leaves)


def assert_same_tree(fast: Tree, ref: Tree) -> None:
    assert fast.counts.dtype == ref.counts.dtype
    np.testing.assert_array_equal(fast.int_nodes, ref.int_nodes)
    np.testing.assert_array_equal(fast.float_nodes, ref.float_nodes)
    np.testing.assert_array_equal(fast.counts, ref.counts)
    np.testing.assert_array_equal(fast.catmap, ref.catmap)
    assert fast.to_dict() == ref.to_dict()


def grown(X, y, criterion="gain_ratio", sample_weight=None, **params):
    """An unpruned tree and the encoded matrix and label codes it was grown on."""
    model = TreeClassifier(criterion, **params).fit(X, y, sample_weight=sample_weight)
    return model.tree_, model._encode(X), np.searchsorted(model.classes_, np.asarray(y))


def check_equivalent(tree, matrix, codes, weights=None, confidences=(0.25,), alphas=True):
    for confidence in confidences:
        for raising in (False, True):
            for collapse in (True, False):
                fast = prune_pessimistic(tree, matrix, codes, confidence, raising, collapse, sample_weight=weights)
                ref = ref_prune_pessimistic(tree, matrix, codes, confidence, raising, collapse, sample_weight=weights)
                assert_same_tree(fast, ref)
                X = matrix
                np.testing.assert_array_equal(fast.apply(X), ref.apply(X))
    fast_alphas, fast_leaves = cost_complexity_path(tree)
    ref_alphas, ref_leaves = ref_cost_complexity_path(tree)
    np.testing.assert_array_equal(fast_alphas, ref_alphas)  # bit for bit
    np.testing.assert_array_equal(fast_leaves, ref_leaves)
    if alphas:
        candidates = set(ref_alphas.tolist()) | {0.0, 1e-4, 1.0}
        candidates |= {(a + b) / 2 for a, b in zip(ref_alphas[:-1], ref_alphas[1:])}
        for alpha in sorted(candidates)[:40]:
            assert_same_tree(prune_cost_complexity(tree, alpha), ref_prune_cost_complexity(tree, alpha))


def test_estimates_match_the_reference():
    for n in (1.0, 2.0, 6.0, 16.0, 100.5, 1e5):
        for errors in (0.0, 0.3, 1.0, 2.5, n - 0.4, n):
            for confidence in (0.01, 0.1, 0.25, 0.5):
                assert added_errors(n, errors, confidence) == ref_added_errors(n, errors, confidence)
    assert estimated_errors(np.array([15, 1]), 0.25) == ref_estimated_errors(np.array([15, 1]), 0.25)


@pytest.mark.parametrize(
    "name", ["iris", "wine", "breast_cancer"],
)
@pytest.mark.parametrize("criterion", ["gain_ratio", "gini"])
def test_pruning_equals_reference_on_sklearn_datasets(name, criterion):
    from sklearn import datasets

    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    check_equivalent(*grown(X, y, criterion), confidences=(0.25, 0.05, 0.5))
    weights = np.random.default_rng(1).uniform(0.1, 3.0, len(y))
    tree, matrix, codes = grown(X, y, criterion, sample_weight=weights)
    check_equivalent(tree, matrix, codes, weights)


def _mirror(name: str, rows: int | None = None):
    import os

    root = os.environ.get("TREEBENCH_DATA")
    path = os.path.join(root, f"{name}.csv.gz") if root else ""
    if not root or not os.path.exists(path):
        pytest.skip(f"{name} is not in the dataset mirror (TREEBENCH_DATA)")
    frame = pd.read_csv(path)
    if rows is not None:
        frame = frame.sample(n=min(rows, len(frame)), random_state=0)
    return frame.drop(columns="class").to_numpy(dtype=float), frame["class"].astype(str).to_numpy()


@pytest.mark.parametrize("name,rows", [("yeast", None), ("pendigits", 4000), ("letter", 5000)])
def test_pruning_equals_reference_on_mirror_datasets(name, rows):
    X, y = _mirror(name, rows)
    check_equivalent(*grown(X, y, "gain_ratio"), alphas=name == "yeast")
    weights = np.random.default_rng(2).uniform(0.2, 2.0, len(y))
    tree, matrix, codes = grown(X, y, "entropy", sample_weight=weights)
    check_equivalent(tree, matrix, codes, weights, alphas=False)


def test_pruning_equals_reference_on_multiway_nominal_with_missing_values():
    rng = np.random.default_rng(4)
    n = 600
    X = pd.DataFrame(
        {
            "c": rng.choice(list("abcdef"), n),
            "d": rng.choice(list("xyz"), n),
            "x": rng.normal(size=n),
        }
    )
    X.loc[rng.random(n) < 0.1, "x"] = np.nan
    X.loc[rng.random(n) < 0.1, "c"] = None
    y = (X["c"].isin(["a", "b"]).to_numpy() ^ (rng.random(n) < 0.25)).astype(int) + (X["d"] == "x").to_numpy()
    check_equivalent(*grown(X, y, "entropy"), confidences=(0.25, 0.5))
    check_equivalent(*grown(X, y, "gain_ratio", nominal_features=None), confidences=(0.25,))


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 300),
    n_features=st.integers(1, 4),
    n_classes=st.integers(2, 5),
    criterion=st.sampled_from(["entropy", "gini", "gain_ratio", "certainty"]),
    nominal=st.booleans(),
    weighted=st.booleans(),
    confidence=st.sampled_from([0.01, 0.1, 0.25, 0.5]),
)
def test_pruning_equals_reference_on_random_trees(seed, n, n_features, n_classes, criterion, nominal, weighted, confidence):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{j}": rng.integers(0, 6, n).astype(float) if j % 2 else rng.normal(size=n) for j in range(n_features)})
    if nominal:
        X["c"] = rng.choice(list("abcd"), n)
    y = rng.integers(0, n_classes, n)
    y[: min(n, n_classes)] = np.arange(min(n, n_classes))
    signal = (X["x0"] > 0).to_numpy()
    y = np.where(rng.random(n) < 0.5, signal.astype(int), y)
    weights = rng.choice([0.5, 1.0, 2.5, 0.1], n) if weighted else None
    check_equivalent(*grown(X, y, criterion, sample_weight=weights), weights, confidences=(confidence,))
