"""The readable Hellinger distance oracle (issue 40): hand values, river, skew, and the sorted cut.

Count tables have one row per branch and one column per class (``investigations/hellinger_oracle.py``).

Worked by hand
--------------
Table 1, two classes (negative, positive) over two branches::

            neg  pos
    left     16    9
    right     9   16

The negatives' distribution over the branches is (16/25, 9/25), whose square roots are (4/5, 3/5);
the positives' is (9/25, 16/25), roots (3/5, 4/5).  d_H^2 = (4/5 - 3/5)^2 + (3/5 - 4/5)^2 = 2/25,
so d_H = sqrt(2)/5 = 0.2828427.  Multiplying the positives by 7 (63 and 112) leaves both
distributions, hence the value, as they are.  With the left positives moved right (16, 0 / 9, 4 after
dividing them by 4): roots (4/5, 3/5) against (0, 1), d_H^2 = 16/25 + 4/25 = 4/5, d_H = 0.8944272.
In the angle form, asin(4/5) - asin(3/5) = 0.2837941 and 2 sin(0.2837941 / 2) = 0.2828427.

Table 2, four classes A, B, C, D over two branches::

            A  B  C  D
    left    5  5  0  0
    right   0  0  5  5

Grouping {A, B} against {C, D}: the pooled distributions are (1, 0) and (0, 1), d_H^2 = 1 + 1 = 2,
d_H = sqrt(2) = 1.4142136, the largest value there is (no branch holds both super-classes).  One
class against the rest, A against {B, C, D}: (1, 0) against (5/15, 10/15), d_H^2 =
(1 - sqrt(1/3))^2 + (0 - sqrt(2/3))^2 = 2 - 2/sqrt(3), d_H = 0.9194017; by symmetry every class
alone scores the same.  So the grouping reading gives sqrt(2) and the one-vs-rest reading 0.9194.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hellinger_peer import river_criterion, two_class_tables
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "investigations"))
import hellinger_bipartition  # noqa: E402
from hellinger_oracle import (  # noqa: E402
    bipartition_masks,
    bipartition_max_exhaustive,
    bipartition_max_sorted,
    grouping_values,
    hellinger_from_fractions,
    hellinger_split_value,
    hellinger_two,
    one_vs_rest_max,
    superclass_table,
)

TABLE_1 = [[16, 9], [9, 16]]
TABLE_2 = [[5, 5, 0, 0], [0, 0, 5, 5]]
#: Three branches, four classes, no two classes with the same share of a branch: the best grouping
#: (class 2 alone, by a random search) is no threshold on any one branch's share.
MULTIWAY_COUNTEREXAMPLE = [[1, 12, 3, 300], [6, 6, 12, 300], [2, 12, 9, 100]]

counts = st.floats(min_value=0.0, max_value=1e4, allow_nan=False, allow_infinity=False, allow_subnormal=False)
positive = st.floats(min_value=0.5, max_value=1e4, allow_nan=False, allow_infinity=False)


def random_tables(seed: int, branches: int = 2, per_kind: int = 25):
    """Tables of every kind the investigation draws, for k = 3..8 classes."""
    rng = np.random.default_rng(seed)
    for k in range(3, 9):
        for name, make in hellinger_bipartition.KINDS.items():
            if name == "ties" and branches != 2:
                continue
            for _ in range(per_kind):
                yield (make(rng, k, branches) if name != "ties" else make(rng, k)).astype(float)


def test_two_class_values_worked_by_hand():
    assert hellinger_two(TABLE_1) == pytest.approx(math.sqrt(2) / 5, abs=1e-15)
    assert hellinger_two([[16, 63], [9, 112]]) == pytest.approx(math.sqrt(2) / 5, abs=1e-15)
    assert hellinger_two([[16, 0], [9, 4]]) == pytest.approx(2 / math.sqrt(5), abs=1e-15)
    assert hellinger_from_fractions(16 / 25, 9 / 25) == pytest.approx(math.sqrt(2) / 5, abs=1e-15)
    # every reading is the two-class value when the node holds two classes
    for reading in ("bipartition", "one_vs_rest"):
        assert hellinger_split_value(TABLE_1, reading) == pytest.approx(math.sqrt(2) / 5, abs=1e-15)


def test_four_class_values_worked_by_hand():
    value, first = bipartition_max_exhaustive(TABLE_2)
    assert value == pytest.approx(math.sqrt(2), abs=1e-15)
    assert set(np.flatnonzero(first)) in ({0, 1}, {2, 3})
    assert bipartition_max_sorted(TABLE_2)[0] == pytest.approx(math.sqrt(2), abs=1e-15)
    assert one_vs_rest_max(TABLE_2)[0] == pytest.approx(math.sqrt(2 - 2 / math.sqrt(3)), abs=1e-15)
    assert hellinger_split_value(TABLE_2) == pytest.approx(math.sqrt(2), abs=1e-15)
    assert hellinger_split_value(TABLE_2, "one_vs_rest") == pytest.approx(0.9194017, abs=1e-7)


def test_the_angle_form_and_the_sum_form_agree():
    rng = np.random.default_rng(40)
    for p, q in rng.random((500, 2)):
        assert hellinger_from_fractions(p, q) == pytest.approx(hellinger_two([[p, q], [1 - p, 1 - q]]), abs=1e-12)


def test_range_symmetries_and_absent_classes():
    rng = np.random.default_rng(41)
    for table in random_tables(41, branches=3, per_kind=5):
        value = hellinger_split_value(table)
        assert 0.0 <= value <= math.sqrt(2) + 1e-12
        assert hellinger_split_value(table[::-1]) == pytest.approx(value, abs=1e-12)  # branch order
        assert hellinger_split_value(table[:, rng.permutation(table.shape[1])]) == pytest.approx(value, abs=1e-12)
        with_absent = np.insert(table, 1, 0.0, axis=1)  # a class with no example at the node
        assert hellinger_split_value(with_absent) == pytest.approx(value, abs=1e-12)
    assert hellinger_two([[3, 6], [1, 2]]) == 0.0  # both classes spread alike
    assert hellinger_two([[3, 0], [0, 2]]) == pytest.approx(math.sqrt(2))  # perfectly separated
    assert hellinger_two([[3, 0], [4, 0]]) == 0.0  # one class only: nothing to separate
    assert hellinger_split_value([[3, 0, 0], [4, 0, 0]]) == 0.0


def test_three_classes_every_grouping_is_one_class_against_the_rest():
    for table in random_tables(42, per_kind=10):
        if table.shape[1] == 3 and np.all(table.sum(axis=0) > 0):
            assert one_vs_rest_max(table)[0] == pytest.approx(bipartition_max_exhaustive(table)[0], abs=1e-15)


def test_groupings_are_each_unordered_pair_once():
    for k in range(2, 9):
        masks = bipartition_masks(k)
        assert len(masks) == 2 ** (k - 1) - 1
        pairs = {frozenset((frozenset(np.flatnonzero(m)), frozenset(np.flatnonzero(~m)))) for m in masks}
        assert len(pairs) == len(masks) and all(m.any() and not m.all() for m in masks)


def test_equals_river_on_two_class_tables():
    river = river_criterion()
    criterion = river(min_branch_fraction=0.01)
    compared = 0
    for table, dist in two_class_tables():
        ours = hellinger_two(table)
        assert river.compute_hellinger(dist) == pytest.approx(ours, abs=1e-12)
        if np.all(table.sum(axis=1) / table.sum() > 0.01):  # river's smallest branch share
            assert criterion.merit_of_split(None, dist) == pytest.approx(ours, abs=1e-12)
        compared += 1
    assert compared > 500


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 5).flatmap(lambda r: st.tuples(st.lists(positive, min_size=r, max_size=r),
                                                     st.lists(counts, min_size=r, max_size=r))),
       st.floats(min_value=1e-3, max_value=1e3), st.integers(0, 1))
def test_two_class_value_is_unchanged_when_one_class_is_scaled(columns, factor, which):
    """The skew insensitivity proved by Cieslak et al. (2012): the class sizes enter only as the
    denominators of the class-conditional distributions."""
    table = np.array(columns, dtype=float).T
    if table[:, 1].sum() == 0:
        table[0, 1] = 1.0
    scaled = table.copy()
    scaled[:, which] *= factor
    assert hellinger_two(scaled) == pytest.approx(hellinger_two(table), abs=1e-12)


def test_grouping_value_is_unchanged_when_a_whole_super_class_is_scaled():
    """With more classes a grouping keeps its value when every class of one super-class is scaled
    alike; scaling one class inside a super-class changes the pooled distribution, so the
    multi-class value is not skew-insensitive class by class."""
    rng = np.random.default_rng(44)
    for table in random_tables(44, per_kind=5):
        masks = bipartition_masks(table.shape[1])
        first = masks[rng.integers(len(masks))]
        scaled = table.copy()
        scaled[:, first] *= rng.uniform(0.01, 100)
        assert hellinger_two(superclass_table(scaled, first)) == pytest.approx(
            hellinger_two(superclass_table(table, first)), abs=1e-12)
    table = np.array([[3.0, 1.0, 2.0], [1.0, 3.0, 2.0]])
    one_scaled = table * [1.0, 10.0, 1.0]
    assert abs(hellinger_split_value(one_scaled) - hellinger_split_value(table)) > 0.01


def test_best_grouping_of_a_two_branch_split_is_a_cut_of_the_sorted_classes():
    """Point 2 of the brief: for two branches the k - 1 threshold groupings on left_c / total_c
    reach the exhaustive maximum (the theorem of docs/investigations.md)."""
    for table in random_tables(45):
        assert bipartition_max_sorted(table)[0] == pytest.approx(bipartition_max_exhaustive(table)[0], abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(st.integers(3, 7).flatmap(lambda k: st.lists(st.tuples(counts, counts), min_size=k, max_size=k)))
def test_sorted_cut_reaches_the_exhaustive_maximum_on_any_table(columns):
    table = np.array(columns, dtype=float).T
    assert bipartition_max_sorted(table)[0] == pytest.approx(bipartition_max_exhaustive(table)[0], abs=1e-12)


def chain_value(point: np.ndarray, total: np.ndarray) -> float:
    """The value of a point (weight, left weight) of the zonotope: its slope against the rest's."""
    return hellinger_from_fractions(point[1] / point[0], (total[1] - point[1]) / (total[0] - point[0]))


