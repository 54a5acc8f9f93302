"""The investigations under ``investigations/`` run, and the premises they rest on hold."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "investigations"))
import certainty_ties  # noqa: E402
import mee_chains  # noqa: E402
import opitree_tiny_leaves  # noqa: E402
import tuning_protocol  # noqa: E402

from treebench.criteria import get  # noqa: E402


def test_two_class_certainty_gain_is_twice_the_drop_in_training_errors_over_n():
    """The premise of certainty_ties: with two classes, I(C|A) - I(C) = 2 (e(parent) - sum e(child)) / n."""
    rng = np.random.default_rng(39)
    criterion = get("certainty")
    for _ in range(200):
        children = rng.integers(0, 30, size=(rng.integers(2, 5), 2)).astype(float)
        children[children.sum(axis=1) == 0, 0] = 1.0
        parent = children.sum(axis=0)
        gain = criterion.split_scores(parent, children[None])[0]
        errors = lambda counts: counts.min(axis=-1).sum()  # noqa: E731 - the majority's misses
        assert gain == pytest.approx(2 * (errors(parent) - errors(children)) / parent.sum(), abs=1e-12)


def test_certainty_ties_on_wdbc():
    pytest.importorskip("treebench.data")
    try:
        row = certainty_ties.investigate("wdbc")  # asserts the readable and compiled trees agree
    except Exception as exc:  # noqa: BLE001 - without the dataset mirror there is nothing to measure
        if "not found" in str(exc) or "TREEBENCH_DATA" in str(exc):
            pytest.skip(f"wdbc is not available here: {exc}")
        raise
    assert row["classes"] == 2 and row["splits"] > 0
    assert 0 <= row["tie-break decided"] <= row["tied best"] <= row["splits"]
    assert row["tied best"] > row["splits"] / 2  # the finding: most two-class splits tie at the best
    assert certainty_ties.markdown([row]).count("\n") == 2


def test_eq_17_at_tiny_leaves_as_transcribed_from_the_text():
    """treebench's possibilistic gain equals an independent transcription of eqs. 12-17, and the finding
    holds: a clean split of a two-example leaf gains with two classes, loses with an unseen third (small γ)."""
    rows = {parent: (ours, text) for parent, ours, text in opitree_tiny_leaves.tiny_leaf_gains()}
    for ours, text in rows.values():
        assert ours == pytest.approx(text, abs=1e-12)
    small = [i for i, g in enumerate(opitree_tiny_leaves.GAMMAS) if g <= 0.2]
    assert all(v > 0 for v in rows[(1, 1)][0])
    assert all(rows[(1, 1, 0)][0][i] < 0 for i in small)


def test_share_of_class_1_without_a_majority_has_its_closed_form():
    """The premise of belief_labels: the expected share named by at most half the experts, and the draws follow it."""
    import belief_labels  # the investigation, on the path set at the top of this file

    from treebench.data.label_uncertainty import (
        LabelUncertainty,
        expected_no_majority,
        no_majority_share,
        simulate_label_masses,
    )

    old = (0.95, 0.85, 0.75, 0.65, 0.55)
    # P(V <= 2) for the old experts, by enumerating the 32 vote patterns
    by_hand = 0.0
    for votes in np.ndindex(*(2,) * 5):
        if sum(votes) <= 2:
            by_hand += float(np.prod([r if v else 1 - r for r, v in zip(old, votes)]))
    assert expected_no_majority(old, named_only=False) == pytest.approx(by_hand, abs=1e-12)
    assert by_hand == pytest.approx(0.0886, abs=5e-4)
    assert expected_no_majority([0.5] * 5) == pytest.approx(15 / 31)
    y = np.array([0] * 100 + [1] * 4000)
    for spec in (LabelUncertainty(share=1.0, experts=old),
                 LabelUncertainty(share=1.0, experts=(0.49,) * 5, named_only=True)):
        masses, labels = simulate_label_masses(y, spec, np.random.default_rng(39))
        assert no_majority_share(masses, labels) == pytest.approx(
            expected_no_majority(spec.experts, spec.named_only), abs=0.025)
    config = belief_labels.config_for(belief_labels.SETTINGS["re-derived default (0.49 x 5, named only)"],
                                      ["sonar"], "x")
    assert config["label_uncertainty"] == {"uncertain_class": 1, "share": 1.0, "experts": [0.49] * 5,
                                           "named_only": True}


def test_mee_may_rise_grows_a_chain_of_splits_above_not_splitting():
    """The premises of mee_chains: its census counts a split as not lowering exactly when its error entropy is
    not below h(n_S/n) (the joint reading's no-split value, written here from the definition); "may rise" grows
    a chain of such splits, and the default takes none."""
    from sklearn.datasets import load_breast_cancer

    from treebench.kernels import layout as L
    from treebench.trees.mee import MEETreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    may_rise = MEETreeClassifier(must_lower=False).fit(X, y)
    tree, rising = may_rise.tree_, 0
    for node in np.flatnonzero(tree.int_nodes[:, L.KIND] != L.LEAF):
        q = tree.counts[node][list(may_rise.split_sets_[node])].sum() / tree.counts[node].sum()
        unsplit = -(q * np.log(q) + (1 - q) * np.log(1 - q))  # every case on one side: P(e=±2) = q or 1 - q
        rising += bool(tree.float_nodes[node, L.SCORE] >= unsplit - 1e-12)
    census = mee_chains.split_census(may_rise)
    assert census["not lowering"] == rising and census["splits"] == may_rise.get_n_leaves() - 1
    assert rising > census["splits"] / 2  # most of its splits do not lower the error entropy
    assert may_rise.get_depth() >= 0.9 * may_rise.get_n_leaves() - 1  # a chain
    default = MEETreeClassifier().fit(X, y)
    assert mee_chains.split_census(default)["not lowering"] == 0
    assert default.get_n_leaves() < may_rise.get_n_leaves() / 4


def test_mee_chains_counts_the_splits_the_two_convexity_tests_judge_differently():
    """The premise of mee_chains' convexity census: a reading's own trees hold no split it refuses (the
    default none with a concave curve of its orientation, the envelope none with a concave envelope), and
    on 500 digits in four classes each tree holds splits the other reading refuses."""
    from sklearn.datasets import load_digits

    from treebench.trees.mee import MEETreeClassifier

    digits = load_digits()
    X, y = digits.data[:500], digits.target[:500] % 4
    census = {(test, must_lower): mee_chains.split_census(
        MEETreeClassifier(convexity_test=test, must_lower=must_lower).fit(X, y), X, y)
        for test in ("per_orientation", "envelope") for must_lower in (True, False)}
    for (test, _), counts in census.items():
        own = "orientation concave" if test == "per_orientation" else "envelope concave"
        assert counts[own] == 0 and counts["splits"] > 5
    assert census["envelope", True]["orientation concave"] > 0  # admitted only through the envelope
    assert census["per_orientation", False]["envelope concave"] > 0  # refused by the envelope


def test_mee_chains_measures_on_breast_tissue():
    pytest.importorskip("treebench.data")
    readings = {label: mee_chains.READINGS[label] for label in ("may rise (former default)", "must lower (default)")}
    try:
        result = mee_chains.measure("breast-tissue", repeats=1, readings=readings)
    except Exception as exc:  # noqa: BLE001 - without the dataset mirror there is nothing to measure
        if "not found" in str(exc) or "TREEBENCH_DATA" in str(exc):
            pytest.skip(f"breast-tissue is not available here: {exc}")
        raise
    assert set(result) == {*readings, "C4.5"}
    assert result["must lower (default)"]["not lowering share"] == 0.0
    assert result["must lower (default)"]["leaves"] <= result["may rise (former default)"]["leaves"]
    assert all(0.0 <= m["error"] <= 1.0 for m in result.values())
    assert mee_chains.markdown({"breast-tissue": result}).count("\n") == 4
    assert result["must lower (default)"]["same as default"] == 1.0


def test_tuning_protocol_selections_match_the_product_on_hayes_roth():
    """The premise of tuning_protocol: its after-the-fact selections are the product's.  The default rule
    picks the q a ``tsallis`` trial picks (same test accuracy), the test-split choice is what a
    ``tune_on: test`` trial stores, and no inner-CV rule beats the test-split choice on its own split."""
    from dataclasses import replace

    from treebench.experiment.config import load_config
    from treebench.experiment.runner import plan
    from treebench.experiment.trial import run_trial

    config = load_config(tuning_protocol.ROOT / "configs" / "tsallis.yaml")
    try:
        config = replace(config, datasets=tuple(d for d in config.datasets if d.label == "hayes-roth"))
        trials = {t.algorithm.name: t for t in plan(config) if (t.repeat, t.fold) == (0, 0)}
    except Exception as exc:  # noqa: BLE001 - without the dataset mirror there is nothing to measure
        if "not found" in str(exc) or "TREEBENCH_DATA" in str(exc):
            pytest.skip(f"hayes-roth is not available here: {exc}")
        raise
    record = tuning_protocol.trial_scores(trials["tsallis"], 5)
    assert len(record["points"]) == 90 and set(record["inner"]) == {10, 5}
    chosen = tuning_protocol.selections(record, {})
    default = chosen["inner 10-fold, ties fewest-leaves"]
    stored = run_trial(trials["tsallis"])
    assert default[0] == pytest.approx(stored.accuracy)
    assert default[1] == pytest.approx(json.loads(stored.chosen)["q"])
    bound = chosen["test split (optimistic bound)"]
    test_tuned = run_trial(trials["tsallis-test-tuned"])
    assert bound[0] == pytest.approx(test_tuned.accuracy)
    assert bound[1] == pytest.approx(json.loads(test_tuned.chosen)["q"])
    assert all(accuracy <= bound[0] + 1e-12 for accuracy, _ in chosen.values())
