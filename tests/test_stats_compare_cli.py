"""``treebench compare``: config-order baseline, --correction, --test bayes --plot, CSV (issue 21, item 4)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from treebench.errors import TreebenchError
from treebench.experiment.runner import run_experiment
from treebench.report.cli import compare
from treebench.report.table import config_algorithm_order, source_algorithm_order

CONFIG = {
    "experiment": "order",
    "seed": 0,
    "datasets": ["iris", "wine"],
    "protocol": {"type": "cv", "folds": 3, "repeats": 1},
    # config order: zeta, mid, alpha -- the store sorts rows alphabetically (alpha, mid, zeta)
    "algorithms": [
        {"name": "zeta", "criterion": "gini", "params": {"max_depth": 2}},
        {"name": "mid", "criterion": "entropy", "params": {"max_depth": 1}},
        {"name": "alpha", "criterion": "entropy", "params": {"max_depth": 3}},
    ],
}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("order")
    config = folder / "order.yaml"
    config.write_text(yaml.safe_dump(CONFIG, sort_keys=False))
    path = folder / "order.sqlite"
    summary = run_experiment(config, store_path=path, quiet=True, echo=lambda line: None, jobs=1)
    assert summary.failed == 0 and summary.done == 18
    return config, path


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(compare, list(args))
    return result.exit_code, result.output


def test_config_order_helpers(store, tmp_path):
    config, path = store
    assert config_algorithm_order(config.read_text()) == ["zeta", "mid", "alpha"]
    assert source_algorithm_order(str(path)) == ["zeta", "mid", "alpha"]  # from the store's meta
    assert config_algorithm_order("not: [a config") == [] and config_algorithm_order("- 1") == []
    assert source_algorithm_order(str(tmp_path / "frame.csv")) == []


def test_default_baseline_is_the_configs_first_algorithm(store):
    _, path = store
    code, out = invoke(str(path))
    assert code == 0, out
    assert "| dataset | zeta (baseline) | mid | alpha |" in out
    assert "Holm-adjusted per dataset" in out  # two comparisons per dataset -> Holm by default


def test_correction_none_and_bonferroni(store):
    _, path = store
    code, out = invoke(str(path), "--correction", "none")
    assert code == 0 and "adjusted" not in out
    code, out = invoke(str(path), "--correction", "bonferroni", "--format", "csv")
    assert code == 0, out
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["kind"] == "cell" and r["algorithm"] != "zeta"]
    assert rows and all(r["correction"] == "bonferroni" and r["baseline"] == "zeta" for r in rows)
    for r in rows:
        if r["p_value"]:
            assert float(r["p_adjusted"]) == pytest.approx(min(1.0, 2 * float(r["p_value"])))


def test_wilcoxon_csv_and_bayes_plot(store, tmp_path):
    _, path = store
    code, out = invoke(str(path), "--test", "wilcoxon", "--format", "csv")
    assert code == 0, out
    w = [r for r in csv.DictReader(io.StringIO(out)) if r["kind"] == "wilcoxon"]
    assert [(r["algorithm"], r["opponent"]) for r in w] == [("zeta", "mid"), ("zeta", "alpha"), ("mid", "alpha")]
    assert all(r["correction"] == "holm" for r in w)
    code, out = invoke(str(path), "--test", "bayes", "--rope", "1", "--samples", "2000",
                       "--plot", str(tmp_path / "simplex"))
    assert code == 0, out
    assert "Bayesian signed-rank tests over 2 datasets" in out and "ROPE = ±1" in out
    assert (tmp_path / "simplex.png").stat().st_size > 0 and (tmp_path / "simplex.svg").exists()


def test_plot_without_bayes_is_a_one_line_error(store, tmp_path):
    _, path = store
    result = CliRunner().invoke(compare, [str(path), "--plot", str(tmp_path / "x")])
    assert isinstance(result.exception, TreebenchError)
    assert str(result.exception) == "--plot draws the posteriors of --test bayes; add --test bayes"
    assert not (tmp_path / "x.png").exists()
