"""The leaderboard's tables and statistics, computed from the store's trials.

Everything here is a function of the trial frame (one row per finished trial)
and the plan; the tests (:func:`friedman`, post-hoc, Bayesian signed-rank) are
:mod:`treebench.stats`'s.  The *ranked* algorithms are those with results on
every dataset of the board; an algorithm that applies to some datasets only is
compared on those datasets (W/T/L, its rank among the ranked ones there) but
takes no part in the Friedman test, which needs a complete table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from treebench.leaderboard.catalogue import REFERENCE, Algorithm
from treebench.leaderboard.imbalanced import METRICS as IMBALANCED_METRICS
from treebench.leaderboard.imbalanced import ImbalancedView, build_view, imbalanced_datasets
from treebench.leaderboard.suite import DatasetMeta

# Beyond this many ranked algorithms Bergmann-Hommel is too costly: Holm instead.
from treebench.stats.posthoc import BERGMANN_HOMMEL_MAX_K

#: Half-width of the region of practical equivalence of the Bayesian signed-rank test (accuracy, as a fraction).
ROPE = 0.01
#: Two per-dataset mean accuracies closer than this are a tie (they come from the same test rows).
TIE = 1e-9
#: Fewest datasets the across-dataset tests need.
MIN_DATASETS = 2


@dataclass
class Board:
    """What the page shows.

    Attributes
    ----------
    table
        One row per algorithm (the columns of ``leaderboard.csv``), best first.
    accuracy, balanced, leaves, fit
        Datasets x algorithms per-dataset means (NaN where an algorithm has no complete cell).
    ranked
        The algorithms of the Friedman test, in column order.
    ranks
        Their mean ranks (1 = best) over the board's datasets.
    friedman
        :class:`treebench.stats.across.FriedmanResult` (``None`` with too few algorithms or datasets).
    pairwise
        One row per pair of ranked algorithms (``pairwise.csv``).
    correction
        ``bergmann-hommel`` or ``holm``.
    winners
        One row per dataset: meta-features and the best algorithm(s).
    skipped
        ``algorithm, dataset, reason`` of every pair without trials.
    notes
        Sentences about what was left out of the tests, for the page.
    """

    table: pd.DataFrame
    accuracy: pd.DataFrame
    balanced: pd.DataFrame
    leaves: pd.DataFrame
    fit: pd.DataFrame
    ranked: list[str]
    ranks: pd.Series
    friedman: Any
    pairwise: pd.DataFrame
    correction: str
    winners: pd.DataFrame
    skipped: pd.DataFrame
    has_balanced: bool
    notes: list[str] = field(default_factory=list)
    #: Anomaly flags (one line each) and the checks that could not be made.
    flags: list[str] = field(default_factory=list)
    #: Balanced accuracy and ROC AUC on the imbalanced datasets (:mod:`treebench.leaderboard.imbalanced`).
    imbalanced: ImbalancedView | None = None


def cell_means(frame: pd.DataFrame, column: str, datasets: list[str], algorithms: list[str], expected: dict[str, int],
               how: str = "mean") -> pd.DataFrame:
    """Per-dataset means (or ``how="median"``) of ``column``; a cell with fewer finished trials than its
    dataset's splits is NaN."""
    if column not in frame.columns or frame.empty:
        return pd.DataFrame(np.nan, index=datasets, columns=algorithms)
    grouped = frame.groupby(["dataset", "algorithm"])[column]
    means = grouped.agg(how).unstack().reindex(index=datasets, columns=algorithms)
    counts = grouped.size().unstack().reindex(index=datasets, columns=algorithms).fillna(0)
    need = pd.Series(expected).reindex(datasets).to_numpy()[:, None]
    return means.where(counts.to_numpy() >= need)


def wtl(a: pd.Series, b: pd.Series) -> tuple[int, int, int]:
    """Datasets where ``a`` beats, ties, loses to ``b`` (both present)."""
    both = a.notna() & b.notna()
    d = (a[both] - b[both]).to_numpy(dtype=float)
    return int((d > TIE).sum()), int((np.abs(d) <= TIE).sum()), int((d < -TIE).sum())


def _mean(values: pd.Series) -> float:
    v = values.dropna()
    return float(v.mean()) if len(v) else math.nan


PAIRWISE_COLUMNS = ["a", "b", "z", "p", "p_adjusted", "correction", "p_a_better", "p_equivalent", "p_b_better",
                    "rope", "a_wins", "ties", "b_wins"]


