"""Compile (or load) the kernels of each group by fitting one tiny model that uses them.

numba compiles a kernel on its first call with a new signature; a run that leaves this to
its first trials shows a frozen progress bar (and an ETA inflated by the compile).  A run
calls :func:`warm_group` for each group :mod:`treebench.kernels.readiness` reports uncached,
under its own progress line, before the trials start; a later trial then finds every kernel
on disk.  Each warmer goes through the estimators' public ``fit``/``predict`` so that it
compiles exactly the signatures real fits use.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd


def _data(n: int = 24) -> tuple[pd.DataFrame, np.ndarray]:
    """Numbers with ties and a missing value, a nominal column, three classes."""
    rng = np.random.default_rng(0)
    y = np.arange(n) % 3
    X = pd.DataFrame({
        "x": y + rng.normal(0.0, 0.3, n),
        "z": np.round(rng.normal(size=n), 1),
        "c": pd.Categorical(np.array(["a", "b", "c", "a"])[np.arange(n) % 4]),
    })
    return X, y


def _tree() -> None:
    from treebench.trees.model import TreeModel  # TreeClassifier's kernels, without scikit-learn

    X, y = _data()
    for criterion in ("entropy", "possibilistic"):
        TreeModel(criterion).fit(X, y).predict(X)
        TreeModel(criterion).fit(X[["x", "z"]].to_numpy(), y).predict(X[["x", "z"]].to_numpy())
    TreeModel("entropy", feature_ties="random", random_state=0).fit(X, y)  # the seeded tie draws
    TreeModel("entropy").fit(*_rows_for_tables())  # the builder's specialisation that keeps tables


def _rows_for_tables() -> tuple[np.ndarray, np.ndarray]:
    """Enough rows of few values for a fit to keep (rank, class) tables (:mod:`treebench.kernels.rank_tables`)."""
    from treebench.kernels.rank_tables import TABLES_MIN_ROWS

    y = np.arange(TABLES_MIN_ROWS) % 3
    return np.column_stack([y % 2, np.arange(TABLES_MIN_ROWS) % 5]).astype(np.float64), y


def _large() -> None:
    from treebench.trees.model import TreeModel  # TreeClassifier's kernels, without scikit-learn

    n = 70_000  # more distinct values than 16-bit ranks hold
    x = np.arange(n, dtype=np.float64)[:, None]
    TreeModel("entropy", max_depth=1).fit(x, (np.arange(n) % 2)).predict(x[:5])


def _pruning() -> None:
    from treebench.trees.model import TreeModel  # TreeClassifier's kernels, without scikit-learn

    X, y = _data()
    TreeModel("entropy", pruning="pessimistic").fit(X, y)
    TreeModel("gini", pruning="cost-complexity").fit(X, y)


def _c45() -> None:
    from treebench.trees.c45 import C45Classifier

    X, y = _data()
    C45Classifier().fit(X, y).predict(X)  # whole cases: the presorted grower
    holed = X.copy()
    holed.loc[::5, "x"] = np.nan
    C45Classifier().fit(holed, y).predict(holed)  # missing values: fractional cases


def _mee() -> None:
    from treebench.trees.mee import MEETreeClassifier

    X, y = _data(60)
    MEETreeClassifier().fit(X[["x", "z"]], y).predict(X[["x", "z"]])
    # feature_ties="random" runs the same compiled node loop (one signature), with its tie pass
    MEETreeClassifier(feature_ties="random", random_state=0).fit(X[["x", "z"]], y)


def _online() -> None:
    from treebench.trees.online import OnlineTreeClassifier

    X, y = _data()
    model = OnlineTreeClassifier("possibilistic")
    for start in range(0, len(y), 6):
        model.partial_fit(X.iloc[start:start + 6], y[start:start + 6], classes=[0, 1, 2])
    model.predict(X)


def _belief() -> None:
    from treebench.trees.belief import BeliefTreeClassifier

    X, y = _data()
    masses = np.zeros((len(y), 3))
    masses[np.arange(len(y)), y % 2] = 0.7  # two classes, some mass on "don't know"
    masses[:, 2] = 0.3
    two = y % 2
    BeliefTreeClassifier().fit(X, two).predict(X)
    BeliefTreeClassifier().fit(X, two, label_masses=masses).predict(X)


def _whole_split() -> None:
    from treebench.criteria.builtin import criterion_classes, is_whole_split
    from treebench.trees.model import TreeModel

    X, y = _data()
    # the builder's whole-split specialisation: only a criterion scored whole compiles it, and every
    # such criterion shares it (the marker's type is the same), so the first one found warms it
    whole = next((cls.name for cls in criterion_classes() if is_whole_split(cls.kernel_id)), None)
    if whole is not None:
        TreeModel(whole).fit(X, y).predict(X)
        TreeModel(whole).fit(*_rows_for_tables())  # and the one that keeps tables


#: How each kernel group of :mod:`treebench.kernels.readiness` is warmed.
WARMERS: dict[str, Callable[[], None]] = {
    "tree": _tree, "large": _large, "pruning": _pruning, "c4.5": _c45, "mee": _mee, "online": _online,
    "belief": _belief, "whole-split": _whole_split,
}


def warm_group(group: str) -> None:
    """Fit the tiny models that load (compiling first if needed) the kernels of ``group``."""
    WARMERS[group]()
