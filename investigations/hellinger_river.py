"""Issue 40: what river's ``HellingerDistanceCriterion`` computes, case by case, beside the oracle.

Hypothesis
    river's criterion (``river/tree/split_criterion/hellinger_distance_criterion.py``) reads the
    counts of the keys ``0`` and ``1`` of the first two branches only and returns 0 when a key is
    missing (it catches ``KeyError``).  So it is the paper's two-class value for labels 0/1 given
    as complete dicts, and 0 -- the value of a useless split -- for other labels, and for a
    branch that a plain dict shows without one of the classes.

Measurement
    ``.venv/bin/python investigations/hellinger_river.py`` (needs ``pip install "river>=0.21"``;
    a second).  Calls ``merit_of_split`` on hand-made class distributions and prints river's
    value beside ``hellinger_oracle.hellinger_split_value`` on the same counts (every branch
    and class, the grouping reading for three classes); then grows river's
    ``HoeffdingTreeClassifier(split_criterion="hellinger")`` on a seeded stream with labels 0/1
    and with labels "neg"/"pos", and counts the split candidates it scored 0, and those scored 0
    because a branch's dict lacked a class.
"""

from __future__ import annotations

import collections
import random

from hellinger_oracle import hellinger_split_value

#: (case, the distributions river receives, the same counts as a table: branches x classes).
CASES = [
    ("labels 0/1, complete dicts", [{0: 10, 1: 2}, {0: 5, 1: 8}], [[10, 2], [5, 8]]),
    ("labels True/False (equal to 0/1 as keys)", [{False: 10, True: 2}, {False: 5, True: 8}], [[10, 2], [5, 8]]),
    ("labels 1/2", [{1: 10, 2: 2}, {1: 5, 2: 8}], [[10, 2], [5, 8]]),
    ("labels 'a'/'b'", [{"a": 10, "b": 2}, {"a": 5, "b": 8}], [[10, 2], [5, 8]]),
    ("labels 0/1 and a class 2 (30 left)", [{0: 10, 1: 2, 2: 30}, {0: 5, 1: 8, 2: 0}], [[10, 2, 30], [5, 8, 0]]),
    ("a third branch (0 / 30)", [{0: 10, 1: 2}, {0: 5, 1: 8}, {0: 0, 1: 30}], [[10, 2], [5, 8], [0, 30]]),
    ("labels 0/1, class 1 absent from the left dict", [{0: 10}, {0: 5, 1: 8}], [[10, 0], [5, 8]]),
    ("the same as Counters", [collections.Counter({0: 10}), collections.Counter({0: 5, 1: 8})], [[10, 0], [5, 8]]),
    ("one branch with 0.1 % of the weight", [{0: 199, 1: 800}, {0: 1, 1: 0}], [[199, 800], [1, 0]]),
]


def probe() -> list[tuple[str, str, float]]:
    """river's merit and the oracle's value for each case."""
    from river.tree.split_criterion import HellingerDistanceCriterion

    criterion = HellingerDistanceCriterion(min_branch_fraction=0.01)  # river's trees' default
    rows = []
    for name, dist, table in CASES:
        try:
            merit = f"{criterion.merit_of_split(None, dist):.6f}"
        except ZeroDivisionError as exc:
            merit = f"ZeroDivisionError ({exc})"
        rows.append((name, merit, hellinger_split_value(table)))
    return rows


def zero_merits_in_a_tree(seed: int = 40, n: int = 400, labels: tuple = (0, 1)) -> tuple[int, int, int, int]:
    """(candidates scored, scored 0 because a branch's dict lacked a class, scored 0 in all, the
    tree's nodes) while river's Hoeffding tree learns a stream whose second label is mostly
    ``x > 0.8``."""
    from river import tree
    from river.tree.split_criterion import HellingerDistanceCriterion

    scored, missing, zero = 0, 0, 0
    original = HellingerDistanceCriterion.merit_of_split

    def spy(self, pre_split_dist, post_split_dist):  # noqa: ANN001, ANN202 - river's signature
        nonlocal scored, missing, zero
        merit = original(self, pre_split_dist, post_split_dist)
        scored += 1
        zero += merit == 0
        missing += merit == 0 and any(len(d) < 2 for d in post_split_dist[:2])
        return merit

    HellingerDistanceCriterion.merit_of_split = spy
    try:
        rng = random.Random(seed)
        model = tree.HoeffdingTreeClassifier(split_criterion="hellinger", grace_period=50)
        for _ in range(n):
            x = rng.random()
            model.learn_one({"x": x}, labels[int(x + 0.2 * rng.random() > 0.8)])
    finally:
        HellingerDistanceCriterion.merit_of_split = original
    return scored, missing, zero, model.n_nodes


def main() -> None:
    print("| case | river merit_of_split | oracle (every branch and class; the grouping reading) |")
    print("|---|---:|---:|")
    for name, merit, oracle in probe():
        print(f"| {name} | {merit} | {oracle:.6f} |")
    for labels in ((0, 1), ("neg", "pos")):
        scored, missing, zero, nodes = zero_merits_in_a_tree(labels=labels)
        print(f"Hoeffding tree, labels {labels}, 400 examples: {scored} candidates scored, {zero} of them 0, "
              f"{missing} of those because a branch's dict lacked a class; {nodes} nodes")


if __name__ == "__main__":
    main()
