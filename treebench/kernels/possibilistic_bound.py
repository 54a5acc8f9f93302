"""Threshold scan of the possibilistic criterion that scores most candidates by a bound.

Scoring one possibilistic candidate exactly costs two logarithms and a
square root per class and child (:func:`treebench.criteria.builtin.possibilistic.cumulative_entropy`),
about 125 ns a sample on four classes: six times an entropy scan.  A lower
bound of a child's mass costs table reads, one square root and one division
per class, and vectorises; with it almost every candidate is skipped without
changing which one wins.

The bound.  One term of ``k * ln 2 * H*_{pi-l}`` is a binary cross-entropy
``CE(a, b) = -a ln b - (1 - a) ln(1 - b)`` with ``a = t/2`` (``t`` a
cumulative share of the sorted counts) and ``b = pi/2``, and
``CE(a, b) = h(a) + KL(a || b)``:

* ``h(a)``, the binary entropy: for a child of ``n`` samples and cumulative
  count ``c``, ``2 n h(c / 2n) = X(2n) - X(c) - X(2n - c)`` with ``X(x) = x ln x``,
  read from a table (Gibbs' inequality alone, ``CE >= h``, leaves too wide a
  gap in small skewed nodes);
* ``KL(a || b) = int_a^b (b - s) K''(s) ds`` with
  ``K''(s) = a / s^2 + (1 - a) / (1 - s)^2`` (Taylor's remainder: ``KL(a || .)``
  and its slope vanish at ``a``).  For ``b > a`` the first part integrates to
  ``b - a - a ln(b / a)``, which ``ln(1 + u) <= u (6 + u) / (6 + 4u)``
  (``u >= 0``) bounds below by ``3 d^2 / (2a + 4b)``, ``d = b - a``; on
  ``[a, b]`` the second part's integrand is at least ``(b - s) / (1 - a)``,
  which gives ``d^2 / (2 (1 - a))``.  Together they keep about 95% of
  ``KL`` (measured on random ``a < b <= 1/2``); for ``b <= a``, 0.

Exactness.  The full scan keeps the first candidate that beats the best so
far by more than the tie tolerance ``tau`` (:func:`treebench.kernels.scan.better`).
Let ``L`` be a level such that every candidate's gain is either ``>= L``
("high") or ``< L - delta`` ("low"), with ``delta`` larger than ``tau`` of any
gain, and at least one candidate high.  A high candidate beats any low best
so far, and a low one never replaces a high best, so the candidates that end
the full scan's chain of bests are high ones met with a best that is low
*or* identical: the scan over every candidate with upper bound ``>= L - delta``
(all the high ones, plus some low ones) keeps the same candidate as the
scan over all of them.  Such an ``L`` needs a gap of ``delta`` between the
exact gains, and gains of a large node's neighbouring cuts are often closer
than that (``1e-9`` at 500,000 samples).  So the second pass scores exactly
every candidate whose bound reaches ``G - W``, with ``G`` the exact gain of
the candidate with the highest bound, and marks the gains in ``[G - W, G)``
in 64 bins of width ``W / 64 >= delta``: an empty bin ``[x, x + W/64)`` gives
``L = x + W/64``.  When every bin is hit, ``W`` grows eightfold and the pass
repeats.  The tests check the result against the full scan on random nodes,
and with a band wide enough to force the repeats.

The first pass walks the positions, sorts both children's counts at each
candidate, writes their cumulative counts into a block of :data:`BLOCK`
candidates, and bounds a whole block at once: the square roots and
divisions then run four to a vector instruction.  Integer counts only (an
unweighted fit): the table is indexed by counts.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from treebench.kernels.scan import SKIP, STOP, better, candidate_step
from treebench.kernels.scoring import LOG2, POSSIBILISTIC, child_mass, insert_sorted
from treebench.kernels.tolerances import TIE_TOLERANCE

#: A node's column with at most this many distinct values is scored exactly from
#: its (value, class) counts instead (kernels/scan.py: scan_numeric_histogram); on
#: letter (16 values a column, 26 classes) that fit is 7% faster with 16 or 32 than
#: with the bounds everywhere, and 100k x 16 continuous rows are unaffected.
FEW_CANDIDATES = 32

#: Positions bounded together (the vectorised loops run over a block's children).
BLOCK = 256

#: The least width of the band below the level ``L`` (``delta`` in the module
#: docstring), relative to ``max(1, |L|)``.  A high gain ``g >= L`` must beat any low
#: one ``v < L - delta`` by more than the tie tolerance, ``TIE_TOLERANCE * max(1, |v|)``;
#: four times the tolerance, scaled by ``max(1, |L|)``, does it for every ``v``
#: (below ``L - delta`` the distance to ``L`` grows faster than ``v``'s tolerance).
BAND = 4.0 * TIE_TOLERANCE

#: The exactly scored gains below the level are marked in this many bins of at
#: least ``BAND``; any empty bin is a band with no gain in it (one bit each).
N_BINS = 64
ALL_BINS = np.uint64(2**64 - 1)

#: Added to every upper bound, so that rounding in the bound's sums (relative
#: 1e-16 of ``n log n``, about 1e-13 in gain units at a million rows) never puts it
#: under the exactly computed gain.
BOUND_SLACK = 1e-9

#: Relative raise before rounding a bound to float32: twice float32's half-ulp (2^-24).
FLOAT32_RAISE = 2.0**-23


@njit(cache=True, no_cfunc_wrapper=True)
def x_log_x_table(n: int) -> np.ndarray:
    """``x ln x`` for ``x = 0..n`` (0 at 0): the table of the bound."""
    table = np.empty(n + 1)
    table[0] = 0.0
    for x in range(1, n + 1):
        value = float(x)  # math.log of an integer goes through a slower helper
        table[x] = value * math.log(value)
    return table


@njit(cache=True, no_cfunc_wrapper=True)
def bound_workspace(n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Scratch of :func:`scan_possibilistic_bounded`, allocated once per fit.

    ``work`` (int64, 3 x k): the left child's counts, then both children's
    counts in increasing order.  ``block``
    (float64, k + 4 rows, two columns per candidate of a block, left child
    first): rows ``0..k-2`` the cumulative counts, then the child's size, the
    two reciprocals its terms share, its mass bound, and the candidate's position.
    """
    return np.empty((3, n_classes), np.int64), np.empty((n_classes + 4, 2 * BLOCK))


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def _sorted_rows(left: np.ndarray, parent: np.ndarray, left_sorted: np.ndarray, right_sorted: np.ndarray) -> None:
    """Both children's counts in increasing order: insertion sorts (k is small).

    Sorting at each candidate costs no more than keeping the rows sorted
    sample by sample (measured on four classes), and nothing on the positions
    between equal values, which a column with few values is mostly made of.
    """
    for c in range(left.shape[0]):
        insert_sorted(left_sorted, c, left[c])
        insert_sorted(right_sorted, c, parent[c] - left[c])


