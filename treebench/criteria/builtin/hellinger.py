"""Hellinger distance trees (HDDT: Cieslak & Chawla 2008; Cieslak, Hoens, Chawla & Kegelmeyer 2012).

A split is scored by how far apart the classes' distributions over its branches are, not by
the purity of its branches.  With ``|X+_j|``, ``|X-_j|`` the (weighted) counts of the two
classes in branch ``j`` and ``|X+|``, ``|X-|`` their totals at the node::

    d_H = sqrt( sum_j ( sqrt(|X+_j| / |X+|) - sqrt(|X-_j| / |X-|) )^2 )

from 0 (both classes spread over the branches alike) to sqrt(2) (no branch holds both).  The
class totals only divide, so scaling one class's counts leaves the value as it is: the
skew insensitivity of the 2012 paper.  Larger is better.

More than two classes (``reading``)
    ``"grouping"`` (default; Hoens, Qian, Chawla & Zhou 2012, PAKDD, as read in
    docs/investigations.md, "Hellinger distance for more than two classes"): the largest
    two-class value over every grouping of the classes present at the node into two
    super-classes, each super-class's counts pooled.  ``"one-vs-rest"``: the largest value of
    one class against the others pooled (what the Multi_Imbalance port's code computes), the
    reading run beside it.  Both are the two-class value when the node holds two classes; they
    agree for three classes and from four on one-vs-rest can only be lower.  Classes absent
    from the node have no distribution over the branches and are left out.

Worked examples (the tests check them).  Two classes (neg, pos) over two branches, left
``(16, 9)`` and right ``(9, 16)``: the negatives' shares are ``(16/25, 9/25)``, roots ``(4/5,
3/5)``, the positives' roots ``(3/5, 4/5)``, so ``d_H^2 = 2 (1/5)^2`` and ``d_H = sqrt(2)/5 =
0.2828427``; with the positives multiplied by 7 the value is the same.  Four classes A, B, C,
D with left ``(5, 5, 0, 0)`` and right ``(0, 0, 5, 5)``: the grouping ``{A, B}`` against ``{C,
D}`` separates them, ``d_H = sqrt(2)``; one class against the rest, ``(1, 0)`` against ``(1/3,
2/3)``, gives ``d_H^2 = 2 - 2/sqrt(3)``, ``d_H = 0.9194017``.

How it is searched
    A threshold, or one nominal value against the rest, has two branches: the best grouping is
    then a cut of the present classes sorted by their left share ``left_c / total_c`` (proved in
    docs/investigations.md).  Per candidate the classes wholly on one side are two blocks,
    first and last, unsorted; only those on both sides are insertion-sorted (no division);
    the cuts are then one pass of running sums, ``O(m)`` two-class values for ``m`` present
    classes, and a cut whose bound cannot beat the best so far skips its square roots
    (:func:`_raised`).  With weights the second super-class is summed afresh at each cut,
    ``O(m^2)`` in the classes on both sides.  A multiway nominal split has no such order: every
    grouping of the ``m`` classes present is tried, ``2^(m-1) - 1`` of them, each in
    ``O(branches * m)``, once per nominal feature and node; above
    :data:`MAX_GROUPING_CLASSES` classes present that is refused with a one-line error (use
    ``nominal_split="binary"`` or ``reading="one-vs-rest"``, ``O(m * branches)``).
    One-vs-rest costs ``O(k)`` per threshold (``O(k^2)`` with weights).

Skipping candidates (``step_bounded``)
    A grouping's value is the Euclidean distance between the points ``(sqrt(p), sqrt(1 - p))``
    of its two super-classes, ``p`` a super-class's left share.  Moving one sample of class ``c``
    left moves only the point of ``c``'s super-class, from share ``a / A`` to ``(a + 1) / A``
    (``A`` its count at the node, ``a`` on the left), by ``sqrt(((sqrt(a + 1) - sqrt(a))^2 +
    (sqrt(A - a) - sqrt(A - a - 1))^2) / A)``; by the triangle inequality no grouping's value,
    nor their maximum, changes by more.  Each square shrinks as its count grows, and ``A >= l +
    r``, ``a >= l``, ``A - a >= r`` for ``c``'s own left and right counts ``l``, ``r``: the
    change is at most ``sqrt((t(l) + t(r - 1)) / (l + r))`` with ``t(x) = (sqrt(x + 1) -
    sqrt(x))^2`` (:func:`step_term`).  It is about ``1 / sqrt(l + r)`` near either end of a
    scan and far smaller in between.  Over ``m`` moved samples the changes add up to at most
    ``sqrt(m * sum of squares)`` (Cauchy-Schwarz), so the unweighted threshold scan skips every
    candidate that this cannot lift from the last scored value to the best so far plus the tie
    tolerance, with :data:`VALUE_ROUNDING` on both sides (:mod:`treebench.kernels.step_scan`):
    the same splits, a fraction of the candidates scored on dense continuous data.

Compiled form.  The kernels minimise a mass and score ``gain = impurity(parent) - mass /
total``.  Here the node alone has the value 0 (one branch holds everything: ``row_mass`` is
0, so ``node_value`` and every leaf's impurity are 0) and a split's mass is ``-total * d_H``
(``d_H`` scaled by the node weight, negated), so the gain -- the reported score -- is ``d_H``
itself.  The value is a function of the whole split, not a sum over its branches
(``whole_split`` in :mod:`treebench.criteria.builtin.spec`): the builders hand the module the
whole split (:func:`pair_mass` for two branches, :func:`split_mass` for a multiway split).  With
no node value to decrease, ``feature_importances_`` add up each split's ``d_H`` weighted by its
node's size (``importance_from_split_score``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import overload

from treebench.criteria.base import Criterion, Param, SplitContext, as_children
from treebench.criteria.builtin.spec import ROWS, Kernel
from treebench.errors import TreebenchError
from treebench.kernels.refcount import COUNTS_REFERENCES

#: The multi-class readings; the first is the default.
READINGS = ("grouping", "one-vs-rest")

#: Classes present at a node above which a multiway split's exhaustive grouping search is
#: refused: 2^11 = 2,048 groupings per nominal feature and node at this limit.
MAX_GROUPING_CLASSES = 12

TOO_MANY_CLASSES = (
    "hellinger: a multiway nominal split of more than 12 classes present needs more than 2,048 "
    "groupings per node; accepted: at most 12 classes, or nominal_split='binary', or "
    "reading='one-vs-rest'"
)

#: A class's count on one side of a two-branch split below this share of its total is 0: the
#: residue of a weighted ``parent - left`` (1e-16) would add its square root, 1e-8, to ``d_H``.
SNAP = 1e-12

GROUPING = 9
ONE_VS_REST = 10


# -- the readable oracle (numpy) --------------------------------------------------------------


def two_class_value(table: np.ndarray) -> float:
    """The Hellinger distance between the two columns' distributions over the rows (branches).

    0.0 when a column has no count at all: there is nothing to separate it from.
    """
    counts = np.asarray(table, dtype=float)
    totals = counts.sum(axis=0)
    if counts.shape[1] != 2 or np.any(totals <= 0):
        return 0.0
    first, second = counts[:, 0] / totals[0], counts[:, 1] / totals[1]
    return float(np.sqrt(np.sum((np.sqrt(first) - np.sqrt(second)) ** 2)))


def groupings(m: int) -> np.ndarray:
    """Every grouping of ``m`` classes into two non-empty super-classes, each unordered pair once.

    Row ``g`` is True on the first super-class; the last class is always in the second, so
    there are ``2^(m-1) - 1`` rows.
    """
    if m < 2:
        return np.zeros((0, m), dtype=bool)
    codes = np.arange(1, 2 ** (m - 1))
    return ((codes[:, None] >> np.arange(m)) & 1).astype(bool)


def grouping_values(counts: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The two-class value of each grouping (row of ``masks``) of the columns of ``counts``.

    Every column must have a positive total and each super-class at least one column.
    """
    first = counts @ masks.T.astype(float)  # (branches, groupings): pooled counts of the first group
    second = counts @ (~masks).T.astype(float)  # summed, not subtracted: an empty cell stays exactly 0
    first = first / first.sum(axis=0)
    second = second / second.sum(axis=0)
    return np.sqrt(np.sum((np.sqrt(first) - np.sqrt(second)) ** 2, axis=0))


