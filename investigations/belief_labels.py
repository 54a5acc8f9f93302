"""Issue 39, finding 5: are paper 004's simulated uncertain labels the text's, and where does the E gain come from?

Hypothesis
    Section 4 of paper 004 describes its K-complex class as every EEG pattern at least one of
    five experts named, "only one half" of them named by a majority; the delta class is certain.
    The previous simulation (``share: 0.5``, reliabilities 0.95 ... 0.55, ``confused: 0.3``)
    leaves only 14-29 % of class 1 without a majority and never rates the other half of class 1,
    so its labels are milder than the text's; its gain in the pignistic error E from uncertain
    labels comes from the confused share of class 0 (label noise the masses soften), not from
    uncertainty as the text describes it; and lambda tuned by inner-CV accuracy on the noisy crisp
    labels drifts to the bottom of the grid.

Measurement
    For each label setting (the previous default and its ``confused`` shares, the re-derived
    default of configs/belief.yaml, and its readings), on the six public sets of
    configs/belief.yaml with its seed: the share of the crisp class 1 named by at most two of the
    five experts (measured on the drawn labels; the expectation for true class-1 examples beside
    it), then the two belief arms (crisp / uncertain labels) under the paper's 5-fold CV with
    lambda tuned two ways (inner-CV accuracy on the crisp labels; the learner's own inner CV of
    lowest E): mean over the datasets of the per-dataset difference uncertain - crisp in E and in
    the error rate, on how many datasets E falls, and how often lambda is the grid's bottom 0.05.

Run
    ``TREEBENCH_DATA=../shared/datasets .venv/bin/python investigations/belief_labels.py``
    (about 3 minutes on two idle cores; ``--datasets sonar,heart-statlog`` or ``--labels-only``
    for less).  Prints Markdown tables; the conclusion is in docs/investigations.md.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from treebench.data.label_uncertainty import (
    expected_no_majority,
    no_majority_share,
    parse_label_uncertainty,
)

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "belief.yaml"
OLD_EXPERTS = [0.95, 0.85, 0.75, 0.65, 0.55]
#: Label settings: name -> configs' ``label_uncertainty`` mapping.
SETTINGS: dict[str, dict[str, Any]] = {
    "previous default (share 0.5, confused 0.3)": {"share": 0.5, "experts": OLD_EXPERTS, "confused": 0.3},
    "share 0.5, confused 0": {"share": 0.5, "experts": OLD_EXPERTS},
    "every class-1 example rated, old experts": {"share": 1.0, "experts": OLD_EXPERTS, "named_only": True},
    "re-derived default (0.49 x 5, named only)": {"share": 1.0, "experts": [0.49] * 5, "named_only": True},
    "unequal experts (0.69 ... 0.29)": {"share": 1.0, "experts": [0.69, 0.59, 0.49, 0.39, 0.29],
                                        "named_only": True},
}
GRID = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0]
#: The two belief arms, each tuned two ways.
ARMS = {
    "crisp-acc": {"criterion": "belief", "params": {"labels": "crisp"}, "grid": {"lam": GRID}},
    "unc-acc": {"criterion": "belief", "params": {"labels": "masses"}, "grid": {"lam": GRID}},
    "crisp-E": {"criterion": "belief", "params": {"labels": "crisp", "lam_tuning": "pignistic-error"}},
    "unc-E": {"criterion": "belief", "params": {"labels": "masses", "lam_tuning": "pignistic-error"}},
}


def config_for(setting: dict[str, Any], datasets: list[str], experiment: str) -> dict[str, Any]:
    """configs/belief.yaml with another label setting, only the belief arms and the given datasets."""
    base = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    return {
        "experiment": experiment,
        "seed": base["seed"],
        "datasets": datasets,
        "label_uncertainty": {"uncertain_class": 1, **setting},
        "protocol": base["protocol"],
        "tuning": base["tuning"],
        "algorithms": [{"name": name, **spec} for name, spec in ARMS.items()],
        "metrics": ["error", "pignistic_error"],
    }


def label_rows(path: Path) -> dict[str, dict[str, float]]:
    """Dataset -> the drawn labels' share of class 1 without a majority, class-1 size, uncertain examples."""
    from treebench.report.anomalies import simulated_labels

    out = {}
    for name, (masses, labels) in simulated_labels(path).items():
        out[name] = {"no_majority": no_majority_share(masses, labels), "class1": int((labels == 1).sum()),
                     "n": len(labels)}
    return out


def arm_rows(frame: pd.DataFrame) -> dict[str, str]:
    """Uncertain - crisp under each tuning: mean ΔE and Δerror (pp), E lower on, λ at 0.05."""
    ok = frame[frame["status"] == "ok"]
    means = ok.groupby(["algorithm", "dataset"])[["error", "pignistic_error"]].mean()
    out = {}
    for tuning in ("acc", "E"):
        crisp, unc = means.loc[f"crisp-{tuning}"], means.loc[f"unc-{tuning}"]
        d_e = 100 * (unc["pignistic_error"] - crisp["pignistic_error"])
        d_err = 100 * (unc["error"] - crisp["error"])
        lams = [json.loads(c).get("lam") for c in ok[ok["algorithm"].str.endswith(tuning)]["chosen"]]
        floor = sum(1 for lam in lams if lam is not None and abs(lam - GRID[0]) < 1e-12)
        out[tuning] = (f"{d_e.mean():+.1f} | {d_err.mean():+.1f} | {int((d_e < 0).sum())} of {len(d_e)} | "
                       f"{floor} of {len(lams)}")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default=",".join(yaml.safe_load(CONFIG.read_text())["datasets"]))
    parser.add_argument("--labels-only", action="store_true", help="the label statistics only, no trees")
    args = parser.parse_args(argv)
    datasets = [d for d in args.datasets.split(",") if d]
    from treebench.experiment.runner import run_experiment
    from treebench.experiment.store import ResultsStore

    label_table, arm_table = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, setting) in enumerate(SETTINGS.items()):
            path = Path(tmp) / f"labels-{i}.yaml"
            path.write_text(yaml.safe_dump(config_for(setting, datasets, f"belief-labels-{i}")), encoding="utf-8")
            spec = parse_label_uncertainty({"uncertain_class": 1, **setting})
            rows = label_rows(path)
            shares = [r["no_majority"] for r in rows.values()]
            per = " ".join(f"{d} {100 * r['no_majority']:.0f}" for d, r in rows.items())
            label_table.append(f"| {name} | {100 * expected_no_majority(spec.experts, spec.named_only):.1f} % | "
                               f"{100 * min(shares):.0f}–{100 * max(shares):.0f} % | {per} |")
            if args.labels_only:
                continue
            started = time.perf_counter()
            store = Path(tmp) / f"labels-{i}.sqlite"
            run_experiment(path, store_path=store, quiet=True, echo=lambda line: None, jobs=1)
            with ResultsStore(store) as results:
                arms = arm_rows(results.to_frame(all_columns=True))
            arm_table.append(f"| {name} | {arms['acc']} | {arms['E']} | {time.perf_counter() - started:.0f} |")
    print("| labels | expected among rated class 1 | class 1 without a majority (measured) | per dataset (%) |")
    print("|---|---|---|---|")
    print("\n".join(label_table))
    if arm_table:
        print()
        print("| labels | λ by accuracy: ΔE (pp) | Δerror (pp) | E lower | λ at 0.05 | λ by E: ΔE (pp) | Δerror (pp) | "
              "E lower | λ at 0.05 | s |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        print("\n".join(arm_table))


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
