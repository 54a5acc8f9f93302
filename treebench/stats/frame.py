"""Shape the tidy results frame (one row per trial) for the tests and tables.

Every function here takes the frame that ``ResultsStore.to_frame()`` returns
(or any frame with the same columns) and never touches SQLite, so the whole
statistics layer can be exercised on frames built by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError, first_repeat
from treebench.stats.metrics import Metric

#: Columns that identify one trial of one algorithm on one dataset; two
#: algorithms are paired on the ones present in the frame.  The protocol is one
#: of them: fold 3 of a 25-fold CV and fold 3 of a leave-one-out (a paper may
#: run one algorithm under the one, the others under the other) are different
#: test sets.
PAIR_KEYS = ("protocol", "repeat", "fold")


def pair_keys(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` ready to be indexed by its pairing columns, and those columns.

    A missing protocol (a frame exported without it, a hand-built one) is the
    empty label, so that the row is not dropped by a pivot on a NaN key.
    """
    keys = [k for k in PAIR_KEYS if k in frame.columns]
    if "protocol" in keys and frame["protocol"].isna().any():
        frame = frame.assign(protocol=frame["protocol"].astype(object).where(frame["protocol"].notna(), ""))
    return frame, keys


@dataclass(frozen=True)
class Trials:
    """The usable trials of a frame, with what was left out.

    Attributes
    ----------
    frame
        Rows with ``status == 'ok'`` and a finite value of the metric.
    metric
        The metric the values are for.
    n_failed
        Trials stored as failed (excluded).
    n_missing
        Finished trials without a value for the metric (excluded).
    datasets, algorithms
        In order of first appearance, so tables follow the config's order.
    """

    frame: pd.DataFrame
    metric: Metric
    n_failed: int
    n_missing: int
    datasets: tuple[str, ...]
    algorithms: tuple[str, ...]
    #: per dataset, the (repeat, fold) x algorithm table :meth:`paired` reads (built once)
    _wide: dict[str, pd.DataFrame] = field(default_factory=dict, init=False, repr=False, compare=False)

    def values(self, dataset: str, algorithm: str) -> np.ndarray:
        """The metric over the trials of one cell, in (repeat, fold) order."""
        sub = self.frame[(self.frame["dataset"] == dataset) & (self.frame["algorithm"] == algorithm)]
        return sub.sort_values(_keys(sub))["value"].to_numpy(dtype=float)

    def paired(self, dataset: str, a: str, b: str) -> tuple[np.ndarray, np.ndarray]:
        """Values of ``a`` and ``b`` on the trials both have, aligned by (protocol, repeat, fold).

        The same seed gives the same splits for every algorithm, so trial
        ``(repeat, fold)`` of ``a`` and of ``b`` under one protocol saw the same
        test set.  Trials only one of them has (e.g. a failed fit, or another
        protocol) are dropped.
        """
        wide = self._wide.get(dataset)
        if wide is None:
            sub, keys = pair_keys(self.frame[self.frame["dataset"] == dataset])
            if not {"repeat", "fold"} & set(keys):
                raise TreebenchError("results frame has no 'repeat'/'fold' columns; paired tests need them")
            wide = sub.pivot_table(index=keys, columns="algorithm", values="value", aggfunc="mean")
            self._wide[dataset] = wide
        if a not in wide or b not in wide:
            return np.empty(0), np.empty(0)
        both = wide[[a, b]].dropna()
        return both[a].to_numpy(dtype=float), both[b].to_numpy(dtype=float)


def duplicated_splits(frame: pd.DataFrame) -> str | None:
    """Name the cells of ``frame`` holding two finished trials of one split, or ``None``.

    A store keeps the trials of every version of its config and plugins under their own
    keys, so after a changed config or an edited plugin it holds one algorithm twice on one
    (protocol, repeat, fold).  A table would average the two versions and a paired test
    would pair either; only the config knows which trials are current.
    """
    if not {"dataset", "algorithm"} <= set(frame.columns):
        return None
    ok = frame[frame["status"].astype(str) == "ok"] if "status" in frame.columns else frame
    ok, pairing = pair_keys(ok)
    keys = ["dataset", "algorithm", *pairing]
    twice = ok[ok.duplicated(keys, keep=False)]
    if twice.empty:
        return None
    counts = twice.groupby(keys, sort=False).size()
    first, n = counts.index[0], int(counts.iloc[0])
    where = dict(zip(keys, first, strict=True))
    split = ", ".join(f"{k} {where[k]}" for k in keys[2:] if str(where[k]) != "")
    more = f" (and {len(counts) - 1} more split(s))" if len(counts) > 1 else ""
    cells = sorted({f"{d} / {a}" for d, a in zip(twice["dataset"], twice["algorithm"], strict=True)})
    return (f"{n} finished trials of {where['algorithm']} on one split of {where['dataset']} ({split}){more}, "
            f"in the cells {', '.join(cells[:6])}{' ...' if len(cells) > 6 else ''}")


def _keys(frame: pd.DataFrame) -> list[str]:
    return [k for k in PAIR_KEYS if k in frame.columns]


