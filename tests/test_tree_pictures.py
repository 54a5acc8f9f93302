"""Pictures of fitted trees: the common view, DOT export on every estimator, ``treebench plot tree``."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.datasets import load_iris

from treebench.cli import cli
from treebench.errors import TreebenchError
from treebench.trees.belief import BeliefTreeClassifier
from treebench.trees.c45 import C45Classifier
from treebench.trees.estimator import TreeClassifier
from treebench.trees.mee import MEETreeClassifier
from treebench.trees.online import OnlineTreeClassifier
from treebench.trees.view import to_dot, view_of

_NODE = re.compile(r'^(\d+) \[label="(.*)"\] ;$')
_EDGE = re.compile(r'^(\d+) -> (\d+) \[label="(.*)"\] ;$')


def _frame() -> tuple[pd.DataFrame, np.ndarray]:
    X, y = load_iris(return_X_y=True, as_frame=True)
    X = X.copy()
    X["colour"] = pd.Categorical(np.where(X["sepal width (cm)"] > 3.0, "wide", "narrow"))
    return X, np.asarray(y)


ESTIMATORS = {
    "entropy": lambda: TreeClassifier("entropy"),
    "gini-binary": lambda: TreeClassifier("gini", nominal_split="binary"),
    "possibilistic": lambda: TreeClassifier("possibilistic"),
    "mee": lambda: MEETreeClassifier(),
    "online": lambda: OnlineTreeClassifier("possibilistic"),
    "belief": lambda: BeliefTreeClassifier(),
    "c4.5": lambda: C45Classifier(),
}


def _parse(dot: str) -> tuple[dict[int, str], list[tuple[int, int, str]]]:
    nodes, edges = {}, []
    lines = dot.strip().splitlines()
    assert lines[0] == "digraph Tree {" and lines[-1] == "}"
    for line in lines[3:-1]:
        if (m := _EDGE.match(line)) is not None:
            edges.append((int(m[1]), int(m[2]), m[3]))
        elif (m := _NODE.match(line)) is not None:
            nodes[int(m[1])] = m[2]
        else:
            raise AssertionError(f"not a DOT node or edge: {line!r}")
    return nodes, edges


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_tree_exports_dot_with_one_box_per_node_and_one_edge_per_child(name):
    X, y = _frame()
    if name == "mee":  # numeric features only
        X = X.drop(columns="colour")
    model = ESTIMATORS[name]().fit(X, y)
    dot = model.export_graphviz()
    nodes, edges = _parse(dot)
    n_nodes = model.tree_.n_nodes
    assert len(nodes) == n_nodes and len(edges) == n_nodes - 1
    assert {child for _, child, _ in edges} == set(nodes) - {0}  # a tree: every node but the root has a parent
    leaves = [i for i in nodes if not any(parent == i for parent, _, _ in edges)]
    assert len(leaves) == model.get_n_leaves()
    # each box's class is its majority class; samples are the training rows reaching it
    view = view_of(model)
    assert f"samples = {len(y)}" in nodes[0]
    for i, node in enumerate(view.nodes):
        assert f"class = {view.majority(i)}" in nodes[i]
        if node.children and name not in ("c4.5",):  # children's counts add up to their parent's
            np.testing.assert_allclose(sum(view.nodes[c].counts for c in node.children), node.counts)
    if shutil.which("dot"):
        svg = subprocess.run(["dot", "-Tsvg"], input=dot, capture_output=True, text=True, check=True).stdout
        ET.fromstring(svg)


def test_max_depth_folds_the_deeper_nodes():
    X, y = _frame()
    model = TreeClassifier("entropy").fit(X, y)
    nodes, edges = _parse(model.export_graphviz(max_depth=1))
    view = view_of(model)
    assert set(nodes) == {i for i, n in enumerate(view.nodes) if n.depth <= 1}
    assert all(view.nodes[child].depth <= 1 for _, child, _ in edges)
    assert any("(subtree not shown)" in text for text in nodes.values())


def test_hostile_names_stay_inside_their_dot_strings():
    X = pd.DataFrame({'a "quoted" \\ name\n': [0.0, 1.0, 2.0, 3.0] * 5})
    y = np.array(["x", 'y"]; evil [label="', "x", 'y"]; evil [label="'] * 5)
    model = TreeClassifier("entropy").fit(X, y)
    nodes, edges = _parse(model.export_graphviz())  # every line still one node or one edge
    assert len(nodes) == model.tree_.n_nodes and len(edges) == len(nodes) - 1
    unescaped = nodes[0].replace('\\"', '"').replace("\\\\", "\\")
    assert unescaped.startswith('a "quoted" \\ name\\n <= ')


def test_an_unfitted_or_foreign_model_is_refused_in_one_line():
    with pytest.raises(TreebenchError, match="not a fitted treebench tree"):
        view_of(TreeClassifier("entropy"))
    with pytest.raises(TreebenchError, match="not a fitted treebench tree"):
        view_of(object())


CONFIG = """\
experiment: pictures
seed: 4
datasets: [iris]
protocol: {type: cv, folds: 3, repeats: 1}
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


