"""Tsallis entropy gain (paper 002, Wang, Song & Xia).

Oracle: :func:`tsallis_rows` and :class:`Tsallis`.  Compiled: ``g(c) = c^q``,
so a child of size ``s`` has the mass ``s S_q = (s - G s / s^q) / (q - 1)``;
at ``q ~ 1`` (:data:`~treebench.kernels.tolerances.Q_ONE_TOLERANCE`) Shannon
entropy in nats, ``g(c) = c ln c`` and the mass ``g(s) - G``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.criteria.base import (
    Criterion,
    Param,
    SplitContext,
    as_children,
    frequencies,
    weighted_child_values,
)
from treebench.criteria.builtin.entropy import shannon_rows
from treebench.criteria.builtin.spec import ADDITIVE, Kernel
from treebench.kernels.tolerances import Q_ONE_TOLERANCE  # the compiled kernel's q ~ 1 rule, shared

Q_PARAM = Param(
    "q", 2.0, float, low=0.0, low_open=True, doc="entropic index; q->1 is Shannon, q=2 is Gini"
)


def tsallis_rows(counts: np.ndarray, q: float) -> np.ndarray:
    """``S_q(p) = (1 - sum p^q) / (q - 1)`` per count row; natural-log Shannon at q = 1."""
    if abs(q - 1.0) < Q_ONE_TOLERANCE:
        return shannon_rows(counts, log=np.log)
    p, totals = frequencies(counts)
    # 0^q = 0 for q > 0: empty classes add nothing.
    power_sum = np.where(p > 0, np.power(np.where(p > 0, p, 1.0), q), 0.0).sum(axis=-1)
    return np.where(totals > 0, (1.0 - power_sum) / (q - 1.0), 0.0)


class Tsallis(Criterion):
    """Tsallis entropy gain (paper 002, eqs. 1 and 17).

    ``S_q(p) = (1 - sum_i p_i^q) / (q - 1)``, with ``q > 0``.  At ``q -> 1`` it is
    Shannon entropy in nats (the same splits as ``entropy``), at ``q = 2`` it is
    the Gini index exactly.  The split score is the impurity decrease
    ``S_q(parent) - sum_j |v_j|/n S_q(child_j)``.
    """

    name = "tsallis"
    summary = "Tsallis entropy gain; q->1 Shannon, q=2 Gini"
    paper = "002 Wang, Song & Xia"
    params = (Q_PARAM,)
    kernel_id = 3
    stored_as = "treebench.criteria.tsallis.Tsallis"

    def node_value(self, counts: np.ndarray) -> float:
        return float(tsallis_rows(counts, self.q))

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        rows = lambda c: tsallis_rows(c, self.q)  # noqa: E731
        return self.node_value(parent) - weighted_child_values(children, rows)

    def kernel_params(self, max_branches: int) -> np.ndarray:
        return np.array([self.q])


@njit(cache=True, inline="always")
def is_shannon(q: float) -> bool:
    """Whether ``q`` is 1 within the tolerance the numpy formula uses."""
    return abs(q - 1.0) < Q_ONE_TOLERANCE


@njit(cache=True)
def g(q: float, c: float) -> float:
    """``c^q``, or ``c ln c`` at ``q ~ 1``."""
    if is_shannon(q):
        return c * math.log(c)
    return c**q


@njit(cache=True)
def mass(q: float, s, g_sum: float, g_s: float) -> float:
    """``s S_q``: ``s (1 - sum (c/s)^q) / (q - 1)`` with ``s^(q-1) = g(s) / s``; ``g(s) - G`` (nats) at ``q ~ 1``."""
    if is_shannon(q):
        return g_s - g_sum
    return (s - g_sum * s / g_s) / (q - 1.0)


KERNELS = (Kernel(Tsallis.kernel_id, "tsallis", ADDITIVE, g_of_size=True),)
CRITERIA = (Tsallis,)
