"""Odd numbers in a results frame, flagged one line each with the numbers behind them.

:func:`find_anomalies` looks at a frame of trials (a store, a report's rerun)
for four things that should not pass without a word (``docs/reports.md``,
"Anomaly flags"):

- ``below majority``: a learner's mean accuracy on a dataset below the
  majority-class rate of the data (from the dataset card's class counts, or,
  for a config that simulates expert labels, from the crisp labels the
  trials used: :func:`simulated_labels`);
- ``one leaf``: a learner grows a single leaf in more than half its trials on
  a dataset where the other learners split (their median leaves > 1);
- ``grid edge``: a tuned parameter chosen at the lowest or highest value of
  its grid in more than half the trials, with whether the grid could extend
  (the parameter's allowed range, when the criterion declares one);
- ``train far from test``: a learner's mean train accuracy minus its test
  accuracy more than :data:`GAP_EXCESS` above the median gap of the other
  learners on the dataset (needs ``train_accuracy`` in the store; without it
  the check is skipped and :func:`skipped_checks` says so).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

BELOW_MAJORITY = "below majority"
ONE_LEAF = "one leaf"
GRID_EDGE = "grid edge"
TRAIN_TEST = "train far from test"
#: The flags, in the order a report lists them.
FLAGS = (BELOW_MAJORITY, ONE_LEAF, GRID_EDGE, TRAIN_TEST)

#: A parameter is at an edge when chosen there in more than this share of the trials.
EDGE_SHARE = 0.5
#: How much larger (accuracy, as a fraction) a learner's train-test gap must be than the others' median gap.
GAP_EXCESS = 0.2


@dataclass(frozen=True)
class Anomaly:
    """One flag: what, where, and the line that says it with its numbers."""

    flag: str
    dataset: str
    algorithm: str
    text: str

    def as_dict(self) -> dict[str, str]:
        """The flag as a JSON object."""
        return asdict(self)


@dataclass(frozen=True)
class ParamRange:
    """The values a tuned parameter may take (``None``: unbounded), as the criterion declares them."""

    low: float | None
    high: float | None
    low_open: bool = False
    high_open: bool = False
    text: str = ""


def _ok(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["status"].astype(str) == "ok"] if "status" in frame.columns else frame


def _num(frame: pd.DataFrame, col: str) -> pd.Series:
    return pd.to_numeric(frame[col], errors="coerce")


def simulated_labels(config: str | Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Dataset -> (label masses, crisp labels) the config's trials use, when it simulates expert labels.

    The draw of :func:`treebench.experiment.trial.trial_labels` (one per
    dataset); empty for a config without ``label_uncertainty`` or that cannot
    be read, and a dataset that cannot be loaded is left out.
    """
    from treebench.data.label_uncertainty import LABEL_STREAM, simulate_label_masses
    from treebench.errors import TreebenchError
    from treebench.experiment.config import load_config
    from treebench.experiment.trial import load_data
    from treebench.sampling import rng_for

    try:
        spec = load_config(config)
    except (TreebenchError, OSError):
        return {}
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if spec.label_uncertainty is None:
        return out
    for dataset in spec.datasets:
        try:
            data = load_data(dataset)
        except (TreebenchError, OSError):
            continue
        rng = rng_for(spec.seed, dataset.seed_name, 0, LABEL_STREAM)
        out[dataset.label] = simulate_label_masses(data.y, spec.label_uncertainty, rng)
    return out


#: The source of :func:`majority_rates` for a config that simulates expert labels.
SIMULATED_SOURCE = "the simulated crisp labels' class counts"


def majority_source(config: str | Path | None) -> str:
    """What :func:`majority_rates` with ``config`` counts: the simulated labels or the cards."""
    from treebench.errors import TreebenchError
    from treebench.experiment.config import load_config

    try:
        simulated = config is not None and load_config(config).label_uncertainty is not None
    except (TreebenchError, OSError):
        simulated = False
    return SIMULATED_SOURCE if simulated else "the card's class counts"


def majority_rates(datasets: Sequence[str], config: str | Path | None = None) -> dict[str, float]:
    """Dataset -> the share of its largest class, from the dataset cards (cards without counts are left out).

    With ``config`` simulating expert labels, the share comes from the crisp
    labels its trials learned and were tested on, which differ from the card's.
    """
    from treebench.data.cards import CardRegistry
    from treebench.data.settings import Settings
    from treebench.errors import TreebenchError

    out: dict[str, float] = {}
    if config is not None:
        for name, (_, labels) in simulated_labels(config).items():
            if name in datasets and len(labels):
                out[name] = float(np.bincount(np.asarray(labels, dtype=np.int64)).max() / len(labels))
    try:
        registry = CardRegistry(Settings.from_env().cards_dir)
    except (TreebenchError, OSError):
        return out
    for name in datasets:
        if name in out:
            continue
        try:
            counts = registry.get(name).expected.class_counts
        except (TreebenchError, OSError, KeyError):
            continue
        if counts:
            total = sum(counts.values())
            if total:
                out[name] = max(counts.values()) / total
    return out