def select_trials(
    frame: pd.DataFrame,
    metric: Metric,
    *,
    datasets: Sequence[str] | None = None,
    algorithms: Sequence[str] | None = None,
) -> Trials:
    """Keep the finished trials with a value for ``metric``.

    Parameters
    ----------
    frame
        One row per trial, with at least ``dataset``, ``algorithm`` and the
        metric's column; ``status`` is honoured when present.
    metric
        Which column to read.
    datasets, algorithms
        Optional selection (and order); unknown names raise.

    Raises
    ------
    TreebenchError
        When a needed column is missing, a selected name is absent, or no
        trial is usable.
    """
    missing = [c for c in ("dataset", "algorithm", metric.name) if c not in frame.columns]
    if missing:
        raise TreebenchError(
            f"results frame lacks column(s) {', '.join(missing)}; found: {', '.join(map(str, frame.columns))}"
        )
    n_failed = 0
    if "status" in frame.columns:
        failed = frame["status"].astype(str) != "ok"
        n_failed = int(failed.sum())
        frame = frame[~failed]
    values = pd.to_numeric(frame[metric.name], errors="coerce")
    finite = np.isfinite(values.to_numpy(dtype=float))
    n_missing = int((~finite).sum())
    keep = [c for c in ("dataset", "algorithm", *PAIR_KEYS, "params") if c in frame.columns]
    out = frame.loc[finite, keep].copy()
    out["value"] = values[finite].astype(float)
    out["dataset"] = out["dataset"].astype(str)
    out["algorithm"] = out["algorithm"].astype(str)

    all_ds = tuple(dict.fromkeys(out["dataset"]))
    all_alg = tuple(dict.fromkeys(out["algorithm"]))
    ds = chosen_names(datasets, all_ds, "dataset")
    alg = chosen_names(algorithms, all_alg, "algorithm")
    out = out[out["dataset"].isin(ds) & out["algorithm"].isin(alg)].reset_index(drop=True)
    if out.empty:
        raise TreebenchError(
            f"no finished trial with a value for {metric.name!r} "
            f"({n_failed} failed, {n_missing} without a value)"
        )
    return Trials(out, metric, n_failed, n_missing, ds, alg)


def chosen_names(wanted: Sequence[str] | None, available: tuple[str, ...], what: str) -> tuple[str, ...]:
    """``wanted`` in its order (every name if empty), refusing a name that is not ``available``.

    The one names policy of every command that selects datasets or algorithms of a results
    store: an unknown name is an error naming it and the accepted ones, never dropped.
    """
    if not wanted:
        return available
    twice = first_repeat(wanted)
    if twice is not None:  # a name given twice would make a second, identical row or column
        raise TreebenchError(f"{what} {twice!r} is named twice; accepted: each {what} once")
    unknown = [w for w in wanted if w not in available]
    if unknown:
        raise TreebenchError(
            f"unknown {what} {unknown[0]!r} in the results; accepted: {', '.join(available)}"
        )
    return tuple(wanted)


def cell_summary(trials: Trials) -> pd.DataFrame:
    """Mean, sample std (ddof=1, as Weka) and count per (dataset, algorithm).

    Returns
    -------
    DataFrame
        Columns ``dataset, algorithm, mean, std, n``; ``std`` is NaN for a
        single trial.
    """
    g = trials.frame.groupby(["dataset", "algorithm"], sort=False)["value"]
    out = g.agg(mean="mean", std=lambda v: v.std(ddof=1) if len(v) > 1 else np.nan, n="size")
    return out.reset_index()


def means_matrix(trials: Trials) -> tuple[pd.DataFrame, list[str]]:
    """Datasets x algorithms matrix of per-dataset means, complete rows only.

    Across-dataset tests (Wilcoxon, Friedman) need every algorithm on every
    dataset; a dataset where some algorithm has no finished trial is dropped
    and named in the returned list so that reports can say so.
    """
    summary = cell_summary(trials)
    wide = summary.pivot(index="dataset", columns="algorithm", values="mean")
    wide = wide.reindex(index=list(trials.datasets), columns=list(trials.algorithms))
    incomplete = [str(d) for d in wide.index[wide.isna().any(axis=1)]]
    return wide.dropna(), incomplete


def refuse_duplicated_splits(frame: pd.DataFrame, store: str | Path) -> pd.DataFrame:
    """``frame`` (read from ``store``, no config) unless it holds one algorithm twice on one split.

    Such a store holds an earlier version of a config or a plugin beside the current one; read
    without its config, the two would be averaged (or one picked) without a word.

    Raises
    ------
    TreebenchError
        Naming the first duplicated split and the cells, and pointing to the config.
    """
    found = duplicated_splits(frame)
    if found is None:
        return frame
    raise TreebenchError(f"store {str(store)!r} holds {found}: trials of an earlier version of its config or of a "
                         "plugin, which a table would average in; accepted: a store with one trial per split, or "
                         "its config (`treebench compare CONFIG.yaml`, a board's DIR/config-N.yaml), which reads "
                         "only the config's current trials")
