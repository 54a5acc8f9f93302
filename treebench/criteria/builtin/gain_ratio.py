"""Gain ratio (C4.5, Quinlan 1993): information gain / split information.

Oracle: :class:`GainRatio` (with :func:`split_information` and
:func:`ratio_or_invalid`, which Tsallis' gain ratio shares).  Compiled: the
gain is entropy's (:mod:`treebench.criteria.builtin.entropy`'s ``g`` and
``mass``); :func:`split_info` divides it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.criteria.base import SplitContext, as_children, branch_weights
from treebench.criteria.builtin.entropy import Entropy, shannon_rows
from treebench.criteria.builtin.entropy import g as g
from treebench.criteria.builtin.entropy import mass as mass
from treebench.criteria.builtin.spec import ADDITIVE, Kernel
from treebench.kernels.arith import LOG2
from treebench.kernels.tolerances import SPLIT_INFO_FLOOR  # as the compiled gain ratio


def split_information(children: np.ndarray, entropy_of_rows=shannon_rows) -> np.ndarray:
    """Entropy of the branch proportions of each candidate (C4.5's split info)."""
    sizes, _ = branch_weights(children)
    return entropy_of_rows(sizes)


def ratio_or_invalid(gain: np.ndarray, split_info: np.ndarray) -> np.ndarray:
    """``gain / split_info``; a split with no split information (a single
    non-empty branch) is not a split and scores ``-inf``."""
    return np.divide(gain, split_info, out=np.full_like(gain, -np.inf), where=split_info > SPLIT_INFO_FLOOR)


class GainRatio(Entropy):
    """C4.5's gain ratio (Quinlan 1993): information gain / split information.

    Reading chosen: as in C4.5 (and Weka's J48), the threshold of a numeric
    feature is chosen by information gain (:meth:`candidate_scores`); features
    are then compared by gain ratio, and only features whose gain is at least
    the average gain of the usable features compete.  C4.5's MDL correction of
    numeric gains (Release 8) is not applied.
    """

    name = "gain_ratio"
    summary = "C4.5 gain ratio with the at-least-average-gain rule"
    paper = "Quinlan 1993; baseline in papers 000, 002, 003"
    kernel_id = 1
    stored_as = "treebench.criteria.classic.GainRatio"
    average_gain_rule = True

    def candidate_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        return Entropy.split_scores(self, parent, children, context)

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        gain = Entropy.split_scores(self, parent, children, context)
        return ratio_or_invalid(gain, split_information(children))


@njit(cache=True, inline="always")
def shannon_split_information(sizes: np.ndarray, n_branches: int, n) -> float:
    """``-sum_j p_j ln p_j`` of the branch proportions (nats; empty branches add nothing)."""
    acc = 0.0
    for j in range(n_branches):
        if sizes[j] > 0:
            p = sizes[j] / n
            acc -= p * math.log(p)
    return acc


@njit(cache=True, inline="always")
def split_info(params: np.ndarray, sizes: np.ndarray, n_branches: int, n) -> float:
    """Shannon entropy (bits) of the branch proportions."""
    return shannon_split_information(sizes, n_branches, n) / LOG2


KERNELS = (Kernel(GainRatio.kernel_id, "gain_ratio", ADDITIVE, g_of_size=True, ratio=True),)
CRITERIA = (GainRatio,)
