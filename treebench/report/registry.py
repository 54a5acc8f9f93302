"""Named registries: claim kinds (and, through :mod:`treebench.report.figure_kinds`, figure kinds).

A paper folder (:mod:`treebench.papers.folder`) names a claim's kind and a
figure's kind by a registered name, so a new kind is one registered class or
function, usable from ``paper.yaml`` at once::

    @claim_kind("fewer")
    @dataclass(frozen=True)
    class FewerClaim: ...

The generic claim kinds register themselves in :mod:`treebench.report.claims`;
a paper's own kinds in its ``claims.py`` (:mod:`treebench.papers.kinds`
imports them).  Imports only :mod:`treebench.errors`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from treebench.errors import TreebenchError

T = TypeVar("T")

#: A registered name: lower-case letters, digits and ``_`` (it is typed in YAML).
NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"


class Registry(Generic[T]):
    """Name -> object, filled by the :meth:`register` decorator.

    Parameters
    ----------
    what
        What an entry is, for messages (``"claim kind"``).
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self._entries: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register the decorated object under ``name`` and return it unchanged.

        Raises
        ------
        ValueError
            ``name`` is not lower-case ``[a-z0-9_]`` or is taken by another object
            (two kinds under one name would make a paper's YAML ambiguous).
        """
        if not name or set(name) - set(NAME_CHARS):
            raise ValueError(f"{self.what} name {name!r}: accepted: lower-case letters, digits and '_'")

        def add(obj: T) -> T:
            known = self._entries.get(name)
            # the same definition again (its module imported a second time) is harmless
            if known is not None and known is not obj and _origin(known) != _origin(obj):
                raise ValueError(f"{self.what} {name!r} is registered twice ({known!r} and {obj!r})")
            self._entries[name] = obj
            return obj

        return add

    def get(self, name: str) -> T:
        """The object registered as ``name``.

        Raises
        ------
        TreebenchError
            Unknown name: one line with a close match and every accepted name.
        """
        if name not in self._entries:
            raise TreebenchError(self.unknown(name))
        return self._entries[name]

    def unknown(self, name: Any) -> str:
        """``unknown WHAT 'name' (did you mean X?); accepted: ...``."""
        close = difflib.get_close_matches(str(name), self.names(), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        return f"unknown {self.what} {name!r}{hint}; accepted: {', '.join(self.names())}"

    def name_of(self, obj: T) -> str | None:
        """The name ``obj`` is registered under, or ``None``."""
        return next((name for name, known in self._entries.items() if known is obj), None)

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


def _origin(obj: object) -> tuple[object, object]:
    """Where ``obj`` is defined: its module and qualified name."""
    return getattr(obj, "__module__", None), getattr(obj, "__qualname__", id(obj))


#: Claim kind name -> claim class (a frozen dataclass with ``text`` and ``evaluate``).
CLAIM_KINDS: Registry[type] = Registry("claim kind")


def claim_kind(name: str) -> Callable[[type], type]:
    """Class decorator: register a claim class as kind ``name`` (usable from ``paper.yaml``)."""
    return CLAIM_KINDS.register(name)
