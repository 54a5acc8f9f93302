"""Possibilistic cumulative entropy (paper 000, Serrurier & Prade, ICML 2015).

Oracle: :func:`possibilistic_entropy` and :class:`Possibilistic`.  Compiled:
:func:`cumulative_entropy` of one count row (an insertion sort of the counts,
then one Agresti-Coull bound per class), so a child's mass needs its whole
row; the quantile of a child depends on its split's branch count
(``params = [gamma, z(r=1), z(r=2), ...]``, see :meth:`Possibilistic.kernel_params`).
Unweighted numeric features are searched by the bounded scan of
:mod:`treebench.kernels.possibilistic_bound`, which scores most candidates by
a tabulated lower bound and the rest exactly, through this module.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.criteria.base import Criterion, Param, SplitContext, as_children, branch_weights
from treebench.criteria.builtin.spec import ROWS, Kernel
from treebench.kernels.arith import LOG2, insert_sorted

GAMMA_PARAM = Param(
    "gamma",
    0.05,
    float,
    low=0.0,
    high=1.0,
    low_open=True,
    high_open=True,
    doc="confidence level of the Agresti-Coull intervals (the paper tunes it)",
)


def dunn_sidak(gamma: float, comparisons: int) -> float:
    """Dunn-Šidák corrected level ``1 - (1 - gamma)^(1/r)`` for ``r`` comparisons."""
    return 1.0 - (1.0 - gamma) ** (1.0 / comparisons)


def z_value(gamma: float) -> float:
    """The ``1 - gamma/2`` quantile of the standard normal distribution."""
    from scipy.special import ndtri  # lazy: keeps the CLI start-up fast

    return float(ndtri(1.0 - gamma / 2.0))


def agresti_coull_upper(successes: np.ndarray, n: float, z: float) -> np.ndarray:
    """Upper bound of the Agresti-Coull interval (eq. 13).

    ``n~ = n + z^2``, ``p~ = (x + z^2/2) / n~``, bound ``p~ + z sqrt(p~(1-p~)/n~)``.
    """
    n_tilde = n + z * z
    p_tilde = (np.asarray(successes, dtype=float) + 0.5 * z * z) / n_tilde
    return p_tilde + z * np.sqrt(p_tilde * (1.0 - p_tilde) / n_tilde)


def possibilistic_entropy(counts: np.ndarray, z: float) -> float:
    """``H*_{pi-l}(p, n, gamma)`` of eq. 15 for one count vector.

    Steps: sort the class frequencies increasingly (the permutation sigma of
    eq. 14); the cumulative frequencies are the P-Pi transform ``T*_p``; the
    possibility degrees are the Agresti-Coull upper bounds of those cumulative
    events (eq. 14), capped at 1, the last one (the whole universe) being 1;
    then eq. 12.

    Reading chosen (see the papers' README): eq. 12 is normalised by
    ``q log 2`` rather than the printed ``q log q``, so total ignorance scores
    1 and Example 2 gives 0.817 as the paper states (``q log q`` gives 0.52).
    The normaliser does not change which split wins.  An empty node is total
    ignorance (every possibility degree is 1) and scores 1.

    Note: the paper says the entropy is 0 for complete knowledge, but eq. 12
    always includes the whole universe (``T* = pi = 1``), which adds
    ``log 2``; complete knowledge therefore scores ``1/q``.  Example 2's value
    needs that term, and since it is the same constant for a parent and the
    weighted sum of its children it never changes a gain; it does make eq. 18
    (a sum over leaves) grow by ``1/q`` per leaf.
    """
    counts = np.asarray(counts, dtype=float)
    q = counts.shape[0]
    n = counts.sum()
    if n <= 0:
        return 1.0
    cumulative = np.cumsum(np.sort(counts))
    t_star = cumulative / n
    pi = np.minimum(agresti_coull_upper(cumulative, n, z), 1.0)
    pi[-1] = 1.0
    loss = t_star / 2.0 * np.log(pi / 2.0) + (1.0 - t_star / 2.0) * np.log(1.0 - pi / 2.0)
    return float(-loss.sum() / (q * math.log(2.0)))


class Possibilistic(Criterion):
    """Possibilistic cumulative entropy gain ``G^pi_gamma`` (paper 000, eq. 17).

    ``G = H*(p_Z, n, gamma) - sum_k |v_k|/n H*(p_vk, |v_k|, DS(gamma, r))``: the
    children are scored with the Dunn-Šidák corrected level for the split's
    ``r`` branches.  The gain can be negative; the paper grows a node only
    while the best gain is positive, so :meth:`accepts` is ``score > min_gain``
    (strict, ``min_gain = 0``).  :meth:`tree_quality` is eq. 18, the sum over the
    leaves of ``H*(p_l, n_l, gamma)``.
    """

    name = "possibilistic"
    summary = "possibilistic cumulative entropy gain (PiTree); stops when gain <= 0"
    paper = "000 Serrurier & Prade 2015"
    params = (GAMMA_PARAM,)
    kernel_id = 6
    stored_as = "treebench.criteria.possibilistic.Possibilistic"

    def node_value(self, counts: np.ndarray) -> float:
        return possibilistic_entropy(counts, z_value(self.gamma))

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        sizes, totals = branch_weights(children)
        n_branches = children.shape[1]
        z_children = z_value(dunn_sidak(self.gamma, n_branches))
        parent_value = self.node_value(parent)
        scores = np.empty(children.shape[0])
        for i, (rows, row_sizes, total) in enumerate(zip(children, sizes, totals)):
            weighted = sum(
                size / total * possibilistic_entropy(row, z_children)
                for row, size in zip(rows, row_sizes)
                if size > 0
            )
            scores[i] = parent_value - weighted
        return scores

    def accepts(self, score: float) -> bool:
        return bool(score > self.min_gain)

    def tree_quality(self, leaf_counts: np.ndarray) -> float:
        z = z_value(self.gamma)
        return float(sum(possibilistic_entropy(row, z) for row in np.asarray(leaf_counts)))

    def kernel_params(self, max_branches: int) -> np.ndarray:
        # [gamma, z(DS(gamma, 1)) = z(gamma), z(DS(gamma, 2)), ..., z(DS(gamma, R))]
        zs = [z_value(dunn_sidak(self.gamma, r)) for r in range(1, max(2, max_branches) + 1)]
        return np.array([self.gamma, *zs])


LOG_HALF = math.log(0.5)


@njit(cache=True, inline="always")
def upper_bound(successes: float, n: float, z: float) -> float:
    """:func:`agresti_coull_upper` of one count (compiled)."""
    n_tilde = n + z * z
    p_tilde = (successes + 0.5 * z * z) / n_tilde
    return p_tilde + z * math.sqrt(p_tilde * (1.0 - p_tilde) / n_tilde)


@njit(cache=True, inline="always")
def cumulative_entropy(row: np.ndarray, s, z: float, scratch: np.ndarray) -> float:
    """:func:`possibilistic_entropy` of one count row of ``s`` samples (compiled; ``scratch``: ``k`` floats)."""
    k = row.shape[0]
    if s == 0:
        return 1.0
    for i in range(k):  # insertion sort of the counts, increasing (k is small)
        insert_sorted(scratch, i, float(row[i]))
    total = 0.0
    cumulative = 0.0
    n = float(s)
    for i in range(k):
        cumulative += scratch[i]
        t_star = cumulative / n
        if i == k - 1:
            if t_star == 1.0:
                # pi = 1 and t = 1: the term is log(1/2) exactly; skipping its two logs
                # saves a quarter of the work at k = 4 (integer counts always land here)
                total += LOG_HALF
                continue
            pi = 1.0
        else:
            pi = min(upper_bound(cumulative, n, z), 1.0)
        total += 0.5 * t_star * math.log(0.5 * pi) + (1.0 - 0.5 * t_star) * math.log(1.0 - 0.5 * pi)
    return -total / (k * LOG2)


@njit(cache=True, inline="always")
def possibilistic_mass(row: np.ndarray, s, z: float, scratch: np.ndarray) -> float:
    """``s * H*_{pi-l}`` of one child, with the quantile ``z`` of its split's branch count."""
    if s == 0:
        return 0.0
    return s * cumulative_entropy(row, s, z, scratch)


@njit(cache=True, inline="always")
def row_mass(params: np.ndarray, row: np.ndarray, s, n_branches: int, scratch: np.ndarray) -> float:
    """:func:`possibilistic_mass` with the quantile of ``n_branches`` branches (``params[n_branches]``)."""
    return possibilistic_mass(row, s, params[n_branches], scratch)


@njit(cache=True, inline="always")
def pair_mass(left: np.ndarray, parent: np.ndarray, right: np.ndarray, w_left, total, z, scratch) -> float:
    """Both children of a threshold with the two-branch quantile ``z``; fills ``right`` (each row is sorted)."""
    w_right = total - w_left
    for i in range(left.shape[0]):
        right[i] = parent[i] - left[i]
    return possibilistic_mass(left, w_left, z, scratch) + possibilistic_mass(right, w_right, z, scratch)


KERNELS = (Kernel(Possibilistic.kernel_id, "possibilistic", ROWS, bounded_scan=True, quantile=True),)
CRITERIA = (Possibilistic,)
