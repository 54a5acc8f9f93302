"""The order a config lists its algorithms in, for every table and figure of its results.

A results store keeps the config text the runner ran (its ``meta`` table), so a store
knows the order too.  Tables and plots follow it; names not in the config (an exported
frame, a store without the text) keep their first-appearance order after the listed ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from treebench.errors import TreebenchError

CONFIG_SUFFIXES = (".yaml", ".yml")
STORE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


def config_algorithm_order(config_text: str) -> list[str]:
    """Algorithm names in the order an experiment config lists them.

    Reads the ``algorithms:`` list of the YAML text (each entry's ``name``);
    returns an empty list when the text is not such a config.
    """
    import yaml

    try:
        data = yaml.safe_load(config_text)
    except yaml.YAMLError:
        return []
    entries = data.get("algorithms") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    return [str(e["name"]) for e in entries if isinstance(e, dict) and e.get("name") is not None]


def source_algorithm_order(source: str | Path) -> list[str]:
    """The config order of the algorithms behind a store or config path, if known (else ``[]``)."""
    path = Path(source)
    suffix = path.suffix.lower()
    try:
        if suffix in CONFIG_SUFFIXES:
            return config_algorithm_order(path.read_text(encoding="utf-8"))
        if suffix in STORE_SUFFIXES:
            from treebench.experiment.store import ResultsStore

            with ResultsStore(path) as store:
                return config_algorithm_order(store.meta().get("config", ""))
    except (OSError, TreebenchError):
        return []
    return []


def in_config_order(present: Iterable[str], order: Iterable[str]) -> list[str]:
    """``present`` (first-appearance order) rearranged: the config's names first, in its order."""
    seen = list(dict.fromkeys(present))
    listed = [name for name in dict.fromkeys(order) if name in seen]
    return listed + [name for name in seen if name not in listed]


def config_ordered(frame, order: Iterable[str]):  # noqa: ANN001, ANN201 - a pandas DataFrame in and out
    """``frame``'s rows stably sorted so that its algorithms first appear in config order.

    Everything that lists algorithms by first appearance (tables, plots) then follows the config.
    """
    import numpy as np

    names = frame["algorithm"].astype(str)
    rank = {name: i for i, name in enumerate(in_config_order(names, order))}
    return frame.iloc[np.argsort(names.map(rank).to_numpy(), kind="stable")]
