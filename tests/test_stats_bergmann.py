"""Bergmann-Hommel's procedure for all pairwise comparisons after Friedman (García & Herrera 2008)."""

from __future__ import annotations

import csv
import io
import itertools
import math
import time

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from test_stats_compare_cli import invoke, store  # noqa: F401  (the compare fixture: 3 algorithms, 2 datasets)

from treebench.errors import TreebenchError
from treebench.stats import multiple, posthoc

BELL = [1, 1, 2, 5, 15, 52, 203, 877, 4140, 21147]


def by_hand(p: list[float], sets: list[list[int]]) -> list[float]:
    """``max{|I| · min_{j∈I} p_j : i ∈ I}`` over the given exhaustive sets, capped at 1."""
    return [min(1.0, max(len(s) * min(p[j] for j in s) for s in sets if i in s)) for i in range(len(p))]


def test_k3_by_hand():
    # pairs in combinations order: H01, H02, H12.  Exhaustive sets: every single hypothesis, and all three
    # (partitions {01|2}, {02|1}, {0|12}, {012}); {H01, H02} is not one (0=1 and 0=2 force 1=2).
    sets = [[0], [1], [2], [0, 1, 2]]
    p = [0.02, 0.01, 0.04]
    expected = by_hand(p, sets)
    assert expected == pytest.approx([0.03, 0.03, 0.04])  # = max(p_i, 3 · 0.01)
    np.testing.assert_allclose(posthoc.bergmann_hommel(p, 3), expected, rtol=0, atol=1e-15)
    # k = 3: Bergmann-Hommel equals Shaffer (t = 3, 1, 1)
    np.testing.assert_allclose(posthoc.bergmann_hommel(p, 3), posthoc.shaffer(p, 3), rtol=0, atol=1e-15)
    assert posthoc.exhaustive_sets(3).astype(int).tolist() == [[1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]]


def test_k4_by_hand_and_the_monotone_step():
    # pairs: 0=H01 1=H02 2=H03 3=H12 4=H13 5=H23.  The 14 exhaustive sets of k = 4 (Bell(4) - 1 partitions):
    sets = [
        [0], [1], [2], [3], [4], [5],  # one block of two: {01|2|3}, ...
        [0, 5], [1, 4], [2, 3],  # two blocks of two: {01|23}, {02|13}, {03|12}
        [0, 1, 3], [0, 2, 4], [1, 2, 5], [3, 4, 5],  # a block of three: {012|3}, {013|2}, {023|1}, {123|0}
        [0, 1, 2, 3, 4, 5],  # one block
    ]
    got = {tuple(np.flatnonzero(row)) for row in posthoc.exhaustive_sets(4)}
    assert got == {tuple(s) for s in sets}
    p = [0.084, 0.063, 0.057, 0.078, 0.021, 0.095]
    closed = by_hand(p, sets)
    # H01: max(.084, 2·min(.084,.095)=.168, 3·min(.084,.063,.078)=.189, 3·min(.084,.057,.021)=.063, 6·.021=.126)
    # H23: max(.095, .168, 3·min(.063,.057,.095)=.171, 3·min(.078,.021,.095)=.063, .126) = .171 < .189 although
    # p(H23) = .095 > p(H01) = .084: the closed test is not monotone in the raw p-values.
    assert closed == pytest.approx([0.189, 0.189, 0.171, 0.189, 0.126, 0.171])
    np.testing.assert_allclose(posthoc.bergmann_hommel(p, 4, monotone=False), closed, rtol=0, atol=1e-12)
    # the running maximum in raw-p order (H13 .021, H03 .057, H02 .063, H12 .078, H01 .084, H23 .095)
    np.testing.assert_allclose(posthoc.bergmann_hommel(p, 4), [0.189, 0.189, 0.171, 0.189, 0.126, 0.189],
                               rtol=0, atol=1e-12)
    # Shaffer: t = 6, 3, 3, 3, 2, 1 -> .126, .171, .189, .234, .234, .234 (in raw-p order)
    np.testing.assert_allclose(posthoc.shaffer(p, 4), [0.234, 0.189, 0.171, 0.234, 0.126, 0.234], atol=1e-12)


def _is_exhaustive(k: int, chosen: set[tuple[int, int]]) -> bool:
    """True iff the true hypotheses ``chosen`` are consistent: equality is transitive on them."""
    for a, b, c in itertools.permutations(range(k), 3):
        if tuple(sorted((a, b))) in chosen and tuple(sorted((b, c))) in chosen:
            if tuple(sorted((a, c))) not in chosen:
                return False
    return bool(chosen)


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_exhaustive_sets_equal_the_transitively_closed_subsets(k):
    pairs = list(itertools.combinations(range(k), 2))
    brute = set()
    for mask in range(1, 2 ** len(pairs)):
        chosen = {pr for b, pr in enumerate(pairs) if mask >> b & 1}
        if _is_exhaustive(k, chosen):
            brute.add(tuple(sorted(pairs.index(pr) for pr in chosen)))
    ours = {tuple(np.flatnonzero(row)) for row in posthoc.exhaustive_sets(k)}
    assert ours == brute and len(ours) == BELL[k] - 1


