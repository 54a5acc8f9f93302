"""Issue 40: a readable oracle of the Hellinger distance split value (numpy only).

This is the slow, plain version the compiled Hellinger criterion will be tested against; it
holds no tree code, only the value of one candidate split given its count table.

The count table
    ``table[j, c]`` is the (possibly weighted) count of class ``c`` in branch ``j`` of the split:
    one row per branch (two for a threshold on a numeric feature, one per value for a multiway
    nominal split), one column per class.  This is one candidate of the ``(m, r, k)`` children
    array of ``treebench.criteria`` (``docs/criteria.md``).

Two classes (Cieslak & Chawla 2008; Cieslak, Hoens, Chawla & Kegelmeyer 2012)
    Each class ``c`` has a distribution over the branches, ``table[:, c] / table[:, c].sum()``.
    The split value is the Hellinger distance between the two classes' distributions,

        d_H = sqrt( sum_j ( sqrt(|X+_j| / |X+|) - sqrt(|X-_j| / |X-|) )^2 ),

    larger is better, from 0 (both classes spread over the branches alike) to sqrt(2) (no
    branch holds both classes).  The class sizes enter only as the denominators, so multiplying
    one class's counts by a constant leaves the value unchanged: the skew insensitivity the
    2012 paper proves.  For two branches with left fractions ``p`` and ``q`` of the two classes,
    ``d_H^2 = 2 - 2 BC(p, q)`` with the Bhattacharyya coefficient
    ``BC = sqrt(p q) + sqrt((1 - p)(1 - q)) = cos(asin(sqrt(p)) - asin(sqrt(q)))``, so
    ``d_H = 2 sin(|asin(sqrt(p)) - asin(sqrt(q))| / 2)`` (``hellinger_from_fractions``).

More than two classes (Hoens, Qian, Chawla & Zhou 2012, PAKDD) -- the reading chosen
    Group the classes into two super-classes ``C1`` and ``C \\ C1``, pool each group's counts
    (relabel its examples as one class) and take the two-class value; the split's value is the
    largest over the ``2^(k-1) - 1`` groupings (``bipartition_max_exhaustive``).  Classes absent
    from the node have no distribution over the branches and are left out.  The one-vs-rest
    maximum (``one_vs_rest_max``: ``C1`` a single class) is the other reading; it is the same
    for three classes and can only be lower from four on.  docs/investigations.md, "Hellinger
    distance for more than two classes", gives the sources and the reasons for the choice.

Cost of the chosen reading
    For two branches the best grouping is always a cut of the classes sorted by their left
    fraction ``left_c / total_c`` (proved in docs/investigations.md and checked by
    ``investigations/hellinger_bipartition.py``), so ``bipartition_max_sorted`` tries at most
    ``k - 1`` groupings instead of ``2^(k-1) - 1``.  For three or more branches no such ordering exists
    and only the exhaustive search is exact.
"""

from __future__ import annotations

import numpy as np

#: The multi-class readings this oracle computes; the first is the one chosen.
READINGS = ("bipartition", "one_vs_rest")


def as_table(table: object) -> np.ndarray:
    """Check and return a count table as a float array of shape ``(branches, classes)``.

    Raises
    ------
    ValueError
        If the table is not two-dimensional with at least two branches and one class, or holds
        a negative, infinite or missing count.
    """
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2 or counts.shape[0] < 2 or counts.shape[1] < 1:
        raise ValueError(f"a count table has shape (branches >= 2, classes >= 1); got {counts.shape}")
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise ValueError("a count table holds finite counts >= 0")
    return counts


def hellinger_two(table: object) -> float:
    """The two-class Hellinger distance split value of a ``(branches, 2)`` count table.

    Returns 0.0 when a class has no example at the node: there is nothing to separate it from.
    """
    counts = as_table(table)
    if counts.shape[1] != 2:
        raise ValueError(f"the two-class value needs 2 class columns; got {counts.shape[1]}")
    totals = counts.sum(axis=0)
    if np.any(totals <= 0):
        return 0.0
    first, second = counts[:, 0] / totals[0], counts[:, 1] / totals[1]
    return float(np.sqrt(np.sum((np.sqrt(first) - np.sqrt(second)) ** 2)))


def hellinger_from_fractions(p: float, q: float) -> float:
    """The two-branch value from the two classes' left fractions, by the angle form.

    ``2 sin(|asin(sqrt(p)) - asin(sqrt(q))| / 2)``: the same number as ``hellinger_two`` on
    ``[[p, q], [1 - p, 1 - q]]``, written another way so that each can check the other.
    """
    angle = abs(np.arcsin(np.sqrt(p)) - np.arcsin(np.sqrt(q)))
    return float(2.0 * np.sin(angle / 2.0))


def present_classes(table: object) -> np.ndarray:
    """Indices of the classes with a positive total at the node."""
    return np.flatnonzero(as_table(table).sum(axis=0) > 0)


def superclass_table(table: object, first: np.ndarray) -> np.ndarray:
    """Pool the classes into two super-classes: column 0 sums the classes where ``first`` is
    True, column 1 the others."""
    counts = as_table(table)
    first = np.asarray(first, dtype=bool)
    return np.stack([counts[:, first].sum(axis=1), counts[:, ~first].sum(axis=1)], axis=1)


