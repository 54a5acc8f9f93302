"""Issue 39, finding 3: how much of ΠTree's and Tsallis's shortfall the tuning protocol explains.

Hypothesis
    ΠTree (paper 000, γ) and Tsallis entropy (paper 002, q) sit below their published accuracy while
    their untuned baselines do not.  Three causes could do that: (a) the papers chose the
    parameter on the test split (the best of the grid on the rows it is scored on, an
    optimistic bound), (b) details of our inner cross-validation (inner folds, the rule
    among equal inner scores, the grid), (c) the criteria themselves.  If (a), the
    accuracy of the test-split choice should reach the published numbers while the inner-CV
    variants of (b) should not move them much; if (b), some inner-CV variant should.

Measurement
    On the outer splits of the paper's own config (configs/tsallis.yaml: 11 sets, 10 random
    70/30 splits; configs/serrurier2015.yaml: 10 folds of the 11 sets of its readings, the five
    largest left out for time), every trial of the tuned
    learner scores every grid point three ways: by the config's inner CV, by an inner CV with
    the other fold count (10 <-> 5), and by the final tree's accuracy on the outer test split
    (each point's tree grown as a trial grows it).  Every selection is then made after the
    fact from these scores: the product's rule (most inner-correct, then fewest leaves, then
    the first point), the rules ``first``, ``smallest``, ``largest`` and ``middle`` of
    ``tuning.ties``, coarser grids (subsets of the config's), and the test-split choice.
    The untuned baselines are grown on the same splits: their own mean offset from the paper
    is subtracted ("net") so that what is left is the shortfall the tuned learner has beyond
    its baselines'.  The first rule reproduces the product's trials exactly, and the
    test-split choice the ``tune_on: test`` trials (the premise test checks one of each).

Run
    ``TREEBENCH_DATA=../shared/datasets .venv/bin/python investigations/tuning_protocol.py``
    (about 4.5 minutes of CPU, so about 2.5 minutes with ``--jobs 2`` on 2 idle cores; ``--quick``:
    four sets per paper, three splits, well under a minute; ``--paper tsallis`` or ``serrurier2015`` for one; ``--records DIR``
    keeps the scores and reuses them).  The conclusion is in
    docs/investigations.md.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import wilcoxon

from treebench.experiment.config import load_config
from treebench.experiment.protocols import inner_splits
from treebench.experiment.runner import plan
from treebench.experiment.specs import TIE_RULES
from treebench.experiment.trial import Trial, load_data, make_learner, outer_split
from treebench.experiment.tuning import GridScore, best_index, grid_search, test_split_search
from treebench.sampling import model_seed

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Study:
    """One paper's tuned learners, the baselines grown beside them and the coarser grids tried."""

    config: str
    reference: str
    tuned: tuple[str, ...]
    baselines: tuple[str, ...]
    other_folds: int
    #: tuned learner -> {name: the grid values kept} (subsets of the config's grid of its one parameter)
    grids: dict[str, dict[str, tuple[float, ...]]] = field(default_factory=dict)
    quick: tuple[str, ...] = ()
    #: the datasets measured (empty: all of the config's)
    only: tuple[str, ...] = ()
    #: more columns: the mean over these datasets only (label -> datasets)
    subsets: dict[str, tuple[str, ...]] = field(default_factory=dict)


STUDIES = {
    "tsallis": Study(
        "configs/tsallis.yaml", "002_tsallis_table2.csv", ("tsallis",), ("id3", "cart", "c45"), 5,
        {"tsallis": {"q in 0.5 steps (0.5..9)": tuple(round(0.5 * k, 1) for k in range(1, 19)),
                     "q in 1 steps (1..9)": tuple(float(k) for k in range(1, 10)),
                     "q in 0.1..5": tuple(round(0.1 * k, 1) for k in range(1, 51))}},
        ("glass", "wine", "haberman", "hayes-roth"),
        subsets={
            # the report's protocol calibration: every baseline cell agrees with the paper's (results/tsallis)
            "the 5 calibrated sets": ("yeast", "vehicle", "wine", "haberman", "hayes-roth"),
            # causes.yaml: no setting locates glass's published pair; the MONK problem is unstated and none fits
            "without glass, monks-2": ("yeast", "vehicle", "wine", "haberman", "car", "balance-scale", "hayes-roth",
                                       "abalone-18", "cmc"),
        },
    ),
    "serrurier2015": Study(
        "configs/serrurier2015.yaml", "000_serrurier2015_table1.csv", ("pitree", "pruntree"), ("logtree",), 10,
        {"pitree": {"γ without 0.001 and 0.99 (8 values)": (0.005, 0.01, 0.05, 0.1, 0.2, 0.5, 0.7, 0.9),
                    "γ in 0.01..0.5 (5 values)": (0.01, 0.05, 0.1, 0.2, 0.5)}},
        ("soybean", "zoo", "wine", "ionosphere"),
        # the 11 sets of configs/serrurier2015-readings.yaml: the five largest (yeast, waveform-40, segment,
        # pendigits, spambase) cost most of the time; the test-split reading of the paper's report covers all 16
        only=("soybean", "lymph", "zoo", "ilpd", "diabetes", "banknote", "ecoli", "vehicle", "ionosphere", "breast-w",
         "wine"),
    ),
}


