"""Criterion values against the papers' examples, hand computations and
independent formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import entropy as scipy_entropy

from treebench import criteria
from treebench.criteria.base import select_feature
from treebench.criteria.possibilistic import agresti_coull_upper, dunn_sidak, z_value
from treebench.errors import TreebenchError
from treebench.kernels.scoring import score_children

BUILT_IN = ["entropy", "gain_ratio", "gini", "tsallis", "tsallis_gain_ratio", "certainty", "possibilistic"]


# -- paper 000: possibilistic cumulative entropy ---------------------------------
def test_example_2_possibility_degrees():
    # p = (0.5, 0.2, 0.3), n = 10, gamma = 0.05: pi(c2) = 0.52, pi(c3) = 0.76
    z = z_value(0.05)
    assert z == pytest.approx(1.959964, abs=1e-6)
    assert agresti_coull_upper(2, 10, z) == pytest.approx(0.52, abs=0.005)
    assert agresti_coull_upper(5, 10, z) == pytest.approx(0.76, abs=0.005)


def test_example_2_entropy_is_0_81():
    value = criteria.get("possibilistic", gamma=0.05).node_value(np.array([5, 2, 3]))
    assert math.floor(value * 100) / 100 == 0.81  # the paper prints 0.81
    assert value == pytest.approx(0.8178, abs=5e-4)


def test_example_2_by_hand():
    # eq. 12 written out term by term, normalised by q log 2
    z = z_value(0.05)
    t_star = [0.2, 0.5, 1.0]  # cumulative frequencies of c2, c2+c3, all
    pi = [agresti_coull_upper(2, 10, z), agresti_coull_upper(5, 10, z), 1.0]
    loss = -sum(t / 2 * math.log(p / 2) + (1 - t / 2) * math.log(1 - p / 2) for t, p in zip(t_star, pi))
    expected = loss / (3 * math.log(2))
    assert criteria.get("possibilistic").node_value([5, 2, 3]) == pytest.approx(expected, rel=1e-12)


def test_total_ignorance_scores_one_and_entropy_falls_with_n():
    crit = criteria.get("possibilistic", gamma=0.05)
    assert crit.node_value([0, 0, 0]) == 1.0
    # Proposition 3: same frequencies, more data -> lower entropy
    values = [crit.node_value(np.array([5, 2, 3]) * m) for m in (1, 2, 5, 20, 100, 1000)]
    assert all(a > b for a, b in zip(values, values[1:]))
    # Complete knowledge tends to 1/q, not to the 0 the paper's text claims:
    # the last cumulative event (the universe, pi = 1) always adds log 2 in
    # eq. 12.  Example 2's 0.81 needs that term, and it shifts parent and
    # children alike, so gains are unaffected (see the class docstring).
    assert crit.node_value([100000, 0, 0]) == pytest.approx(1 / 3, abs=1e-3)
    assert crit.node_value([10**7, 0]) == pytest.approx(1 / 2, abs=1e-3)


def test_larger_gamma_means_narrower_intervals_and_lower_entropy():
    counts = np.array([6, 3, 1])
    values = [criteria.get("possibilistic", gamma=g).node_value(counts) for g in (0.001, 0.01, 0.05, 0.2)]
    assert all(a > b for a, b in zip(values, values[1:]))


def test_specificity_order_is_respected():
    # Proposition 4: a more specific P-Pi transform gives a lower entropy
    crit = criteria.get("possibilistic")
    assert crit.node_value([8, 1, 1]) < crit.node_value([6, 2, 2]) < crit.node_value([4, 3, 3])


def test_dunn_sidak_correction():
    assert dunn_sidak(0.05, 1) == pytest.approx(0.05)
    assert dunn_sidak(0.05, 2) == pytest.approx(1 - 0.95**0.5)
    assert dunn_sidak(0.05, 3) < dunn_sidak(0.05, 2)


def test_possibilistic_gain_uses_corrected_children_and_can_be_negative():
    from treebench.criteria.possibilistic import possibilistic_entropy

    crit = criteria.get("possibilistic", gamma=0.05)
    parent = np.array([20, 2])
    children = np.array([[[10, 1], [10, 1]]])  # an uninformative split
    z2 = z_value(dunn_sidak(0.05, 2))
    expected = crit.node_value(parent) - (
        0.5 * possibilistic_entropy([10, 1], z2) + 0.5 * possibilistic_entropy([10, 1], z2)
    )
    score = crit.split_scores(parent, children)[0]
    assert score == pytest.approx(expected)
    assert score < 0 and not crit.accepts(score)
    # a split with little support is not worth making either ...
    weak = crit.split_scores(np.array([9, 1]), np.array([[[8, 0], [1, 1]]]))[0]
    assert weak < 0
    # ... but the same split on ten times the data is
    strong = crit.split_scores(np.array([90, 10]), np.array([[[80, 0], [10, 10]]]))[0]
    assert strong > 0 and crit.accepts(strong)
    # entropy gain, by contrast, is never negative
    assert criteria.get("entropy").split_scores(parent, children)[0] == pytest.approx(0, abs=1e-12)


def test_tree_quality_is_sum_over_leaves():
    crit = criteria.get("possibilistic", gamma=0.1)
    leaves = np.array([[5, 0], [1, 4], [0, 7]])
    assert crit.tree_quality(leaves) == pytest.approx(sum(crit.node_value(row) for row in leaves))


# -- paper 002: Tsallis ---------------------------------------------------------
@pytest.mark.parametrize("counts", [[5, 2, 3], [1, 0, 9], [3, 3], [7, 1, 1, 1]])
def test_tsallis_limits(counts):
    counts = np.array(counts, dtype=float)
    shannon_nats = scipy_entropy(counts)  # natural log
    gini = 1 - ((counts / counts.sum()) ** 2).sum()
    for q in (1 - 1e-6, 1 + 1e-6):
        assert criteria.get("tsallis", q=q).node_value(counts) == pytest.approx(shannon_nats, abs=1e-5)
    assert criteria.get("tsallis", q=1).node_value(counts) == pytest.approx(shannon_nats, rel=1e-12)
    assert criteria.get("tsallis", q=2).node_value(counts) == pytest.approx(gini, rel=1e-12)
    assert criteria.get("gini").node_value(counts) == pytest.approx(gini, rel=1e-12)


def test_tsallis_splits_match_shannon_and_gini():
    parent = np.array([6, 4, 2])
    children = np.array([[[5, 1, 0], [1, 3, 2]], [[6, 0, 1], [0, 4, 1]]])
    ent = criteria.get("entropy").split_scores(parent, children)
    ts1 = criteria.get("tsallis", q=1).split_scores(parent, children)
    assert ts1 == pytest.approx(ent * math.log(2))  # nats vs bits
    assert criteria.get("tsallis", q=2).split_scores(parent, children) == pytest.approx(
        criteria.get("gini").split_scores(parent, children)
    )
    assert criteria.get("tsallis_gain_ratio", q=1).split_scores(parent, children) == pytest.approx(
        criteria.get("gain_ratio").split_scores(parent, children)
    )


def test_tsallis_hand_value():
    # q = 3, p = (0.5, 0.5): (1 - 2 * 0.125) / 2 = 0.375
    assert criteria.get("tsallis", q=3).node_value([2, 2]) == pytest.approx(0.375)
    # q = 0.5, p = (0.25, 0.75): (1 - (0.5 + sqrt(.75))) / -0.5
    expected = (1 - (0.5 + math.sqrt(0.75))) / -0.5
    assert criteria.get("tsallis", q=0.5).node_value([1, 3]) == pytest.approx(expected)


# -- paper 003: certainty ---------------------------------------------------------
def test_certainty_hand_values():
    crit = criteria.get("certainty")
    assert crit.node_value([7, 3]) == pytest.approx(0.4)
    assert crit.node_value([5, 2, 3]) == pytest.approx(1 / 6 + 2 / 15 + 1 / 30)
    assert crit.node_value([5, 5]) == 0.0  # uniform: no certainty
    assert crit.node_value([9, 0]) == pytest.approx(1.0)  # two classes, pure: maximum 1
    assert crit.node_value([9, 0, 0]) == pytest.approx(4 / 3)  # more classes: above 1


def test_conditional_certainty_and_the_raising_inequality():
    crit = criteria.get("certainty")
    parent = np.array([7, 3])
    same_side = np.array([[[4, 1], [3, 2]]])  # both children lean the parent's way
    raising = np.array([[[5, 0], [2, 3]]])
    # I(C|A) = 0.5 * |0.8-0.5|*2 + 0.5 * |0.6-0.5|*2 = 0.4 = I(C)
    assert crit.conditional_certainty(same_side)[0] == pytest.approx(0.4)
    assert not crit.raises_certainty(parent, same_side)[0]
    # I(C|A) = 0.5 * 1 + 0.5 * 0.2 = 0.6 > 0.4
    assert crit.conditional_certainty(raising)[0] == pytest.approx(0.6)
    assert crit.split_scores(parent, raising)[0] == pytest.approx(0.2)
    assert crit.raises_certainty(parent, raising)[0]
    # the joint-probability form of the paper gives the same number
    joint = sum(abs(c / 10 - (row.sum() / 10) / 2) for row in raising[0] for c in row)
    assert joint == pytest.approx(0.6)


# -- classics --------------------------------------------------------------------------
def test_gain_ratio_hand_values():
    crit = criteria.get("gain_ratio")
    parent = np.array([4, 4])
    balanced = np.array([[[3, 1], [1, 3]]])
    h75 = -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))
    assert crit.split_scores(parent, balanced)[0] == pytest.approx(1 - h75)  # split info = 1
    uneven = np.array([[[4, 2], [0, 2]]])
    gain = 1 - 0.75 * -(2 / 3 * math.log2(2 / 3) + 1 / 3 * math.log2(1 / 3))
    assert crit.candidate_scores(parent, uneven)[0] == pytest.approx(gain)
    assert crit.split_scores(parent, uneven)[0] == pytest.approx(gain / h75)
    # a "split" with one non-empty branch is not a split
    assert crit.split_scores(parent, np.array([[[4, 4], [0, 0]]]))[0] == -np.inf


def test_entropy_and_gini_hand_values():
    parent = np.array([4, 4])
    children = np.array([[[3, 1], [1, 3]]])
    assert criteria.get("entropy").node_value(parent) == pytest.approx(1.0)
    assert criteria.get("gini").node_value(parent) == pytest.approx(0.5)
    assert criteria.get("gini").split_scores(parent, children)[0] == pytest.approx(0.5 - 0.375)


def test_c45_average_gain_rule():
    gains = np.array([0.5, 0.1, 0.3, -np.inf])
    ratios = np.array([0.2, 0.9, 0.4, -np.inf])
    # average gain over usable features = 0.3: feature 1 (gain 0.1) may not compete
    assert select_feature(gains, ratios, average_gain_rule=True) == 2
    assert select_feature(gains, ratios, average_gain_rule=False) == 1
    assert select_feature(np.full(3, -np.inf), np.full(3, -np.inf), True) == -1
    # ties go to the lowest index
    assert select_feature(np.ones(3), np.array([0.5, 0.5, 0.5]), False) == 0


# -- invariances and the kernels against the numpy formulas ------------------------------
def _params(name):
    return {"q": 1.7} if "tsallis" in name else ({"gamma": 0.1} if name == "possibilistic" else {})


count_rows = st.lists(st.integers(0, 40), min_size=2, max_size=6)


@st.composite
def splits(draw):
    k = draw(st.integers(2, 6))
    r = draw(st.integers(2, 4))
    m = draw(st.integers(1, 4))
    children = np.array(
        draw(st.lists(st.lists(st.lists(st.integers(0, 30), min_size=k, max_size=k), min_size=r, max_size=r), min_size=m, max_size=m))
    )
    parent_total = children[0].sum(axis=0)
    # every candidate must split the same parent: rescale others onto it
    children = np.array([children[0]] + [c for c in children[1:] if (c.sum(axis=0) == parent_total).all()])
    return parent_total, children


@pytest.mark.parametrize("name", BUILT_IN)
@settings(max_examples=40, deadline=None)
@given(data=splits(), seed=st.integers(0, 1000))
def test_class_order_invariance(name, data, seed):
    parent, children = data
    if parent.sum() == 0:
        return
    crit = criteria.get(name, **_params(name))
    perm = np.random.default_rng(seed).permutation(parent.size)
    assert crit.node_value(parent[perm]) == pytest.approx(crit.node_value(parent), rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(
        crit.split_scores(parent[perm], children[:, :, perm]),
        crit.split_scores(parent, children),
        rtol=1e-9,
        atol=1e-12,
    )


@pytest.mark.parametrize("name", BUILT_IN)
@settings(max_examples=40, deadline=None)
@given(data=splits())
def test_kernel_matches_numpy_reference(name, data):
    parent, children = data
    if parent.sum() == 0:
        return
    crit = criteria.get(name, **_params(name))
    max_branches = children.shape[1]
    candidate, final = score_children(
        crit.kernel_id, crit.kernel_params(max_branches), parent.astype(np.int64), children.astype(np.int64)
    )
    np.testing.assert_allclose(candidate, crit.candidate_scores(parent, children), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(final, crit.split_scores(parent, children), rtol=1e-9, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(data=splits())
def test_gains_are_nonnegative_for_concave_criteria(data):
    parent, children = data
    if parent.sum() == 0:
        return
    for name in ("entropy", "gini", "tsallis", "certainty"):
        scores = criteria.get(name, **_params(name)).split_scores(parent, children)
        assert (scores >= -1e-9).all(), name


# -- parameters and errors ----------------------------------------------------------------------
def test_registry_lists_built_ins():
    assert set(BUILT_IN) <= set(criteria.available())


@pytest.mark.parametrize(
    "name, params, message",
    [
        ("tsallis", {"q": 0}, "parameter q=0 is out of range; accepted: q > 0"),
        ("tsallis", {"q": "abc"}, "is not a valid float"),
        ("possibilistic", {"gamma": 1.0}, "accepted: 0 < gamma < 1"),
        ("possibilistic", {"alpha": 0.1}, "unknown parameter 'alpha'; accepted: gamma, min_gain"),
        ("tsalis", {}, "unknown criterion 'tsalis' (did you mean tsallis?)"),
        ("entropy", {"min_gain": float("nan")}, "is not finite"),
    ],
)
def test_bad_parameters_are_clear_errors(name, params, message):
    with pytest.raises(TreebenchError) as info:
        criteria.get(name, **params)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_parameters_are_coerced_and_exposed():
    crit = criteria.get("possibilistic", gamma="0.1")
    assert crit.gamma == 0.1 and crit.values == {"gamma": 0.1, "min_gain": 0.0}
