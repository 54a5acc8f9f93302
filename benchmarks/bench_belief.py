"""Fit time and peak memory of belief-function trees (paper 004) against scikit-learn's entropy tree.

Run with ``python benchmarks/bench_belief.py`` (needs ``TREEBENCH_DATA`` for the real sets).
Learners: :class:`treebench.trees.belief.BeliefTreeClassifier` with the ``belief`` criterion
(``lam=0.5``, ``variant="printed"``; ``multiclass`` natural and one-vs-rest) and scikit-learn's
fully grown ``DecisionTreeClassifier(criterion="entropy")``.  Data: pendigits, letter and
credit-g (every column as float64, nominal ones as category codes, for both libraries) and
``make_classification`` 100k x 16 (4 classes, as ``bench_synthetic.py``).

* **time ratio**: all learners fit in *this* process, interleaved (one fit of each per round,
  the order rotating), numba compiled beforehand; the ratio of the best-of-rounds seconds
  (the median ratio beside it).
* **memory ratio** (100k x 16 only, and ``--memory-all``): the extra peak RSS of one fit in a
  fresh child process (``_measure.measured_fit``), treebench's over scikit-learn's.

Results go to stdout and to a marked section of ``benchmarks/results.md`` (the rest is kept).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from datetime import date, datetime, timezone
from pathlib import Path

import numpy as np
from _measure import load_average, machine, measured_fit, run_child, warm_up, write_section

DATASETS = ["pendigits", "letter", "credit-g", "synthetic-100000x16"]
#: treebench learners: (label, belief criterion params)
BELIEF = [
    ("belief", {}),
    ("belief one-vs-rest", {"multiclass": "one-vs-rest"}),
]
REFERENCE = "sklearn entropy"
BEGIN, END = "<!-- bench_belief -->", "<!-- /bench_belief -->"


def matrix(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Float64 features (category codes for nominal columns) and class codes."""
    if name.startswith("synthetic-"):
        from sklearn.datasets import make_classification

        rows, features = (int(v) for v in name.split("-", 1)[1].split("x"))
        X, y = make_classification(
            n_samples=rows, n_features=features, n_informative=features * 3 // 4, n_redundant=0,
            n_classes=4, n_clusters_per_class=2, random_state=rows + features,
        )
        return np.ascontiguousarray(X, dtype=np.float64), y.astype(np.int64)
    from treebench.data import load
    from treebench.learners.sklearn_cart import codes_matrix

    data = load(name)
    _, y = np.unique(np.asarray(data.y), return_inverse=True)
    return np.ascontiguousarray(codes_matrix(data.X)), y.ravel().astype(np.int64)


def estimator(learner: str):
    """``sklearn entropy`` or ``treebench:<label>`` of :data:`BELIEF`."""
    if learner == REFERENCE:
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(criterion="entropy", random_state=0)
    from treebench.trees.belief import BeliefTreeClassifier

    params = dict(BELIEF)[learner.split(":", 1)[1]]
    return BeliefTreeClassifier("belief", **params)


def names() -> list[str]:
    return [REFERENCE] + [f"treebench:{label}" for label, _ in BELIEF]


def child(learner: str, x_path: str, y_path: str) -> None:
    X, y = np.load(x_path), np.load(y_path)
    print(json.dumps(measured_fit(lambda: estimator(learner), X, y)))


