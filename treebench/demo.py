"""``treebench demo``: a small cross-validated comparison on bundled data.

Runs offline on the datasets shipped inside scikit-learn, so a fresh install
can check that everything works and see what treebench reports.
"""

from __future__ import annotations

import time

import click
import numpy as np

DATASETS = ("iris", "wine")


def algorithms() -> dict:
    """Label -> factory of a fresh estimator (imports kept out of CLI start-up)."""
    from sklearn.tree import DecisionTreeClassifier

    from treebench.trees.estimator import TreeClassifier

    return {
        "entropy (ID3)": lambda: TreeClassifier("entropy"),
        "gain_ratio (C4.5)": lambda: TreeClassifier("gain_ratio"),
        "gini (CART)": lambda: TreeClassifier("gini"),
        "tsallis q=0.5": lambda: TreeClassifier("tsallis", q=0.5),
        "certainty": lambda: TreeClassifier("certainty"),
        "possibilistic g=0.05": lambda: TreeClassifier("possibilistic", gamma=0.05),
        "sklearn CART (entropy)": lambda: DecisionTreeClassifier(criterion="entropy", random_state=0),
    }


def load_bundled(name: str) -> tuple[np.ndarray, np.ndarray]:
    from sklearn import datasets

    return getattr(datasets, f"load_{name}")(return_X_y=True)


def cross_validate(make, X: np.ndarray, y: np.ndarray, folds: int, seed: int) -> tuple[list[float], list[int], float]:
    """Accuracy and leaf count per fold, and total fit seconds."""
    from sklearn.model_selection import StratifiedKFold

    accuracies, leaves, seconds = [], [], 0.0
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, y):
        model = make()
        started = time.perf_counter()
        model.fit(X[train], y[train])
        seconds += time.perf_counter() - started
        accuracies.append(float((model.predict(X[test]) == y[test]).mean()))
        leaves.append(int(model.get_n_leaves()))
    return accuracies, leaves, seconds


@click.command()
@click.option("--folds", default=10, show_default=True, type=click.IntRange(2, 50))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1),
              help="Seed of the folds: 0 to 2**32 - 1, the range numpy accepts.")
def demo(folds: int, seed: int) -> None:
    """Compare the built-in criteria by cross-validation on iris and wine (offline)."""
    click.echo(f"{folds}-fold stratified CV, seed {seed}; accuracy % mean ± std, mean leaves\n")
    header = f"| {'algorithm':24s} | " + " | ".join(f"{name:>22s}" for name in DATASETS) + " |"
    click.echo(header)
    click.echo("|" + "-" * 26 + "|" + "|".join("-" * 24 for _ in DATASETS) + "|")
    data = {name: load_bundled(name) for name in DATASETS}
    for label, make in algorithms().items():
        cells = []
        for X, y in data.values():
            acc, leaves, _ = cross_validate(make, X, y, folds, seed)
            cells.append(f"{100 * np.mean(acc):5.1f} ± {100 * np.std(acc):4.1f} ({np.mean(leaves):4.1f} lv)")
        click.echo(f"| {label:24s} | " + " | ".join(f"{c:>22s}" for c in cells) + " |")
