"""Kernels compiled without reference counting return no array (treebench.kernels.refcount).

Such a kernel holds no reference of its own to the arrays it is handed, so an array it returned
would be owned by nobody.  numba already refuses an allocation in one; the return types are
checked here, for every such kernel that unweighted fits of numeric and nominal columns compile
in a fresh process with an empty kernel cache (a kernel called only from compiled code has its
types only when it is compiled, not when its caller is loaded from the cache).
"""

from __future__ import annotations

import pytest
from cold_process import cold_json
from numba import types

_HOLDS_ARRAY = """
def holds_array(typ):
    if isinstance(typ, types.Array):
        return True
    return isinstance(typ, types.BaseTuple) and any(holds_array(member) for member in typ.types)
"""

_CODE = """
import importlib, json, pkgutil
import numpy as np
from numba import types
from numba.core.registry import CPUDispatcher
import treebench.criteria.builtin, treebench.kernels
from treebench import TreeClassifier
from treebench.kernels.refcount import NO_REFCOUNT

rng = np.random.default_rng(3)
X = np.column_stack([rng.normal(size=300), rng.integers(0, 5, 300), rng.integers(0, 4, 300)]).astype(float)
y = rng.integers(0, 3, 300)
for criterion in ("entropy", "hellinger"):
    TreeClassifier(criterion=criterion).fit(X, y)
    for split in ("multiway", "binary"):
        TreeClassifier(criterion=criterion, nominal_features=[2], nominal_split=split).fit(X, y)
""" + _HOLDS_ARRAY + """
found = {}
for package in (treebench.kernels, treebench.criteria.builtin):
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(package.__name__ + "." + info.name)
        for name, value in vars(module).items():
            if (isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__
                    and value.targetoptions.get("_nrt") is NO_REFCOUNT["_nrt"]):
                found[name] = [[str(s.return_type), holds_array(s.return_type)] for s in value.nopython_signatures]
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def return_types(tmp_path_factory) -> dict[str, list[tuple[str, bool]]]:
    """Each kernel without reference counting: ``(return type, holds an array)`` of each compile."""
    return cold_json(_CODE, tmp_path_factory.mktemp("cold-cache"))


@pytest.mark.slow
def test_the_fits_compile_the_hot_kernels_without_reference_counting(return_types):
    """The kernels the fits run were compiled and seen (else the next test would hold vacuously)."""
    compiled = {name for name, signatures in return_types.items() if signatures}
    assert {"search_node", "partition_two", "partition_multiway", "_scan_rows", "scan_numeric_histogram",
            "_scan_additive", "tabulate_categories", "fill_sorted_row"} <= compiled


@pytest.mark.slow
def test_no_kernel_without_reference_counting_returns_an_array(return_types):
    offenders = [f"{name} -> {typ}" for name, signatures in return_types.items() for typ, array in signatures if array]
    assert offenders == []


def test_an_array_in_a_returned_tuple_is_seen():
    """The check the subprocess makes, on types built here."""
    namespace: dict = {"types": types}
    exec(_HOLDS_ARRAY, namespace)
    holds_array = namespace["holds_array"]
    assert holds_array(types.Tuple([types.int64, types.Array(types.float64, 1, "C")]))
    assert not holds_array(types.UniTuple(types.float64, 3))
