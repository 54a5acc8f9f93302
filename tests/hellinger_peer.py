"""river's Hellinger distance as the peer of treebench's, on random two-class tables (shared by the
criterion's tests and the oracle's)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest


def river_criterion() -> Any:
    """river's ``HellingerDistanceCriterion`` class, or a skip when river is not installed."""
    try:
        from river.tree.split_criterion import HellingerDistanceCriterion
    except ImportError:
        pytest.skip("river is not installed (pip install 'river>=0.21'): the peer comparison needs it")
    return HellingerDistanceCriterion


def two_class_tables(seed: int = 43, per_kind: int = 300) -> Iterator[tuple[np.ndarray, list[dict[int, float]]]]:
    """Random 2 x 2 tables (branches x classes), integer then weighted, each with river's form of it.

    river reads ``dist[branch][0]`` and ``dist[branch][1]`` and is right for labels 0/1 given in every
    branch's dict, zero counts included (investigations/hellinger_river.py shows the other cases);
    tables with a class absent from the node are left out.
    """
    rng = np.random.default_rng(seed)
    for integer in (True, False):
        for _ in range(per_kind):
            table = rng.integers(0, 50, size=(2, 2)).astype(float) if integer else rng.gamma(0.5, 30, size=(2, 2))
            if np.any(table.sum(axis=0) == 0):
                continue
            yield table, [{0: table[j, 0], 1: table[j, 1]} for j in range(2)]
