"""O-ΠTree as a stream learner: ``partial_fit`` one example a call against river's Hoeffding tree.

Three measurements, all in this one process:

1. Throughput on a shuffled pendigits stream (10,992 examples, 16 features, 10 classes):
   ``OnlineTreeClassifier().partial_fit`` with one 1-row array a call (the default
   ``possibilistic`` criterion, γ = 0.05) against river's ``HoeffdingTreeClassifier().learn_one``
   with one dict a call, as a user would call each.  The two learners alternate, round after
   round, and each keeps its best round (``--rounds``).
2. Prequential (test-then-train) accuracy of both on the same stream: every example is
   predicted before it is learnt (``predict`` on the 1-row array / ``predict_one`` on the dict).
3. ``--tuning``: one trial of ``configs/serrurier2015.yaml``'s ``o-pitree`` on segment (outer
   fold 0: inner 5-fold CV of online trees over the 10 γ values, then the final online tree),
   grown by the compiled tree with the grid sharing one encoded stream per inner fold, and by
   the first implementation (``RegrowingTree``: a stump re-grown on the whole leaf at every
   arrival, each grid point encoding its own data).  Both run once (the first takes minutes).

river is imported here only: the package does not depend on it.

Run:  PYTHONPATH=. TREEBENCH_DATA=../shared/datasets python benchmarks/bench_online.py [--tuning]
"""

from __future__ import annotations

import argparse
import time
from contextlib import contextmanager

import numpy as np
from _measure import load_average, machine, write_section


def pendigits_stream(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    from treebench.data.loader import load

    data = load("pendigits")
    order = np.random.default_rng(seed).permutation(len(data.y))
    return data.X.to_numpy(dtype=np.float64)[order], np.asarray(data.y)[order]


def ours_learn(X: np.ndarray, y: np.ndarray) -> float:
    from treebench.trees.online import OnlineTreeClassifier

    model = OnlineTreeClassifier()
    classes = np.unique(y)
    started = time.perf_counter()
    model.partial_fit(X[:1], y[:1], classes=classes)
    for i in range(1, len(y)):
        model.partial_fit(X[i : i + 1], y[i : i + 1])
    return time.perf_counter() - started


def river_learn(X: np.ndarray, y: np.ndarray) -> float:
    from river.tree import HoeffdingTreeClassifier

    model = HoeffdingTreeClassifier()
    names = [f"x{j}" for j in range(X.shape[1])]
    rows = [dict(zip(names, row)) for row in X.tolist()]  # dicts made outside the timing
    labels = y.tolist()
    started = time.perf_counter()
    for row, label in zip(rows, labels):
        model.learn_one(row, label)
    return time.perf_counter() - started


def prequential(X: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Test-then-train accuracy of both learners (the first example is only learnt)."""
    from river.tree import HoeffdingTreeClassifier

    from treebench.trees.online import OnlineTreeClassifier

    ours = OnlineTreeClassifier()
    ours.partial_fit(X[:1], y[:1], classes=np.unique(y))
    correct = 0
    for i in range(1, len(y)):
        correct += int(ours.predict(X[i : i + 1])[0] == y[i])
        ours.partial_fit(X[i : i + 1], y[i : i + 1])
    river = HoeffdingTreeClassifier()
    names = [f"x{j}" for j in range(X.shape[1])]
    river_correct = 0
    for i, (row, label) in enumerate(zip(X.tolist(), y.tolist())):
        sample = dict(zip(names, row))
        if i:
            river_correct += int(river.predict_one(sample) == label)
        river.learn_one(sample, label)
    n = len(y) - 1
    return {"ours": correct / n, "river": river_correct / n, "ours_leaves": ours.get_n_leaves(),
            "river_leaves": river.n_leaves}


@contextmanager
def first_implementation():
    """Online trees as before: ``RegrowingTree`` for every criterion, no stream shared by a grid."""
    from treebench.learners.trees import OnlineLearner
    from treebench.trees.online import OnlineTreeClassifier

    saved = OnlineTreeClassifier._regrowing, OnlineLearner.prepare
    OnlineTreeClassifier._regrowing = True
    OnlineLearner.prepare = lambda self, X, y: None  # each grid point encodes its own data
    try:
        yield
    finally:
        OnlineTreeClassifier._regrowing, OnlineLearner.prepare = saved


def segment_trial_seconds() -> tuple[float, float, str]:
    """Tuning and final-fit seconds of o-pitree's trial on segment, outer fold 0."""
    from pathlib import Path

    from treebench.experiment.config import load_config
    from treebench.experiment.runner import plan
    from treebench.experiment.trial import _run

    config = load_config(Path(__file__).resolve().parents[1] / "configs" / "serrurier2015.yaml")
    trial = next(
        t for t in plan(config) if t.algorithm.name == "o-pitree" and t.dataset.label == "segment" and t.fold == 0
    )
    result = _run(trial)
    return result.tune_seconds, result.fit_seconds, result.chosen


BEGIN, END = "<!-- bench_online -->", "<!-- /bench_online -->"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tuning", action="store_true", help="also time one segment trial before/after")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave results.md alone.")
    args = parser.parse_args()
    X, y = pendigits_stream()
    ours_learn(X[:500], y[:500])  # compile / cache load outside the timing
    river_learn(X[:500], y[:500])
    best = {"ours": np.inf, "river": np.inf}
    for _ in range(args.rounds):
        best["ours"] = min(best["ours"], ours_learn(X, y))
        best["river"] = min(best["river"], river_learn(X, y))
    n = len(y)
    accuracy = prequential(X, y)
    lines = [
        "## Online trees (O-ΠTree, paper 000) against river's HoeffdingTreeClassifier",
        "",
        f"{machine()}; load {load_average()} at the start. Shuffled pendigits stream, {n} examples, one per call "
        f"(`partial_fit` on a 1-row array / `learn_one` on a dict), best of {args.rounds} interleaved rounds.",
        "",
        "| learner | seconds | examples/s | µs/example | prequential accuracy | leaves |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, label in (("ours", "treebench O-ΠTree (γ = 0.05)"), ("river", "river HoeffdingTreeClassifier")):
        lines.append(f"| {label} | {best[name]:.2f} | {n / best[name]:.0f} | {1e6 * best[name] / n:.1f} | "
                     f"{accuracy[name]:.4f} | {accuracy[name + '_leaves']} |")
    lines += ["", f"Throughput ratio treebench / river: **{best['river'] / best['ours']:.2f}**"]
    if args.tuning:
        after = segment_trial_seconds()
        with first_implementation():
            before = segment_trial_seconds()
        assert before[2] == after[2], (before, after)  # the same trees choose the same gamma
        lines += ["", f"segment, o-pitree, outer fold 0 (chosen {after[2]}): tuning {before[0]:.2f} s -> "
                  f"{after[0]:.2f} s ({before[0] / after[0]:.1f}x), final fit {before[1]:.2f} s -> {after[1]:.2f} s "
                  f"({before[1] / after[1]:.1f}x)"]
    print("\n".join(lines))
    if not args.no_write:
        write_section(BEGIN, END, lines)


if __name__ == "__main__":
    main()
