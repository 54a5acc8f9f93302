"""Split criteria: ``get(name, **params)``, ``available()``, and the base class.

Built-in criteria, one module each in :mod:`treebench.criteria.builtin`
(numpy formula, compiled kernel and registration together):
``entropy``, ``gain_ratio``, ``gini`` (the classics), ``tsallis`` and
``tsallis_gain_ratio`` (paper 002), ``certainty`` (paper 003),
``possibilistic`` (paper 000) and ``belief`` (paper 004); ``mee`` (paper
001) grows its own trees (:mod:`treebench.trees.mee`).  The registry loads
them on first use (their compiled code imports numba).  Register a user criterion with
:func:`register`; it runs through the generic numpy split search.
"""

from __future__ import annotations

from treebench.criteria.base import MIN_GAIN, Criterion, Param, SplitContext
from treebench.criteria.registry import available, criterion_class, get, register

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
