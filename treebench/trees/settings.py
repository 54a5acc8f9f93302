"""Tree-growing parameters: :class:`GrowSettings` and the one set of rules that checks them.

Every check of a tree parameter -- an estimator's arguments at fit time, a
config's ``params``/``grid`` values before a run -- goes through
:func:`validate_tree_param`, so the accepted values and the one-line errors
are written once.  This module imports nothing beyond the standard library
and :mod:`treebench.errors`: validating a config (or an all-skipped rerun)
must not pay for scikit-learn, numba, pandas or scipy.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from numbers import Integral
from typing import Any

from treebench.errors import TreebenchError

#: Accepted values of the text parameters (the first is the default).
THRESHOLD_MODES: tuple[str, ...] = ("midpoint", "observed")
NOMINAL_SPLITS: tuple[str, ...] = ("multiway", "binary")
ENGINES: tuple[str, ...] = ("auto", "numba", "python")
#: Which of several equally good split features is taken: the lowest column, or
#: one at random seeded from ``random_state`` (kernels: treebench.kernels.ties.TIE_RULES).
FEATURE_TIES: tuple[str, ...] = ("first", "random")
#: Arrival order of an online tree's training examples: a seeded permutation, or the file's.
ORDERS: tuple[str, ...] = ("shuffled", "file")
#: Post-prunings of :class:`treebench.trees.estimator.TreeClassifier` (besides ``None``).
PRUNINGS: tuple[str, ...] = ("pessimistic", "cost-complexity")

_CHOICES: dict[str, tuple[str, ...]] = {
    "threshold": THRESHOLD_MODES,
    "nominal_split": NOMINAL_SPLITS,
    "engine": ENGINES,
    "feature_ties": FEATURE_TIES,
    "order": ORDERS,
}
#: Smallest accepted value of the integer parameters; ``max_depth`` may also be ``None``.
_MINIMUM: dict[str, int] = {"max_depth": 0, "min_samples_split": 2, "min_samples_leaf": 1, "draw": 0}
_NULLABLE = frozenset({"max_depth"})

#: Which pruning each pruning parameter belongs to.
PRUNING_PARAMS: dict[str, str] = {
    "confidence": "pessimistic",
    "subtree_raising": "pessimistic",
    "ccp_alpha": "cost-complexity",
}

#: Parameters only an online tree (a config's ``online: true``) takes.
ONLINE_PARAMS: frozenset[str] = frozenset({"order"})


def _integer_text(name: str, none: str) -> str:
    text = f"an integer >= {_MINIMUM[name]}"
    return f"{none} or {text}" if name in _NULLABLE else text


#: Tree-growing parameters a criterion algorithm accepts besides the
#: criterion's own: name -> accepted values, as a config spells them.
TREE_PARAMS: dict[str, str] = {
    **{name: _integer_text(name, "null") for name in _MINIMUM},
    **{name: ", ".join(choices) for name, choices in _CHOICES.items()},
    "confidence": "0 < confidence <= 0.5; with pruning: pessimistic",
    "subtree_raising": "true or false; with pruning: pessimistic",
    "ccp_alpha": "a number >= 0; with pruning: cost-complexity",
    "order": "shuffled, file; with online: true",
    # the trial's random choices (arrival order, random tie-breaks) drawn afresh on the same splits
    "draw": "an integer >= 0 (0: the trial's own seed; others: further draws mixed from it)",
}


def validate_tree_param(name: str, value: Any, *, python: bool = False) -> Any:
    """Check one tree parameter; returns the value or raises a one-line error.

    Parameters
    ----------
    name:
        A key of :data:`TREE_PARAMS`.
    value:
        The value to check.
    python:
        ``False`` (default): a value read from a config, so integers are
        Python ``int`` and "no limit" is spelled ``null`` in the message.
        ``True``: an estimator argument, which may also be a numpy integer
        (e.g. from ``np.arange`` in a grid search) and whose "no limit" is
        ``None``.

    Returns
    -------
    Any
        ``value`` itself; ``confidence`` and ``ccp_alpha`` as ``float``.

    Raises
    ------
    TreebenchError
        Naming the parameter, the value and the accepted values.
    """
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise TreebenchError(f"{name}={value!r} is invalid; accepted: {', '.join(_CHOICES[name])}")
        return value
    if name in _MINIMUM:
        if name in _NULLABLE and value is None:
            return None
        # numpy integers register as numbers.Integral; bool is an int but no count
        integer_types = Integral if python else int
        if isinstance(value, bool) or not isinstance(value, integer_types) or value < _MINIMUM[name]:
            accepted = _integer_text(name, "None" if python else "null")
            raise TreebenchError(f"{name}={value!r} is invalid; accepted: {accepted}")
        return value
    if name == "subtree_raising":
        if not isinstance(value, bool):
            raise TreebenchError(f"subtree_raising={value!r} is invalid; accepted: true or false")
        return value
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "confidence" and not (number and 0 < value <= 0.5):
        raise TreebenchError(f"confidence={value!r} is out of range; accepted: 0 < confidence <= 0.5")
    if name == "ccp_alpha" and not (number and value >= 0):
        raise TreebenchError(f"ccp_alpha={value!r} is invalid; accepted: a number >= 0")
    return float(value)


@dataclass(frozen=True)
class GrowSettings:
    """Stopping rules and split forms shared by every engine.

    Checked on construction by :func:`validate_tree_param` (the rules a config
    is checked by, too), field by field in the order below.

    Parameters
    ----------
    max_depth:
        Maximum depth (root = 0); ``None`` grows until another rule stops.
    min_samples_split:
        A node with fewer samples is a leaf.
    min_samples_leaf:
        Every child of a split must have at least this many samples.
    threshold:
        ``"midpoint"`` (between consecutive distinct values, as scikit-learn)
        or ``"observed"`` (the largest value sent left).
    nominal_split:
        ``"multiway"`` (one branch per category present) or ``"binary"``
        (one category against the rest).
    feature_ties:
        ``"first"`` (of several features whose best splits score the same,
        the lowest column) or ``"random"`` (one of them at random, each
        equally likely: the builders draw it from a stream seeded by the
        estimator's ``random_state``; see :mod:`treebench.kernels.ties`).
    """

    max_depth: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    threshold: str = "midpoint"
    nominal_split: str = "multiway"
    feature_ties: str = "first"

    def __post_init__(self) -> None:
        for field in fields(self):
            validate_tree_param(field.name, getattr(self, field.name), python=True)
