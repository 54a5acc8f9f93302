"""McNemar's test: two classifiers on the same test cases of one split (Dietterich 1998).

Only the cases where exactly one of the two is right count: ``b`` (A right, B wrong) and ``c``
(A wrong, B right).  Under "equally accurate" each such case is A's with probability 1/2, so the
exact test is a two-sided binomial test of ``b`` out of ``b + c``; with many discordant cases
the chi-square form with Edwards' continuity correction, ``(|b - c| - 1)^2 / (b + c)`` on one
degree of freedom, gives nearly the same p-value.  The exact form is the default: it is right for
any count (Dietterich recommends the test for a single split, where the resampled t-tests have
too few values).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from treebench.errors import TreebenchError


@dataclass(frozen=True)
class McNemarResult:
    """Discordant counts and the test's p-value (``method``: ``exact`` or ``chi2``)."""

    a_only: int  # cases A got right and B wrong
    b_only: int  # cases B got right and A wrong
    p_value: float
    method: str
    n_cases: int

    @property
    def better(self) -> str:
        """``"A"``, ``"B"`` or ``""`` (a tie in discordant cases)."""
        return "A" if self.a_only > self.b_only else "B" if self.b_only > self.a_only else ""


def mcnemar(truth: np.ndarray, pred_a: np.ndarray, pred_b: np.ndarray, *, exact: bool = True) -> McNemarResult:
    """McNemar's test of two prediction vectors of the same cases against ``truth``."""
    from scipy import stats

    truth, pred_a, pred_b = np.asarray(truth), np.asarray(pred_a), np.asarray(pred_b)
    if not (truth.shape == pred_a.shape == pred_b.shape) or truth.ndim != 1:
        raise TreebenchError(f"McNemar's test needs the same cases for both: got {pred_a.shape} and "
                             f"{pred_b.shape} predictions of {truth.shape} labels")
    right_a, right_b = pred_a == truth, pred_b == truth
    b, c = int(np.sum(right_a & ~right_b)), int(np.sum(~right_a & right_b))
    if b + c == 0:
        return McNemarResult(b, c, 1.0, "exact" if exact else "chi2", len(truth))
    if exact:
        p = float(stats.binomtest(b, b + c, 0.5).pvalue)
    else:
        statistic = (abs(b - c) - 1.0) ** 2 / (b + c)
        p = float(stats.chi2.sf(statistic, 1))
    return McNemarResult(b, c, min(1.0, p), "exact" if exact else "chi2", len(truth))
