"""Paper 001's side experiments, computed once per process for the claims and the sections that show them.

Fig. 5 (MEE trees cut at each level over repeated 80/20 splits), section 4
(MEE against information gain on small uniform samples) and the trees grown on
a whole dataset (Fig. 2's merged class sets) are not trials of the store: the
report's claims grade them and its sections draw them, under every reading of
the report, so each is run once and kept here.  Only runs with the default
data loader are kept (a test's own loader is never cached).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: Keyed results of the runs below (one process: one report build).
_CACHE: dict[tuple[Any, ...], Any] = {}


def _key(*parts: Any) -> tuple[Any, ...]:
    return tuple(tuple(sorted(p.items())) if isinstance(p, dict) else p for p in parts)


def cached(key: tuple[Any, ...], compute: Any, use_cache: bool = True) -> Any:
    """``compute()`` once per ``key`` (every time when ``use_cache`` is false)."""
    if not use_cache:
        return compute()
    if key not in _CACHE:
        _CACHE[key] = compute()
    return _CACHE[key]


def clear() -> None:
    """Forget every kept run (tests)."""
    _CACHE.clear()


def dataset_levels(name: str, repetitions: int = 50, seed: int = 5, loader: Any = None,
                   **mee_params: Any) -> pd.DataFrame:
    """Fig. 5 on one dataset: :func:`~treebench.papers.mee.sections.level_errors` of its MEE trees."""
    from treebench.papers.mee.sections import level_errors

    def compute() -> pd.DataFrame:
        load = loader
        if load is None:
            from treebench.data import load
        data = load(name)
        return level_errors(data.X, data.y, repetitions=repetitions, seed=seed, **mee_params)

    return cached(_key("levels", name, repetitions, seed, mee_params), compute, loader is None)


def versus_ig_batches(batches: int, runs: int, per_class: int, seed: int,
                      readings: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Section 4's batches (batch ``b`` seeded ``seed + b``), each reading's :class:`VersusIG` per batch.

    Each reading is run and kept on its own (the samples do not depend on it), so a claim that needs
    the default alone does not pay for the section's other readings.
    """
    from treebench.papers.mee.sections import mee_vs_ig_readings

    out: list[dict[str, Any]] = [{} for _ in range(batches)]
    for label, params in readings.items():
        def compute(params: dict[str, Any] = params) -> list[Any]:
            return [mee_vs_ig_readings(runs, per_class, seed + b, {"": params})[""] for b in range(batches)]

        for b, result in enumerate(cached(_key("versus_ig", batches, runs, per_class, seed, params), compute)):
            out[b][label] = result
    return out


@dataclass(frozen=True)
class Difference:
    """One section-4 run where the MEE root splits on another feature than the information-gain root.

    Attributes
    ----------
    ig_unsplit_by_mee
        MEE finds no valid split on the feature information gain chose (Fig. 3: "no valid minimum is
        found for x1").
    imbalance_mee, imbalance_ig
        ``|e_0 - e_1|``, the gap between the two classes' training error rates of each root split
        (Fig. 4: MEE's errors "more balanced", IG's good on one class at the other's cost).
    """

    ig_unsplit_by_mee: bool
    imbalance_mee: float
    imbalance_ig: float


def _imbalance(predicted: np.ndarray, y: np.ndarray) -> float:
    rates = [float(np.mean(predicted[y == c] != c)) for c in (0, 1)]
    return abs(rates[0] - rates[1])


def versus_ig_differences(batches: int = 5, runs: int = 1000, per_class: int = 10, seed: int = 4,
                          **mee_params: Any) -> list[Difference]:
    """The runs of section 4's batches (the samples of :func:`versus_ig_batches`) where MEE and IG differ.

    The samples are drawn exactly as :func:`~treebench.papers.mee.sections.mee_vs_ig_readings` draws
    them (one generator per batch, two uniform features per run), so the differing runs are those its
    counts report.
    """
    from treebench.papers.mee.sections import PAPER_MEE, root_feature
    from treebench.trees.estimator import TreeClassifier
    from treebench.trees.mee import MEETreeClassifier

    def compute() -> list[Difference]:
        params = {**PAPER_MEE, **mee_params}
        y = np.repeat([0, 1], per_class)
        out = []
        for b in range(batches):
            rng = np.random.default_rng(seed + b)
            for _ in range(runs):
                X = rng.uniform(size=(2 * per_class, 2))
                ig_model = TreeClassifier(criterion="entropy", max_depth=1).fit(X, y)
                mee_model = MEETreeClassifier(max_depth=1, **params).fit(X, y)
                ig, mee = root_feature(ig_model), root_feature(mee_model)
                if mee < 0 or ig < 0 or mee == ig:
                    continue
                alone = MEETreeClassifier(max_depth=1, **params).fit(X[:, [ig]], y)
                out.append(Difference(root_feature(alone) < 0, _imbalance(mee_model.predict(X), y),
                                      _imbalance(ig_model.predict(X), y)))
        return out

    return cached(_key("differences", batches, runs, per_class, seed, mee_params), compute)


def full_tree(name: str, loader: Any = None, **mee_params: Any) -> Any:
    """The MEE tree (default reading) grown on every case of dataset ``name``."""
    from treebench.papers.mee.sections import PAPER_MEE
    from treebench.trees.mee import MEETreeClassifier

    def compute() -> Any:
        load = loader
        if load is None:
            from treebench.data import load
        data = load(name)
        return MEETreeClassifier(**{**PAPER_MEE, **mee_params}).fit(data.X, data.y)

    return cached(_key("tree", name, mee_params), compute, loader is None)
