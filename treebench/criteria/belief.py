"""The evidential impurity's former home (paper 004): now :mod:`treebench.criteria.builtin.belief`."""

from __future__ import annotations

from treebench.criteria.builtin.belief import (
    Belief,
    crisp_masses,
    one_vs_rest_counts,
    pignistic,
    uncertainty,
)

__all__ = ["Belief", "crisp_masses", "one_vs_rest_counts", "pignistic", "uncertainty"]
