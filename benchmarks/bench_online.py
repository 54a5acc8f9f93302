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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tuning", action="store_true", help="also time one segment trial before/after")
    args = parser.parse_args()
    X, y = pendigits_stream()
    ours_learn(X[:500], y[:500])  # compile / cache load outside the timing
    river_learn(X[:500], y[:500])
    best = {"ours": np.inf, "river": np.inf}
    for _ in range(args.rounds):
        best["ours"] = min(best["ours"], ours_learn(X, y))
        best["river"] = min(best["river"], river_learn(X, y))
    n = len(y)
    print(f"pendigits stream, {n} examples, one per call (best of {args.rounds} interleaved rounds)")
    for name in ("ours", "river"):
        print(f"  {name:6s} {best[name]:7.2f} s  {n / best[name]:9.0f} examples/s  {1e6 * best[name] / n:7.1f} us/example")
    print(f"  throughput ratio ours/river: {best['river'] / best['ours']:.2f}")
    accuracy = prequential(X, y)
    print(
        f"prequential accuracy: ours {accuracy['ours']:.4f} ({accuracy['ours_leaves']} leaves), "
        f"river {accuracy['river']:.4f} ({accuracy['river_leaves']} leaves)"
    )
    if args.tuning:
        after = segment_trial_seconds()
        with first_implementation():
            before = segment_trial_seconds()
        assert before[2] == after[2], (before, after)  # the same trees choose the same gamma
        print(f"segment, o-pitree, outer fold 0 (chosen {after[2]}):")
        print(f"  tuning  before {before[0]:8.2f} s  after {after[0]:7.2f} s  ratio {before[0] / after[0]:6.1f}")
        print(f"  final   before {before[1]:8.2f} s  after {after[1]:7.2f} s  ratio {before[1] / after[1]:6.1f}")


if __name__ == "__main__":
    main()
