"""Seeded random streams and the row splitters built on them.

Every random stream of an experiment is derived from the experiment seed, the
dataset's canonical name and the repeat (plus a purpose code and, for inner
CV, the outer fold) with :class:`numpy.random.SeedSequence` -- never from
trial order, algorithm or worker.  So every algorithm of a config sees exactly
the same splits, and any backend computes the same numbers.

Splits are ``(train_idx, test_idx)`` pairs of sorted ``int64`` row positions.
The stratified k-fold here is treebench's own (not scikit-learn's) so that
splits cannot change with a scikit-learn upgrade.  This module sits at the
bottom of the package (numpy and :mod:`treebench.errors` only): learners that
tune themselves by inner CV use it as much as the experiment layer does.
"""

from __future__ import annotations

import hashlib

import numpy as np

from treebench.errors import TreebenchError

Split = tuple[np.ndarray, np.ndarray]

#: Purpose codes keep the streams of one (seed, dataset, repeat) independent.
OUTER, INNER, MODEL = 0, 1, 2


def _name_words(name: str) -> list[int]:
    # Python's hash() is salted per process; a digest is stable everywhere.
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]


def seed_sequence(
    seed: int, dataset: str, repeat: int, purpose: int, *more: int
) -> np.random.SeedSequence:
    """The seed of one random stream; see the module docstring."""
    return np.random.SeedSequence(
        [int(seed), *_name_words(dataset), int(repeat), int(purpose), *map(int, more)]
    )


def rng_for(seed: int, dataset: str, repeat: int, purpose: int, *more: int) -> np.random.Generator:
    return np.random.default_rng(seed_sequence(seed, dataset, repeat, purpose, *more))


def model_seed(seed: int, dataset: str, repeat: int, fold: int) -> int:
    """A 31-bit seed for learners that need one (scikit-learn's ``random_state``)."""
    return int(seed_sequence(seed, dataset, repeat, MODEL, fold).generate_state(1)[0] & 0x7FFFFFFF)


# --------------------------------------------------------------------------- building blocks
def stratified_kfold(y: np.ndarray, k: int, rng: np.random.Generator) -> list[Split]:
    """``k`` folds with each class spread as evenly as possible.

    Each class's rows are shuffled, the classes concatenated (in code order)
    and position ``i`` goes to fold ``i mod k``: fold sizes differ by at most
    one and every class is split as evenly as its size allows.
    """
    y = np.asarray(y)
    n = y.shape[0]
    if not 2 <= k <= n:
        raise TreebenchError(f"cannot make {k} folds of {n} rows; accepted: 2 <= folds <= {n}")
    order = np.concatenate([rng.permutation(np.flatnonzero(y == c)) for c in np.unique(y)])
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[order] = np.arange(n) % k
    return _from_labels(fold_of, k)


def plain_kfold(n: int, k: int, rng: np.random.Generator) -> list[Split]:
    """``k`` folds of a random permutation, ignoring classes."""
    if not 2 <= k <= n:
        raise TreebenchError(f"cannot make {k} folds of {n} rows; accepted: 2 <= folds <= {n}")
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[rng.permutation(n)] = np.arange(n) % k
    return _from_labels(fold_of, k)


def _from_labels(fold_of: np.ndarray, k: int) -> list[Split]:
    return [(np.flatnonzero(fold_of != f), np.flatnonzero(fold_of == f)) for f in range(k)]


def holdout(
    y: np.ndarray, test_size: float, rng: np.random.Generator, stratified: bool = True
) -> Split:
    """One random train/test split with ``round(n * test_size)`` test rows.

    Stratified: each class gives its share of the test rows, rounded by the
    largest-remainder rule (ties to the lower class code), so the total is exact.
    """
    y = np.asarray(y)
    n = y.shape[0]
    n_test = int(np.floor(n * test_size + 0.5))
    if not 1 <= n_test <= n - 1:
        raise TreebenchError(f"test_size={test_size:g} leaves an empty part of {n} rows")
    if not stratified:
        order = rng.permutation(n)
        return np.sort(order[n_test:]), np.sort(order[:n_test])
    classes, sizes = np.unique(y, return_counts=True)
    ideal = sizes * n_test / n
    share = np.floor(ideal).astype(np.int64)
    remainder = n_test - int(share.sum())
    # stable sort on the negated fractions: largest fraction first, lower code on ties
    share[np.argsort(-(ideal - share), kind="stable")[:remainder]] += 1
    test = [rng.permutation(np.flatnonzero(y == c))[:m] for c, m in zip(classes, share)]
    test_idx = np.sort(np.concatenate(test))
    mask = np.ones(n, dtype=bool)
    mask[test_idx] = False
    return np.flatnonzero(mask), test_idx


def leave_one_out(n: int) -> list[Split]:
    everything = np.arange(n)
    return [(np.delete(everything, i), np.array([i])) for i in range(n)]


def ordered(n: int, train_fraction: float) -> Split:
    """First ``floor(n * train_fraction)`` rows train, the rest test (row order kept)."""
    cut = int(np.floor(n * train_fraction))
    if not 1 <= cut <= n - 1:
        raise TreebenchError(f"train_fraction={train_fraction:g} leaves an empty part of {n} rows")
    return np.arange(cut), np.arange(cut, n)
