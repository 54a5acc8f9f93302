"""Belief-function trees (paper 004): u_lambda, eq. 22 node beliefs, pignistic error."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from treebench import criteria
from treebench.criteria.belief import uncertainty
from treebench.errors import TreebenchError
from treebench.kernels.belief import node_masses, prefix_masses, split_masses
from treebench.learners.belief import pignistic_error
from treebench.trees.belief import BeliefTreeClassifier


def _printed_by_hand(n1: int, n2: int, lam: float) -> float:
    # The closed form as printed in the paper (two classes).
    n = n1 + n2
    return (1 - lam) / (n + 1) - lam * sum(
        nj / (n + 1) * math.log2((2 * nj + 1) / (n + 1)) for nj in (n1, n2) if nj
    )


def test_u_lambda_printed_matches_hand_value():
    # counts (3, 1), lam = 0.3: 0.7/5 - 0.3 (0.6 log2 1.4 + 0.2 log2 0.6)
    hand = 0.14 - 0.3 * (0.6 * math.log2(1.4) + 0.2 * math.log2(0.6))
    crit = criteria.get("belief", lam=0.3)
    assert crit.node_value(np.array([3, 1])) == pytest.approx(hand, abs=1e-12)
    for n1, n2, lam in [(0, 0, 0.5), (5, 0, 1.0), (2, 7, 0.0), (10, 10, 0.8)]:
        assert criteria.get("belief", lam=lam).node_value(np.array([n1, n2])) == pytest.approx(
            _printed_by_hand(n1, n2, lam), abs=1e-12
        )


def test_u_lambda_nonspecificity_discord_from_eqs_17_19():
    # BS (3/5, 1/5, 1/5): N = 1/5, BetP = (0.7, 0.3), D = -(0.6 log2 0.7 + 0.2 log2 0.3)
    lam = 0.3
    nonspec = 0.2
    discord = -(0.6 * math.log2(0.7) + 0.2 * math.log2(0.3))
    crit = criteria.get("belief", lam=lam, variant="nonspecificity-discord")
    assert crit.node_value(np.array([3, 1])) == pytest.approx((1 - lam) * nonspec + lam * discord, abs=1e-12)
    # the two variants differ by lam * n/(n+1) (papers' README)
    printed = criteria.get("belief", lam=lam).node_value(np.array([3, 1]))
    assert crit.node_value(np.array([3, 1])) - printed == pytest.approx(lam * 4 / 5, abs=1e-12)


def test_goodness_is_parent_minus_weighted_children():
    crit = criteria.get("belief", lam=0.7)
    parent = np.array([6, 4])
    children = np.array([[[5, 1], [1, 3]]])
    expected = (
        _printed_by_hand(6, 4, 0.7) - 0.6 * _printed_by_hand(5, 1, 0.7) - 0.4 * _printed_by_hand(1, 3, 0.7)
    )
    assert crit.split_scores(parent, children)[0] == pytest.approx(expected, abs=1e-12)


def test_multiclass_options():
    counts = np.array([4, 2, 1])
    natural = criteria.get("belief", lam=1.0, variant="nonspecificity-discord").node_value(counts)
    betp = (counts + 1 / 3) / 8
    assert natural == pytest.approx(-(counts / 8 * np.log2(betp)).sum(), abs=1e-12)
    ovr = criteria.get("belief", lam=0.4, multiclass="one-vs-rest").node_value(counts)
    pairs = [_printed_by_hand(c, 7 - c, 0.4) for c in counts]
    assert ovr == pytest.approx(np.mean(pairs), abs=1e-12)


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(TreebenchError, match="lam"):
        criteria.get("belief", lam=1.5)
    with pytest.raises(TreebenchError, match="accepted"):
        criteria.get("belief", variant="klir")


def _crisp(labels):
    return np.array([[1.0, 0.0, 0.0] if c == 0 else [0.0, 1.0, 0.0] for c in labels])


def test_eq22_reduces_to_eq12_for_crisp_labels():
    for r, s in [(0, 0), (1, 0), (3, 2), (0, 7), (40, 13)]:
        bel_s, bel_f, m_omega = node_masses(_crisp([0] * r + [1] * s))
        n = r + s
        assert (bel_s, bel_f, m_omega) == pytest.approx((r / (n + 1), s / (n + 1), 1 / (n + 1)), abs=1e-12)


def _brute_force(labels: np.ndarray) -> np.ndarray:
    # Enumerate which focal set (S, F, Omega) each example's factor contributes:
    # the product mass goes to alpha_{jk}, j = #S picks, k = #F picks (eq. 21).
    alpha: dict[tuple[int, int], float] = {}
    for picks in itertools.product(range(3), repeat=len(labels)):
        weight = float(np.prod([labels[i, p] for i, p in enumerate(picks)]))
        key = (picks.count(0), picks.count(1))
        alpha[key] = alpha.get(key, 0.0) + weight
    out = np.zeros(3)
    for (j, k), a in alpha.items():
        out += a * np.array([j, k, 1.0]) / (j + k + 1)
    return out


def test_eq22_matches_brute_force_on_tiny_nodes():
    rng = np.random.default_rng(4)
    kinds = [
        lambda: rng.dirichlet([1, 1, 1]),  # fully general
        lambda: np.array([0.0, *(lambda q: (q, 1 - q))(rng.random())]),  # m(F)=q, rest on Omega
        lambda: np.array([1.0, 0, 0]),
        lambda: np.array([0, 1.0, 0]),
        lambda: np.array([0, 0, 1.0]),
        lambda: np.array([*(lambda q: (q, 1 - q))(rng.random()), 0.0]),  # no Omega
    ]
    for n in range(1, 7):
        for _ in range(8):
            labels = np.array([kinds[rng.integers(len(kinds))]() for _ in range(n)])
            assert node_masses(labels) == pytest.approx(_brute_force(labels), abs=1e-12)
            assert node_masses(labels).sum() == pytest.approx(1.0, abs=1e-12)


def test_prefix_and_split_sweeps_equal_direct_computation():
    rng = np.random.default_rng(5)
    labels = rng.dirichlet([0.5, 0.5, 0.5], size=30)
    labels[::3] = [1, 0, 0]
    prefixes = prefix_masses(labels)
    for p in range(31):
        assert prefixes[p] == pytest.approx(node_masses(labels[:p]) if p else [0, 0, 1], abs=1e-12)
    positions = np.array([1, 7, 29])
    left, right = split_masses(labels, positions)
    for i, p in enumerate(positions):
        assert left[i] == pytest.approx(node_masses(labels[:p]), abs=1e-12)
        assert right[i] == pytest.approx(node_masses(labels[p:]), abs=1e-12)


def test_vacuous_examples_leave_node_and_impurity_unchanged():
    rng = np.random.default_rng(6)
    labels = rng.dirichlet([1, 1, 1], size=12)
    with_vacuous = np.vstack([labels[:5], [[0, 0, 1]] * 4, labels[5:], [[0, 0, 1]]])
    assert node_masses(with_vacuous) == pytest.approx(node_masses(labels), abs=1e-12)
    for variant in ("printed", "nonspecificity-discord"):
        u = uncertainty(node_masses(labels), 0.6, variant)
        assert float(uncertainty(node_masses(with_vacuous), 0.6, variant)) == pytest.approx(float(u), abs=1e-12)


def test_pignistic_error_on_hand_example():
    proba = np.array([[0.8, 0.2], [0.3, 0.7], [0.5, 0.5]])
    masses = np.array([[1.0, 0, 0], [0, 0.6, 0.4], [0, 0, 1.0]])
    # 1 - 0.8 = 0.2; 1 - (0.6 * 0.7 + 0.4) = 0.18; vacuous: 0
    assert pignistic_error(proba, masses) == pytest.approx((0.2 + 0.18 + 0.0) / 3, abs=1e-12)
    with pytest.raises(TreebenchError, match="shape"):
        pignistic_error(proba, masses[:, :2])


def _simulated(n: int = 200, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.4 * rng.normal(size=n) > 0).astype(int)
    masses = _crisp(y)
    share = (y == 1) & (rng.random(n) < 0.5)
    q = rng.integers(1, 6, size=n) / 5
    masses[share] = np.column_stack([np.zeros(n), q, 1 - q])[share]
    return X, y, masses


def test_tree_leaves_keep_belief_structures_and_predict_pignistic():
    X, y, masses = _simulated()
    crisp = BeliefTreeClassifier(lam=0.5, max_depth=3).fit(X, y)
    leaf_counts = crisp.tree_.counts[crisp.apply(X)]
    n = leaf_counts.sum(axis=1, keepdims=True)
    assert crisp.predict_proba(X) == pytest.approx((leaf_counts + 0.5) / (n + 1), abs=1e-12)
    uncertain = BeliefTreeClassifier(lam=0.5, max_depth=3).fit(X, y, label_masses=masses)
    leaves = uncertain.apply(X)
    for leaf in np.unique(leaves):
        assert uncertain.leaf_masses_[leaf] == pytest.approx(node_masses(masses[leaves == leaf]), abs=1e-12)
    proba = uncertain.predict_proba(X)
    assert proba.sum(axis=1) == pytest.approx(np.ones(len(X)))
    assert set(uncertain.predict(X)) <= {0, 1}
    with pytest.raises(TreebenchError, match="label masses"):
        BeliefTreeClassifier().fit(X, y, label_masses=masses[:, :2])


# -- simulated expert labels and the experiment path -----------------------------------
def test_simulated_label_masses_follow_the_spec():
    from treebench.data.label_uncertainty import LabelUncertainty, simulate_label_masses

    y = np.array([0] * 300 + [1] * 300)
    spec = LabelUncertainty(uncertain_class=1, share=0.5, experts=(1.0, 1.0, 0.0, 0.5, 0.5))
    masses, labels = simulate_label_masses(y, spec, np.random.default_rng(1))
    again, _ = simulate_label_masses(y, spec, np.random.default_rng(1))
    assert np.array_equal(masses, again) and np.array_equal(labels, y)
    assert np.array_equal(masses[:300], np.tile([1.0, 0, 0], (300, 1)))  # certain class stays crisp
    rated = masses[300:, 2] > 0
    assert 0.4 < rated.mean() < 0.6
    q = masses[300:, 1][rated]
    # two experts always say class 1, one never: q in {2/5, 3/5, 4/5}
    assert set(np.round(q * 5).astype(int)) <= {2, 3, 4}
    assert masses.sum(axis=1) == pytest.approx(np.ones(600))


def test_confused_examples_join_the_uncertain_class_when_an_expert_names_it():
    from treebench.data.label_uncertainty import LabelUncertainty, simulate_label_masses

    y = np.array([0] * 400 + [1] * 100)
    spec = LabelUncertainty(uncertain_class=1, share=1.0, experts=(0.5, 0.5, 0.9), confused=0.5)
    masses, labels = simulate_label_masses(y, spec, np.random.default_rng(2))
    flipped = (y == 0) & (labels == 1)
    assert 0.3 < flipped.mean() / 0.8 < 0.6  # about half of class 0 rated, most named by someone
    assert (masses[flipped, 1] > 0).all() and (masses[flipped, 0] == 0).all()
    kept = y == labels
    assert np.array_equal(masses[kept & (y == 0)], np.tile([1.0, 0, 0], ((kept & (y == 0)).sum(), 1)))
    assert (labels[y == 1] == 1).all()


def test_named_only_redraws_the_votes_no_expert_cast():
    """Paper 004's K-complex class is every pattern some expert named: no class-1 example has q = 0."""
    from treebench.data.label_uncertainty import (
        LabelUncertainty,
        no_majority_share,
        simulate_label_masses,
    )

    y = np.array([0] * 200 + [1] * 2000)
    loose = LabelUncertainty(share=1.0, experts=(0.3, 0.3, 0.3))
    named = LabelUncertainty(share=1.0, experts=(0.3, 0.3, 0.3), named_only=True)
    m_loose, _ = simulate_label_masses(y, loose, np.random.default_rng(5))
    m_named, labels = simulate_label_masses(y, named, np.random.default_rng(5))
    assert (m_loose[y == 1, 2] == 1.0).mean() == pytest.approx(0.7 ** 3, abs=0.03)  # vacuous: nobody named it
    assert (m_named[y == 1, 1] > 0).all() and (labels == y).all()
    # three experts, none at most 1 of 3 by hand: P(V = 1 | V >= 1) = 3 .3 .49 / (1 - .343) = 0.6712
    assert no_majority_share(m_named, labels) == pytest.approx(3 * 0.3 * 0.49 / (1 - 0.343), abs=0.03)
    assert (no_majority_share(m_named, labels), named.fields()["named_only"]) == (
        pytest.approx(float(np.mean(m_named[y == 1, 1] <= 0.5))), True)
    assert "named_only" not in loose.fields()  # configs without it keep their trial keys


