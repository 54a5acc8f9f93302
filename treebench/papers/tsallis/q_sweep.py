"""Paper 002, Fig. 1: accuracy and tree size against q, on a fine q grid.

The tuned runs of ``configs/tsallis.yaml`` record one chosen q per split,
which says nothing about how accuracy moves with q.  This section fits the
Tsallis tree at every q of a fine grid on the *same* outer splits as the
config (same protocol, seed and dataset), untuned, and plots the mean test
accuracy and number of nodes per q -- what the paper's Fig. 1 shows for
Glass (best accuracy at q = 2.6, fewest nodes at q = 3.9).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.report.sections import Section

#: Bump when the sweep's computation changes, so a cached CSV is recomputed.
VERSION = 1
PAPER_FIG1 = ("Fig. 1 (paper, Glass): accuracy is sensitive to q and highest at q = 2.6; "
              "the number of nodes responds differently and is lowest at q = 3.9.")


def q_grid(low: float, high: float, step: float) -> list[float]:
    """``low, low + step, ..., high`` rounded to the step's decimals (no float drift)."""
    if not (0 < low <= high and step > 0):
        raise TreebenchError(f"q sweep range {low}..{high} step {step} is invalid; accepted: 0 < low <= high, step > 0")
    decimals = max(0, -int(np.floor(np.log10(step))) + 1)
    count = int(round((high - low) / step)) + 1
    return [round(low + i * step, decimals) for i in range(count)]


def sweep(
    config_path: str | Path,
    dataset: str,
    algorithm: str = "tsallis",
    qs: list[float] | None = None,
) -> pd.DataFrame:
    """Fit ``algorithm`` of the config at every q on every outer split of ``dataset``.

    Returns one row per (q, repeat, fold): ``dataset``, ``algorithm``,
    ``params`` (JSON with q), ``status``, ``accuracy``, ``n_nodes``,
    ``n_leaves`` -- the shape :func:`treebench.report.plots.plot_param` reads.
    """
    from treebench.experiment.config import load_config
    from treebench.experiment.protocols import n_folds, outer_splits
    from treebench.experiment.trial import load_data
    from treebench.trees.estimator import TreeClassifier

    config = load_config(config_path)
    specs = {d.label: d for d in config.datasets}
    algos = {a.name: a for a in config.algorithms}
    if dataset not in specs:
        raise TreebenchError(f"dataset {dataset!r} is not in {config_path}; accepted: {', '.join(specs)}")
    if algorithm not in algos or algos[algorithm].criterion is None:
        accepted = ", ".join(a.name for a in config.algorithms if a.criterion is not None)
        raise TreebenchError(f"algorithm {algorithm!r} is not a criterion algorithm of {config_path}; accepted: {accepted}")
    spec, algo = specs[dataset], algos[algorithm]
    qs = qs if qs is not None else q_grid(0.1, 9.0, 0.05)
    data = load_data(spec)
    protocol = spec.protocol
    rows = []
    for repeat in range(protocol.n_repeats):
        splits = outer_splits(protocol, config.seed, spec.seed_name, data.y, data.extra, repeat)
        for fold in range(n_folds(protocol, len(data.y))):
            train, test = splits[fold]
            X_train, y_train = data.X.iloc[train], data.y[train]
            X_test, y_test = data.X.iloc[test], data.y[test]
            for q in qs:
                params = {**algo.fixed_params, "q": q}
                model = TreeClassifier(algo.criterion, pruning=algo.pruning, **params).fit(X_train, y_train)
                accuracy = float(np.mean(model.predict(X_test) == y_test))
                rows.append({
                    "dataset": dataset, "algorithm": algorithm, "status": "ok",
                    "params": json.dumps({"q": q}), "q": q, "repeat": repeat, "fold": fold,
                    "accuracy": accuracy, "n_nodes": model.tree_.n_nodes, "n_leaves": model.tree_.n_leaves,
                })
    return pd.DataFrame(rows)


#: Sweeps computed or read in this process, by their settings: the Fig. 1 claims
#: (:class:`~treebench.papers.tsallis.claims.SweepOptimumClaim`) and the section share one computation.
_MEMO: dict[str, tuple[pd.DataFrame, float]] = {}
#: Where a sweep cached by an earlier report is looked for when the caller gives no folder
#: (``treebench reproduce tsallis`` writes its report to ``results/tsallis``).
DEFAULT_CACHE = Path("results") / "tsallis"


def _settings(config_path: str | Path, dataset: str, algorithm: str, qs: list[float]) -> dict[str, Any]:
    config_text = Path(config_path).read_text(encoding="utf-8")
    return {"version": VERSION, "dataset": dataset, "algorithm": algorithm, "qs": qs, "config": config_text}


def _read_cache(out_dir: Path, wanted: dict[str, Any]) -> tuple[pd.DataFrame, float] | None:
    """The sweep cached in ``out_dir`` when its settings are ``wanted``, else ``None``."""
    path = Path(out_dir) / "q_sweep.csv"
    meta_path = path.with_suffix(".json")
    if path.exists() and meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if {k: meta.get(k) for k in wanted} == wanted:
            return pd.read_csv(path), float(meta.get("seconds", float("nan")))
    return None


