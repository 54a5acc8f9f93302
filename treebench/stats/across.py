"""Tests across datasets on a datasets x algorithms matrix of mean scores.

Following Demšar (2006, JMLR 7:1-30): the Wilcoxon signed-rank test for one
pair of algorithms, and for several algorithms the Friedman test on average
ranks with the Nemenyi post-hoc test and its critical difference

.. math:: CD = q_\\alpha \\sqrt{k(k+1) / (6N)},

where ``q_alpha`` is the Studentized range quantile for ``k`` groups and
infinite degrees of freedom divided by ``sqrt(2)`` (Demšar's Table 5a:
2.569 for k = 4 at alpha = 0.05).
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from treebench.errors import TreebenchError

#: How zero differences enter the Wilcoxon test.  Demšar splits the ranks of
#: ties evenly between the two sums; scipy's "zsplit" does that.
WILCOXON_ZERO_METHOD = "zsplit"


@dataclass(frozen=True)
class WilcoxonResult:
    """Wilcoxon signed-rank test of ``a`` against ``b`` over paired units.

    Attributes
    ----------
    a, b
        Algorithm names.
    statistic
        scipy's statistic: the smaller of the two signed-rank sums.
    p_value
        Two-sided p-value.
    n
        Number of paired units (datasets, or folds for a single dataset).
    wins, ties, losses
        Units where ``a`` is better / equal / worse than ``b``.
    """

    a: str
    b: str
    statistic: float
    p_value: float
    n: int
    wins: int
    ties: int
    losses: int

    def significant(self, alpha: float) -> bool:
        return self.p_value <= alpha


def wilcoxon(x: np.ndarray, y: np.ndarray, a: str, b: str, higher_is_better: bool = True) -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test of paired scores (scipy).

    Parameters
    ----------
    x, y
        Scores of ``a`` and ``b`` on the same units.
    higher_is_better
        Only used to count wins/ties/losses.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    d = x - y
    better = d > 0 if higher_is_better else d < 0
    worse = d < 0 if higher_is_better else d > 0
    wins, losses = int(better.sum()), int(worse.sum())
    ties = int(d.size - wins - losses)
    if d.size == 0 or np.all(d == 0):
        return WilcoxonResult(a, b, math.nan, 1.0, int(d.size), wins, ties, losses)
    exact = _exact_sign_flips(d)
    if exact is not None:
        return WilcoxonResult(a, b, exact[0], exact[1], int(d.size), wins, ties, losses)
    with warnings.catch_warnings():
        # scipy warns that the exact distribution is unavailable with ties and
        # falls back to the normal approximation, which is what we want.
        warnings.simplefilter("ignore", UserWarning)
        res = stats.wilcoxon(x, y, zero_method=WILCOXON_ZERO_METHOD)
    return WilcoxonResult(a, b, float(res.statistic), float(res.pvalue), int(d.size), wins, ties, losses)


#: scipy's ``wilcoxon(method="auto")`` turns to an exact permutation test over all ``2**n`` sign flips
#: up to this many pairs when the differences have ties or zeros.
_PERMUTATION_MAX_N = 13


def _exact_sign_flips(d: np.ndarray) -> tuple[float, float] | None:
    """``(statistic, p)`` of scipy's two-sided ``wilcoxon(zero_method="zsplit")`` where it runs a permutation test.

    For at most :data:`_PERMUTATION_MAX_N` finite differences with ties or
    zeros, scipy computes the exact distribution of ``r_plus`` over every sign
    flip through ``permutation_test``, one Python call per flip (seconds per
    test; a paper's report makes hundreds).  The ranks of ``|d|`` do not
    change under a flip, so the same distribution is one matrix product of the
    ``2**m`` sign patterns of the ``m`` non-zero differences with their ranks
    (a zero keeps half its rank on each side, whatever its sign).  The
    p-value counts as scipy does, with its relative tolerance on the observed
    value.  Returns ``None`` elsewhere: scipy's own exact or asymptotic test is fast.
    """
    n = d.size
    if n > _PERMUTATION_MAX_N or not np.all(np.isfinite(d)):
        return None
    ranks = stats.rankdata(np.abs(d))
    zero = d == 0
    if not zero.any() and np.unique(ranks).size == n:
        return None  # no ties, no zeros: scipy's exact null distribution
    half_zero = 0.5 * float(ranks[zero].sum())
    nonzero = ranks[~zero]
    r_plus = half_zero + float(ranks[d > 0].sum())
    r_minus = half_zero + float(ranks[d < 0].sum())
    signs = (np.arange(2 ** nonzero.size)[:, None] >> np.arange(nonzero.size)) & 1
    null = half_zero + signs @ nonzero
    tolerance = abs(np.finfo(float).eps * 100 * r_plus)  # scipy.stats.permutation_test's
    less = np.count_nonzero(null <= r_plus + tolerance) / null.size
    greater = np.count_nonzero(null >= r_plus - tolerance) / null.size
    return min(r_plus, r_minus), min(1.0, 2.0 * min(less, greater))


def pairwise_wilcoxon(means: pd.DataFrame, higher_is_better: bool = True) -> list[WilcoxonResult]:
    """Wilcoxon for every pair of columns of a datasets x algorithms matrix."""
    out = []
    for a, b in itertools.combinations(means.columns, 2):
        out.append(wilcoxon(means[a].to_numpy(), means[b].to_numpy(), str(a), str(b), higher_is_better))
    return out


def average_ranks(means: pd.DataFrame, higher_is_better: bool = True) -> pd.Series:
    """Average rank of each algorithm over datasets; rank 1 is best, ties averaged."""
    if means.empty:
        raise TreebenchError("no dataset has results for every algorithm; cannot rank")
    signed = -means.to_numpy(dtype=float) if higher_is_better else means.to_numpy(dtype=float)
    ranks = np.apply_along_axis(stats.rankdata, 1, signed)
    return pd.Series(ranks.mean(axis=0), index=[str(c) for c in means.columns], name="average rank")


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """Nemenyi's q_alpha: Studentized range quantile (df = inf) over sqrt(2)."""
    if k < 2:
        raise TreebenchError(f"the Nemenyi test needs at least 2 algorithms, got {k}")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def critical_difference(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference of average ranks for k algorithms on n datasets."""
    if n < 1:
        raise TreebenchError("the critical difference needs at least one dataset")
    return nemenyi_q(k, alpha) * math.sqrt(k * (k + 1) / (6.0 * n))


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman test, Iman-Davenport correction and Nemenyi post-hoc.

    Attributes
    ----------
    ranks
        Average rank per algorithm (1 = best), in column order.
    statistic, p_value
        Friedman's chi-square (scipy) and its p-value (df = k - 1).
    iman_davenport, iman_davenport_p
        Demšar's less conservative F form, df ``(k-1, (k-1)(N-1))``.
    n_datasets, alpha
        N and the level of the critical difference.
    cd
        Nemenyi critical difference at ``alpha``.
    nemenyi_p
        Matrix of pairwise Nemenyi p-values.
    groups
        Maximal sets of algorithms (sorted by rank) whose rank range is
        within ``cd``: the bars of a critical-difference diagram.
    """

    ranks: pd.Series
    statistic: float
    p_value: float
    iman_davenport: float
    iman_davenport_p: float
    n_datasets: int
    alpha: float
    cd: float
    nemenyi_p: pd.DataFrame
    groups: list[tuple[str, ...]]

    def significant(self) -> bool:
        return self.p_value <= self.alpha


def friedman(means: pd.DataFrame, higher_is_better: bool = True, alpha: float = 0.05) -> FriedmanResult:
    """Friedman test with Nemenyi post-hoc on a datasets x algorithms matrix.

    Raises
    ------
    TreebenchError
        With fewer than 3 algorithms (scipy's Friedman needs 3) or 2 datasets.
    """
    k, n = means.shape[1], means.shape[0]
    if k < 3:
        raise TreebenchError(f"the Friedman test needs at least 3 algorithms, got {k}")
    if n < 2:
        raise TreebenchError(f"the Friedman test needs at least 2 datasets with every algorithm, got {n}")
    ranks = average_ranks(means, higher_is_better)
    cols = [means[c].to_numpy(dtype=float) for c in means.columns]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-tied rows divide by zero
        chi2, p = stats.friedmanchisquare(*cols)
    chi2, p = float(chi2), float(p)
    if math.isnan(chi2):  # every dataset ties every algorithm
        chi2, p = 0.0, 1.0
    denom = n * (k - 1) - chi2
    ff = (n - 1) * chi2 / denom if denom > 0 else math.inf
    ff_p = float(stats.f.sf(ff, k - 1, (k - 1) * (n - 1))) if math.isfinite(ff) else 0.0
    cd = critical_difference(k, n, alpha)
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    names = list(ranks.index)
    pmat = pd.DataFrame(1.0, index=names, columns=names)
    for a, b in itertools.combinations(names, 2):
        z = abs(ranks[a] - ranks[b]) / se
        pv = float(stats.studentized_range.sf(z * math.sqrt(2.0), k, np.inf))
        pmat.loc[a, b] = pmat.loc[b, a] = min(1.0, pv)
    return FriedmanResult(ranks, chi2, p, ff, ff_p, n, alpha, cd, pmat, cd_groups(ranks, cd))


def cd_groups(ranks: pd.Series, cd: float) -> list[tuple[str, ...]]:
    """Maximal runs of rank-sorted algorithms whose ranks span at most ``cd``.

    These are the horizontal bars of a critical-difference diagram: members
    of one bar are not significantly different by the Nemenyi test.  Runs of
    a single algorithm and runs contained in a longer run are omitted.
    """
    order = ranks.sort_values(kind="mergesort")
    names, values = list(order.index), order.to_numpy()
    runs: list[tuple[int, int]] = []
    for i in range(len(names)):
        j = i
        while j + 1 < len(names) and values[j + 1] - values[i] <= cd + 1e-12:
            j += 1
        if j > i and not any(s <= i and j <= e for s, e in runs):
            runs.append((i, j))
    return [tuple(names[s : e + 1]) for s, e in runs]
