"""The classic criteria's former home: ID3 information gain, C4.5 gain ratio, CART Gini.

Each now lives in its own module of :mod:`treebench.criteria.builtin`
(``entropy``, ``gain_ratio``, ``gini``); the names stay importable from here.
"""

from __future__ import annotations

from treebench.criteria.builtin.entropy import Entropy, shannon_rows
from treebench.criteria.builtin.gain_ratio import GainRatio, ratio_or_invalid, split_information
from treebench.criteria.builtin.gini import Gini, gini_rows

__all__ = ["Entropy", "GainRatio", "Gini", "gini_rows", "ratio_or_invalid", "shannon_rows", "split_information"]
