"""Build time of treebench's C4.5 against Weka's J48 and scikit-learn (issues 19 and 27).

Run with ``TREEBENCH_DATA=... python benchmarks/bench_c45_speed.py``.

**Real data** (default ``--datasets credit-g kddcup99-10pct``), loaded as treebench loads them:
a DataFrame whose nominal columns are categorical.  Learners, all on the whole data:

* **C4.5**: ``treebench.trees.c45.C45Classifier()`` (J48 ``-C 0.25 -M 2`` node for node), timed
  in two parts that add up to ``fit``: the *encoding* (``C45Classifier._encode``: the DataFrame
  to a float matrix of codes) and the *grower* (``C45Classifier._fit_encoded``: grow, collapse,
  prune in the compiled kernels, and the ``Node`` objects); numba compiled beforehand;
* **J48**: Weka's ``J48 -C 0.25 -M 2`` inside the JVM through JPype, as the ``weka-j48`` learner's
  in-process engine runs it (``treebench.learners.weka_jvm``): the ARFF text is parsed once
  outside the timing, and the time is ``buildClassifier`` alone: J48's own training time, in a
  JVM whose JIT has warmed up on the same data (untimed builds for 5 s, at least one).  Without JPype: the
  command line's "Time taken to build model" (``--no-j48`` skips J48);
* **scikit-learn**: ``DecisionTreeClassifier(random_state=0)`` on the matrix of category codes
  (``treebench.learners.sklearn_cart.codes_matrix``, computed outside the timing).

Timing: ``--rounds`` rounds (default: 20 on credit-g, 2 on the 494,021 rows of kddcup99-10pct),
each fitting every learner once, interleaved, so that the load of a shared machine hits all of
them alike; the table shows the fastest (and the median) seconds and the ratios of the fastest.
Issue 27 accepts C4.5 at most 0.5 of J48's build time.

**Synthetic data** (``--sizes 100000x16``: ``bench_synthetic.dataset``, dense continuous, 4
classes) compares C4.5 with Quinlan's C5.0 and J48 as issue 19 did.

``--write`` puts the tables in marked sections of ``benchmarks/results.md``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _measure import load_average, machine, write_section

BEGIN, END = "<!-- bench_c45_speed -->", "<!-- /bench_c45_speed -->"
REAL_BEGIN, REAL_END = "<!-- bench_c45_speed_real -->", "<!-- /bench_c45_speed_real -->"
_BUILD = re.compile(r"Time taken to build model:\s*([0-9.]+)\s*seconds")
DEFAULT_ROUNDS = {"credit-g": 20, "kddcup99-10pct": 2}
#: J48 builds untimed for this long (at least once) before the rounds: a JVM's JIT keeps
#: speeding up a method over its first hundreds of calls.
WARM_SECONDS = 5.0


# --------------------------------------------------------------------------- J48
def j48_available() -> bool:
    from treebench.learners.weka import WekaUnavailable, find_jar, find_java

    try:
        find_java(), find_jar()
    except WekaUnavailable:
        return False
    return True


class InJvmJ48:
    """J48 ``-C 0.25 -M 2`` built in this process's JVM on data parsed once (JPype)."""

    how = "buildClassifier in the JVM (JPype), ARFF parsed beforehand"

    def __init__(self, frame: pd.DataFrame, y: np.ndarray):
        from treebench.learners import weka, weka_jvm

        labels, codes = np.unique(y, return_inverse=True)
        self.arguments = weka.classifier_options({"C": 0.25, "M": 2}, 0)
        arff = weka.Schema.of(frame, len(labels)).text([frame], codes.ravel())
        weka_jvm._start(weka.find_jar(), weka.java_options())
        self.data = weka_jvm._instances(arff)
        self.jvm = weka_jvm

    def fit(self) -> dict[str, Any]:
        classifier = self.jvm._classifier(self.arguments[0], list(self.arguments[1:]))
        started = time.perf_counter()
        classifier.buildClassifier(self.data)
        seconds = time.perf_counter() - started
        return {"seconds": seconds, "leaves": int(classifier.measureNumLeaves())}


class CommandLineJ48:
    """J48 through ``java ... -t train.arff -no-cv``: Weka's own "Time taken to build model"."""

    how = "Weka's \"Time taken to build model\" of one command-line run"

    def __init__(self, frame: pd.DataFrame, y: np.ndarray):
        self.frame, self.y = frame, y

    def fit(self) -> dict[str, Any]:
        from treebench.learners.weka import Schema, classifier_options, parse_model, run_weka

        arguments = classifier_options({"C": 0.25, "M": 2}, 0)
        labels, codes = np.unique(self.y, return_inverse=True)
        with tempfile.TemporaryDirectory(prefix="treebench-c45speed-") as tmp:
            folder = Path(tmp)
            Schema.of(self.frame, len(labels)).write(folder / "train.arff", self.frame, codes.ravel())
            output = run_weka([arguments[0], "-t", "train.arff", "-no-cv", *arguments[1:]], folder)
        build = _BUILD.search(output)
        return {"seconds": float(build.group(1)) if build else float("nan"), "leaves": parse_model(output).n_leaves}


