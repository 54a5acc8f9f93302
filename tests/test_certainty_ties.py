"""Paper 003's tie section: its counts against a count made here, from the fitted tree and the data alone."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from treebench import TreeClassifier
from treebench.kernels import layout as L
from treebench.papers.certainty import ties
from treebench.papers.certainty.ties import Recorder, TieCounts, count_ties, ties_section


def small_case(seed: int = 3, n: int = 80) -> tuple[pd.DataFrame, np.ndarray]:
    """Two classes, three integer features in 0..4: few distinct thresholds, so certainty gains tie often."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 3)).astype(float)
    y = np.where(X[:, 0] + X[:, 1] + rng.normal(0, 1.5, n) > 4, "a", "b")
    return pd.DataFrame(X, columns=["f0", "f1", "f2"]), y


def certainty(counts: np.ndarray, n_classes: int) -> float:
    """I = sum_i |p_i - 1/N| of one node's class counts (paper 003), written out here."""
    total = counts.sum()
    return float(np.abs(counts / total - 1.0 / n_classes).sum()) if total else 0.0


def independent_counts(model: TreeClassifier, X: np.ndarray, codes: np.ndarray, n_classes: int) -> TieCounts:
    """Walk the compiled tree; at each split node score every numeric threshold by hand and count the ties.

    The first tied candidate is the lowest feature, then the lowest threshold: the one a first-wins rule takes.
    """
    tree = model.tree_
    verdicts = []
    stack = [(0, np.arange(len(codes)))]
    while stack:
        node, rows = stack.pop()
        parent = np.bincount(codes[rows], minlength=n_classes)
        assert np.array_equal(parent, tree.counts[node])  # the routing below is the tree's
        if tree.int_nodes[node, L.KIND] == L.LEAF:
            continue
        candidates = []  # (gain, feature, threshold)
        for f in range(X.shape[1]):
            values = np.unique(X[rows, f])
            for lo, hi in zip(values[:-1], values[1:]):
                left = X[rows, f] <= (lo + hi) / 2
                children = [np.bincount(codes[rows][side], minlength=n_classes) for side in (left, ~left)]
                gain = sum(c.sum() / len(rows) * certainty(c, n_classes) for c in children) - certainty(parent, n_classes)
                candidates.append((gain, f, (lo + hi) / 2))
        best = max(g for g, _, _ in candidates)
        tied = [(f, t) for g, f, t in candidates if abs(g - best) <= 1e-9]
        feature, threshold = int(tree.int_nodes[node, L.FEATURE]), float(tree.float_nodes[node, L.THRESHOLD])
        assert (feature, threshold) in tied  # the tree took a split of the best certainty gain
        verdicts.append(ties.NodeVerdict(len(tied), len(tied) > 1 and tied[0] != (feature, threshold),
                                         abs(best) <= 1e-12))
        left = X[rows, feature] <= threshold
        stack += [(int(tree.int_nodes[node, L.CHILD_START]) + 1, rows[~left]),
                  (int(tree.int_nodes[node, L.CHILD_START]), rows[left])]
    return TieCounts.of(verdicts)


@pytest.mark.parametrize("seed", [3, 11])
def test_tie_counts_match_a_count_from_the_fitted_tree(seed):
    X, y = small_case(seed)
    model = TreeClassifier("certainty", nominal_split="multiway").fit(X, y)
    codes = np.searchsorted(np.unique(y), y)
    expected = independent_counts(model, X.to_numpy(), codes, 2)
    got = count_ties(X, y)
    assert got == expected
    assert got.splits == model.get_n_leaves() - 1 and 0 < got.decided <= got.tied <= got.splits


def test_the_recorder_restores_the_builder():
    from treebench.criteria.certainty import Certainty
    from treebench.trees import generic

    before = (generic.score_candidates, Certainty.select_feature)
    X, y = small_case()
    with Recorder() as recorder:
        TreeClassifier("certainty", engine="python").fit(X, y)
    assert recorder.nodes and (generic.score_candidates, Certainty.select_feature) == before


def trial(dataset: str, algorithm: str, model: TreeClassifier, X_test, y_test, n_train: int) -> dict:
    error = float((model.predict(X_test) != y_test).mean())
    return dict(dataset=dataset, algorithm=algorithm, status="ok", accuracy=1 - error, error=error,
                train_accuracy=1.0, n_train=n_train, n_test=len(y_test), n_leaves=model.get_n_leaves(),
                n_nodes=0, dataset_checksum="abc", params=json.dumps({"nominal_split": "multiway"}))


