"""Fit time of fully grown trees, as a ratio to scikit-learn in the same process.

Run with ``make bench`` (needs the dataset mirror, ``TREEBENCH_DATA``).  For
every dataset and criterion, both libraries fit the same float64 matrix
(numeric columns only) several times; the table reports the median seconds and
treebench / scikit-learn.  ``possibilistic``, ``gain_ratio``, ``tsallis``,
``certainty`` and ``hellinger`` have no scikit-learn counterpart and are
compared with its entropy tree.  Results go to stdout and ``benchmarks/results.md``.

A second table times the feature encoding: a fit and a predict on a DataFrame
with category columns, against the same tree on the category-code matrix
(``nominal_features`` naming those columns), interleaved in one process,
best of several runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn
from _measure import machine, write_section
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
    # issue 40's target: Hellinger distance trees at most 0.5x scikit-learn's entropy tree
    ("hellinger", {}, "entropy"),
    ("hellinger", {"reading": "one-vs-rest"}, "entropy"),
]
OUT = Path(__file__).with_name("results.md")
#: Datasets with category columns for the encoding table (loaded as DataFrames).
CATEGORICAL = ["credit-g", "kddcup99-10pct"]


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


def code_matrix(frame: pd.DataFrame) -> tuple[np.ndarray, list[int]]:
    """The frame's category codes (NaN for missing) and numbers as one float matrix, and its category columns."""
    nominal = [j for j, dtype in enumerate(frame.dtypes) if isinstance(dtype, pd.CategoricalDtype)]
    columns = []
    for j, (_, series) in enumerate(frame.items()):
        if j in nominal:
            codes = series.cat.codes.to_numpy().astype(np.float64)
            codes[codes < 0] = np.nan
            columns.append(codes)
        else:
            columns.append(series.to_numpy(dtype=np.float64, na_value=np.nan))
    return np.column_stack(columns), nominal


def categorical_rows(names: list[str], repeats: int) -> list[tuple]:
    """Per dataset: best fit and predict seconds on the DataFrame and on its code matrix, interleaved."""
    rows = []
    for name in names:
        dataset = load(name)
        frame, y = dataset.X, np.asarray(dataset.y)
        matrix, nominal = code_matrix(frame)
        runs = repeats or (7 if len(y) < 100_000 else 3)
        times: dict[str, list[float]] = {"fit_frame": [], "fit_codes": [], "predict_frame": [], "predict_codes": []}
        for _ in range(runs):
            for kind, X, params in (("frame", frame, {}), ("codes", matrix, {"nominal_features": nominal})):
                started = time.perf_counter()
                model = TreeClassifier("entropy", **params).fit(X, y)
                times[f"fit_{kind}"].append(time.perf_counter() - started)
                started = time.perf_counter()
                model.predict(X)
                times[f"predict_{kind}"].append(time.perf_counter() - started)
        best = {key: min(values) for key, values in times.items()}
        row = (name, f"{frame.shape[0]}x{frame.shape[1]}", len(nominal), best["fit_frame"], best["fit_codes"],
               best["predict_frame"], best["predict_codes"])
        rows.append(row)
        print(f"{name:18s} {row[1]:>10s} fit frame {row[3]:.4f}s codes {row[4]:.4f}s ratio {row[3] / row[4]:.2f}  "
              f"predict frame {row[5]:.4f}s codes {row[6]:.4f}s ratio {row[5] / row[6]:.2f}", flush=True)
    return rows


def categorical_section(rows: list[tuple]) -> list[str]:
    lines = [
        "## Category columns: DataFrame against the code matrix",
        "",
        "Entropy tree, fully grown; the same fit and predict on the DataFrame (category dtype) and on the",
        "float matrix of its category codes with `nominal_features`; best of interleaved runs in one process.",
        "",
        "| dataset | shape | category columns | fit frame s | fit codes s | ratio | predict frame s | predict codes s | ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, shape, n_nominal, fit_frame, fit_codes, predict_frame, predict_codes in rows:
        lines.append(
            f"| {name} | {shape} | {n_nominal} | {fit_frame:.4f} | {fit_codes:.4f} | {fit_frame / fit_codes:.2f} "
            f"| {predict_frame:.4f} | {predict_codes:.4f} | {predict_frame / predict_codes:.2f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=0, help="0: 5 below 100k rows, else 3")
    parser.add_argument("--categorical", nargs="*", default=CATEGORICAL, help="datasets of the encoding table")
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
    if args.categorical:
        print("\ncategory columns: DataFrame vs code matrix", flush=True)
        write_section(
            "<!-- bench_fit categorical -->",
            "<!-- /bench_fit categorical -->",
            categorical_section(categorical_rows(args.categorical, args.repeats)),
            OUT,
        )
    print(f"\nwritten to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