def present_columns(table: np.ndarray) -> np.ndarray:
    """The table restricted to the classes with a positive total, each count below :data:`SNAP`
    of its class's total set to 0 (the rounding residue of weighted sums, see :func:`_sides`)."""
    counts = np.asarray(table, dtype=float)
    totals = counts.sum(axis=0)
    counts = np.where(counts < SNAP * totals, 0.0, counts)
    return counts[:, totals > 0]


def best_grouping(table: np.ndarray) -> float:
    """The largest two-class value over every grouping of the present classes (exhaustive)."""
    counts = present_columns(table)
    if counts.shape[1] < 2:
        return 0.0
    return float(grouping_values(counts, groupings(counts.shape[1])).max())


def best_sorted_cut(table: np.ndarray) -> float:
    """The same maximum for a two-branch table, over the cuts of the classes sorted by left share.

    Ties in the left share are broken by the right share, largest first, and a cut goes
    only where that pair changes (classes with equal shares stay together).
    """
    counts = present_columns(table)
    if counts.shape[0] != 2:
        raise ValueError(f"the sorted cut is exact for two branches only; got {counts.shape[0]}")
    left_share, right_share = counts / counts.sum(axis=0)
    order = np.lexsort((-right_share, left_share))
    pairs = np.stack([left_share[order], right_share[order]], axis=1)
    cuts = np.flatnonzero(np.any(pairs[1:] != pairs[:-1], axis=1)) + 1
    if cuts.size == 0:
        return 0.0
    masks = np.zeros((cuts.size, counts.shape[1]), dtype=bool)
    for row, cut in enumerate(cuts):
        masks[row, order[:cut]] = True
    return float(grouping_values(counts, masks).max())


