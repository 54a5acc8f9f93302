"""What a cold first fit compiles: no specialisation the fit never runs (issue 40's compile budget).

A fresh process with an empty kernel cache fits one weighted entropy tree and records numba's
compile events.  numba compiles every function a builder's code reaches by type, whether or not
the fit runs it, so a scan a weighted fit never takes, or a second specialisation of a helper,
shows up here as compile time a user pays once per version (benchmarks/bench_first_compile.py
measures the total).
"""

from __future__ import annotations

import pytest
from cold_process import cold_json

pytestmark = pytest.mark.slow

_CODE = """
import json
import numpy as np
from numba.core import event
from treebench import TreeClassifier

recorded = event.RecordingListener()
event.register("numba:compile", recorded)
rng = np.random.default_rng(0)
X = rng.normal(size=(80, 3))
X[:, 2] = np.round(X[:, 2])  # few distinct values: the histogram scan's case, had the fit no weights
y = (X[:, 0] + X[:, 2] > 0).astype(int)
TreeClassifier(criterion="entropy").fit(X, y, sample_weight=rng.uniform(0.5, 1.5, len(y)))
print(json.dumps([
    [e.data["dispatcher"].py_func.__module__ + "." + e.data["dispatcher"].py_func.__qualname__,
     str(e.data["args"])]
    for _, e in recorded.buffer if e.is_start
]))
"""


@pytest.fixture(scope="module")
def weighted_compiles(tmp_path_factory) -> list[tuple[str, str]]:
    """``(function, argument types)`` of every compile of a cold weighted fit."""
    return [tuple(pair) for pair in cold_json(_CODE, tmp_path_factory.mktemp("cold-cache"))]


def _compiles_of(compiles: list[tuple[str, str]], function: str) -> list[str]:
    return [types for name, types in compiles if name == function]


def test_the_weighted_fit_compiled_its_builder(weighted_compiles):
    """The listener saw the compile (else the assertions below would hold vacuously)."""
    assert len(_compiles_of(weighted_compiles, "treebench.kernels.induction.build")) == 1
    assert len(_compiles_of(weighted_compiles, "treebench.kernels.node_split.search_node")) == 1


def test_a_weighted_fit_compiles_no_scan_of_integer_counts(weighted_compiles):
    """The histogram and bounded possibilistic scans, and the tables kept per node, run on integer
    counts only."""
    for function in ("treebench.kernels.scan.scan_numeric_histogram",
                     "treebench.kernels.scan.scan_rank_table",
                     "treebench.kernels.rank_tables.root_tables",
                     "treebench.kernels.rank_tables.split_tables",
                     "treebench.kernels.possibilistic_bound.scan_possibilistic_bounded"):
        assert _compiles_of(weighted_compiles, function) == []


def test_the_split_workspace_compiles_once_per_count_type(weighted_compiles):
    """Not a second time for a literal ``max_cats`` seen on type inference's first pass."""
    compiles = _compiles_of(weighted_compiles, "treebench.kernels.node_split.split_workspace")
    assert len(compiles) == 1 and "Literal" not in compiles[0]
