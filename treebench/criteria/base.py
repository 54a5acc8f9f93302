"""The criterion interface every split criterion implements.

A criterion scores candidate splits from class-count arrays, in the spirit of
scikit-learn's ``sklearn/tree/_criterion`` (the criterion only scores, the
splitter enumerates candidates) and river's ``split_criterion`` classes (one
small class, one merit method).  The shapes are fixed:

* ``counts`` / ``parent``: a length-``k`` vector over *all* classes of the
  problem (zeros included: several criteria depend on ``k``);
* ``children``: shape ``(m, r, k)`` -- ``m`` candidate splits of one feature,
  each with ``r`` branches.  A numeric feature gives ``(m, 2, k)`` from the
  cumulative counts along the sorted feature; a nominal feature split multiway
  gives ``(1, r, k)``.

Scores are *higher is better*.  Two score arrays exist because C4.5 ranks the
thresholds of one feature by information gain but compares features by gain
ratio: :meth:`Criterion.candidate_scores` ranks candidates within a feature,
:meth:`Criterion.split_scores` is the score reported and compared across
features (for most criteria they are the same array).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from treebench.errors import TreebenchError
from treebench.kernels.tolerances import TIE_TOLERANCE  # the compiled kernels' tie rule, shared


@dataclass(frozen=True)
class Param:
    """A declared criterion parameter with its valid range.

    Parameters
    ----------
    name:
        Keyword used in ``criteria.get(name, **params)`` and in configs.
    default:
        Value used when the parameter is not given.
    kind:
        ``float``, ``int``, ``bool`` or ``str``.
    low, high:
        Bounds for numeric parameters (``None`` = unbounded).
    low_open, high_open:
        Whether the corresponding bound is excluded.
    choices:
        Accepted values of a ``str`` parameter.
    doc:
        One-line description shown by ``treebench criteria list``.
    since_default_keyless:
        True for a parameter added later whose default reproduces the trees grown before it
        existed: its default is left out of the trial keys' code fingerprint, so stored trials
        stay current (a value set in a config is still part of the key, through the params).
    """

    name: str
    default: Any
    kind: type = float
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] | None = None
    doc: str = ""
    since_default_keyless: bool = False

    def describe(self) -> str:
        """Human-readable accepted range, e.g. ``0 < gamma < 1``."""
        if self.choices is not None:
            return f"{self.name} in {{{', '.join(self.choices)}}}"
        if self.kind is bool:
            return f"{self.name} in {{true, false}}"
        low_op = "<" if self.low_open else "<="
        high_op = "<" if self.high_open else "<="
        if self.low is not None and self.high is not None:
            return f"{self.low:g} {low_op} {self.name} {high_op} {self.high:g}"
        if self.low is not None:
            return f"{self.name} {'>' if self.low_open else '>='} {self.low:g}"
        if self.high is not None:
            return f"{self.name} {high_op} {self.high:g}"
        return f"{self.name} any {self.kind.__name__}"

    def validate(self, value: Any, owner: str) -> Any:
        """Coerce ``value`` to the declared kind and check its range.

        Raises
        ------
        TreebenchError
            With a one-line message naming the criterion, the parameter, the
            value and the accepted range.
        """
        where = f"criterion {owner!r}: parameter {self.name}={value}"
        try:
            coerced = _coerce(value, self.kind)
        except (TypeError, ValueError):
            raise TreebenchError(
                f"{where} is not a valid {self.kind.__name__}; accepted: {self.describe()}"
            ) from None
        if self.choices is not None and coerced not in self.choices:
            raise TreebenchError(f"{where} is not accepted; accepted: {self.describe()}")
        if self.kind in (int, float):
            if isinstance(coerced, float) and not math.isfinite(coerced):
                raise TreebenchError(f"{where} is not finite; accepted: {self.describe()}")
            too_low = self.low is not None and (
                coerced <= self.low if self.low_open else coerced < self.low
            )
            too_high = self.high is not None and (
                coerced >= self.high if self.high_open else coerced > self.high
            )
            if too_low or too_high:
                raise TreebenchError(f"{where} is out of range; accepted: {self.describe()}")
        return coerced


def _coerce(value: Any, kind: type) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
        if isinstance(value, (int, np.integer)) and value in (0, 1):
            return bool(value)
        raise ValueError(value)
    if kind is int:
        if isinstance(value, bool):
            raise TypeError(value)
        as_float = float(value)
        if not as_float.is_integer():
            raise ValueError(value)
        return int(as_float)
    if kind is float:
        if isinstance(value, bool):
            raise TypeError(value)
        return float(value)
    return kind(value)


#: Parameter shared by every criterion: the smallest split score worth a split.
MIN_GAIN = Param(
    "min_gain",
    0.0,
    float,
    doc="smallest split score for which a node is split (accepts(score))",
)


@dataclass
class SplitContext:
    """What a criterion may need beyond class counts (MEE, belief trees).

    Built-in count criteria ignore it.  The generic (numpy) split search fills
    it for every feature it scores, so a user criterion can look at the
    feature itself.

    Attributes
    ----------
    feature:
        Column index of the feature being scored.
    kind:
        ``"numeric"`` or ``"nominal"``.
    values:
        The node's values of the feature, sorted (numeric) or grouped by
        category code (nominal).
    order:
        Training-sample indices in the same order as ``values``.
    positions:
        For numeric candidates: candidate ``i`` sends ``order[:positions[i]]``
        left and the rest right.
    thresholds:
        For numeric candidates: the threshold of each candidate.
    sample_data:
        Optional per-sample array given at fit time (e.g. label masses for
        belief-function trees), indexed like the training samples; use
        ``sample_data[order]`` to get it sorted along the feature.
    """

    feature: int
    kind: str
    values: np.ndarray
    order: np.ndarray
    positions: np.ndarray | None = None
    thresholds: np.ndarray | None = None
    sample_data: np.ndarray | None = None


class Criterion:
    """Base class: subclass it, declare ``name`` and ``params``, override
    :meth:`node_value` and :meth:`split_scores`.

    Parameters are passed as keyword arguments and validated against the
    declared :class:`Param` list; their values are available as attributes.
    ``kernel_id`` names a numba-compiled implementation of the same formulas
    (built-in criteria only); user criteria leave it at ``-1`` and run through
    the generic numpy split search.

    ``learner_kind`` declares which learner an experiment runs the criterion
    with, so the experiment layer looks it up instead of testing names:

    ``"tree"`` (default)
        :class:`treebench.trees.estimator.TreeClassifier` (optionally pruned
        or online); every count criterion and every user criterion.
    ``"mee"``
        :class:`treebench.trees.mee.MEETreeClassifier`, the criterion's own
        tree builder; :func:`treebench.trees.builder.grow` refuses it.
    ``"belief"``
        :class:`treebench.trees.belief.BeliefTreeClassifier`, which learns
        from per-example label masses and predicts pignistic probabilities.
    """

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    paper: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    #: Bump when the numbers a criterion produces change (results stores key
    #: trials on it, so finished trials of the old code are recomputed).
    version: ClassVar[int] = 1
    kernel_id: ClassVar[int] = -1
    #: The dotted name results stores key this class's trials by, when it is not
    #: ``module.qualname``: a built-in class that moved to another module keeps
    #: the name its finished trials were stored under.  Read from the class's
    #: own namespace only (:func:`stored_name`), so a subclass has its own.
    stored_as: ClassVar[str] = ""
    #: Whether the numeric threshold of a feature is chosen by
    #: :meth:`candidate_scores` and features then compared by
    #: :meth:`split_scores` under C4.5's average-gain rule.
    average_gain_rule: ClassVar[bool] = False
    #: Which learner grows trees with this criterion: "tree", "mee" or "belief"
    #: (see the class docstring).
    learner_kind: ClassVar[str] = "tree"
    #: Whether :meth:`node_value` grows with purity (certainty) rather than
    #: with impurity; ``feature_importances_`` then counts its increase.
    node_value_is_purity: ClassVar[bool] = False
    #: Whether ``feature_importances_`` sum each split's score weighted by its node's size instead
    #: of a decrease of :meth:`node_value`: for a criterion that scores a split as a whole and has no
    #: node value to decrease (Hellinger distance: every node's value is 0).
    importance_from_split_score: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # a criterion written outside treebench: its values are checked where they enter the engine
        from treebench.criteria.guard import guard_class, is_user_class

        if is_user_class(cls):
            guard_class(cls)

    def __init__(self, **params: Any) -> None:
        declared = {p.name: p for p in self.all_params()}
        unknown = sorted(set(params) - set(declared))
        if unknown:
            accepted = ", ".join(declared) or "(none)"
            raise TreebenchError(
                f"criterion {self.name!r}: unknown parameter {unknown[0]!r}; accepted: {accepted}"
            )
        self.values = {}
        for pname, spec in declared.items():
            raw = params.get(pname, spec.default)
            value = spec.validate(raw, self.name)
            self.values[pname] = value
            setattr(self, pname, value)

    # -- declarations --------------------------------------------------
    @classmethod
    def all_params(cls) -> tuple[Param, ...]:
        """The criterion's own parameters followed by the shared ``min_gain``."""
        own = tuple(cls.params)
        return own if any(p.name == MIN_GAIN.name for p in own) else own + (MIN_GAIN,)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"{type(self).__name__}({args})"

    # -- scoring ---------------------------------------------------------
    def dataset_limit(self, classes: int, nominal_features: int) -> str | None:
        """Why this criterion, as parametrised, cannot grow a tree on a dataset of ``classes``
        classes and ``nominal_features`` nominal features split multiway (``None``: it can).

        Asked before a board plans its trials, so a known limit is listed as "not applicable"
        with its reason instead of failing trial by trial.  The default: no limit.
        """
        return None

    def node_value(self, counts: np.ndarray) -> float:
        """The paper's measure of one node (entropy, Gini, certainty, ...)."""
        raise NotImplementedError

    def split_scores(
        self, parent: np.ndarray, children: np.ndarray, context: SplitContext | None = None
    ) -> np.ndarray:
        """Score ``m`` candidate splits; ``children`` has shape ``(m, r, k)``."""
        raise NotImplementedError

    def candidate_scores(
        self, parent: np.ndarray, children: np.ndarray, context: SplitContext | None = None
    ) -> np.ndarray:
        """Rank the candidates of one feature (defaults to :meth:`split_scores`)."""
        return self.split_scores(parent, children, context)

    def tie_scores(
        self, parent: np.ndarray, children: np.ndarray, context: SplitContext | None = None
    ) -> np.ndarray | None:
        """A second key ranking candidates whose scores tie (``None``: keep the first)."""
        return None

    def accepts(self, score: float) -> bool:
        """Whether the best split is worth making: ``score >= min_gain``.

        The comparison allows for rounding so that a zero-gain split counts as
        zero (this matches scikit-learn, which also splits on zero improvement
        while the node is impure).
        """
        return bool(score >= self.min_gain - TIE_TOLERANCE * max(1.0, abs(self.min_gain)))

    def select_feature(
        self, candidate_best: np.ndarray, split_best: np.ndarray, tie_best: np.ndarray | None = None
    ) -> int:
        """Pick the feature to split on from each feature's best candidate.

        ``candidate_best[f]`` / ``split_best[f]`` / ``tie_best[f]`` are the
        candidate, split and tie scores of feature ``f``'s best candidate
        (``-inf`` when the feature has no valid candidate).  Returns ``-1``
        when no feature is usable.
        """
        return select_feature(candidate_best, split_best, self.average_gain_rule, tie_best)

    def tree_quality(self, leaf_counts: np.ndarray) -> float | None:
        """A tree-level quality measure from the leaves' counts, if the paper defines one."""
        return None

    def kernel_takes(self, sample_data: np.ndarray, n_classes: int) -> bool:
        """Whether the compiled builder scores this per-example ``sample_data`` itself.

        ``False`` (the default): a fit with ``sample_data`` runs the generic
        engine, which hands it to :meth:`split_scores`.
        """
        return False

    def kernel_params(self, max_branches: int) -> np.ndarray:
        """Float parameters handed to the compiled kernel (built-ins only)."""
        return np.zeros(1)