def interleaved_times(
    learners: list[str], X: np.ndarray, y: np.ndarray, rounds: int
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Fit seconds of each learner per round (one fit of each per round, the order rotating), and its leaves."""
    times: dict[str, list[float]] = {n: [] for n in learners}
    leaves: dict[str, int] = {}
    for r in range(rounds):
        for name in learners[r % len(learners):] + learners[: r % len(learners)]:
            model = estimator(name)
            started = time.perf_counter()
            model.fit(X, y)
            times[name].append(time.perf_counter() - started)
            leaves[name] = int(model.get_n_leaves() if hasattr(model, "get_n_leaves") else model.tree_.n_leaves)
    return times, leaves


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, metavar=("LEARNER", "X", "Y"), help=argparse.SUPPRESS)
    parser.add_argument("--datasets", nargs="*", default=DATASETS)
    parser.add_argument("--rounds", type=int, default=0, help="0: 5 below 50k rows, else 3")
    parser.add_argument("--learners", nargs="*", help="labels of BELIEF to run (default: all)")
    parser.add_argument("--memory-all", action="store_true", help="Memory fits on every dataset (default: 100k rows).")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave results.md alone.")
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    import sklearn

    import treebench

    learners = [n for n in names() if n == REFERENCE or not args.learners or n.split(":", 1)[1] in args.learners]
    warm_X, warm_y = matrix("synthetic-2000x4")
    for name in learners:  # numba's kernels (and scikit-learn's imports) loaded before any timing
        warm_up(estimator(name), warm_X, warm_y)
    rows, loads = [], [load_average()]
    started_all = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-belief-") as tmp:
        for name in args.datasets:
            X, y = matrix(name)
            rounds = args.rounds or (5 if len(y) < 50_000 else 3)
            times, leaves = interleaved_times(learners, X, y, rounds)
            memory: dict[str, dict] = {}
            if args.memory_all or len(y) >= 100_000:
                x_path, y_path = Path(tmp) / "X.npy", Path(tmp) / "y.npy"
                np.save(x_path, X)
                np.save(y_path, y)
                memory = {n: run_child(__file__, n, str(x_path), str(y_path)) for n in learners}
            loads.append(load_average())
            best_ref, median_ref = min(times[REFERENCE]), statistics.median(times[REFERENCE])
            for learner in learners[1:]:
                best, median = min(times[learner]), statistics.median(times[learner])
                if memory:
                    m_tb, m_sk = memory[learner]["extra_mib"], memory[REFERENCE]["extra_mib"]
                    mem = f"{m_tb:.1f} | {m_sk:.1f} | {m_tb / max(m_sk, 1.0):.2f}"
                else:
                    mem = "- | - | -"
                row = (f"| {name} | {X.shape[0]}x{X.shape[1]} | {len(np.unique(y))} | {learner.split(':', 1)[1]} | "
                       f"{best:.3f} | {best_ref:.3f} | {best / best_ref:.2f} | {median / median_ref:.2f} | {mem} | "
                       f"{leaves[learner]} / {leaves[REFERENCE]} | {rounds} |")
                print(row, flush=True)
                rows.append(row)
    elapsed = time.perf_counter() - started_all
    lines = [
        "## Belief-function trees (paper 004) vs scikit-learn's entropy tree: time and memory",
        "",
        f"Measured {date.today().isoformat()} ({datetime.now(timezone.utc):%H:%M} UTC) by "
        f"`benchmarks/bench_belief.py` on {machine()}; treebench {treebench.__version__}, "
        f"scikit-learn {sklearn.__version__}, numpy {np.__version__} ({elapsed:.0f} s in all). "
        f"Load average (1/5/15 min) at the start and after each dataset: {'; '.join(loads)}.",
        "`BeliefTreeClassifier('belief')` (lam 0.5, printed variant; its fit includes the leaves' belief "
        "structures) against `DecisionTreeClassifier(criterion='entropy')`, fully grown, on the same "
        "float64 matrix (nominal columns as category codes). *best s*: fastest of the interleaved rounds "
        "in one process; *time ratio*: of the best, *median ratio*: of the medians. *extra MiB*: peak RSS "
        "during one fit in a fresh child process (`VmHWM` after `clear_refs`) minus the RSS before it; "
        "*memory ratio*: treebench's / scikit-learn's (floor 1 MiB).",
        "",
        "| dataset | shape | classes | treebench learner | best s | sklearn best s | time ratio | median ratio | "
        "tb extra MiB | sk extra MiB | memory ratio | leaves (tb / sk) | rounds |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|",
        *rows,
    ]
    print(f"{elapsed:.0f} s; load average {'; '.join(loads)}")
    if not args.no_write:
        write_section(BEGIN, END, lines)
        print(f"written to {Path(__file__).with_name('results.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
