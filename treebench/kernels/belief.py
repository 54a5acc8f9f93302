"""Node belief structures from uncertain two-class labels (paper 004, eqs. 20-22).

Each training example carries a belief structure ``(m(S), m(F), m(Omega))`` on
its class.  Its commonality on the second-order space is the linear factor
``m(S)*a + m(F)*x + m(Omega)`` with ``x = 1 - b`` (eq. 20); a node combines its
examples by multiplying the factors (eq. 21), and the monomial ``a^j x^k``
contributes ``j/(j+k+1)`` to ``bel(S)``, ``k/(j+k+1)`` to ``bel(F)`` and
``1/(j+k+1)`` to ``m(Omega)`` (eq. 22 and its two siblings).

The product is kept factored, which is what makes split search affordable:
``a^r * x^s * Q(a, x)`` where crisp examples only raise ``r`` or ``s`` (a
monomial factor), vacuous examples (``m(Omega) = 1``) change nothing (a factor
of 1), and only genuinely uncertain examples enter the coefficient grid ``Q``.
An example with mass on one class and on Omega grows ``Q`` along one axis, so
``Q`` stays a short vector in the usual case (one class certain, the other
rated by experts).  Sweeping the sorted examples once forwards and once
backwards gives the belief structure of every left and right child of a
numeric feature with one ``O(deg Q)`` update per threshold.

The compiled builder (:mod:`treebench.kernels.induction`) scores label
masses with :func:`scan_label_masses` (a numeric feature) and
:func:`multiway_label_masses` (a nominal one), sweeping a node's rows
through their sample ids in each feature's presorted order.

Layer: plain arrays in, plain arrays out; no criteria objects.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.kernels.candidates import SKIP, STOP, better, candidate_step
from treebench.kernels.refcount import COUNTS_REFERENCES

#: Columns of the belief criterion's parameters once its ``class_params``
#: (:mod:`treebench.criteria.builtin.belief`) has completed them for ``k``
#: classes: the pignistic share of Omega in ``g(c) = c log2(c + share)``,
#: lambda, 1.0 for the printed closed form (0.0: eqs. 17-19 literally), the
#: nonspecificity ``log2`` of the frame, and the scale of ``G``.
B_SHARE, B_LAM, B_PRINTED, B_LOG_FRAME, B_G_SCALE = 0, 1, 2, 3, 4


@njit(cache=True, no_cfunc_wrapper=True)
def _count_axes(labels, index, start, end):
    """Number of examples among ``index[start:end]`` that can grow Q along the ``a`` and the ``x`` axis."""
    grow_a = 0
    grow_x = 0
    for p in range(start, end):
        row = index[p]
        ms, mf, mo = labels[row, 0], labels[row, 1], labels[row, 2]
        if (mf == 0.0 and mo == 0.0) or (ms == 0.0 and mo == 0.0) or (ms == 0.0 and mf == 0.0):
            continue  # crisp or vacuous: no growth of Q
        if ms > 0.0:
            grow_a += 1
        if mf > 0.0:
            grow_x += 1
    return grow_a, grow_x


@njit(cache=True, no_cfunc_wrapper=True)
def _masses(q, dj, dk, r, s):
    """``(bel(S), bel(F), m(Omega))`` of ``a^r x^s Q`` with ``Q`` of degrees ``dj, dk``."""
    bs = 0.0
    bf = 0.0
    bo = 0.0
    for j in range(dj + 1):
        for k in range(dk + 1):
            c = q[j, k]
            if c == 0.0:
                continue
            big_j = r + j
            big_k = s + k
            inv = 1.0 / (big_j + big_k + 1.0)
            bs += c * big_j * inv
            bf += c * big_k * inv
            bo += c * inv
    return bs, bf, bo


@njit(cache=True, no_cfunc_wrapper=True)
def _multiply(q, dj, dk, ms, mf, mo):
    """Multiply ``Q`` in place by ``ms*a + mf*x + mo``; returns the new degrees.

    Crisp and vacuous factors are handled by the caller.  Coefficients are
    updated from the highest degree down so each old value is read before it
    is overwritten.
    """
    nj = dj + (1 if ms > 0.0 else 0)
    nk = dk + (1 if mf > 0.0 else 0)
    for j in range(nj, -1, -1):
        for k in range(nk, -1, -1):
            v = 0.0
            if j <= dj and k <= dk:
                v = mo * q[j, k]
            if ms > 0.0 and j >= 1 and k <= dk:
                v += ms * q[j - 1, k]
            if mf > 0.0 and k >= 1 and j <= dj:
                v += mf * q[j, k - 1]
            q[j, k] = v
    return nj, nk


@njit(cache=True, no_cfunc_wrapper=True, **COUNTS_REFERENCES)  # allocates; search_node counts none
def sweep_masses(labels, index, start, end, forward, out):
    """Belief structures of the growing runs of the examples ``index[start:end]``.

    ``out[p]`` (``p = 0 .. end - start``) receives ``bel(S), bel(F), m(Omega)``
    of the first ``p`` examples (``forward``) or of the last ``p`` (not
    ``forward``: the run grows from ``end - 1`` down).  ``labels`` is indexed
    by the ids in ``index``; the empty run is vacuous.
    """
    n = end - start
    grow_a, grow_x = _count_axes(labels, index, start, end)
    q = np.zeros((grow_a + 1, grow_x + 1))
    q[0, 0] = 1.0
    dj = 0
    dk = 0
    r = 0
    s = 0
    out[0, 0] = 0.0
    out[0, 1] = 0.0
    out[0, 2] = 1.0
    for i in range(n):
        row = index[start + i] if forward else index[end - 1 - i]
        ms, mf, mo = labels[row, 0], labels[row, 1], labels[row, 2]
        if mo == 0.0 and mf == 0.0:
            r += 1
        elif mo == 0.0 and ms == 0.0:
            s += 1
        elif ms == 0.0 and mf == 0.0:
            pass  # vacuous: multiplies the commonality by 1
        else:
            dj, dk = _multiply(q, dj, dk, ms, mf, mo)
        bs, bf, bo = _masses(q, dj, dk, r, s)
        out[i + 1, 0] = bs
        out[i + 1, 1] = bf
        out[i + 1, 2] = bo


@njit(cache=True, no_cfunc_wrapper=True)
def prefix_masses(labels):
    """Belief structure of every prefix ``labels[:p]``, ``p = 0 .. n``.

    Parameters
    ----------
    labels:
        ``(n, 3)`` array of ``m(S), m(F), m(Omega)`` per example (rows sum to 1).

    Returns
    -------
    ndarray
        ``(n + 1, 3)``: ``bel(S), bel(F), m(Omega)`` of each prefix (the empty
        prefix is vacuous).
    """
    n = labels.shape[0]
    out = np.empty((n + 1, 3))
    sweep_masses(labels, np.arange(n), 0, n, True, out)
    return out


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def two_class_uncertainty(bel_s: float, bel_f: float, m_omega: float, lam: float, printed: float) -> float:
    """``u_lambda`` of one two-class belief structure: ``treebench.criteria.belief.uncertainty``'s
    arithmetic, in the same order (``log2 k = 1``; ``printed`` is 1.0 or 0.0)."""
    discord = 0.0
    if bel_s > 0.0:
        discord += bel_s * math.log2(bel_s + m_omega / 2.0)
    if bel_f > 0.0:
        discord += bel_f * math.log2(bel_f + m_omega / 2.0)
    value = (1.0 - lam) * m_omega + lam * -discord
    if printed > 0.5:
        value = value - lam * (1.0 - m_omega)
    return value


@njit(cache=True, no_cfunc_wrapper=True)
def scan_label_masses(ranks, index, start, end, missing, labels, lam, printed, min_leaf, prefix, suffix):
    """Best threshold of one numeric feature on ``[start, end)`` scored on the examples' label masses.

    A candidate's goodness is ``u(t) - p_L u(t_L) - p_R u(t_R)`` with ``p``
    the example shares (eq. 14) and each ``u`` from the node's structure of
    eq. 22, swept forwards into ``prefix`` and backwards into ``suffix``
    (each at least ``(end - start + 1, 3)``).  Candidates follow the builder's
    rules (:func:`treebench.kernels.scan.candidate_step`; ties keep the
    first).  Returns ``(gain, n_left, 0.0, n_left)`` (``n_left = 0``: none).
    """
    n = end - start
    sweep_masses(labels, index, start, end, True, prefix)
    sweep_masses(labels, index, start, end, False, suffix)
    parent_u = two_class_uncertainty(prefix[n, 0], prefix[n, 1], prefix[n, 2], lam, printed)
    best = -np.inf
    best_left = 0
    for p in range(start, end - 1):
        n_left = p - start + 1
        step = candidate_step(n_left, n, min_leaf, ranks[p], ranks[p + 1], missing)
        if step == SKIP:
            continue
        if step == STOP:
            break
        n_right = n - n_left
        u_left = two_class_uncertainty(prefix[n_left, 0], prefix[n_left, 1], prefix[n_left, 2], lam, printed)
        u_right = two_class_uncertainty(suffix[n_right, 0], suffix[n_right, 1], suffix[n_right, 2], lam, printed)
        gain = parent_u - (n_left / n * u_left + n_right / n * u_right)
        if better(gain, best):
            best = gain
            best_left = n_left
    return best, best_left, 0.0, best_left


@njit(cache=True, no_cfunc_wrapper=True)
def multiway_label_masses(codes, index, start, end, labels, lam, printed, work):
    """Goodness of the multiway split of ``[start, end)`` (rows sorted by category code) on label masses.

    Each category is a run of rows: its structure is the last of a sweep over
    the run.  Same arithmetic as ``Belief.split_scores`` with ``context.sample_data``.
    """
    n = end - start
    sweep_masses(labels, index, start, end, True, work)
    parent_u = two_class_uncertainty(work[n, 0], work[n, 1], work[n, 2], lam, printed)
    weighted = 0.0
    first = start
    for p in range(start, end):
        if p + 1 < end and codes[p + 1] == codes[p]:
            continue
        size = p + 1 - first
        sweep_masses(labels, index, first, p + 1, True, work)
        u = two_class_uncertainty(work[size, 0], work[size, 1], work[size, 2], lam, printed)
        weighted += size / n * u
        first = p + 1
    return parent_u - weighted


def node_masses(labels: np.ndarray) -> np.ndarray:
    """``bel(S), bel(F), m(Omega)`` of a node holding the examples ``labels`` (eq. 22)."""
    labels = np.ascontiguousarray(labels, dtype=float).reshape(-1, 3)
    return prefix_masses(labels)[-1]


def split_masses(sorted_labels: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Left and right belief structures of the numeric candidates at ``positions``.

    Candidate ``i`` sends ``sorted_labels[:positions[i]]`` left and the rest
    right.  Returns two ``(m, 3)`` arrays.
    """
    sorted_labels = np.ascontiguousarray(sorted_labels, dtype=float).reshape(-1, 3)
    n = sorted_labels.shape[0]
    forward = prefix_masses(sorted_labels)
    backward = prefix_masses(np.ascontiguousarray(sorted_labels[::-1]))
    positions = np.asarray(positions, dtype=np.int64)
    return forward[positions], backward[n - positions]