def make_j48(frame: pd.DataFrame, y: np.ndarray) -> InJvmJ48 | CommandLineJ48:
    from treebench.learners.weka_jvm import jpype_missing

    return InJvmJ48(frame, y) if jpype_missing() is None else CommandLineJ48(frame, y)


# --------------------------------------------------------------------------- real data
def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    out = run()
    return time.perf_counter() - started, out


def fit_c45_parts(frame: pd.DataFrame, y: np.ndarray) -> dict[str, Any]:
    """Encoding and grower of one ``C45Classifier().fit(frame, y)``, timed apart."""
    from treebench.trees.c45 import C45Classifier

    model = C45Classifier()
    encode, Z = timed(lambda: model._encode(frame, fit=True))
    grow, _ = timed(lambda: model._fit_encoded(Z, y))
    return {"encode": encode, "grow": grow, "seconds": encode + grow, "leaves": model.tree_.n_leaves}


def fit_sklearn(codes: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    from sklearn.tree import DecisionTreeClassifier

    seconds, model = timed(lambda: DecisionTreeClassifier(random_state=0).fit(codes, y))
    return {"seconds": seconds, "leaves": int(model.get_n_leaves())}


def measure_real(name: str, rounds: int, j48: bool) -> dict[str, Any]:
    """Interleaved rounds of C4.5 (encoding + grower), J48 and scikit-learn on one dataset."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _c45_parity as parity

    from treebench.learners.sklearn_cart import codes_matrix

    ds = parity.load_dataset(name)
    frame, y = ds.X, ds.y
    codes = codes_matrix(frame)
    warm = min(len(y), 2000)
    fit_c45_parts(frame.iloc[:warm], y[:warm])  # numba compilation / cache load outside the timing
    runs: dict[str, list[dict[str, Any]]] = {"C4.5": [], "J48": [], "sklearn": []}
    learner = make_j48(frame, y) if j48 else None
    if learner is not None:  # the JIT compiles J48 on the same data outside the timing
        started = time.perf_counter()
        while True:
            learner.fit()
            if time.perf_counter() - started > WARM_SECONDS:
                break
    for _ in range(rounds):
        runs["C4.5"].append(fit_c45_parts(frame, y))
        if learner is not None:
            runs["J48"].append(learner.fit())
        runs["sklearn"].append(fit_sklearn(codes, y))
    nominal = sum(isinstance(frame[c].dtype, pd.CategoricalDtype) for c in frame.columns)
    return {"shape": frame.shape, "nominal": nominal, "runs": {k: v for k, v in runs.items() if v},
            "j48_how": learner.how if learner is not None else None}


def best(runs: list[dict[str, Any]], key: str = "seconds") -> float:
    return min(r[key] for r in runs)


def cell(runs: list[dict[str, Any]], key: str = "seconds") -> str:
    """Fastest (median) seconds of one learner's runs."""
    values = [r[key] for r in runs]
    digits = 4 if min(values) < 0.1 else 2
    return f"{min(values):.{digits}f} ({statistics.median(values):.{digits}f})"


def report_real(results: dict[str, dict[str, Any]]) -> list[str]:
    how = next((r["j48_how"] for r in results.values() if r["j48_how"]), None)
    lines = [
        f"### C4.5 build time against J48 and scikit-learn on DataFrames ({date.today().isoformat()})",
        "",
        f"Fastest (median) seconds of interleaved rounds; {machine()}; load average {load_average()}.",
        "",
        "| data | rows x cols (nominal) | rounds | C4.5 fit s | encoding s | grower s | J48 build s | "
        "sklearn s | leaves C4.5 / J48 | grower / J48 | fit / J48 | grower / sklearn |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, res in results.items():
        runs = res["runs"]
        c45, sk = runs["C4.5"], runs["sklearn"]
        grow, fit = best(c45, "grow"), best(c45, "seconds")
        if "J48" in runs:
            j48 = best(runs["J48"])
            j48_cells = (cell(runs["J48"]), f"{c45[0]['leaves']} / {runs['J48'][0]['leaves']}",
                         f"{grow / j48:.2f}", f"{fit / j48:.2f}")
        else:
            j48_cells = ("n/a", f"{c45[0]['leaves']} / n/a", "n/a", "n/a")
        rows, cols = res["shape"]
        lines.append(
            f"| {name} | {rows} x {cols} ({res['nominal']}) | {len(c45)} | {cell(c45)} | {cell(c45, 'encode')} | "
            f"{cell(c45, 'grow')} | {j48_cells[0]} | {cell(sk)} | {j48_cells[1]} | {j48_cells[2]} | "
            f"{j48_cells[3]} | {grow / best(sk):.1f} |"
        )
    lines += [
        "",
        "C4.5 fit = encoding (`C45Classifier._encode`: DataFrame to codes) + grower (`_fit_encoded`: "
        f"grow, collapse, prune, Node objects). J48: {how or 'not run'}, after {WARM_SECONDS:g} s of untimed "
        "builds (at least one). "
        "sklearn: `DecisionTreeClassifier(random_state=0)` on the category codes. Ratios use the fastest "
        "times. Issue 27 accepts C4.5 at most 0.5 of J48's build time.",
    ]
    return lines


# --------------------------------------------------------------------------- synthetic data
def fit_c45(X: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    from treebench.trees.c45 import C45Classifier

    seconds, model = timed(lambda: C45Classifier().fit(X, y))
    return {"seconds": seconds, "leaves": model.tree_.n_leaves}


def fit_c50(frame: pd.DataFrame, y: np.ndarray) -> dict[str, Any]:
    from treebench.learners.c50 import C50

    seconds, tree = timed(lambda: C50(0).fit({}, frame, y))
    return {"seconds": seconds, "leaves": tree.size}


def measure_synthetic(rows: int, features: int, repeats: int, j48: bool) -> dict[str, Any]:
    from bench_synthetic import dataset

    X, y = dataset(rows, features)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(features)])
    fit_c45(X[:2000], y[:2000])  # numba compilation / cache load outside the timing
    runs: dict[str, list[dict[str, Any]]] = {"C4.5": [], "C5.0": [], "J48": []}
    for _ in range(repeats):
        runs["C4.5"].append(fit_c45(X, y))
        runs["C5.0"].append(fit_c50(frame, y))
        if j48:
            runs["J48"].append(CommandLineJ48(frame, y).fit())
    return {name: found for name, found in runs.items() if found}


def report_synthetic(results: dict[tuple[int, int], dict[str, Any]], repeats: int) -> list[str]:
    lines = [
        f"### C4.5 fit time against C5.0 and J48 ({date.today().isoformat()})",
        "",
        f"Synthetic dense continuous data (`bench_synthetic.dataset`, 4 classes); {repeats} interleaved "
        f"rounds, fastest (median) seconds; {machine()}; load average {load_average()}.",
        "",
        "| data | C4.5 s | C4.5 leaves | C5.0 s | C5.0 leaves | J48 s | J48 leaves | C4.5 / C5.0 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (rows, features), runs in results.items():
        j48 = (cell(runs["J48"]), str(runs["J48"][0]["leaves"])) if "J48" in runs else ("n/a", "n/a")
        lines.append(
            f"| {rows}x{features} | {cell(runs['C4.5'])} | {runs['C4.5'][0]['leaves']} | {cell(runs['C5.0'])} | "
            f"{runs['C5.0'][0]['leaves']} | {j48[0]} | {j48[1]} | "
            f"{best(runs['C4.5']) / best(runs['C5.0']):.2f} |"
        )
    lines += ["", "J48's seconds are Weka's own \"Time taken to build model\" of one `java ... J48 -t train.arff "
              "-no-cv` run. Leaves: C4.5 and J48 count empty leaves, C5.0's \"Size\" does not."]
    return lines


def parse_size(text: str) -> tuple[int, int]:
    rows, features = text.lower().split("x")
    return int(rows), int(features)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=list(DEFAULT_ROUNDS), metavar="NAME")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per dataset (default: 20 / 2 on kddcup)")
    parser.add_argument("--sizes", nargs="*", default=[], metavar="ROWSxFEATURES", help="synthetic data, e.g. 100000x16")
    parser.add_argument("--repeats", type=int, default=3, help="rounds on synthetic data")
    parser.add_argument("--no-j48", action="store_true", help="skip Weka's J48")
    parser.add_argument("--write", action="store_true", help="write the tables to benchmarks/results.md")
    args = parser.parse_args(argv)
    j48 = not args.no_j48 and j48_available()
    if args.datasets:
        real = {name: measure_real(name, args.rounds or DEFAULT_ROUNDS.get(name, 5), j48) for name in args.datasets}
        lines = report_real(real)
        print("\n".join(lines))
        if args.write:
            write_section(REAL_BEGIN, REAL_END, lines)
    if args.sizes:
        synthetic = {parse_size(text): measure_synthetic(*parse_size(text), args.repeats, j48) for text in args.sizes}
        lines = report_synthetic(synthetic, args.repeats)
        print("\n".join(lines))
        if args.write:
            write_section(BEGIN, END, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
