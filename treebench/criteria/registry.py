"""Name -> criterion class registry: ``get(name, **params)``, ``available()``."""

from __future__ import annotations

import difflib
from typing import Any

from treebench.criteria.base import Criterion
from treebench.errors import TreebenchError

_REGISTRY: dict[str, type[Criterion]] = {}


def register(cls: type[Criterion]) -> type[Criterion]:
    """Register a criterion class under ``cls.name`` (usable as a decorator)."""
    if not cls.name:
        raise TreebenchError(f"criterion class {cls.__name__} has no name")
    existing = _REGISTRY.get(cls.name)
    if existing is not None and existing is not cls:
        raise TreebenchError(f"a criterion named {cls.name!r} is already registered")
    _REGISTRY[cls.name] = cls
    return cls


def available() -> list[str]:
    """Sorted names of every registered criterion."""
    return sorted(_REGISTRY)


def criterion_class(name: str) -> type[Criterion]:
    """The class registered under ``name``; unknown names list close matches."""
    try:
        return _REGISTRY[name]
    except KeyError:
        close = difflib.get_close_matches(str(name), available(), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise TreebenchError(
            f"unknown criterion {name!r}{hint}; accepted: {', '.join(available())}"
        ) from None


def get(name: str | Criterion, **params: Any) -> Criterion:
    """An instance of the criterion ``name`` with validated ``params``.

    A :class:`Criterion` instance is returned as is (``params`` must then be empty).
    """
    if isinstance(name, Criterion):
        if params:
            raise TreebenchError("parameters cannot be given with a criterion instance")
        return name
    return criterion_class(name)(**params)
