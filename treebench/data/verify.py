"""Check every locally available copy of every dataset against its card.

Unlike :func:`~treebench.data.loader.load`, which stops at the first copy,
verification reads *each* local copy (cache, every mirror file, the embedded
one) so that a bad file is reported even when another copy comes first.  A
copy passes when it is readable, matches the card's counts and has the
canonical checksum the card pins.  Derived datasets are checked by deriving
them.  Nothing is downloaded.

:func:`write_checksums` is the other direction: it computes the checksum of
the table every local copy gives and writes it into the card.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from treebench.data.build import judge
from treebench.data.cards import Card, CardRegistry, write_checksum
from treebench.data.dataset import Dataset
from treebench.data.formats import SourceError
from treebench.data.loader import Loader, local_sources
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
    cards = _cards(registry, names)
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


def _cards(registry: CardRegistry, names: list[str] | None) -> list[Card]:
    return [registry.get(n) for n in names] if names else registry.validate()


def _unpinned(card: Card) -> str:
    return f"{card.display_path} has no checksum; add it with `treebench datasets verify {card.name} --write-checksums`"


def _raw(card: Card, loader: Loader) -> list[Verdict]:
    notes: list[str] = []
    out = []
    for candidate in loader.candidates(card, notes, local_only=True):
        try:
            ds = Loader.read(card, candidate)
        except SourceError as exc:
            out.append(Verdict(card.name, FAILED, candidate.label, str(exc)))
            continue
        problem = judge(card, ds, candidate.origin) or (_unpinned(card) if card.checksum is None else "")
        out.append(Verdict(card.name, FAILED if problem else OK, candidate.label, problem, ds))
    if not out:
        out.append(Verdict(card.name, ABSENT, "", "; ".join(n for n in notes if n)))
    return out


def _derived(card: Card, loader: Loader, registry: CardRegistry, settings: Settings) -> Verdict:
    where = f"derived from {card.derived_from or ''}"
    if not local_sources(card, registry, settings):
        return Verdict(card.name, ABSENT, where, f"{card.derived_from} is not available locally")
    try:
        ds = loader.load(card)
    except TreebenchError as exc:
        return Verdict(card.name, FAILED, where, str(exc))
    if card.checksum is None:
        return Verdict(card.name, FAILED, where, _unpinned(card), ds)
    return Verdict(card.name, OK, where, "", ds)


@dataclass
class Written:
    """What :func:`write_checksums` did for one card."""

    name: str
    path: str
    checksum: str | None  # None: no local copy, nothing written
    changed: bool = False
    copies: int = 0


def write_checksums(
    registry: CardRegistry,
    settings: Settings,
    names: list[str] | None = None,
    on_card: Callable[[Card], None] | None = None,
) -> list[Written]:
    """Compute each card's canonical checksum from its local copies and write it into the card.

    Raw cards come first, then derived cards base before derivative, so a
    derived table is computed from a base whose checksum is already pinned
    (and checked).  A card without a local copy is left as it is.

    Raises
    ------
    TreebenchError
        A copy is corrupt or does not match the card's counts, or two local
        copies give different tables (the checksum would identify neither):
        make them agree, e.g. with the card's ``corrections``.
    """
    cards = sorted(_cards(registry, names), key=lambda c: (_depth(c, registry), c.name))
    offline = replace(settings, offline=True)
    done = []
    for card in cards:
        if on_card is not None:
            on_card(card)
        if card.is_derived:
            if not local_sources(card, registry, settings):
                done.append(Written(card.name, card.display_path, None))
                continue
            # the base must be its pinned table; only this card's checksum is unknown
            assert card.derived_from is not None
            Loader(registry, offline).load(registry.get(card.derived_from))
            found = {"derived": Loader(registry, offline, pinned=False).load(card).checksum}
        else:
            found = _copies(card, Loader(registry, offline, pinned=False))
            if not found:
                done.append(Written(card.name, card.display_path, None))
                continue
        checksum = _agreed(card, found)
        changed = write_checksum(card, checksum)
        done.append(Written(card.name, card.display_path, checksum, changed, len(found)))
    return done


def _depth(card: Card, registry: CardRegistry) -> int:
    depth = 0
    while card.derived_from is not None and depth <= 100:  # cycles are caught by validate()
        card = registry.get(card.derived_from)
        depth += 1
    return depth


def _copies(card: Card, loader: Loader) -> dict[str, str]:
    """Copy label -> checksum of every local copy; any bad copy is an error."""
    found: dict[str, str] = {}
    for candidate in loader.candidates(card, [], local_only=True):
        try:
            ds = Loader.read(card, candidate)
        except SourceError as exc:
            problem = str(exc)
        else:
            problem = judge(card, ds, candidate.origin, pinned=False)
            found[candidate.label] = ds.checksum
        if problem:
            raise TreebenchError(f"dataset {card.name!r}: {candidate.kind} copy {problem}; no checksum written")
    return found


def _agreed(card: Card, found: dict[str, str]) -> str:
    distinct = sorted(set(found.values()))
    if len(distinct) == 1:
        return distinct[0]
    listing = "; ".join(f"{label} gives {checksum}" for label, checksum in found.items())
    raise TreebenchError(
        f"dataset {card.name!r}: local copies give different tables ({listing}); "
        f"make them agree (e.g. with 'corrections' in {card.display_path}) before writing a checksum"
    )
