"""Which positions of a sorted scan are candidates, and when one beats another.

Split from :mod:`treebench.kernels.scan` so that the label-mass sweeps
(:mod:`treebench.kernels.belief`), which a criterion module calls, do not
import the scans that dispatch on the criterion modules (an import loop).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebench.kernels.tolerances import TIE_TOLERANCE


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def better(score: float, best: float) -> bool:
    """Strictly better beyond the tie tolerance (ties keep the earlier candidate)."""
    if best == -np.inf:
        return score > -np.inf
    return score > best + TIE_TOLERANCE * max(1.0, abs(best))


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def ties(a: float, b: float) -> bool:
    """Equal within the tie tolerance."""
    return not better(a, b) and not better(b, a)


#: What :func:`candidate_step` says about a position of the sorted scan.
SKIP, STOP, SCORE = 0, 1, 2


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def candidate_step(n_left: int, n: int, min_leaf: int, here: int, after: int, missing: int) -> int:
    """Whether the cut after the current position is scored, skipped or ends the scan (scalars only).

    Too few samples on the left: skip; too few on the right, or the current
    value is missing (missing values sort last and go right): stop; the next
    value equal to this one: no cut between them, skip.
    """
    if n_left < min_leaf:
        return SKIP
    if n - n_left < min_leaf or here == missing:
        return STOP
    return SKIP if after == here else SCORE


