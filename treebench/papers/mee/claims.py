"""Paper 001's own claim kind: MEE generalises better, by the paper's measure R."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from treebench.report.claims import (
    TREND,
    ClaimOutcome,
    Effect,
    measured_effect,
    net_share,
    not_testable,
)


@dataclass(frozen=True)
class LowerRClaim:
    """"``a``'s trees generalise better than ``others``'": a lower ``R = |m_R - m_CV| / s̄`` per dataset.

    Section 5 states a tendency ("significantly lower R", no test named), so it is a ``trend``: the net
    share of datasets where ``a``'s R is below every other's (ties count zero), graded against the
    paper's stated share of +1 (no numbers printed).  R per dataset and algorithm is
    :func:`treebench.papers.mee.sections.generalisation_table`'s (one value each: the datasets vary).
    """

    text: str
    a: str = "mee"
    others: tuple[str, ...] = ("cart", "c45")

    #: A tendency over datasets.
    kind = TREND

    def evaluate(self, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
        """R of every algorithm per dataset, and the net share of datasets where ``a``'s is the lowest."""
        from treebench.papers.mee.sections import generalisation_table

        out = ClaimOutcome(self.text, "significantly lower R (no test named)", "–", "not run", None)
        measure = f"net share of datasets where {self.a}'s R is below {', '.join(self.others)}'s (−1 to +1)"
        paper = (1.0, 0, "stated (\"significantly lower R\"), no numbers printed")
        needed = {"dataset", "algorithm", "n_test", "error", "train_accuracy", "n_leaves", "n_nodes"}
        if not len(frame) or not needed <= set(frame.columns):
            return out.set_effect(Effect(measure, verdict=not_testable("no training and test errors rerun")))
        table = generalisation_table(frame)
        wide = table.pivot_table(index="dataset", columns="algorithm", values="R", aggfunc="mean")
        names = [self.a, *self.others]
        if any(n not in wide.columns for n in names):
            missing = ", ".join(n for n in names if n not in wide.columns)
            return out.set_effect(Effect(measure, verdict=not_testable(f"{missing} not run")))
        both = wide[names].dropna()
        units = {str(ds): row.to_numpy(dtype=float)[None, :] for ds, row in both.iterrows()}
        out.details = [f"{ds}: R " + ", ".join(f"{n} {row[n]:.2f}" for n in names) for ds, row in both.iterrows()]
        lowest = [ds for ds, row in both.iterrows() if row[self.a] < row[list(self.others)].min()]
        out.ours = f"{self.a}'s R the lowest on {len(lowest)} of {len(both)} datasets"
        out.literal = len(lowest) == len(both) if len(both) else None

        def below(m: np.ndarray) -> np.ndarray:
            return np.sign(m[:, 1:].min(axis=1) - m[:, 0])

        effect = measured_effect(measure, paper, units, below, net_share, kind=self.kind,
                                 empty=f"no dataset with {', '.join(names)} rerun")
        if math.isnan(effect.ours):
            effect.verdict = not_testable("no dataset with every algorithm's R")
        return out.set_effect(effect)
