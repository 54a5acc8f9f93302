"""A two-level paired bootstrap: resample datasets, then the paired splits inside each.

A benchmark result is nested: a handful of datasets, and inside each dataset
several outer splits (``(repeat, fold)`` pairs) on which every algorithm was
fitted on the same training part and scored on the same test part.  An
interval for an effect over the benchmark (e.g. the mean accuracy difference
of two algorithms over the datasets) has to carry both sources of
variability, so :func:`nested_bootstrap` draws each resample in two stages:

1. draw ``n`` datasets with replacement from the ``n`` datasets;
2. for every dataset drawn (each draw separately, so a dataset drawn twice
   gets two independent inner resamples), draw its ``m`` split rows with
   replacement.  A row holds the values of all algorithms on that split,
   which keeps the pairing.

Each dataset's resampled rows are averaged column by column, turned into one
number by the dataset's ``summary`` (e.g. ``a - b``, or the sign of it), and
the resample's statistic is ``aggregate`` of those numbers over the datasets
(by default their mean).  The interval is the percentile interval of the
resampled statistics; the estimate is the statistic of the data as observed.
Everything is drawn from one ``numpy.random.default_rng(seed)``, so the same
inputs and seed give the same interval.

A dataset with a single split contributes its one row every time (no
within-dataset variability can be estimated from one split); with a single
dataset only the splits are resampled; with one dataset of one split the
interval is the point.

A dataset on which the algorithms did not see the same splits (a paper that
ran one of them under another protocol: one baseline under 25-fold CV,
the others under leave-one-out) has no rows to keep paired: it is given as
:class:`UnpairedColumns`, and stage 2 resamples each column's values on its
own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from treebench.errors import TreebenchError

#: Resamples and seed used when the caller gives none (documented in docs/reports.md).
DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 20

#: Rows x columns of split values drawn at once for one dataset (bounds the memory of a chunk).
_CHUNK_CELLS = 4_000_000

@dataclass(frozen=True)
class UnpairedColumns:
    """One dataset's values per column when the columns were measured on different splits.

    Attributes
    ----------
    columns
        One 1-D array per algorithm (column), each of its own length: the
        algorithm's values on its own splits.
    """

    columns: tuple[np.ndarray, ...]

    def column_means(self) -> np.ndarray:
        """The mean of every column, shape ``(k,)``."""
        return np.array([float(np.mean(c)) for c in self.columns])

    def __len__(self) -> int:
        """The fewest splits of any column (a dataset "has" as many rows as its shortest column)."""
        return min(len(c) for c in self.columns)


def unit_means(unit: np.ndarray | UnpairedColumns) -> np.ndarray:
    """The column means of one dataset's values, shape ``(k,)``, paired or not."""
    if isinstance(unit, UnpairedColumns):
        return unit.column_means()
    arr = np.asarray(unit, dtype=float)
    return arr.reshape(len(arr), -1).mean(axis=0)


Summary = Callable[[np.ndarray], np.ndarray]
Aggregate = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class BootstrapInterval:
    """A statistic of the observed data and its percentile bootstrap interval.

    Attributes
    ----------
    estimate
        The statistic on the data as observed.
    low, high
        The ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the resampled statistics.
    level
        Coverage of the interval (0.95 by default).
    resamples, seed
        How many resamples were drawn, and from which seed.
    n_units
        Number of datasets (outer units).
    n_splits
        Number of split rows of each dataset, in input order.
    """

    estimate: float
    low: float
    high: float
    level: float
    resamples: int
    seed: int
    n_units: int
    n_splits: tuple[int, ...]

    def contains(self, value: float, tol: float = 1e-9) -> bool:
        """Whether ``value`` lies in ``[low, high]`` (with a small relative tolerance)."""
        slack = tol * max(1.0, abs(value), abs(self.low), abs(self.high))
        return self.low - slack <= value <= self.high + slack


