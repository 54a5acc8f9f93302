"""Which of several equally good split features a compiled builder takes.

Two rules (the ``feature_ties`` option of every tree estimator):

* ``first`` -- the lowest column index among the tied features (the split
  searches visit features in column order and replace the best only when
  strictly better);
* ``random`` -- one of the tied features, each with the same probability.
  This is the distribution scikit-learn's trees give by visiting the
  features of every node in a fresh random permutation, drawn here more
  cheaply (:func:`pick_tied`): after the usual search has found the first
  best feature, a second pass over the features takes each further one
  that ties it with probability ``1 / (number of tied features so far)``
  (reservoir sampling).  Draws are made only where ties occur, and
  ``first`` costs one test per node.

The random draws come from a SplitMix64 stream held in a one-element uint64
array (``state``): a builder's whole fit advances one stream, so a tree is
fixed by its seed, whatever the platform or numba's global generator.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebench.kernels.candidates import ties
from treebench.kernels.tolerances import TIE_TOLERANCE

#: ``feature_ties`` values (the kernels take the rule as "a stream or none": ``None`` is ``first``).
TIE_RULES: tuple[str, ...] = ("first", "random")

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)


def tie_state(seed: int) -> np.ndarray:
    """A fresh stream for ``seed`` (an integer >= 0): the ``state`` the kernels advance."""
    return np.array([int(seed) % 2**64], dtype=np.uint64)


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def next_u64(state: np.ndarray) -> np.uint64:
    """Advance the SplitMix64 stream in ``state[0]`` and return its next 64-bit output."""
    z = state[0] + _GOLDEN
    state[0] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def replaces_tied(state: np.ndarray, n_tied: int) -> bool:
    """Whether the ``n_tied``-th tied candidate (counting the kept one) replaces the kept one.

    True with probability ``1 / n_tied``: the 53 high bits of the next output
    as a uniform number in ``[0, 1)``, compared with ``1 / n_tied``.
    """
    u = np.float64(next_u64(state) >> _S11) * (1.0 / 9007199254740992.0)
    return u * n_tied < 1.0


@njit(cache=True, no_cfunc_wrapper=True)
def pick_tied(
    chosen: int,
    candidate_best: np.ndarray,
    split_best: np.ndarray,
    tie_best: np.ndarray,
    use_tie_scores: bool,
    average_gain_rule: bool,
    state: np.ndarray,
) -> int:
    """One of the features tied with ``chosen`` (the ``first`` rule's pick), uniformly at random.

    A feature ties when its split score ties ``chosen``'s (and, with
    ``use_tie_scores``, its tie score too: certainty's entropy key) and it
    passes the average-gain rule, exactly the features the ``first`` search
    could have kept had they come first.  ``-inf`` scores mark features with
    no candidate.  Draws one number per tied feature after the first.
    """
    n_features = split_best.shape[0]
    average = 0.0
    if average_gain_rule:
        n_usable = 0
        for f in range(n_features):
            if split_best[f] > -np.inf:
                n_usable += 1
                average += candidate_best[f]
        average /= n_usable
    anchor = chosen
    n_tied = 0
    for f in range(n_features):
        if split_best[f] == -np.inf:
            continue
        if average_gain_rule and candidate_best[f] < average - TIE_TOLERANCE * max(1.0, abs(average)):
            continue
        if not ties(split_best[f], split_best[anchor]):
            continue
        if use_tie_scores and not ties(tie_best[f], tie_best[anchor]):
            continue
        n_tied += 1
        if n_tied > 1 and replaces_tied(state, n_tied):
            chosen = f
    return chosen
