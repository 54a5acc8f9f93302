"""Grow a tree: the sort-once presort and engine dispatch.

Built-in criteria run the compiled induction (:mod:`treebench.kernels.induction`);
any other criterion -- a user's plain-numpy class -- runs the generic split
search of :mod:`treebench.trees.generic`.  Both produce the same arrays and
follow the same rules (stopping, tie-breaking, missing values), so for a
built-in criterion they grow the same tree.  The stopping rules and split
forms both follow are :class:`treebench.trees.settings.GrowSettings`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from treebench.criteria import Criterion
from treebench.criteria.builtin import whole_split_marker
from treebench.errors import TreebenchError
from treebench.kernels.arrays import read_only
from treebench.kernels.counted_row import fill_counted_row
from treebench.kernels.induction import build
from treebench.kernels.partition import fill_sorted_row
from treebench.kernels.rank_tables import table_marker
from treebench.kernels.sort_order import stable_order
from treebench.trees.encoding import FeatureEncoder
from treebench.trees.generic import build_generic
from treebench.trees.settings import GrowSettings, validate_tree_param
from treebench.trees.structure import Tree

#: Largest rank a uint16 rank row holds: a numeric column's NaN rank is its
#: count of distinct values, so up to 65,535 of them.
RANK16_MAX = 2**16 - 1

#: Most branches of a multiway split: the compiled builder routes samples to
#: children through a uint16 per sample (the missing code is a category too).
MAX_BRANCHES = 2**16


@dataclass
class Presorted:
    """Every feature sorted once: sample ids, value ranks and labels, (d, n).

    Numeric ranks are dense (``0..m-1`` over the feature's ``m`` distinct
    values) and NaN sorts last with the rank ``n_levels[f] = m``; nominal
    ranks are the category codes.  Ranks are uint16 while every column fits
    (``m <= 65535`` and codes below 65,536), else int32: seven bytes per cell
    with int32 ids and uint8 labels, nine with int32 ranks.  No copy of the
    values is kept (thresholds are read from the matrix the tree is grown on).  The compiled builder partitions
    ``index``, ``rank`` and ``label`` in place, so reuse across fits (e.g. a
    tuning grid on the same training data) goes through :meth:`copy`.
    """

    index: np.ndarray
    rank: np.ndarray
    label: np.ndarray
    n_levels: np.ndarray

    @classmethod
    def from_matrix(cls, X: np.ndarray, y: np.ndarray, is_nominal: np.ndarray | None = None) -> Presorted:
        """Sort the columns of ``X`` (n, d); ``is_nominal[f]`` marks columns of category codes."""
        n, d = X.shape
        nominal = np.zeros(d, bool) if is_nominal is None else np.asarray(is_nominal, bool)
        # narrow labels cut the memory traffic of every scan and partition
        labels = y.astype(np.uint8 if int(y.max(initial=0)) < 256 else np.int32)
        index = np.empty((d, n), np.int32 if n < 2**31 else np.int64)
        label = np.empty((d, n), labels.dtype)
        n_levels = np.zeros(d, np.int64)
        # Narrow ranks unless a column cannot fit.  Nominal codes are known up
        # front, distinct numeric values only once sorted.  Above 65,535 rows
        # the first column is ranked into an int32 array and decides: if it
        # fits, the array is narrowed; then a later numeric column goes
        # through an int32 scratch row and widens the array if it does not
        # fit.  Continuous data thus fills its int32 array directly, with no
        # large block allocated and dropped before the build (a freed block
        # that size raises glibc's mmap threshold, and later buffers stay resident).
        wide = bool(nominal.any()) and float(np.nanmax(X[:, nominal], initial=0.0)) > RANK16_MAX
        rank = np.empty((d, n), np.int32 if wide or n > RANK16_MAX else np.uint16)
        scratch = None
        slot_of = np.empty(n, np.int64)
        for f in range(d):
            # Column by column, one contiguous copy alive at a time: numpy's
            # 2-D argsort along rows is about twice as slow here.  A column of
            # few distinct values is sorted by counting; whole numbers of a
            # narrow span are radix-sorted, the others timsorted (the fastest
            # on real columns, with their long runs of equal values).
            column = read_only(np.ascontiguousarray(X[:, f], dtype=np.float64))
            if not nominal[f]:
                levels = fill_counted_row(column, column.view(np.uint64), labels, index[f], rank[f], label[f], slot_of)
                if levels >= 0:
                    n_levels[f] = levels
                    if f == 0 and not wide and n > RANK16_MAX:  # at most MAX_COUNTED levels: narrow
                        narrow = np.empty((d, n), np.uint16)
                        narrow[0] = rank[0]
                        rank = narrow
                    continue
            order = stable_order(column)
            if rank.dtype == np.uint16 and n > RANK16_MAX and not nominal[f]:
                scratch = np.empty(n, np.int32) if scratch is None else scratch
                n_levels[f] = fill_sorted_row(column, order, labels, False, index[f], scratch, label[f])
                if n_levels[f] > RANK16_MAX:  # widen, copying only the rows filled so far
                    narrow, rank = rank, np.empty((d, n), np.int32)
                    rank[:f] = narrow[:f]
                    del narrow
                rank[f] = scratch
                continue
            n_levels[f] = fill_sorted_row(column, order, labels, bool(nominal[f]), index[f], rank[f], label[f])
            if f == 0 and not wide and n > RANK16_MAX and (nominal[f] or n_levels[f] <= RANK16_MAX):
                narrow = np.empty((d, n), np.uint16)
                narrow[0] = rank[0]
                rank = narrow
        return cls(index, rank, label, n_levels)

    @classmethod
    def for_fit(cls, X: Any, y: Any) -> Presorted:
        """The presort ``TreeClassifier(...).fit(X, y)`` makes: the same encoding and label codes.

        Lets every fit of a grid on one training set share a single sort (pass
        it as ``fit(..., presorted=...)``, which copies it).
        """
        # the estimator layer's label checks (and scikit-learn with them): imported here, on use
        from treebench.trees.fitted import label_codes

        encoder, matrix = FeatureEncoder.fit(X)
        return cls.from_matrix(matrix, label_codes(y)[1], encoder.is_nominal)

    def copy(self) -> Presorted:
        return Presorted(self.index.copy(), self.rank.copy(), self.label.copy(), self.n_levels)

    def widened(self) -> Presorted:
        """A copy with int32 ranks, as columns of more than 65,535 distinct values get.

        The builder is compiled once per rank width; this reaches the int32 one
        on small data (tests, benchmark warm-ups).
        """
        return Presorted(self.index.copy(), self.rank.astype(np.int32), self.label.copy(), self.n_levels)


def grow(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    encoder: FeatureEncoder,
    criterion: Criterion,
    settings: GrowSettings,
    *,
    classes: list | None = None,
    engine: str = "auto",
    sample_data: np.ndarray | None = None,
    presorted: Presorted | None = None,
    sample_weight: np.ndarray | None = None,
    tie_stream: np.ndarray | None = None,
) -> Tree:
    """Grow a tree on the encoded matrix ``X`` (n, d) and labels ``y`` in ``0..k-1``.

    ``presorted`` is consumed (partitioned in place); pass a copy to keep it.
    ``sample_weight`` (positive float64, one per row, or ``None``) makes the
    class counts sums of weights: the tree's ``counts`` are then float64.
    Both engines take weights; the compiled one runs a version compiled for
    them (see :mod:`treebench.kernels.induction`).  ``tie_stream`` (with
    ``settings.feature_ties == "random"``, else ignored): the one-element uint64
    stream tied features are drawn from (:mod:`treebench.kernels.ties`),
    advanced in place; both engines draw the same numbers at the same nodes.
    """
    validate_tree_param("engine", engine, python=True)
    if X.shape[0] == 0:
        raise TreebenchError("cannot grow a tree on 0 samples")
    if X.shape[1] == 0:
        raise TreebenchError(f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
    if criterion.learner_kind == "mee":  # the MEE split rule needs the feature values: its own builder
        raise TreebenchError(
            f"criterion {criterion.name!r} grows its own trees; use treebench.trees.mee.MEETreeClassifier"
        )
    is_nominal = encoder.is_nominal
    binary_nominal = settings.nominal_split == "binary" and bool(is_nominal.any())
    # per-example data reaches the kernel only for a criterion that scores it there, and then
    # without weights and binary nominal splits (which the numpy criterion scores on counts)
    kernel_data = sample_data is None or (
        sample_weight is None and not binary_nominal and criterion.kernel_takes(sample_data, n_classes)
    )
    use_kernel = criterion.kernel_id >= 0 and engine != "python" and kernel_data
    if engine == "numba" and not use_kernel:
        raise TreebenchError(
            f"criterion {criterion.name!r} has no compiled kernel"
            + ("" if kernel_data else " for this sample_data (weights or binary nominal splits)")
            + "; use engine='python' or 'auto'"
        )
    n_categories = encoder.n_categories
    if settings.nominal_split == "multiway" and is_nominal.any() and n_categories.max() > MAX_BRANCHES:
        worst = int(np.argmax(np.where(is_nominal, n_categories, 0)))
        raise TreebenchError(
            f"feature {encoder.names[worst]!r} has {n_categories[worst] - 1} categories; accepted: at most "
            f"{MAX_BRANCHES - 1} for multiway splits (or nominal_split='binary')"
        )
    weights = None if sample_weight is None else np.ascontiguousarray(sample_weight, dtype=np.float64)
    if settings.feature_ties == "first":
        tie_stream = None
    elif tie_stream is None or tie_stream.dtype != np.uint64 or tie_stream.shape != (1,):
        raise TreebenchError("feature_ties='random' needs a tie stream: a uint64 array of one element (tie_state(seed))")
    if use_kernel:
        data = presorted if presorted is not None else Presorted.from_matrix(X, y, is_nominal)
        max_branches = int(n_categories.max()) if n_categories.size else 2
        values, values_by_row = _value_rows(X)
        int_nodes, float_nodes, counts, catmap = build(
            data.index,
            data.rank,
            data.label,
            values,
            values_by_row,
            data.n_levels,
            is_nominal,
            n_categories,
            int(n_classes),
            int(criterion.kernel_id),
            np.asarray(criterion.kernel_params(max(max_branches, 2)), dtype=np.float64),
            bool(criterion.average_gain_rule),
            bool(_strict_accept(criterion)),
            float(criterion.min_gain),
            -1 if settings.max_depth is None else int(settings.max_depth),
            int(settings.min_samples_split),
            int(settings.min_samples_leaf),
            binary_nominal,  # the flag only concerns nominal features
            settings.threshold == "midpoint",
            table_marker(len(y), weights is not None, sample_data is not None),  # None: rows only
            weights,
            None if sample_data is None else np.ascontiguousarray(sample_data, dtype=np.float64),
            tie_stream,
            whole_split_marker(criterion.kernel_id),  # None but for a criterion scored whole
        )
    elif tie_stream is None and _compiled_impurity(criterion, engine, sample_data, weights, is_nominal, X):
        # a plugin criterion given by a compiled impurity function: grown by its compiled scan
        # (first-column ties only; random ties go to the numpy engine, which grows the same trees)
        int_nodes, float_nodes, counts, catmap = criterion.grow_compiled(
            X, y, int(n_classes), settings.max_depth, int(settings.min_samples_split),
            int(settings.min_samples_leaf), settings.threshold == "midpoint",
        )
    else:
        int_nodes, float_nodes, counts, catmap = build_generic(
            X, y, int(n_classes), is_nominal, n_categories, criterion, settings, sample_data, weights, tie_stream
        )
    return Tree(
        int_nodes=int_nodes,
        float_nodes=float_nodes,
        counts=counts,
        catmap=catmap,
        n_categories=n_categories,
        feature_names=list(encoder.names),
        classes=list(classes) if classes is not None else list(range(n_classes)),
        categories=list(encoder.categories),
        criterion={"name": criterion.name, **criterion.values},
    )


def _value_rows(X: np.ndarray) -> tuple[np.ndarray, bool]:
    """``X`` as one C-ordered float64 array without a copy where possible: ``(X, True)`` or ``(X.T, False)``.

    One array layout, always read-only, keeps the compiled builder to one specialisation.
    """
    if X.dtype == np.float64 and X.flags.c_contiguous:
        return read_only(X), True
    if X.dtype == np.float64 and X.flags.f_contiguous:
        return read_only(X.T), False
    return read_only(np.ascontiguousarray(X, dtype=np.float64)), True


def _strict_accept(criterion: Criterion) -> bool:
    """Whether ``accepts`` is a strict ``score > min_gain`` (the possibilistic rule).

    Probed on the criterion itself so the kernel follows the Python method.
    """
    return not criterion.accepts(float(criterion.min_gain))


def _compiled_impurity(criterion, engine: str, sample_data, weights, is_nominal: np.ndarray, X: np.ndarray) -> bool:
    """Whether a plugin's compiled impurity scan (``ImpurityCriterion.grow_compiled``) can grow this tree.

    It takes numeric, finite, unweighted data without per-sample data; anything
    else goes to the numpy engine, which grows the same tree more slowly.
    """
    return (
        callable(getattr(criterion, "grow_compiled", None))
        and engine != "python"
        and sample_data is None
        and weights is None
        and not is_nominal.any()
        and bool(np.isfinite(X).all())
    )