def stored_name(cls: type) -> str:
    """The dotted name trials of criterion class ``cls`` are stored under (see ``Criterion.stored_as``)."""
    return cls.__dict__.get("stored_as") or f"{cls.__module__}.{cls.__qualname__}"


def better(score: float, best: float) -> bool:
    """Strictly better beyond the tie tolerance (the compiled kernels' rule)."""
    if best == -np.inf:
        return score > -np.inf
    return score > best + TIE_TOLERANCE * max(1.0, abs(best))


def ties(a: float, b: float) -> bool:
    """Equal within the tie tolerance."""
    return not better(a, b) and not better(b, a)


def select_feature(
    candidate_best: np.ndarray,
    split_best: np.ndarray,
    average_gain_rule: bool,
    tie_best: np.ndarray | None = None,
) -> int:
    """Shared feature choice: best split score; on ties the best tie score
    when there is one, else the lowest index.

    With ``average_gain_rule`` (C4.5), only features whose candidate score
    (information gain) is at least the average over usable features compete.
    """
    usable = np.isfinite(split_best)
    if not usable.any():
        return -1
    eligible = usable.copy()
    if average_gain_rule:
        average = float(candidate_best[usable].mean())
        eligible &= candidate_best >= average - TIE_TOLERANCE * max(1.0, abs(average))
    best_index, best_score = -1, -np.inf
    for index in np.flatnonzero(eligible):
        score = float(split_best[index])
        if (
            best_index < 0
            or better(score, best_score)
            or (tie_best is not None and ties(score, best_score) and better(tie_best[index], tie_best[best_index]))
        ):
            best_index, best_score = int(index), score
    return best_index


