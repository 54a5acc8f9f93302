"""Gini impurity decrease (CART, Breiman et al. 1984).

Oracle: :func:`gini_rows` and :class:`Gini`.  Compiled: ``g(c) = c^2``, so a
child of size ``s`` has the mass ``s (1 - sum_i (c_i/s)^2) = s - G/s``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebench.criteria.base import (
    Criterion,
    SplitContext,
    as_children,
    frequencies,
    weighted_child_values,
)
from treebench.criteria.builtin.spec import ADDITIVE, Kernel


def gini_rows(counts: np.ndarray) -> np.ndarray:
    """Gini impurity ``1 - sum p^2`` of every count row (0 for an empty row)."""
    p, totals = frequencies(counts)
    return np.where(totals > 0, 1.0 - (p * p).sum(axis=-1), 0.0)


class Gini(Criterion):
    """CART's Gini impurity decrease (Breiman et al. 1984)."""

    name = "gini"
    summary = "CART Gini impurity decrease"
    paper = "Breiman et al. 1984; baseline in papers 001, 002"
    kernel_id = 2
    stored_as = "treebench.criteria.classic.Gini"

    def node_value(self, counts: np.ndarray) -> float:
        return float(gini_rows(counts))

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        return self.node_value(parent) - weighted_child_values(children, gini_rows)


@njit(cache=True)
def g(q: float, c: float) -> float:
    """``c^2``."""
    return c * c


@njit(cache=True)
def mass(q: float, s, g_sum: float, g_s: float) -> float:
    """``s - G / s``."""
    return s - g_sum / s


KERNELS = (Kernel(Gini.kernel_id, "gini", ADDITIVE),)
CRITERIA = (Gini,)
