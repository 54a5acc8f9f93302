"""Random trees on one dataset: tree entropy against size and test accuracy (paper 000, Figs. 2-3).

Paper 000 (Serrurier & Prade, ICML 2015, §5): "we split the database in a
90% (training)/10% (test) scheme, we generate 10 random trees of random sizes
(i.e. attribute for a node is chosen randomly and the threshold is chosen
alternatively with classical entropy, and with possibilistic cumulative
entropy on the training set), we evaluate the entropy of the tree on the
training set and its accuracy on the test set, we repeat this process 1000
times."

:func:`random_trees` does exactly that and returns one tidy row per tree and
threshold rule.  The readings chosen where the paper is silent (all in
``docs/reports.md``):

* **counts**: ``n_repetitions`` (1000) random 90/10 splits; on each split
  ``n_trees`` (10) random trees; every tree is grown *twice* from the same
  random stream and the same target size, once with each threshold rule
  (``"log"``, ``"possibilistic"``), so the two rules are paired.  Default
  total: 1000 x 10 x 2 = 20,000 trees.
* **split**: a plain (unstratified) random permutation; the first
  ``round(0.1 n)`` examples are the test set.
* **size**: the target number of leaves is uniform on ``1..max_leaves``
  (``max_leaves = 200``, far beyond what yeast's 1,336 training examples
  support).  A tree stops earlier when no leaf can be split.
* **growth**: while the tree has fewer leaves than its target, a leaf is drawn
  uniformly among the splittable leaves, an attribute uniformly among the
  attributes with at least two distinct values in that leaf, and the leaf is
  split at the best threshold of that attribute under the rule.  A leaf is
  splittable when it holds two classes or more (a pure leaf is final, as in
  any tree learner) and some attribute takes two distinct values in it.
* **thresholds**: the candidates of the attribute only (midpoints between
  consecutive distinct values, ``x <= t`` goes left, as ``TreeClassifier``);
  the rule's ``split_scores(parent, children)`` ranks them (classical:
  information gain of ``get("entropy")``; possibilistic: eq. 17 of
  ``get("possibilistic", gamma=gamma)``, computed here by a vectorised copy of
  the same formula that the tests check against ``split_scores``), ties to the
  smallest threshold.  The possibilistic gain may be negative: a random tree
  is split anyway (its size is drawn, not learnt).
* **measures**, for every tree whatever its rule:
  ``entropy`` = ``sum_l n_l / N * H(p_l)`` in bits, the classical training
  entropy of the tree (the weighted mean leaf entropy, i.e. the conditional
  entropy of the class given the leaf; it never increases when a leaf is
  split); ``h_star_weighted`` = ``sum_l n_l / N * H*(p_l, n_l, gamma)``, the
  reading of eq. 18 the figures show by default (the text's reasons are in
  :data:`treebench.papers.serrurier2015.figures.READING`); ``h_star`` = eq. 18
  as printed, ``sum_l H*(p_l, n_l, gamma)`` (not weighted), the value of
  ``get("possibilistic", gamma=gamma).tree_quality(leaf_counts)``, drawn beside it;
  ``accuracy`` on the test set, a leaf predicting its majority training
  class (ties to the lowest class code).  ``gamma`` defaults to 0.05: the
  paper does not say which value its figures use.
* **seeds**: repetition ``i`` draws from ``SeedSequence(seed).spawn(...)[i]``,
  so the output depends on ``seed`` only (not on ``n_jobs``), and a run with
  fewer repetitions is the first rows of a longer one.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from treebench import criteria
from treebench.criteria.possibilistic import dunn_sidak, z_value

RULES = ("log", "possibilistic")
COLUMNS = ["repetition", "tree", "rule", "target_leaves", "n_leaves", "entropy", "h_star", "h_star_weighted",
           "accuracy", "train_accuracy"]
#: Bumped when the output's columns or definitions change (invalidates report caches).
VERSION = 2


@dataclass(frozen=True)
class RandomTreeSettings:
    """Parameters of :func:`random_trees` (the paper's values are the defaults)."""

    n_repetitions: int = 1000
    n_trees: int = 10
    max_leaves: int = 200
    gamma: float = 0.05
    test_fraction: float = 0.1
    seed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


# -- measures (vectorised over rows) -------------------------------------------------
def shannon_bits(counts: np.ndarray) -> np.ndarray:
    """Shannon entropy (bits) of every count row; 0 for an empty row."""
    counts = np.asarray(counts, dtype=float)
    n = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, n, out=np.zeros_like(counts), where=n > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return -terms.sum(axis=-1) + 0.0


def possibilistic_rows(counts: np.ndarray, z: float) -> np.ndarray:
    """``H*_{pi-l}(p, n, gamma)`` (eq. 15) of every count row, as
    :func:`treebench.criteria.possibilistic.possibilistic_entropy` (an empty row scores 1)."""
    counts = np.asarray(counts, dtype=float)
    q = counts.shape[-1]
    n = counts.sum(axis=-1, keepdims=True)
    cumulative = np.cumsum(np.sort(counts, axis=-1), axis=-1)
    safe_n = np.where(n > 0, n, 1.0)
    t_star = cumulative / safe_n
    n_tilde = safe_n + z * z
    p_tilde = (cumulative + 0.5 * z * z) / n_tilde
    pi = np.minimum(p_tilde + z * np.sqrt(p_tilde * (1.0 - p_tilde) / n_tilde), 1.0)
    pi[..., -1] = 1.0
    loss = t_star / 2.0 * np.log(pi / 2.0) + (1.0 - t_star / 2.0) * np.log(1.0 - pi / 2.0)
    value = -loss.sum(axis=-1) / (q * math.log(2.0))
    return np.where(n[..., 0] > 0, value, 1.0)


def tree_entropy(leaf_counts: np.ndarray) -> float:
    """Classical training entropy of a tree: ``sum_l n_l / N * H(p_l)`` (bits)."""
    leaf_counts = np.asarray(leaf_counts, dtype=float)
    sizes = leaf_counts.sum(axis=1)
    return float((sizes / sizes.sum()) @ shannon_bits(leaf_counts))


def tree_h_star(leaf_counts: np.ndarray, gamma: float, *, weighted: bool = False) -> float:
    """Eq. 18: ``sum_l H*(p_l, n_l, gamma)`` (equals ``Possibilistic.tree_quality``).

    ``weighted=True`` gives the alternative reading ``sum_l n_l / N * H*(p_l, n_l, gamma)``
    (weighted like the classical tree entropy and like the children of eq. 17).
    """
    values = possibilistic_rows(leaf_counts, z_value(gamma))
    if weighted:
        sizes = np.asarray(leaf_counts, dtype=float).sum(axis=1)
        return float((sizes / sizes.sum()) @ values)
    return float(values.sum())


class _PossibilisticGain:
    """Eq. 17 for binary candidates, vectorised; equals ``get("possibilistic").split_scores``."""

    def __init__(self, gamma: float):
        self.z_parent = z_value(gamma)
        self.z_child = z_value(dunn_sidak(gamma, 2))

    def split_scores(self, parent: np.ndarray, children: np.ndarray) -> np.ndarray:
        children = np.asarray(children, dtype=float)
        sizes = children.sum(axis=2)
        weights = sizes / sizes.sum(axis=1, keepdims=True)
        parent_value = possibilistic_rows(np.asarray(parent, dtype=float)[None, :], self.z_parent)[0]
        child_values = possibilistic_rows(children, self.z_child)
        return parent_value - (weights * np.where(sizes > 0, child_values, 0.0)).sum(axis=1)


class _InformationGain:
    """Information gain in bits (eq. 16) for binary candidates; equals ``get("entropy").split_scores``."""

    def split_scores(self, parent: np.ndarray, children: np.ndarray) -> np.ndarray:
        children = np.asarray(children, dtype=float)
        sizes = children.sum(axis=2)
        weights = sizes / sizes.sum(axis=1, keepdims=True)
        return shannon_bits(np.asarray(parent, dtype=float)) - (weights * shannon_bits(children)).sum(axis=1)


class _KernelScorer:
    """The compiled scoring kernel of a built-in criterion (``treebench.kernels.scoring``,
    tested there against the criterion's ``split_scores``); 10x faster on small leaves."""

    def __init__(self, criterion: criteria.Criterion):
        from treebench.kernels.scoring import score_children

        self._score = score_children
        self.cid = criterion.kernel_id
        self.params = np.asarray(criterion.kernel_params(2), dtype=float)

    def split_scores(self, parent: np.ndarray, children: np.ndarray) -> np.ndarray:
        return self._score(self.cid, self.params, np.ascontiguousarray(parent, dtype=np.int64),
                           np.ascontiguousarray(children, dtype=np.int64))[1]


@functools.lru_cache(maxsize=16)
def _scorer(rule: str, gamma: float, engine: str = "kernel"):
    """The threshold rule's scorer: ``engine="kernel"`` (compiled) or ``"numpy"`` (the vectorised copies)."""
    if rule not in RULES:
        raise ValueError(f"unknown threshold rule {rule!r}; accepted: {', '.join(RULES)}")
    if engine == "kernel":
        crit = criteria.get("entropy") if rule == "log" else criteria.get("possibilistic", gamma=gamma)
        return _KernelScorer(crit)
    if rule == "log":
        return _InformationGain()
    if rule == "possibilistic":
        return _PossibilisticGain(gamma)
    raise ValueError(f"unknown threshold rule {rule!r}; accepted: {', '.join(RULES)}")


# -- one random tree -----------------------------------------------------------------
@dataclass
class _Split:
    """A training/test split, as arrays (``y`` are class codes ``0..k-1``)."""

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    k: int


def grow_random_tree(
    data: _Split,
    rule: str,
    target_leaves: int,
    rng: np.random.Generator,
    gamma: float = 0.05,
    *,
    history: bool = False,
    engine: str = "compiled",
) -> dict[str, Any]:
    """Grow one random tree to ``target_leaves`` leaves (or until no leaf can be split).

    The tree is kept as its leaves only (the training and test examples of
    each leaf), which is all the measures need.  Returns the final
    ``n_leaves``, ``entropy``, ``h_star``, ``accuracy``, ``train_accuracy`` and
    ``leaf_counts`` (leaves x classes); with ``history=True`` also
    ``history``: the leaf counts after every split (the first entry is the root).
    ``engine="compiled"`` (the default) grows the tree in one compiled call
    (:func:`treebench.kernels.random_tree.grow_random_leaves`, same draws,
    same tree); ``"kernel"`` runs this Python loop with the compiled scorer,
    ``"numpy"`` with the numpy copies of the formulas (the tests' oracles).
    ``history=True`` takes the Python loop.
    """
    if engine == "compiled" and not history:
        return _grow_compiled(data, rule, target_leaves, rng, gamma)
    engine = "kernel" if engine == "compiled" else engine
    X, y, Xt, yt, k = data.X, data.y, data.X_test, data.y_test, data.k
    scorer = _scorer(rule, gamma, engine)
    members = [np.arange(len(y))]
    members_test = [np.arange(len(yt))]
    counts = [np.bincount(y, minlength=k).astype(np.int64)]
    open_leaves = [0] if np.count_nonzero(counts[0]) > 1 else []
    steps = [np.array(counts)] if history else None
    onehot = np.eye(k, dtype=np.int64)
    while len(counts) < target_leaves and open_leaves:
        pick = int(rng.integers(len(open_leaves)))
        node = open_leaves[pick]
        idx = members[node]
        sub = X[idx]
        usable = np.flatnonzero(sub.max(axis=0) > sub.min(axis=0))
        if usable.size == 0:
            open_leaves.pop(pick)
            continue
        a = int(usable[rng.integers(usable.size)])
        column = sub[:, a]
        o = np.argsort(column, kind="stable")
        values = column[o]
        cum = np.cumsum(onehot[y[idx[o]]], axis=0)
        pos = np.flatnonzero(values[1:] > values[:-1])
        left = cum[pos]
        children = np.stack([left, cum[-1] - left], axis=1)
        scores = scorer.split_scores(cum[-1], children)
        best = int(np.argmax(scores))  # first maximum: smallest threshold
        cut = pos[best] + 1
        threshold = 0.5 * (values[cut - 1] + values[cut])
        t_idx = members_test[node]
        goes_right = Xt[t_idx, a] > threshold
        members[node], new_members = idx[o[:cut]], idx[o[cut:]]
        members_test[node], new_test = t_idx[~goes_right], t_idx[goes_right]
        members.append(new_members)
        members_test.append(new_test)
        new = len(counts)
        counts[node] = children[best, 0].copy()
        counts.append(children[best, 1].copy())
        open_leaves.append(new)
        if np.count_nonzero(counts[new]) < 2:
            open_leaves.pop()
        if np.count_nonzero(counts[node]) < 2:
            open_leaves.pop(pick)
        if history:
            steps.append(np.array(counts))
    leaf_counts = np.array(counts)
    predicted = leaf_counts.argmax(axis=1)
    correct = sum(int(np.count_nonzero(yt[m] == c)) for m, c in zip(members_test, predicted))
    out = _measures(leaf_counts, correct, len(y), len(yt), gamma)
    if history:
        out["history"] = steps
    return out


def _grow_compiled(data: _Split, rule: str, target_leaves: int, rng: np.random.Generator, gamma: float) -> dict:
    """:func:`grow_random_tree` in one compiled call (same draws from ``rng``, same tree)."""
    from treebench.kernels.random_tree import grow_random_leaves

    scorer = _scorer(rule, gamma, "kernel")
    leaf_counts, correct = grow_random_leaves(
        data.X, data.y, data.X_test, data.y_test, data.k, scorer.cid, scorer.params, int(target_leaves), rng)
    return _measures(leaf_counts, int(correct), len(data.y), len(data.y_test), gamma)


def _measures(leaf_counts: np.ndarray, correct: int, n_train: int, n_test: int, gamma: float) -> dict[str, Any]:
    """A grown random tree's measures (see :func:`grow_random_tree`)."""
    return {
        "n_leaves": len(leaf_counts),
        "entropy": tree_entropy(leaf_counts),
        "h_star": tree_h_star(leaf_counts, gamma),
        "h_star_weighted": tree_h_star(leaf_counts, gamma, weighted=True),
        "accuracy": correct / n_test if n_test else math.nan,
        "train_accuracy": float(leaf_counts.max(axis=1).sum() / n_train),
        "leaf_counts": leaf_counts,
    }


# -- the experiment ------------------------------------------------------------------
def _arrays(dataset: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """``(X, y, k)`` from a :class:`~treebench.data.Dataset`, a dataset name, or an ``(X, y)`` pair."""
    if isinstance(dataset, str):
        from treebench.data import load

        dataset = load(dataset)
    if isinstance(dataset, tuple):
        X, y = dataset
        k = int(np.max(y)) + 1
    else:
        kinds = getattr(dataset, "feature_kinds", {})
        numeric = [c for c in dataset.X.columns if kinds.get(c, "numeric") == "numeric"]
        X, y, k = dataset.X[numeric], dataset.y, len(dataset.classes)
    X = np.asarray(X, dtype=float)
    if np.isnan(X).any():
        raise ValueError("random trees need complete numeric features (NaN found)")
    return X, np.asarray(y, dtype=np.int64), k


def _repetition(X, y, k, rep: int, seq: np.random.SeedSequence, s: RandomTreeSettings) -> list[dict]:
    rng = np.random.default_rng(seq)
    n = len(y)
    perm = rng.permutation(n)
    n_test = int(round(s.test_fraction * n))
    test, train = perm[:n_test], perm[n_test:]
    data = _Split(X[train], y[train], X[test], y[test], k)
    rows = []
    for t in range(s.n_trees):
        target = int(rng.integers(1, s.max_leaves + 1))
        tree_seed = int(rng.integers(2**63))
        for rule in RULES:
            res = grow_random_tree(data, rule, target, np.random.default_rng(tree_seed), s.gamma)
            rows.append({"repetition": rep, "tree": t, "rule": rule, "target_leaves": target,
                         **{c: res[c] for c in COLUMNS[4:]}})
    return rows


def _chunk(X, y, k, reps: list[int], seqs: list[np.random.SeedSequence], s: RandomTreeSettings) -> list[dict]:
    return [row for rep, seq in zip(reps, seqs) for row in _repetition(X, y, k, rep, seq, s)]


def random_trees(
    dataset: Any = "yeast",
    *,
    n_repetitions: int = 1000,
    n_trees: int = 10,
    max_leaves: int = 200,
    gamma: float = 0.05,
    test_fraction: float = 0.1,
    seed: int = 0,
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """Paper 000's random-tree experiment (Figs. 2-3); see the module docstring.

    Parameters
    ----------
    dataset
        A :class:`~treebench.data.Dataset`, a dataset name (``"yeast"``) or an
        ``(X, y)`` pair with class codes ``0..k-1``.  Only numeric features are used.
    n_repetitions, n_trees
        Random 90/10 splits, and random trees per split (each grown once per rule).
    max_leaves
        Target sizes are uniform on ``1..max_leaves``.
    gamma
        Level of eq. 17 (thresholds) and eq. 18 (``h_star``).
    seed
        The output is a function of ``seed`` (and the other arguments) only.
    n_jobs
        Worker processes (default: all cores, at most ``n_repetitions``).

    Returns
    -------
    DataFrame
        One row per repetition, tree and rule: ``repetition``, ``tree``,
        ``rule``, ``target_leaves``, ``n_leaves``, ``entropy`` (bits),
        ``h_star`` (eq. 18 as printed), ``h_star_weighted`` (eq. 18 weighted,
        the figures' default reading), ``accuracy`` (test), ``train_accuracy``.
    """
    s = RandomTreeSettings(n_repetitions, n_trees, max_leaves, gamma, test_fraction, seed)
    if n_repetitions < 1 or n_trees < 1 or max_leaves < 1 or not 0 < test_fraction < 1:
        raise ValueError(f"invalid random-tree settings: {s}")
    X, y, k = _arrays(dataset)
    seqs = np.random.SeedSequence(seed).spawn(n_repetitions)
    reps = list(range(n_repetitions))
    jobs = min(n_jobs or os.cpu_count() or 1, n_repetitions)
    if jobs <= 1:
        rows = _chunk(X, y, k, reps, seqs, s)
    else:
        from joblib import Parallel, delayed

        parts = np.array_split(np.arange(n_repetitions), jobs * 4)
        chunks = Parallel(n_jobs=jobs)(
            delayed(_chunk)(X, y, k, [reps[i] for i in p], [seqs[i] for i in p], s) for p in parts if len(p)
        )
        rows = [row for chunk in chunks for row in chunk]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["rule"] = frame["rule"].astype(str)
    return frame
