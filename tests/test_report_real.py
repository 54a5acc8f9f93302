"""compare / plot over a results store produced by a tiny real run of the runner."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from treebench.cli import cli
from treebench.experiment.runner import run_experiment
from treebench.report.source import load_frame

CONFIG = """\
experiment: tiny
seed: 3
datasets: [iris, wine]
protocol: {type: cv, folds: 5, repeats: 1}
algorithms:
  - name: entropy
    criterion: entropy
  - name: gini
    criterion: gini
  - name: certainty
    criterion: certainty
store: {store}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("tiny")
    store = tmp / "tiny.sqlite"
    config = tmp / "tiny.yaml"
    config.write_text(CONFIG.replace("{store}", str(store)), encoding="utf-8")
    summary = run_experiment(config, jobs=1, quiet=True, table=False, echo=lambda *a, **k: None)
    assert store.exists(), summary
    return config, store


def test_store_frame_has_the_contract_columns(run):
    _, store = run
    frame = load_frame(store)
    assert len(frame) == 2 * 3 * 5 and (frame["status"] == "ok").all()
    assert {"n_train", "n_test"} <= set(frame.columns)  # read with the extra columns


def test_compare_store_with_wilcoxon(run):
    _, store = run
    result = CliRunner().invoke(cli, ["compare", str(store), "--test", "wilcoxon", "--baseline", "entropy"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "| iris |" in out and "| wine |" in out and "entropy (baseline)" in out
    assert "Wilcoxon signed-rank tests over 2 datasets" in out
    # n_test/n_train from the stored part sizes: 5-fold CV on 150 and 178 rows, about 1/4
    assert "n_test/n_train = 0.25" in out


def test_compare_config_resolves_its_store_and_renders_latex(run, tmp_path):
    config, _ = run
    out = tmp_path / "t.tex"
    result = CliRunner().invoke(cli, ["compare", str(config), "--test", "friedman", "--format", "latex",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert r"\begin{tabular}" in text and r"\toprule" in text and "Average rank" in text


def test_plots_from_the_store(run, tmp_path):
    _, store = run
    for kind in ("leaves", "cd"):
        result = CliRunner().invoke(cli, ["plot", kind, str(store), "--out", str(tmp_path / kind)])
        assert result.exit_code == 0, result.output
        assert (tmp_path / f"{kind}.png").stat().st_size > 1000
        assert (tmp_path / f"{kind}.svg").read_text().lstrip().startswith("<?xml")
    result = CliRunner().invoke(cli, ["plot", "param", str(store), "--param", "q"])
    assert result.exit_code != 0 and "no trials vary parameter 'q'" in str(result.exception)


def test_a_config_report_leaves_out_trials_of_earlier_versions_of_the_config(tmp_path):
    from treebench.experiment.runner import run_experiment
    from treebench.report.source import load_frame

    store = tmp_path / "evolving.sqlite"
    text = (
        "experiment: evolving\nseed: 1\ndatasets: [iris]\nprotocol: {type: cv, folds: 3, repeats: 1}\n"
        f"store: {store}\nalgorithms:\n  - name: tree\n    criterion: possibilistic\n    params: {{gamma: GAMMA}}\n"
    )
    config = tmp_path / "evolving.yaml"
    for gamma in ("0.01", "0.4"):
        config.write_text(text.replace("GAMMA", gamma))
        run_experiment(config, quiet=True, echo=lambda _: None)
    frame = load_frame(config)
    assert len(frame) == 3  # the 3 folds of the current version only (the store holds 6)
    assert set(frame["params"]) == {'{"gamma": 0.4}'}


def test_plots_are_named_after_the_experiment_and_follow_the_config_order(run, tmp_path, monkeypatch):
    """Default figure names carry the store's experiment (two stores never overwrite each other's
    figures); plots and ``results show`` list algorithms as the config does, not alphabetically."""
    from treebench.experiment.order import config_ordered, source_algorithm_order

    _, store = run
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["plot", "leaves", str(store)])
    assert result.exit_code == 0, result.output
    assert Path("results/plots/tiny-leaves.png").stat().st_size > 1000
    frame = load_frame(store)
    reversed_rows = frame.iloc[::-1]  # first appearance now: certainty, gini, entropy
    ordered = config_ordered(reversed_rows, source_algorithm_order(store))
    assert list(dict.fromkeys(ordered["algorithm"])) == ["entropy", "gini", "certainty"]
    shown = CliRunner().invoke(cli, ["results", "show", str(store)])
    assert shown.exit_code == 0, shown.output
    rows = [line.split()[1] for line in shown.output.splitlines() if line.startswith("iris ")]
    assert rows == ["entropy", "gini", "certainty"]


@pytest.mark.parametrize("style", ["box", "violin"])
def test_plot_scores_draws_every_split(run, tmp_path, style):
    import xml.etree.ElementTree as ET

    from matplotlib.image import imread

    _, store = run
    out = tmp_path / f"scores-{style}"
    result = CliRunner().invoke(cli, ["plot", "scores", str(store), "--style", style, "--out", str(out)])
    assert result.exit_code == 0, result.output
    height, width = imread(out.with_suffix(".png")).shape[:2]
    assert width > 300 and height > 200
    ET.parse(out.with_suffix(".svg"))  # well-formed
    text = out.with_suffix(".svg").read_text()
    assert "<!-- iris -->" in text and "<!-- wine -->" in text  # one panel per dataset, titled (text as paths)
    bad = CliRunner().invoke(cli, ["plot", "scores", str(store), "--metric", "no_such_metric"])
    assert bad.exit_code != 0 and "no_such_metric" in str(bad.exception)
