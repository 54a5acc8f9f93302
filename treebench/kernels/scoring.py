"""Compiled scoring of candidate splits for the built-in criteria: the generic part.

Each built-in criterion's formula lives in its module of
:mod:`treebench.criteria.builtin` (the numpy oracle beside the compiled
version; the tests check one against the other).  The kernels select a
criterion by an integer id, so one compiled, disk-cached kernel serves every
built-in criterion; the functions that branch on the id are generated from
the modules' declarations (:mod:`treebench.kernels.dispatch`) and re-exported
here, and this module builds on them.

Internally every criterion is expressed as an *impurity* to minimise: a child
with ``s`` samples contributes its "mass" ``s * impurity(child)`` and a split's
gain is ``impurity(parent) - sum(mass) / n``.  A purity (certainty) is scored
as its negation.  For the additive family (entropy, gain ratio, Gini,
Tsallis, the belief impurities) the mass depends on the counts only through
``G = sum_i g(c_i)`` for a tabulated ``g``, which lets the threshold scan
update ``G`` in O(1) per sample instead of O(k) per candidate.  A
one-vs-rest criterion also sums ``g(s - c_i)`` (:func:`rest_sum`), whose
terms all move with ``s``: O(k) per candidate, in the same scan.  Criteria
that need the class count get their parameters completed by
:func:`class_params` in the builder.  A criterion scored *whole*
(:func:`is_whole_split`: Hellinger distance, a function of every branch and
the parent at once) has no per-child mass: a split of any number of branches
goes through :func:`multiway_mass` and :func:`two_way_mass`, which sum
:func:`child_mass` for the others.  The builders learn which by the *type*
of a marker argument ``whole`` (``None``, or a one-element array for a
criterion scored whole: :func:`treebench.criteria.builtin.whole_split_marker`):
numba prunes branches only by types, so a fit of any other criterion
compiles no whole-split code at all (Hellinger's present, the first compile
of a default fit grew by half).

Counts are integers (an unweighted fit: ``g`` is read from the table) or
sums of sample weights (``g`` is computed, :func:`g_term`).  The functions
here are compiled once per count type, so the integer version is the same
code as before weights existed.

Hot-path rule: the helpers called once per candidate are inlined into the
scan (``inline="always"``) and read their array arguments unconditionally
(e.g. ``q = params[0]`` at the top of :func:`mass_from_sum`).  An array that
an inlined helper reads only inside a branch makes numba keep a
reference-count increment and decrement per call, two atomic operations that
cost ten times the scoring itself (measured: 45 ns against 5 ns per sample
on an entropy scan).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from treebench.kernels.arith import LOG2, insert_sorted
from treebench.kernels.dispatch import (
    BELIEF,
    BELIEF_OVR,
    CERTAINTY,
    ENTROPY,
    GAIN_RATIO,
    GINI,
    POSSIBILISTIC,
    TSALLIS,
    TSALLIS_GAIN_RATIO,
    class_params,
    g_term,
    g_value,
    has_bounded_scan,
    has_tie_break,
    is_additive,
    is_one_vs_rest,
    is_purity,
    is_ratio,
    is_step_bounded,
    is_whole_split,
    mass_from_sum,
    one_vs_rest_mass,
    pair_mass,
    row_mass,
    scores_label_masses,
    split_information,
    step_term,
    takes_quantile,
    value_rounding,
    whole_pair_mass,
    whole_split_mass,
    with_row_slot,
)
from treebench.kernels.refcount import NO_REFCOUNT
from treebench.kernels.tolerances import SPLIT_INFO_FLOOR

__all__ = [  # the generated dispatch, re-exported: callers import the scoring from one place
    "BELIEF", "BELIEF_OVR", "CERTAINTY", "ENTROPY", "GAIN_RATIO", "GINI", "LOG2", "POSSIBILISTIC", "TSALLIS",
    "TSALLIS_GAIN_RATIO", "child_mass", "class_params", "entropy_bits", "final_score", "g_term", "g_value",
    "has_bounded_scan", "has_tie_break", "insert_sorted", "is_additive", "is_one_vs_rest", "is_purity",
    "is_ratio", "is_step_bounded", "is_whole_split", "make_table", "mass_from_sum", "multiway_mass", "node_impurity",
    "one_vs_rest_mass", "one_vs_rest_pair_mass", "two_way_mass", "whole_pair_mass", "whole_split_mass",
    "pair_mass", "reported_node_value", "rest_sum", "row_mass", "score_children", "scores_label_masses",
    "split_information", "step_term", "takes_quantile", "tie_score_binary", "value_rounding", "with_row_slot",
]


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def make_table(cid: int, params: np.ndarray, n: int) -> np.ndarray:
    """``g(c)`` for ``c = 0..n`` (see :func:`g_value`), or a step-bounded criterion's ``step_term(c)``.

    Certainty with its entropy tie-break gets the entropy table (``c log2 c``):
    the threshold scan keeps the tie score as running sums too.
    """
    if has_tie_break(cid, params):
        cid = ENTROPY
    elif is_step_bounded(cid):
        table = np.empty(n + 1)
        for c in range(n + 1):
            table[c] = step_term(cid, float(c))
        return table
    elif not is_additive(cid):
        return np.zeros(1)
    table = np.zeros(n + 1)
    for c in range(1, n + 1):
        table[c] = g_value(cid, params[0], float(c))
    return table


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def rest_sum(cid: int, params: np.ndarray, table: np.ndarray, row: np.ndarray, s: Any) -> float:
    """``sum_j g(s - c_j)`` of one-vs-rest: the "rest" side of every class pair of a child of size ``s``."""
    acc = 0.0
    for i in range(row.shape[0]):
        acc += g_term(cid, params, table, s - row[i])
    return acc


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def one_vs_rest_pair_mass(
    cid: int, params: np.ndarray, table: np.ndarray, left: np.ndarray, parent: np.ndarray, w_left: Any,
    total: Any, g_left: float, g_right: float,
) -> float:
    """Summed one-vs-rest masses of a threshold's two children from their ``sum_i g(c_i)``.

    Adds the rest sides ``sum_i g(s - c_i)`` of both (the right child's
    counts read as ``parent - left``): O(k).
    """
    w_right = total - w_left
    rest_left = 0.0
    rest_right = 0.0
    for i in range(left.shape[0]):
        rest_left += g_term(cid, params, table, w_left - left[i])
        rest_right += g_term(cid, params, table, w_right - (parent[i] - left[i]))
    return one_vs_rest_mass(cid, params, table, w_left, g_left + rest_left) + one_vs_rest_mass(
        cid, params, table, w_right, g_right + rest_right
    )


@njit(cache=True, no_cfunc_wrapper=True, **NO_REFCOUNT)
def child_mass(
    cid: int,
    params: np.ndarray,
    table: np.ndarray,
    row: np.ndarray,
    s: int,
    n_branches: int,
    scratch: np.ndarray,
) -> float:
    """``s * impurity(child)`` of one child given its count row.

    ``n_branches`` is the split's branch count (the Dunn-Šidák correction of
    the possibilistic criterion); ``n_branches = 1`` scores a node on its own.
    Not for per-candidate loops: the threshold scan calls the per-family
    functions it dispatches to directly (:func:`mass_from_sum`, :func:`pair_mass`).  Callers pass constants as
    ``np.int64(2)``, not ``2``: numba compiles a callee once more for every
    literal argument value it sees.
    """
    if s == 0:
        return 0.0
    if is_additive(cid):
        g_sum = 0.0
        for i in range(row.shape[0]):
            g_sum += g_term(cid, params, table, row[i])
        if is_one_vs_rest(cid):
            g_sum += rest_sum(cid, params, table, row, s)
        return mass_from_sum(cid, params, table, s, g_sum)
    return row_mass(cid, params, row, s, n_branches, scratch)


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def multiway_mass(
    cid: int, params: np.ndarray, table: np.ndarray, counts: np.ndarray, rows: np.ndarray, weights: np.ndarray,
    n_branches: int, parent: np.ndarray, total: Any, scratch: np.ndarray, whole: Any,
) -> float:
    """Summed masses of a split's ``n_branches`` children: branch ``j`` has the class counts
    ``counts[rows[j]]`` and the weight ``weights[rows[j]]`` (a nominal feature's categories).

    The sum of :func:`child_mass` over the branches, or, when ``whole`` is not ``None`` (the
    marker of a criterion scored whole, :func:`is_whole_split`: Hellinger distance, which needs
    every branch and the parent at once), the whole split's mass.  The test is on the type of
    ``whole``, so numba compiles only one of the two.
    """
    if whole is not None:
        return whole_split_mass(cid, params, counts, rows, n_branches, parent, total, scratch)
    mass = 0.0
    for j in range(n_branches):
        code = rows[j]
        mass += child_mass(cid, params, table, counts[code], weights[code], n_branches, scratch)
    return mass


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def two_way_mass(
    cid: int, params: np.ndarray, table: np.ndarray, left: np.ndarray, right: np.ndarray, w_left: Any,
    parent: np.ndarray, total: Any, scratch: np.ndarray, whole: Any,
) -> float:
    """Summed masses of a two-branch split given both children's counts (one nominal value
    against the rest): :func:`child_mass` of each, or the whole split's mass when ``whole`` is
    not ``None`` (as in :func:`multiway_mass`)."""
    if whole is not None:
        return whole_pair_mass(cid, params, left, parent, right, w_left, total, scratch)
    return child_mass(cid, params, table, left, w_left, np.int64(2), scratch) + child_mass(
        cid, params, table, right, total - w_left, np.int64(2), scratch
    )


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def entropy_bits(row: np.ndarray, s: int) -> float:
    """Shannon entropy (bits) of one count row of ``s`` samples."""
    if s == 0:
        return 0.0
    acc = 0.0
    for i in range(row.shape[0]):
        if row[i] > 0:
            p = row[i] / s
            acc -= p * math.log(p)
    return acc / LOG2


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def tie_score_binary(parent_entropy: float, left: np.ndarray, right: np.ndarray, n_left: int, n: int) -> float:
    """Entropy gain (bits) of a two-way split: the second key of certainty."""
    n_right = n - n_left
    return parent_entropy - (n_left * entropy_bits(left, n_left) + n_right * entropy_bits(right, n_right)) / n


# inlined, as scan.scan_numeric: a separate function re-optimised child_mass's code once more
@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def node_impurity(
    cid: int, params: np.ndarray, table: np.ndarray, counts: np.ndarray, n: int, scratch: np.ndarray
) -> float:
    """The internal impurity of a node (certainty is negated)."""
    if n == 0:
        return 0.0
    return child_mass(cid, params, table, counts, n, np.int64(1), scratch) / n


@njit(cache=True, no_cfunc_wrapper=True)
def reported_node_value(cid: int, impurity: float) -> float:
    """The paper's node measure from the internal impurity (a purity gets its sign back)."""
    return -impurity if is_purity(cid) else impurity


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True, **NO_REFCOUNT)
def final_score(
    cid: int, params: np.ndarray, gain: float, sizes: np.ndarray, n_branches: int, n: int
) -> float:
    """The reported split score: the gain, or gain / split information."""
    if not is_ratio(cid):
        return gain
    split_info = split_information(cid, params, sizes, n_branches, n)
    if split_info <= SPLIT_INFO_FLOOR:
        return -np.inf
    return gain / split_info


