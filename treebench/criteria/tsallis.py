"""Tsallis entropy gain and Tsallis gain ratio: their former home (paper 002).

Each now lives in its own module of :mod:`treebench.criteria.builtin`
(``tsallis``, ``tsallis_gain_ratio``); the names stay importable from here.
"""

from __future__ import annotations

from treebench.criteria.builtin.tsallis import Q_PARAM, Tsallis, tsallis_rows
from treebench.criteria.builtin.tsallis_gain_ratio import TsallisGainRatio

__all__ = ["Q_PARAM", "Tsallis", "TsallisGainRatio", "tsallis_rows"]
