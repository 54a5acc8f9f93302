"""Dispatch of the compiled kernels on the built-in criteria -- GENERATED, do not edit.

Written by ``python -m treebench.criteria.builtin.generate`` from the
``KERNELS`` declarations of the modules of :mod:`treebench.criteria.builtin`
(tests/test_criteria_dispatch.py fails when the two disagree).  Each function
is one ``if cid == K`` ladder whose branches call a criterion module directly,
so numba inlines or links them like any other call and caches them to disk;
the reasons are in :mod:`treebench.criteria.builtin.generate`.  The generic
scoring built on it is :mod:`treebench.kernels.scoring`.

The one import from a higher layer (kernels -> criteria) in the package: the
kernels reach the criteria only through this module (tests/test_layers.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import overload

import treebench.criteria.builtin.belief as _belief
import treebench.criteria.builtin.certainty as _certainty
import treebench.criteria.builtin.entropy as _entropy
import treebench.criteria.builtin.gain_ratio as _gain_ratio
import treebench.criteria.builtin.gini as _gini
import treebench.criteria.builtin.possibilistic as _possibilistic
import treebench.criteria.builtin.tsallis as _tsallis
import treebench.criteria.builtin.tsallis_gain_ratio as _tsallis_gain_ratio

ENTROPY = 0
GAIN_RATIO = 1
GINI = 2
TSALLIS = 3
TSALLIS_GAIN_RATIO = 4
CERTAINTY = 5
POSSIBILISTIC = 6
BELIEF = 7
BELIEF_OVR = 8

#: Length :func:`class_params` widens every parameter array to (zeros appended), so that the
#: per-candidate functions read ``params[:5]`` unconditionally.
PARAMS_WIDTH = 5


@njit(cache=True, inline="always")
def is_additive(cid: int) -> bool:
    """Whether a child's mass is a function of its size and ``G = sum_i g(c_i)``."""
    return cid == 0 or cid == 1 or cid == 2 or cid == 3 or cid == 4 or cid == 7 or cid == 8


@njit(cache=True, inline="always")
def is_one_vs_rest(cid: int) -> bool:
    """Whether ``G`` also sums ``g(s - c_i)`` over the classes (O(k) per candidate)."""
    return cid == 8


@njit(cache=True, inline="always")
def is_ratio(cid: int) -> bool:
    """Whether the reported score divides the gain by a split information."""
    return cid == 1 or cid == 4


@njit(cache=True, inline="always")
def is_purity(cid: int) -> bool:
    """Whether the node measure is a purity (the kernels minimise its negation)."""
    return cid == 5


@njit(cache=True, inline="always")
def has_bounded_scan(cid: int) -> bool:
    """Whether unweighted numeric features are searched by the bounded scan."""
    return cid == 6


@njit(cache=True, inline="always")
def scores_label_masses(cid: int) -> bool:
    """Whether the label-mass sweeps score it (two classes)."""
    return cid == 7


@njit(cache=True, inline="always")
def takes_quantile(cid: int) -> bool:
    """Whether a row-scored criterion's pair mass takes a quantile ``z``."""
    return cid == 6


@njit(cache=True, inline="always")
def _completed(cid: int, params: np.ndarray, k: int):
    """``(cid, params)`` completed for ``k`` classes by the criteria that need the class count, else unchanged."""
    if cid == 7 or cid == 8:
        return _belief.class_params(cid, params, k)
    return cid, params


@njit(cache=True)
def class_params(cid: int, params: np.ndarray, k: int):
    """``(cid, params)`` for ``k`` classes: completed by the criteria that need the class count, and
    widened to :data:`PARAMS_WIDTH` (zeros appended).  Every builder calls it before scoring."""
    cid, params = _completed(cid, params, k)
    if params.shape[0] >= PARAMS_WIDTH:
        return cid, params
    wide = np.zeros(PARAMS_WIDTH)
    for i in range(params.shape[0]):  # not a slice assignment: its shape check compiles string formatting
        wide[i] = params[i]
    return cid, wide


@njit(cache=True)
def g_value(cid: int, q: float, c: float) -> float:
    """``g(c)`` of an additive criterion (``q = params[0]``); ``g(c <= 0) = 0``, which also absorbs
    the rounding of weighted counts that should be 0.  Scalars only: a call costs no reference counting."""
    if c <= 0.0:
        return 0.0
    if cid == 0 or cid == 1:
        return _entropy.g(q, c)
    if cid == 2:
        return _gini.g(q, c)
    if cid == 3 or cid == 4:
        return _tsallis.g(q, c)
    if cid == 7 or cid == 8:
        return _belief.g(q, c)
    return 0.0


def g_term(cid: int, params: np.ndarray, table: np.ndarray, c: Any) -> float:
    """``g(c)``: a look-up in ``table`` for an integer count, :func:`g_value` for a weight sum.

    Compiled code only (the overload below picks the version by the type of ``c``).
    """
    raise NotImplementedError("g_term is for numba-compiled code")


