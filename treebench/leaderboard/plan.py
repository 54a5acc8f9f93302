"""The generated experiment configs of a leaderboard run.

An experiment config has one algorithm list for all its datasets, so the
datasets are grouped by the set of algorithms that apply to them and each group
gets its own config.  Every config has the same experiment name, seed,
protocol and tuning, and writes the same store: the runner then gives every
algorithm the same outer splits of a dataset (they derive from the seed and
the dataset), and trials of one group never collide with another's (the
trial key holds the dataset and the algorithm).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from treebench.errors import TreebenchError
from treebench.leaderboard.catalogue import Algorithm, not_applicable
from treebench.leaderboard.suite import DatasetMeta, meta_features

EXPERIMENT = "leaderboard"
#: The seed every split and inner fold derives from.
SEED = 0
#: Inner cross-validation folds of the tuned rows.
INNER_FOLDS = 3
STORE = "leaderboard.sqlite"


@dataclass(frozen=True)
class Options:
    """The protocol settings of a board (they are the store's identity too)."""

    folds: int = 10
    repeats: int = 1
    plugins: tuple[str, ...] = ()


@dataclass(frozen=True)
class Group:
    """One generated config: datasets that the same algorithms apply to."""

    path: Path
    datasets: tuple[str, ...]
    algorithms: tuple[str, ...]
    #: The config's YAML, written to ``path`` only once the whole plan is checked.
    text: str = ""


@dataclass(frozen=True)
class Plan:
    """Everything a leaderboard run needs before it runs.

    Attributes
    ----------
    groups
        The configs to run, in order.
    metas
        Meta-features per dataset entry.
    algorithms
        Every row of the board (also those applying nowhere).
    skipped
        ``(algorithm, dataset, reason)`` for every pair that gets no trials.
    store
        The one results store of every group.
    """

    groups: tuple[Group, ...]
    metas: dict[str, DatasetMeta]
    algorithms: tuple[Algorithm, ...]
    skipped: tuple[tuple[str, str, str], ...]
    store: Path


def metrics() -> list[str]:
    """The config's ``metrics``: accuracy, balanced accuracy (a metric of predictions) and leaves."""
    return ["accuracy", "balanced_accuracy", "n_leaves"]


def config_data(datasets: list[str], algorithms: list[Algorithm], options: Options, store: Path) -> dict[str, Any]:
    """The YAML mapping of one generated config."""
    data: dict[str, Any] = {
        "experiment": EXPERIMENT,
        "description": "treebench leaderboard: every split criterion on the same folds (generated)",
        "seed": SEED,
        "datasets": list(datasets),
        "protocol": {"type": "cv", "folds": options.folds, "repeats": options.repeats, "stratified": True},
        "tuning": {"folds": INNER_FOLDS},
        "algorithms": [a.config_entry() for a in algorithms],
        "metrics": metrics(),
        "store": str(store),
    }
    if options.plugins:  # a .py file by its absolute path (configs live in --out); a module name as given
        data["plugins"] = [str(Path(p).resolve()) if p.endswith(".py") else p for p in options.plugins]
    return data


def describe(datasets: list[str], options: Options) -> dict[str, DatasetMeta]:
    """Load every dataset once (through the config validator, so names resolve as in ``run``)."""
    from treebench.experiment.trial import load_data

    # no plugins: the probe only resolves datasets (the plugins were imported and checked already)
    probe = config_data(datasets, [Algorithm("probe", "entropy", criterion="entropy")], replace(options, plugins=()),
                        Path("probe.sqlite"))
    config = _parse_probe(yaml.safe_dump(probe, sort_keys=False), datasets)
    out = {}
    for spec in config.datasets:
        data = load_data(spec)
        out[spec.label] = meta_features(spec.label, data.X, data.y)
    return out


def _parse_probe(text: str, datasets: list[str]) -> Any:
    """Validate the probe config of the board's datasets; a refused entry is named as the user wrote it
    (``--suite`` or ``--datasets``), not at a line of a config nobody wrote."""
    import re

    from treebench.experiment.config import ConfigError, parse_config

    try:
        return parse_config(text, "<leaderboard suite>")
    except ConfigError as exc:
        first = str(exc).splitlines()[0]
        found = re.search(r"datasets\[(\d+)\][^:]*: (.*)$", first)
        if found is None or int(found.group(1)) >= len(datasets):
            raise
        raise TreebenchError(f"the board's dataset {datasets[int(found.group(1))]!r} (from --suite or --datasets): "
                             f"{found.group(2)}") from None


def make_plan(datasets: list[str], algorithms: list[Algorithm], options: Options, out: Path) -> Plan:
    """Group the datasets by applicable algorithms, one config per group, in memory.

    Nothing is written: :func:`treebench.leaderboard.run.prepare` checks the
    plan (store identity, the lock, every group's trials) first and then calls
    :func:`write_configs`, so a refused board leaves ``out`` as it was.
    """
    if not algorithms:
        raise TreebenchError("--criteria selects no algorithm; accepted: all or a comma-separated list")
    metas = describe(datasets, options)
    store = (out / STORE).resolve()
    skipped = []
    by_set: dict[tuple[str, ...], list[str]] = {}
    for label, meta in metas.items():
        applicable = []
        for algorithm in algorithms:
            reason = not_applicable(algorithm, meta)
            if reason is None:
                applicable.append(algorithm.name)
            else:
                skipped.append((algorithm.name, label, reason))
        if applicable:
            by_set.setdefault(tuple(applicable), []).append(label)
    groups = []
    for i, (names, members) in enumerate(sorted(by_set.items(), key=lambda kv: -len(kv[1])), start=1):
        chosen = [a for a in algorithms if a.name in names]
        text = yaml.safe_dump(config_data(members, chosen, options, store), sort_keys=False, width=1000)
        text = f"# generated by `treebench leaderboard`; group {i} of {len(by_set)}\n{text}"
        groups.append(Group(out / f"config-{i}.yaml", tuple(members), names, text))
    return Plan(tuple(groups), metas, tuple(algorithms), tuple(skipped), store)


def write_configs(plan: Plan, out: Path, what: str) -> None:
    """Write the plan's configs into ``out`` (each atomically) and remove a previous run's others.

    ``what`` names ``--out`` in a message when the folder cannot be written.
    """
    from treebench.outpaths import make_folder, write_text

    make_folder(out, what)
    wanted = {g.path.name for g in plan.groups}
    for group in plan.groups:
        write_text(group.path, group.text, what)
    for old in out.glob("config-*.yaml"):  # a previous run's groups may differ
        if old.name not in wanted and old.is_file():
            old.unlink()
