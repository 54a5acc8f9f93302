"""numba-compiled kernels: split scoring, induction, traversal.

This layer knows nothing of criteria objects, estimators or experiments: it
takes and returns plain arrays.  A criterion's formulas reach it through
:mod:`treebench.kernels.dispatch`, generated from the compiled functions of
the built-in criterion modules (:mod:`treebench.criteria.builtin`).  Kernels are cached on disk (``cache=True``) so
a CLI call does not pay the compilation again.

The kernels of the tree builders and the online learner are declared
``no_cfunc_wrapper=True`` (no first-class-function wrapper: no kernel is handed
around as a function value), and those called only from compiled code also
``no_cpython_wrapper=True`` (no entry point from Python: ``split_workspace``'s
wrapper, boxing a tuple of sixteen arrays, alone took half a second): numba
builds and optimises each wrapper on a first compile for nothing (a cold
batch fit's compile went from 34.8 to 33.1 CPU s, medians of 4 interleaved
rounds).  A function a test or Python code calls keeps its Python wrapper.
Those called once per node and feature are also compiled without reference
counting (``**NO_REFCOUNT``, :mod:`treebench.kernels.refcount`).
"""

from treebench.kernels.kernel_cache import install_when_numba_loads

# before any kernel module defines a cached function: numba picks a function's cache folder then
install_when_numba_loads()