def best_one_vs_rest(table: np.ndarray) -> float:
    """The largest two-class value of one present class against the other present ones pooled."""
    counts = present_columns(table)
    if counts.shape[1] < 2:
        return 0.0
    return float(grouping_values(counts, np.eye(counts.shape[1], dtype=bool)).max())


def split_value(table: np.ndarray, reading: str = "grouping") -> float:
    """The Hellinger split value of a ``(branches, classes)`` count table under ``reading``.

    The grouping reading uses the sorted cut for two branches and the exhaustive search
    otherwise, refused above :data:`MAX_GROUPING_CLASSES` classes present.
    """
    if reading == "one-vs-rest":
        return best_one_vs_rest(table)
    counts = np.asarray(table, dtype=float)
    if counts.shape[0] == 2:
        return best_sorted_cut(counts)
    if present_columns(counts).shape[1] > MAX_GROUPING_CLASSES:
        raise TreebenchError(TOO_MANY_CLASSES)
    return best_grouping(counts)


class Hellinger(Criterion):
    """Hellinger distance between the classes' distributions over a split's branches.

    Cieslak & Chawla 2008 (ECML PKDD) and Cieslak, Hoens, Chawla & Kegelmeyer 2012 (DMKD
    24:136-158) for two classes; for more, ``reading="grouping"`` (the best grouping of the
    classes into two super-classes, our reading of Hoens, Qian, Chawla & Zhou 2012) or
    ``"one-vs-rest"``.  The score is ``d_H`` itself, in ``[0, sqrt(2)]``, larger is better;
    ``node_value`` is 0 (a node alone is one branch).  The default acceptance rule is kept
    (``score >= min_gain``, zero-distance splits made while the node is impure), as for the
    impurity criteria.  See the module docstring for the formulas and the search.
    """

    name = "hellinger"
    summary = "Hellinger distance between the classes' branch distributions (HDDT); skew-insensitive"
    paper = ("Cieslak & Chawla 2008; Cieslak, Hoens, Chawla & Kegelmeyer 2012; "
             "multi-class: Hoens, Qian, Chawla & Zhou 2012")
    params = (
        Param(
            "reading",
            READINGS[0],
            str,
            choices=READINGS,
            doc="more than two classes: best grouping into two super-classes, or best one class vs the rest",
        ),
    )
    kernel_id = GROUPING
    importance_from_split_score = True  # node_value is 0 everywhere: nothing to decrease

    def __init__(self, **params) -> None:
        super().__init__(**params)
        if self.reading == "one-vs-rest":
            self.kernel_id = ONE_VS_REST  # type: ignore[misc]  # an instance's own scan

    def dataset_limit(self, classes: int, nominal_features: int) -> str | None:
        # the exhaustive grouping of a multiway split is refused above MAX_GROUPING_CLASSES present;
        # all of them are present at the root, where every nominal feature is tried
        if self.reading == "grouping" and nominal_features and classes > MAX_GROUPING_CLASSES:
            return (f"{classes} classes and {nominal_features} nominal feature(s): a multiway split's best "
                    f"grouping would try {2 ** (classes - 1) - 1:,} groupings per node (at most "
                    f"{MAX_GROUPING_CLASSES} classes present; reading='one-vs-rest' and nominal_split='binary' have no "
                    "such limit)")
        return None

    def node_value(self, counts: np.ndarray) -> float:
        return 0.0

    def split_scores(self, parent, children, context: SplitContext | None = None) -> np.ndarray:
        return np.array([split_value(table, self.reading) for table in as_children(children)])