def test_sorted_cut_tells_apart_left_fractions_that_round_to_one():
    """Found by Hypothesis: class 1's left fraction 1 / (1 + 1e-20) is 1.0 in floating point, like
    classes 0 and 2's, yet its right fraction 1e-20 sets it apart, and the square root makes that a
    value of 1e-10.  The sort breaks ties in the left fraction by the right one."""
    table = [[1.0, 1.0, 1.0], [0.0, 1e-20, 0.0]]
    assert 1.0 / (1.0 + 1e-20) == 1.0
    value, first = bipartition_max_sorted(table)
    assert value == pytest.approx(1e-10, rel=1e-9) and value == bipartition_max_exhaustive(table)[0]
    assert set(np.flatnonzero(first)) in ({1}, {0, 2})


def test_the_proofs_edge_step_on_fractional_points():
    """Step (2) of the proof in docs/investigations.md, where the exhaustive search cannot look: along
    each edge of the zonotope's upper chain (the classes added by decreasing left fraction, the last
    one in part) the value is never above the larger of the edge's two ends that are groupings, and
    the lemma's bracket 2x(1 - x) + (r - x)(1 - 2x)/2 is >= 0 for 0 <= x <= r <= 1."""
    for table in random_tables(46, per_kind=5):
        kept = table[:, table.sum(axis=0) > 0]
        if kept.shape[1] < 2:
            continue
        weight, left = kept.sum(axis=0), kept[0]
        order = np.argsort(-(left / weight), kind="stable")
        chain = np.vstack([[0.0, 0.0], np.cumsum(np.stack([weight, left], axis=1)[order], axis=0)])
        for i in range(len(chain) - 1):
            ends = [chain_value(chain[j], chain[-1]) for j in (i, i + 1) if 0 < j < len(chain) - 1]
            for t in np.linspace(0.0, 1.0, 41)[1:-1]:
                assert chain_value(chain[i] + t * (chain[i + 1] - chain[i]), chain[-1]) <= max(ends) + 1e-12
    x, r = np.meshgrid(np.linspace(0, 1, 401), np.linspace(0, 1, 401))
    bracket = 2 * x * (1 - x) + (r - x) * (1 - 2 * x) / 2
    assert bracket[x <= r].min() >= -1e-15


