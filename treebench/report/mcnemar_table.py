"""``treebench compare --test mcnemar``: each algorithm against the baseline on one split per dataset.

McNemar's test (:mod:`treebench.stats.mcnemar`) pairs the two algorithms' predictions of the
same test cases, kept by a config with ``predictions: true``.  Per dataset the comparisons with
the baseline form one family, corrected by Holm (or as ``--correction`` says).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd

from treebench.errors import TreebenchError
from treebench.experiment.predictions import KeptPredictions, paired_cases
from treebench.stats.mcnemar import mcnemar
from treebench.stats.multiple import adjust
from treebench.text_table import one_line


def baseline_left_out(baseline: str, chosen: list[str]) -> str:
    """The refusal of a ``--baseline`` the store holds but ``--algorithms`` leaves out."""
    return (f"--baseline {baseline!r} is not among the chosen --algorithms ({', '.join(chosen)}); "
            f"accepted: one of those, or add {baseline!r} to --algorithms")


def mcnemar_rows(frame: pd.DataFrame, store: Path, baseline: str | None, algorithms: list[str],
                 correction: str = "holm", kept: KeptPredictions | None = None,
                 datasets: list[str] | None = None) -> list[dict]:
    """One row per dataset (``datasets``, in that order; default every one) and algorithm other
    than the baseline (none for a pair whose kept predictions ``kept`` skipped: they failed
    verification)."""
    algorithms = algorithms or list(dict.fromkeys(frame["algorithm"].astype(str)))
    baseline = baseline or algorithms[0]
    if baseline not in algorithms:
        if baseline in set(frame["algorithm"].astype(str)):
            raise TreebenchError(baseline_left_out(baseline, algorithms))
        raise TreebenchError(f"unknown baseline {baseline!r}; accepted: {', '.join(algorithms)}")
    others = [a for a in algorithms if a != baseline]
    if not others:
        raise TreebenchError("McNemar's test needs two algorithms or more")
    kept = kept or KeptPredictions(store)
    rows = []
    for dataset in datasets or dict.fromkeys(frame["dataset"].astype(str)):
        family = []
        for other in others:
            cases = paired_cases(store, frame, dataset, baseline, other, kept)
            if cases is None:
                continue
            truth, base, pred = cases
            result = mcnemar(truth, pred, base)
            family.append({"dataset": dataset, "algorithm": other, "baseline": baseline,
                           "cases": result.n_cases, "only_algorithm_right": result.a_only,
                           "only_baseline_right": result.b_only, "p": result.p_value})
        if not family:
            continue
        method = "holm" if correction in ("auto", "shaffer", "bergmann-hommel") else correction
        adjusted = adjust([r["p"] for r in family], method) if method != "none" else [r["p"] for r in family]
        for row, p in zip(family, adjusted):
            row["p_adjusted"] = float(p)
            row["correction"] = method
        rows += family
    if not rows:
        n = len(kept.skipped)
        named = "; ".join(f"{facts.label}: {problem}" for facts, problem in kept.skipped)
        raise TreebenchError(f"no pair of algorithms left for McNemar's test: {n} trial{'s' * (n != 1)}' kept "
                             f"predictions failed verification: {named}")
    return rows


def render_mcnemar(rows: list[dict], fmt: str, alpha: float, skipped: list[str] | None = None) -> str:
    """Markdown (a table and how to read it) or CSV; ``skipped`` names the trials left out
    (kept predictions that failed verification), said under the Markdown table."""
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()
    if fmt != "md":
        raise TreebenchError(f"--test mcnemar writes md or csv; got --format {fmt}")
    lines = [f"McNemar's test (exact) against {rows[0]['baseline']}, one split per dataset; "
             f"{rows[0]['correction']}-adjusted p per dataset, * below {alpha:g}", "",
             "| dataset | algorithm | test cases | only it right | only baseline right | p | adjusted p |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        mark = " *" if r["p_adjusted"] < alpha else ""
        dataset, algorithm = (one_line(r[k]).replace("|", r"\|") for k in ("dataset", "algorithm"))
        lines.append(f"| {dataset} | {algorithm} | {r['cases']} | {r['only_algorithm_right']} | "
                     f"{r['only_baseline_right']} | {r['p']:.4g} | {r['p_adjusted']:.4g}{mark} |")
    if skipped:  # a pair without a row: the saved table says why, not only stderr
        lines += ["", "Left out (kept predictions failed verification; their pairs have no row): "
                  + "; ".join(one_line(x) for x in skipped) + "."]
    return "\n".join(lines) + "\n"
