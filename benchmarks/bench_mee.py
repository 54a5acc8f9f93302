"""Fit time of MEE trees (paper 001) against scikit-learn's entropy tree, and its growth with n.

Run with ``TREEBENCH_DATA=... python benchmarks/bench_mee.py`` (needs the
dataset mirror).  Everything is measured in this one process, the fits
interleaved and the best of ``--repeats`` kept (the machine may be shared):

* ``ratio``: the MEE tree's fit (default parameters) over
  ``DecisionTreeClassifier(criterion="entropy")``'s on the same data, for
  segment and pendigits (``--ratio-datasets``);
* ``growth``: MEE fit time on stratified-free random subsamples of growing
  size and the exponent ``b`` of ``time ~ n^b`` fitted by least squares on
  the log-log points (pendigits 2k, 5k, 10k at the defaults; letter 2k to 20k
  with ``max_merged=1``: its 26 classes give too many class sets otherwise);
* ``--per-node``: the per-node builder (the oracle of the tests) beside the
  compiled node loop, for the before/after of the rewrite (slow).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import numpy as np
from _measure import load_average, machine, write_section
from sklearn.tree import DecisionTreeClassifier

from treebench.data import load
from treebench.trees.mee import MEE, MEETreeClassifier, grow_mee_per_node

RATIO_DATASETS = ["segment", "pendigits"]
#: (dataset, sizes, MEE parameters) of the growth series
GROWTH = [
    ("pendigits", [2000, 5000, 10000], {}),
    ("letter", [2000, 5000, 10000, 20000], {"max_merged": 1}),
]


def best_times(fits: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Best-of-``repeats`` seconds of each fit, the fits interleaved round by round."""
    best = dict.fromkeys(fits, np.inf)
    for _ in range(repeats):
        for name, fit in fits.items():
            started = time.perf_counter()
            fit()
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def matrix(name: str) -> tuple[np.ndarray, np.ndarray]:
    ds = load(name)
    return ds.X.to_numpy(dtype=np.float64), np.asarray(ds.y)


def exponent(sizes: list[int], seconds: list[float]) -> float:
    """Slope of log(seconds) on log(n): the ``b`` of ``time ~ n^b``."""
    return float(np.polyfit(np.log(sizes), np.log(seconds), 1)[0])


def ratio_rows(names: list[str], repeats: int, per_node: bool) -> list[str]:
    rows = []
    for name in names:
        X, y = matrix(name)
        mee = MEETreeClassifier()
        sk = DecisionTreeClassifier(criterion="entropy", random_state=0)
        mee.fit(X[:200], y[:200])  # compile or load the kernels outside the timing
        fits = {"mee": partial(mee.fit, X, y), "sklearn": partial(sk.fit, X, y)}
        if per_node:
            codes = np.unique(y, return_inverse=True)[1]
            fits["per-node"] = partial(grow_mee_per_node, X, codes, int(codes.max()) + 1, MEE())
        t = best_times(fits, repeats if not per_node else max(1, repeats // 3))
        tree = mee.tree_
        extra = f" {1000 * t['per-node']:.0f} | {t['per-node'] / t['mee']:.1f} |" if per_node else ""
        rows.append(
            f"| {name} | {len(y)} | {1000 * t['mee']:.1f} | {1000 * t['sklearn']:.1f} | "
            f"{t['mee'] / t['sklearn']:.2f} | {tree.n_leaves} | {tree.depth} |{extra}"
        )
    return rows


def growth_rows(repeats: int, seed: int) -> list[str]:
    rows = []
    for name, sizes, params in GROWTH:
        X, y = matrix(name)
        rng = np.random.default_rng(seed)
        sizes = [s for s in sizes if s <= len(y)] or [len(y)]
        seconds = []
        for size in sizes:
            rows_at = rng.permutation(len(y))[:size]
            Xs, ys = X[rows_at], y[rows_at]
            mee = MEETreeClassifier(**params)
            sk = DecisionTreeClassifier(criterion="entropy", random_state=0)
            mee.fit(Xs[:200], ys[:200])
            t = best_times({"mee": partial(mee.fit, Xs, ys), "sklearn": partial(sk.fit, Xs, ys)}, repeats)
            seconds.append(t["mee"])
            rows.append(
                f"| {name} {params or ''} | {size} | {1000 * t['mee']:.1f} | {t['mee'] / t['sklearn']:.2f} | "
                f"{mee.tree_.n_leaves} | {mee.tree_.depth} |"
            )
        rows.append(f"| {name}: exponent b of time ~ n^b | {sizes[0]}-{sizes[-1]} | **{exponent(sizes, seconds):.2f}** | | | |")
    return rows


BEGIN, END = "<!-- bench_mee -->", "<!-- /bench_mee -->"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratio-datasets", nargs="+", default=RATIO_DATASETS)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-node", action="store_true", help="also time the per-node builder (slow)")
    parser.add_argument("--no-growth", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="Print only; leave results.md alone.")
    args = parser.parse_args()
    extra = " per-node (ms) | per-node / compiled |" if args.per_node else ""
    lines = [
        "## MEE trees (paper 001) against scikit-learn's entropy tree",
        "",
        f"{machine()}; load {load_average()} at the start; best of {args.repeats} interleaved fits in one process.",
        "",
        f"| dataset | n | MEE fit (ms) | sklearn entropy (ms) | ratio | leaves | depth |{extra}",
        "|---|---|---|---|---|---|---|" + ("---|---|" if args.per_node else ""),
        *ratio_rows(args.ratio_datasets, args.repeats, args.per_node),
    ]
    if not args.no_growth:
        lines += ["", "| growth | n | MEE fit (ms) | ratio to sklearn | leaves | depth |", "|---|---|---|---|---|---|",
                  *growth_rows(args.repeats, args.seed)]
    print("\n".join(lines))
    if not args.no_write:
        write_section(BEGIN, END, lines)


if __name__ == "__main__":
    main()
