"""Split criteria: ``get(name, **params)``, ``available()``, and the base class.

Built-in criteria, one module each in :mod:`treebench.criteria.builtin`
(numpy formula, compiled kernel and registration together):
``entropy``, ``gain_ratio``, ``gini`` (the classics), ``tsallis`` and
``tsallis_gain_ratio`` (paper 002), ``certainty`` (paper 003),
``possibilistic`` (paper 000) and ``belief`` (paper 004); ``mee`` (paper
001) grows its own trees (:mod:`treebench.trees.mee`).  Register a user criterion with
:func:`register`; it runs through the generic numpy split search.
"""

from __future__ import annotations

from treebench.criteria.base import MIN_GAIN, Criterion, Param, SplitContext
from treebench.criteria.builtin import criterion_classes
from treebench.criteria.mee import MEE
from treebench.criteria.registry import available, criterion_class, get, register

for _cls in (*criterion_classes(), MEE):
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
