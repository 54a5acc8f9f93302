"""Issue 39, finding 2: why MEE trees grow chains where paper 001 says they stay small.

Hypothesis
    Section 5 of paper 001 says MEE "always produced smaller trees, on average" than C4.5 and
    needs no pruning, because it makes no split where the error-entropy curve is concave (class
    overlap) and makes a leaf when a candidate class has very few cases.  treebench's MEE tree
    (``must_lower=False``, ``min_child_cases=1``) grows chains instead: depth close to the number
    of leaves, each split peeling a handful of cases off one side.  The suspected cause is the
    stopping rule, not the criterion: without ``must_lower`` the lowest point of a curve the
    crude rule calls convex is taken as the split even when it lies *above* the curve's own
    ends, i.e. above the error entropy of not splitting, so the tree keeps splitting where the
    text says there is no valid split.  If so, the trees shrink to C4.5's size or below as soon
    as a split must lower the error entropy, with no pruning and no threshold tuned on results.

Measurement
    On the seven datasets of Table 2, ``REPEATS`` seeded stratified 80/20 splits (the protocol of
    the paper's Fig. 5): for each reading of :data:`READINGS`, the mean leaves, depth and test
    error of the MEE tree, beside treebench's C4.5 (J48's rules) on the same splits; for the
    readings without ``must_lower``, the share of splits whose error entropy is not below the
    chosen class set's error entropy of not splitting (the splits ``must_lower`` refuses); for
    every reading, the share of splits with a child of fewer than five cases ("peels").  For the
    reading ``convexity_test="envelope"`` (the convex/concave rule once per class set, on the
    lower envelope of its two orientations' curves): the share of a tree's splits whose class set
    has a concave envelope on the split feature at that node (splits the envelope refuses there;
    none in its own trees), the share whose own orientation's curve is concave (splits only the
    envelope admits; none in the default's trees), and how many trees equal the default's.

Run
    ``TREEBENCH_DATA=../shared/datasets .venv/bin/python investigations/mee_chains.py``
    (about a minute on a busy 2-core machine; ``--repeats 1`` for a quick look).  The
    conclusion is in docs/investigations.md.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from treebench.criteria.mee import convexity_verdicts, error_entropy_curve, unsplit_error_entropy
from treebench.kernels import layout as L
from treebench.kernels.tolerances import TIE_TOLERANCE

#: Table 2's datasets (treebench's card names), in the paper's column order.
DATASETS = ("breast-tissue", "breast-tissue4", "olive", "ecoli-327", "ecoli4", "segment", "glass")
#: Readings: label -> MEE parameters (over ``min_class_cases=5``, joint P(e=±2), whole-range grid).
READINGS: dict[str, dict[str, Any]] = {
    "may rise (former default)": {"must_lower": False},
    "may rise, child 5": {"must_lower": False, "min_child_cases": 5},
    "must lower (default)": {"must_lower": True},
    "must lower, child 5": {"must_lower": True, "min_child_cases": 5},
    "must lower, class 2": {"must_lower": True, "min_class_cases": 2},
    "must lower, class 10": {"must_lower": True, "min_class_cases": 10},
    "must lower, node grid": {"must_lower": True, "convexity_range": "node"},
    "must lower, printed": {"must_lower": True, "error_rates": "printed"},
    # the convex/concave rule once per class set, on both orientations' lower envelope
    "must lower, envelope": {"must_lower": True, "convexity_test": "envelope"},
}
#: The reading the others are compared with tree by tree.
DEFAULT = "must lower (default)"
REPEATS = 5
#: A split with a child smaller than this "peels" a few cases off the node.
PEEL = 5


def split_census(model: Any, X: np.ndarray | None = None, y: np.ndarray | None = None) -> dict[str, int]:
    """Count a fitted MEE tree's splits: all, those not lowering their set's error entropy, and peels.

    A split does not lower when its error entropy (the node's ``SCORE``) is not below, by the
    kernels' tie tolerance, the error entropy of not splitting for the class set it codes
    ``t = 1`` (:func:`treebench.criteria.mee.unsplit_error_entropy`) -- exactly the candidates
    that ``must_lower=True`` refuses.  With the training set ``X, y``, also the splits the two
    readings of the convex/concave rule judge differently (:func:`convexity_census`).
    """
    tree = model.tree_
    rates = tree.criterion.get("error_rates", "joint")
    index = {label: i for i, label in enumerate(model.classes_.tolist())}
    out = {"splits": 0, "not lowering": 0, "peels": 0}
    if X is not None and y is not None:
        out.update(convexity_census(model, X, y))
    for node in np.flatnonzero(tree.int_nodes[:, L.KIND] != L.LEAF):
        counts = tree.counts[node]
        members = [index[label] for label in model.split_sets_[node]]
        unsplit = unsplit_error_entropy(float(counts[members].sum()), float(counts.sum()), rates)
        first = tree.int_nodes[node, L.CHILD_START]
        smallest = min(tree.counts[first].sum(), tree.counts[first + 1].sum())
        out["splits"] += 1
        out["not lowering"] += bool(tree.float_nodes[node, L.SCORE] >= unsplit - TIE_TOLERANCE)
        out["peels"] += bool(smallest < PEEL)
    return out


def convexity_census(model: Any, X: np.ndarray, y: np.ndarray) -> dict[str, int]:
    """How many of a fitted MEE tree's splits each reading of the convex/concave rule would refuse.

    The training cases are sent down the tree; at each split node the chosen class set is coded
    ``t = 1`` and its two orientations' error-entropy curves on the split feature are drawn on
    the tree's grid (``convexity_points`` over the training set's range of the feature, or the
    node's with ``convexity_range="node"``).  ``"envelope concave"`` counts the splits whose
    curves' lower envelope is concave (the envelope reading refuses them), ``"orientation
    concave"`` those whose chosen orientation's own curve is concave (the default refuses them):
    :func:`treebench.criteria.mee.convexity_verdicts`.
    """
    tree = model.tree_
    params = tree.criterion
    points = int(params.get("convexity_points", 100))
    whole = params.get("convexity_range", "whole") == "whole"
    rates = params.get("error_rates", "joint")
    out = {"envelope concave": 0, "orientation concave": 0}
    stack = [(0, np.arange(X.shape[0]))]
    while stack:
        node, rows = stack.pop()
        if tree.int_nodes[node, L.KIND] == L.LEAF:
            continue
        f = int(tree.int_nodes[node, L.FEATURE])
        x = X[rows, f]
        t = np.where(np.isin(y[rows], list(model.split_sets_[node])), 1, -1)
        span = (float(X[:, f].min()), float(X[:, f].max())) if whole else None
        curves = tuple(error_entropy_curve(x, t, points, o, rates, span=span)[1] for o in (0, 1))
        out["envelope concave"] += not convexity_verdicts(curves, "envelope")[0]
        out["orientation concave"] += not convexity_verdicts(curves)[int(model.split_orientations_[node])]
        left = x <= tree.float_nodes[node, L.THRESHOLD]
        first = int(tree.int_nodes[node, L.CHILD_START])
        stack += [(first, rows[left]), (first + 1, rows[~left])]
    return out


def measure(name: str, repeats: int = REPEATS, readings: dict[str, dict[str, Any]] | None = None,
            seed: int = 39) -> dict[str, dict[str, float]]:
    """Per reading (and ``"C4.5"``): mean leaves, depth, test error and the split census on ``name``."""
    from treebench.data import load
    from treebench.sampling import holdout
    from treebench.trees.c45 import C45Classifier
    from treebench.trees.mee import MEETreeClassifier

    readings = READINGS if readings is None else readings
    data = load(name)
    X, y = data.X.to_numpy(dtype=float), np.asarray(data.y)
    rng = np.random.default_rng(seed)
    tallies: dict[str, list[dict[str, float]]] = {label: [] for label in (*readings, "C4.5")}
    for _ in range(repeats):
        train, test = holdout(y, 0.2, rng)
        grown = {}
        for label, params in readings.items():
            model = MEETreeClassifier(**{"min_class_cases": 5, **params}).fit(X[train], y[train])
            row: dict[str, float] = {"leaves": model.get_n_leaves(), "depth": model.get_depth(),
                                     "error": float((model.predict(X[test]) != y[test]).mean())}
            row.update(split_census(model, X[train], y[train]))
            grown[label] = (model.tree_.int_nodes, model.tree_.float_nodes[:, L.THRESHOLD])
            tallies[label].append(row)
        if DEFAULT in grown:  # the same tree as the default's: the reading changed nothing on this split
            for label, (ints, thresholds) in grown.items():
                base = grown[DEFAULT]
                tallies[label][-1]["same as default"] = float(
                    ints.shape == base[0].shape and np.array_equal(ints, base[0]) and np.array_equal(thresholds, base[1]))
        c45 = C45Classifier().fit(X[train], y[train])
        tallies["C4.5"].append({"leaves": c45.get_n_leaves(), "depth": c45.get_depth(),
                                "error": float((c45.predict(X[test]) != y[test]).mean())})
    out = {}
    for label, rows in tallies.items():
        mean = {key: float(np.mean([r[key] for r in rows])) for key in rows[0]}
        if "splits" in rows[0]:  # shares over all splits of all repeats
            total = sum(r["splits"] for r in rows)
            mean["not lowering share"] = sum(r["not lowering"] for r in rows) / total if total else 0.0
            mean["peel share"] = sum(r["peels"] for r in rows) / total if total else 0.0
            for key in ("envelope concave", "orientation concave"):
                mean[f"{key} share"] = sum(r[key] for r in rows) / total if total else 0.0
        out[label] = mean
    return out


def markdown(results: dict[str, dict[str, dict[str, float]]]) -> str:
    """One row per (dataset, reading): leaves, depth, depth/leaves, test error, the split shares and
    the share of splits whose tree equals the default's."""
    head = ["dataset", "reading", "leaves", "depth", "depth / leaves", "test error", "splits not lowering",
            f"splits with a child < {PEEL}", "splits the envelope refuses", "splits only the envelope admits",
            "trees as the default's"]
    lines = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    for name, by_reading in results.items():
        for label, m in by_reading.items():
            census = ("–",) * 4 if "splits" not in m else tuple(
                f"{100 * m[f'{key} share']:.0f} %"
                for key in ("not lowering", "peel", "envelope concave", "orientation concave"))
            same = f"{100 * m['same as default']:.0f} %" if "same as default" in m else "–"
            lines.append(f"| {name} | {label} | {m['leaves']:.1f} | {m['depth']:.1f} | "
                         f"{m['depth'] / max(m['leaves'], 1.0):.2f} | {m['error']:.3f} | {' | '.join(census)} | "
                         f"{same} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    args = parser.parse_args()
    results = {name: measure(name, args.repeats) for name in args.datasets}
    print(f"MEE readings and treebench's C4.5 on {args.repeats} stratified 80/20 splits (seed 39), means\n")
    print(markdown(results))


if __name__ == "__main__":
    main()