def _png_svg_dot(paths: list[Path]) -> None:
    from matplotlib.image import imread

    by_suffix = {p.suffix: p for p in paths}
    assert set(by_suffix) == {".png", ".svg", ".dot"}
    height, width = imread(by_suffix[".png"]).shape[:2]
    assert width > 200 and height > 100
    ET.parse(by_suffix[".svg"])
    assert by_suffix[".dot"].read_text().startswith("digraph Tree {")


def test_plot_tree_of_a_trial_from_its_config(tmp_path, monkeypatch):
    """The trial's tree is fitted again with the parameters its store records; before the run, a
    tuned algorithm is refused and an untuned one drawn."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "pictures.yaml"
    config.write_text(CONFIG.replace("STORE", str(tmp_path / "p.sqlite")))
    before = CliRunner().invoke(cli, ["plot", "tree", str(config), "--algorithm", "pitree", "--fold", "1"])
    assert before.exit_code != 0 and "run the config first" in str(before.exception)
    for algorithm in ("c45", "cart"):
        drawn = CliRunner().invoke(cli, ["plot", "tree", str(config), "--algorithm", algorithm])
        assert drawn.exit_code == 0, drawn.output
    result = CliRunner().invoke(cli, ["run", str(config), "--jobs", "1", "-q"])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(cli, ["plot", "tree", str(config), "--algorithm", "pitree", "--fold", "1",
                                      "--out", str(tmp_path / "pi")])
    assert result.exit_code == 0, result.output
    _png_svg_dot([tmp_path / f"pi{s}" for s in (".png", ".svg", ".dot")])
    # the refitted tree is the one the trial measured: same leaves as stored
    from treebench.experiment.refit import refit_trial
    from treebench.report.source import load_frame

    fitted = refit_trial(config, algorithm="pitree", fold=1)
    frame = load_frame(tmp_path / "p.sqlite")
    stored = frame[(frame["algorithm"] == "pitree") & (frame["fold"] == 1)]
    assert fitted.model.get_n_leaves() == int(stored["n_leaves"].iloc[0])
    bad = CliRunner().invoke(cli, ["plot", "tree", str(config), "--algorithm", "nope"])
    assert bad.exit_code != 0 and "accepted: pitree, c45, cart" in str(bad.exception)
    bad = CliRunner().invoke(cli, ["plot", "tree", str(config), "--algorithm", "c45", "--fold", "7"])
    assert bad.exit_code != 0 and "folds 0..2" in str(bad.exception)


def test_plot_tree_of_a_saved_estimator(tmp_path):
    X, y = _frame()
    path = tmp_path / "model.joblib"
    joblib.dump(C45Classifier().fit(X, y), path)
    result = CliRunner().invoke(cli, ["plot", "tree", str(path), "--max-depth", "0"])
    assert result.exit_code == 0, result.output
    _png_svg_dot([tmp_path / f"model{s}" for s in (".png", ".svg", ".dot")])
    (tmp_path / "junk.pkl").write_bytes(b"not a pickle")
    bad = CliRunner().invoke(cli, ["plot", "tree", str(tmp_path / "junk.pkl")])
    assert bad.exit_code != 0 and "cannot read a fitted estimator" in str(bad.exception)
    joblib.dump({"not": "a tree"}, tmp_path / "dict.joblib")
    bad = CliRunner().invoke(cli, ["plot", "tree", str(tmp_path / "dict.joblib")])
    assert bad.exit_code != 0 and "cannot draw dict" in str(bad.exception)


def test_view_of_c45_matches_its_sizes():
    X, y = _frame()
    model = C45Classifier().fit(X, y)
    view = view_of(model)
    assert len(view.nodes) == model.tree_.n_nodes
    assert sum(1 for n in view.nodes if not n.children) == model.get_n_leaves()
    assert max(n.depth for n in view.nodes) == model.get_depth()
    assert to_dot(view) == model.export_graphviz()