def build(frame: pd.DataFrame, algorithms: list[Algorithm], metas: dict[str, DatasetMeta],
          skipped: list[tuple[str, str, str]], expected: dict[str, int]) -> Board:
    """The leaderboard from the trial frame (ok trials of the board only).

    Parameters
    ----------
    frame
        Store rows (``ResultsStore.to_frame``) of the board's trial keys.
    algorithms
        Every row of the board, in catalogue order.
    metas
        Meta-features of the board's datasets.
    skipped
        ``(algorithm, dataset, reason)`` pairs without trials.
    expected
        Outer splits per dataset (folds x repeats): a cell is complete with this many trials.
    """
    from treebench.stats.across import average_ranks

    ok = frame[frame["status"] == "ok"] if "status" in frame.columns else frame
    datasets = list(metas)
    names = [a.name for a in algorithms]
    acc = cell_means(ok, "accuracy", datasets, names, expected)
    has_balanced = bool("balanced_accuracy" in ok.columns and ok["balanced_accuracy"].notna().any())
    bal = cell_means(ok, "balanced_accuracy", datasets, names, expected)
    leaves = cell_means(ok, "n_leaves", datasets, names, expected)
    # the median over folds: a worker's first fit also loads (or compiles) the kernels it calls
    fit = cell_means(ok, "fit_seconds", datasets, names, expected, how="median")
    notes: list[str] = []

    # datasets where no algorithm has a complete cell (all failed) are left out of everything
    used = [d for d in datasets if acc.loc[d].notna().any()]
    notes += [f"{d}: no algorithm finished every fold; left out" for d in datasets if d not in used]
    acc, bal, leaves, fit = (m.loc[used] for m in (acc, bal, leaves, fit))
    skipped_frame = pd.DataFrame(skipped, columns=["algorithm", "dataset", "reason"])
    # a planned cell without every fold finished (failed trials) is said so, never silently empty
    not_run = {(a, d) for a, d, _ in skipped}
    failed = {n: [d for d in used if (n, d) not in not_run and pd.isna(acc.loc[d, n])] for n in names}
    notes += [f"{n}: trials failed on {', '.join(ds)}" for n, ds in failed.items() if ds]
    ranked = [n for n in names if len(used) and acc[n].notna().all()]
    matrix = acc[ranked]
    ranks = average_ranks(matrix) if len(ranked) >= 2 and len(used) >= 1 else pd.Series(dtype=float)
    fr, pairwise, correction = _tests(matrix, notes)
    best = str(ranks.idxmin()) if len(ranks) else None
    rows = []
    for a in algorithms:
        row = _row(a, acc, bal, leaves, fit, ranked, ranks, best, has_balanced)
        reasons = sorted(set(skipped_frame.loc[skipped_frame["algorithm"] == a.name, "reason"]))
        if failed[a.name]:
            reasons.append(f"trials failed on {', '.join(failed[a.name])}")
        if row["status"] == "not applicable" and failed[a.name]:
            row["status"] = "failed"
        row["not_applicable_on"] = int((skipped_frame["algorithm"] == a.name).sum())
        row["reason"] = "; ".join(reasons)
        rows.append(row)
    table = pd.DataFrame(rows)
    for column in ("wins", "ties", "losses", "wins_vs_entropy", "ties_vs_entropy", "losses_vs_entropy"):
        table[column] = table[column].astype("Int64")  # counts, empty where they do not apply
    order = {"ranked": 0, "partial": 1, "failed": 2, "not applicable": 3}
    table = table.assign(_o=table["status"].map(order)).sort_values(
        ["_o", "mean_rank", "mean_rank_where_applicable", "algorithm"], kind="mergesort").drop(columns="_o")
    table = table.reset_index(drop=True)
    ratios = imbalanced_datasets(metas, used)
    tables = {m: (cell_means(ok, m, list(ratios), names, expected)
                  if m in ok.columns and ok[m].notna().any() else None) for m in IMBALANCED_METRICS}
    return Board(table, acc, bal, leaves, fit, ranked, ranks, fr, pairwise, correction,
                 winners(acc, metas, used), skipped_frame, has_balanced, notes,
                 imbalanced=build_view(ratios, tables, MIN_DATASETS))