def test_the_section_prints_the_counts_and_both_tie_rules(tmp_path, monkeypatch):
    X, y = small_case(3, 100)
    X_train, y_train, X_test, y_test = X.iloc[:80], y[:80], X.iloc[80:], y[80:]
    monkeypatch.setattr(ties, "paper_split", lambda name, fraction: (X_train, y_train, 2))
    entropy = TreeClassifier("certainty", nominal_split="multiway").fit(X_train, y_train)
    none = TreeClassifier("certainty", nominal_split="multiway", tie_break="none").fit(X_train, y_train)
    frame = pd.DataFrame([trial("toy", "certainty", entropy, X_test, y_test, 80)])
    reading = pd.DataFrame([trial("toy", "certainty-none", none, X_test, y_test, 80)])
    expected = independent_counts(entropy, X_train.to_numpy(), np.searchsorted(["a", "b"], y_train), 2)

    section = ties_section(frame, reading, tmp_path)
    row = next(line for line in section.markdown if line.startswith("| toy |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    n = expected.splits
    assert cells[1:8] == ["2", "80", str(n), f"{expected.tied} ({100 * expected.tied / n:.0f} %)",
                          f"{expected.decided} ({100 * expected.decided / n:.0f} %)",
                          f"{expected.zero_best} ({100 * expected.zero_best / n:.0f} %)", f"{expected.median_tied:g}"]
    errors = lambda m: int((m.predict(X_test) != y_test).sum())  # noqa: E731
    assert cells[8:] == [f"{entropy.get_n_leaves()} / {none.get_n_leaves()}", f"{errors(entropy)} / {errors(none)}"]
    assert any("two-class" in line for line in section.markdown)

    # cached: a second build does not regrow the tree; a changed training size is refused
    monkeypatch.setattr(ties, "paper_split", lambda name, fraction: pytest.fail("recomputed"))
    assert ties_section(frame, reading, tmp_path).markdown == section.markdown
    monkeypatch.setattr(ties, "paper_split", lambda name, fraction: (X_train.iloc[:70], y_train[:70], 2))
    with pytest.raises(ValueError, match="70 training rows"):
        ties_section(frame.assign(n_train=81), reading, tmp_path)
    # counts of another tree than the stored one are refused
    monkeypatch.setattr(ties, "paper_split", lambda name, fraction: (X_train, y_train, 2))
    with pytest.raises(ValueError, match="the stored tree has"):
        ties_section(frame.assign(n_leaves=entropy.get_n_leaves() + 1), reading, tmp_path)


def test_no_section_before_a_certainty_trial(tmp_path):
    assert ties_section(pd.DataFrame(columns=["dataset", "algorithm", "status"]), None, tmp_path) is None


def test_excluded_datasets_are_named_not_counted(tmp_path, monkeypatch):
    X, y = small_case(3, 100)
    model = TreeClassifier("certainty", nominal_split="multiway").fit(X.iloc[:80], y[:80])
    monkeypatch.setattr(ties, "paper_split", lambda name, fraction: (X.iloc[:80], y[:80], 2))
    frame = pd.DataFrame([trial(d, "certainty", model, X.iloc[80:], y[80:], 80) for d in ("toy", "big")])
    section = ties_section(frame, None, tmp_path, {"big": "not the paper's file"})
    assert [line.split("|")[1].strip() for line in section.markdown if line.startswith("| ")][2:] == ["toy"]
    assert section.markdown[-1] == "- Not counted: big (left out of every claim and count of this report)."
    assert ties_section(frame[frame["dataset"] == "big"], None, tmp_path, {"big": "x"}) is None


def test_the_no_tie_break_reading_differs_from_the_paper_only_in_the_tie_rule():
    from pathlib import Path

    import yaml

    from treebench.papers import get_paper
    from treebench.papers.reproduce import reading_configs

    root = Path(__file__).resolve().parents[1]
    spec = get_paper("certainty")
    NO_TIE_BREAK = next(r for r in spec.readings if r.name == "no tie-break")  # noqa: N806
    assert Path(NO_TIE_BREAK.config) in reading_configs(spec)
    default, reading = (yaml.safe_load((root / c).read_text()) for c in (spec.config, NO_TIE_BREAK.config))
    assert {k: reading[k] for k in ("seed", "protocol", "metrics")} == \
        {k: default[k] for k in ("seed", "protocol", "metrics")}
    assert reading["datasets"] == [d for d in default["datasets"] if d not in spec.excluded]
    (algorithm,) = reading["algorithms"]
    paper = next(a for a in default["algorithms"] if a["name"] == "certainty")
    assert algorithm == {**paper, "name": "certainty-none", "params": {**paper["params"], "tie_break": "none"}}
    assert NO_TIE_BREAK.rename == {"certainty-none": "certainty"} and reading["store"] != default["store"]