@overload(g_term, inline="always")
def _g_term(cid, params, table, c):
    if isinstance(c, types.Integer):
        return lambda cid, params, table, c: table[c]
    return lambda cid, params, table, c: g_value(cid, params[0], c)


@njit(cache=True, inline="always")
def mass_from_sum(cid: int, params: np.ndarray, table: np.ndarray, s: Any, g_sum: float) -> float:
    """``s * impurity(child)`` of an additive criterion from ``G = sum g(c_i)`` (``s``: size or weight)."""
    q, p1, p2, p3, p4 = params[0], params[1], params[2], params[3], params[4]  # read unconditionally: the hot-path rule of treebench.kernels.scoring
    if s == 0:
        return 0.0
    if cid == 0 or cid == 1:
        return _entropy.mass(q, s, g_sum, g_term(cid, params, table, s))
    if cid == 2:
        return _gini.mass(q, s, g_sum, 0.0)
    if cid == 3 or cid == 4:
        return _tsallis.mass(q, s, g_sum, g_term(cid, params, table, s))
    if cid == 7 or cid == 8:
        return _belief.mass(q, s, g_sum, 0.0, p1, p2, p3, p4)
    return 0.0


@njit(cache=True, inline="always")
def one_vs_rest_mass(cid: int, params: np.ndarray, table: np.ndarray, s: Any, g_sum: float) -> float:
    """``s * impurity(child)`` of a one-vs-rest criterion, ``G`` including the rest sides; its
    own ladder, so that a scan's one-vs-rest branch inlines only those criteria."""
    q, p1, p2, p3, p4 = params[0], params[1], params[2], params[3], params[4]  # read unconditionally: the hot-path rule of treebench.kernels.scoring
    if cid == 8:
        return _belief.mass(q, s, g_sum, 0.0, p1, p2, p3, p4)
    return 0.0


@njit(cache=True, inline="always")
def row_mass(cid: int, params: np.ndarray, row: np.ndarray, s: Any, n_branches: int, scratch: np.ndarray) -> float:
    """``s * impurity(child)`` of a row-scored criterion from its count row (``n_branches``: of its split)."""
    if cid == 5:
        return _certainty.row_mass(params, row, s, n_branches, scratch)
    if cid == 6:
        return _possibilistic.row_mass(params, row, s, n_branches, scratch)
    return 0.0


@njit(cache=True, inline="always")
def pair_mass_without_quantile(left: np.ndarray, parent: np.ndarray, right: np.ndarray, w_left: Any, total: Any, z: Any,
    scratch: np.ndarray) -> float:
    """Summed masses of a threshold's two children for the row-scored criterion without a
    quantile ``z``."""
    return _certainty.pair_mass(left, parent, right, w_left, total, z, scratch)


@njit(cache=True, inline="always")
def pair_mass_with_quantile(left: np.ndarray, parent: np.ndarray, right: np.ndarray, w_left: Any, total: Any, z: Any,
    scratch: np.ndarray) -> float:
    """Summed masses of a threshold's two children for the row-scored criterion with a
    quantile ``z``."""
    return _possibilistic.pair_mass(left, parent, right, w_left, total, z, scratch)


@njit(cache=True, inline="always")
def pair_mass(left: np.ndarray, parent: np.ndarray, right: np.ndarray, w_left: Any, total: Any, z: Any,
    scratch: np.ndarray) -> float:
    """Summed masses of a threshold's two children, for the row-scored criteria.

    The criterion is chosen by the *type* of ``z``: ``None`` is the one without a quantile, a
    float the one with (``takes_quantile``).  A scan compiled for both makes the test itself,
    ``if z is None`` on its own argument, and calls the two functions above: numba prunes that
    branch before it inlines, so each scan holds only its criterion's code (inlined here, both
    bodies would be inlined first and pruned after, into every version of the scan).
    """
    if z is None:
        return pair_mass_without_quantile(left, parent, right, w_left, total, z, scratch)
    return pair_mass_with_quantile(left, parent, right, w_left, total, z, scratch)


@njit(cache=True)
def has_tie_break(cid: int, params: np.ndarray) -> bool:
    """Whether equal scores are ranked by a second key (entropy gain)."""
    if cid == 5:
        return _certainty.has_tie_break(params)
    return False


@njit(cache=True)
def split_information(cid: int, params: np.ndarray, sizes: np.ndarray, n_branches: int, n: Any) -> float:
    """The split information a ratio criterion divides its gain by."""
    if cid == 1:
        return _gain_ratio.split_info(params, sizes, n_branches, n)
    if cid == 4:
        return _tsallis_gain_ratio.split_info(params, sizes, n_branches, n)
    return 0.0
