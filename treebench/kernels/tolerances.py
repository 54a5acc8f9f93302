"""Floating-point tolerances shared by the compiled kernels and the numpy criteria.

Each is defined once, here at the lowest layer, because a kernel and the
numpy reference it re-implements must compare with the same slack to pick
the same splits.  Plain module-level floats, like the column numbers of
:mod:`treebench.kernels.layout`: numba freezes them into the compiled code as
constants (an edit here gives the kernels a new cache folder, see
:mod:`treebench.kernels.kernel_cache`, so every kernel compiles with the new value), and importing
this module costs nothing.
"""

from __future__ import annotations

#: Relative tolerance under which two scores count as tied (``a`` beats ``b``
#: only when ``a > b + TIE_TOLERANCE * max(1, |b|)``; MEE compares error
#: entropies with it as an absolute slack).  Ties go to the first candidate
#: (smallest threshold, then lowest feature index), which makes trees
#: independent of floating-point noise between equivalent formulas.
TIE_TOLERANCE: float = 1e-10

#: Absolute slack of MEE's convexity comparison, so that floating-point noise
#: between equivalent formulas never flips a curve whose two means are equal.
CONVEX_TOLERANCE: float = 1e-12

#: Below this distance from 1, Tsallis' q is treated as 1 (the Shannon limit)
#: to avoid dividing by a vanishing ``q - 1``.
Q_ONE_TOLERANCE: float = 1e-9

#: A split information at or below this is no split information (a single
#: non-empty branch): the gain ratio of such a split is ``-inf``.
SPLIT_INFO_FLOOR: float = 1e-12
