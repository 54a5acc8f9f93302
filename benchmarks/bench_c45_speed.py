"""Fit time of treebench's C4.5 against Quinlan's C5.0 and Weka's J48 on synthetic data (issue 19).

Run with ``python benchmarks/bench_c45_speed.py`` (no dataset mirror needed).  Data:
``bench_synthetic.dataset(100_000, 16)`` (``make_classification``, 4 classes, fixed seed) by
default; ``--sizes 10000x16 100000x16`` picks others.

Learners, all on the whole data with their defaults:

* **C4.5**: ``treebench.trees.c45.C45Classifier()`` (J48 ``-C 0.25 -M 2`` node for node), fitted
  in this process, numba compiled beforehand;
* **C5.0**: ``treebench.learners.c50.C50(0).fit({}, frame, y)``, Quinlan's GPL binary (its time
  includes writing its input files and reading its tree back);
* **J48**: Weka 3.6's J48 ``-C 0.25 -M 2`` through the ``weka-j48`` learner's pieces, as
  ``j48_reference.py`` runs it, when ``java`` and ``weka.jar`` are present (``--no-j48`` skips
  it): Weka's own "Time taken to build model" of ``java ... -t train.arff -no-cv``, and that
  run's wall clock (JVM start, ARFF parsing and the evaluation on the training data included).

Timing: ``--repeats`` rounds (default 3), each fitting every learner once, interleaved, so that
the load of a shared machine hits all of them alike; the table shows the median seconds (and the
fastest), the leaves (C5.0: its "Size", non-empty leaves; C4.5 and J48: "Number of Leaves",
empty leaves included) and C4.5's time over C5.0's.  Issue 19 accepts at most 0.5.

``--write`` puts the table in a marked section of ``benchmarks/results.md``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _measure import load_average, machine, write_section
from bench_synthetic import dataset

BEGIN, END = "<!-- bench_c45_speed -->", "<!-- /bench_c45_speed -->"
_BUILD = re.compile(r"Time taken to build model:\s*([0-9.]+)\s*seconds")


def fit_c45(X: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    from treebench.trees.c45 import C45Classifier

    started = time.perf_counter()
    model = C45Classifier().fit(X, y)
    return {"seconds": time.perf_counter() - started, "leaves": model.tree_.n_leaves}


def fit_c50(frame: pd.DataFrame, y: np.ndarray) -> dict[str, Any]:
    from treebench.learners.c50 import C50

    started = time.perf_counter()
    tree = C50(0).fit({}, frame, y)
    return {"seconds": time.perf_counter() - started, "leaves": tree.size}


def j48_available() -> bool:
    from treebench.learners.weka import WekaUnavailable, find_jar, find_java

    try:
        find_java(), find_jar()
    except WekaUnavailable:
        return False
    return True


def fit_j48(frame: pd.DataFrame, y: np.ndarray) -> dict[str, Any]:
    """J48 ``-C 0.25 -M 2`` trained once (no cross-validation; Weka evaluates it on the training data)."""
    from treebench.learners.weka import Schema, classifier_options, parse_model, run_weka

    arguments = classifier_options({"C": 0.25, "M": 2}, 0)
    labels, codes = np.unique(y, return_inverse=True)
    schema = Schema.of(frame, len(labels))
    with tempfile.TemporaryDirectory(prefix="treebench-c45speed-") as tmp:
        folder = Path(tmp)
        schema.write(folder / "train.arff", frame, codes.ravel())
        started = time.perf_counter()
        output = run_weka([arguments[0], "-t", "train.arff", "-no-cv", *arguments[1:]], folder)
        seconds = time.perf_counter() - started
    build = _BUILD.search(output)
    return {
        "wall": seconds,
        "seconds": float(build.group(1)) if build else float("nan"),
        "leaves": parse_model(output).n_leaves,
    }


def measure(rows: int, features: int, repeats: int, j48: bool) -> dict[str, Any]:
    X, y = dataset(rows, features)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(features)])
    fit_c45(X[:2000], y[:2000])  # numba compilation / cache load outside the timing
    runs: dict[str, list[dict[str, Any]]] = {"C4.5": [], "C5.0": [], "J48": []}
    for _ in range(repeats):
        runs["C4.5"].append(fit_c45(X, y))
        runs["C5.0"].append(fit_c50(frame, y))
        if j48:
            runs["J48"].append(fit_j48(frame, y))
    return {name: found for name, found in runs.items() if found}


def cell(runs: list[dict[str, Any]]) -> str:
    """Median (fastest) seconds of one learner's runs."""
    seconds = [r["seconds"] for r in runs]
    return f"{statistics.median(seconds):.2f} ({min(seconds):.2f})"


def report(results: dict[tuple[int, int], dict[str, Any]], repeats: int) -> list[str]:
    lines = [
        f"### C4.5 fit time against C5.0 and J48 ({date.today().isoformat()})",
        "",
        f"Synthetic dense continuous data (`bench_synthetic.dataset`, 4 classes); {repeats} interleaved "
        f"rounds, median (fastest) seconds; {machine()}; load average {load_average()}.",
        "",
        "| data | C4.5 s | C4.5 leaves | C5.0 s | C5.0 leaves | J48 s [wall] | J48 leaves | C4.5 / C5.0 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (rows, features), runs in results.items():
        c45 = statistics.median(r["seconds"] for r in runs["C4.5"])
        c50 = statistics.median(r["seconds"] for r in runs["C5.0"])
        if "J48" in runs:
            wall = statistics.median(r["wall"] for r in runs["J48"])
            j48 = f"{cell(runs['J48'])} [{wall:.2f}]"
            j48_leaves = str(runs["J48"][0]["leaves"])
        else:
            j48, j48_leaves = "n/a", "n/a"
        lines.append(
            f"| {rows}x{features} | {cell(runs['C4.5'])} | {runs['C4.5'][0]['leaves']} | {cell(runs['C5.0'])} | "
            f"{runs['C5.0'][0]['leaves']} | {j48} | {j48_leaves} | {c45 / c50:.2f} |"
        )
    lines += [
        "",
        "J48's seconds are Weka's own \"Time taken to build model\" of one `java ... J48 -t train.arff "
        "-no-cv` run; in brackets the run's wall clock (JVM start, ARFF parsing and the evaluation on "
        "the training data included).  Leaves: C4.5 and J48 count empty leaves, C5.0's \"Size\" does not.",
    ]
    return lines


def parse_size(text: str) -> tuple[int, int]:
    rows, features = text.lower().split("x")
    return int(rows), int(features)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["100000x16"], metavar="ROWSxFEATURES")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-j48", action="store_true", help="skip Weka's J48")
    parser.add_argument("--write", action="store_true", help="write the table to benchmarks/results.md")
    args = parser.parse_args(argv)
    j48 = not args.no_j48 and j48_available()
    results = {}
    for text in args.sizes:
        size = parse_size(text)
        results[size] = measure(*size, args.repeats, j48)
    lines = report(results, args.repeats)
    print("\n".join(lines))
    if args.write:
        write_section(BEGIN, END, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
