"""Minimum entropy-of-error (MEE) criterion (paper 001, Marques de Sá et al.).

A candidate class set S is coded ``t = 1`` (every other class ``t = -1``);
a Stoller split assigns ``y = 1`` to one side of a threshold.  The error
``e = t - y`` takes the values -2, 0 and 2, and the split score is the
Shannon entropy (nats) of the error frequencies::

    P(e=2)  = n_{1,-1} / n     (cases of S sent to the other side)
    P(e=-2) = n_{-1,1} / n     (other cases sent to the side of S)
    P(e=0)  = 1 - P(e=2) - P(e=-2)

The paper prints ``P_2 = p n_{1,-1}/n``.  ``P(E=2) = P(t=1, y=-1) =
P(t=1) P(y=-1 | t=1)``: with ``p = n_S / n`` the prevalence, the second factor
is the class-conditional rate ``n_{1,-1}/n_S``, so the estimate is the joint
frequency above -- the default reading (``error_rates="joint"``).  The formula
read literally, ``p n_{1,-1}/n`` (``"printed"``), weights the joint frequency
by the prevalence a second time and is not an estimate of ``P(E=2)`` (its
three "probabilities" do not describe the errors' distribution); it is kept as
a named alternative.

The tree itself (class-set enumeration, the convex/concave rule on the
error-entropy curve, the split search) is :class:`treebench.trees.mee.MEETreeClassifier`;
this module holds the pure functions it and the report figures share.
"""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import ClassVar

import numpy as np

from treebench.criteria.base import Criterion, Param, SplitContext, as_children
from treebench.errors import TreebenchError
from treebench.kernels.tolerances import CONVEX_TOLERANCE  # the compiled scan's slack, shared

#: Readings of the paper's error probabilities (see the module docstring).
ERROR_RATES = ("joint", "printed")
#: Where the convexity grid lies: ``whole`` -- "a 100-point grid on the whole
#: feature range" (the training set's range of the feature, at every node);
#: ``node`` -- the node's cases' range (treebench's former behaviour).
CONVEXITY_RANGES = ("whole", "node")
#: Which curves the convex/concave rule judges: ``per_orientation`` -- each
#: orientation's curve of a class set on its own (a set on the left and a set
#: on the right are two candidates); ``envelope`` -- one verdict per class set
#: and feature, on the lower envelope of its two orientations' curves (at every
#: grid point the better labelling of the two sides, as a Stoller split chooses
#: it), applied to both orientations.  See :func:`convexity_verdicts`.
CONVEXITY_TESTS = ("per_orientation", "envelope")


def error_entropy(confusion: np.ndarray, error_rates: str = "joint") -> float:
    """Shannon entropy (nats) of the error ``e = t - y`` of one coded split.

    Parameters
    ----------
    confusion:
        2x2 counts ``[[n_{-1,-1}, n_{-1,1}], [n_{1,-1}, n_{1,1}]]``: rows are
        the true code ``t`` (-1 then 1), columns the assigned code ``y``.
    error_rates:
        ``"joint"`` (default): ``P(e=2) = n_{1,-1}/n``, ``P(e=-2) = n_{-1,1}/n``;
        ``"printed"``: the formula as printed, ``P(e=2) = p n_{1,-1}/n`` and
        ``P(e=-2) = (1-p) n_{-1,1}/n`` with ``p = n_1 / n``.

    Returns
    -------
    float
        ``-sum P ln P`` over ``P(e=-2)``, ``P(e=2)`` and ``P(e=0) = 1 - both``;
        in ``[0, ln 3]``.
    """
    table = np.asarray(confusion, dtype=float)
    if table.shape != (2, 2) or (table < 0).any() or not np.isfinite(table).all():
        raise TreebenchError(
            f"confusion must be 2x2 non-negative counts [[n(-1,-1), n(-1,1)], [n(1,-1), n(1,1)]]; got {table.tolist()}"
        )
    _check_rates(error_rates)
    n = table.sum()
    if n == 0:
        raise TreebenchError("confusion has no cases; accepted: counts with a positive total")
    prevalence = table[1].sum() / n if error_rates == "printed" else None
    return float(coded_error_entropy(table[1, 0], table[0, 1], n, prevalence))


def _check_rates(error_rates: str) -> None:
    if error_rates not in ERROR_RATES:
        raise TreebenchError(f"error_rates={error_rates!r} is invalid; accepted: {', '.join(ERROR_RATES)}")