def test_expected_no_majority_and_the_reliability_that_gives_one_half():
    from treebench.data.label_uncertainty import (
        equal_reliability_for,
        expected_no_majority,
        vote_distribution,
    )

    # two experts 0.5 and 1.0: V = 1 or 2 with probability 1/2 each
    assert vote_distribution([0.5, 1.0]) == pytest.approx([0.0, 0.5, 0.5])
    # five experts at 1/2: P(V <= 2) = 16/32; given V >= 1: 15/31
    assert expected_no_majority([0.5] * 5, named_only=False) == pytest.approx(0.5)
    assert expected_no_majority([0.5] * 5) == pytest.approx(15 / 31)
    r = equal_reliability_for(0.5)
    assert expected_no_majority([r] * 5) == pytest.approx(0.5, abs=1e-9) and 0.49 < r < 0.492
    for target in (0.0, 1.0):
        with pytest.raises(TreebenchError, match="out of reach"):
            equal_reliability_for(target)


def test_lambda_tuned_by_pignistic_error_is_the_grid_value_of_lowest_inner_e():
    """The learner's own inner CV: recomputed by hand with the same folds, fits and eq. 23."""
    import pandas as pd

    from treebench.data.label_uncertainty import LabelUncertainty, simulate_label_masses
    from treebench.learners.belief import LAM_FOLDS, LAM_GRID, LAM_STREAM, BeliefLearner
    from treebench.sampling import stratified_kfold

    rng = np.random.default_rng(7)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=list("abc"), index=np.arange(1000, 1120))
    y = (X["a"] + 0.8 * rng.normal(size=120) > 0).to_numpy().astype(np.int64)
    masses, labels = simulate_label_masses(y, LabelUncertainty(share=1.0, experts=(0.49,) * 5, named_only=True), rng)
    learner = BeliefLearner("belief")
    learner.use_label_masses(masses, X.index)
    params = {"labels": "masses", "lam_tuning": "pignistic-error"}
    lam, errors = learner.tune_lam(params, X, labels, seed=11)
    by_hand = []
    folds = stratified_kfold(labels, LAM_FOLDS, np.random.default_rng([11, LAM_STREAM]))
    for value in LAM_GRID:
        lost = 0.0
        for train, valid in folds:
            tree = BeliefTreeClassifier("belief", lam=value, labels="masses").fit(
                X.iloc[train], labels[train], label_masses=masses[train])
            betp = (masses[valid, :2] * tree.predict_proba(X.iloc[valid])).sum(axis=1) + masses[valid, 2]
            lost += (1 - betp).sum()
        by_hand.append(lost / len(labels))
    assert errors == pytest.approx(by_hand, abs=1e-12)
    assert lam == LAM_GRID[int(np.argmin(np.round(by_hand, 12)))] or np.isclose(
        min(by_hand), by_hand[LAM_GRID.index(lam)], atol=1e-12)
    model = learner.fit_final(params, X, labels, seed=11)
    assert learner.chosen(model) == {"lam": lam} and learner.fits_per_trial(params) == LAM_FOLDS * len(LAM_GRID) + 1
    assert learner.chosen(learner.fit_final({"labels": "masses", "lam": 0.3}, X, labels, seed=11)) == {}


