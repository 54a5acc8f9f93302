"""Tsallis entropy and Tsallis gain ratio (paper 002, Wang, Song & Xia)."""

from __future__ import annotations

import numpy as np

from treebench.criteria.base import (
    Criterion,
    Param,
    SplitContext,
    as_children,
    frequencies,
    weighted_child_values,
)
from treebench.criteria.classic import ratio_or_invalid, shannon_rows, split_information
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

    def node_value(self, counts: np.ndarray) -> float:
        return float(tsallis_rows(counts, self.q))

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        rows = lambda c: tsallis_rows(c, self.q)  # noqa: E731
        return self.node_value(parent) - weighted_child_values(children, rows)

    def kernel_params(self, max_branches: int) -> np.ndarray:
        return np.array([self.q])


class TsallisGainRatio(Tsallis):
    """Tsallis gain ratio (paper 002, eq. 21 with H replaced by S_q).

    Reading chosen: both the gain and the split information use ``S_q`` (the
    paper replaces H by Tsallis entropy throughout eq. 21), so at ``q = 1`` this
    is exactly C4.5's gain ratio; like ``gain_ratio``, thresholds are chosen by
    the gain and features compared by the ratio under C4.5's average-gain
    rule, which keeps that equivalence for whole trees.
    """

    name = "tsallis_gain_ratio"
    summary = "Tsallis gain / Tsallis split information; q=1 is C4.5 gain ratio"
    kernel_id = 4
    average_gain_rule = True

    def candidate_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        return Tsallis.split_scores(self, parent, children, context)

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        gain = Tsallis.split_scores(self, parent, children, context)
        split_info = split_information(children, lambda c: tsallis_rows(c, self.q))
        return ratio_or_invalid(gain, split_info)
