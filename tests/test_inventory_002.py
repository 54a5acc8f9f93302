"""Paper 002's claims inventory (issue 38): every results statement, its own claim kinds, its paper-on-paper grades."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from treebench.papers import get_paper
from treebench.papers.tsallis import q_sweep
from treebench.papers.tsallis.claims import (
    AheadOfAllClaim,
    ClassesQClaim,
    NeitherPrevailsClaim,
    QChainClaim,
    QNotClassicClaim,
    SameResultsClaim,
    SweepOptimumClaim,
)
from treebench.report.cells import compare_cells, drop_excluded
from treebench.report.claims import ClaimOutcome
from treebench.report.reference import load_reference
from treebench.report.reproduce import grade_paper_on_paper
from treebench.report.statements import Statement

SPEC = get_paper("tsallis")


# -- the inventory ----------------------------------------------------------------------------------
def test_every_statement_has_a_location_scope_and_test_as_applied():
    statements = SPEC.claims
    assert len(statements) == 20
    assert all(isinstance(s, Statement) for s in statements)
    for s in statements:
        assert s.location and s.scope and s.test_as_applied, s.text
        assert (s.claim is None) == bool(s.why_not), s.text
    assert sum(s.claim is None for s in statements) == 2
    assert len({s.text for s in statements}) == len(statements)


def test_the_existing_claims_keep_their_texts():
    """verdict files name a claim by its text: the four claims of the spec before the inventory are unchanged."""
    assert [s.text for s in SPEC.claims[:4]] == [
        "Tsallis entropy beats Shannon entropy (Wilcoxon, p < 0.01)",
        "Tsallis entropy beats the Gini index (Wilcoxon, p < 0.01)",
        "Tsallis gain ratio beats gain ratio (Wilcoxon, p < 0.01)",
        "TEC improves accuracy by about 4 points on average",
    ]
    assert [s.kind for s in SPEC.claims] == (
        ["significance"] * 3 + ["difference"] * 2 + ["trend", "count"] + ["trend"] * 5 + ["equivalence"]
        + ["trend"] * 2 + ["count"] * 3 + ["difference"] * 2)


def _paper_on_paper() -> dict[str, ClaimOutcome]:
    cells, _ = drop_excluded(load_reference(SPEC.reference), pd.DataFrame(columns=["dataset", "algorithm"]),
                             SPEC.excluded)
    outcomes = [ClaimOutcome(c.text, "", "", "", None) for c in SPEC.claims]
    grade_paper_on_paper(SPEC, cells, outcomes)
    return {o.text: o.paper_on_paper for o in outcomes}


def test_the_paper_on_paper_grade_of_every_claim_with_published_numbers():
    own = _paper_on_paper()
    grades = {text: effect.verdict.split(" (")[0] for text, effect in own.items()}
    reproduced = [
        "Tsallis entropy beats Shannon entropy (Wilcoxon, p < 0.01)",
        "Tsallis entropy beats the Gini index (Wilcoxon, p < 0.01)",
        "Tsallis gain ratio beats gain ratio (Wilcoxon, p < 0.01)",
        "TEC improves accuracy by about 4 points on average",
        "Tsallis entropy is more accurate than each of ID3, CART and C4.5 on most datasets",
        "Neither TEC criterion prevails absolutely: each is ahead of the other on some dataset, in accuracy and in "
        "nodes",
        "On Car the five criteria are about equally accurate",
        "The q chosen by cross-validation is usually neither 1 nor 2",
        "More classes, smaller q: the chosen q falls as the number of classes grows",
        "On the numeric datasets from Yeast to Haberman (Vehicle excepted) q increases",
    ]
    # Table II's own 11 datasets hold 0 in these intervals: the paper's numbers cannot carry "most datasets"
    inconclusive = [
        "TEC keeps trees smaller: fewer nodes than the classical criteria on average",
        "Tsallis entropy prefers accuracy: more accurate than Tsallis gain ratio on most datasets",
        "Tsallis gain ratio prefers low complexity: fewer nodes than Tsallis entropy on most datasets",
        "Tsallis entropy grows fewer nodes than Shannon entropy on most datasets",
        "Tsallis entropy grows fewer nodes than the Gini index on most datasets",
        "Tsallis gain ratio grows fewer nodes than gain ratio on most datasets",
    ]
    assert {t: grades[t] for t in reproduced} == dict.fromkeys(reproduced, "reproduced")
    assert {t: grades[t] for t in inconclusive} == dict.fromkeys(inconclusive, "inconclusive")
    assert all(own[t].low <= 0 <= own[t].high for t in inconclusive)
    # Table II: Tsallis ahead of all three on 10 of 11 (Car: 98.3 against C4.5's 98.5); ρ(classes, q) = −0.73
    assert own[reproduced[4]].ours == pytest.approx(9 / 11)
    assert own[reproduced[8]].ours == pytest.approx(0.7302, abs=1e-3)
    assert own[reproduced[6]].ours == pytest.approx(0.4) and own[reproduced[6]].margin == pytest.approx(0.71, abs=0.01)
    # Fig. 1 prints no numbers but its two optima; the two remarks keep their own reason
    rest = set(grades) - set(reproduced) - set(inconclusive)
    assert len(rest) == 4 and all(grades[t] == "not testable" for t in rest)
    figure = [t for t in rest if t.startswith("Fig. 1")]
    assert len(figure) == 2 and all("cannot carry this rule: the paper prints Fig. 1 as a figure only" in own[t].verdict
                                    for t in figure)
    remarks = {s.text: s.why_not for s in SPEC.claims if s.claim is None}
    assert all(remarks[t] in own[t].verdict for t in rest - set(figure))


# -- small hand-made tables ---------------------------------------------------------------------------
def _reference(rows: list[tuple[str, str, str, float, str]]) -> pd.DataFrame:
    """Reference rows ``(label, algorithm, metric, value, unit)``; the card is the label in lower case."""
    return pd.DataFrame([dict(paper="002", source="test", dataset_label=label, dataset=label.lower(),
                              algorithm_label=alg, algorithm=alg, metric=metric, value=float(value), std=math.nan,
                              unit=unit, mark="", note="") for label, alg, metric, value, unit in rows])


def _trials(values: dict[tuple[str, str], dict[str, float]], splits: int = 6, noise: float = 0.0,
            seed: int = 0) -> pd.DataFrame:
    """Per (card, algorithm), ``splits`` trials around the given metric values (q goes into ``chosen``)."""
    rng = np.random.default_rng(seed)
    rows = []
    for (card, alg), metrics in values.items():
        for r in range(splits):
            row = dict(dataset=card, algorithm=alg, repeat=r, fold=0, status="ok", n_test=100)
            for metric, value in metrics.items():
                if metric == "q":
                    row["chosen"] = json.dumps({"q": value})
                else:
                    row[metric] = value + (rng.normal(0, noise) if noise else 0.0)
            if "accuracy" in row:
                row["error"] = 1 - row["accuracy"]
            rows.append(row)
    return pd.DataFrame(rows)


def _grade(claim, reference: pd.DataFrame, frame: pd.DataFrame) -> str:
    return claim.evaluate(compare_cells(reference, frame), frame).verdict.split(" (")[0]


DATASETS = ("A", "B", "C", "D")


def _accuracy_table(a_minus_best: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, values = [], {}
    for i, label in enumerate(DATASETS):
        base = 0.6 + 0.05 * i
        for alg, acc in (("t", base + a_minus_best), ("x", base), ("y", base - 0.02)):
            rows.append((label, alg, "accuracy", 100 * (base + 0.03 if alg == "t" else acc), "percent"))
            values[(label.lower(), alg)] = {"accuracy": acc}
    return _reference(rows), _trials(values, noise=0.002)


def test_ahead_of_all_holds_and_fails():
    claim = AheadOfAllClaim("t ahead", "t", ("x", "y"))
    assert _grade(claim, *_accuracy_table(+0.03)) == "reproduced"
    assert _grade(claim, *_accuracy_table(-0.03)) == "reversed"


def _two_metric_table(split: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """a and b on four datasets; ``split``: each ahead on two of them in both metrics, else a ahead everywhere."""
    rows, values = [], {}
    for i, label in enumerate(DATASETS):
        a_ahead = i < 2 or not split
        acc = {"a": 0.8 if a_ahead else 0.7, "b": 0.7 if a_ahead else 0.8}
        nodes = {"a": 20.0 if a_ahead else 30.0, "b": 30.0 if a_ahead else 20.0}
        for alg in ("a", "b"):
            rows += [(label, alg, "accuracy", 100 * acc[alg], "percent"), (label, alg, "n_nodes", nodes[alg], "count")]
            values[(label.lower(), alg)] = {"accuracy": acc[alg], "n_nodes": nodes[alg]}
    return _reference(rows), _trials(values)


def test_neither_prevails_holds_and_fails():
    claim = NeitherPrevailsClaim("neither", "a", "b")
    assert _grade(claim, *_two_metric_table(split=True)) == "reproduced"
    reference, frame = _two_metric_table(split=False)
    assert _grade(claim, reference, frame) == "reversed"
    out = claim.evaluate(compare_cells(reference, frame), frame)
    assert out.effect.holds == 0 and out.effect.fails == 2 and out.paper_numbers.startswith("accuracy: a ahead on 4")


def _q_table(qs: dict[str, float], paper: dict[str, float] | None = None, jitter: float = 0.0,
             classes: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = [(label, "t", "q", (paper or qs)[label], "parameter") for label in qs]
    rows += [(label, "t", "accuracy", 70.0, "percent") for label in qs]
    rng = np.random.default_rng(1)
    trial_rows = []
    for label, q in qs.items():
        for r in range(8):
            value = round(q + (jitter * rng.choice([-1, 0, 1]) if jitter else 0.0), 1)
            trial_rows.append(dict(dataset=label.lower(), algorithm="t", repeat=r, fold=0, status="ok", accuracy=0.7,
                                   error=0.3, n_test=100, chosen=json.dumps({"q": value})))
    return _reference(rows), pd.DataFrame(trial_rows)


def test_q_not_classic_holds_and_fails():
    claim = QNotClassicClaim("not 1 or 2", algorithm="t")
    assert _grade(claim, *_q_table({"A": 1.4, "B": 2.6, "C": 0.7})) == "reproduced"
    reference, frame = _q_table({"A": 1.0, "B": 2.0, "C": 1.0}, paper={"A": 1.4, "B": 2.6, "C": 0.7})
    assert _grade(claim, reference, frame) == "reversed"


CLASSES = (("A", 10), ("B", 7), ("C", 4), ("D", 3), ("E", 2))


def test_classes_q_holds_and_fails():
    claim = ClassesQClaim("more classes, smaller q", CLASSES, algorithm="t")
    rising = {"A": 0.8, "B": 1.5, "C": 3.0, "D": 5.0, "E": 8.0}
    assert _grade(claim, *_q_table(rising, jitter=0.1)) == "reproduced"
    falling = dict(zip(rising, reversed(list(rising.values()))))
    assert _grade(claim, *_q_table(falling, paper=rising, jitter=0.1)) == "reversed"
    reference, frame = _q_table({"A": 1.0, "B": 1.0, "C": 1.0})
    assert _grade(claim, reference, frame) == "not testable"  # a constant q has no rank correlation


def test_q_chain_holds_and_fails():
    claim = QChainClaim("q rises", ("A", "B", "C"), algorithm="t")
    assert _grade(claim, *_q_table({"A": 1.4, "B": 2.6, "C": 7.1}, jitter=0.1)) == "reproduced"
    reference, frame = _q_table({"A": 7.1, "B": 2.6, "C": 1.4}, paper={"A": 1.4, "B": 2.6, "C": 7.1})
    assert _grade(claim, reference, frame) == "reversed"
    reference, frame = _q_table({"A": 1.4, "B": 7.1, "C": 2.6}, paper={"A": 1.4, "B": 2.6, "C": 7.1})
    assert _grade(claim, reference, frame) == "not reproduced"
    assert _grade(claim, *_q_table({"A": 1.4, "B": 2.6})) == "not testable"  # C not rerun


def _car(accuracies: dict[str, float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    paper = {"a": 98.2, "b": 98.1, "c": 98.5}
    reference = _reference([("Car", alg, "accuracy", value, "percent") for alg, value in paper.items()])
    return reference, _trials({("car", alg): {"accuracy": acc} for alg, acc in accuracies.items()}, splits=10,
                              noise=0.001, seed=4)


def test_same_results_holds_and_fails():
    claim = SameResultsClaim("same on Car", "Car", ("a", "b", "c"), design_cases=5190, design_rate=0.017)
    reference, frame = _car({"a": 0.982, "b": 0.981, "c": 0.983})
    out = claim.evaluate(compare_cells(reference, frame), frame)
    assert out.verdict == "reproduced" and out.effect.margin == pytest.approx(0.71, abs=0.01)
    assert out.effect.paper == pytest.approx(0.4)
    assert _grade(claim, *_car({"a": 0.982, "b": 0.95, "c": 0.983})) == "not reproduced"


# -- Fig. 1: the optimum on the untuned sweep ----------------------------------------------------------
def _sweep(peak: float, depth: float, seed: int = 0) -> pd.DataFrame:
    """A q sweep on 10 splits whose accuracy peaks at ``peak`` (``depth``: how far it falls 3 q away)."""
    rng = np.random.default_rng(seed)
    qs = q_sweep.q_grid(0.1, 9.0, 0.1)
    rows = []
    for r in range(10):
        shift = rng.normal(0, 0.02)
        for q in qs:
            acc = 0.6 - depth * ((q - peak) / 3) ** 2 + shift + rng.normal(0, 0.005)
            rows.append(dict(repeat=r, fold=0, q=q, accuracy=acc, n_nodes=50 + 40 * ((q - peak) / 3) ** 2))
    return pd.DataFrame(rows)


@pytest.fixture
def given_sweep(monkeypatch):
    """The claim reads the sweep it is given (no config run), on a frame taken as the full rerun."""
    holder = {}
    monkeypatch.setattr(q_sweep, "sweep_frame", lambda *args, **kwargs: holder["frame"])
    monkeypatch.setattr(SweepOptimumClaim, "_why_not", lambda self, frame: "")
    return holder


def test_the_sweep_optimum_holds_and_fails(given_sweep):
    claim = SweepOptimumClaim("peak at 2.6", 2.6, grid=(0.1, 9.0, 0.1))
    given_sweep["frame"] = _sweep(2.6, 0.1)
    out = claim.evaluate(pd.DataFrame(), pd.DataFrame())
    assert out.verdict == "reproduced" and out.effect.low <= 2.6 <= out.effect.high
    given_sweep["frame"] = _sweep(6.0, 0.1)
    assert claim.evaluate(pd.DataFrame(), pd.DataFrame()).verdict == "not reproduced"
    given_sweep["frame"] = _sweep(2.6, 0.0)  # flat: the optimum is anywhere, accuracy does not depend on q
    out = claim.evaluate(pd.DataFrame(), pd.DataFrame())
    assert out.verdict == "not reproduced" and "does not depend" in out.details[0]
    nodes = SweepOptimumClaim("fewest at 3.9", 3.9, metric="n_nodes", best="min", grid=(0.1, 9.0, 0.1))
    given_sweep["frame"] = _sweep(3.9, 0.1)
    assert nodes.evaluate(pd.DataFrame(), pd.DataFrame()).verdict == "reproduced"


def test_the_sweep_is_run_on_the_full_rerun_only():
    claim = SweepOptimumClaim("peak at 2.6", 2.6)
    paper = pd.DataFrame([dict(dataset="glass", algorithm="tsallis", repeat=0, fold=0, status="ok", q=2.6)])
    assert "figure only" in claim.evaluate(pd.DataFrame(), paper).verdict
    small = pd.DataFrame([dict(dataset="glass", algorithm="tsallis", repeat=r, fold=0, status="ok",
                               chosen=json.dumps({"q": 1.0})) for r in range(2)])
    assert "holds 2 of the config's 10 splits of glass" in claim.evaluate(pd.DataFrame(), small).verdict
    assert "not rerun on glass" in claim.evaluate(pd.DataFrame(), small.assign(dataset="wine")).verdict


def test_the_sweep_is_computed_once_and_shared_with_the_section(tmp_path, monkeypatch):
    calls = []
    config = tmp_path / "c.yaml"
    config.write_text("experiment: x\n", encoding="utf-8")

    def fake(config_path, dataset, algorithm, qs):
        calls.append(dataset)
        return pd.DataFrame({"q": qs, "accuracy": 0.5, "n_nodes": 3.0, "repeat": 0, "fold": 0})

    monkeypatch.setattr(q_sweep, "sweep", fake)
    monkeypatch.setattr(q_sweep, "_MEMO", {})
    qs = [1.0, 2.0]
    first = q_sweep.sweep_frame(config, "glass", "tsallis", qs, look_in=(tmp_path / "none",))
    frame, _ = q_sweep.load_or_sweep(tmp_path / "out", config, "glass", "tsallis", qs)
    assert calls == ["glass"] and frame.equals(first) and (tmp_path / "out" / "q_sweep.csv").exists()
    monkeypatch.setattr(q_sweep, "_MEMO", {})  # a new process finds the section's cache
    q_sweep.sweep_frame(config, "glass", "tsallis", qs, look_in=(tmp_path / "out",))
    assert calls == ["glass"]
