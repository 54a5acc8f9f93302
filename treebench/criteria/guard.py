"""Checks on what a user criterion returns, where its values enter the engine.

A criterion defined outside treebench (a plugin, a test, a notebook) is code
treebench does not own: a NaN node value or a score list one entry short
would otherwise grow a wrong tree that looks like an ordinary result.
:func:`guard_class` wraps such a class's ``node_value``, ``split_scores``,
``candidate_scores`` and ``tie_scores`` so that each call -- one node, or all
candidates of one feature at one node, never one candidate at a time -- is
checked for shape, dtype and finiteness; a bad value raises
:class:`CriterionOutputError` naming the criterion, the node size and the
value.  Built-in criteria (modules under ``treebench.``) are not wrapped:
their kernels are tested against their numpy formulas.

A split score may be ``-inf`` (the criterion refuses that candidate, as the
engines already read it); ``NaN`` and ``+inf`` are refused.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from treebench.errors import TreebenchError

#: The methods whose results are checked.
SCORE_METHODS = ("split_scores", "candidate_scores", "tie_scores")
_MARK = "__treebench_guarded__"


class CriterionOutputError(TreebenchError):
    """A criterion returned a value the engine cannot use (wrong shape, type, or not finite)."""


def is_user_class(cls: type) -> bool:
    """Whether ``cls`` is defined outside the treebench package (its values are checked)."""
    module = getattr(cls, "__module__", "") or ""
    return not (module == "treebench" or module.startswith("treebench."))


def guard_class(cls: type) -> None:
    """Wrap ``cls``'s scoring methods with the output checks (once; subclasses inherit them)."""
    for name in ("node_value", *SCORE_METHODS):
        method = getattr(cls, name, None)
        if method is None or getattr(method, _MARK, False):
            continue
        wrapper = _node_value_guard(method) if name == "node_value" else _scores_guard(method, name)
        setattr(wrapper, _MARK, True)
        setattr(cls, name, wrapper)


def _rows(counts: Any) -> str:
    """A node's size as the count of its rows (a weighted sum shown with %g)."""
    try:
        total = float(np.asarray(counts, dtype=float).sum())
    except (TypeError, ValueError):
        return "?"
    return f"{total:g}"


def _shown(value: Any) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= 80 else text[:77] + "..."


def describe_counts(counts: Any) -> str:
    """``"N rows (counts a,b,c)"`` for messages."""
    try:
        flat = np.asarray(counts, dtype=float).ravel()
        listing = ",".join(f"{v:g}" for v in flat[:12]) + (",..." if flat.size > 12 else "")
    except (TypeError, ValueError):
        listing = "?"
    return f"{_rows(counts)} rows (counts {listing})"


def check_node_value(criterion: Any, value: Any, counts: Any) -> float:
    """``value`` as a finite float, or :class:`CriterionOutputError` naming criterion, node and value."""
    if isinstance(value, float) and math.isfinite(value):  # the usual answer: nothing more to look at
        return value
    return _slow_node_value(criterion, value, counts)


def _slow_node_value(criterion: Any, value: Any, counts: Any) -> float:
    where = f"criterion {getattr(criterion, 'name', '?')!r}: node_value returned"
    node = f"for a node of {describe_counts(counts)}"
    accepted = "accepted: one finite number per node"
    if isinstance(value, (str, bytes, bool, np.bool_)) or value is None:
        raise CriterionOutputError(f"{where} {_shown(value)} ({type(value).__name__}) {node}; {accepted}")
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - an object numpy cannot read
        array = np.asarray(None)
    if array.dtype.kind not in "iuf" or array.size != 1:
        raise CriterionOutputError(
            f"{where} {_shown(value)} ({type(value).__name__}, shape {array.shape}) {node}; {accepted}"
        )
    number = float(array.reshape(()).item())
    if not math.isfinite(number):
        raise CriterionOutputError(f"{where} {number} {node}; {accepted}")
    return number


def check_scores(criterion: Any, method: str, scores: Any, parent: Any, children: Any) -> np.ndarray | None:
    """``scores`` as a float array of one entry per candidate of ``children``, or :class:`CriterionOutputError`.

    ``tie_scores`` may be ``None``.  ``-inf`` is allowed (a refused
    candidate); ``NaN`` and ``+inf`` are not.  The usual answer (a float
    array of the right length) costs one reduction: its maximum is below
    ``+inf`` exactly when no entry is NaN or ``+inf``.
    """
    if scores is None and method == "tie_scores":
        return None
    m = _candidates(children)
    if (
        type(scores) is np.ndarray
        and scores.dtype.kind == "f"
        and scores.shape == (m,)
        and (m == 0 or scores.max() < np.inf)
    ):
        return scores
    return _slow_scores(criterion, method, scores, parent, m)


def _candidates(children: Any) -> int:
    shape = getattr(children, "shape", None)
    if shape is None:
        shape = np.shape(children)
    return int(shape[0]) if len(shape) == 3 else 1


def _slow_scores(criterion: Any, method: str, scores: Any, parent: Any, m: int) -> np.ndarray:
    where = f"criterion {getattr(criterion, 'name', '?')!r}: {method} returned"
    node = f"for {m} candidate{'s' * (m != 1)} of a node of {describe_counts(parent)}"
    accepted = f"accepted: {m} number{'s' * (m != 1)} (one per candidate, shape ({m},)), each finite or -inf"
    if isinstance(scores, (str, bytes)) or scores is None:
        raise CriterionOutputError(f"{where} {_shown(scores)} ({type(scores).__name__}) {node}; {accepted}")
    try:
        array = np.asarray(scores)
    except Exception:  # noqa: BLE001 - a ragged list, an object numpy cannot read
        raise CriterionOutputError(f"{where} a {type(scores).__name__} numpy cannot read {node}; {accepted}") from None
    if array.dtype.kind not in "biuf":
        raise CriterionOutputError(f"{where} {_shown(scores)} (dtype {array.dtype}) {node}; {accepted}")
    if array.shape != (m,):
        what = "a scalar" if array.ndim == 0 else f"shape {array.shape}"
        raise CriterionOutputError(f"{where} {what} {node}; {accepted}")
    array = array.astype(np.float64, copy=False)
    bad = np.isnan(array) | (array == np.inf)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        raise CriterionOutputError(
            f"{where} {array[index]} for candidate {index + 1} of {m} of a node of {describe_counts(parent)}; "
            f"{accepted}"
        )
    return array


def _node_value_guard(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def node_value(self: Any, counts: Any, *args: Any, **kwargs: Any) -> float:
        return check_node_value(self, method(self, counts, *args, **kwargs), counts)

    return node_value


def _scores_guard(method: Callable[..., Any], name: str) -> Callable[..., Any]:
    @functools.wraps(method)
    def scores(self: Any, parent: Any, children: Any, *args: Any, **kwargs: Any) -> np.ndarray | None:
        return check_scores(self, name, method(self, parent, children, *args, **kwargs), parent, children)

    return scores
