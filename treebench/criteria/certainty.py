"""The certainty function's former home (paper 003): now :mod:`treebench.criteria.builtin.certainty`."""

from __future__ import annotations

from treebench.criteria.builtin.certainty import RAISE_TOLERANCE, Certainty, certainty_rows

__all__ = ["RAISE_TOLERANCE", "Certainty", "certainty_rows"]