@njit(cache=True, no_cfunc_wrapper=True)
def block_mass_bounds(block: np.ndarray, n_children: int, z: float, table: np.ndarray) -> None:
    """Lower bounds of ``k ln 2`` times the mass of the first ``n_children`` columns of ``block``.

    Reads the cumulative counts (rows ``0..k-2``) and sizes (row ``k-1``),
    writes the bounds to row ``k + 2`` (see :func:`bound_workspace` and the
    module docstring).  The table reads (the entropy part) run in a scalar
    loop; the Kullback-Leibler part in :func:`_add_divergence_bounds`.
    """
    k = block.shape[0] - 4
    for child in range(n_children):
        size = np.int64(block[k - 1, child])
        doubled = 2 * size
        acc = (k - 1) * table[doubled]
        for i in range(k - 1):
            c = np.int64(block[i, child])
            acc -= table[c] + table[doubled - c]
        # the last cumulative share is 1 and its term is ln 2 exactly (as in possibilistic_entropy)
        block[k + 2, child] = 0.5 * acc + size * LOG2
    _add_divergence_bounds(block, n_children, z)


# error_model="numpy": no zero-division check per division, so the loops vectorise
@njit(cache=True, no_cfunc_wrapper=True, error_model="numpy")
def _add_divergence_bounds(block: np.ndarray, n_children: int, z: float) -> None:
    """Add each child's bound on its terms' ``n KL(a || b)`` to row ``k + 2`` of ``block``."""
    k = block.shape[0] - 4
    z2 = z * z
    for child in range(n_children):
        size = block[k - 1, child]
        block[k, child] = 1.0 / (size + z2)  # 1 / n~ of Agresti-Coull's interval
        block[k + 1, child] = 0.5 / size
    for i in range(k - 1):
        for child in range(n_children):
            size = block[k - 1, child]
            inverse_tilde = block[k, child]
            cumulative = block[i, child]
            # b: Agresti-Coull's upper bound (the possibilistic module's upper_bound) halved, a: t / 2
            p_tilde = (cumulative + 0.5 * z2) * inverse_tilde
            b = 0.5 * min(p_tilde + z * math.sqrt(p_tilde * (1.0 - p_tilde) * inverse_tilde), 1.0)
            a = cumulative * block[k + 1, child]
            d = max(b - a, 0.0)
            # d^2 (3 / (2a + 4b) + 1 / (2 (1 - a))) over one denominator
            block[k + 2, child] += size * d * d * (3.0 * (1.0 - a) + a + 2.0 * b) / ((2.0 * a + 4.0 * b) * (1.0 - a))