def _computed(config_path: str | Path, dataset: str, algorithm: str, qs: list[float],
              look_in: tuple[Path, ...]) -> tuple[pd.DataFrame, float, dict[str, Any], bool]:
    """``(frame, seconds, settings, fresh)``: from this process, a cache in ``look_in``, or computed now."""
    wanted = _settings(config_path, dataset, algorithm, qs)
    key = json.dumps(wanted, sort_keys=True)
    if key in _MEMO:
        return (*_MEMO[key], wanted, False)
    for folder in look_in:
        found = _read_cache(folder, wanted)
        if found is not None:
            _MEMO[key] = found
            return (*found, wanted, False)
    started = time.perf_counter()
    frame = sweep(config_path, dataset, algorithm, qs)
    _MEMO[key] = (frame, round(time.perf_counter() - started, 1))
    return (*_MEMO[key], wanted, True)


def sweep_frame(config_path: str | Path, dataset: str, algorithm: str, qs: list[float],
                look_in: tuple[Path, ...] = (DEFAULT_CACHE,)) -> pd.DataFrame:
    """The sweep with these settings, computed at most once per process (nothing is written)."""
    return _computed(config_path, dataset, algorithm, qs, look_in)[0]


def load_or_sweep(out_dir: Path, config_path: str | Path, dataset: str, algorithm: str,
                  qs: list[float]) -> tuple[pd.DataFrame, float]:
    """The sweep from ``out_dir/q_sweep.csv`` when its settings match (or from this process), else computed;
    saved in ``out_dir`` unless it is already there."""
    path = Path(out_dir) / "q_sweep.csv"
    frame, seconds, wanted, _ = _computed(config_path, dataset, algorithm, qs, (Path(out_dir),))
    if _read_cache(Path(out_dir), wanted) is None:
        from treebench.outpaths import write_text, write_with

        write_with(path, lambda tmp: frame.to_csv(tmp, index=False))
        write_text(path.with_suffix(".json"), json.dumps({**wanted, "seconds": seconds}))
    return frame, seconds


def best_q(frame: pd.DataFrame) -> tuple[float, float]:
    """(q of the highest mean accuracy, q of the fewest mean nodes); ties go to the smaller q."""
    means = frame.groupby("q")[["accuracy", "n_nodes"]].mean().sort_index()
    return float(means["accuracy"].idxmax()), float(means["n_nodes"].idxmin())


def q_sweep_section(out_dir: Path, *, config: str = "configs/tsallis.yaml", dataset: str = "glass",
                    algorithm: str = "tsallis", low: float = 0.1, high: float = 9.0,
                    step: float = 0.05, **_: Any) -> Section:
    """Run (or reuse) the sweep, draw the figure and compare its optima with the paper's."""
    from treebench.report.formats import tex_escape
    from treebench.report.plots import plot_param

    qs = q_grid(low, high, step)
    frame, seconds = load_or_sweep(Path(out_dir), config, dataset, algorithm, qs)
    from treebench.outpaths import safe_name

    figure = plot_param(frame, Path(out_dir) / f"{safe_name(dataset)}_q_sweep", param="q", dataset=dataset)[0]
    q_acc, q_nodes = best_q(frame)
    means = frame.groupby("q")[["accuracy", "n_nodes"]].mean()
    splits = frame.groupby(["repeat", "fold"]).ngroups
    how = (f"{algorithm} ({config}) fitted at {len(qs)} values of q ({qs[0]:g} to {qs[-1]:g}, step {step:g}) "
           f"on the same {splits} outer splits of {dataset} as the tuned run, without tuning; mean over the "
           f"splits, band ± one std ({len(frame)} trees, {seconds:g} s, cached in `q_sweep.csv`).")
    md = [how, "",
          "| | paper | ours |", "| --- | --- | --- |",
          f"| q with the highest accuracy | 2.6 | {q_acc:g} ({100 * means.loc[q_acc, 'accuracy']:.1f} %) |",
          f"| q with the fewest nodes | 3.9 | {q_nodes:g} ({means.loc[q_nodes, 'n_nodes']:.1f} nodes) |",
          "", f"> {PAPER_FIG1}", "", f"![Fig. 1: accuracy and nodes against q on {dataset}]({figure.name})", ""]
    tex = [tex_escape(how),
           rf"Highest accuracy at $q = {q_acc:g}$ (paper: 2.6); fewest nodes at $q = {q_nodes:g}$ (paper: 3.9).",
           r"\begin{figure}[htbp]", r"\centering", rf"\includegraphics[width=0.9\linewidth]{{{figure.name}}}",
           rf"\caption{{{tex_escape(PAPER_FIG1)}}}", r"\end{figure}"]
    return Section(f"Figure 1: accuracy and nodes against q on {dataset}", md, tex, [figure])
