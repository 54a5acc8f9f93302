"""Small compiled helpers shared by the criterion modules and the kernels.

They sit below :mod:`treebench.kernels.dispatch` (the generated dispatch on
the built-in criteria), so a criterion module can use them without an
import loop through the kernels that dispatch to it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

LOG2 = math.log(2.0)


@njit(cache=True, no_cfunc_wrapper=True, inline="always")
def insert_sorted(ascending: np.ndarray, filled: int, value: Any) -> None:
    """Insert ``value`` into the increasing ``ascending[:filled]`` (one step of an insertion sort)."""
    j = filled - 1
    while j >= 0 and ascending[j] > value:
        ascending[j + 1] = ascending[j]
        j -= 1
    ascending[j + 1] = value