# -- compiled ------------------------------------------------------------------------------------


# The helpers below take scalars and are plain functions: numba compiles each once and LLVM
# inlines it, while an inline="always" helper is run through numba's front end again at every
# call site, in every specialisation of the scans (measured: the first compile of a certainty
# and possibilistic fit doubled with them inlined).  The functions taking the count arrays are
# inline="always" instead: called as plain functions, once per threshold candidate, they cost
# more than their work (measured on the candidates of a letter fit, 26 classes: 116 -> 95 ns
# a candidate for the grouping reading; pendigits, 10 classes: 84 -> 52 ns).


@njit(cache=True)
def _sides(left_i, parent_i):
    """A class's left and right counts, a share below :data:`SNAP` of its total set to 0.

    The right count is ``parent - left``: with weights, a class wholly on one side can leave a
    residue of 1e-16 there, whose square root (1e-8) would count as distance.
    """
    right_i = parent_i - left_i
    if right_i < SNAP * parent_i:
        right_i = right_i - right_i
    if left_i < SNAP * parent_i:
        left_i = left_i - left_i
    return left_i, right_i


@njit(cache=True)
def _squared(a, a_right, b, b_right) -> float:
    """``d_H^2`` of a grouping of a two-branch split: the first super-class has ``a`` on the
    left and ``a_right`` on the right, the second ``b`` and ``b_right`` (no difference taken:
    an empty side stays exactly 0)."""
    a_total = a + a_right
    b_total = b + b_right
    d_left = math.sqrt(a / a_total) - math.sqrt(b / b_total)
    d_right = math.sqrt(a_right / a_total) - math.sqrt(b_right / b_total)
    return d_left * d_left + d_right * d_right


@njit(cache=True)
def _raised(a, a_right, b, b_right, best: float) -> float:
    """``max(best, d_H^2)`` of a grouping (as :func:`_squared`) of integer counts, its square
    roots skipped when a bound shows it cannot exceed ``best``.

    With ``p = a / A`` and ``q = b / B`` the super-classes' left shares, each term
    ``(sqrt(p) - sqrt(q))^2 = (p - q)^2 / (sqrt(p) + sqrt(q))^2`` is at most ``(p - q)^2 / (p +
    q)`` (and at least half of it), so ``d_H^2 <= 2 D^2 / (P_1 P_2)`` with ``D = a B - b A``
    (exact in integers), ``P_1 = a B + b A``, ``P_2 = a_right B + b_right A``: products only.
    The margin covers the rounding of the bound, so the maximum is the one every grouping
    computed would give.
    """
    a_total = a + a_right
    b_total = b + b_right
    delta = float(a * b_total - b * a_total)
    first = float(a) * b_total + float(b) * a_total
    second = float(a_right) * b_total + float(b_right) * a_total
    if 2.0 * delta * delta <= best * (first * second) * (1.0 - 1e-9):
        return best
    value = _squared(a, a_right, b, b_right)
    return value if value > best else best


