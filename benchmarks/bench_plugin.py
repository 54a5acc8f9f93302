"""Fit time of a plugin criterion against built-in entropy on 20,000 x 10 (issue 21).

The two Rényi criteria of ``docs/criteria.md`` ("Plugins") are used as written
there: ``renyi`` (plain numpy, the numpy engine ``trees/generic.py``) and
``renyi_fast`` (an ``ImpurityCriterion`` with a ``numba.njit`` impurity).  Rows:

- ``entropy``: ``TreeClassifier("entropy")``, the compiled built-in builder;
- ``renyi (numpy engine)``: the numpy plugin through ``TreeClassifier``;
- ``renyi_fast (numpy engine)``: the same engine (``engine="python"``), split scores compiled;
- ``renyi_fast (TreeClassifier)``: ``TreeClassifier`` as a user calls it, which hands numeric,
  finite, unweighted data to ``ImpurityCriterion.grow_compiled`` (``trees/builder.py``);
- ``renyi_fast (compiled scan)``: ``ImpurityCriterion.grow_compiled`` called directly.

Every row is warmed up (compiled) first; the times are medians of
``--repeats`` fits.  The compiled scan's tree is checked to be identical to
the numpy engine's.  Run: ``python benchmarks/bench_plugin.py``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path

import numpy as np

from treebench.criteria import available, get
from treebench.trees.estimator import TreeClassifier

DOCS = Path(__file__).resolve().parents[1] / "docs" / "criteria.md"


def load_doc_criteria() -> None:
    """Register ``renyi`` and ``renyi_fast`` from the blocks of docs/criteria.md."""
    text = DOCS.read_text(encoding="utf-8")
    for name in ("renyi.py", "renyi_fast.py"):
        block = re.search(rf"```python\n# {re.escape(name)}\n(.*?)```", text, flags=re.S).group(1)
        if name[:-3] not in available():
            exec(compile(block, f"docs/criteria.md ({name})", "exec"), {"__name__": name[:-3]})


def data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Three classes from a noisy interaction of four features; values rounded to 0.01 (ties, as in real columns)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 2)
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n)) > 0).astype(int) + (X[:, 3] > 0.5)
    return X, y


def median_seconds(fit, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = fit()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--numpy-repeats", type=int, default=1, help="Repeats of the (slow) numpy-engine rows.")
    args = parser.parse_args(argv)
    load_doc_criteria()
    X, y = data(args.rows, args.features)
    fast = get("renyi_fast", alpha=2.0)
    small = slice(0, 300)
    TreeClassifier("entropy").fit(X[small], y[small])  # warm-up: load or compile
    fast.grow_compiled(X[small], y[small], 3)
    TreeClassifier(fast).fit(X[small], y[small])

    rows = []
    seconds, _ = median_seconds(lambda: TreeClassifier("entropy").fit(X, y), args.repeats)
    rows.append(("entropy", seconds))
    base = seconds
    seconds, _ = median_seconds(lambda: TreeClassifier("renyi", alpha=2.0).fit(X, y), args.numpy_repeats)
    rows.append(("renyi (numpy engine)", seconds))
    seconds, reference = median_seconds(lambda: TreeClassifier(fast, engine="python").fit(X, y), args.numpy_repeats)
    rows.append(("renyi_fast (numpy engine)", seconds))
    seconds, _ = median_seconds(lambda: TreeClassifier(fast).fit(X, y), args.repeats)
    rows.append(("renyi_fast (TreeClassifier)", seconds))
    seconds, arrays = median_seconds(lambda: fast.grow_compiled(X, y, 3), args.repeats)
    rows.append(("renyi_fast (compiled scan)", seconds))
    tree = reference.tree_
    same = all(
        np.array_equal(a, b) for a, b in zip(arrays, (tree.int_nodes, tree.float_nodes, tree.counts, tree.catmap))
    )
    print(f"{args.rows} x {args.features}, 3 classes; median of {args.repeats} fits ({args.numpy_repeats} for numpy rows)")
    print("| criterion | fit (s) | x entropy |")
    print("|---|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.3f} | {seconds / base:.2f} |")
    print(f"compiled scan's tree identical to the numpy engine's: {same} ({tree.int_nodes.shape[0]} nodes)")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
