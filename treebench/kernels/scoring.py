"""Compiled scoring of candidate splits for the built-in criteria.

These functions re-implement, in numba, the formulas of the numpy criterion
classes in :mod:`treebench.criteria` (which stay the readable reference; the
tests check one against the other).  A criterion is selected by an integer id
so one compiled, disk-cached kernel serves every built-in criterion.

Internally every criterion is expressed as an *impurity* to minimise: a child
with ``s`` samples contributes its "mass" ``s * impurity(child)`` and a split's
gain is ``impurity(parent) - sum(mass) / n``.  Certainty is a purity, so its
impurity is ``-I``.  For the additive family (entropy, gain ratio, Gini,
Tsallis, the natural belief impurity) the mass depends on the counts only
through ``G = sum_i g(c_i)`` for a tabulated ``g``, which lets the threshold
scan update ``G`` in O(1) per sample instead of O(k) per candidate.

Belief (paper 004): with crisp counts a node's structure is ``m_j = c_j/(s+1)``,
``m(Omega) = 1/(s+1)``, so its pignistic probabilities are
``BetP_j = (c_j + 1/k)/(s+1)`` and the discord ``-sum_j m_j log2 BetP_j`` is
``(s log2(s+1) - G)/(s+1)`` with ``g(c) = c log2(c + 1/k)``: additive.  Its
one-vs-rest reading averages the two-class impurities of ``(c_j, s - c_j)``:
the same form with ``g(c) = c log2(c + 1/2)`` and ``G = (sum_j g(c_j) + g(s - c_j)) / k``,
whose second terms all move with ``s`` -- O(k) per candidate, its own scan.
Both need the class count, which the criterion cannot know; the builder
completes their parameters with :func:`class_params`.

Counts are integers (an unweighted fit: ``g`` is read from the table) or
sums of sample weights (``g`` is computed, :func:`g_term`).  The functions
here are compiled once per count type, so the integer version is the same
code as before weights existed.

Hot-path rule: the helpers called once per candidate are inlined into the
scan (``inline="always"``) and read their array arguments unconditionally
(e.g. ``q = params[0]`` at the top).  An array that an inlined helper reads
only inside a branch makes numba keep a reference-count increment and
decrement per call, two atomic operations that cost ten times the scoring
itself (measured: 45 ns against 5 ns per sample on an entropy scan).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, types
from numba.extending import overload

from treebench.kernels.tolerances import Q_ONE_TOLERANCE, SPLIT_INFO_FLOOR

ENTROPY = 0
GAIN_RATIO = 1
GINI = 2
TSALLIS = 3
TSALLIS_GAIN_RATIO = 4
CERTAINTY = 5
POSSIBILISTIC = 6
BELIEF = 7
BELIEF_OVR = 8

#: Columns of a belief criterion's parameters once :func:`class_params` has
#: completed them: the pignistic share of Omega in ``g(c) = c log2(c + share)``,
#: lambda, 1.0 for the printed closed form (0.0: eqs. 17-19 literally), the
#: nonspecificity ``log2`` of the frame, and the scale of ``G``.
B_SHARE, B_LAM, B_PRINTED, B_LOG_FRAME, B_G_SCALE = 0, 1, 2, 3, 4

LOG2 = math.log(2.0)
LOG_HALF = math.log(0.5)


@njit(cache=True, inline="always")
def is_additive(cid: int) -> bool:
    """Whether the child mass is a function of (size, sum of tabulated g(c_i)).

    Belief's one-vs-rest counts too: it adds ``sum_i g(s - c_i)``
    (:func:`rest_sum`), O(k) per child, but shares the scan.
    """
    return cid <= TSALLIS_GAIN_RATIO or cid == BELIEF or cid == BELIEF_OVR


@njit(cache=True, inline="always")
def is_belief(cid: int) -> bool:
    """Whether ``cid`` is one of the belief impurities (their mass has one form, see :func:`belief_mass`)."""
    return cid == BELIEF or cid == BELIEF_OVR


@njit(cache=True)
def class_params(cid: int, params: np.ndarray, k: int):
    """``(cid, params)`` completed for ``k`` classes: belief's (from ``[lam, printed]``), else unchanged.

    One-vs-rest with two classes is the natural impurity (the numpy criterion's rule).
    """
    if not is_belief(cid):
        return cid, params
    if k <= 2:
        cid = BELIEF
    out = np.empty(5)
    out[B_LAM] = params[0]
    out[B_PRINTED] = params[1]
    if cid == BELIEF:
        out[B_SHARE] = 1.0 / k
        out[B_LOG_FRAME] = math.log2(k)
        out[B_G_SCALE] = 1.0
    else:  # every class against the rest: two-class frames, averaged over the k classes
        out[B_SHARE] = 0.5
        out[B_LOG_FRAME] = 1.0
        out[B_G_SCALE] = 1.0 / k
    return cid, out


@njit(cache=True, inline="always")
def is_ratio(cid: int) -> bool:
    """Whether the reported score divides the gain by a split information."""
    return cid == GAIN_RATIO or cid == TSALLIS_GAIN_RATIO


@njit(cache=True, inline="always")
def _tsallis_is_shannon(q: float) -> bool:
    return abs(q - 1.0) < Q_ONE_TOLERANCE


@njit(cache=True)
def g_value(cid: int, q: float, c: float) -> float:
    """``g(c)`` of the additive family: c*log2(c), c^2, c*ln(c), c^q or c*log2(c + q); ``g(c <= 0) = 0``.

    ``c <= 0`` also absorbs the rounding of weighted counts that should be 0.
    Scalars only (``q`` is ``params[0]``: Tsallis' index, belief's share of
    Omega), so that a call costs no reference counting (see the hot-path rule above).
    """
    if c <= 0.0:
        return 0.0
    if cid == ENTROPY or cid == GAIN_RATIO:
        return c * math.log2(c)
    if cid == GINI:
        return c * c
    if is_belief(cid):
        return c * math.log2(c + q)
    if _tsallis_is_shannon(q):
        return c * math.log(c)
    return c**q


@njit(cache=True)
def has_tie_break(cid: int, params: np.ndarray) -> bool:
    """Whether equal scores are ranked by a second key (certainty: entropy gain)."""
    return cid == CERTAINTY and params.shape[0] > 0 and params[0] > 0.5


@njit(cache=True)
def make_table(cid: int, params: np.ndarray, n: int) -> np.ndarray:
    """``g(c)`` for ``c = 0..n`` (see :func:`g_value`).

    Certainty with its entropy tie-break gets the entropy table (``c log2 c``):
    the threshold scan keeps the tie score as running sums too.
    """
    if has_tie_break(cid, params):
        cid = ENTROPY
    elif not is_additive(cid):
        return np.zeros(1)
    table = np.zeros(n + 1)
    for c in range(1, n + 1):
        table[c] = g_value(cid, params[0], float(c))
    return table


def g_term(cid: int, params: np.ndarray, table: np.ndarray, c: Any) -> float:
    """``g(c)``: a look-up in ``table`` for an integer count, computed for a weight sum.

    Compiled code only (the overload below picks the version by the type of ``c``).
    """
    raise NotImplementedError("g_term is for numba-compiled code")


@overload(g_term, inline="always")
def _g_term(cid, params, table, c):
    if isinstance(c, types.Integer):
        return lambda cid, params, table, c: table[c]
    return lambda cid, params, table, c: g_value(cid, params[0], c)


@njit(cache=True, inline="always")
def mass_from_sum(cid: int, params: np.ndarray, table: np.ndarray, s: int, g_sum: float) -> float:
    """``s * impurity(child)`` for the additive family, from ``G = sum g(c_i)``.

    ``s`` is the child's size: its sample count, or its weight in a weighted fit.
    """
    q = params[0]  # read unconditionally: see "hot-path rule" in the module docstring
    if s == 0:
        return 0.0
    if cid == ENTROPY or cid == GAIN_RATIO:
        return g_term(cid, params, table, s) - g_sum  # s log s - sum c log c = s * H (bits)
    if cid == GINI:
        return s - g_sum / s
    if is_belief(cid):
        return belief_mass(params, s, g_sum)
    if _tsallis_is_shannon(q):
        return g_term(cid, params, table, s) - g_sum  # nats
    # s * (1 - sum (c/s)^q) / (q - 1), with s^(q-1) = g(s) / s
    return (s - g_sum * s / g_term(cid, params, table, s)) / (q - 1.0)


@njit(cache=True, inline="always")
def belief_mass(params: np.ndarray, s: Any, g_sum: float) -> float:
    """``s * u_lambda`` of a child of size ``s`` from ``G`` (``params`` completed by :func:`class_params`).

    ``(s + 1) u = (1 - lam) L + lam (s log2(s + 1) - G') - printed lam s L``
    with ``L`` the log2 of the frame and ``G'`` the scaled ``G``: eqs. 15-19,
    or the printed closed form, with crisp counts (see the module docstring).
    """
    lam = params[B_LAM]
    frame = params[B_LOG_FRAME]
    size = float(s)
    inner = (1.0 - lam) * frame + lam * (size * math.log2(size + 1.0) - params[B_G_SCALE] * g_sum)
    inner -= params[B_PRINTED] * lam * size * frame
    return size / (size + 1.0) * inner


@njit(cache=True, inline="always")
def rest_sum(cid: int, params: np.ndarray, table: np.ndarray, row: np.ndarray, s: Any) -> float:
    """``sum_j g(s - c_j)`` of one-vs-rest: the "rest" side of every class pair of a child of size ``s``."""
    acc = 0.0
    for i in range(row.shape[0]):
        acc += g_term(cid, params, table, s - row[i])
    return acc


@njit(cache=True, inline="always")
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
    return belief_mass(params, w_left, g_left + rest_left) + belief_mass(params, w_right, g_right + rest_right)


@njit(cache=True, inline="always")
def agresti_coull_upper(successes: float, n: float, z: float) -> float:
    n_tilde = n + z * z
    p_tilde = (successes + 0.5 * z * z) / n_tilde
    return p_tilde + z * math.sqrt(p_tilde * (1.0 - p_tilde) / n_tilde)


@njit(cache=True, inline="always")
def insert_sorted(ascending: np.ndarray, filled: int, value: Any) -> None:
    """Insert ``value`` into the increasing ``ascending[:filled]`` (one step of an insertion sort)."""
    j = filled - 1
    while j >= 0 and ascending[j] > value:
        ascending[j + 1] = ascending[j]
        j -= 1
    ascending[j + 1] = value


@njit(cache=True, inline="always")
def possibilistic_entropy(row: np.ndarray, s: int, z: float, scratch: np.ndarray) -> float:
    """``H*_{pi-l}`` of one count row (see ``treebench.criteria.possibilistic``)."""
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
            pi = min(agresti_coull_upper(cumulative, n, z), 1.0)
        total += 0.5 * t_star * math.log(0.5 * pi) + (1.0 - 0.5 * t_star) * math.log(1.0 - 0.5 * pi)
    return -total / (k * LOG2)


@njit(cache=True, inline="always")
def certainty_mass(row: np.ndarray, s: Any) -> float:
    """``s * impurity`` of one certainty child: ``-sum_i |c_i - s/k|``."""
    k = row.shape[0]
    share = s / k
    acc = 0.0
    for i in range(k):
        acc += abs(row[i] - share)
    return -acc


@njit(cache=True, inline="always")
def possibilistic_mass(row: np.ndarray, s: Any, z: float, scratch: np.ndarray) -> float:
    """``s * H*_{pi-l}`` of one child, with the quantile ``z`` of its split's branch count."""
    if s == 0:
        return 0.0
    return s * possibilistic_entropy(row, s, z, scratch)


@njit(cache=True, inline="always")
def pair_mass(left: np.ndarray, parent: np.ndarray, right: np.ndarray, w_left: Any, total: Any, z: Any, scratch):
    """Summed ``s * impurity`` of a binary split's two children, for the row-scored family.

    The family is chosen by the *type* of ``z``: ``None`` is certainty, a
    float the possibilistic quantile.  Numba prunes the branch a ``None``
    argument decides, so each caller is compiled once per family with only
    that family's code (the same device as ``weights=None`` in
    :mod:`treebench.kernels.weights`).  Certainty reads the right child's
    counts as ``parent - left`` in the same loop; possibilistic fills
    ``right`` (it sorts each row).
    """
    w_right = total - w_left
    if z is None:
        k = left.shape[0]
        share_left = w_left / k
        share_right = w_right / k
        acc = 0.0
        for i in range(k):
            acc += abs(left[i] - share_left) + abs(parent[i] - left[i] - share_right)
        return -acc
    for i in range(left.shape[0]):
        right[i] = parent[i] - left[i]
    return possibilistic_mass(left, w_left, z, scratch) + possibilistic_mass(right, w_right, z, scratch)


@njit(cache=True)
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
    functions it dispatches to directly.  Callers pass constants as
    ``np.int64(2)``, not ``2``: numba compiles a callee once more for every
    literal argument value it sees.
    """
    if s == 0:
        return 0.0
    if is_additive(cid):
        g_sum = 0.0
        for i in range(row.shape[0]):
            g_sum += g_term(cid, params, table, row[i])
        if cid == BELIEF_OVR:
            g_sum += rest_sum(cid, params, table, row, s)
        return mass_from_sum(cid, params, table, s, g_sum)
    if cid == CERTAINTY:
        return certainty_mass(row, s)
    # POSSIBILISTIC: params = [gamma, z(r=1), z(r=2), ...]
    return possibilistic_mass(row, s, params[n_branches], scratch)


@njit(cache=True, inline="always")
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


@njit(cache=True)
def tie_score_binary(parent_entropy: float, left: np.ndarray, right: np.ndarray, n_left: int, n: int) -> float:
    """Entropy gain (bits) of a two-way split: the second key of certainty."""
    n_right = n - n_left
    return parent_entropy - (n_left * entropy_bits(left, n_left) + n_right * entropy_bits(right, n_right)) / n


@njit(cache=True)
def node_impurity(
    cid: int, params: np.ndarray, table: np.ndarray, counts: np.ndarray, n: int, scratch: np.ndarray
) -> float:
    """The internal impurity of a node (certainty is negated)."""
    if n == 0:
        return 0.0
    return child_mass(cid, params, table, counts, n, np.int64(1), scratch) / n


@njit(cache=True)
def reported_node_value(cid: int, impurity: float) -> float:
    """The paper's node measure from the internal impurity."""
    return -impurity if cid == CERTAINTY else impurity


@njit(cache=True)
def split_information(cid: int, params: np.ndarray, sizes: np.ndarray, n_branches: int, n: int) -> float:
    """Entropy of the branch proportions: Shannon bits (gain ratio) or S_q (Tsallis gain ratio)."""
    acc = 0.0
    if cid == GAIN_RATIO or (cid == TSALLIS_GAIN_RATIO and _tsallis_is_shannon(params[0])):
        for j in range(n_branches):
            if sizes[j] > 0:
                p = sizes[j] / n
                acc -= p * math.log(p)
        return acc / LOG2 if cid == GAIN_RATIO else acc
    q = params[0]
    power_sum = 0.0
    for j in range(n_branches):
        if sizes[j] > 0:
            power_sum += (sizes[j] / n) ** q
    return (1.0 - power_sum) / (q - 1.0)


@njit(cache=True)
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


@njit(cache=True)
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
    for c in range(m):
        mass = 0.0
        present = 0
        for j in range(r):
            s = 0
            for i in range(k):
                s += children[c, j, i]
            sizes[j] = s
            if s > 0:
                present += 1
        for j in range(r):
            mass += child_mass(cid, params, table, children[c, j], sizes[j], r, scratch)
        gain = parent_impurity - mass / n
        candidate[c] = gain
        final[c] = final_score(cid, params, gain, sizes, r, n)
    return candidate, final