@njit(cache=True)
def _after(c_left_count, c_parent, i_left_count, i_parent) -> bool:
    """Whether class ``c`` sorts after class ``i``: a larger left share, or an equal one and a
    smaller right share (cross-multiplied: no division)."""
    c_left, c_right = _sides(c_left_count, c_parent)
    i_left, i_right = _sides(i_left_count, i_parent)
    c_share = c_left * (i_left + i_right)
    i_share = i_left * (c_left + c_right)
    if c_share != i_share:
        return c_share > i_share
    return c_right * (i_left + i_right) < i_right * (c_left + c_right)


@njit(cache=True, inline="always")
def _sorted_cut_integer(left: np.ndarray, parent: np.ndarray, order: np.ndarray) -> float:
    """The largest ``d_H^2`` over the sorted cuts, integer counts (a fit without weights).

    One pass over the classes puts those wholly on the right (left share 0) in one group and
    those wholly on the left (share 1) in another, neither sorted: classes of equal shares
    stay together, so each group is one block of the order, first and last.  Only the others
    are insertion-sorted, in ``order``: class ``c`` after class ``i`` when ``left_c parent_i >
    left_i parent_c`` (exact in integers; :func:`_after` reduces to it: no count is snapped,
    and equal left shares mean equal right shares).  In a threshold scan most present classes
    are in the two blocks (letter: 3.8 of 6.7), and the sort is the cost.  The cuts are then
    one pass of prefix sums, the second super-class being the totals minus the first (exact).
    """
    zero = left[0] - left[0]
    total_left = zero
    total = zero
    on_right = zero  # the parent counts of the classes wholly on the right
    m = 0  # classes on both sides, sorted in order[:m]
    blocks = 0  # classes wholly on one side
    for i in range(parent.shape[0]):
        p_i = parent[i]
        if p_i <= 0:
            continue
        l_i = left[i]
        total_left += l_i
        total += p_i
        if l_i == 0:
            on_right += p_i
            blocks += 1
            continue
        if l_i == p_i:
            blocks += 1
            continue
        j = m - 1
        while j >= 0:
            c = np.int64(order[j])
            if left[c] * p_i <= l_i * parent[c]:
                break
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = i
        m += 1
    if m + blocks < 2:
        return 0.0
    best = 0.0
    a = zero
    a_total = on_right
    if on_right > 0 and a_total < total:  # cut after the share-0 block
        best = _squared(a, a_total, total_left, (total - a_total) - total_left)
    for t in range(m):
        current = np.int64(order[t])
        l_c = left[current]
        p_c = parent[current]
        a += l_c
        a_total += p_c
        if a_total == total:
            break  # no class after it (no share-1 block): no cut
        if t + 1 < m:
            following = np.int64(order[t + 1])
            if left[following] * p_c <= l_c * parent[following]:
                continue  # equal shares: no cut between them
        b = total_left - a
        best = _raised(a, a_total - a, b, (total - a_total) - b, best)
    return best


