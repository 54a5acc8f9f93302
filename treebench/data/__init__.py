"""Dataset layer: cards, local mirrors, cache, OpenML/UCI downloads, derived datasets.

>>> from treebench.data import load
>>> ds = load("iris")           # doctest: +SKIP
>>> ds.X.shape, ds.classes      # doctest: +SKIP
((150, 4), ['Iris-setosa', 'Iris-versicolor', 'Iris-virginica'])

See ``docs/datasets.md`` for the card format and where data is looked for.
Imports are lazy so that ``treebench --help`` does not pay for pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from treebench.lazy import lazy_getattr

if TYPE_CHECKING:
    from treebench.data.cards import Card, CardRegistry
    from treebench.data.dataset import Dataset
    from treebench.data.loader import DataWarning, load
    from treebench.data.settings import Settings

__all__ = ["Card", "CardRegistry", "DataWarning", "Dataset", "Settings", "all_cards", "load", "names"]

_LAZY = {
    "Card": "treebench.data.cards",
    "CardRegistry": "treebench.data.cards",
    "Dataset": "treebench.data.dataset",
    "DataWarning": "treebench.data.loader",
    "load": "treebench.data.loader",
    "Settings": "treebench.data.settings",
}


__getattr__ = lazy_getattr('treebench.data', _LAZY)


def all_cards(settings: Settings | None = None) -> list[Card]:
    """Every dataset card, validated, sorted by name."""
    from treebench.data.cards import CardRegistry
    from treebench.data.settings import Settings

    settings = settings or Settings.from_env()
    return CardRegistry(settings.card_folders).validate()


def names(settings: Settings | None = None) -> list[str]:
    """Every dataset name, sorted."""
    from treebench.data.cards import CardRegistry
    from treebench.data.settings import Settings

    settings = settings or Settings.from_env()
    return CardRegistry(settings.card_folders).names()
