"""Split criteria: ``get(name, **params)``, ``available()``, and the base class.

Built-in criteria (each with a numba kernel implementing the same formulas):
``entropy``, ``gain_ratio``, ``gini`` (the classics), ``tsallis`` and
``tsallis_gain_ratio`` (paper 002), ``certainty`` (paper 003) and
``possibilistic`` (paper 000); ``belief`` (paper 004, numpy split search
with numba-compiled label-mass sweeps); ``mee`` (paper 001) grows its own trees
(:mod:`treebench.trees.mee`).  Register a user criterion with
:func:`register`; it runs through the generic numpy split search.
"""

from __future__ import annotations

from treebench.criteria.base import MIN_GAIN, Criterion, Param, SplitContext
from treebench.criteria.belief import Belief
from treebench.criteria.certainty import Certainty
from treebench.criteria.classic import Entropy, GainRatio, Gini
from treebench.criteria.mee import MEE
from treebench.criteria.possibilistic import Possibilistic
from treebench.criteria.registry import available, criterion_class, get, register
from treebench.criteria.tsallis import Tsallis, TsallisGainRatio

for _cls in (Entropy, GainRatio, Gini, Tsallis, TsallisGainRatio, Certainty, Possibilistic, MEE, Belief):
    register(_cls)

__all__ = [
    "MIN_GAIN",
    "Criterion",
    "Param",
    "SplitContext",
    "available",
    "criterion_class",
    "get",
    "register",
]
