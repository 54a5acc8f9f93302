"""The code shown in the docs runs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from badinput import CliCase, case_tests
from sklearn.datasets import load_iris

from treebench import TreeClassifier, criteria

DOCS = Path(__file__).resolve().parents[1] / "docs"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_the_one_file_criterion_example_works():
    definition = python_blocks(DOCS / "criteria.md")[0]
    if "misclassification" not in criteria.available():
        exec(compile(definition, "docs/criteria.md", "exec"), {})
    X, y = load_iris(return_X_y=True)
    model = TreeClassifier("misclassification", floor=0.1, max_depth=3).fit(X, y)
    assert model.score(X, y) > 0.9
    assert criteria.get("misclassification").node_value(np.array([3, 1])) == 0.25
    # no split that leaves the error where it was: every internal node lowers it by more than floor
    for floor in (0.0, 0.02):
        tree = TreeClassifier("misclassification", floor=floor).fit(X, y).tree_
        errors = tree.counts.sum(axis=1) - tree.counts.max(axis=1)
        for node in range(tree.n_nodes):
            kids = list(tree.children(node))
            if kids:
                assert (errors[node] - errors[kids].sum()) / tree.counts[node].sum() > floor
    unbounded = TreeClassifier("misclassification").fit(X, y)
    assert unbounded.get_n_leaves() < 20  # the old example grew thousands of leaves on larger data


# -- `treebench plot param` draws a sensitivity curve from an untuned sweep only (docs/reports.md) ------------
SWEEP = """\
experiment: sweep
seed: 0
datasets: [iris]
protocol: {type: cv, folds: 2, repeats: 1}
algorithms:
  - {name: tsallis-q0.5, criterion: tsallis, params: {q: 0.5, max_depth: 3}}
  - {name: tsallis-q2, criterion: tsallis, params: {q: 2, max_depth: 3}}
  - {name: tsallis-q4, criterion: tsallis, params: {q: 4, max_depth: 3}}
"""
TUNED = """\
experiment: tuned
seed: 0
datasets: [iris]
protocol: {type: cv, folds: 2, repeats: 1}
tuning: {folds: 2}
algorithms:
  - {name: tsallis, criterion: tsallis, params: {max_depth: 3}, grid: {q: [0.5, 2, 4]}}
  - {name: tsallis-gr, criterion: tsallis_gain_ratio, params: {max_depth: 3}, tune_as: tsallis}
"""


def _run_config(name: str, text: str) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        from treebench.experiment.runner import run_experiment

        config = folder / f"{name}.yaml"
        config.write_text(text + f"store: {folder / 'results' / (name + '.sqlite')}\n", encoding="utf-8")
        run_experiment(config, jobs=1, quiet=True, table=False, echo=lambda *a, **k: None)
        assert (folder / "results" / f"{name}.sqlite").exists()
    return write


def test_plot_param_draws_the_curve_of_an_untuned_sweep(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from treebench.cli import cli
    from treebench.report.plots import _sweep_lines, plot_param
    from treebench.report.source import load_frame

    monkeypatch.chdir(tmp_path)
    _run_config("sweep", SWEEP)(tmp_path)
    store = tmp_path / "results" / "sweep.sqlite"
    result = CliRunner().invoke(cli, ["plot", "param", str(store), "--param", "q", "--out", str(tmp_path / "q")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "q.png").stat().st_size > 1000
    assert (tmp_path / "q.svg").read_text().lstrip().startswith("<?xml")
    # the three one-value algorithms make one curve, named by their stem
    frame = load_frame(store)
    frame = frame.assign(_x=frame["params"].map(lambda t: json.loads(t)["q"]))
    assert set(_sweep_lines(frame, "q")) == {"tsallis"}
    # a tuned algorithm in the same results is left out, not mixed into the curve
    tuned = frame.assign(algorithm="tuned", chosen='{"q": 9.0}', params='{"max_depth": 3, "q": 9.0}')
    both = pd.concat([frame, tuned], ignore_index=True).drop(columns="_x")
    plot_param(both, tmp_path / "both", param="q")
    assert (tmp_path / "both.png").exists()


CASES = [
    CliCase("plot-param-on-a-tuned-store", ("plot", "param", "results/tuned.sqlite", "--param", "q"),
            r"^error: q was tuned by inner CV .*`chosen`.*sweep it untuned: list the values as separate algorithms "
            r"with `params: \{q: VALUE\}` and no `grid:`",
            files={"results/tuned.sqlite": _run_config("tuned", TUNED)}),
    CliCase("plot-param-unswept", ("plot", "param", "results/sweep.sqlite", "--param", "gamma"),
            r"^error: no trials vary parameter 'gamma'; plot param needs an untuned sweep",
            files={"results/sweep.sqlite": _run_config("sweep", SWEEP)}),
]
test_plot_param_bad_input, _ = case_tests(CASES)
