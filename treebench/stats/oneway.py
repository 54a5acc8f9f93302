"""Paper 001's protocol: Levene, then one-way ANOVA or Kruskal-Wallis, then
multiple comparisons.

Marques de Sá et al. compare three algorithms on one dataset from unpaired
samples (leave-one-out for two of them, 25-fold CV for the third): a test of
variance homogeneity picks the omnibus test (``p < 0.05`` -> Kruskal-Wallis,
else one-way ANOVA) and multiple comparisons at 5 % mark the significantly
best and worst algorithms.  Here:

* homogeneity: ``scipy.stats.levene`` (median-centred, Brown-Forsythe form,
  scipy's default);
* after ANOVA: Tukey's HSD (``scipy.stats.tukey_hsd``);
* after Kruskal-Wallis: Dunn's test on the pooled ranks with the tie
  correction, p-values adjusted by Bonferroni (Statistica's "multiple
  comparisons of mean ranks") or Holm.  scipy has no Dunn test; it is
  written out in :func:`dunn`.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from treebench.errors import TreebenchError, one_of

ADJUSTMENTS = ("bonferroni", "holm")


def dunn(groups: Mapping[str, np.ndarray], adjust: str = "bonferroni") -> pd.DataFrame:
    """Dunn's (1964) pairwise test after Kruskal-Wallis.

    For groups i, j with mean pooled ranks R_i, R_j and sizes n_i, n_j among
    N values,

    .. math:: z_{ij} = \\frac{R_i - R_j}{\\sqrt{\\left(\\frac{N(N+1)}{12} -
              \\frac{\\sum (t^3 - t)}{12(N-1)}\\right)\\left(\\frac1{n_i} + \\frac1{n_j}\\right)}}

    where ``t`` runs over the sizes of tied blocks; two-sided normal p-values
    are then adjusted for the ``m = k(k-1)/2`` comparisons.

    Returns
    -------
    DataFrame
        Symmetric matrix of adjusted p-values (1 on the diagonal).
    """
    if adjust not in ADJUSTMENTS:
        raise one_of(adjust, ADJUSTMENTS, "p-value adjustment")
    names = list(groups)
    arrays = [np.asarray(groups[n], dtype=float) for n in names]
    pooled = np.concatenate(arrays)
    n_total = pooled.size
    ranks = stats.rankdata(pooled)
    _, counts = np.unique(pooled, return_counts=True)
    tie_term = float(np.sum(counts.astype(float) ** 3 - counts)) / (12.0 * (n_total - 1))
    base = n_total * (n_total + 1) / 12.0 - tie_term
    mean_rank, start = {}, 0
    for name, arr in zip(names, arrays):
        mean_rank[name] = float(ranks[start : start + arr.size].mean())
        start += arr.size
    pairs = list(itertools.combinations(range(len(names)), 2))
    raw = []
    for i, j in pairs:
        se = math.sqrt(base * (1.0 / arrays[i].size + 1.0 / arrays[j].size))
        z = (mean_rank[names[i]] - mean_rank[names[j]]) / se if se > 0 else 0.0
        raw.append(float(2.0 * stats.norm.sf(abs(z))))
    adjusted = _adjust(np.array(raw), adjust)
    out = pd.DataFrame(1.0, index=names, columns=names)
    for (i, j), p in zip(pairs, adjusted):
        out.iloc[i, j] = out.iloc[j, i] = p
    return out


def _adjust(p: np.ndarray, method: str) -> np.ndarray:
    """Bonferroni or Holm's step-down adjustment of a vector of p-values."""
    m = p.size
    if m == 0:
        return p
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="mergesort")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


@dataclass(frozen=True)
class OneWayResult:
    """Outcome of the Levene -> ANOVA/Kruskal-Wallis -> post-hoc protocol.

    Attributes
    ----------
    levene_statistic, levene_p
        Variance homogeneity test.
    test
        ``"anova"`` or ``"kruskal"`` (chosen by ``levene_p < alpha``).
    statistic, p_value
        The omnibus test (F or H).
    posthoc
        ``"tukey"`` or ``"dunn-bonferroni"``/``"dunn-holm"``.
    pairwise_p
        Matrix of (adjusted) pairwise p-values.
    means
        Group means, used to orient significant differences.
    best, worst
        Algorithms significantly better than some other and worse than none
        (best), or worse than some other and better than none (worst) — how
        paper 001 prints bold and underlined cells.
    """

    levene_statistic: float
    levene_p: float
    test: str
    statistic: float
    p_value: float
    posthoc: str
    pairwise_p: pd.DataFrame
    means: pd.Series
    best: tuple[str, ...]
    worst: tuple[str, ...]


def oneway_protocol(
    groups: Mapping[str, np.ndarray],
    higher_is_better: bool = True,
    alpha: float = 0.05,
    adjust: str = "bonferroni",
) -> OneWayResult:
    """Run paper 001's protocol on independent samples, one per algorithm.

    Parameters
    ----------
    groups
        Algorithm -> its values (folds or cases) on one dataset.
    higher_is_better
        Orientation of "best" (False for error rates).
    alpha
        Level for Levene's choice and for the multiple comparisons.
    adjust
        p-value adjustment for Dunn's test.
    """
    names = list(groups)
    arrays = [np.asarray(groups[n], dtype=float) for n in names]
    if len(arrays) < 2 or any(a.size < 2 for a in arrays):
        raise TreebenchError("the ANOVA/Kruskal-Wallis protocol needs 2+ algorithms with 2+ values each")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lev = stats.levene(*arrays)
    lev_stat, lev_p = float(lev.statistic), float(lev.pvalue)
    if math.isnan(lev_p):  # every group constant: nothing to say about spread
        lev_p = 1.0
    means = pd.Series([float(a.mean()) for a in arrays], index=names)
    if lev_p < alpha:
        test, posthoc = "kruskal", f"dunn-{adjust}"
        all_values = np.concatenate(arrays)
        if np.all(all_values == all_values[0]):
            stat, p = 0.0, 1.0
        else:
            res = stats.kruskal(*arrays)
            stat, p = float(res.statistic), float(res.pvalue)
        pairwise = dunn(dict(zip(names, arrays)), adjust)
    else:
        test, posthoc = "anova", "tukey"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stats.f_oneway(*arrays)
            stat, p = float(res.statistic), float(res.pvalue)
            if math.isnan(p):
                stat, p = 0.0, 1.0
                pairwise = pd.DataFrame(1.0, index=names, columns=names)
            else:
                tk = stats.tukey_hsd(*arrays)
                pairwise = pd.DataFrame(np.asarray(tk.pvalue, dtype=float), index=names, columns=names)
    best, worst = _extremes(names, means, pairwise, higher_is_better, alpha)
    return OneWayResult(lev_stat, lev_p, test, stat, p, posthoc, pairwise, means, best, worst)


def _extremes(
    names: list[str], means: pd.Series, pairwise: pd.DataFrame, higher_is_better: bool, alpha: float
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Who is significantly best / worst from the pairwise p-values."""
    sign = 1.0 if higher_is_better else -1.0
    beats = {n: set() for n in names}
    for a, b in itertools.combinations(names, 2):
        if pairwise.loc[a, b] <= alpha and means[a] != means[b]:
            win, lose = (a, b) if sign * (means[a] - means[b]) > 0 else (b, a)
            beats[win].add(lose)
    beaten = {n: {m for m in names if n in beats[m]} for n in names}
    best = tuple(n for n in names if beats[n] and not beaten[n])
    worst = tuple(n for n in names if beaten[n] and not beats[n])
    return best, worst