def _tests(matrix: pd.DataFrame, notes: list[str]) -> tuple[Any, pd.DataFrame, str]:
    """Friedman, the adjusted pairwise rank tests and the Bayesian signed-rank test of the ranked algorithms.

    Returns the Friedman result (``None`` when it cannot be computed, with a
    note saying why), the pairwise table and the correction used.
    """
    from treebench.stats.across import friedman
    from treebench.stats.bayes import pairwise_signed_rank
    from treebench.stats.posthoc import friedman_posthoc

    k, n = matrix.shape[1], matrix.shape[0]
    correction = "bergmann-hommel" if k <= BERGMANN_HOMMEL_MAX_K else "holm"
    if k < 3:
        notes.append(f"{k} algorithm(s) ran on every dataset: the Friedman test needs 3")
        return None, pd.DataFrame(columns=PAIRWISE_COLUMNS), correction
    if n < MIN_DATASETS:
        notes.append(f"{n} dataset(s): the Friedman test needs {MIN_DATASETS}")
        return None, pd.DataFrame(columns=PAIRWISE_COLUMNS), correction
    fr = friedman(matrix)
    post = friedman_posthoc(matrix, correction=correction)
    bayes = {(r.a, r.b): r for r in pairwise_signed_rank(matrix, rope=ROPE)}
    rows = []
    for rec in post.itertuples(index=False):
        b = bayes[(rec.a, rec.b)]
        w, t, lo = wtl(matrix[rec.a], matrix[rec.b])
        rows.append({"a": rec.a, "b": rec.b, "z": rec.z, "p": rec.p, "p_adjusted": rec.p_adjusted,
                     "correction": correction, "p_a_better": b.p_a_better, "p_equivalent": b.p_rope,
                     "p_b_better": b.p_b_better, "rope": ROPE, "a_wins": w, "ties": t, "b_wins": lo})
    return fr, pd.DataFrame(rows, columns=PAIRWISE_COLUMNS), correction


def _row(a: Algorithm, acc: pd.DataFrame, bal: pd.DataFrame, leaves: pd.DataFrame, fit: pd.DataFrame,
         ranked: list[str], ranks: pd.Series, best: str | None, has_balanced: bool) -> dict[str, Any]:
    """One algorithm's line of ``leaderboard.csv`` (without its reasons)."""
    from treebench.stats.across import average_ranks

    n = a.name
    present = acc[n].notna()
    status = "ranked" if n in ranked else ("partial" if present.any() else "not applicable")
    row: dict[str, Any] = {
        "algorithm": n,
        "status": status,
        "tuned": a.tuned,
        "n_datasets": int(present.sum()),
        "mean_rank": float(ranks[n]) if n in ranks.index else math.nan,
        "mean_rank_where_applicable": math.nan,
        "mean_accuracy": _mean(acc[n]),
        "mean_balanced_accuracy": _mean(bal[n]) if has_balanced else math.nan,
        "mean_leaves": _mean(leaves[n]),
        "mean_fit_seconds": _mean(fit[n]),
    }
    if status == "partial" and ranked:
        # its rank among the ranked algorithms, on the datasets where it applies
        row["mean_rank_where_applicable"] = float(average_ranks(acc.loc[present, [*ranked, n]])[n])
    reference = REFERENCE if REFERENCE in acc.columns else None
    for label, other in (("", best), ("_vs_entropy", reference)):
        if other is None or other == n or not present.any():
            w = t = lo = math.nan
        else:
            w, t, lo = wtl(acc[n], acc[other])
        row[f"wins{label}"], row[f"ties{label}"], row[f"losses{label}"] = w, t, lo
    return row


def winners(acc: pd.DataFrame, metas: dict[str, DatasetMeta], used: list[str]) -> pd.DataFrame:
    """Per dataset: its meta-features, the algorithm(s) with the best mean accuracy, and that accuracy."""
    rows = []
    for d in used:
        values = acc.loc[d].dropna()
        top = float(values.max())
        best = [str(n) for n, v in values.items() if top - v <= TIE]
        m = metas[d]
        rows.append({"dataset": d, "rows": m.rows, "features": m.features, "classes": m.classes,
                     "imbalance": m.imbalance, "nominal_share": m.nominal_share, "winners": ", ".join(best),
                     "n_winners": len(best), "best_accuracy": top,
                     "entropy_accuracy": float(acc.loc[d, REFERENCE]) if REFERENCE in acc.columns else math.nan})
    return pd.DataFrame(rows, columns=["dataset", "rows", "features", "classes", "imbalance", "nominal_share",
                                       "winners", "n_winners", "best_accuracy", "entropy_accuracy"])


def pareto_front(points: pd.DataFrame) -> list[str]:
    """Names (index) of the points no other point dominates: fewer-or-equal leaves and higher-or-equal
    accuracy, strictly better in one.  ``points`` has columns ``leaves`` and ``accuracy``."""
    front = []
    for name, p in points.iterrows():
        dominated = ((points["leaves"] <= p["leaves"]) & (points["accuracy"] >= p["accuracy"])
                     & ((points["leaves"] < p["leaves"]) | (points["accuracy"] > p["accuracy"]))).any()
        if not dominated:
            front.append(str(name))
    return front
