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

Layer: plain arrays in, plain arrays out; no criteria objects.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _count_axes(labels):
    """Number of examples that can grow Q along the ``a`` and the ``x`` axis."""
    grow_a = 0
    grow_x = 0
    for i in range(labels.shape[0]):
        ms, mf, mo = labels[i, 0], labels[i, 1], labels[i, 2]
        if (mf == 0.0 and mo == 0.0) or (ms == 0.0 and mo == 0.0) or (ms == 0.0 and mf == 0.0):
            continue  # crisp or vacuous: no growth of Q
        if ms > 0.0:
            grow_a += 1
        if mf > 0.0:
            grow_x += 1
    return grow_a, grow_x


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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
    grow_a, grow_x = _count_axes(labels)
    q = np.zeros((grow_a + 1, grow_x + 1))
    q[0, 0] = 1.0
    dj = 0
    dk = 0
    r = 0
    s = 0
    out = np.empty((n + 1, 3))
    out[0, 0] = 0.0
    out[0, 1] = 0.0
    out[0, 2] = 1.0
    for i in range(n):
        ms, mf, mo = labels[i, 0], labels[i, 1], labels[i, 2]
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
    return out


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
