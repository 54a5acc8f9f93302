"""Protocols: pure, stable, stratified splits; the same for every algorithm; tuning's tie-breaking."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from treebench.errors import TreebenchError
from treebench.experiment.config import (
    PAIR_PROTOCOL,
    AlgorithmSpec,
    DatasetSpec,
    ProtocolSpec,
    TuningSpec,
)
from treebench.experiment.protocols import inner_splits, n_folds, outer_splits
from treebench.experiment.trial import Trial, load_data, outer_split, run_trial, trial_key
from treebench.experiment.tuning import GridScore, best_index, grid_search
from treebench.learners.base import Learner

Y = np.repeat([0, 1, 2], [50, 30, 7])  # 87 rows, unbalanced classes
NO_EXTRA = pd.DataFrame(index=range(len(Y)))


def digest(splits) -> str:
    h = hashlib.sha256()
    for train, test in splits:
        h.update(np.asarray(train, dtype="<i8").tobytes() + b"|" + np.asarray(test, dtype="<i8").tobytes() + b";")
    return h.hexdigest()[:16]


def check_partition(splits, n):
    for train, test in splits:
        assert len(np.intersect1d(train, test)) == 0
        assert np.all(np.diff(train) > 0) and np.all(np.diff(test) > 0)  # sorted, unique
        assert len(train) + len(test) == n


def test_stratified_cv_partitions_every_row_once_with_balanced_folds():
    splits = outer_splits(ProtocolSpec("cv", folds=5), 0, "toy", Y, NO_EXTRA, 0)
    check_partition(splits, len(Y))
    tests = np.concatenate([test for _, test in splits])
    assert sorted(tests.tolist()) == list(range(len(Y)))
    sizes = [len(test) for _, test in splits]
    assert max(sizes) - min(sizes) <= 1
    for c, total in zip(range(3), (50, 30, 7)):
        per_fold = [int(np.sum(Y[test] == c)) for _, test in splits]
        assert sum(per_fold) == total and max(per_fold) - min(per_fold) <= 1


def test_splits_are_a_pure_function_of_seed_dataset_and_repeat():
    cv = ProtocolSpec("cv", folds=5, repeats=3)
    first = outer_splits(cv, 11, "toy", Y, NO_EXTRA, 1)
    assert digest(first) == digest(outer_splits(cv, 11, "toy", Y, NO_EXTRA, 1))
    assert digest(first) != digest(outer_splits(cv, 11, "toy", Y, NO_EXTRA, 2))
    assert digest(first) != digest(outer_splits(cv, 12, "toy", Y, NO_EXTRA, 1))
    assert digest(first) != digest(outer_splits(cv, 11, "other", Y, NO_EXTRA, 1))
    with pytest.raises(TreebenchError, match="repeat 3 is out of range; accepted: 0..2"):
        outer_splits(cv, 11, "toy", Y, NO_EXTRA, 3)


def test_splits_are_stable_across_processes_and_versions():
    """Pinned digests: a change here silently changes every stored result (bump KEY_VERSION)."""
    code = (
        "import numpy as np, pandas as pd\n"
        "from treebench.experiment.protocols import outer_splits\n"
        "from treebench.experiment.config import ProtocolSpec\n"
        "y = np.repeat([0, 1, 2], [50, 30, 7])\n"
        "s = outer_splits(ProtocolSpec('cv', folds=5), 0, 'toy', y, pd.DataFrame(index=range(87)), 0)\n"
        "print(' '.join(map(str, s[0][1])))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    here = outer_splits(ProtocolSpec("cv", folds=5), 0, "toy", Y, NO_EXTRA, 0)
    assert [int(v) for v in out] == here[0][1].tolist()
    pinned = {
        "cv": digest(here),
        "holdout": digest(outer_splits(ProtocolSpec("holdout", test_size=0.3, repeats=2), 0, "toy", Y, NO_EXTRA, 1)),
        "inner": digest(inner_splits(Y, 3, 0, "toy", 0, 4)),
    }
    assert pinned == {"cv": "284c879f0e1ac12e", "holdout": "eb9dd47e58bddddc", "inner": "db875993058e2258"}


def test_holdout_is_stratified_with_the_exact_test_size():
    train, test = outer_splits(ProtocolSpec("holdout", test_size=0.3, repeats=10), 5, "toy", Y, NO_EXTRA, 9)[0]
    check_partition([(train, test)], len(Y))
    assert len(test) == round(0.3 * 87) == 26
    assert np.bincount(Y[test]).tolist() == [15, 9, 2]  # 14.9, 9.0, 2.1 by largest remainders
    plain = outer_splits(ProtocolSpec("holdout", test_size=0.3, stratified=False), 5, "toy", Y, NO_EXTRA, 0)
    assert len(plain[0][1]) == 26


def test_leave_one_out_ordered_and_fixed():
    loo = outer_splits(ProtocolSpec("loo"), 0, "toy", Y[:6], NO_EXTRA.iloc[:6], 0)
    assert [t.tolist() for _, t in loo] == [[i] for i in range(6)]
    assert n_folds(ProtocolSpec("loo"), 6) == 6
    (train, test), = outer_splits(ProtocolSpec("ordered", train_fraction=0.8), 0, "toy", Y, NO_EXTRA, 0)
    assert train.tolist() == list(range(69)) and test.tolist() == list(range(69, 87))
    extra = pd.DataFrame({"split": ["train", "test", "other", "train"]})
    (train, test), = outer_splits(ProtocolSpec("fixed", column="split"), 0, "toy", Y[:4], extra, 0)
    assert train.tolist() == [0, 3] and test.tolist() == [1]
    with pytest.raises(TreebenchError, match="no column 'part' for the fixed split; accepted: split"):
        outer_splits(ProtocolSpec("fixed", column="part"), 0, "toy", Y[:4], extra, 0)
    with pytest.raises(TreebenchError, match="cannot make 5 folds of 4 rows"):
        outer_splits(ProtocolSpec("cv", folds=5), 0, "toy", Y[:4], extra, 0)


def test_a_train_test_pair_is_trained_on_one_and_tested_on_the_other():
    spec = DatasetSpec("pair", None, PAIR_PROTOCOL, train="iris", test="wine", expected_rows=0)
    with pytest.raises(TreebenchError, match="do not have the same columns"):
        load_data(spec)
    spec = DatasetSpec("pair", None, PAIR_PROTOCOL, train="iris", test="iris", expected_rows=0)
    data = load_data(spec)
    train, test = outer_splits(PAIR_PROTOCOL, 0, spec.seed_name, data.y, data.extra, 0)[0]
    assert train.tolist() == list(range(150)) and test.tolist() == list(range(150, 300))


def _trial(algorithm: AlgorithmSpec, dataset: DatasetSpec, fold: int, checksum: str) -> Trial:
    key = trial_key("t", dataset, checksum, algorithm, TuningSpec(), 4, 0, fold)
    return Trial(key, "t", dataset, checksum, algorithm, TuningSpec(folds=3), 4, 0, fold)


def test_every_algorithm_sees_exactly_the_same_splits():
    dataset = DatasetSpec("iris", "iris", ProtocolSpec("cv", folds=4), expected_rows=150)
    data = load_data(dataset)
    algorithms = [
        AlgorithmSpec("a", criterion="entropy"),
        AlgorithmSpec("b", criterion="possibilistic", grid=(("gamma", (0.1, 0.3)),)),
        AlgorithmSpec("c", baseline="sklearn-cart"),
    ]
    for fold in range(4):
        splits = [outer_split(_trial(a, dataset, fold, data.checksum), data) for a in algorithms]
        assert len({digest([s]) for s in splits}) == 1
        results = [run_trial(_trial(a, dataset, fold, data.checksum)) for a in algorithms]
        assert {(r.status, r.n_train, r.n_test) for r in results} == {("ok", 112 + (fold > 1), 38 - (fold > 1))}


def test_trial_keys_change_with_everything_that_determines_a_trial():
    dataset = DatasetSpec("iris", "iris", ProtocolSpec("cv", folds=4))
    algo = AlgorithmSpec("a", criterion="possibilistic", grid=(("gamma", (0.1, 0.3)),))
    base = trial_key("t", dataset, "abc", algo, TuningSpec(), 1, 0, 0)
    assert base == trial_key("t", dataset, "abc", algo, TuningSpec(), 1, 0, 0)
    variants = [
        trial_key("t", dataset, "abd", algo, TuningSpec(), 1, 0, 0),  # data changed
        trial_key("t", dataset, "abc", algo, TuningSpec(folds=3), 1, 0, 0),  # inner CV changed
        trial_key("t", dataset, "abc", algo, TuningSpec(), 2, 0, 0),
        trial_key("t", dataset, "abc", algo, TuningSpec(), 1, 0, 1),
        trial_key("t", DatasetSpec("iris", "iris", ProtocolSpec("cv", folds=5)), "abc", algo, TuningSpec(), 1, 0, 0),
        trial_key("t", dataset, "abc", AlgorithmSpec("a", criterion="possibilistic", grid=(("gamma", (0.1,)),)),
                  TuningSpec(), 1, 0, 0),
    ]
    assert len({base, *variants}) == 1 + len(variants)
    # without a grid the tuning settings do not matter
    plain = AlgorithmSpec("p", criterion="gini")
    assert trial_key("t", dataset, "abc", plain, TuningSpec(), 1, 0, 0) == trial_key(
        "t", dataset, "abc", plain, TuningSpec(folds=9), 1, 0, 0
    )


class FakeLearner(Learner):
    """Predicts a constant class; ``leaves`` is a param, so ties can be arranged."""

    def fit(self, params, X, y, prepared=None):
        return params

    def predict(self, model, X):
        return np.full(len(X), model["label"])

    def n_leaves(self, model):
        return model["leaves"]


def test_tuning_ties_go_to_fewer_leaves_then_to_the_first_grid_point():
    X = pd.DataFrame({"f": np.arange(12.0)})
    y = np.array([0] * 6 + [1] * 6)
    inner = inner_splits(y, 3, 0, "toy", 0, 0)
    points = [
        {"label": 0, "leaves": 5},
        {"label": 1, "leaves": 3},  # same accuracy as label 0, fewer leaves: wins
        {"label": 1, "leaves": 3},  # an exact tie with the previous: the first one wins
        {"label": 2, "leaves": 1},  # never right
    ]
    outcome = grid_search(FakeLearner(), {}, points, X, y, inner)
    assert [(s.correct, s.leaves) for s in outcome.scores] == [(6, 15), (6, 9), (6, 9), (0, 3)]
    assert outcome.chosen == points[1]
    assert best_index([GridScore({}, 5, 10, 9), GridScore({}, 6, 10, 90)]) == 1  # accuracy first
    assert grid_search(FakeLearner(), {}, [{"label": 0}], X, y, []).chosen == {"label": 0}


def test_chosen_values_are_stored_with_the_trial():
    dataset = DatasetSpec("iris", "iris", ProtocolSpec("cv", folds=3))
    data = load_data(dataset)
    algo = AlgorithmSpec("pi", criterion="possibilistic", params=(("min_samples_leaf", 2),),
                         grid=(("gamma", (0.001, 0.3)),))
    result = run_trial(_trial(algo, dataset, 0, data.checksum))
    assert result.status == "ok"
    import json

    chosen = json.loads(result.chosen)
    assert set(chosen) == {"gamma"} and chosen["gamma"] in (0.001, 0.3)
    assert json.loads(result.params) == {"min_samples_leaf": 2, **chosen}
    assert result.tree_quality is not None and result.n_leaves >= 1


def test_pruning_is_applied_to_the_trial_tree():
    dataset = DatasetSpec("wine", "wine", ProtocolSpec("cv", folds=3))
    data = load_data(dataset)
    leaves = {}
    for pruning in (None, "pessimistic", "cost-complexity"):
        params = (("ccp_alpha", 0.02),) if pruning == "cost-complexity" else ()
        algo = AlgorithmSpec("id3", criterion="entropy", params=params, pruning=pruning)
        result = run_trial(_trial(algo, dataset, 0, data.checksum))
        assert result.status == "ok", result.error_text
        leaves[pruning] = result.n_leaves
    assert leaves["pessimistic"] < leaves[None] and leaves["cost-complexity"] < leaves[None]