@pytest.mark.parametrize(
    "raw, fragment",
    [
        ({"share": 0}, "share=0 is out of range; accepted: 0 < share <= 1"),
        ({"uncertain_class": 2}, "accepted: 0 or 1"),
        ({"experts": [0.9, 1.5]}, "reliabilities in [0, 1]"),
        ({"expert": [0.9]}, "unknown key 'expert'; accepted: uncertain_class, share, experts, confused, named_only"),
        ({"confused": 1}, "accepted: 0 <= confused < 1"),
        ({"named_only": "yes"}, "named_only='yes' is invalid; accepted: true or false"),
        ({"named_only": True, "experts": [0, 0]}, "needs an expert of reliability > 0"),
    ],
)
def test_label_uncertainty_config_errors_are_one_line(tmp_path, raw, fragment):
    import yaml

    from treebench.experiment.config import load_config

    config = {
        "experiment": "b",
        "datasets": ["wdbc"],
        "label_uncertainty": raw,
        "protocol": {"type": "cv", "folds": 2},
        "algorithms": [{"name": "b", "criterion": "belief"}],
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config))
    with pytest.raises(TreebenchError) as info:
        load_config(path)
    message = str(info.value)
    assert fragment in message and "label_uncertainty" in message and "\n" not in message.strip()