@njit(cache=True, no_cfunc_wrapper=True)
def score_children(cid: int, params: np.ndarray, parent: np.ndarray, children: np.ndarray):
    """Candidate and split scores of ``children`` (m, r, k) -- used to test the
    kernels against the numpy reference criteria."""
    m, r, k = children.shape
    cid, params = class_params(cid, params, k)
    n = 0
    for i in range(k):
        n += parent[i]
    table = make_table(cid, params, n)
    scratch = np.empty(k)
    parent_impurity = node_impurity(cid, params, table, parent, n, scratch)
    candidate = np.empty(m)
    final = np.empty(m)
    sizes = np.zeros(r, np.int64)
    rows = np.arange(r)
    marker = np.zeros(1)  # the whole-split marker, handed over when the criterion is one
    for c in range(m):
        for j in range(r):
            s = 0
            for i in range(k):
                s += children[c, j, i]
            sizes[j] = s
        if is_whole_split(cid):  # both specialisations compiled: this function is for tests and random trees
            mass = multiway_mass(cid, params, table, children[c], rows, sizes, r, parent, n, scratch, marker)
        else:
            mass = multiway_mass(cid, params, table, children[c], rows, sizes, r, parent, n, scratch, None)
        gain = parent_impurity - mass / n
        candidate[c] = gain
        final[c] = final_score(cid, params, gain, sizes, r, n)
    return candidate, final
