"""numba-compiled kernels: split scoring, induction, traversal.

This layer knows nothing of criteria objects, estimators or experiments: it
takes and returns plain arrays.  A criterion's formulas reach it through
:mod:`treebench.kernels.dispatch`, generated from the compiled functions of
the built-in criterion modules (:mod:`treebench.criteria.builtin`).  Kernels are cached on disk (``cache=True``) so
a CLI call does not pay the compilation again.
"""

from treebench.kernels.kernel_cache import install_when_numba_loads

# before any kernel module defines a cached function: numba picks a function's cache folder then
install_when_numba_loads()
