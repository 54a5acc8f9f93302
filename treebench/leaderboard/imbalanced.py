"""The leaderboard's imbalanced view: the rows ranked by balanced accuracy and ROC AUC on imbalanced datasets.

Accuracy rewards a tree that predicts the majority class; on a dataset whose
smallest class is a fraction of its largest, the metrics of the imbalanced-data
literature are the class-averaged recall (balanced accuracy) and the ranking
quality of the class probabilities (one-vs-rest ROC AUC).  The view takes the
board's datasets whose minority/majority class-count ratio is below
:data:`IMBALANCED_BELOW` and ranks, per metric, the rows with a complete
cell on every one of them (Friedman test as on the accuracy board).  A row
with cells on some of them only (a criterion not applicable to one, e.g.
Hellinger distance on a many-class nominal set) gets, as on the accuracy
board, its rank among the ranked rows on the datasets it has.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from treebench.leaderboard.suite import DatasetMeta

#: A dataset is imbalanced when its smallest class has fewer than this share of its largest class's examples
#: (an imbalance ratio above 5; docs/leaderboard.md, "Imbalanced view").
IMBALANCED_BELOW = 0.2
#: Decimals the per-dataset means are compared to (ranks, ties, Friedman).
TIE_DECIMALS = 12
#: The view's metrics: store column -> (label, scale, decimals) for the page.
METRICS: dict[str, tuple[str, float, int]] = {
    "balanced_accuracy": ("balanced accuracy %", 100.0, 2),
    "roc_auc_ovr": ("ROC AUC", 1.0, 3),
}


@dataclass
class MetricRanking:
    """One metric's ranking on the imbalanced datasets.

    Attributes
    ----------
    means
        Datasets x algorithms per-dataset means (NaN: no complete cell).
    ranked
        The rows with a complete cell on every dataset of the view.
    ranks
        Their mean ranks (1 = best).
    friedman
        :class:`treebench.stats.across.FriedmanResult`, or ``None`` (``note`` says why).
    note
        Why a row or the test is missing, for the page.
    ranks_where_applicable
        The other rows with some cells: each one's mean rank among the ranked rows on its datasets.
    """

    means: pd.DataFrame
    ranked: list[str]
    ranks: pd.Series
    friedman: Any = None
    note: str = ""
    ranks_where_applicable: pd.Series = field(default_factory=lambda: pd.Series(dtype=float))


@dataclass
class ImbalancedView:
    """The view: its datasets with their class ratios, and one ranking per metric of :data:`METRICS`."""

    ratios: dict[str, float]
    rankings: dict[str, MetricRanking] = field(default_factory=dict)

    @property
    def datasets(self) -> list[str]:
        return list(self.ratios)

    def table(self) -> pd.DataFrame:
        """``imbalanced.csv``: one row per algorithm, each metric's mean rank and mean over the view's datasets."""
        names = list(dict.fromkeys(n for r in self.rankings.values() for n in r.means.columns))
        rows = []
        for name in names:
            row: dict[str, Any] = {"algorithm": name}
            for metric, ranking in self.rankings.items():
                values = ranking.means[name].dropna() if name in ranking.means.columns else pd.Series(dtype=float)
                row[f"mean_rank_{metric}"] = float(ranking.ranks[name]) if name in ranking.ranks.index else math.nan
                partial = ranking.ranks_where_applicable
                row[f"mean_rank_where_applicable_{metric}"] = (
                    float(partial[name]) if name in partial.index else math.nan)
                row[f"mean_{metric}"] = float(values.mean()) if len(values) else math.nan
                row[f"n_datasets_{metric}"] = int(len(values))
            rows.append(row)
        return pd.DataFrame(rows)


def minority_ratio(meta: DatasetMeta) -> float:
    """The smallest class count over the largest (``1 / imbalance``; 1.0 = balanced)."""
    return 1.0 / meta.imbalance if meta.imbalance and not math.isnan(meta.imbalance) else math.nan


def imbalanced_datasets(metas: dict[str, DatasetMeta], used: list[str]) -> dict[str, float]:
    """The board's datasets (of ``used``) whose minority/majority ratio is below :data:`IMBALANCED_BELOW`."""
    ratios = {d: minority_ratio(metas[d]) for d in used}
    return {d: r for d, r in sorted(ratios.items(), key=lambda kv: kv[1]) if r < IMBALANCED_BELOW}


def build_view(ratios: dict[str, float], tables: dict[str, pd.DataFrame | None],
               min_datasets: int = 2) -> ImbalancedView:
    """The view from its datasets' ratios and, per metric of :data:`METRICS`, the datasets x algorithms
    means on them (``None``: the store has no values of that metric).

    :func:`treebench.leaderboard.board.build` computes the means from the trials as it does for accuracy.
    """
    from treebench.stats.across import average_ranks, friedman

    view = ImbalancedView(dict(ratios))
    datasets = view.datasets
    for metric in METRICS if datasets else ():
        means = tables.get(metric)
        if means is None:
            view.rankings[metric] = MetricRanking(pd.DataFrame(index=datasets), [], pd.Series(dtype=float),
                                                  note=f"this store has no `{metric}` values")
            continue
        # a mean of the same fold values summed in another order differs in its last bits: equal
        # predictions must tie, so means are compared to 12 decimals (far below one test row's weight)
        means = means.round(TIE_DECIMALS)
        names = list(means.columns)
        ranked = [n for n in names if means[n].notna().all()]
        left_out = [n for n in names if n not in ranked and means[n].notna().any()]
        absent = [n for n in names if not means[n].notna().any()]
        notes = [f"not ranked (no complete cell on every dataset of the view; in brackets: the rank among the "
                 f"ranked rows on the datasets it has, and its mean is over those): {', '.join(left_out)}"] * bool(left_out)
        notes += [f"no values for {', '.join(absent)}" + (" (rows that give class labels only have no ROC AUC)"
                                                          if metric == "roc_auc_ovr" else "")] * bool(absent)
        ranks = average_ranks(means[ranked]) if len(ranked) >= 2 else pd.Series(dtype=float)
        partial = pd.Series({
            n: float(average_ranks(means.loc[means[n].notna(), [*ranked, n]])[n]) for n in left_out if ranked
        }, dtype=float)
        result = None
        if len(ranked) < 3:
            notes.append(f"{len(ranked)} row(s) ranked: the Friedman test needs 3")
        elif len(datasets) < min_datasets:
            notes.append(f"{len(datasets)} dataset(s): the Friedman test needs {min_datasets}")
        else:
            result = friedman(means[ranked])
        view.rankings[metric] = MetricRanking(means, ranked, ranks, result, "; ".join(notes), partial)
    return view
