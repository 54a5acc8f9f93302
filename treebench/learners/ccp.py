"""Cost-complexity pruning of a grown scikit-learn tree, with α chosen by inner CV.

scikit-learn refits (regrows) a tree for every ``ccp_alpha``; choosing α by
inner cross-validation that way costs one growth per fold *and* per α.  Here
each inner fold grows one full tree, its weakest-link sequence is computed
once, and the subtree for any α is read off that sequence, so a fold costs
one growth whatever the number of candidate α.

The weakest-link rule is scikit-learn's: the cost of a node is its weighted
share of cases times its impurity, ``g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1)``,
the internal node of smallest ``g`` is collapsed, repeatedly; the subtree for
α collapses every link whose (running-maximum) ``g`` is ``<= α``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Pruning α of a node that is a leaf of the grown tree (it is a leaf at every α).
_ALWAYS_LEAF = -np.inf


def prune_alphas(tree: Any) -> np.ndarray:
    """Per node, the α from which it is a leaf of the pruned tree.

    Parameters
    ----------
    tree
        A fitted scikit-learn ``Tree`` (``estimator.tree_``).

    Returns
    -------
    numpy.ndarray
        ``-inf`` for leaves of the grown tree; for an internal node, the
        running maximum of the weakest-link ``g`` when it (or an ancestor)
        was collapsed.  Along any root-to-leaf path the values do not increase.
    """
    left = tree.children_left
    right = tree.children_right
    n = left.size
    internal = left >= 0
    parent = np.full(n, -1, dtype=np.int64)
    parent[left[internal]] = np.flatnonzero(internal)
    parent[right[internal]] = np.flatnonzero(internal)
    weight = tree.weighted_n_node_samples
    r_node = weight / weight[0] * tree.impurity
    # subtree sums over current leaves, children before parents (ids grow downwards)
    r_branch = np.where(internal, 0.0, r_node)
    leaves = (~internal).astype(np.float64)
    for node in range(n - 1, 0, -1):
        r_branch[parent[node]] += r_branch[node]
        leaves[parent[node]] += leaves[node]
    alpha = np.full(n, _ALWAYS_LEAF)
    active = internal.copy()
    running = 0.0
    while active.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(active, (r_node - r_branch) / (leaves - 1.0), np.inf)
        t = int(np.argmin(g))
        running = max(running, float(g[t]))
        # collapse t: it and every internal node below it become leaves at this α
        stack = [t]
        while stack:
            node = stack.pop()
            if active[node]:
                active[node] = False
                alpha[node] = running
                stack.extend((int(left[node]), int(right[node])))
        drop_r, drop_leaves = r_branch[t] - r_node[t], leaves[t] - 1.0
        node = t
        while node >= 0:
            r_branch[node] -= drop_r
            leaves[node] -= drop_leaves
            node = int(parent[node])
    return alpha


def _paths(tree: Any) -> tuple[np.ndarray, np.ndarray]:
    """Root-to-node paths of every node, padded with the node itself: ``(n_nodes, depth+1)``."""
    left, right = tree.children_left, tree.children_right
    n = left.size
    paths: list[list[int]] = [[] for _ in range(n)]
    paths[0] = [0]
    for node in range(n):  # parents have smaller ids than their children
        if left[node] >= 0:
            paths[int(left[node])] = paths[node] + [int(left[node])]
            paths[int(right[node])] = paths[node] + [int(right[node])]
    width = max(len(p) for p in paths)
    out = np.array([p + [p[-1]] * (width - len(p)) for p in paths], dtype=np.int64)
    return out, np.array([len(p) for p in paths])


def pruned_leaf(tree: Any, alphas: np.ndarray, leaf_ids: np.ndarray, alphas_query: np.ndarray) -> np.ndarray:
    """Node reached by each case in the tree pruned at each α.

    Parameters
    ----------
    tree
        The fitted scikit-learn ``Tree``.
    alphas
        :func:`prune_alphas` of ``tree``.
    leaf_ids
        Leaf of the grown tree for each case (``estimator.apply(X)``).
    alphas_query
        The α values, shape ``(k,)``.

    Returns
    -------
    numpy.ndarray
        ``(n_cases, k)`` node ids: the first node on the case's path that is a
        leaf of the subtree pruned at that α.
    """
    paths, _ = _paths(tree)
    path_alpha = alphas[paths]  # non-increasing along each row; the leaf is -inf
    # first position on the path whose pruning α is <= the query α
    hit = path_alpha[:, :, None] <= np.asarray(alphas_query, dtype=np.float64)[None, None, :]
    first = np.argmax(hit, axis=1)  # (n_nodes, k)
    answer = np.take_along_axis(paths[:, :, None].repeat(first.shape[1], axis=2), first[:, None, :], axis=1)[:, 0, :]
    return answer[leaf_ids]


def pruning_path(full: Any, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """scikit-learn's ``cost_complexity_pruning_path`` alphas of ``full``, a tree grown with ``ccp_alpha=0``.

    The public method regrows that same tree (same data, same ``random_state``)
    to read the path off it; its module function on the grown tree saves the
    growth.  Where that private function is missing, the public method.
    """
    try:
        from sklearn.tree._tree import ccp_pruning_path
    except ImportError:  # pragma: no cover - a scikit-learn without the private helper
        return np.asarray(full.cost_complexity_pruning_path(X, y).ccp_alphas, dtype=np.float64)
    return np.asarray(ccp_pruning_path(full.tree_)["ccp_alphas"], dtype=np.float64)


def pruned_at(full: Any, alpha: float, X: np.ndarray, y: np.ndarray) -> Any:
    """``full`` (grown with ``ccp_alpha=0``) pruned at ``alpha``, in place: the tree ``fit`` with ``ccp_alpha=alpha`` grows.

    scikit-learn's ``fit`` grows the full tree and then prunes it
    (``_prune_tree``); calling that step on the grown tree skips the regrowth.
    Where the private step is missing, a refit.
    """
    full.set_params(ccp_alpha=alpha)
    prune = getattr(full, "_prune_tree", None)
    if prune is None:  # pragma: no cover - a scikit-learn without the private step
        return full.fit(X, y)
    prune()
    return full


def choose_alpha(errors: np.ndarray, candidates: np.ndarray) -> float:
    """The α of fewest inner-CV errors; ties go to the largest α (the smallest tree).

    Parameters
    ----------
    errors
        Total inner-CV errors per candidate.
    candidates
        The candidate α values, same length.
    """
    errors = np.asarray(errors)
    best = np.flatnonzero(errors == errors.min())
    return float(np.max(np.asarray(candidates, dtype=np.float64)[best]))


def inner_cv_errors(
    X: np.ndarray, y: np.ndarray, candidates: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]],
    random_state: int, **tree_params: Any,
) -> np.ndarray:
    """Total misclassifications over the inner folds of the tree pruned at each candidate α."""
    from sklearn.tree import DecisionTreeClassifier

    errors = np.zeros(len(candidates), dtype=np.int64)
    for train, test in folds:
        model = DecisionTreeClassifier(random_state=random_state, **tree_params).fit(X[train], y[train])
        alphas = prune_alphas(model.tree_)
        nodes = pruned_leaf(model.tree_, alphas, model.apply(X[test]), candidates)
        predicted = model.classes_[np.argmax(model.tree_.value[:, 0, :], axis=1)][nodes]
        errors += (predicted != y[test][:, None]).sum(axis=0)
    return errors
