"""Generic split search for any criterion object (plain numpy, slower).

This is the extensibility path: a criterion written as a few lines of numpy
(``node_value`` and ``split_scores``) grows trees here.  It follows exactly the
rules of the compiled builder -- candidates, stopping, tie-breaking, missing
values, sample weights -- which lets the tests check each engine against the
other.  With sample weights a criterion receives float counts (sums of
weights); the stopping rules still count samples.
"""

from __future__ import annotations

import numpy as np

from treebench.criteria import Criterion, SplitContext
from treebench.criteria.base import better, ties
from treebench.kernels import layout as L
from treebench.kernels.ties import pick_tied
from treebench.trees.settings import GrowSettings


def score_candidates(criterion: Criterion, parent, children, context) -> tuple[int, float, float, float]:
    """Index, candidate, split and tie scores of one feature's best candidate (-1 if none)."""
    cand = np.asarray(criterion.candidate_scores(parent, children, context), dtype=float)
    final = np.asarray(criterion.split_scores(parent, children, context), dtype=float)
    tie = criterion.tie_scores(parent, children, context)
    best = first_best(cand, None if tie is None else np.asarray(tie, dtype=float))
    if best < 0 or np.isnan(final[best]):
        return -1, -np.inf, -np.inf, -np.inf
    return best, float(cand[best]), float(final[best]), -np.inf if tie is None else float(tie[best])


def first_best(scores: np.ndarray, tie_scores: np.ndarray | None = None) -> int:
    """Index of the best score (-1 if none is finite).

    Earlier candidates win ties, unless ``tie_scores`` ranks tied candidates
    -- the same rule as the compiled scan.
    """
    best_index, best, best_tie = -1, -np.inf, -np.inf
    for index, score in enumerate(scores):
        if not np.isfinite(score) and score != np.inf:
            continue
        if tie_scores is None:
            take = best_index < 0 or better(score, best)
        else:
            take = better(score, best) or (ties(score, best) and better(tie_scores[index], best_tie))
        if take:
            best_index, best = index, float(score)
            best_tie = -np.inf if tie_scores is None else float(tie_scores[index])
    return best_index


class _Nodes:
    """Growable node storage with the kernel layout."""

    def __init__(self, n_classes: int, count_dtype: type = np.int64) -> None:
        self.ints: list[np.ndarray] = []
        self.floats: list[np.ndarray] = []
        self.counts: list[np.ndarray] = []
        self.catmap: list[int] = []
        self.n_classes = n_classes
        self.count_dtype = count_dtype

    def add(self, depth: int) -> int:
        row = np.full(L.N_INT_FIELDS, -1, np.int64)
        row[L.DEPTH] = depth
        row[L.KIND] = L.LEAF
        self.ints.append(row)
        self.floats.append(np.zeros(L.N_FLOAT_FIELDS))
        self.counts.append(np.zeros(self.n_classes, self.count_dtype))
        return len(self.ints) - 1

    def arrays(self):
        return (
            np.vstack(self.ints),
            np.vstack(self.floats),
            np.vstack(self.counts),
            np.asarray(self.catmap, dtype=np.int64),
        )


def class_counts(labels: np.ndarray, weights: np.ndarray | None, n_classes: int) -> np.ndarray:
    """Class counts (int64), or sums of weights (float64) when ``weights`` are given."""
    if weights is None:
        return np.bincount(labels, minlength=n_classes).astype(np.int64)
    return np.bincount(labels, weights=weights, minlength=n_classes)


def _numeric_candidates(values, labels, weights, parent, n_classes, settings: GrowSettings):
    """Children counts (m, 2, k), left sizes (samples) and thresholds of one numeric feature."""
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    one_hot = np.zeros((len(values), n_classes), parent.dtype)
    one_hot[np.arange(len(values)), labels[order]] = 1 if weights is None else weights[order]
    left = np.cumsum(one_hot, axis=0)[:-1]
    n_left = np.arange(1, len(values))
    here, after = sorted_values[:-1], sorted_values[1:]
    valid = (
        (n_left >= settings.min_samples_leaf)
        & (len(values) - n_left >= settings.min_samples_leaf)
        & ~np.isnan(here)
        & (np.isnan(after) | (after > here))
    )
    positions = np.flatnonzero(valid)
    children = np.stack([left[positions], parent[None, :] - left[positions]], axis=1)
    lo, hi = here[positions], after[positions]
    if settings.threshold == "midpoint":
        with np.errstate(over="ignore", invalid="ignore"):
            mid = lo / 2.0 + hi / 2.0
        thresholds = np.where(np.isnan(hi) | (mid == hi) | np.isinf(mid), lo, mid)
    else:
        thresholds = lo
    return order, sorted_values, children, n_left[positions], thresholds