def config_grids(config: str | Path) -> tuple[dict[str, dict[str, list[float]]], dict[tuple[str, str], ParamRange]]:
    """The numeric grids of a config's algorithms and the allowed range of each gridded criterion parameter.

    Returns ``({algorithm: {param: sorted values}}, {(algorithm, param): range})``;
    an algorithm with ``tune_as`` takes the grid of the one it copies.  A missing
    or unreadable config gives two empty mappings.
    """
    import yaml

    try:
        data = yaml.safe_load(Path(config).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return {}, {}
    grids: dict[str, dict[str, list[float]]] = {}
    ranges: dict[tuple[str, str], ParamRange] = {}
    entries = [a for a in data.get("algorithms", []) or [] if isinstance(a, dict) and a.get("name")]
    for a in entries:
        grid = a.get("grid") or {}
        values = {k: sorted(float(v) for v in vs if isinstance(v, (int, float)) and not isinstance(v, bool))
                  for k, vs in grid.items() if isinstance(vs, list)}
        values = {k: v for k, v in values.items() if len(v) >= 2}
        if values:
            grids[str(a["name"])] = values
            ranges.update({(str(a["name"]), k): r for k, r in _criterion_ranges(a.get("criterion"), values).items()})
    for a in entries:
        target = a.get("tune_as")
        if target and str(target) in grids:
            grids[str(a["name"])] = grids[str(target)]
            for k in grids[str(target)]:
                if (str(target), k) in ranges:
                    ranges[(str(a["name"]), k)] = ranges[(str(target), k)]
    return grids, ranges


def _criterion_ranges(criterion: object, params: Mapping[str, Any]) -> dict[str, ParamRange]:
    """The declared ranges of ``params`` of ``criterion`` (none when it is not a known criterion)."""
    if not isinstance(criterion, str):
        return {}
    from treebench.criteria import criterion_class
    from treebench.errors import TreebenchError

    try:
        declared = {p.name: p for p in criterion_class(criterion).params}
    except TreebenchError:
        return {}
    return {k: ParamRange(p.low, p.high, p.low_open, p.high_open, p.describe())
            for k, p in declared.items() if k in params and p.kind in (int, float)}


def _chosen(frame: pd.DataFrame, param: str) -> pd.Series:
    """The tuned value of ``param`` per trial (NaN where it was not tuned)."""
    def read(text: object) -> float:
        try:
            value = json.loads(text) if isinstance(text, str) and text else {}
        except ValueError:
            return math.nan
        v = value.get(param) if isinstance(value, dict) else None
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan

    return frame["chosen"].map(read) if "chosen" in frame.columns else pd.Series(math.nan, index=frame.index)


def _could_extend(edge: str, grid: list[float], allowed: ParamRange | None) -> str:
    """Whether the grid could go further past ``edge`` within the allowed range."""
    if allowed is None:
        return "allowed range not declared"
    end = grid[-1] if edge == "top" else grid[0]
    bound = allowed.high if edge == "top" else allowed.low
    if bound is None:
        return f"the grid could extend ({allowed.text})"
    if abs(end - bound) < 1e-12:
        return f"the grid already reaches the allowed limit ({allowed.text})"
    return f"the grid could extend towards {bound:g} ({allowed.text})"


def _grid_edges(ok: pd.DataFrame, grids: Mapping[str, Mapping[str, list[float]]],
                ranges: Mapping[tuple[str, str], ParamRange]) -> list[Anomaly]:
    out = []
    for (ds, alg), sub in ok.groupby(["dataset", "algorithm"], sort=True):
        for param, grid in (grids.get(str(alg)) or {}).items():
            values = _chosen(sub, param).dropna()
            if not len(values):
                continue
            for edge, end in (("bottom", grid[0]), ("top", grid[-1])):
                hits = int(np.isclose(values.to_numpy(), end).sum())
                if hits > EDGE_SHARE * len(values):
                    extend = _could_extend(edge, list(grid), ranges.get((str(alg), param)))
                    out.append(Anomaly(GRID_EDGE, str(ds), str(alg),
                                       f"{alg} on {ds}: {param} = {end:g}, the {edge} of its grid "
                                       f"[{grid[0]:g} … {grid[-1]:g}], in {hits} of {len(values)} trials; {extend}"))
    return out


def find_anomalies(frame: pd.DataFrame, *, grids: Mapping[str, Mapping[str, list[float]]] | None = None,
                   ranges: Mapping[tuple[str, str], ParamRange] | None = None,
                   majority: Mapping[str, float] | None = None,
                   majority_source: str = "the card's class counts") -> list[Anomaly]:
    """Every flag of ``frame``'s successful trials (module docstring), in :data:`FLAGS` order.

    Parameters
    ----------
    frame
        Trials with ``dataset``, ``algorithm`` and some of ``accuracy``,
        ``train_accuracy``, ``n_leaves`` and ``chosen``.
    grids, ranges
        :func:`config_grids`'s output; without grids the edge check is skipped.
    majority
        Dataset -> majority-class rate (:func:`majority_rates`); without it
        the majority check is skipped.
    majority_source
        Where those rates come from, for the flag's text.
    """
    if frame is None or not len(frame) or not {"dataset", "algorithm"} <= set(frame.columns):
        return []
    ok = _ok(frame)
    out: list[Anomaly] = []
    if "accuracy" in ok.columns and majority:
        means = ok.assign(_acc=_num(ok, "accuracy")).groupby(["dataset", "algorithm"])["_acc"].mean()
        for ds, per in means.groupby(level="dataset", sort=True):
            rate = majority.get(str(ds))
            per = per.droplevel("dataset").dropna()
            if rate is None or not len(per):
                continue
            below = per[per < rate - 1e-12]
            if len(below) == len(per) and len(per) > 1:  # the data, not one learner: one line
                out.append(Anomaly(BELOW_MAJORITY, str(ds), "every learner",
                                   f"every learner on {ds} ({len(per)}) is below the majority-class rate "
                                   f"{100 * rate:.1f} % ({majority_source}): mean accuracy "
                                   f"{100 * per.min():.1f}–{100 * per.max():.1f} %"))
                continue
            for alg, acc in below.items():
                out.append(Anomaly(BELOW_MAJORITY, str(ds), str(alg),
                                   f"{alg} on {ds}: mean accuracy {100 * acc:.1f} % is below the majority-class "
                                   f"rate {100 * rate:.1f} % ({majority_source})"))
    if "n_leaves" in ok.columns:
        leaves = ok.assign(_l=_num(ok, "n_leaves"))
        for ds, sub in leaves.groupby("dataset", sort=True):
            per = sub.groupby("algorithm")["_l"]
            share_one = per.apply(lambda s: float((s <= 1).mean()) if s.notna().any() else 0.0)
            median = per.median()
            for alg, share in share_one.items():
                others = median.drop(index=alg).dropna()
                if share > 0.5 and len(others) and float(others.median()) > 1:
                    n = int(per.get_group(alg).notna().sum())
                    out.append(Anomaly(ONE_LEAF, str(ds), str(alg),
                                       f"{alg} on {ds}: one leaf in {round(share * n)} of {n} trials where the "
                                       f"others grow a median of {float(others.median()):g} leaves"))
    if grids:
        out += _grid_edges(ok, grids, ranges or {})
    if {"accuracy", "train_accuracy"} <= set(ok.columns):
        gaps = ok.assign(_g=_num(ok, "train_accuracy") - _num(ok, "accuracy"))
        for ds, sub in gaps.groupby("dataset", sort=True):
            gap = sub.groupby("algorithm")["_g"].mean().dropna()
            for alg, g in gap.items():
                others = gap.drop(index=alg)
                if not len(others):
                    continue
                ref = float(others.median())
                if g > ref + GAP_EXCESS:
                    acc = _num(sub[sub["algorithm"] == alg], "accuracy").mean()
                    train = _num(sub[sub["algorithm"] == alg], "train_accuracy").mean()
                    out.append(Anomaly(TRAIN_TEST, str(ds), str(alg),
                                       f"{alg} on {ds}: test accuracy {100 * acc:.1f} % against train "
                                       f"{100 * train:.1f} % (gap {100 * g:.1f} points; the other learners' median "
                                       f"gap {100 * ref:.1f})"))
    order = {f: i for i, f in enumerate(FLAGS)}
    return sorted(out, key=lambda a: order[a.flag])


def skipped_checks(frame: pd.DataFrame, *, grids: Mapping[str, Any] | None = None,
                   majority: Mapping[str, float] | None = None, from_config: bool = False) -> list[str]:
    """One line per check :func:`find_anomalies` could not make on ``frame``, and why
    (``from_config``: the grids come from an experiment config, which may tune nothing)."""
    cols = set(frame.columns) if frame is not None else set()
    out = []
    if "accuracy" not in cols or not majority:
        out.append(f"{BELOW_MAJORITY}: not checked (" + ("no accuracy in the store" if "accuracy" not in cols
                                                           else "no class counts on the datasets' cards") + ")")
    if "n_leaves" not in cols:
        out.append(f"{ONE_LEAF}: not checked (no n_leaves in the store)")
    if not grids:
        out.append(f"{GRID_EDGE}: not checked (" + ("the config tunes no algorithm over a grid" if from_config
                                                   else "no tuned grid known: give the experiment config") + ")")
    if "train_accuracy" not in cols or "accuracy" not in cols or frame is None or \
            pd.to_numeric(frame.get("train_accuracy", pd.Series(dtype=float)), errors="coerce").notna().sum() == 0:
        out.append(f"{TRAIN_TEST}: not checked (the store has no train accuracy)")
    return out