@njit(cache=True, no_cfunc_wrapper=True)
def _upper_bounds(ranks, labels, start, end, missing, parent, parent_impurity, min_leaf, z, table, bounds, work, block):
    """First pass: an upper bound of every position's gain into ``bounds`` (``-inf``: no candidate).

    Returns the number of positions written and the first one with the
    highest bound (``-1`` when there is no candidate).
    """
    k = parent.shape[0]
    n = end - start
    left = work[0]
    left_sorted = work[1]
    right_sorted = work[2]
    for c in range(k):
        left[c] = 0
    scale = 1.0 / (k * LOG2 * n)
    top = -np.inf
    top_at = -1
    written = 0
    stopped = False
    while written < n - 1 and not stopped:
        # fill a block with candidates: both children's cumulative counts and sizes
        slot = 0
        while slot < BLOCK and written < n - 1:
            p = start + written
            label = labels[p]
            left[label] += 1
            step = candidate_step(written + 1, n, min_leaf, ranks[p], ranks[p + 1], missing)
            if step == STOP:
                stopped = True
                break
            j = written
            written += 1
            if step == SKIP:  # no cut between equal values (most positions of a column with few values)
                bounds[j] = -np.inf
                continue
            _sorted_rows(left, parent, left_sorted, right_sorted)
            left_cumulative = 0
            right_cumulative = 0
            for i in range(k - 1):
                left_cumulative += left_sorted[i]
                right_cumulative += right_sorted[i]
                block[i, 2 * slot] = left_cumulative
                block[i, 2 * slot + 1] = right_cumulative
            block[k - 1, 2 * slot] = j + 1
            block[k - 1, 2 * slot + 1] = n - j - 1
            block[k + 3, 2 * slot] = j
            slot += 1
        # bound it
        block_mass_bounds(block, 2 * slot, z, table)
        for s in range(slot):
            j = np.int64(block[k + 3, 2 * s])
            bound = parent_impurity - (block[k + 2, 2 * s] + block[k + 2, 2 * s + 1]) * scale + BOUND_SLACK
            # stored as float32, raised by more than float32's half-ulp rounding first:
            # still an upper bound, in half the memory
            bounds[j] = np.float32(bound + abs(bound) * FLOAT32_RAISE + 1e-30)
            if bound > top:
                top = bound
                top_at = j
    return written, top_at


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def _exact_gain(left, right, parent, n_left, n, parent_impurity, params, criterion_table, scratch):
    """The candidate's gain as the full scan computes it, to the last bit.

    Through :func:`treebench.kernels.scoring.child_mass`, which the builder
    compiles anyway: few candidates get here, and inlining the scoring
    (as the full scan does) would compile it again, about a second.
    """
    for c in range(parent.shape[0]):
        right[c] = parent[c] - left[c]
    cid = np.int64(POSSIBILISTIC)
    branches = np.int64(2)
    mass = child_mass(cid, params, criterion_table, left, n_left, branches, scratch) + child_mass(
        cid, params, criterion_table, right, n - n_left, branches, scratch
    )
    return parent_impurity - mass / n


@njit(cache=True, no_cfunc_wrapper=True)
def scan_possibilistic_bounded(
    ranks, labels, start, end, missing, parent, parent_impurity, params, criterion_table, min_leaf, left, right,
    scratch, table, bounds, work, block, band,
):
    """:func:`treebench.kernels.scan.scan_numeric` for the possibilistic criterion on integer counts.

    Same result as the full scan (see the module docstring).  ``params`` and
    ``criterion_table`` are the builder's (``params[2]`` is the quantile of a
    two-way split); ``table`` is :func:`x_log_x_table` of twice the root's
    size or more (a child of ``n`` samples reads ``2n``); ``bounds`` a float32
    buffer of at least ``end - start`` entries; ``work`` and ``block`` from
    :func:`bound_workspace`; ``band`` normally :data:`BAND` (relative).
    Returns ``(gain, n_left, 0.0, n_left)``.
    """
    k = parent.shape[0]
    n = end - start
    z = params[2]
    written, top_at = _upper_bounds(
        ranks, labels, start, end, missing, parent, parent_impurity, min_leaf, z, table, bounds, work, block
    )
    if top_at < 0:
        return -np.inf, 0, 0.0, 0
    for c in range(k):
        left[c] = 0
    for p in range(start, start + top_at + 1):
        left[labels[p]] += 1
    top_gain = _exact_gain(left, right, parent, np.int64(top_at + 1), n, parent_impurity, params, criterion_table, scratch)
    level = top_gain
    window = N_BINS * band * max(1.0, abs(level))
    while True:
        floor = level - window
        width = window / N_BINS
        occupied = np.uint64(0)
        for c in range(k):
            left[c] = 0
        best = -np.inf
        best_left = 0
        for j in range(written):
            left[labels[start + j]] += 1
            if bounds[j] < floor:
                continue
            if j == top_at:
                gain = top_gain  # scored already; its bound always reaches the floor
            else:
                gain = _exact_gain(
                    left, right, parent, np.int64(j + 1), n, parent_impurity, params, criterion_table, scratch
                )
            if better(gain, best):
                best = gain
                best_left = j + 1
            if floor <= gain < level:
                # the bin of the gain, and its neighbour when the gain is at a bin's edge
                at = (gain - floor) / width
                for b in range(max(np.int64(at - 1e-6), 0), min(np.int64(at + 1e-6), N_BINS - 1) + 1):
                    occupied |= np.uint64(1) << np.uint64(b)
        if occupied != ALL_BINS:
            return best, best_left, 0.0, best_left
        window *= 8.0