def bipartition_masks(k: int) -> np.ndarray:
    """Every grouping of ``k`` classes into two non-empty super-classes, once each.

    Row ``b`` marks the classes of the first super-class; the last class is always in the
    second, which counts each unordered pair ``{C1, C \\ C1}`` once: ``2^(k-1) - 1`` rows.
    """
    if k < 2:
        return np.zeros((0, k), dtype=bool)
    codes = np.arange(1, 2 ** (k - 1))
    return ((codes[:, None] >> np.arange(k)) & 1).astype(bool)


def grouping_values(counts: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The two-class value of each grouping of the columns of ``counts``.

    ``masks`` has one row per grouping, True on the classes of its first super-class; every
    class must have a positive total and each super-class at least one class.
    """
    first = counts @ masks.T.astype(float)  # (branches, groupings): pooled counts of C1
    second = counts @ (~masks).T.astype(float)  # summed, not subtracted: an empty cell stays 0
    first = first / first.sum(axis=0)
    second = second / second.sum(axis=0)
    return np.sqrt(np.sum((np.sqrt(first) - np.sqrt(second)) ** 2, axis=0))


def _full_mask(table: np.ndarray, present: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A mask over all the table's classes from one over its present classes (absent: False)."""
    full = np.zeros(table.shape[1], dtype=bool)
    full[present[mask]] = True
    return full


def bipartition_max_exhaustive(table: object) -> tuple[float, np.ndarray | None]:
    """The largest two-class value over every grouping of the present classes in two.

    Returns the value and the first super-class as a mask over the table's classes (the first
    grouping in ``bipartition_masks`` order among equal values), or ``(0.0, None)`` with fewer
    than two classes present.  Exact for any number of branches; ``2^(k-1) - 1`` groupings.
    """
    counts = as_table(table)
    present = present_classes(counts)
    if present.size < 2:
        return 0.0, None
    masks = bipartition_masks(present.size)
    values = grouping_values(counts[:, present], masks)
    best = int(np.argmax(values))
    return float(values[best]), _full_mask(counts, present, masks[best])


def bipartition_max_sorted(table: object) -> tuple[float, np.ndarray | None]:
    """The same maximum for a two-branch split, from the cuts of the sorted classes.

    The present classes are sorted by their left fraction ``table[0, c] / total_c`` and cut
    wherever the fraction rises: the first super-class is every class whose fraction is at most
    a threshold, so classes with equal fractions stay together (at most ``k - 1`` groupings).
    Fractions equal in floating point are told apart by the right fraction (see the comment).
    Equal to ``bipartition_max_exhaustive`` on every two-branch table (the theorem of
    docs/investigations.md); not exact for three or more branches, which it refuses.  Returns
    ``(0.0, None)`` when no cut exists: fewer than two classes, or all fractions equal (then
    every grouping scores 0).
    """
    counts = as_table(table)
    if counts.shape[0] != 2:
        raise ValueError(f"the sorted search is exact for two branches only; got {counts.shape[0]}")
    present = present_classes(counts)
    kept = counts[:, present]
    # Near 1 a left fraction rounds to 1.0 while the right one, 1e-20 say, still tells the classes
    # apart (and a square root makes that difference 1e-10 of value): the right fraction breaks
    # ties in the left one, largest first, and a cut goes wherever the pair changes.
    left_fraction, right_fraction = kept / kept.sum(axis=0)
    order = np.lexsort((-right_fraction, left_fraction))
    pairs = np.stack([left_fraction[order], right_fraction[order]], axis=1)
    cuts = np.flatnonzero(np.any(pairs[1:] != pairs[:-1], axis=1)) + 1
    if cuts.size == 0:
        return 0.0, None
    masks = np.zeros((cuts.size, present.size), dtype=bool)
    for row, cut in enumerate(cuts):
        masks[row, order[:cut]] = True
    values = grouping_values(kept, masks)
    best = int(np.argmax(values))
    return float(values[best]), _full_mask(counts, present, masks[best])


def one_vs_rest_max(table: object) -> tuple[float, int | None]:
    """The largest two-class value of one class against all the others pooled.

    Returns the value and that class's index, or ``(0.0, None)`` with fewer than two classes
    present.  With exactly two classes present it is the two-class value.
    """
    counts = as_table(table)
    present = present_classes(counts)
    if present.size < 2:
        return 0.0, None
    masks = np.eye(present.size, dtype=bool)
    values = grouping_values(counts[:, present], masks)
    best = int(np.argmax(values))
    return float(values[best]), int(present[best])


def hellinger_split_value(table: object, reading: str = "bipartition") -> float:
    """The Hellinger split value of a count table under a multi-class reading.

    ``"bipartition"`` (chosen): the best grouping of the classes into two super-classes;
    ``"one_vs_rest"``: the best single class against the rest.  Both are the two-class value
    when the node holds two classes, and 0.0 when it holds fewer.
    """
    if reading not in READINGS:
        raise ValueError(f"unknown multi-class reading {reading!r}; accepted: {', '.join(READINGS)}")
    counts = as_table(table)
    if reading == "one_vs_rest":
        return one_vs_rest_max(counts)[0]
    if counts.shape[0] == 2:
        return bipartition_max_sorted(counts)[0]
    return bipartition_max_exhaustive(counts)[0]
