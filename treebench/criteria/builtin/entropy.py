"""Information gain (ID3, Quinlan 1986): Shannon entropy in bits.

Oracle: :func:`shannon_rows` and :class:`Entropy`.  Compiled: ``g(c) = c
log2 c``, so a child of size ``s`` has the mass ``s H = s log2 s - sum_i c_i
log2 c_i = g(s) - G`` (:func:`mass`).
"""

from __future__ import annotations

import math

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


def shannon_rows(counts: np.ndarray, log=np.log2) -> np.ndarray:
    """Shannon entropy of every count row (last axis), with 0·log 0 = 0."""
    p, _ = frequencies(counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * log(np.where(p > 0, p, 1.0)), 0.0)
    return -terms.sum(axis=-1) + 0.0  # + 0.0 turns -0.0 into 0.0


class Entropy(Criterion):
    """ID3's information gain (Quinlan 1986), in bits.

    ``node_value`` is the Shannon entropy ``H(p) = -sum p log2 p``; a split
    scores ``H(parent) - sum_j |v_j|/n H(child_j)``.
    """

    name = "entropy"
    summary = "ID3 information gain (Shannon entropy, bits)"
    paper = "Quinlan 1986; baseline in papers 000, 002"
    kernel_id = 0
    stored_as = "treebench.criteria.classic.Entropy"

    def node_value(self, counts: np.ndarray) -> float:
        return float(shannon_rows(counts))

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        return self.node_value(parent) - weighted_child_values(children, shannon_rows)


@njit(cache=True)
def g(q: float, c: float) -> float:
    """``c log2 c`` (``c > 0``)."""
    return c * math.log2(c)


@njit(cache=True)
def mass(q: float, s, g_sum: float, g_s: float) -> float:
    """``s log2 s - sum c log2 c = s * H`` (bits)."""
    return g_s - g_sum


KERNELS = (Kernel(Entropy.kernel_id, "entropy", ADDITIVE, g_of_size=True),)
CRITERIA = (Entropy,)
