"""Fit time of fully grown trees, as a ratio to scikit-learn in the same process.

Run with ``make bench`` (needs the dataset mirror, ``TREEBENCH_DATA``).  For
every dataset and criterion, both libraries fit the same float64 matrix
(numeric columns only) several times; the table reports the median seconds and
treebench / scikit-learn.  ``possibilistic``, ``gain_ratio``, ``tsallis`` and
``certainty`` have no scikit-learn counterpart and are compared with its
entropy tree.  Results go to stdout and ``benchmarks/results.md``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
import sklearn
from _measure import machine
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier

import treebench
from treebench import TreeClassifier
from treebench.data import load

DATASETS = ["pendigits", "letter", "skin-segmentation", "kddcup99-10pct"]
#: (treebench criterion and params, scikit-learn criterion it is compared with)
PAIRS = [
    ("entropy", {}, "entropy"),
    ("gini", {}, "gini"),
    ("possibilistic", {"gamma": 0.05}, "entropy"),
    ("gain_ratio", {}, "entropy"),
    ("tsallis", {"q": 2.5}, "entropy"),
    ("certainty", {}, "entropy"),
]
OUT = Path(__file__).with_name("results.md")


def numeric_matrix(name: str) -> tuple[np.ndarray, np.ndarray]:
    dataset = load(name)
    numeric = dataset.X.select_dtypes("number")
    return numeric.to_numpy(dtype=np.float64), np.asarray(dataset.y)


def median_seconds(estimator, X: np.ndarray, y: np.ndarray, repeats: int) -> tuple[float, object]:
    """Median fit time of fresh clones of ``estimator``, and the last fitted one."""
    times, model = [], None
    for _ in range(repeats):
        model = clone(estimator)
        started = time.perf_counter()
        model.fit(X, y)
        times.append(time.perf_counter() - started)
    return statistics.median(times), model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=0, help="0: 5 below 100k rows, else 3")
    args = parser.parse_args(argv)

    TreeClassifier("entropy").fit(np.arange(20.0).reshape(10, 2), np.arange(10) % 2)  # load compiled kernels
    rows = []
    for name in args.datasets:
        X, y = numeric_matrix(name)
        repeats = args.repeats or (5 if len(y) < 100_000 else 3)
        sk_cache: dict[str, tuple[float, int]] = {}
        for criterion, params, sk_criterion in PAIRS:
            if sk_criterion not in sk_cache:
                reference = DecisionTreeClassifier(criterion=sk_criterion, random_state=0)
                seconds, model = median_seconds(reference, X, y, repeats)
                sk_cache[sk_criterion] = (seconds, model.get_n_leaves())
            sk_seconds, sk_leaves = sk_cache[sk_criterion]
            ours = TreeClassifier(criterion, **params)
            seconds, model = median_seconds(ours, X, y, repeats)
            label = criterion + ("" if not params else " " + ",".join(f"{k}={v}" for k, v in params.items()))
            row = (name, f"{X.shape[0]}x{X.shape[1]}", label, sk_criterion, seconds, sk_seconds, seconds / sk_seconds, model.tree_.n_leaves, sk_leaves)
            rows.append(row)
            print(f"{name:18s} {row[1]:>10s} {label:22s} treebench {seconds:7.3f}s  sklearn[{sk_criterion}] {sk_seconds:7.3f}s  ratio {row[6]:.2f}", flush=True)

    lines = [
        "# Fit-time benchmark: treebench vs scikit-learn",
        "",
        f"Measured {date.today().isoformat()} by `make bench` on {machine()};",
        f"treebench {treebench.__version__}, scikit-learn {sklearn.__version__}, numpy {np.__version__}.",
        "Fully grown trees on the numeric columns; median of repeated fits in one process;",
        "ratio = treebench seconds / scikit-learn seconds (below 1: treebench is faster).",
        "",
        "| dataset | shape | treebench criterion | vs sklearn | treebench s | sklearn s | ratio | leaves (tb / sk) |",
        "|---|---|---|---|---:|---:|---:|---|",
    ]
    for name, shape, label, sk, ours, theirs, ratio, leaves, sk_leaves in rows:
        lines.append(f"| {name} | {shape} | {label} | {sk} | {ours:.3f} | {theirs:.3f} | {ratio:.2f} | {leaves} / {sk_leaves} |")
    # this table heads the file; the marked sections of the other benchmarks below it are kept
    text = OUT.read_text() if OUT.exists() else ""
    rest = text[text.index("<!-- bench_"):] if "<!-- bench_" in text else ""
    OUT.write_text("\n".join(lines) + "\n" + ("\n" + rest if rest else ""))
    print(f"\nwritten to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