def test_partition_counts_are_bell_numbers():
    assert [len(posthoc.partitions(k)) for k in range(10)] == BELL
    rows = posthoc.partitions(6)
    assert len({tuple(r) for r in rows}) == len(rows)  # no repeats


@pytest.mark.parametrize("k", [3, 4, 5, 6, 7])
def test_never_above_shaffer_or_holm_and_monotone(k):
    rng = np.random.default_rng(k)
    m = math.comb(k, 2)
    for _ in range(40):
        p = rng.uniform(0, 0.3, m) ** 2
        bh, sh, ho = posthoc.bergmann_hommel(p, k), posthoc.shaffer(p, k), multiple.holm(p)
        assert np.all(p <= bh + 1e-15) and np.all(bh <= sh + 1e-15) and np.all(sh <= ho + 1e-15)
        assert np.all(bh <= 1.0)
        order = np.argsort(p, kind="mergesort")
        assert np.all(np.diff(bh[order]) >= 0)
        # the closed-test values are never above the monotone ones and already below Shaffer
        closed = posthoc.bergmann_hommel(p, k, monotone=False)
        assert np.all(closed <= bh + 1e-15) and np.all(closed <= sh + 1e-15)


def test_garcia_herrera_2008_example():
    # García & Herrera (2008, Table 2): C4.5, 1-NN, NaiveBayes, Kernel, CN2 on 30 datasets; average ranks
    # 2.100, 3.250, 2.200, 4.333, 3.117 (rank sums 63, 97.5, 66, 130, 93.5).  The raw p-values of the rank
    # z-tests are those scmamp prints for friedmanPost(data.gh.2008) (7 significant digits).
    names = ["C4.5", "k-NN(k=1)", "NaiveBayes", "Kernel", "CN2"]
    sums = [63, 97.5, 66, 130, 93.5]
    rows = [dict(zip(names, r)) for r in _rows_with_rank_sums(sums, 30)]
    means = pd.DataFrame(rows, columns=names)
    ranks = stats.rankdata(-means.to_numpy(), axis=1).sum(axis=0)
    np.testing.assert_allclose(ranks, sums)
    out = posthoc.friedman_posthoc(means, correction="bergmann-hommel").set_index(["a", "b"])
    scmamp_raw = {
        ("C4.5", "k-NN(k=1)"): 4.848763e-03, ("C4.5", "NaiveBayes"): 8.064959e-01,
        ("C4.5", "Kernel"): 4.486991e-08, ("C4.5", "CN2"): 1.276301e-02,
        ("k-NN(k=1)", "NaiveBayes"): 1.011233e-02, ("k-NN(k=1)", "Kernel"): 7.963489e-03,
        ("k-NN(k=1)", "CN2"): 7.439715e-01, ("NaiveBayes", "Kernel"): 1.736118e-07,
        ("NaiveBayes", "CN2"): 2.474467e-02, ("Kernel", "CN2"): 2.880485e-03,
    }
    for pair, p in scmamp_raw.items():
        assert out.loc[pair, "p"] == pytest.approx(p, rel=5e-7)
    # Bergmann-Hommel-adjusted (computed here; checked against Shaffer/Holm and the closed test above)
    expected = {
        ("C4.5", "Kernel"): 4.486991e-07, ("NaiveBayes", "Kernel"): 1.041671e-06,
        ("Kernel", "CN2"): 1.152194e-02, ("C4.5", "k-NN(k=1)"): 2.909258e-02,
        ("k-NN(k=1)", "Kernel"): 3.185396e-02, ("k-NN(k=1)", "NaiveBayes"): 3.185396e-02,
        ("C4.5", "CN2"): 3.828902e-02, ("NaiveBayes", "CN2"): 3.828902e-02,
        ("k-NN(k=1)", "CN2"): 1.0, ("C4.5", "NaiveBayes"): 1.0,
    }
    for pair, p in expected.items():
        assert out.loc[pair, "p_adjusted"] == pytest.approx(p, rel=5e-7)
    # at alpha = 0.05 only C4.5 ~ NaiveBayes and k-NN ~ CN2 are retained (scmamp's graph for this example);
    # Shaffer also retains C4.5 ~ CN2 and NaiveBayes ~ CN2
    retained = {pair for pair, p in out["p_adjusted"].items() if p > 0.05}
    assert retained == {("C4.5", "NaiveBayes"), ("k-NN(k=1)", "CN2")}
    shaffer = posthoc.friedman_posthoc(means, correction="shaffer").set_index(["a", "b"])["p_adjusted"]
    assert {pair for pair, p in shaffer.items() if p > 0.05} == retained | {("C4.5", "CN2"), ("NaiveBayes", "CN2")}