def coded_error_entropy(
    n_plus: np.ndarray, n_minus: np.ndarray, n: float, prevalence: float | None = None
) -> np.ndarray:
    """Vectorised error entropy from the two error counts.

    ``n_plus`` counts ``e = 2`` (t = 1 assigned -1), ``n_minus`` counts
    ``e = -2`` (t = -1 assigned 1), ``n`` is the node size.  With
    ``prevalence`` ``p`` the printed reading weights them by ``p`` and
    ``1 - p``; without it they are joint frequencies.
    """
    probs = np.stack([np.asarray(n_plus, float), np.asarray(n_minus, float)], axis=0) / np.asarray(n, float)
    if prevalence is not None:
        w = np.asarray(prevalence, float)
        weights = np.stack([w, 1.0 - w]).reshape((2,) + w.shape + (1,) * (probs.ndim - 1 - w.ndim))
        probs = probs * weights
    probs = np.concatenate([probs, 1.0 - probs.sum(axis=0, keepdims=True)], axis=0)
    probs = np.clip(probs, 0.0, 1.0)
    logs = np.log(np.where(probs > 0, probs, 1.0))
    return -(probs * logs).sum(axis=0)


def convexity_grid(low: float, high: float, points: int) -> np.ndarray:
    """``points`` equally spaced values from ``low`` to ``high`` (both ends exact).

    Written as ``low + (high - low) * (i / (points - 1))`` so the compiled
    kernel computes bit-identical grid values.
    """
    i = np.arange(points, dtype=float)
    grid = low + (high - low) * (i / (points - 1))
    grid[-1] = high
    return grid


def interval_bounds(points: int) -> tuple[int, int]:
    """First and one-past-last grid index of the three central fifths."""
    return points // 5, (4 * points) // 5


def is_convex(curve: np.ndarray) -> bool:
    """The paper's crude convex/concave rule on an error-entropy curve.

    The curve (values on an equally spaced grid over the feature's range) is
    cut into five equal intervals; ``m_c`` is the mean over the three central
    ones, ``m_e`` the mean over the two end ones.  ``m_c > m_e`` is "concave"
    (the curve bulges up: its minimum sits at an end and is useless);
    otherwise the curve is "convex" (a dip in the middle) and usable.
    """
    values = np.asarray(curve, dtype=float)
    if values.ndim != 1 or values.size < 5:
        raise TreebenchError(f"a curve needs at least 5 points to be cut in fifths; got {values.size}")
    lo, hi = interval_bounds(values.size)
    central = values[lo:hi].mean()
    ends = np.concatenate([values[:lo], values[hi:]]).mean()
    return bool(central <= ends + CONVEX_TOLERANCE)


def convexity_verdicts(grid_curves: tuple[np.ndarray, np.ndarray], test: str = "per_orientation") -> tuple[bool, bool]:
    """Whether each orientation's curve of one class set and feature may offer a split.

    Parameters
    ----------
    grid_curves:
        The error-entropy curves of orientation 0 (``x <= threshold``
        assigned the set) and orientation 1 on the convexity grid.
    test:
        ``"per_orientation"``: :func:`is_convex` on each curve;
        ``"envelope"``: :func:`is_convex` once, on the pointwise minimum of
        the two, and that verdict for both.

    Returns
    -------
    (bool, bool)
        The verdicts of orientation 0 and orientation 1.
    """
    if test not in CONVEXITY_TESTS:
        raise TreebenchError(f"convexity_test={test!r} is invalid; accepted: {', '.join(CONVEXITY_TESTS)}")
    first, second = (np.asarray(c, dtype=float) for c in grid_curves)
    if test == "envelope":
        verdict = is_convex(np.minimum(first, second))
        return verdict, verdict
    return is_convex(first), is_convex(second)