@njit(cache=True)
def _sorted_cut_summed(left: np.ndarray, parent: np.ndarray, order: np.ndarray) -> float:
    """:func:`_sorted_cut_integer` for weighted counts, where sums round: each class's sides
    snapped (:func:`_sides`), the blocks those with a snapped side of 0, the others sorted by
    :func:`_after`; the second super-class's sides are summed afresh at each cut, never a total
    minus the first's (``O(m^2)`` in the ``m`` classes on both sides, a few), so an empty side
    is exactly 0 and a small one is not a difference of large sums."""
    on_right = 0.0  # the block wholly on the right: its right sum (its left one is 0)
    on_left = 0.0  # the block wholly on the left: its left sum (its right one is 0)
    m = 0
    blocks = 0
    for i in range(parent.shape[0]):
        if parent[i] <= 0:
            continue
        i_left, i_right = _sides(left[i], parent[i])
        if i_left == 0.0:
            on_right += i_right
            blocks += 1
            continue
        if i_right == 0.0:
            on_left += i_left
            blocks += 1
            continue
        j = m - 1
        while j >= 0 and _after(left[np.int64(order[j])], parent[np.int64(order[j])], left[i], parent[i]):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = i
        m += 1
    if m + blocks < 2:
        return 0.0
    best = 0.0
    if on_right > 0.0 and (m > 0 or on_left > 0.0):  # cut after the share-0 block
        b = on_left
        b_right = 0.0
        for u in range(m):
            c_left, c_right = _sides(left[np.int64(order[u])], parent[np.int64(order[u])])
            b += c_left
            b_right += c_right
        best = _squared(0.0, on_right, b, b_right)
    a = 0.0
    a_right = on_right
    for t in range(m):
        current = np.int64(order[t])
        c_left, c_right = _sides(left[current], parent[current])
        a += c_left
        a_right += c_right
        if t + 1 == m and on_left == 0.0:
            break  # no class after it: no cut
        if t + 1 < m and not _after(left[np.int64(order[t + 1])], parent[np.int64(order[t + 1])],
                                    left[current], parent[current]):
            continue  # equal shares: no cut between them
        b = on_left
        b_right = 0.0
        for u in range(t + 1, m):
            c_left, c_right = _sides(left[np.int64(order[u])], parent[np.int64(order[u])])
            b += c_left
            b_right += c_right
        value = _squared(a, a_right, b, b_right)
        if value > best:
            best = value
    return best


@njit(cache=True, inline="always")
def _two_integer(left: np.ndarray, parent: np.ndarray) -> float:
    """``d_H^2`` of two classes, integer counts (nothing to snap)."""
    return _squared(left[0], parent[0] - left[0], left[1], parent[1] - left[1])


@njit(cache=True, inline="always")
def _two_summed(left: np.ndarray, parent: np.ndarray) -> float:
    """``d_H^2`` of two classes, weighted counts (each side snapped, :func:`_sides`)."""
    a, a_right = _sides(left[0], parent[0])
    b, b_right = _sides(left[1], parent[1])
    return _squared(a, a_right, b, b_right)


# Integer counts (a fit without weights) and weighted ones take different code: sums of
# integers are exact, so a super-class's count may be a total minus the other's; sums of
# weights round, and are accumulated.  The overloads below choose by the type of the counts,
# so each compiled version holds one of the two (a test on the type inside one function would
# compile both into every scan).


def two_class_squared(left: np.ndarray, parent: np.ndarray) -> float:
    """``d_H^2`` of a two-branch split of a node of two classes, both present (compiled code only)."""
    raise NotImplementedError("for numba-compiled code")


def sorted_cut_squared(left: np.ndarray, parent: np.ndarray, order: np.ndarray) -> float:
    """The largest ``d_H^2`` over the sorted cuts, ``order`` the scratch (compiled code only)."""
    raise NotImplementedError("for numba-compiled code")


def one_vs_rest_squared(left: np.ndarray, parent: np.ndarray) -> float:
    """The largest ``d_H^2`` of one present class against the rest (compiled code only)."""
    raise NotImplementedError("for numba-compiled code")


@overload(two_class_squared, inline="always")
def _two_class_squared(left, parent):
    if isinstance(left.dtype, types.Integer):
        return lambda left, parent: _two_integer(left, parent)
    return lambda left, parent: _two_summed(left, parent)


@overload(sorted_cut_squared, inline="always")
def _sorted_cut_squared(left, parent, order):
    if isinstance(left.dtype, types.Integer):
        return lambda left, parent, order: _sorted_cut_integer(left, parent, order)
    return lambda left, parent, order: _sorted_cut_summed(left, parent, order)


@overload(one_vs_rest_squared, inline="always")
def _one_vs_rest_squared(left, parent):
    if isinstance(left.dtype, types.Integer):
        return lambda left, parent: _one_vs_rest_integer(left, parent)
    return lambda left, parent: _one_vs_rest_summed(left, parent)


@njit(cache=True, inline="always")
def sorted_cut_value(left: np.ndarray, parent: np.ndarray, scratch: np.ndarray) -> float:
    """:func:`best_sorted_cut` of the two-branch split ``left`` / ``parent - left`` (compiled).

    ``scratch`` (``k`` floats) holds the indices of the present classes being sorted (an
    insertion sort of those on both sides, no division); the cuts are then one pass of running
    sums, ``O(m)`` for ``m`` present classes.
    """
    if parent.shape[0] == 2 and parent[0] > 0 and parent[1] > 0:
        return math.sqrt(two_class_squared(left, parent))  # one grouping, no sort
    return math.sqrt(sorted_cut_squared(left, parent, scratch))


