"""The certainty function (paper 003, Peñate-Díaz).

Oracle: :func:`certainty_rows` and :class:`Certainty`.  Compiled: a purity,
so the kernels minimise ``-I``; a child of size ``s`` has the mass ``-sum_i
|c_i - s/k|`` (:func:`row_mass`), which needs the whole count row.  Tied
gains are ranked by entropy gain (:func:`has_tie_break`; the scans keep it as
running sums of the entropy table).
"""

from __future__ import annotations

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
from treebench.criteria.builtin.spec import ROWS, Kernel

#: ``I(C|A) - I(C)`` above this counts as raising certainty (round-off guard).
RAISE_TOLERANCE = 1e-12


def certainty_rows(counts: np.ndarray) -> np.ndarray:
    """``I(X) = sum_i |p_i - 1/N|`` per count row, ``N`` = number of classes.

    An empty row has certainty 0 (it carries no weight in a split anyway).
    """
    p, totals = frequencies(counts)
    return np.where(totals > 0, np.abs(p - 1.0 / p.shape[-1]).sum(axis=-1), 0.0)


class Certainty(Criterion):
    """Certainty gain: conditional certainty ``I(C|A)`` minus ``I(C)``.

    ``I(C) = sum_i |p(c_i) - 1/N|`` (``N`` classes of the problem) and
    ``I(C|A) = sum_j p(a_j) sum_i |p(c_i|a_j) - 1/N|``; the paper maximises
    ``I(C|A)``.  Reading chosen: the split score is ``I(C|A) - I(C)``, which has
    the same maximiser and makes ``score > 0`` exactly the certainty-raising
    inequality ``I(C|A) > I(C)`` (see :meth:`raises_certainty`).  By the
    triangle inequality ``I(C|A) >= I(C)`` always holds, so the score is never
    negative; as in ID3 the tree keeps splitting impure nodes (``min_gain = 0``).

    Ties: the gain is piecewise linear, so many candidates tie -- most often at
    zero, when no child changes which side of 1/N a class is on (for two
    classes the gain is twice the drop in training errors).  Taking the first
    tied candidate grows long chains that peel off a few samples at a time.
    The paper does not say how ties are broken; ``tie_break="entropy"`` (the
    default) ranks tied candidates by their information gain, ``"none"``
    keeps the first.
    """

    name = "certainty"
    summary = "certainty gain I(C|A) - I(C) (maximises conditional certainty)"
    paper = "003 Peñate-Díaz"
    params = (
        Param(
            "tie_break",
            "entropy",
            str,
            choices=("entropy", "none"),
            doc="second key for tied certainty gains: entropy gain, or none (first candidate)",
        ),
    )
    kernel_id = 5
    stored_as = "treebench.criteria.certainty.Certainty"
    version = 2  # 2: tied gains ranked by entropy gain
    node_value_is_purity = True  # I(C) is a certainty: splits raise it

    def node_value(self, counts: np.ndarray) -> float:
        return float(certainty_rows(counts))

    def conditional_certainty(self, children: np.ndarray) -> np.ndarray:
        """``I(C|A)`` of each candidate split."""
        return weighted_child_values(as_children(children), certainty_rows)

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        return self.conditional_certainty(children) - self.node_value(parent)

    def tie_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray | None:
        if self.tie_break == "none":
            return None
        from treebench.criteria.builtin.entropy import Entropy

        return Entropy.split_scores(self, parent, children, context)

    def kernel_params(self, max_branches: int) -> np.ndarray:
        return np.array([1.0 if self.tie_break == "entropy" else 0.0])

    def raises_certainty(self, parent: np.ndarray, children: np.ndarray) -> np.ndarray:
        """The certainty-raising inequality ``I(C|A) > I(C)`` for each candidate."""
        return self.split_scores(parent, children) > RAISE_TOLERANCE


@njit(cache=True, inline="always")
def row_mass(params: np.ndarray, row: np.ndarray, s, n_branches: int, scratch: np.ndarray) -> float:
    """``s * impurity`` of one certainty child: ``-sum_i |c_i - s/k|`` (no parameter of the formula)."""
    k = row.shape[0]
    share = s / k
    acc = 0.0
    for i in range(k):
        acc += abs(row[i] - share)
    return -acc


@njit(cache=True, inline="always")
def pair_mass(left: np.ndarray, parent: np.ndarray, right: np.ndarray, w_left, total, z, scratch) -> float:
    """Both children of a threshold, the right one's counts read as ``parent - left`` in the same loop."""
    w_right = total - w_left
    k = left.shape[0]
    share_left = w_left / k
    share_right = w_right / k
    acc = 0.0
    for i in range(k):
        acc += abs(left[i] - share_left) + abs(parent[i] - left[i] - share_right)
    return -acc


@njit(cache=True, inline="always")
def has_tie_break(params: np.ndarray) -> bool:
    """``tie_break="entropy"`` (``params[0] = 1``)."""
    return params.shape[0] > 0 and params[0] > 0.5


KERNELS = (Kernel(Certainty.kernel_id, "certainty", ROWS, purity=True, tie_break=True),)
CRITERIA = (Certainty,)
