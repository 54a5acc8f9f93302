"""The sequential best-cut scan of Weka's ``C45Split`` (J48), as a numba kernel.

J48 keeps a running best and replaces it only when a later value beats it by more than
``Utils.SMALL`` (1e-6), so the winner is not simply the arg-max: a value within 1e-6 of an
earlier best loses.  The scan is inherently sequential; in numpy it costs one pass per record.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def first_record(values: np.ndarray, start: float, slack: float) -> int:
    """Index of the last running record, a record beating the previous one by more than ``slack``.

    Parameters
    ----------
    values:
        The scanned values, in scan order.
    start:
        The running best before the first value.
    slack:
        How much a value must exceed the running best to replace it.

    Returns
    -------
    int
        The position of the final best, -1 when no value beats ``start``.
    """
    best = start
    index = -1
    for i in range(values.shape[0]):
        if values[i] - best > slack:
            best = values[i]
            index = i
    return index
