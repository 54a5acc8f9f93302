"""The possibilistic cumulative entropy's former home (paper 000): now
:mod:`treebench.criteria.builtin.possibilistic`."""

from __future__ import annotations

from treebench.criteria.builtin.possibilistic import (
    GAMMA_PARAM,
    Possibilistic,
    agresti_coull_upper,
    dunn_sidak,
    possibilistic_entropy,
    z_value,
)

__all__ = ["GAMMA_PARAM", "Possibilistic", "agresti_coull_upper", "dunn_sidak", "possibilistic_entropy", "z_value"]
