"""Fit time and size of MEE trees (paper 001) on the datasets of issue 8.

Run with ``TREEBENCH_DATA=... python benchmarks/bench_mee.py`` (needs the
dataset mirror).  Every dataset is fitted once to compile and warm up, then
``--repeats`` times; the table gives the median seconds per fit and the tree's
nodes, leaves and depth for each reading of the error rates.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from treebench.data import load
from treebench.trees.mee import MEETreeClassifier

DATASETS = ["breast-tissue", "breast-tissue4", "olive", "ecoli-327", "ecoli4", "segment", "glass"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("| dataset | n | error_rates | fit (ms) | nodes | leaves | depth |")
    print("|---|---|---|---|---|---|---|")
    for name in args.datasets:
        ds = load(name)
        X = ds.X.to_numpy(dtype=np.float64)
        y = np.asarray(ds.y)
        for rates in ("joint", "printed"):
            model = MEETreeClassifier(error_rates=rates)
            model.fit(X, y)  # compiles the kernel on the first call
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                model.fit(X, y)
                times.append(time.perf_counter() - start)
            tree = model.tree_
            print(
                f"| {name} | {len(y)} | {rates} | {1000 * statistics.median(times):.1f} | "
                f"{tree.n_nodes} | {tree.n_leaves} | {tree.depth} |"
            )


if __name__ == "__main__":
    main()