def test_tiny_config_run_stores_error_and_pignistic_error(tmp_path):
    from treebench.experiment.runner import run_experiment
    from treebench.experiment.store import ResultsStore

    config = tmp_path / "belief.yaml"
    config.write_text(
        "experiment: belief-tiny\nseed: 3\ndatasets: [wdbc]\n"
        "label_uncertainty: {uncertain_class: 1, share: 0.5, confused: 0.2}\n"
        "protocol: {type: cv, folds: 2, repeats: 1}\ntuning: {folds: 2}\n"
        "algorithms:\n"
        "  - {name: belief-crisp, criterion: belief, params: {labels: crisp, max_depth: 2}, grid: {lam: [0.3, 1.0]}}\n"
        "  - {name: belief-uncertain, criterion: belief, params: {labels: masses, max_depth: 2}, grid: {lam: [0.3, 1.0]}}\n"
        "  - {name: entropy, criterion: entropy, params: {max_depth: 2}}\n"
        "metrics: [error, pignistic_error]\n"
    )
    store_path = tmp_path / "b.sqlite"
    summary = run_experiment(config, store_path=store_path, quiet=True, echo=lambda line: None, jobs=1)
    assert (summary.done, summary.failed) == (6, 0)
    with ResultsStore(store_path) as store:
        frame = store.to_frame()
    belief = frame[frame["algorithm"] != "entropy"]
    assert belief["pignistic_error"].between(0, 1).all()
    assert frame[frame["algorithm"] == "entropy"]["pignistic_error"].isna().all()
    # the two arms see different training labels, so their leaves' beliefs differ
    by_arm = belief.groupby("algorithm")["pignistic_error"].mean()
    assert by_arm["belief-crisp"] != by_arm["belief-uncertain"]


