"""Algorithms run under different protocols (paper 001: CART 25-fold, MEE and C4.5 leave-one-out).

Fold ``f`` of one protocol and fold ``f`` of another are different test sets,
so nothing may pair them: paired tests leave such datasets out, an effect's
bootstrap resamples each algorithm on its own, and a test over cases compares
0/1 values of one kind.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from treebench.errors import TreebenchError
from treebench.report.cells import case_values, paired_values
from treebench.stats.bootstrap import UnpairedColumns, nested_bootstrap, unit_means
from treebench.stats.frame import Trials, pair_keys


def _trials(algorithm: str, protocol: str, errors: list[float], n_test: int, dataset: str = "d") -> pd.DataFrame:
    return pd.DataFrame({"dataset": dataset, "algorithm": algorithm, "protocol": protocol, "repeat": 0,
                         "fold": range(len(errors)), "status": "ok", "error": errors,
                         "accuracy": [1 - e for e in errors], "n_test": n_test})


def _mixed() -> pd.DataFrame:
    loo = _trials("mee", "loo", [0, 1, 0, 0, 1, 0, 0, 0], 1)
    loo_c45 = _trials("c45", "loo", [0, 0, 0, 1, 1, 0, 0, 0], 1)
    cv = _trials("cart", "cv4x1", [0.5, 0.0, 0.5, 0.0], 2)
    return pd.concat([loo, loo_c45, cv], ignore_index=True)


def test_folds_of_different_protocols_never_pair():
    frame = _mixed()
    # same protocol: paired split by split, as before
    same = paired_values(frame, ["mee", "c45"], "error", "fraction")
    assert same["d"].shape == (8, 2)
    # fold 0..3 of the 4-fold CV are not LOO's cases 0..3: no shared split, so no paired rows
    assert paired_values(frame, ["mee", "cart"], "error", "fraction") == {}
    # an effect's bootstrap may take each algorithm's own values instead
    unpaired = paired_values(frame, ["mee", "cart"], "error", "fraction", unpaired=True)["d"]
    assert isinstance(unpaired, UnpairedColumns)
    assert [len(c) for c in unpaired.columns] == [8, 4]
    assert unit_means(unpaired) == pytest.approx([0.25, 0.25])


def test_the_paired_tests_of_a_results_frame_pair_only_within_a_protocol():
    frame = _mixed().assign(value=lambda f: f["error"])
    trials = Trials(frame, None, 0, 0, ("d",), ("mee", "c45", "cart"))
    a, b = trials.paired("d", "mee", "cart")
    assert a.size == 0 and b.size == 0
    a, b = trials.paired("d", "mee", "c45")
    assert a.size == 8
    # a frame without a protocol label keeps its rows (the empty label), not dropped by the pivot
    no_label = frame.assign(protocol=None)
    keyed, keys = pair_keys(no_label)
    assert keys == ["protocol", "repeat", "fold"] and (keyed["protocol"] == "").all()


def test_the_unpaired_bootstrap_resamples_each_column_on_its_own():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0.0, 1.0, 40), rng.normal(1.0, 1.0, 15)
    ci = nested_bootstrap([UnpairedColumns((a, b))], lambda m: m[:, 1] - m[:, 0], resamples=4000)
    assert ci.estimate == pytest.approx(b.mean() - a.mean())
    # the spread of a difference of two independent means: sqrt(var_a / n_a + var_b / n_b)
    se = np.sqrt(a.var() / a.size + b.var() / b.size)
    assert ci.high - ci.low == pytest.approx(2 * 1.96 * se, rel=0.15)
    assert ci.n_splits == (15,)
    with pytest.raises(TreebenchError, match="at least one value"):
        nested_bootstrap([UnpairedColumns((a, np.array([])))])
    with pytest.raises(TreebenchError, match="finite"):
        nested_bootstrap([UnpairedColumns((a, np.array([np.nan])))])


def test_case_values_turn_trials_of_any_size_into_zero_one_cases():
    frame = _mixed()
    cart = case_values(frame[frame["algorithm"] == "cart"], "error")
    assert sorted(cart.tolist()) == [0.0] * 6 + [1.0] * 2  # 8 cases, 2 errors, as its 4 folds of 2 say
    mee = case_values(frame[frame["algorithm"] == "mee"], "error")
    assert mee.tolist() == [0, 1, 0, 0, 1, 0, 0, 0]
    assert case_values(frame[frame["algorithm"] == "cart"], "accuracy").sum() == 6
    assert case_values(frame, "n_leaves") is None
    assert case_values(frame.drop(columns="n_test"), "error") is None


def test_a_joined_config_fills_in_the_algorithms_the_paper_ran_under_another_protocol(tmp_path, monkeypatch):
    from treebench.experiment.runner import run_experiment
    from treebench.papers.catalogue import get_paper
    from treebench.papers.reproduce import paper_trials
    from treebench.report.source import store_path_for_config

    monkeypatch.chdir(tmp_path)
    Path("configs").mkdir()
    base = {"seed": 1, "datasets": ["iris"], "metrics": ["accuracy", "n_leaves"]}
    main = {**base, "experiment": "main", "protocol": {"type": "cv", "folds": 3, "repeats": 1},
            "algorithms": [{"name": "id3", "criterion": "entropy"}, {"name": "cart", "criterion": "gini"}],
            "store": "results/main.sqlite"}
    other = {**base, "experiment": "other", "protocol": {"type": "cv", "folds": 5, "repeats": 1},
             "algorithms": [{"name": "cart", "criterion": "gini"}, {"name": "c45", "criterion": "gain_ratio"}],
             "store": "results/other.sqlite"}
    for name, cfg in (("main", main), ("other", other)):
        Path(f"configs/{name}.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    spec = get_paper("mee")
    from dataclasses import replace

    spec = replace(spec, joined=("configs/other.yaml",))
    main_cfg = Path("configs/main.yaml")
    # a joined config without a store adds nothing yet
    run_experiment(main_cfg, jobs=1)
    alone = paper_trials(spec, main_cfg, store_path_for_config(main_cfg))
    assert set(alone["algorithm"]) == {"id3", "cart"}
    run_experiment(Path("configs/other.yaml"), jobs=1)
    frame = paper_trials(spec, main_cfg, store_path_for_config(main_cfg))
    per = frame.groupby("algorithm")["protocol"].agg(lambda p: sorted(set(p)))
    # the paper's own store keeps its cart; the joined config adds only what it lacks (c45, 5-fold)
    assert per.to_dict() == {"cart": ["cv3x1"], "id3": ["cv3x1"], "c45": ["cv5x1"]}
    assert (frame["algorithm"] == "c45").sum() == 5