def test_squared_value_is_convex_where_the_first_super_class_keeps_its_weight():
    """The step of docs/investigations.md that holds for any number of branches: with the first
    super-class's weight fixed, both distributions move affinely and in opposite directions, and
    d_H^2 = 2 - 2 sum_j sqrt(P_j Q_j) is convex (each root is a geometric mean of affine functions)."""
    rng = np.random.default_rng(47)
    for _ in range(2000):
        branches = int(rng.integers(2, 6))
        p0, q0 = rng.dirichlet(np.ones(branches), size=2)
        move = rng.normal(size=branches)
        move -= move.mean()  # shares keep summing to 1
        alpha, beta = rng.uniform(0.1, 10, size=2)  # 1 / weight of each super-class
        with np.errstate(divide="ignore"):
            steps = np.concatenate([-p0 / (alpha * move), q0 / (beta * move)])
        low, high = steps[steps < 0].max(initial=-1.0), steps[steps > 0].min(initial=1.0)
        a, b = rng.uniform(low, high, size=2)
        squared = [hellinger_two(np.clip(np.stack([p0 + alpha * u * move, q0 - beta * u * move], axis=1), 0, None)) ** 2
                   for u in (a, (a + b) / 2, b)]
        assert squared[1] <= (squared[0] + squared[2]) / 2 + 1e-12