def error_entropy_curve(
    x: np.ndarray,
    t: np.ndarray,
    thresholds: np.ndarray | int | None = None,
    orientation: int | None = None,
    error_rates: str = "joint",
    span: tuple[float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Error entropy of the split ``x <= threshold`` for one feature and one coding.

    Parameters
    ----------
    x:
        Feature values of the node's cases.
    t:
        Their codes in {-1, 1} (1 = candidate class set).
    thresholds:
        ``None``: the distinct observed values; an int: that many grid points
        over ``span`` (default ``[min x, max x]``; the convexity grid); an
        array: those values.
    orientation:
        0: ``x <= threshold`` is assigned ``y = 1``; 1: ``x > threshold`` is.
        ``None`` returns the orientation whose curve reaches the lower
        minimum (0 on ties).
    error_rates:
        ``"joint"`` or ``"printed"`` (see :func:`error_entropy`).
    span:
        ``(low, high)`` of an int grid: the whole training set's range of
        the feature, which may extend past the node's cases (points below
        them send no case left, points above send every case left).

    Returns
    -------
    thresholds, H, orientation
    """
    x = np.asarray(x, dtype=float)
    t = np.asarray(t)
    if x.ndim != 1 or x.shape != t.shape or x.size == 0:
        raise TreebenchError(f"x and t must be non-empty 1-d arrays of one length; got {x.shape} and {t.shape}")
    if not np.isin(t, (-1, 1)).all():
        raise TreebenchError("t must be coded in {-1, 1}")
    _check_rates(error_rates)
    if orientation not in (None, 0, 1):
        raise TreebenchError(f"orientation={orientation!r} is invalid; accepted: None, 0, 1")
    if thresholds is None:
        grid = np.unique(x)
    elif isinstance(thresholds, (int, np.integer)):
        low, high = (float(x.min()), float(x.max())) if span is None else (float(span[0]), float(span[1]))
        grid = convexity_grid(low, high, int(thresholds))
    else:
        grid = np.asarray(thresholds, dtype=float)
    left = x[None, :] <= grid[:, None]
    pos_left = (left & (t == 1)).sum(axis=1)
    neg_left = (left & (t == -1)).sum(axis=1)
    n_pos, n_neg = int((t == 1).sum()), int((t == -1).sum())
    p = n_pos / x.size if error_rates == "printed" else None
    curves = (
        coded_error_entropy(n_pos - pos_left, neg_left, x.size, p),  # left is assigned y = 1
        coded_error_entropy(pos_left, n_neg - neg_left, x.size, p),  # right is assigned y = 1
    )
    if orientation is None:
        orientation = 1 if curves[1].min() < curves[0].min() else 0
    return grid, curves[orientation], int(orientation)


def unsplit_error_entropy(n_set: float, n: float, error_rates: str = "joint") -> float:
    """Error entropy of not splitting: the lower of the two curve ends.

    Every case assigned the complement gives ``n_set`` errors ``e = 2``; every
    case assigned the set gives ``n - n_set`` errors ``e = -2``.  Under the
    joint reading both are ``h(n_set / n)``; under the printed one they differ.
    """
    p = n_set / n if error_rates == "printed" else None
    ends = (coded_error_entropy(n_set, 0.0, n, p), coded_error_entropy(0.0, n - n_set, n, p))
    return float(min(ends))


def class_sets(classes: np.ndarray | list[int], max_merged: int | None = None) -> list[tuple[int, ...]]:
    """Candidate class sets of a node: every combination of 1..``max_merged`` classes.

    ``max_merged`` defaults to ``floor(c / 2)``.  A set and its complement code
    the same partition with ``t`` negated, and both orientations are tried, so
    they give the same error entropies: when ``2k = c`` only the half of the
    size-``k`` sets containing the first class are kept.  The count is then
    ``sum_{k < c/2} C(c, k)`` plus ``C(c, c/2) / 2`` for even ``c``.
    """
    classes = [int(c) for c in classes]
    c = len(classes)
    largest = c // 2 if max_merged is None else min(int(max_merged), c // 2)
    sets: list[tuple[int, ...]] = []
    for k in range(1, largest + 1):
        for combo in combinations(classes, k):
            if 2 * k == c and combo[0] != classes[0]:
                continue  # the complement (which holds the first class) is already listed
            sets.append(combo)
    return sets


def count_class_sets(c: int, max_merged: int | None = None) -> int:
    """How many sets :func:`class_sets` lists for ``c`` classes, without listing them.

    ``sum_{k <= m} C(c, k)`` for ``m = min(max_merged, floor(c / 2))``, less
    the complements dropped when ``2m = c``; for ``max_merged=None`` about
    ``2**(c - 1)``, which is why the MEE tree caps it (``MAX_CLASS_SETS``).
    """
    largest = c // 2 if max_merged is None else min(int(max_merged), c // 2)
    total = sum(comb(c, k) for k in range(1, largest + 1))
    if largest >= 1 and 2 * largest == c:
        total -= comb(c, largest) // 2
    return total


class MEE(Criterion):
    """Minimum entropy-of-error (paper 001); grown by its own tree builder.

    As a count criterion, ``split_scores`` is minus the smallest error
    entropy of a two-branch split over every candidate class set and both
    orientations (higher is better, like every criterion); the convex/concave
    rule needs the feature values and lives in the MEE tree
    (:class:`treebench.trees.mee.MEETreeClassifier`).
    """

    name = "mee"
    summary = "minimum entropy-of-error splits with the convex-curve rule and merged classes (own tree builder)"
    paper = "001 Marques de Sá, Gama, Sebastião & Alexandre"
    params = (
        Param("min_class_cases", 5, int, low=1, doc="fewer cases in a class set or its complement: not a candidate"),
        Param("min_child_cases", 1, int, low=1, doc="a split leaving fewer cases on a side is not a candidate"),
        Param("max_merged", 0, int, low=0, doc="largest merged class set; 0 means floor(c/2)"),
        Param("convexity_points", 100, int, low=5, doc="grid points of the convex/concave rule"),
        Param(
            "error_rates",
            "joint",
            str,
            choices=ERROR_RATES,
            doc="P(e=2) = n(1,-1)/n (joint) or p n(1,-1)/n as printed",
        ),
        Param(
            "convexity_range",
            "whole",
            str,
            choices=CONVEXITY_RANGES,
            doc="convexity grid over the training set's range of the feature (whole) or the node's (node)",
        ),
        Param(
            "must_lower",
            True,
            bool,
            doc="a split must go below the no-split error entropy (the curve's ends); false: any convex curve's "
            "lowest threshold splits",
        ),
        Param(
            "convexity_test",
            "per_orientation",
            str,
            choices=CONVEXITY_TESTS,
            doc="convex/concave rule on each orientation's curve of a class set (per_orientation) or once on "
            "the lower envelope of both (envelope)",
            since_default_keyless=True,  # the default is the rule before the parameter: stored trials stay current
        ),
    )
    #: Trees of this criterion come from treebench.trees.mee (its own builder), not the generic builders.
    learner_kind: ClassVar[str] = "mee"
    #: The generic tree parameters the MEE tree accepts.
    tree_params: ClassVar[tuple[str, ...]] = ("max_depth", "threshold", "feature_ties", "draw")

    @classmethod
    def all_params(cls) -> tuple[Param, ...]:
        # no min_gain: MEE decides on the convexity rule, not a score threshold
        return tuple(cls.params)

    def accepts(self, score: float) -> bool:
        # usability is decided on the feature's curve (convexity, interior
        # minimum) by the MEE tree; from counts alone any scored split is usable
        return bool(np.isfinite(score))

    def node_value(self, counts: np.ndarray) -> float:
        """Error entropy of the unsplit node: min over class sets of ``h(n_S / n)``."""
        counts = np.asarray(counts, dtype=float)
        n = counts.sum()
        present = np.flatnonzero(counts > 0)
        if n == 0 or present.size < 2:
            return 0.0
        values = [
            unsplit_error_entropy(counts[list(s)].sum(), n, self.error_rates)
            for s in class_sets(present, self.max_merged or None)
        ]
        return min(values)

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        if children.shape[1] != 2:
            raise TreebenchError(f"criterion 'mee' scores two-branch splits; got {children.shape[1]} branches")
        n = children.sum(axis=(1, 2))
        present = np.flatnonzero(np.asarray(parent, float) > 0)
        best = np.full(children.shape[0], np.inf)
        for s in class_sets(present, self.max_merged or None):
            in_set = children[:, :, list(s)].sum(axis=2)  # (m, 2)
            out_set = children.sum(axis=2) - in_set
            p = in_set.sum(axis=1) / n if self.error_rates == "printed" else None
            # orientation 0: left assigned to S; orientation 1: right assigned to S
            h0 = coded_error_entropy(in_set[:, 1], out_set[:, 0], n, p)
            h1 = coded_error_entropy(in_set[:, 0], out_set[:, 1], n, p)
            best = np.minimum(best, np.minimum(h0, h1))
        return -best
