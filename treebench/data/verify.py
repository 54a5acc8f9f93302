"""Check every locally available copy of every dataset against its card.

Unlike :func:`~treebench.data.loader.load`, which stops at the first good copy,
verification reads *each* local copy (cache, every mirror file, the embedded
one) so that a bad file is reported even when another copy would do.  Derived
datasets are checked by deriving them.  Nothing is downloaded.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

from treebench.data.build import mismatches
from treebench.data.cards import Card, CardRegistry
from treebench.data.dataset import Dataset
from treebench.data.formats import SourceError
from treebench.data.loader import DataWarning, Loader, local_sources
from treebench.data.settings import Settings
from treebench.errors import TreebenchError

OK, FAILED, ABSENT = "ok", "failed", "absent"


@dataclass
class Verdict:
    """The outcome for one copy of one dataset (or for a dataset with no local copy)."""

    name: str
    status: str  # ok | failed | absent
    where: str
    detail: str = ""
    dataset: Dataset | None = None


def verify(
    registry: CardRegistry,
    settings: Settings,
    names: list[str] | None = None,
    on_card: Callable[[Card], None] | None = None,
) -> list[Verdict]:
    """Verdicts for the named datasets (default: all cards), in name order.

    Parameters
    ----------
    registry, settings
        Where cards and data are.
    names
        Card names or aliases; unknown names raise :class:`TreebenchError`.
    on_card
        Called before each card is checked (progress display).
    """
    cards = [registry.get(n) for n in names] if names else registry.validate()
    loader = Loader(registry, replace(settings, offline=True), memo={})
    verdicts: list[Verdict] = []
    for card in cards:
        if on_card is not None:
            on_card(card)
        if card.is_derived:
            verdicts.append(_derived(card, loader, registry, settings))
        else:
            verdicts.extend(_raw(card, loader))
    return verdicts


def _raw(card: Card, loader: Loader) -> list[Verdict]:
    notes: list[str] = []
    out = []
    for candidate in loader.candidates(card, notes, local_only=True):
        try:
            ds = Loader.read(card, candidate)
        except SourceError as exc:
            out.append(Verdict(card.name, FAILED, candidate.label, str(exc)))
            continue
        problems = mismatches(ds, card.expected)
        if problems:
            out.append(Verdict(card.name, FAILED, candidate.label, "; ".join(problems), ds))
        else:
            out.append(Verdict(card.name, OK, candidate.label, "", ds))
    if not out:
        out.append(Verdict(card.name, ABSENT, "", "; ".join(n for n in notes if n)))
    return out


def _derived(card: Card, loader: Loader, registry: CardRegistry, settings: Settings) -> Verdict:
    base = card.derived_from or ""
    if not local_sources(card, registry, settings):
        return Verdict(card.name, ABSENT, f"derived from {base}", f"{base} is not available locally")
    try:
        with warnings.catch_warnings():
            # a bad copy of the base is reported by the base's own verdicts
            warnings.simplefilter("ignore", DataWarning)
            ds = loader.load(card)
    except TreebenchError as exc:
        return Verdict(card.name, FAILED, f"derived from {base}", str(exc))
    return Verdict(card.name, OK, f"derived from {base}", "", ds)
