"""Array arguments in one form, so each compiled kernel has one specialisation per real difference.

numba compiles a kernel again for every new combination of argument types,
and a read-only array (a pandas ``to_numpy()`` under copy-on-write, a
memory-mapped store, a loaded model) is a different type from a writable
one.  Inputs a kernel only reads are therefore always handed over read-only:
without this, the same fit compiles twice depending on where ``X`` came from
(several seconds of LLVM each for the tree builder).
"""

from __future__ import annotations

import numpy as np


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (no copy; ``array`` itself stays as it was)."""
    view = array.view()
    view.flags.writeable = False
    return view