def _rows_with_rank_sums(sums: list[float], n: int) -> list[list[float]]:
    """``n`` rows of scores (higher is better) whose per-row ranks (1 = best) add up to ``sums``.

    Row 0 ties the two algorithms whose sums end in .5 (ranks 2.5, 2.5); the other rows are permutations
    of 1..k, adjusted by swapping two ranks within a row while that brings the column sums closer.
    """
    k = len(sums)
    target = np.array(sums, dtype=float)
    half = [i for i, s in enumerate(sums) if s % 1]
    assert k == 5 and len(half) == 2
    row0 = np.empty(k)
    others = [i for i in range(k) if i not in half]
    row0[half] = 2.5
    row0[others] = [1.0, 4.0, 5.0]
    ranks = np.array([row0] + [np.arange(1.0, k + 1) for _ in range(n - 1)])
    improved = True
    while improved:
        improved = False
        for r in range(1, n):
            for a, b in itertools.combinations(range(k), 2):
                gap = ranks.sum(axis=0) - target
                delta = ranks[r, b] - ranks[r, a]  # swapping moves column a by +delta, column b by -delta
                if abs(gap[a] + delta) + abs(gap[b] - delta) < abs(gap[a]) + abs(gap[b]):
                    ranks[r, a], ranks[r, b] = ranks[r, b], ranks[r, a]
                    improved = True
    return [list(-row) for row in ranks]  # score = -rank reproduces the ranks, ties included


def test_limit_is_a_one_line_error_naming_the_alternatives():
    with pytest.raises(TreebenchError) as info:
        posthoc.bergmann_hommel(np.full(45, 0.01), 10)
    msg = str(info.value)
    assert "\n" not in msg and "9 algorithms" in msg and "--correction shaffer or holm" in msg
    means = pd.DataFrame(np.random.default_rng(0).uniform(size=(6, 10)), columns=[f"a{i}" for i in range(10)])
    with pytest.raises(TreebenchError, match="limited to 9 algorithms"):
        posthoc.friedman_posthoc(means, correction="bergmann-hommel")
    with pytest.raises(TreebenchError, match="needs the 6 p-values of all pairs of 4 algorithms"):
        posthoc.bergmann_hommel([0.1, 0.2], 4)


def test_k9_is_fast():
    posthoc.partitions.cache_clear()
    posthoc.exhaustive_sets.cache_clear()
    p = np.random.default_rng(9).uniform(0, 0.1, 36)
    start = time.perf_counter()
    adj = posthoc.bergmann_hommel(p, 9)
    assert time.perf_counter() - start < 0.5
    assert posthoc.exhaustive_sets(9).shape == (BELL[9] - 1, 36)
    assert np.all(adj <= posthoc.shaffer(p, 9) + 1e-15)


def test_other_families_resolve_to_holm():
    assert multiple.resolve("bergmann-hommel", 3) == "holm" and multiple.resolve("shaffer", 3) == "holm"
    assert multiple.resolve("bergmann-hommel", 1) == "none"
    p = [0.01, 0.04, 0.03]
    np.testing.assert_allclose(multiple.adjust(p, "bergmann-hommel"), multiple.holm(p))


def test_compare_cli_bergmann_hommel(store):  # noqa: F811
    _, path = store
    code, out = invoke(str(path), "--test", "friedman", "--correction", "bergmann-hommel", "--format", "csv")
    assert code == 0, out
    rows = list(csv.DictReader(io.StringIO(out)))
    post = [r for r in rows if r["kind"] == "friedman-posthoc"]
    assert len(post) == 3  # one line per pair of the 3 algorithms
    assert all(r["correction"] == "bergmann-hommel" for r in post)
    raw = np.array([float(r["p_value"]) for r in post])
    adjusted = np.array([float(r["p_adjusted"]) for r in post])
    np.testing.assert_allclose(adjusted, posthoc.bergmann_hommel(raw, 3), rtol=1e-6, atol=1e-9)
    # the marks per dataset are not all pairs: they use Holm, and say so
    cells = [r for r in rows if r["kind"] == "cell" and r["correction"]]
    assert cells and all(r["correction"] == "holm" for r in cells)
    code, md = invoke(str(path), "--test", "friedman", "--correction", "bergmann-hommel")
    assert code == 0, md
    for r in post:  # one table line per pair: A | B | z | p | adjusted p | significant
        line = [ln for ln in md.splitlines() if ln.startswith(f"| {r['algorithm']} | {r['opponent']} | ")]
        assert len(line) == 1
        cells = [c.strip() for c in line[0].strip("|").split("|")]
        assert float(cells[4]) == pytest.approx(float(r["p_adjusted"]), abs=5e-5)
