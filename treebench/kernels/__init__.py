"""numba-compiled kernels: split scoring, induction, traversal.

This layer knows nothing of criteria objects, estimators or experiments: it
takes and returns plain arrays.  A criterion's formulas reach it through
:mod:`treebench.kernels.dispatch`, generated from the compiled functions of
the built-in criterion modules (:mod:`treebench.criteria.builtin`).  Kernels are cached on disk (``cache=True``) so
a CLI call does not pay the compilation again.
"""
