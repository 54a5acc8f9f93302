"""Seeds of the trees' random choices, drawn from an estimator's ``random_state``."""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from treebench.errors import TreebenchError

#: Mixed into an integer ``random_state`` for the tie draws, so that an online
#: tree's arrival order (``default_rng(random_state)``) and its ties are independent streams.
_TIE_STREAM = 0x7469655F62726B  # "tie_brk"

_ACCEPTED = "None, an integer >= 0, a numpy Generator or RandomState"


def tie_seed(random_state: Any) -> int:
    """A 64-bit seed for ``feature_ties="random"``'s stream from ``random_state``.

    An integer gives always the same seed (mixed with a constant, see
    ``_TIE_STREAM``); a ``Generator`` or ``RandomState`` is drawn from (and
    advanced); ``None`` takes fresh entropy, as scikit-learn's ``None`` does.

    Raises
    ------
    TreebenchError
        For any other ``random_state``, naming the accepted values.
    """
    state = random_state
    if isinstance(state, np.random.RandomState):
        return int(state.randint(0, np.iinfo(np.int64).max, dtype=np.int64))
    if isinstance(state, np.random.Generator):
        return int(state.integers(np.iinfo(np.int64).max))
    if state is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    if isinstance(state, Integral) and not isinstance(state, bool) and state >= 0:
        return int(np.random.SeedSequence([int(state), _TIE_STREAM]).generate_state(1, np.uint64)[0])
    raise TreebenchError(f"random_state={state!r} is invalid; accepted: {_ACCEPTED}")
