"""Random trees of paper 000's Figs. 2-3: the experiment, the smoother, the figures and the report section."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from treebench import criteria
from treebench.papers.serrurier2015.figures import (
    lowess,
    plot_accuracy_vs_entropy,
    plot_entropy_vs_size,
    summarize,
)
from treebench.papers.serrurier2015.random_trees import (
    _PossibilisticGain,
    _scorer,
    _Split,
    grow_random_tree,
    random_trees,
    tree_entropy,
    tree_h_star,
)


def toy(n=300, k=4, d=5, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(2)
    y = (np.digitize(X[:, 0] + 0.7 * X[:, 1] + rng.normal(0, 0.8, n), [-1, 0, 1])).astype(np.int64)
    return X, np.minimum(y, k - 1)


def split(seed=0):
    X, y = toy(seed=seed)
    return _Split(X[:270], y[:270], X[270:], y[270:], 4)


def test_same_seed_same_frame_whatever_the_workers():
    a = random_trees(toy(), n_repetitions=3, n_trees=2, max_leaves=30, seed=7, n_jobs=1)
    b = random_trees(toy(), n_repetitions=3, n_trees=2, max_leaves=30, seed=7, n_jobs=2)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 3 * 2 * 2 and set(a["rule"]) == {"log", "possibilistic"}
    assert (a["n_leaves"] <= a["target_leaves"]).all()
    c = random_trees(toy(), n_repetitions=3, n_trees=2, max_leaves=30, seed=8, n_jobs=1)
    assert not a[["entropy", "h_star"]].equals(c[["entropy", "h_star"]])
    # fewer repetitions = the first rows of a longer run
    pd.testing.assert_frame_equal(random_trees(toy(), n_repetitions=2, n_trees=2, max_leaves=30, seed=7, n_jobs=1),
                                  a[a["repetition"] < 2].reset_index(drop=True))


@pytest.mark.parametrize("rule", ["log", "possibilistic"])
def test_classical_entropy_never_increases_along_a_grown_tree(rule):
    res = grow_random_tree(split(), rule, 60, np.random.default_rng(3), history=True)
    values = [tree_entropy(c) for c in res["history"]]
    assert len(values) == res["n_leaves"] and res["n_leaves"] > 20
    assert all(b <= a + 1e-12 for a, b in zip(values, values[1:]))
    assert all(c.sum() == 270 for c in res["history"])


@pytest.mark.parametrize("rule", ["log", "possibilistic"])
def test_kernel_and_numpy_engines_grow_the_same_tree(rule):
    a = grow_random_tree(split(), rule, 40, np.random.default_rng(5), 0.1)
    b = grow_random_tree(split(), rule, 40, np.random.default_rng(5), 0.1, engine="numpy")
    np.testing.assert_array_equal(a["leaf_counts"], b["leaf_counts"])
    assert a["accuracy"] == b["accuracy"]


@pytest.mark.parametrize("rule", ["log", "possibilistic"])
def test_compiled_tree_is_the_python_loops_tree_draw_for_draw(rule):
    """The compiled grower consumes the same draws and grows the same tree as the Python loop (the oracle)."""
    for seed in range(12):
        data = split(seed % 3)
        target = 1 + 17 * seed % 90
        a = grow_random_tree(data, rule, target, np.random.default_rng(seed), 0.05 + 0.02 * seed)
        rng = np.random.default_rng(seed)
        b = grow_random_tree(data, rule, target, rng, 0.05 + 0.02 * seed, engine="kernel")
        np.testing.assert_array_equal(a["leaf_counts"], b["leaf_counts"])
        assert {k: v for k, v in a.items() if k != "leaf_counts"} == {k: v for k, v in b.items() if k != "leaf_counts"}
        # the caller's stream is left where the Python loop leaves it
        again = np.random.default_rng(seed)
        grow_random_tree(data, rule, target, again, 0.05 + 0.02 * seed)
        assert again.integers(2**62) == rng.integers(2**62)


def test_measures_match_the_criteria():
    res = grow_random_tree(split(), "possibilistic", 25, np.random.default_rng(2), 0.05)
    counts = res["leaf_counts"]
    for gamma in (0.05, 0.2):
        assert tree_h_star(counts, gamma) == pytest.approx(
            criteria.get("possibilistic", gamma=gamma).tree_quality(counts), rel=1e-12)
    ent = criteria.get("entropy")
    expected = sum(c.sum() / counts.sum() * ent.node_value(c) for c in counts)
    assert res["entropy"] == pytest.approx(expected, rel=1e-12)
    assert res["h_star"] == pytest.approx(tree_h_star(counts, 0.05))
    pos = criteria.get("possibilistic", gamma=0.05)
    weighted = sum(c.sum() / counts.sum() * pos.node_value(c) for c in counts)
    assert res["h_star_weighted"] == pytest.approx(weighted, rel=1e-12)


def test_numpy_scorers_equal_split_scores():
    rng = np.random.default_rng(0)
    parent = rng.integers(0, 20, 6)
    left = np.minimum(rng.integers(0, 20, (40, 6)), parent)
    children = np.stack([left, parent - left], axis=1)
    children[0, 0] = 0  # an empty branch
    children[0, 1] = parent
    for gamma in (0.05, 0.3):
        ref = criteria.get("possibilistic", gamma=gamma).split_scores(parent, children)
        np.testing.assert_allclose(_PossibilisticGain(gamma).split_scores(parent, children), ref, atol=1e-12)
        np.testing.assert_allclose(_scorer("possibilistic", gamma).split_scores(parent, children), ref, atol=1e-12)
    ref = criteria.get("entropy").split_scores(parent, children)
    np.testing.assert_allclose(_scorer("log", 0.05, "numpy").split_scores(parent, children), ref, atol=1e-12)
    np.testing.assert_allclose(_scorer("log", 0.05).split_scores(parent, children), ref, atol=1e-12)


def test_lowess_on_noiseless_curves():
    x = np.linspace(0, 10, 200)
    np.testing.assert_allclose(lowess(x, 3 - 2 * x), 3 - 2 * x, atol=1e-9)
    grid = np.linspace(1, 9, 17)
    np.testing.assert_allclose(lowess(x, np.sin(x), grid, frac=0.05), np.sin(grid), atol=1e-2)
    # unsorted, repeated x
    xs = np.repeat(np.arange(20.0), 3)[::-1]
    np.testing.assert_allclose(lowess(xs, xs**2, np.array([5.0, 10.0]), frac=0.2), [25, 100], atol=1.0)


@pytest.fixture(scope="module")
def small_frame():
    return random_trees(toy(n=400), n_repetitions=6, n_trees=4, max_leaves=60, seed=1, n_jobs=1)


def test_figures_are_written(small_frame, tmp_path):
    for plot, name in ((plot_entropy_vs_size, "fig2"), (plot_accuracy_vs_entropy, "fig3")):
        paths = plot(small_frame, tmp_path / name)
        assert [p.suffix for p in paths] == [".png", ".svg"]
        assert all(p.stat().st_size > 1000 for p in paths)


def test_summary_claims(small_frame):
    claims = summarize(small_frame)
    assert len(claims) == 6
    assert all(isinstance(c.holds, bool) and c.numbers for c in claims)
    assert "Spearman" in claims[-1].numbers
    # the H* claims under the default (weighted) reading, each followed by eq. 18 as printed
    assert "weighted, the default reading" in claims[1].text and "as printed" in claims[2].text
    assert "weighted, the default reading" in claims[4].text and "as printed" in claims[5].text


def test_default_reading_of_eq18_is_weighted_and_a_split_moves_it_by_minus_the_gain():
    from treebench.criteria.possibilistic import z_value
    from treebench.papers.serrurier2015.figures import H_STAR, H_STAR_PRINTED, PANELS, READING
    from treebench.papers.serrurier2015.random_trees import possibilistic_rows

    assert (H_STAR, H_STAR_PRINTED) == ("h_star_weighted", "h_star")
    assert [m for _, m, _ in PANELS] == ["entropy", H_STAR, H_STAR_PRINTED]
    assert "always decreases" in READING and "printed" in READING
    # weighted, splitting leaf Z (n of N examples) changes H*(T) by -(n/N) * (H*(Z) - sum |v|/n H*(v)):
    # eq. 17's gain with the children at gamma; unweighted, it adds sum H*(v) - H*(Z) instead
    gamma = 0.05
    history = grow_random_tree(split(), "possibilistic", 30, np.random.default_rng(4), gamma, history=True)["history"]
    z = z_value(gamma)
    for before, after in zip(history, history[1:]):
        node = int(np.flatnonzero((after[: len(before)] != before).any(axis=1))[0])
        parent, children = before[node], np.stack([after[node], after[-1]])
        n, total = parent.sum(), before.sum()
        gain = possibilistic_rows(parent[None, :], z)[0] - (children.sum(axis=1) / n) @ possibilistic_rows(children, z)
        change = tree_h_star(after, gamma, weighted=True) - tree_h_star(before, gamma, weighted=True)
        assert change == pytest.approx(-n / total * gain, abs=1e-12)
        printed = tree_h_star(after, gamma) - tree_h_star(before, gamma)
        assert printed == pytest.approx(possibilistic_rows(children, z).sum() - possibilistic_rows(parent[None], z)[0])


def test_reproduce_hook_adds_the_section_and_reuses_the_cache(tmp_path, monkeypatch):
    # the tests folder is on sys.path (no __init__.py); "tests." may resolve to another installed package
    from test_report_reproduce import fake_000

    from treebench.papers.catalogue import get_paper
    from treebench.report.reference import load_reference
    from treebench.report.reproduce import build_report, report_latex, report_markdown

    spec = get_paper("serrurier2015")
    opts = {"random_trees": {"dataset": toy(n=200), "n_repetitions": 2, "n_trees": 3, "max_leaves": 20,
                             "n_jobs": 1}}
    rep = build_report(spec, fake_000(("lymph",)), load_reference(spec.reference), tmp_path, extras=opts)
    md = report_markdown(rep)
    assert "## Figures 2–3: random trees on yeast" in md
    assert "random_trees_fig2.png" in md and "random_trees_fig3.png" in md and "Fig. 2 (paper)" in md
    assert "Figures 2--3: random trees" in report_latex(rep)
    assert (tmp_path / "random_trees.csv").exists() and (tmp_path / "random_trees_fig3.svg").exists()

    import treebench.papers.serrurier2015.random_trees as rt

    monkeypatch.setattr(rt, "random_trees", lambda *a, **k: pytest.fail("the cached frame was not reused"))
    again = build_report(spec, fake_000(("lymph",)), load_reference(spec.reference), tmp_path, extras=opts)
    assert again.sections[0].markdown == rep.sections[0].markdown
    # other papers and the default are unaffected
    assert build_report(spec, fake_000(("lymph",)), load_reference(spec.reference), tmp_path / "x").sections == []
    mee = get_paper("mee")
    assert "random_trees" not in mee.extras