def _as_rows(unit: np.ndarray | UnpairedColumns) -> np.ndarray | UnpairedColumns:
    if isinstance(unit, UnpairedColumns):
        columns = tuple(np.asarray(c, dtype=float).ravel() for c in unit.columns)
        if not columns or any(c.size == 0 for c in columns):
            raise TreebenchError("every column of an unpaired dataset needs at least one value")
        if not all(np.all(np.isfinite(c)) for c in columns):
            raise TreebenchError("bootstrap values must be finite; drop the splits without a value first")
        return UnpairedColumns(columns)
    arr = np.asarray(unit, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise TreebenchError("every dataset of a bootstrap needs at least one split row with one value")
    if not np.all(np.isfinite(arr)):
        raise TreebenchError("bootstrap values must be finite; drop the splits without a value first")
    return arr


def _first_column(means: np.ndarray) -> np.ndarray:
    return means[:, 0]


def _mean_over_units(values: np.ndarray) -> np.ndarray:
    return values.mean(axis=1)


def _resampled_means(rng: np.random.Generator, rows: np.ndarray | UnpairedColumns, count: int) -> np.ndarray:
    """``count`` resamples (with replacement) of the rows of one dataset, each averaged by column.

    Unpaired columns are resampled one by one, each from its own values.
    """
    if isinstance(rows, UnpairedColumns):
        return np.column_stack([_resampled_means(rng, c[:, None], count)[:, 0] for c in rows.columns])
    m, k = rows.shape
    if m == 1:
        return np.repeat(rows, count, axis=0)
    out = np.empty((count, k))
    step = max(1, _CHUNK_CELLS // (m * k))
    for start in range(0, count, step):
        stop = min(count, start + step)
        idx = rng.integers(0, m, size=(stop - start, m))
        out[start:stop] = rows[idx].mean(axis=1)
    return out


def nested_bootstrap(
    units: Sequence[np.ndarray],
    summary: Summary | Sequence[Summary] | None = None,
    aggregate: Aggregate | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> BootstrapInterval:
    """Percentile interval of a statistic over datasets, resampling datasets and their paired splits.

    Parameters
    ----------
    units
        One array per dataset, shape ``(splits, k)`` (or ``(splits,)`` for
        ``k = 1``): row ``r`` holds the ``k`` paired values of split ``r``
        (e.g. the accuracies of ``k`` algorithms on the same test part); or
        :class:`UnpairedColumns` for a dataset whose algorithms saw different
        splits.
    summary
        Maps an ``(r, k)`` array of column means (one row per draw of that
        dataset) to ``r`` numbers; one function for every dataset, or one per
        dataset (datasets may then have different ``k``).  Default: the first
        column.
    aggregate
        Maps an ``(resamples, n_units)`` array of per-dataset numbers to
        ``resamples`` statistics.  Default: the mean over the datasets.
    resamples
        Number of bootstrap resamples.
    level
        Coverage of the interval.
    seed
        Seed of the one random generator every draw comes from.

    Returns
    -------
    BootstrapInterval

    Raises
    ------
    TreebenchError
        With no dataset, an empty or non-finite dataset, or a bad ``level``.
    """
    if not units:
        raise TreebenchError("a bootstrap needs at least one dataset")
    if not 0.0 < level < 1.0:
        raise TreebenchError(f"the interval level must lie strictly between 0 and 1, got {level}")
    if resamples < 1:
        raise TreebenchError(f"a bootstrap needs at least one resample, got {resamples}")
    rows = [_as_rows(u) for u in units]
    n = len(rows)
    summaries = list(summary) if isinstance(summary, Sequence) else [summary or _first_column] * n
    if len(summaries) != n:
        raise TreebenchError(f"{len(summaries)} summaries for {n} datasets")
    aggregate = aggregate or _mean_over_units

    observed = np.array([float(np.asarray(f(unit_means(r)[None, :]))[0]) for f, r in zip(summaries, rows)])
    estimate = float(np.asarray(aggregate(observed[None, :]))[0])

    rng = np.random.default_rng(seed)
    picks = rng.integers(0, n, size=(resamples, n)) if n > 1 else np.zeros((resamples, 1), dtype=int)
    values = np.empty((resamples, n))
    for i, (f, r) in enumerate(zip(summaries, rows)):
        where = np.nonzero(picks == i)
        if where[0].size:
            values[where] = np.asarray(f(_resampled_means(rng, r, where[0].size)), dtype=float)
    stats = np.asarray(aggregate(values), dtype=float)
    low, high = np.quantile(stats, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return BootstrapInterval(estimate, float(low), float(high), level, resamples, seed, n,
                             tuple(len(r) for r in rows))
