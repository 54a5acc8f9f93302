"""The threshold scan that skips the candidates a bound on each moved sample rules out.

A criterion declared ``step_bounded`` (Hellinger distance; its module has the
proof) says how much moving one sample can change its split value: for a
sample of a class with ``l`` samples on the left and ``r`` on the right, at
most ``sqrt((t(l) + t(r - 1)) / (l + r))``, ``t`` its ``step_term``, which
:func:`treebench.kernels.scoring.make_table` tabulates for the fit.  Over the
``m`` samples moved since the last scored candidate the changes add up to at
most ``sqrt(m * S)``, ``S`` the sum of the squared bounds (Cauchy-Schwarz).
The scan scores a candidate only when that could lift the last scored value
above the best so far by the tie tolerance; ``VALUE_ROUNDING`` (how far a
computed value may be from the exact one) is taken off on both sides.

The result is :func:`treebench.kernels.scan._scan_rows`'s, candidate for
candidate: every candidate scored is scored from the same counts by the same
function in the same order, and one skipped could not have been taken -- the
tie rule (within the tolerance the earlier candidate stays) included.  The
bound is tight in the middle of a scan, where most candidates are: on dense
continuous data with four classes a fraction of them is scored.

Unweighted only: the bound is on integer counts, and a weighted fit's counts
are snapped (:func:`treebench.criteria.builtin.hellinger._sides`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebench.kernels.candidates import SKIP, STOP, better, candidate_step
from treebench.kernels.refcount import NO_REFCOUNT
from treebench.kernels.scoring import pair_mass, takes_quantile, value_rounding
from treebench.kernels.tolerances import TIE_TOLERANCE

#: Relative rounding of a running sum, per term added (a float sum of ``m`` positive terms is
#: within ``m`` units in the last place of the exact one; twice that, for the products).
SUM_ROUNDING = 4.5e-16


@njit(cache=True, no_cfunc_wrapper=True, **NO_REFCOUNT)
def scan_step_bounded(slot, args):
    """:func:`treebench.kernels.scan._scan_rows` for an unweighted fit of a ``step_bounded`` criterion.

    ``args`` as there (``weights`` is ``None``, ``tie_break`` False for these criteria, ``table``
    the fit's ``step_term`` table).  Returns ``(gain, n_left, 0.0, w_left)``.
    """
    (ranks, labels, index, weights, start, end, missing, parent, total, parent_impurity, params, table,
     min_leaf, left, right, scratch, tie_break, parent_entropy) = args
    k = parent.shape[0]
    n = end - start
    z = params[2] if takes_quantile(slot) else 0.0
    slack = 2.0 * value_rounding(slot)  # the last scored value's rounding, and the candidate's
    for i in range(k):
        left[i] = 0
    best = -np.inf
    best_left = 0
    room = -1.0  # how far the value may rise before a candidate could be taken (< 0: score the next)
    squares = 0.0  # the moved samples' squared bounds since the last scored candidate
    m = 0  # and how many
    for p in range(start, end - 1):
        label = labels[p]
        count = left[label]
        squares += (table[count] + table[parent[label] - count - 1]) / parent[label]
        m += 1
        left[label] = count + 1
        n_left = p - start + 1
        step = candidate_step(n_left, n, min_leaf, ranks[p], ranks[p + 1], missing)
        if step == SKIP:
            continue
        if step == STOP:
            break
        if room >= 0.0 and m * squares * (1.0 + SUM_ROUNDING * m) <= room * room:
            continue  # cannot reach the best: no change of state, as in the full scan
        mass = pair_mass(slot, left, parent, right, total - total + n_left, total, z, scratch)
        gain = parent_impurity - mass / total  # as _scan_rows computes it
        if better(gain, best):
            best = gain
            best_left = n_left
        room = (best + TIE_TOLERANCE * max(1.0, abs(best)) - slack) - gain  # the threshold of better()
        squares = 0.0
        m = 0
    return best, best_left, 0.0, total - total + best_left

