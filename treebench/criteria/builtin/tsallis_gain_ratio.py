"""Tsallis gain ratio (paper 002, eq. 21 with H replaced by S_q).

Oracle: :class:`TsallisGainRatio`.  Compiled: the gain is Tsallis'
(:mod:`treebench.criteria.builtin.tsallis`' ``g`` and ``mass``), divided by
the ``S_q`` of the branch proportions (:func:`split_info`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebench.criteria.base import SplitContext, as_children
from treebench.criteria.builtin.gain_ratio import (
    ratio_or_invalid,
    shannon_split_information,
    split_information,
)
from treebench.criteria.builtin.spec import ADDITIVE, Kernel
from treebench.criteria.builtin.tsallis import Tsallis, is_shannon, tsallis_rows
from treebench.criteria.builtin.tsallis import g as g
from treebench.criteria.builtin.tsallis import mass as mass


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
    stored_as = "treebench.criteria.tsallis.TsallisGainRatio"
    average_gain_rule = True

    def candidate_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        return Tsallis.split_scores(self, parent, children, context)

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        gain = Tsallis.split_scores(self, parent, children, context)
        info = split_information(children, lambda c: tsallis_rows(c, self.q))
        return ratio_or_invalid(gain, info)


@njit(cache=True, inline="always")
def split_info(params: np.ndarray, sizes: np.ndarray, n_branches: int, n) -> float:
    """``S_q`` of the branch proportions (Shannon, nats, at ``q ~ 1``)."""
    q = params[0]
    if is_shannon(q):
        return shannon_split_information(sizes, n_branches, n)
    power_sum = 0.0
    for j in range(n_branches):
        if sizes[j] > 0:
            power_sum += (sizes[j] / n) ** q
    return (1.0 - power_sum) / (q - 1.0)


KERNELS = (Kernel(TsallisGainRatio.kernel_id, "tsallis_gain_ratio", ADDITIVE, g_of_size=True, ratio=True),)
CRITERIA = (TsallisGainRatio,)