# --------------------------------------------------------------------------- one trial: every point, three ways
def trial_scores(trial: Trial, other_folds: int) -> dict:
    """Every grid point of ``trial`` scored by the config's inner CV, by ``other_folds`` inner folds and on
    the outer test split (correct predictions and leaves); one point only for an untuned learner."""
    data = load_data(trial.dataset)
    train, test = outer_split(trial, data)
    X_train, y_train, X_test, y_test = data.X.iloc[train], data.y[train], data.X.iloc[test], data.y[test]
    learner = make_learner(trial)
    labels = np.unique(data.y)
    points, fixed = trial.algorithm.tuning_points(), trial.algorithm.fixed_params
    seed = model_seed(trial.seed, trial.dataset.seed_name, trial.repeat, trial.fold)
    inner = {}
    if len(points) > 1:
        for folds in (trial.tuning.folds, other_folds):
            splits = inner_splits(y_train, folds, trial.seed, trial.dataset.seed_name, trial.repeat, trial.fold)
            outcome = grid_search(learner, fixed, points, X_train, y_train, splits, "accuracy", labels)
            inner[folds] = [(s.correct, s.leaves) for s in outcome.scores]
    on_test, _ = test_split_search(learner, fixed, points, X_train, y_train, X_test, y_test, seed, "accuracy", labels)
    return {"dataset": trial.dataset.label, "algorithm": trial.algorithm.name, "repeat": trial.repeat,
            "fold": trial.fold, "points": points, "inner": inner, "n_test": len(test),
            "test": [(s.correct, s.leaves) for s in on_test.scores], "folds": trial.tuning.folds}


def select(scores: list[tuple[int, int]], points: list[dict], keep: Iterable[int], ties: str) -> int:
    """The index (into ``points``) that ``tuning.ties`` = ``ties`` picks among ``keep`` from ``(correct, leaves)``."""
    keep = list(keep)
    grid = [GridScore(points[i], scores[i][0], 0, scores[i][1]) for i in keep]
    return keep[best_index(grid, ties=ties)]


def selections(record: dict, grids: dict[str, tuple[float, ...]]) -> dict[str, tuple[float, float]]:
    """Selection name -> (test accuracy, chosen value) of one tuned trial."""
    points, test, n = record["points"], record["test"], record["n_test"]
    name = next(iter(points[0]))
    every = range(len(points))
    out = {}

    def take(label: str, index: int) -> None:
        out[label] = (test[index][0] / n, float(points[index][name]))

    default, other = record["folds"], next(f for f in record["inner"] if f != record["folds"])
    for ties in TIE_RULES:
        take(f"inner {default}-fold, ties {ties}", select(record["inner"][default], points, every, ties))
    take(f"inner {other}-fold, ties fewest-leaves", select(record["inner"][other], points, every, "fewest-leaves"))
    for label, values in grids.items():
        keep = [i for i in every if any(abs(points[i][name] - v) < 1e-9 for v in values)]
        take(f"grid {label}", select(record["inner"][default], points, keep, "fewest-leaves"))
    take("test split (optimistic bound)", select(test, points, every, "fewest-leaves"))
    return out


# --------------------------------------------------------------------------- (c) the criterion against the text
def tsallis_text(counts: np.ndarray, q: float) -> float:
    """``S_q = (1 - sum p^q) / (q - 1)`` as paper 002 prints it (its limit, Shannon in nats, at ``q = 1``)."""
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum()) if q == 1 else float((1 - (p ** q).sum()) / (q - 1))


