"""Fit time, extra peak memory and fit exponent on synthetic dense continuous data (issue 18 item 5).

Run with ``python benchmarks/bench_synthetic.py`` (``make bench`` does; no dataset mirror needed).
Data: ``sklearn.datasets.make_classification`` with 4 classes and fixed seeds:
10k x 16 and 100k x 16 by default; 500k x 10 and 1M x 10 only with ``--big`` or
``TREEBENCH_BENCH_BIG=1`` (or pick with ``--sizes 10000x16 500000x10``).

For each size, every count criterion of treebench (entropy, gini, gain_ratio, tsallis q=2.5,
tsallis_gain_ratio q=2.5, certainty, possibilistic gamma=0.05, hellinger) is compared with scikit-learn's fully
grown ``DecisionTreeClassifier`` (entropy; gini against gini):

* **time ratio**: all learners fit in *this* process, interleaved (one fit of every learner per
  round, ``--repeats`` rounds), numba compiled beforehand; the ratio is of the median seconds.
* **memory ratio**: the extra peak RSS of one fit, each in a fresh child process
  (``_measure.measured_fit``: ``VmHWM`` after ``clear_refs`` minus the RSS before the fit),
  treebench's over scikit-learn's.
* **exponent**: per learner, the least-squares slope of log(median seconds / features) against
  log(rows) over the sizes run (seconds per feature, as the sizes differ in features too).

Results go to stdout and to a marked section of ``benchmarks/results.md`` (the rest is kept).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from datetime import date, datetime, timezone
from pathlib import Path

import numpy as np
from _measure import load_average, machine, measured_fit, run_child, warm_up, write_section

SIZES = [(10_000, 16), (100_000, 16)]
BIG_SIZES = [(500_000, 10), (1_000_000, 10)]
#: (label, treebench criterion, params, scikit-learn criterion it is compared with)
PAIRS = [
    ("entropy", "entropy", {}, "entropy"),
    ("gini", "gini", {}, "gini"),
    ("gain_ratio", "gain_ratio", {}, "entropy"),
    ("tsallis q=2.5", "tsallis", {"q": 2.5}, "entropy"),
    ("tsallis_gain_ratio q=2.5", "tsallis_gain_ratio", {"q": 2.5}, "entropy"),
    ("certainty", "certainty", {}, "entropy"),
    ("possibilistic gamma=0.05", "possibilistic", {"gamma": 0.05}, "entropy"),
    # issue 40's target on dense continuous data: Hellinger distance at most 0.5x the entropy tree
    ("hellinger", "hellinger", {}, "entropy"),
]
BEGIN, END = "<!-- bench_synthetic -->", "<!-- /bench_synthetic -->"


def dataset(rows: int, features: int) -> tuple[np.ndarray, np.ndarray]:
    """4 classes, 3/4 of the features informative, the rest noise; the seed fixed per size."""
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=rows, n_features=features, n_informative=features * 3 // 4, n_redundant=0,
        n_classes=4, n_clusters_per_class=2, random_state=rows + features,
    )
    return np.ascontiguousarray(X, dtype=np.float64), y.astype(np.int64)


def estimator(learner: str):
    """``sklearn:CRITERION`` or ``treebench:CRITERION:JSON-PARAMS``."""
    kind, criterion, *rest = learner.split(":", 2)
    if kind == "sklearn":
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(criterion=criterion, random_state=0)
    from treebench import TreeClassifier

    return TreeClassifier(criterion, **json.loads(rest[0] if rest else "{}"))


def learners(pairs) -> list[str]:
    sk = sorted({p[3] for p in pairs}, key=["entropy", "gini"].index)
    return [f"sklearn:{c}" for c in sk] + [f"treebench:{c}:{json.dumps(params)}" for _, c, params, _ in pairs]


def child(learner: str, x_path: str, y_path: str) -> None:
    X, y = np.load(x_path), np.load(y_path)
    print(json.dumps(measured_fit(lambda: estimator(learner), X, y)))


def interleaved_times(names: list[str], X: np.ndarray, y: np.ndarray, repeats: int) -> dict[str, tuple[float, int]]:
    """Median fit seconds and leaves of each learner; one fit of each per round, the order rotating."""
    times: dict[str, list[float]] = {n: [] for n in names}
    leaves: dict[str, int] = {}
    for r in range(repeats):
        order = names[r % len(names):] + names[: r % len(names)]
        for name in order:
            model = estimator(name)
            started = time.perf_counter()
            model.fit(X, y)
            times[name].append(time.perf_counter() - started)
            leaves[name] = int(model.get_n_leaves() if hasattr(model, "get_n_leaves") else model.tree_.n_leaves)
    return {n: (statistics.median(times[n]), leaves[n]) for n in names}


def slope(points: list[tuple[int, int, float]]) -> float | None:
    """Least-squares slope of log(seconds / features) on log(rows)."""
    if len({p[0] for p in points}) < 2:
        return None
    x = np.log([p[0] for p in points])
    t = np.log([p[2] / p[1] for p in points])
    return float(np.polyfit(x, t, 1)[0])


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def parse_size(text: str) -> tuple[int, int]:
    rows, features = text.lower().split("x")
    return int(float(rows)), int(features)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, metavar=("LEARNER", "X", "Y"), help=argparse.SUPPRESS)
    parser.add_argument("--big", action="store_true", default=os.environ.get("TREEBENCH_BENCH_BIG") == "1",
                        help="Also 500k x 10 and 1M x 10 (env TREEBENCH_BENCH_BIG=1).")
    parser.add_argument("--sizes", nargs="*", type=parse_size, help="e.g. 10000x16 500000x10 (overrides --big)")
    parser.add_argument("--criteria", nargs="*", help="treebench criteria to run (default: all eight)")
    parser.add_argument("--repeats", type=int, default=0, help="0: 5 below 100k rows, 3 below 500k, else 1")
    parser.add_argument("--no-memory", action="store_true", help="Skip the child-process memory fits.")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave results.md alone.")
    parser.add_argument("--tag", default="", help="Own results.md section (e.g. big), beside the default one.")
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    import sklearn

    import treebench

    sizes = args.sizes or (SIZES + BIG_SIZES if args.big else SIZES)
    pairs = [p for p in PAIRS if not args.criteria or p[1] in args.criteria]
    names = learners(pairs)
    warm_X, warm_y = dataset(2000, 4)
    for name in names:  # numba's kernels (and scikit-learn's imports) loaded before any timing
        warm_up(estimator(name), warm_X, warm_y)
    loads = [load_average()]
    rows, curve = [], {n: [] for n in names}
    started_all = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-synthetic-") as tmp:
        for n_rows, n_features in sizes:
            X, y = dataset(n_rows, n_features)
            repeats = args.repeats or (5 if n_rows < 100_000 else 3 if n_rows < 500_000 else 1)
            timed = interleaved_times(names, X, y, repeats)
            memory: dict[str, dict] = {}
            if not args.no_memory:
                x_path, y_path = Path(tmp) / "X.npy", Path(tmp) / "y.npy"
                np.save(x_path, X)
                np.save(y_path, y)
                memory = {n: run_child(__file__, n, str(x_path), str(y_path)) for n in names}
            loads.append(load_average())
            for n in names:
                curve[n].append((n_rows, n_features, timed[n][0]))
            for label, criterion, params, sk in pairs:
                tb = f"treebench:{criterion}:{json.dumps(params)}"
                ref = f"sklearn:{sk}"
                (s_tb, l_tb), (s_sk, l_sk) = timed[tb], timed[ref]
                if memory:
                    m_tb, m_sk = memory[tb]["extra_mib"], memory[ref]["extra_mib"]
                    mem = f"{m_tb:.1f} | {m_sk:.1f} | {m_tb / max(m_sk, 1.0):.2f}"
                else:
                    mem = "- | - | -"
                row = (f"| {n_rows}x{n_features} | {label} | {sk} | {s_tb:.3f} | {s_sk:.3f} | {s_tb / s_sk:.2f} | "
                       f"{mem} | {l_tb} / {l_sk} | {repeats} |")
                print(row, flush=True)
                rows.append(row)
    elapsed = time.perf_counter() - started_all
    exponent_rows = []
    for label, criterion, params, sk in pairs:
        tb = f"treebench:{criterion}:{json.dumps(params)}"
        e_tb, e_sk = slope(curve[tb]), slope(curve[f"sklearn:{sk}"])
        exponent_rows.append(f"| {label} | {_fmt(e_tb)} | {sk} | {_fmt(e_sk)} |")
        print(exponent_rows[-1])
    size_text = ", ".join(f"{r // 1000}k x {f}" if r < 1_000_000 else f"{r // 1_000_000}M x {f}" for r, f in sizes)
    lines = [
        "## Synthetic dense continuous data (make_classification): time, memory and fit exponent",
        "",
        f"Measured {date.today().isoformat()} ({datetime.now(timezone.utc):%H:%M} UTC) by "
        f"`benchmarks/bench_synthetic.py` on {machine()}; treebench {treebench.__version__}, "
        f"scikit-learn {sklearn.__version__}, numpy {np.__version__}. Sizes: {size_text} "
        f"({elapsed:.0f} s in all). Load average (1/5/15 min) at the start and after each size: "
        f"{'; '.join(loads)} (a shared 2-core machine: the ratios, from the same process, are more "
        "trustworthy than the seconds).",
        "`make_classification(n_classes=4, n_informative=3/4 of the features, n_redundant=0, "
        "random_state=rows+features)`; fully grown trees. *time ratio*: treebench median seconds / "
        "scikit-learn median seconds, fits interleaved in one process (*rounds* fits each). "
        "*extra MiB*: peak RSS during one fit in a fresh child process (`VmHWM` after `clear_refs`) "
        "minus the RSS before it; *memory ratio*: treebench's / scikit-learn's (floor 1 MiB).",
        "",
        "| shape | treebench criterion | vs sklearn | treebench s | sklearn s | time ratio | "
        "tb extra MiB | sk extra MiB | memory ratio | leaves (tb / sk) | rounds |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|",
        *rows,
        "",
        "Fit exponent: least-squares slope of log(median seconds / features) against log(rows) over the "
        "sizes above (1 is linear; n log n over this range reads about 1.1).",
        "",
        "| treebench criterion | exponent | sklearn criterion | sklearn exponent |",
        "|---|---:|---|---:|",
        *exponent_rows,
    ]
    print(f"{elapsed:.0f} s; load average {'; '.join(loads)}")
    if not args.no_write:
        tag = f" {args.tag}" if args.tag else ""
        if tag:
            lines[0] += f" ({args.tag})"
        write_section(BEGIN.replace(" -->", tag + " -->"), END.replace(" -->", tag + " -->"), lines)
        print(f"written to {Path(__file__).with_name('results.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
