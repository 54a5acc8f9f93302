"""numba-compiled kernels: split scoring, induction, traversal.

This layer knows nothing of criteria objects, estimators or experiments: it
takes and returns plain arrays.  Kernels are cached on disk (``cache=True``) so
a CLI call does not pay the compilation again.
"""