def as_children(children: np.ndarray) -> np.ndarray:
    """Validate and return ``children`` as a float array of shape ``(m, r, k)``."""
    arr = np.asarray(children, dtype=float)
    if arr.ndim == 2:
        arr = arr[None, :, :]
    if arr.ndim != 3:
        raise TreebenchError(f"children must have shape (m, r, k); got shape {arr.shape}")
    return arr


def frequencies(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Class frequencies of every count row (zeros for an empty row) and the row totals."""
    counts = np.asarray(counts, dtype=float)
    totals = counts.sum(axis=-1, keepdims=True)
    return np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0), totals[..., 0]


def branch_weights(children: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Branch sizes ``(m, r)`` and the parent size of each candidate ``(m,)``."""
    sizes = children.sum(axis=2)
    totals = sizes.sum(axis=1)
    return sizes, totals


def weighted_child_values(children: np.ndarray, value_rows) -> np.ndarray:
    """``sum_j |v_j|/n * value(child_j)`` for every candidate.

    ``value_rows`` maps an array of count rows ``(..., k)`` to node values
    ``(...)``; empty branches contribute nothing.
    """
    sizes, totals = branch_weights(children)
    values = value_rows(children)
    weights = np.divide(sizes, totals[:, None], out=np.zeros_like(sizes), where=totals[:, None] > 0)
    return np.where(sizes > 0, weights * values, 0.0).sum(axis=1)
