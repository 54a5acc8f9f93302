"""Fit time and peak memory of the certainty, possibilistic and entropy trees on paper 003's two large sets.

Run with ``make bench`` (after ``bench_fit.py``) or directly; needs ``TREEBENCH_DATA``.
Datasets: kddcup99-10pct (494,021 x 41) and skin-segmentation (245,057 x 3).  Every
learner fits the same float64 matrix: all columns, nominal ones as their category
codes (scikit-learn has no nominal splits, so treebench gets the codes too).

Each fit runs in a fresh child process (``python this_file --child ...``) that

1. loads the matrix from a ``.npy`` file written by the parent (cheap: no pandas),
2. warms up on the first 2,000 rows (numba compiles there, not in the timed fit),
3. resets its peak resident set size (``echo 5 > /proc/self/clear_refs``), reads its resident
   size, fits once on all rows, and reads the peak (``VmHWM`` in ``/proc/self/status``).

Reported: the fit seconds and the *extra* peak memory of the fit (peak during the fit minus the
resident size before it; RSS, so allocations inside numba's compiled code, which tracemalloc
cannot see, are counted; ``ru_maxrss`` is not used on Linux as a child starts with its parent's
value), and both as ratios to
scikit-learn's ``DecisionTreeClassifier(criterion="entropy")``.  Results go to stdout and
to a marked section of ``benchmarks/results.md`` (the rest of the file is kept).
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
from datetime import date
from pathlib import Path

import numpy as np
from _measure import measured_fit, run_child, write_section

DATASETS = ["kddcup99-10pct", "skin-segmentation"]
LEARNERS = ["treebench certainty", "treebench possibilistic", "treebench entropy", "sklearn entropy"]
OUT = Path(__file__).with_name("results.md")
BEGIN, END = "<!-- bench_certainty_scale -->", "<!-- /bench_certainty_scale -->"


def matrix(name: str) -> tuple[np.ndarray, np.ndarray]:
    """All columns as float64 (category codes for nominal ones, NaN for missing) and class codes."""
    from treebench.data import load
    from treebench.learners.sklearn_cart import codes_matrix

    data = load(name)
    _, y = np.unique(np.asarray(data.y), return_inverse=True)
    return codes_matrix(data.X), y.ravel().astype(np.int64)


def estimator(learner: str):
    if learner.startswith("sklearn"):
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(criterion="entropy", random_state=0)
    from treebench import TreeClassifier

    return TreeClassifier(learner.split()[1])


def child(learner: str, x_path: str, y_path: str) -> None:
    """One measured fit; prints a JSON line."""
    X, y = np.load(x_path), np.load(y_path)
    print(json.dumps(measured_fit(lambda: estimator(learner), X, y)))


def measure(learner: str, x_path: Path, y_path: Path) -> dict:
    return run_child(__file__, learner, str(x_path), str(y_path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, metavar=("LEARNER", "X", "Y"), help=argparse.SUPPRESS)
    parser.add_argument("--datasets", nargs="*", default=DATASETS)
    parser.add_argument("--no-write", action="store_true", help="Print only; leave results.md alone.")
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    import sklearn

    import treebench

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-certainty-") as tmp:
        for name in args.datasets:
            X, y = matrix(name)
            x_path, y_path = Path(tmp) / "X.npy", Path(tmp) / "y.npy"
            np.save(x_path, X)
            np.save(y_path, y)
            results = {learner: measure(learner, x_path, y_path) for learner in LEARNERS}
            base = results["sklearn entropy"]
            for learner in LEARNERS:
                r = results[learner]
                row = (f"| {name} | {X.shape[0]}x{X.shape[1]} | {learner} | {r['seconds']:.2f} | "
                       f"{r['seconds'] / base['seconds']:.2f} | {r['extra_mib']:.0f} | "
                       f"{r['extra_mib'] / max(base['extra_mib'], 1.0):.2f} | {r['peak_mib']:.0f} | {r['leaves']} |")
                print(row, flush=True)
                rows.append(row)
    lines = [
        "## Scale (paper 003's large sets): certainty, possibilistic and entropy trees vs scikit-learn, time and peak memory",
        "",
        f"Measured {date.today().isoformat()} by `benchmarks/bench_certainty_scale.py` on "
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}; "
        f"treebench {treebench.__version__}, scikit-learn {sklearn.__version__}, numpy {np.__version__}.",
        "One fit per learner, each in a fresh child process on the same float64 matrix (all columns, "
        "nominal ones as category codes); numba compiled beforehand on 2,000 rows. *extra MiB*: "
        "the child's peak RSS during the fit (`VmHWM` after `clear_refs`) minus its RSS just before; "
        "*peak MiB*: that peak (interpreter, libraries and the matrix included). "
        "Ratios are to scikit-learn's entropy tree (below 1: treebench is faster / smaller). "
        "The machine is shared, so times are upper bounds.",
        "",
        "| dataset | shape | learner | fit s | time ratio | extra MiB | memory ratio | peak MiB | leaves |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
        *rows,
    ]
    if args.no_write:
        return
    write_section(BEGIN, END, lines, OUT)
    print(f"\nwritten to {OUT}")


if __name__ == "__main__":
    main()
