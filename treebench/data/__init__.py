"""Dataset layer: cards, local mirrors, cache, OpenML/UCI downloads, derived datasets.

>>> from treebench.data import load
>>> ds = load("iris")           # doctest: +SKIP
>>> ds.X.shape, ds.classes      # doctest: +SKIP
((150, 4), ['Iris-setosa', 'Iris-versicolor', 'Iris-virginica'])

See ``docs/datasets.md`` for the card format and where data is looked for.
"""

from __future__ import annotations

from treebench.data.cards import Card, CardRegistry
from treebench.data.dataset import Dataset
from treebench.data.loader import DataWarning, load
from treebench.data.settings import Settings

__all__ = ["Card", "CardRegistry", "DataWarning", "Dataset", "Settings", "cards", "load", "names"]


def cards(settings: Settings | None = None) -> list[Card]:
    """Every dataset card, validated, sorted by name."""
    settings = settings or Settings.from_env()
    return CardRegistry(settings.cards_dir).validate()


def names(settings: Settings | None = None) -> list[str]:
    """Every dataset name, sorted."""
    settings = settings or Settings.from_env()
    return CardRegistry(settings.cards_dir).names()