def implementation_check(qs: Iterable[float] = (0.1, 0.6, 1.0, 1.4, 2.0, 2.6, 3.1, 7.1, 8.9), cases: int = 200) -> dict:
    """Largest gap between treebench's Tsallis gain and gain ratio and eqs. 16 and 21 transcribed from the
    text (random two-way splits of 2 to 6 classes), and whether both tree engines grow the same trees on
    glass at every ``q``."""
    from treebench import TreeClassifier
    from treebench.criteria import get
    from treebench.data import load

    rng = np.random.default_rng(2002)
    gain_gap = ratio_gap = 0.0
    for q in qs:
        for _ in range(cases):
            children = rng.integers(0, 20, size=(2, rng.integers(2, 7))).astype(float)
            children[children.sum(axis=1) == 0, 0] = 1.0
            parent, n = children.sum(axis=0), children.sum()
            gain = tsallis_text(parent, q) - sum(c.sum() / n * tsallis_text(c, q) for c in children)  # eq. 16
            ratio = gain / tsallis_text(children.sum(axis=1), q)  # eq. 21, H replaced by S_q
            ours = get("tsallis", q=q).split_scores(parent, children[None])[0]
            gain_gap = max(gain_gap, abs(ours - gain))
            ours_ratio = get("tsallis_gain_ratio", q=q).split_scores(parent, children[None])[0]
            ratio_gap = max(ratio_gap, abs(ours_ratio - ratio))
    data = load("glass")
    same = all(
        np.array_equal(TreeClassifier(c, engine="numba", q=q, min_samples_leaf=5).fit(data.X, data.y).tree_.int_nodes,
                       TreeClassifier(c, engine="python", q=q, min_samples_leaf=5).fit(data.X, data.y).tree_.int_nodes)
        for c in ("tsallis", "tsallis_gain_ratio") for q in qs)
    return {"gain": gain_gap, "ratio": ratio_gap, "engines agree": same, "qs": tuple(qs), "cases": cases}


# --------------------------------------------------------------------------- running and tables
def measure(paper: str, quick: bool, jobs: int) -> list[dict]:
    study = STUDIES[paper]
    config = load_config(ROOT / study.config)
    wanted = set(study.tuned) | set(study.baselines)
    algorithms = tuple(a for a in config.algorithms if a.name in wanted)
    wanted_sets = study.quick if quick else study.only
    datasets = tuple(d for d in config.datasets if not wanted_sets or d.label in wanted_sets)
    config = replace(config, algorithms=algorithms, datasets=datasets)
    trials = [t for t in plan(config) if not quick or t.repeat < 3 and t.fold < 3]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(trial_scores, trials, [study.other_folds] * len(trials), chunksize=4))


def reference(study: Study) -> pd.DataFrame:
    ref = pd.read_csv(ROOT / "results" / "reference" / study.reference)
    ref = ref[ref["metric"] == "accuracy"]
    return ref.pivot_table(index="dataset", columns="algorithm", values="value", aggfunc="first")