@njit(cache=True, inline="always")
def _one_vs_rest_integer(left: np.ndarray, parent: np.ndarray) -> float:
    """The largest ``d_H^2`` of one present class against the rest, integer counts: the rest's
    sides are the totals minus the class's (exact), ``O(k)``."""
    total_left = left[0] - left[0]
    total = total_left
    for c in range(parent.shape[0]):
        if parent[c] > 0:
            total_left += left[c]
            total += parent[c]
    best = 0.0
    for i in range(parent.shape[0]):
        p_i = parent[i]
        if p_i <= 0 or p_i == total:  # absent, or the only class present (nothing to separate)
            continue
        l_i = left[i]
        b = total_left - l_i
        best = _raised(l_i, p_i - l_i, b, (total - p_i) - b, best)
    return best


@njit(cache=True)
def _one_vs_rest_summed(left: np.ndarray, parent: np.ndarray) -> float:
    """:func:`_one_vs_rest_integer` for weighted counts: the rest is summed afresh for each
    class, never a total minus the class, so an empty side is exactly 0 and a small one is not
    a difference of large sums; ``O(k^2)`` (measured: faster for ``k = 10`` than a list of the
    present classes, or than suffix sums in an array allocated per call)."""
    present = 0
    for i in range(parent.shape[0]):
        if parent[i] > 0:
            present += 1
    if present < 2:
        return 0.0
    best = 0.0
    for i in range(parent.shape[0]):
        if parent[i] <= 0:
            continue
        a, a_right = _sides(left[i], parent[i])
        b = 0.0
        b_right = 0.0
        for c in range(parent.shape[0]):
            if c != i and parent[c] > 0:
                c_left, c_right = _sides(left[c], parent[c])
                b += c_left
                b_right += c_right
        value = _squared(a, a_right, b, b_right)
        if value > best:
            best = value
    return best


@njit(cache=True, inline="always")
def one_vs_rest_value(left: np.ndarray, parent: np.ndarray) -> float:
    """:func:`best_one_vs_rest` of the two-branch split ``left`` / ``parent - left`` (compiled):
    ``O(k)`` for integer counts (the rest is the totals minus the class), ``O(k^2)`` with weights."""
    if parent.shape[0] == 2 and parent[0] > 0 and parent[1] > 0:
        return math.sqrt(two_class_squared(left, parent))  # either class against the other: one value
    return math.sqrt(one_vs_rest_squared(left, parent))


@njit(cache=True, inline="always")
def row_mass(params: np.ndarray, row: np.ndarray, s, n_branches: int, scratch: np.ndarray) -> float:
    """A node on its own: one branch, distance 0 (a split is scored whole, by the functions below)."""
    return 0.0


@njit(cache=True, inline="always")
def pair_mass(left: np.ndarray, parent: np.ndarray, right: np.ndarray, w_left, total, z, scratch) -> float:
    """``-total * d_H`` of a two-branch split, grouping reading (the sorted cut)."""
    return -total * sorted_cut_value(left, parent, scratch)


@njit(cache=True, inline="always")
def pair_mass_ovr(left: np.ndarray, parent: np.ndarray, right: np.ndarray, w_left, total, z, scratch) -> float:
    """``-total * d_H`` of a two-branch split, one-vs-rest reading."""
    return -total * one_vs_rest_value(left, parent)


@njit(cache=True)
def _cell(count, total) -> float:
    """A count, 0 below :data:`SNAP` of its class's total (as :func:`_sides`)."""
    return 0.0 if count < SNAP * total else float(count)


