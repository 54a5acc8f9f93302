"""The classic criteria: ID3 information gain, C4.5 gain ratio, CART Gini."""

from __future__ import annotations

import numpy as np

from treebench.criteria.base import (
    Criterion,
    SplitContext,
    as_children,
    branch_weights,
    frequencies,
    weighted_child_values,
)
from treebench.kernels.tolerances import SPLIT_INFO_FLOOR  # as the compiled gain ratio


def shannon_rows(counts: np.ndarray, log=np.log2) -> np.ndarray:
    """Shannon entropy of every count row (last axis), with 0·log 0 = 0."""
    p, _ = frequencies(counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * log(np.where(p > 0, p, 1.0)), 0.0)
    return -terms.sum(axis=-1) + 0.0  # + 0.0 turns -0.0 into 0.0


def gini_rows(counts: np.ndarray) -> np.ndarray:
    """Gini impurity ``1 - sum p^2`` of every count row (0 for an empty row)."""
    p, totals = frequencies(counts)
    return np.where(totals > 0, 1.0 - (p * p).sum(axis=-1), 0.0)


def split_information(children: np.ndarray, entropy_of_rows=shannon_rows) -> np.ndarray:
    """Entropy of the branch proportions of each candidate (C4.5's split info)."""
    sizes, _ = branch_weights(children)
    return entropy_of_rows(sizes)


def ratio_or_invalid(gain: np.ndarray, split_info: np.ndarray) -> np.ndarray:
    """``gain / split_info``; a split with no split information (a single
    non-empty branch) is not a split and scores ``-inf``."""
    return np.divide(gain, split_info, out=np.full_like(gain, -np.inf), where=split_info > SPLIT_INFO_FLOOR)


class Entropy(Criterion):
    """ID3's information gain (Quinlan 1986), in bits.

    ``node_value`` is the Shannon entropy ``H(p) = -sum p log2 p``; a split
    scores ``H(parent) - sum_j |v_j|/n H(child_j)``.
    """

    name = "entropy"
    summary = "ID3 information gain (Shannon entropy, bits)"
    paper = "Quinlan 1986; baseline in papers 000, 002"
    kernel_id = 0

    def node_value(self, counts: np.ndarray) -> float:
        return float(shannon_rows(counts))

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        return self.node_value(parent) - weighted_child_values(children, shannon_rows)


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
    average_gain_rule = True

    def candidate_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        return Entropy.split_scores(self, parent, children, context)

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        gain = Entropy.split_scores(self, parent, children, context)
        return ratio_or_invalid(gain, split_information(children))


class Gini(Criterion):
    """CART's Gini impurity decrease (Breiman et al. 1984)."""

    name = "gini"
    summary = "CART Gini impurity decrease"
    paper = "Breiman et al. 1984; baseline in papers 001, 002"
    kernel_id = 2

    def node_value(self, counts: np.ndarray) -> float:
        return float(gini_rows(counts))

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        children = as_children(children)
        return self.node_value(parent) - weighted_child_values(children, gini_rows)
