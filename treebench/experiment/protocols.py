"""Evaluation protocols: pure functions from (seed, dataset, repeat) to splits.

The random streams and the splitters themselves are in :mod:`treebench.sampling`;
this module maps a config's :class:`ProtocolSpec` onto them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.experiment.specs import ProtocolSpec
from treebench.sampling import (  # noqa: F401 - re-exported: the protocol-level API
    INNER,
    MODEL,
    OUTER,
    Split,
    holdout,
    leave_one_out,
    model_seed,
    ordered,
    plain_kfold,
    rng_for,
    seed_sequence,
    stratified_kfold,
)

#: Extra column marking the rows of a ``{train: A, test: B}`` pair.
PAIR_COLUMN = "__part__"
#: Extra columns of an OpenML task, one per repeat (``__openml_fold_0``...): the
#: fold whose test part holds each row (-1: none, e.g. a holdout's training rows).
OPENML_FOLD_COLUMN = "__openml_fold_{}"


def openml_task(extra: pd.DataFrame, folds: int, repeat: int) -> list[Split]:
    """An OpenML task's splits of one repeat: fold ``f`` tests the rows marked ``f``
    in the repeat's column and trains on all the others (as the task's splits file says)."""
    column = OPENML_FOLD_COLUMN.format(repeat)
    if column not in extra.columns:
        raise TreebenchError(f"the dataset has no OpenML splits for repeat {repeat} (column {column!r})")
    codes = extra[column].to_numpy()
    return [(np.flatnonzero(codes != fold), np.flatnonzero(codes == fold)) for fold in range(folds)]


def fixed(extra: pd.DataFrame, column: str, train: str, test: str) -> Split:
    """Rows whose ``column`` equals ``train`` / ``test``; other rows are unused."""
    if column not in extra.columns:
        accepted = ", ".join(c for c in extra.columns if c != PAIR_COLUMN) or "none"
        raise TreebenchError(
            f"the dataset has no column {column!r} for the fixed split; accepted: {accepted}"
        )
    values = extra[column].astype(str).to_numpy()
    train_idx, test_idx = np.flatnonzero(values == str(train)), np.flatnonzero(values == str(test))
    if not len(train_idx) or not len(test_idx):
        found = ", ".join(sorted(set(values.tolist())))
        raise TreebenchError(
            f"column {column!r} has no {str(train)!r} or no {str(test)!r} rows; values found: {found}"
        )
    return train_idx, test_idx


# --------------------------------------------------------------------------- protocols
def n_folds(protocol: ProtocolSpec, n_rows: int) -> int:
    """Splits per repeat: ``folds`` for CV and OpenML tasks, ``n`` for leave-one-out, else 1."""
    if protocol.kind in ("cv", "openml"):
        return protocol.folds
    if protocol.kind == "loo":
        return n_rows
    return 1


def outer_splits(
    protocol: ProtocolSpec, seed: int, dataset: str, y: np.ndarray, extra: pd.DataFrame, repeat: int
) -> list[Split]:
    """The test splits of one repeat (``len == n_folds(protocol, len(y))``).

    A pure function of its arguments: ``dataset`` is the canonical name that
    seeds the stream, ``extra`` the dataset's non-feature columns (for the
    fixed protocol; for an OpenML task, its splits).
    """
    y = np.asarray(y)
    n = y.shape[0]
    if not 0 <= repeat < protocol.n_repeats:
        raise TreebenchError(
            f"repeat {repeat} is out of range; accepted: 0..{protocol.n_repeats - 1}"
        )
    rng = rng_for(seed, dataset, repeat, OUTER)
    if protocol.kind == "cv":
        return (
            stratified_kfold(y, protocol.folds, rng)
            if protocol.stratified
            else plain_kfold(n, protocol.folds, rng)
        )
    if protocol.kind == "holdout":
        return [holdout(y, protocol.test_size, rng, protocol.stratified)]
    if protocol.kind == "loo":
        return leave_one_out(n)
    if protocol.kind == "ordered":
        return [ordered(n, protocol.train_fraction)]
    if protocol.kind == "fixed":
        if not protocol.column:  # a {train: A, test: B} pair
            return [fixed(extra, PAIR_COLUMN, "train", "test")]
        return [fixed(extra, protocol.column, protocol.train, protocol.test)]
    if protocol.kind == "openml":
        return openml_task(extra, protocol.folds, repeat)
    raise TreebenchError(f"unknown protocol type {protocol.kind!r}")


def inner_splits(
    y_train: np.ndarray, folds: int, seed: int, dataset: str, repeat: int, outer_fold: int
) -> list[Split]:
    """Stratified inner CV on a training part (positions within it), shared by all algorithms."""
    n = len(y_train)
    rng = rng_for(seed, dataset, repeat, INNER, outer_fold)
    return stratified_kfold(y_train, min(folds, n), rng)
