"""Issue 30, items 1-2: metrics beyond accuracy in configs, tuning and compare; kept predictions; McNemar."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from treebench.cli import cli
from treebench.errors import TreebenchError
from treebench.experiment import predictions as P
from treebench.experiment.config import parse_config
from treebench.report.source import load_frame
from treebench.stats.prediction_metrics import score_predictions

METRICS = ["accuracy", "balanced_accuracy", "f1_macro", "kappa", "log_loss", "roc_auc_ovr"]


def _write(tmp_path: Path, body: str, name: str = "m") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(body.replace("STORE", str(tmp_path / f"{name}.sqlite")), encoding="utf-8")
    return path


CONFIG = """\
experiment: metrics
seed: 5
datasets: [iris, wine]
protocol: {type: cv, folds: 3, repeats: 1}
tuning: {folds: 3, metric: f1_macro}
predictions: true
metrics: [accuracy, balanced_accuracy, f1_macro, kappa, log_loss, roc_auc_ovr]
algorithms:
  - name: pitree
    criterion: possibilistic
    grid: {gamma: [0.01, 0.3]}
  - name: c45
    baseline: c4.5
  - name: cart
    baseline: sklearn-cart
store: STORE
"""


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("metrics")
    config = _write(tmp, CONFIG)
    result = CliRunner().invoke(cli, ["run", str(config), "--jobs", "1", "-q"])
    assert result.exit_code == 0, result.output
    return config


def test_every_metric_is_stored_and_equals_its_recomputation_from_the_kept_predictions(ran):
    frame = load_frame(ran)
    assert (frame["status"] == "ok").all() and len(frame) == 2 * 3 * 3
    store = ran.with_suffix(".sqlite")
    for row in frame.itertuples(index=False):
        kept = P.read(store, row.trial_key)
        assert kept is not None and kept.proba is not None
        again = score_predictions(METRICS[1:], kept.y_true, kept.y_pred, kept.proba.astype(float), kept.classes)
        for name, value in again.items():
            assert getattr(row, name) == pytest.approx(value, rel=1e-5, abs=1e-6), (row.algorithm, name)
        assert row.accuracy == pytest.approx(np.mean(kept.y_true == kept.y_pred))


def test_tuning_on_f1_macro_is_part_of_the_key_and_chooses_by_it(ran, tmp_path):
    frame = load_frame(ran)
    chosen = frame.loc[frame["algorithm"] == "pitree", "chosen"].map(json.loads)
    assert all("gamma" in c for c in chosen)
    keys = set(frame["trial_key"])
    other = _write(tmp_path, CONFIG.replace("metric: f1_macro", "metric: accuracy"), "acc")
    from treebench.experiment.runner import plan

    assert keys.isdisjoint({t.key for t in plan(parse_config(other.read_text(), str(other)))
                            if t.algorithm.name == "pitree"})


@pytest.mark.parametrize("metric", ["f1_macro", "roc_auc_ovr", "balanced_accuracy"])
def test_compare_on_the_new_metrics(ran, metric):
    result = CliRunner().invoke(cli, ["compare", str(ran), "--metric", metric, "--test", "ttest"])
    assert result.exit_code == 0, result.output
    assert "iris" in result.output and "pitree" in result.output


def test_compare_computes_a_metric_the_store_did_not_keep_from_its_predictions(tmp_path):
    config = _write(tmp_path, CONFIG.replace("metrics: [accuracy, balanced_accuracy, f1_macro, kappa, log_loss, "
                                             "roc_auc_ovr]", "metrics: [accuracy]").replace("metric: f1_macro",
                                                                                             "metric: accuracy"), "plain")
    assert CliRunner().invoke(cli, ["run", str(config), "--jobs", "1", "-q"]).exit_code == 0
    assert "kappa" not in load_frame(config).columns
    result = CliRunner().invoke(cli, ["compare", str(config), "--metric", "kappa", "--test", "ttest"])
    assert result.exit_code == 0, result.output
    assert "kappa" in result.output.lower()
    exported = CliRunner().invoke(cli, ["results", "export", str(tmp_path / "plain.sqlite"), "--predictions",
                                        "--out", str(tmp_path / "p.csv")])
    assert exported.exit_code == 0, exported.output
    table = pd.read_csv(tmp_path / "p.csv")
    assert len(table) == 3 * (150 + 178) and {"truth", "predicted", "proba_0"} <= set(table.columns)


def test_a_store_without_kept_predictions_says_how_to_get_the_metric(tmp_path):
    config = _write(tmp_path, "experiment: bare\nseed: 1\ndatasets: [iris]\nprotocol: {type: cv, folds: 3}\n"
                              "algorithms:\n  - {name: e, criterion: entropy}\nstore: STORE\n", "bare")
    assert CliRunner().invoke(cli, ["run", str(config), "--jobs", "1", "-q"]).exit_code == 0
    result = CliRunner().invoke(cli, ["compare", str(config), "--metric", "kappa"])
    assert result.exit_code != 0 and "kept no predictions" in str(result.exception)


def test_mcnemar_on_a_holdout_config(tmp_path):
    config = _write(tmp_path, "experiment: one\nseed: 2\ndatasets: [wine, iris]\n"
                              "protocol: {type: holdout, test_size: 0.5, repeats: 1}\npredictions: true\n"
                              "algorithms:\n  - {name: entropy, criterion: entropy}\n  - {name: gini, criterion: gini}\n"
                              "  - {name: c45, baseline: c4.5}\nstore: STORE\n", "one")
    assert CliRunner().invoke(cli, ["run", str(config), "--jobs", "1", "-q"]).exit_code == 0
    result = CliRunner().invoke(cli, ["compare", str(config), "--test", "mcnemar", "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = pd.read_csv(__import__("io").StringIO(result.output))
    assert set(rows["dataset"]) == {"wine", "iris"} and set(rows["algorithm"]) == {"gini", "c45"}
    assert ((rows["p"] >= 0) & (rows["p"] <= 1) & (rows["p_adjusted"] >= rows["p"])).all()
    # the counts are those of the kept predictions
    store = tmp_path / "one.sqlite"
    frame = load_frame(store)
    truth, base, other = P.paired_cases(store, frame, "wine", "entropy", "gini")
    wine = rows[(rows["dataset"] == "wine") & (rows["algorithm"] == "gini")].iloc[0]
    assert wine["only_algorithm_right"] == int(np.sum((other == truth) & (base != truth)))
    md = CliRunner().invoke(cli, ["compare", str(config), "--test", "mcnemar"])
    assert md.exit_code == 0 and "McNemar" in md.output


def test_mcnemar_refuses_repeated_splits(ran):
    result = CliRunner().invoke(cli, ["compare", str(ran), "--test", "mcnemar"])
    assert result.exit_code != 0 and "one split" in str(result.exception)


@pytest.mark.parametrize("line, where", [
    ("metrics: [accuracy, log_loss]", "metrics[1]"),
    ("tuning: {metric: brier}", "tuning.metric"),
])
def test_a_probability_metric_with_a_learner_without_probabilities_is_refused(tmp_path, line, where):
    text = ("experiment: p\nseed: 1\ndatasets: [iris]\nprotocol: {type: cv, folds: 3}\n" + line + "\n"
            "algorithms:\n  - {name: j48, baseline: weka-j48}\n  - {name: e, criterion: entropy}\nstore: STORE\n")
    with pytest.raises(TreebenchError, match=re.escape(where) + r".*needs class probabilities, which algorithm .j48."):
        parse_config(text.replace("STORE", str(tmp_path / "p.sqlite")), "p.yaml")


def test_unknown_metric_lists_the_new_ones(tmp_path):
    text = ("experiment: p\nseed: 1\ndatasets: [iris]\nprotocol: {type: cv, folds: 3}\nmetrics: [auc]\n"
            "algorithms:\n  - {name: e, criterion: entropy}\nstore: STORE\n")
    with pytest.raises(TreebenchError, match="roc_auc_ovr"):
        parse_config(text.replace("STORE", str(tmp_path / "p.sqlite")), "p.yaml")