def test_with_three_branches_no_single_branch_threshold_need_find_the_best_grouping():
    table = np.array(MULTIWAY_COUNTEREXAMPLE, dtype=float)
    best, first = bipartition_max_exhaustive(table)
    assert np.flatnonzero(first).tolist() == [2]
    shares = table / table.sum(axis=0)
    assert all(len(set(row)) == table.shape[1] for row in shares)  # no ties to hide behind
    thresholds = hellinger_bipartition.branch_thresholds(table)
    assert best - grouping_values(table, thresholds).max() > 1e-3
    with pytest.raises(ValueError, match="two branches only"):
        bipartition_max_sorted(table)
    assert hellinger_split_value(table) == pytest.approx(best)  # the exhaustive search decides


def test_the_investigation_runs_small():
    cut = hellinger_bipartition.sorted_cut_check(tables=3, seed=1)
    assert cut["tables"] == 3 * len(hellinger_bipartition.KINDS) * len(hellinger_bipartition.CLASSES)
    assert cut["counterexamples"] == 0
    gaps = hellinger_bipartition.one_vs_rest_gap(tables=3, seed=2)
    assert gaps[3][1] == 0 and all(worst >= 0 for _, _, worst in gaps.values())
    multi = hellinger_bipartition.multiway_check(tables=2, seed=3)
    assert multi["tables"] > 0 and multi["not separable"] == 0


def test_bad_tables_and_readings_are_refused_in_one_line():
    with pytest.raises(ValueError, match="counts >= 0"):
        hellinger_two([[1, -1], [2, 3]])
    with pytest.raises(ValueError, match="shape"):
        hellinger_two([1, 2])
    with pytest.raises(ValueError, match="2 class columns"):
        hellinger_two([[1, 2, 3], [3, 2, 1]])
    with pytest.raises(ValueError, match="accepted: bipartition, one_vs_rest"):
        hellinger_split_value(TABLE_1, "pairwise")