def build_generic(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    is_nominal: np.ndarray,
    n_categories: np.ndarray,
    criterion: Criterion,
    settings: GrowSettings,
    sample_data: np.ndarray | None = None,
    sample_weight: np.ndarray | None = None,
    tie_stream: np.ndarray | None = None,
):
    """Grow a tree with ``criterion``'s numpy methods; returns the kernel arrays.

    ``tie_stream`` (``feature_ties="random"``): the stream the compiled builder
    would draw tied features from (:func:`treebench.kernels.ties.pick_tied`,
    the same draws at the same nodes); ``None``: the first tied feature.

    ``sample_weight`` (positive, one per row, or ``None``) makes every class
    count a sum of weights (float64 ``counts``).
    """
    n, d = X.shape
    nodes = _Nodes(n_classes, np.int64 if sample_weight is None else np.float64)
    root = nodes.add(0)
    stack = [(root, np.arange(n))]
    binary = settings.nominal_split == "binary"
    while stack:
        node, samples = stack.pop()
        depth = int(nodes.ints[node][L.DEPTH])
        labels = y[samples]
        weights = None if sample_weight is None else sample_weight[samples]
        parent = class_counts(labels, weights, n_classes)
        nodes.counts[node][:] = parent
        nodes.floats[node][L.IMPURITY] = criterion.node_value(parent)
        size = len(samples)
        if (
            size < settings.min_samples_split
            or size < 2 * settings.min_samples_leaf
            or np.count_nonzero(parent) <= 1
            or (settings.max_depth is not None and depth >= settings.max_depth)
        ):
            continue

        candidate_best = np.full(d, -np.inf)
        split_best = np.full(d, -np.inf)
        tie_best = np.full(d, -np.inf)
        plans: list[tuple | None] = [None] * d
        for f in range(d):
            values = X[samples, f]
            if not is_nominal[f]:
                order, sorted_values, children, n_left, thresholds = _numeric_candidates(
                    values, labels, weights, parent, n_classes, settings
                )
                if len(children) == 0:
                    continue
                context = SplitContext(f, "numeric", sorted_values, samples[order], n_left, thresholds, sample_data)
                best, candidate_best[f], split_best[f], tie_best[f] = score_candidates(
                    criterion, parent, children, context
                )
                if best < 0:
                    continue
                plans[f] = ("numeric", samples[order[: n_left[best]]], float(thresholds[best]))
                continue
            codes = values.astype(np.int64)
            present = np.unique(codes)
            if len(present) < 2:
                continue
            category = np.searchsorted(present, codes)
            table = np.zeros((len(present), n_classes), parent.dtype)
            np.add.at(table, (category, labels), 1 if weights is None else weights)
            sizes = np.bincount(category, minlength=len(present))  # samples, for min_samples_leaf
            order = np.argsort(codes, kind="stable")
            context = SplitContext(f, "nominal", values[order], samples[order], None, None, sample_data)
            if not binary:
                if sizes.min() < settings.min_samples_leaf:
                    continue
                best, candidate_best[f], split_best[f], tie_best[f] = score_candidates(
                    criterion, parent, table[None, :, :], context
                )
                if best < 0:
                    continue
                plans[f] = ("multiway", present, table.sum(axis=1))  # the heaviest takes unseen categories
                continue
            keep = (sizes >= settings.min_samples_leaf) & (size - sizes >= settings.min_samples_leaf)
            if not keep.any():
                continue
            children = np.stack([table[keep], parent[None, :] - table[keep]], axis=1)
            best, candidate_best[f], split_best[f], tie_best[f] = score_candidates(
                criterion, parent, children, context
            )
            if best < 0:
                continue
            plans[f] = ("binary", int(present[keep][best]))

        has_ties = np.isfinite(tie_best).any()
        chosen = criterion.select_feature(candidate_best, split_best, tie_best if has_ties else None)
        if chosen < 0 or not criterion.accepts(float(split_best[chosen])):
            continue
        if tie_stream is not None:  # as the compiled builder: drawn for an accepted split only
            chosen = int(pick_tied(chosen, candidate_best, split_best, tie_best, bool(has_ties),
                                   bool(criterion.average_gain_rule), tie_stream))

        plan = plans[chosen]
        codes = X[samples, chosen]
        if plan[0] == "numeric":
            kind = L.NUMERIC
            goes_left = np.isin(samples, plan[1])
            groups = [samples[goes_left], samples[~goes_left]]
            nodes.floats[node][L.THRESHOLD] = plan[2]
        elif plan[0] == "binary":
            kind = L.NOMINAL_BINARY
            goes_left = codes.astype(np.int64) == plan[1]
            groups = [samples[goes_left], samples[~goes_left]]
            nodes.ints[node][L.CATEGORY] = plan[1]
        else:
            kind = L.NOMINAL_MULTIWAY
            present, group_sizes = plan[1], plan[2]
            groups = [samples[codes.astype(np.int64) == code] for code in present]
            mapping = np.full(int(n_categories[chosen]), -1, np.int64)
            mapping[present] = np.arange(len(present))
            nodes.ints[node][L.CATMAP_START] = len(nodes.catmap)
            nodes.ints[node][L.DEFAULT_CHILD] = int(np.argmax(group_sizes))
            nodes.catmap.extend(mapping.tolist())

        first_child = len(nodes.ints)
        for _ in groups:
            nodes.add(depth + 1)
        row = nodes.ints[node]
        row[L.FEATURE], row[L.KIND] = chosen, kind
        row[L.CHILD_START], row[L.N_CHILDREN] = first_child, len(groups)
        nodes.floats[node][L.SCORE] = split_best[chosen]
        for j in reversed(range(len(groups))):
            stack.append((first_child + j, groups[j]))
    return nodes.arrays()
