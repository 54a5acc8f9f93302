"""One spelling for every class label and category level, whatever the source.

The same dataset can arrive as text (a CSV mirror, a UCI file), as typed values
(an ARFF file, OpenML's DataFrame) or as numbers (scikit-learn's bundled data).
Labels are compared across those sources and against the card, so they are
normalised here once: booleans become ``true``/``false``, integral numbers lose
a trailing ``.0``, surrounding blanks go.  Everything else is kept as written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import numpy as np

_INTEGRAL = re.compile(r"^[+-]?\d+(?:\.0*)?$")


def as_label(value: Any) -> str:
    """Return the canonical text of one label or category value.

    Parameters
    ----------
    value
        A string, number or boolean (numpy scalars included); not missing.

    Returns
    -------
    str
        ``"true"``/``"false"`` for booleans, ``"3"`` for ``3``, ``3.0`` and
        ``"3.0"``, ``repr`` for other floats, the stripped text otherwise.
    """
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        if math.isfinite(number) and number.is_integer():
            return str(int(number))
        return repr(number)
    text = str(value).strip()
    if _INTEGRAL.match(text):
        # "3", "3.0" and "+3" are one label; the sign only matters when negative
        return str(int(float(text)))
    return text


def is_missing(value: Any) -> bool:
    """True for None and float NaN (pandas' NA markers included)."""
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, pd.NA raises TypeError below
    except TypeError:
        return True


def natural_order(labels: Iterable[str]) -> list[str]:
    """Sort labels numerically when they are all numbers, else as text.

    Keeps ``1, 2, ..., 10`` (abalone's ring counts) in number order instead of
    ``1, 10, 11, 2``.
    """
    unique = sorted(set(labels))
    try:
        return sorted(unique, key=float)
    except ValueError:
        return unique