@njit(cache=True)
def _grouping_squared(first: np.ndarray, second: np.ndarray, n_branches: int) -> float:
    """``d_H^2`` of a grouping from each super-class's count per branch."""
    a_total = 0.0
    b_total = 0.0
    for j in range(n_branches):
        a_total += first[j]
        b_total += second[j]
    if a_total <= 0.0 or b_total <= 0.0:
        return 0.0
    acc = 0.0
    for j in range(n_branches):
        d = math.sqrt(first[j] / a_total) - math.sqrt(second[j] / b_total)
        acc += d * d
    return acc


@njit(cache=True, **COUNTS_REFERENCES)  # allocates its per-branch sums; search_node counts no references
def split_mass(params: np.ndarray, counts: np.ndarray, rows: np.ndarray, n_branches: int, parent: np.ndarray,
               total, scratch: np.ndarray) -> float:
    """``-total * d_H`` of a multiway split, grouping reading: every grouping of the present classes.

    Branch ``j`` has the class counts ``counts[rows[j]]``.  ``2^(m-1) - 1`` groupings of the
    ``m`` present classes, each ``O(n_branches * m)``; refused above :data:`MAX_GROUPING_CLASSES`.
    """
    m = 0
    for i in range(parent.shape[0]):
        if parent[i] > 0:
            scratch[m] = i
            m += 1
    if m < 2:
        return 0.0
    if m > MAX_GROUPING_CLASSES:
        raise ValueError(TOO_MANY_CLASSES)
    first = np.empty(n_branches)
    second = np.empty(n_branches)
    best = 0.0
    for code in range(1, 1 << (m - 1)):  # the last present class always in the second group
        for j in range(n_branches):
            in_first = 0.0
            in_second = 0.0
            for b in range(m):
                count = _cell(counts[rows[j], np.int64(scratch[b])], parent[np.int64(scratch[b])])
                if b < m - 1 and (code >> b) & 1:
                    in_first += count
                else:
                    in_second += count
            first[j] = in_first
            second[j] = in_second
        value = _grouping_squared(first, second, n_branches)
        if value > best:
            best = value
    return -total * math.sqrt(best)


@njit(cache=True, **COUNTS_REFERENCES)  # allocates, as split_mass
def split_mass_ovr(params: np.ndarray, counts: np.ndarray, rows: np.ndarray, n_branches: int,
                   parent: np.ndarray, total, scratch: np.ndarray) -> float:
    """``-total * d_H`` of a multiway split, one-vs-rest reading: ``O(m^2 * n_branches)``."""
    present = 0
    for i in range(parent.shape[0]):
        if parent[i] > 0:
            present += 1
    if present < 2:
        return 0.0
    first = np.empty(n_branches)
    second = np.empty(n_branches)
    best = 0.0
    for i in range(parent.shape[0]):
        if parent[i] <= 0:
            continue
        for j in range(n_branches):
            first[j] = _cell(counts[rows[j], i], parent[i])
            rest = 0.0
            for c in range(parent.shape[0]):
                if c != i and parent[c] > 0:
                    rest += _cell(counts[rows[j], c], parent[c])
            second[j] = rest
        value = _grouping_squared(first, second, n_branches)
        if value > best:
            best = value
    return -total * math.sqrt(best)


#: How far a computed gain (``d_H``) may be from the exact one, integer counts: ``d_H^2`` is
#: computed within about 1e-15 (the sums are exact; each of the two branch terms rounds two
#: divisions, two square roots, a difference and a square), and near 0 a square root magnifies
#: that to at most its own square root, ``sqrt(1e-13) = 3.2e-7`` taken generously.
VALUE_ROUNDING = 5e-7


@njit(cache=True)
def step_term(c: float) -> float:
    """``t(c) = (sqrt(c + 1) - sqrt(c))^2`` of the bound on one moved sample's change (see
    "Skipping candidates" above), computed without cancellation and raised by ``1e-12`` of
    itself so that its own rounding cannot make it smaller than ``t``."""
    root = 1.0 / (math.sqrt(c + 1.0) + math.sqrt(c))
    return root * root * (1.0 + 1e-12)


KERNELS = (
    Kernel(GROUPING, "hellinger", ROWS, whole_split=True, step_bounded=True),
    Kernel(ONE_VS_REST, "hellinger_ovr", ROWS, whole_split=True, step_bounded=True, suffix="_ovr"),
)
CRITERIA = (Hellinger,)
