"""MEE's convex/concave rule per orientation (default) or on the two orientations' lower envelope.

``convexity_test="per_orientation"`` judges each orientation's error-entropy curve of a class set
on its own; ``"envelope"`` judges one curve per class set and feature, the pointwise minimum of the
two, and its verdict gates both orientations (docs/criteria.md, "Which curve the rule judges").
Hand-built curves and nodes where the two disagree, with a readable oracle written here; the
compiled kernels against the numpy reference and the node loop against the per-node builder under
the envelope; the default unchanged; bad values refused in one line.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest
from test_mee_grow import assert_same_growth, random_data

from treebench import criteria
from treebench.criteria.mee import class_sets, convexity_verdicts, error_entropy_curve, is_convex
from treebench.errors import TreebenchError
from treebench.experiment.config import parse_config
from treebench.kernels.mee import best_mee_split, xlogx_table
from treebench.trees.mee import (
    MEE,
    MEETreeClassifier,
    grow_mee,
    grow_mee_per_node,
    reference_best_split,
)


def h(*probabilities: float) -> float:
    """Shannon entropy (nats) of the given probabilities."""
    return -sum(p * math.log(p) for p in probabilities if p > 0)


def oracle_verdicts(x: np.ndarray, t: np.ndarray, test: str, points: int = 100) -> tuple[bool, bool]:
    """The rule read off the text with plain numpy: fifths of a 100-point grid over the node's range.

    m_c is the mean of the three central fifths, m_e of the two end ones; a curve is convex when
    m_c <= m_e.  The error entropy at grid value g is computed from the counts directly.
    """
    grid = np.linspace(x.min(), x.max(), points)
    n = x.size
    curves = []
    for orientation in (0, 1):
        values = []
        for g in grid:
            left = x <= g
            in_set = t == 1
            if orientation == 0:  # left assigned the set: set cases right are e = 2, others left e = -2
                plus, minus = np.sum(in_set & ~left), np.sum(~in_set & left)
            else:  # right assigned the set: set cases left are e = 2, others right e = -2
                plus, minus = np.sum(in_set & left), np.sum(~in_set & ~left)
            values.append(h(plus / n, minus / n, 1 - (plus + minus) / n))
        curves.append(np.array(values))

    def convex(curve: np.ndarray) -> bool:
        lo, hi = points // 5, 4 * points // 5
        return bool(curve[lo:hi].mean() <= np.concatenate([curve[:lo], curve[hi:]]).mean() + 1e-12)

    if test == "envelope":
        verdict = convex(np.minimum(*curves))
        return verdict, verdict
    return convex(curves[0]), convex(curves[1])


# -- the verdicts on hand-built curves --------------------------------------------------------
# ten grid points: the end fifths are points 0, 1, 8, 9, the central ones 2..7
DIP = np.array([1.0, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 1])  # m_c 0.5 <= m_e 1: convex


@pytest.mark.parametrize(
    ("second", "per_orientation", "envelope"),
    [
        # low at the ends, high in the centre: concave alone (0.9 > 0), and its ends pull the
        # envelope's m_e to 0 while its centre stays at the first curve's 0.5: concave
        (np.array([0.0, 0, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0, 0]), (True, False), (False, False)),
        # one low point in the centre, high elsewhere: concave alone (m_c 1.7 > m_e 1), but under the
        # first curve's dip the envelope is convex (m_c 0.45), and it gates both orientations
        (np.array([1.0, 1, 0.2, 2, 2, 2, 2, 2, 1, 1]), (True, False), (True, True)),
        # the mirror of the dip: both convex, the envelope too -- the readings agree
        (DIP[::-1].copy(), (True, True), (True, True)),
    ],
)
def test_verdicts_on_hand_built_curves(second, per_orientation, envelope):
    assert convexity_verdicts((DIP, second)) == per_orientation
    assert convexity_verdicts((DIP, second), "per_orientation") == (is_convex(DIP), is_convex(second))
    assert convexity_verdicts((DIP, second), "envelope") == envelope


def test_the_envelope_may_be_convex_when_neither_orientation_is():
    # each curve dips over half of the centre and rises over the other half: m_c 1.25 > m_e 1 for both;
    # their minimum dips over the whole centre (m_c 0)
    first = np.array([1.0, 1, 0, 0, 0, 2.5, 2.5, 2.5, 1, 1])
    second = np.array([1.0, 1, 2.5, 2.5, 2.5, 0, 0, 0, 1, 1])
    assert convexity_verdicts((first, second)) == (False, False)
    assert convexity_verdicts((first, second), "envelope") == (True, True)


def test_verdicts_refuse_an_unknown_test_in_one_line():
    with pytest.raises(TreebenchError, match=r"convexity_test='both' is invalid; accepted: per_orientation, envelope"):
        convexity_verdicts((DIP, DIP), "both")


# -- nodes where the readings disagree --------------------------------------------------------
def test_a_class_between_the_others_splits_per_orientation_and_is_a_leaf_on_the_envelope():
    # five cases x = 0..4 of classes 1 1 0 0 1: class 0 (the set, p = 2/5) sits inside class 1
    x = np.arange(5.0)
    y = np.array([1, 1, 0, 0, 1])
    t = np.where(y == 0, 1, -1)
    # orientation 1 (x > threshold assigned the set) at x <= 1: no set case left, one other case
    # (x = 4) right: a single e = -2, H = h(1/5), below not splitting, h(2/5)
    levels, curve, _ = error_entropy_curve(x, t, None, 1)
    assert curve[1] == pytest.approx(h(0.2, 0.8)) and h(0.2, 0.8) < h(0.4, 0.6)
    # its grid curve is convex on its own, orientation 0's is not, and their envelope is not either
    assert oracle_verdicts(x, t, "per_orientation") == (False, True)
    assert oracle_verdicts(x, t, "envelope") == (False, False)
    grids = tuple(error_entropy_curve(x, t, 100, o)[1] for o in (0, 1))
    assert convexity_verdicts(grids) == (False, True) and convexity_verdicts(grids, "envelope") == (False, False)
    for engine in ("numba", "python"):
        split = MEETreeClassifier(min_class_cases=1, engine=engine).fit(x[:, None], y)
        assert split.tree_.n_nodes == 3 and split.split_sets_[0] == (0,) and split.split_orientations_[0] == 1
        assert split.tree_.float_nodes[0, 0] == 1.0 and split.tree_.float_nodes[0, 2] == pytest.approx(h(0.2, 0.8))
        leaf = MEETreeClassifier(min_class_cases=1, convexity_test="envelope", engine=engine).fit(x[:, None], y)
        assert leaf.tree_.n_nodes == 1  # the set's only curve pair is concave: no valid split


def test_on_a_three_class_node_the_envelope_takes_another_class_set():
    # six cases x = 0..5 of classes 0 0 1 2 2 0; the candidate sets are {0}, {1}, {2} (c/2 = 1)
    x = np.arange(6.0)
    y = np.array([0, 0, 1, 2, 2, 0])
    verdicts = {
        s: (oracle_verdicts(x, np.where(np.isin(y, s), 1, -1), "per_orientation"),
            oracle_verdicts(x, np.where(np.isin(y, s), 1, -1), "envelope"))
        for s in class_sets([0, 1, 2])
    }
    # {0}: orientation 0 convex alone, the envelope concave; {1}: nothing; {2}: orientation 1 and the envelope
    assert verdicts == {(0,): ((True, False), (False, False)), (1,): ((False, False), (False, False)),
                        (2,): ((False, True), (True, True))}
    # per orientation the first best is {0} with x <= 1 assigned it (one e = 2: the 0 at x = 5);
    # on the envelope {0} is out and {2} with x > 2 assigned it ties (one e = -2: the same case)
    for engine in ("numba", "python"):
        default = MEETreeClassifier(min_class_cases=1, engine=engine).fit(x[:, None], y)
        envelope = MEETreeClassifier(min_class_cases=1, convexity_test="envelope", engine=engine).fit(x[:, None], y)
        assert (default.split_sets_[0], int(default.split_orientations_[0]), default.tree_.float_nodes[0, 0]) == \
            ((0,), 0, 1.0)
        assert (envelope.split_sets_[0], int(envelope.split_orientations_[0]), envelope.tree_.float_nodes[0, 0]) == \
            ((2,), 1, 2.0)
        for model in (default, envelope):
            assert model.tree_.float_nodes[0, 2] == pytest.approx(h(1 / 6, 5 / 6))


# -- the compiled paths against their oracles --------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_scan_matches_the_reference_on_the_envelope(seed):
    rng = np.random.default_rng(100 + seed)
    n, d, k = 70, 3, 5
    X = rng.integers(0, 12, size=(n, d)).astype(float)
    X[:, 0] += rng.normal(0, 0.5, n)
    y = rng.integers(0, k, n)
    y[X[:, 1] > 8] = 0
    y[X[:, 2] < 3] = 1
    sets = class_sets(range(k))
    set_classes = np.full((len(sets), 2), -1, np.int64)
    for i, s in enumerate(sets):
        set_classes[i, : len(s)] = s
    sizes = np.array([len(s) for s in sets], np.int64)
    span = (X.min(axis=0) - rng.uniform(0, 6, d), X.max(axis=0) + rng.uniform(0, 6, d))
    for min_child, rates, whole, must_lower in ((1, "joint", True, True), (3, "printed", False, True),
                                                (1, "joint", False, False), (2, "printed", True, False)):
        for envelope in (False, True):
            fast = best_mee_split(X, y, set_classes, sizes, k, 100, min_child, rates == "printed", xlogx_table(n),
                                  whole, span[0], span[1], must_lower, envelope)
            slow = reference_best_split(X, y, sets, 100, min_child, rates, span=span if whole else None,
                                        must_lower=must_lower, envelope=envelope)
            assert fast[1:] == slow[1:]
            assert fast[0] == pytest.approx(slow[0], abs=1e-12)


#: (seed, classes, parameters) of random_data where the envelope's tree differs from the default's,
#: so that the parity below covers nodes where the two readings part
ENVELOPE_CASES = [
    (0, 7, {}),
    (1, 7, {"error_rates": "printed", "convexity_range": "node"}),
    (3, 7, {"must_lower": False}),
    (0, 7, {"convexity_range": "node", "must_lower": False}),
    (2, 7, {"max_merged": 2, "min_child_cases": 3, "min_class_cases": 2, "must_lower": False}),
]


def differs(a, b) -> bool:
    return a.ints.shape != b.ints.shape or not np.array_equal(a.ints, b.ints)


@pytest.mark.parametrize(("seed", "k", "params"), ENVELOPE_CASES,
                         ids=lambda v: ",".join(f"{a}={b}" for a, b in v.items()) if isinstance(v, dict) else str(v))
def test_the_node_loop_grows_the_per_node_builders_trees_on_the_envelope(seed, k, params):
    X, y, k = random_data(seed, k=k)
    grown = assert_same_growth(X, y, k, convexity_test="envelope", **params)
    assert grown.ints.shape[0] > 1 and differs(grown, grow_mee(X, y, k, MEE(**params)))
    # with random ties between features (the compiled tie pass against the numpy one)
    X2 = np.hstack([X, X[:, [1, 2]]])
    criterion = MEE(convexity_test="envelope", **params)
    fast = grow_mee(X2, y, k, criterion, seed=seed + 5)
    slow = grow_mee_per_node(X2, y, k, criterion, seed=seed + 5)
    np.testing.assert_array_equal(fast.ints, slow.ints)
    np.testing.assert_allclose(fast.floats, slow.floats, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(fast.orientations, slow.orientations)
    assert fast.split_sets == slow.split_sets


def test_the_node_loop_matches_the_python_reference_on_the_envelope():
    X, y, k = random_data(3, n=90, k=3)
    assert_same_growth(X, y, k, engine="python", convexity_test="envelope")
    X, y, k = random_data(0, n=120, k=7)
    assert_same_growth(X, y, k, engine="python", convexity_test="envelope", must_lower=False)


def test_the_node_loop_on_digits_where_the_envelope_grows_another_tree():
    from sklearn.datasets import load_digits

    digits = load_digits()
    X, y = np.ascontiguousarray(digits.data[:500]), digits.target[:500] % 4
    grown = assert_same_growth(X, y, 4, convexity_test="envelope")
    assert differs(grown, grow_mee(X, y, 4, MEE()))


def test_the_default_grows_the_trees_of_before_the_option():
    # the golden trees (tests/test_feature_ties.py) hold the rule before the option; here, spelt out
    X, y, k = random_data(0, k=7)
    default = grow_mee(X, y, k, MEE())
    explicit = grow_mee(X, y, k, MEE(convexity_test="per_orientation"))
    np.testing.assert_array_equal(default.ints, explicit.ints)
    np.testing.assert_array_equal(default.floats, explicit.floats)
    assert differs(default, grow_mee(X, y, k, MEE(convexity_test="envelope")))


# -- the parameter: default, trial keys, one-line errors --------------------------------------
def test_the_default_is_the_rule_before_the_option_and_keeps_the_trial_keys():
    from treebench.experiment.trial import code_version

    assert MEETreeClassifier().get_params()["convexity_test"] == "per_orientation"
    assert criteria.get("mee").values["convexity_test"] == "per_orientation"
    spec = parse_config(textwrap.dedent(
        """\
        experiment: mee-demo
        datasets: [iris]
        protocol: {type: cv, folds: 3}
        algorithms:
          - name: MEE
            criterion: mee
          - name: MEE-envelope
            criterion: mee
            params: {convexity_test: envelope}
        """
    ))
    default, envelope = spec.algorithms
    # the default stays out of the code fingerprint, so stored MEE trials keep their keys
    assert "convexity_test" not in code_version(default)["criterion_defaults"]
    assert "must_lower" in code_version(default)["criterion_defaults"]
    assert envelope.fields() != default.fields()


@pytest.mark.parametrize("value", ["both", "Envelope", 1])
def test_a_bad_value_is_refused_in_one_line(value):
    with pytest.raises(TreebenchError) as info:
        MEETreeClassifier(convexity_test=value).fit(np.arange(10.0)[:, None], [0, 1] * 5)
    message = str(info.value)
    assert "\n" not in message and "accepted: convexity_test in {per_orientation, envelope}" in message
    text = textwrap.dedent(
        f"""\
        experiment: mee-demo
        datasets: [iris]
        protocol: {{type: cv, folds: 3}}
        algorithms:
          - name: MEE
            criterion: mee
            params: {{convexity_test: {value}}}
        """
    )
    with pytest.raises(TreebenchError, match=r"accepted: convexity_test in \{per_orientation, envelope\}"):
        parse_config(text)