def test_the_crisp_arm_can_tune_lambda_on_its_own_crisp_labels():
    """``pignistic-error-own-labels``: a labels=crisp tree measures E on one-hot crisp labels, not the masses."""
    import pandas as pd

    from treebench.data.label_uncertainty import (
        LabelUncertainty,
        crisp_label_masses,
        simulate_label_masses,
    )
    from treebench.learners.belief import BeliefLearner

    rng = np.random.default_rng(8)
    X = pd.DataFrame(rng.normal(size=(100, 2)), columns=["a", "b"])
    y = (X["a"] + rng.normal(size=100) > 0).to_numpy().astype(np.int64)
    masses, labels = simulate_label_masses(y, LabelUncertainty(share=1.0, experts=(0.49,) * 5, named_only=True), rng)
    learner = BeliefLearner("belief")
    learner.use_label_masses(masses, X.index)
    own = {"labels": "crisp", "lam_tuning": "pignistic-error-own-labels"}
    assert np.array_equal(learner.label_masses_of(X, labels, own), crisp_label_masses(labels, 2))
    assert np.array_equal(learner.label_masses_of(X, labels, {**own, "labels": "masses"}), masses)
    assert np.array_equal(learner.label_masses_of(X, labels, {**own, "lam_tuning": "pignistic-error"}), masses)
    _, on_crisp = learner.tune_lam(own, X, labels, seed=2)
    _, on_masses = learner.tune_lam({**own, "lam_tuning": "pignistic-error"}, X, labels, seed=2)
    assert not np.allclose(on_crisp, on_masses)  # the same trees, scored against other labels
    assert learner.fits_per_trial(own) == 36
