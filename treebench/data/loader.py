"""``load(name)``: find a copy, check it against its card, return a :class:`Dataset`.

Raw datasets are looked for in this order; the first copy that exists is
used if it is the card's table:

1. the download cache (``TREEBENCH_CACHE``), its bytes checked against the record;
2. each mirror folder in ``TREEBENCH_DATA`` (``<name>.csv.gz``, ``.csv``, ``.arff``);
3. scikit-learn's bundled copy, for cards with an ``embedded`` section;
4. OpenML, through the ``openml`` package;
5. the card's UCI download recipe.

"The card's table" means: readable, every numeric cell finite, the card's
counts, and the canonical checksum the card pins (``checksum``).  Only a
*missing* copy moves the search on.  A local copy (1-3) that exists but is
not the card's table is an error naming it, never a reason to use another
source: two sources of "the same" dataset would otherwise give two tables
(and two checksums in one results store).  A download (4, 5) that fails or
differs is reported with a :class:`DataWarning` and the next source is tried;
downloads that pass are stored in the cache.  Derived datasets load their
base the same way, then apply their operations and check their own counts
and checksum.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import replace

from treebench.data.build import Table, judge, normalize, to_dataset
from treebench.data.cache import Cache
from treebench.data.cards import Card, CardRegistry
from treebench.data.dataset import Dataset
from treebench.data.derive import derive
from treebench.data.formats import MIRROR_SUFFIXES, NetworkError, SourceError
from treebench.data.settings import ENV_DATA, Settings
from treebench.data.sources import (
    Candidate,
    Progress,
    cache_candidates,
    embedded_candidates,
    mirror_candidates,
    mirror_files,
    openml_candidates,
    uci_candidates,
)
from treebench.errors import TreebenchError


class DataWarning(UserWarning):
    """A downloaded copy of a dataset was skipped (corrupt, or not the card's table)."""


#: What to do about a bad local copy, by source kind.
_FIXES = {
    "cache": "delete it and its .json record, or run `treebench datasets fetch {name} --refresh`",
    "mirror": "replace or remove that file",
    "embedded": "check the scikit-learn installation",
}


def load(
    name: str,
    *,
    offline: bool | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
    refresh: bool = False,
) -> Dataset:
    """Load a dataset by card name (or alias), checked against its card.

    Parameters
    ----------
    name
        A card name such as ``"ecoli"`` or an alias such as ``"breast-cancer"``.
    offline
        Skip OpenML and UCI downloads (default: ``TREEBENCH_OFFLINE``).
    settings
        Locations; default :meth:`Settings.from_env`.
    progress
        Called with ``(bytes_done, bytes_total, file)`` during downloads.
    refresh
        Ignore local copies and download again into the cache.

    Returns
    -------
    Dataset

    Raises
    ------
    TreebenchError
        Unknown name; a local copy that is corrupt or not the card's table
        (one line naming the copy); or no copy anywhere (one line naming the
        dataset, every place looked and where to put the file).
    """
    settings = settings or Settings.from_env()
    if offline is not None:
        settings = replace(settings, offline=offline)
    registry = CardRegistry(settings.card_folders)
    return Loader(registry, settings, progress=progress, refresh=refresh).load(registry.get(name))


class Loader:
    """Loads cards of one registry; remembers results when ``memo`` is given.

    ``pinned=False`` skips the comparison with the cards' checksums (counts
    are still checked): only for computing the checksums to write.
    """

    def __init__(
        self,
        registry: CardRegistry,
        settings: Settings,
        *,
        progress: Progress | None = None,
        refresh: bool = False,
        memo: dict[str, Dataset] | None = None,
        pinned: bool = True,
    ) -> None:
        self.registry = registry
        self.settings = settings
        self.progress = progress
        self.refresh = refresh
        self.memo = memo
        self.pinned = pinned
        self.cache = Cache(settings.cache_dir)

    def load(self, card: Card, _chain: tuple[str, ...] = ()) -> Dataset:
        if card.name in _chain:
            raise TreebenchError(
                f"{card.display_path}: derived_from makes a cycle: {' -> '.join((*_chain, card.name))}"
            )
        if self.memo is not None and card.name in self.memo:
            return self.memo[card.name]
        ds = self._derived(card, _chain) if card.is_derived else self._raw(card)
        if self.memo is not None:
            self.memo[card.name] = ds
        return ds

    # ------------------------------------------------------------------ derived
    def _derived(self, card: Card, chain: tuple[str, ...]) -> Dataset:
        assert card.derived_from is not None
        try:
            base_card = self.registry.get(card.derived_from)
        except TreebenchError:
            raise TreebenchError(
                f"{card.display_path}: field 'derived_from' names unknown dataset {card.derived_from!r}"
            ) from None
        base = self.load(base_card, (*chain, card.name))
        table = derive(card, Table.from_dataset(base))
        ds = to_dataset(card.name, card, table, f"derived from {base.name} ({base.source})")
        problem = judge(card, ds, f"dataset {card.name!r} derived from {base.name!r}", self.pinned)
        if problem:
            raise TreebenchError(problem)
        return ds

    # ------------------------------------------------------------------ raw
    def candidates(self, card: Card, notes: list[str], local_only: bool = False) -> Iterator[Candidate]:
        """Copies to try, in order; places without one add a note instead.

        A generator, so that nothing is downloaded while a local copy works.
        """
        steps = []
        if not self.refresh:
            steps += [
                lambda: cache_candidates(card, self.cache),
                lambda: mirror_candidates(card, self.settings),
                lambda: embedded_candidates(card),
            ]
        if not local_only:
            steps += [
                lambda: openml_candidates(card, self.settings),
                lambda: uci_candidates(card, self.settings, self.progress),
            ]
        for step in steps:
            found, note = step()
            if note:
                notes.append(note)
            yield from found

    def _raw(self, card: Card) -> Dataset:
        notes: list[str] = []
        unreachable = False
        for candidate in self.candidates(card, notes):
            try:
                ds = self.read(card, candidate)
            except NetworkError as exc:
                # nothing was read, so no copy is wrong: noted in the final error, not warned about
                notes.append(f"{candidate.kind}: {exc}")
                unreachable = True
                continue
            except SourceError as exc:
                problem = str(exc)
            else:
                problem = judge(card, ds, candidate.origin, self.pinned)
                if not problem:
                    if candidate.network:
                        self.cache.store(card.name, Table.from_dataset(ds), ds.source)
                    return ds
            if not candidate.network:
                # it exists, so it is what the user meant: another source would be another table
                raise TreebenchError(bad_local_copy(card, candidate, problem))
            notes.append(f"{candidate.kind}: {problem}")
            warnings.warn(f"{problem}; trying the next source", DataWarning, stacklevel=4)
        raise TreebenchError(self._nowhere(card, notes, unreachable))

    @staticmethod
    def read(card: Card, candidate: Candidate) -> Dataset:
        """Read, type and encode one candidate (not yet checked against the card)."""
        raw = candidate.read()
        table = normalize(card, raw, candidate.origin)
        return to_dataset(card.name, card, table, candidate.label)

    def _nowhere(self, card: Card, notes: list[str], unreachable: bool = False) -> str:
        files = " / ".join(f"{card.file}{s}" for s in MIRROR_SUFFIXES)
        hint = f"put {files} in a folder listed in {ENV_DATA} (e.g. export {ENV_DATA}=../shared/datasets)"
        if unreachable:
            hint = f"check the network and run `treebench datasets fetch {card.name}` again, or {hint}"
        if self.settings.offline:
            hint += f", or run `treebench datasets fetch {card.name}` online"
        return f"dataset {card.name!r} is not available; looked in: {'; '.join(notes)}. To fix: {hint}"


def bad_local_copy(card: Card, candidate: Candidate, problem: str) -> str:
    """The one-line error for a local copy that exists but is not the card's table."""
    fix = _FIXES.get(candidate.kind, "repair or remove it").format(name=card.name)
    return (
        f"dataset {card.name!r}: {candidate.kind} copy {problem}; {fix} "
        "(a bad local copy is never replaced by another source)"
    )


def local_sources(card: Card, registry: CardRegistry, settings: Settings) -> list[str]:
    """Where a dataset is available without the network: ``cache``, ``mirror``, ``embedded``.

    Derived datasets report their base's sources.  Nothing is read.
    """
    seen: set[str] = set()
    while card.derived_from is not None and card.name not in seen:
        seen.add(card.name)
        try:
            card = registry.get(card.derived_from)
        except TreebenchError:
            return []
    where = []
    if Cache(settings.cache_dir).has(card.name):
        where.append("cache")
    if mirror_files(card, settings):
        where.append("mirror")
    if card.embedded is not None:
        where.append("embedded")
    return where
