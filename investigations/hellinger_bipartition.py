"""Issue 40: is the best grouping of the classes in two always a cut of the sorted classes?

Hypothesis
    The multi-class Hellinger split value chosen for treebench (``hellinger_oracle``) is the
    largest two-class value over the ``2^(k-1) - 1`` groupings of the ``k`` classes into two
    super-classes.  For a two-branch split, the best grouping is a cut of the classes sorted by
    their left fraction ``r_c = left_c / total_c`` (the ``k - 1`` prefixes), as Breiman's
    theorem gives for an impurity's best two-group split of a nominal feature's values.  The
    proof is in docs/investigations.md ("Hellinger distance for more than two classes"); this
    script checks it by exhaustive search.  For three or more branches there is no such order,
    and the script looks for tables where no cut of the classes sorted by any one branch's
    share finds the best grouping.

Measurement
    Random count tables of four kinds -- balanced (class totals 20-60), skewed (totals from 1 to
    about 5,000 in one table), weighted (real-valued gamma weights) and ties (left fractions in
    {0, 1/4, 1/2, 3/4, 1}, so tied and pure classes) -- for k = 3..10 classes; for each, the
    exhaustive maximum against the sorted-cut maximum.  Then the same exhaustive maximum against
    the one-vs-rest maximum (the other reading) and CART's twoing grouping, and multiway tables
    (3 and 4 branches, five times as many): single-branch thresholds, whether a hyperplane
    separates the best grouping (a linear programme, where no threshold is best), and whether the
    value along random edges of the zonotope ever rises above both ends.

Run
    ``.venv/bin/python investigations/hellinger_bipartition.py`` (about 16 s of CPU; ``--tables
    N`` per cell, default 500).  Needs no dataset.  Prints the counts; the conclusion is in
    docs/investigations.md.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from hellinger_oracle import (
    bipartition_masks,
    bipartition_max_exhaustive,
    bipartition_max_sorted,
    grouping_values,
    one_vs_rest_max,
)
from scipy.optimize import linprog

#: Class counts of the binary-split check (the exhaustive search is 511 groupings at 10).
CLASSES = range(3, 11)
#: A gap this small is rounding, not a counterexample.
TOLERANCE = 1e-12


def balanced(rng: np.random.Generator, k: int, branches: int = 2) -> np.ndarray:
    """Integer counts, class totals of 20 to 60, each class spread at random over the branches."""
    totals = rng.integers(20, 61, size=k)
    return np.stack([rng.multinomial(n, rng.dirichlet(np.ones(branches))) for n in totals], axis=1)


def skewed(rng: np.random.Generator, k: int, branches: int = 2) -> np.ndarray:
    """Integer counts whose class totals span 1 to about 5,000 (log-uniform)."""
    totals = np.maximum(1, np.round(np.exp(rng.uniform(0, np.log(5000), size=k)))).astype(int)
    return np.stack([rng.multinomial(n, rng.dirichlet(np.full(branches, 0.5))) for n in totals], axis=1)


def weighted(rng: np.random.Generator, k: int, branches: int = 2) -> np.ndarray:
    """Real-valued weights (gamma, shape 0.5), so cells from near 0 to a few hundred."""
    return rng.gamma(0.5, 40.0, size=(branches, k))


def ties(rng: np.random.Generator, k: int, branches: int = 2) -> np.ndarray:
    """Left fractions in {0, 1/4, 1/2, 3/4, 1}: equal fractions and pure classes are common."""
    if branches != 2:
        raise ValueError("the ties tables have two branches")
    totals = 4 * rng.integers(1, 15, size=k)
    left = totals * rng.integers(0, 5, size=k) // 4
    return np.stack([left, totals - left]).astype(float)


KINDS: dict[str, Callable[..., np.ndarray]] = {
    "balanced": balanced, "skewed": skewed, "weighted": weighted, "ties": ties}


def sorted_cut_check(tables: int, seed: int) -> dict[str, object]:
    """Two branches: the exhaustive maximum against the best cut of the sorted classes."""
    rng = np.random.default_rng(seed)
    count, counterexamples, worst, worst_table, twoing_below = 0, 0, 0.0, None, 0
    for k in CLASSES:
        for make in KINDS.values():
            for _ in range(tables):
                table = make(rng, k).astype(float)
                exhaustive, _ = bipartition_max_exhaustive(table)
                by_cut, _ = bipartition_max_sorted(table)
                gap = exhaustive - by_cut
                count += 1
                if gap > TOLERANCE:
                    counterexamples += 1
                if gap > worst:
                    worst, worst_table = gap, table
                twoing_below += exhaustive - twoing_cut_value(table) > TOLERANCE
    return {"tables": count, "counterexamples": counterexamples, "worst gap": worst,
            "worst table": worst_table, "twoing cut below": twoing_below}


def twoing_cut_value(table: np.ndarray) -> float:
    """The value of CART's twoing grouping: the classes whose left fraction is at least the node's
    left fraction against the others (0 when that leaves a super-class empty)."""
    kept = table[:, table.sum(axis=0) > 0]
    first = kept[0] / kept.sum(axis=0) >= kept[0].sum() / kept.sum()
    if first.all() or not first.any():
        return 0.0
    return float(grouping_values(kept, first[None, :])[0])


def one_vs_rest_gap(tables: int, seed: int) -> dict[int, tuple[int, int, float]]:
    """Two branches: how often and by how much the one-vs-rest maximum falls short of the best
    grouping, per number of classes (tables, tables below, largest shortfall)."""
    rng = np.random.default_rng(seed)
    out = {}
    for k in CLASSES:
        below, worst = 0, 0.0
        for make in KINDS.values():
            for _ in range(tables):
                table = make(rng, k)
                gap = bipartition_max_exhaustive(table)[0] - one_vs_rest_max(table)[0]
                below += gap > TOLERANCE
                worst = max(worst, gap)
        out[k] = (tables * len(KINDS), below, worst)
    return out


def branch_thresholds(kept: np.ndarray) -> np.ndarray:
    """The groupings that put every class whose share of one branch is at most a threshold
    first, for every branch and threshold (classes with equal shares stay together)."""
    shares = kept / kept.sum(axis=0)
    masks = [shares[branch] <= threshold for branch in range(kept.shape[0])
             for threshold in np.unique(shares[branch])[:-1]]
    return np.array(masks, dtype=bool).reshape(-1, kept.shape[1])


def hyperplane_separable(kept: np.ndarray, first: np.ndarray) -> bool:
    """Whether a hyperplane splits the classes' branch distributions into the two super-classes.

    Those groupings are the vertices of the zonotope of the classes' count vectors, where the
    two-branch proof finds the maximum (docs/investigations.md); a linear programme finds a
    ``w`` with ``w . share_c >= 1`` on the first super-class and ``<= -1`` on the second.
    """
    shares = (kept / kept.sum(axis=0)).T
    signs = np.where(first, -1.0, 1.0)
    result = linprog(np.zeros(shares.shape[1]), A_ub=signs[:, None] * shares, b_ub=-np.ones(len(signs)),
                     bounds=[(None, None)] * shares.shape[1], method="highs")
    return bool(result.status == 0)


def multiway_check(tables: int, seed: int) -> dict[str, object]:
    """Three and four branches: tables where no single-branch cut finds the best grouping, and
    tables whose best grouping no hyperplane separates."""
    rng = np.random.default_rng(seed)
    count, missed, worst, worst_table, smallest, not_separable = 0, 0, 0.0, None, None, 0
    for branches in (3, 4):
        for k in range(3, 9):
            for make in (balanced, skewed, weighted):
                for _ in range(tables):
                    table = make(rng, k, branches)
                    kept = table[:, table.sum(axis=0) > 0]
                    if kept.shape[1] < 3:
                        continue
                    masks = bipartition_masks(kept.shape[1])
                    values = grouping_values(kept, masks)
                    best = int(np.argmax(values))
                    cuts = branch_thresholds(kept)
                    gap = values[best] - (grouping_values(kept, cuts).max() if len(cuts) else 0.0)
                    count += 1
                    if gap <= TOLERANCE:
                        continue  # a threshold on one branch's share is itself a hyperplane cut
                    missed += 1
                    not_separable += not hyperplane_separable(kept, masks[best])
                    if gap > worst:
                        worst, worst_table = gap, kept
                    if smallest is None or kept.size < smallest.size or (
                            kept.size == smallest.size and kept.sum() < smallest.sum()):
                        smallest = kept
    return {"tables": count, "missed": missed, "worst gap": worst, "worst table": worst_table,
            "smallest": smallest, "not separable": not_separable}


def edge_check(edges: int, seed: int, points: int = 41) -> dict[str, object]:
    """Three and four branches: is the value quasi-convex along the edges of the zonotope?

    An edge runs from ``V`` to ``V + v_c``, where ``V`` sums the classes on the positive side of a
    random direction ``w`` orthogonal to class ``c``'s count vector ``v_c``.  The value at
    ``V + t v_c`` is compared with the larger of the edge's ends that are groupings; the rest's
    counts are summed from its classes, not subtracted, so that no cancellation adds noise.
    """
    rng = np.random.default_rng(seed)
    kinds = (balanced, skewed, weighted)
    checked, above, worst = 0, 0, 0.0
    while checked < edges:
        branches, k = int(rng.choice((3, 4))), int(rng.integers(3, 9))
        table = kinds[checked % 3](rng, k, branches).astype(float)
        table = table[:, table.sum(axis=0) > 0]
        if table.shape[1] < 3:
            continue
        c = int(rng.integers(table.shape[1]))
        v_c = table[:, c]
        w = rng.normal(size=branches)
        w -= (w @ v_c) / (v_c @ v_c) * v_c
        others = np.arange(table.shape[1]) != c
        side = others & (w @ table > 0)
        base, rest = table[:, side].sum(axis=1), table[:, others & ~side].sum(axis=1)
        values = []
        for t in np.linspace(0.0, 1.0, points):
            first, second = base + t * v_c, rest + (1 - t) * v_c
            if first.sum() <= 0 or second.sum() <= 0:
                values.append(np.nan)
                continue
            pooled = np.stack([first, second], axis=1)
            values.append(float(grouping_values(pooled, np.array([[True, False]]))[0]))
        values = np.array(values)
        ends = [v for v in (values[0], values[-1]) if not np.isnan(v)]
        inner = values[1:-1][~np.isnan(values[1:-1])]
        if not ends or inner.size == 0:
            continue
        checked += 1
        gap = float(inner.max() - max(ends))
        above += gap > TOLERANCE
        worst = max(worst, gap)
    return {"edges": checked, "above both ends": above, "worst": worst}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=500, help="tables per (classes, kind) cell")
    parser.add_argument("--seed", type=int, default=40)
    args = parser.parse_args()
    started = time.perf_counter()

    cut = sorted_cut_check(args.tables, args.seed)
    print("Two branches, k = 3..10 classes, kinds: " + ", ".join(KINDS))
    print(f"  tables: {cut['tables']}  counterexamples (best grouping not a sorted cut): "
          f"{cut['counterexamples']}  worst gap: {cut['worst gap']:.3g}")
    print(f"  CART's twoing cut (r_c at least the node's left fraction) below the best grouping: "
          f"{cut['twoing cut below']}")

    print("\nOne-vs-rest maximum against the best grouping (two branches):")
    print("| classes | tables | one-vs-rest lower | largest shortfall |")
    print("|---:|---:|---:|---:|")
    for k, (n, below, worst) in one_vs_rest_gap(args.tables // 2, args.seed + 1).items():
        print(f"| {k} | {n} | {below} ({100 * below / n:.0f} %) | {worst:.3f} |")

    multi = multiway_check(args.tables * 5, args.seed + 2)
    print("\nThree and four branches, k = 3..8 classes, kinds balanced, skewed, weighted:")
    print(f"  tables: {multi['tables']}  best grouping found by no cut of the classes sorted by one "
          f"branch's share: {multi['missed']}  worst gap: {multi['worst gap']:.3g}")
    print(f"  best grouping not separable by a hyperplane: {multi['not separable']}")
    edges = edge_check(args.tables * 20, args.seed + 4)
    print(f"  edges of the zonotope (3 and 4 branches): {edges['edges']}, with a point above both ends: "
          f"{edges['above both ends']} (largest excess {edges['worst']:.3g})")
    if multi["smallest"] is not None:
        example = multi["smallest"]
        values = grouping_values(example, bipartition_masks(example.shape[1]))
        best = int(np.argmax(values))
        first = np.flatnonzero(bipartition_masks(example.shape[1])[best]).tolist()
        print(f"  the smallest (rows branches, columns classes): {np.round(example, 3).tolist()}")
        print(f"  best grouping: classes {first} against the rest, {values[best]:.6f}; best cut by one "
              f"branch's share: {grouping_values(example, branch_thresholds(example)).max():.6f}")
    print(f"\n{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