def tables(paper: str, records: list[dict]) -> str:
    study = STUDIES[paper]
    ref = reference(study)
    rows = []
    for r in records:
        if r["algorithm"] in study.tuned:
            for label, (acc, value) in selections(r, study.grids.get(r["algorithm"], {})).items():
                rows.append({"dataset": r["dataset"], "algorithm": r["algorithm"], "selection": label,
                             "accuracy": 100 * acc, "value": value})
        else:
            rows.append({"dataset": r["dataset"], "algorithm": r["algorithm"], "selection": "untuned",
                         "accuracy": 100 * r["test"][0][0] / r["n_test"], "value": np.nan})
    frame = pd.DataFrame(rows)
    means = frame.groupby(["algorithm", "selection", "dataset"])["accuracy"].mean()
    values = frame.groupby(["algorithm", "selection", "dataset"])["value"].median()
    datasets = list(dict.fromkeys(frame["dataset"]))
    subsets = {"all": datasets,
               **{label: [d for d in names if d in datasets] for label, names in study.subsets.items()}}
    # the baselines' own offset from the paper (ours − paper, mean over datasets and baselines): a tuned
    # learner's shortfall net of it is what the tuning protocol would have to explain
    offset = {label: np.mean([means[(b, "untuned", d)] - ref.loc[d, b] for b in study.baselines for d in names])
              for label, names in subsets.items()}
    out = [f"### {paper} ({study.config}; {len(records)} trials)", "",
           f"baselines ({', '.join(study.baselines)}, untuned) − paper, mean: "
           + "; ".join(f"{label} {value:+.2f}" for label, value in offset.items()) + " points", ""]
    for algorithm in study.tuned:
        default = f"inner {records[0]['folds']}-fold, ties fewest-leaves"
        test = "test split (optimistic bound)"
        name = next(iter(next(r for r in records if r["algorithm"] == algorithm)["points"][0]))
        ref_value = _paper_values(study)  # paper 000 prints no γ: no column for it
        printed = f" paper {name} |" if ref_value else ""
        out += [f"**{algorithm}**: per dataset, mean accuracy (%) and median chosen {name}", "",
                f"| dataset | paper | inner CV (default) | {name} | test split | {name} |{printed}",
                "|---|---:|---:|---:|---:|---:|" + ("---:|" if ref_value else "")]
        for d in datasets:
            out.append(f"| {d} | {ref.loc[d, algorithm]:.1f} | {means[(algorithm, default, d)]:.1f} | "
                       f"{values[(algorithm, default, d)]:g} | {means[(algorithm, test, d)]:.1f} | "
                       f"{values[(algorithm, test, d)]:g} |" + (f" {ref_value.get(d, '')} |" if ref_value else ""))
        extra = [label for label in subsets if label != "all"]
        out += ["", f"**{algorithm}**: every selection against the paper (Δ = ours − paper, accuracy points; "
                "Wilcoxon signed-rank over datasets, two-sided; net: Δ minus the baselines' mean Δ)", "",
                "| selection | mean Δ | net | below on | p | "
                + "".join(f"mean Δ {label} | net | " for label in extra) + "mean Δ vs default |"
                + (f" {name} within ±0.5 of the paper's |" if ref_value else ""),
                "|---|---:|---:|---:|---:|" + "---:|---:|" * len(extra) + "---:|" + ("---:|" if ref_value else "")]
        for selection in dict.fromkeys(frame.loc[frame["algorithm"] == algorithm, "selection"]):
            ours = np.array([means[(algorithm, selection, d)] for d in datasets])
            paper_row = np.array([ref.loc[d, algorithm] for d in datasets])
            base = np.array([means[(algorithm, default, d)] for d in datasets])
            delta = ours - paper_row
            p = wilcoxon(ours, paper_row).pvalue if np.any(delta != 0) and len(datasets) > 1 else float("nan")
            cells = [selection, f"{delta.mean():+.2f}", f"{delta.mean() - offset['all']:+.2f}",
                     f"{int(np.sum(delta < 0))} of {len(datasets)}", f"{p:.3f}"]
            for label in extra:
                part = np.mean([delta[datasets.index(d)] for d in subsets[label]])
                cells += [f"{part:+.2f}", f"{part - offset[label]:+.2f}"]
            close = [abs(values[(algorithm, selection, d)] - ref_value[d]) <= 0.5 + 1e-9
                     for d in datasets if d in ref_value]
            cells += [f"{(ours - base).mean():+.2f}"] + ([f"{sum(close)} of {len(close)}"] if ref_value else [])
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    for baseline in study.baselines:
        delta = np.array([means[(baseline, "untuned", d)] - ref.loc[d, baseline] for d in datasets])
        out.append(f"{baseline} (untuned) − paper: mean {delta.mean():+.2f} points, below on "
                   f"{int(np.sum(delta < 0))} of {len(datasets)}")
    return "\n".join(out)


def _paper_values(study: Study) -> dict[str, float]:
    """Paper 002's published q per dataset (Table II); paper 000 prints no γ."""
    ref = pd.read_csv(ROOT / "results" / "reference" / study.reference)
    rows = ref[(ref["metric"] == "q") & (ref["algorithm"] == "tsallis")]
    return {d: float(v) for d, v in zip(rows["dataset"], rows["value"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--paper", choices=(*STUDIES, "both"), default="both")
    parser.add_argument("--quick", action="store_true", help="four sets per paper, three splits each")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--records", type=Path, help="keep the scores in DIR/PAPER.json and reuse them if there")
    args = parser.parse_args()
    check = implementation_check()
    print(f"(c) Tsallis criterion against eqs. 16 and 21 of paper 002 ({check['cases']} random splits at each q of "
          f"{', '.join(f'{q:g}' for q in check['qs'])}): largest gap {check['gain']:.1e} (gain), "
          f"{check['ratio']:.1e} (gain ratio); compiled and readable engines grow the same glass trees at every "
          f"q: {check['engines agree']}\n")
    for paper in STUDIES if args.paper == "both" else (args.paper,):
        started = time.perf_counter()
        kept = None if args.records is None else args.records / f"{paper}{'-quick' if args.quick else ''}.json"
        if kept is not None and kept.exists():
            records = [{**r, "inner": {int(k): v for k, v in r["inner"].items()}} for r in json.loads(kept.read_text())]
        else:
            records = measure(paper, args.quick, args.jobs)
            if kept is not None:
                kept.parent.mkdir(parents=True, exist_ok=True)
                kept.write_text(json.dumps(records))
        print(tables(paper, records))
        print(f"\n({time.perf_counter() - started:.0f} s)\n")


if __name__ == "__main__":
    main()
