"""Name -> criterion class registry: ``get(name, **params)``, ``available()``.

Besides the built-in criteria and those registered by importing a module
(``@register``), the registry reads the ``treebench.criteria`` entry-point
group of the installed distributions, lazily: an entry point is loaded the
first time its name is asked for (``criterion_class``), and all of them when
the whole list is (``available``).  An entry point may name a
:class:`Criterion` subclass (registered) or a module (whose import registers
its criteria).  A plugin that fails to load is reported by one warning line
on stderr naming it, once per process, and is otherwise ignored.
"""

from __future__ import annotations

import difflib
import sys
import types
from typing import Any

from treebench.criteria.base import Criterion, Param
from treebench.errors import TreebenchError

_REGISTRY: dict[str, type[Criterion]] = {}

#: The entry-point group distributions declare their criteria in.
ENTRY_POINT_GROUP = "treebench.criteria"
#: Entry points already tried, by ``(name, value)``.
_TRIED: set[tuple[str, str]] = set()
#: The warning lines given so far (one per broken plugin).
_PLUGIN_WARNINGS: list[str] = []


#: Names a criterion may not take: selection words of ``--criteria`` (``all``: every criterion).
RESERVED_NAMES = frozenset({"all"})
#: Whether the built-in criteria are registered (on first use of the registry, see :func:`load_builtins`).
_BUILTINS_LOADED = False


def load_builtins() -> None:
    """Register the built-in criteria, once.

    On first use rather than on import: their modules hold compiled (numba)
    code, and importing numba would slow every command that only needs the
    package, ``treebench --help`` included.
    """
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED = True
    from treebench.criteria.builtin import criterion_classes
    from treebench.criteria.mee import MEE

    for cls in (*criterion_classes(), MEE):
        register(cls)


def registered() -> dict[str, type[Criterion]]:
    """The registry as it is now (built-ins loaded; entry points not): name -> class."""
    load_builtins()
    return dict(_REGISTRY)


def register(cls: type[Criterion]) -> type[Criterion]:
    """Register a criterion class under ``cls.name`` (usable as a decorator)."""
    load_builtins()  # a user's class may not take a built-in's name
    if not isinstance(cls.name, str) or not cls.name.strip():  # every list, menu and config names it as text
        got = "no name" if not cls.name else f"the name {cls.name!r} ({type(cls.name).__name__}, not text)"
        raise TreebenchError(f"criterion class {cls.__name__} has {got}; accepted: a non-empty text name")
    if cls.name.strip().lower() in RESERVED_NAMES:  # `--criteria all` must keep meaning every criterion
        raise TreebenchError(f"criterion class {cls.__name__} is named {cls.name!r}, a word --criteria reserves; "
                             f"accepted: any other non-empty text name (reserved: {', '.join(sorted(RESERVED_NAMES))})")
    problem = _declaration_problem(cls)
    if problem is not None:  # a wrong declaration would surface later as a traceback in a list or a config check
        raise TreebenchError(f"criterion class {cls.__name__} ({cls.name!r}) {problem}")
    existing = _REGISTRY.get(cls.name)
    if existing is not None and existing is not cls:
        raise TreebenchError(f"a criterion named {cls.name!r} is already registered")
    _REGISTRY[cls.name] = cls
    return cls


def _declaration_problem(cls: type[Criterion]) -> str | None:
    """What is wrong with the class attributes the registry's users read (``params``,
    ``learner_kind``, ``tree_params``), or ``None``."""
    params = getattr(cls, "params", ())
    wrong = [params] if not isinstance(params, (tuple, list)) else [p for p in params if not isinstance(p, Param)]
    if wrong:
        return (f"declares params holding {wrong[0]!r} ({type(wrong[0]).__name__}); accepted: a tuple of "
                "treebench.criteria.Param")
    kind = getattr(cls, "learner_kind", "tree")
    if not isinstance(kind, str):
        return f"declares learner_kind {kind!r} ({type(kind).__name__}); accepted: text such as 'tree'"
    allowed = getattr(cls, "tree_params", None)
    if allowed is not None and (not isinstance(allowed, (tuple, list, set, frozenset))
                                or not all(isinstance(k, str) for k in allowed)):
        return f"declares tree_params {allowed!r}; accepted: None or a tuple of tree parameter names"
    return None


def _entry_points() -> list[Any]:
    from importlib.metadata import entry_points

    try:
        return list(entry_points(group=ENTRY_POINT_GROUP))
    except Exception as exc:  # a broken installed distribution's metadata
        _warn(f"warning: cannot read the {ENTRY_POINT_GROUP!r} entry points: {type(exc).__name__}: {exc}")
        return []


def _warn(line: str) -> None:
    if line not in _PLUGIN_WARNINGS:
        _PLUGIN_WARNINGS.append(line)
        print(line, file=sys.stderr)


def _load_entry_point(point: Any) -> None:
    key = (point.name, point.value)
    if key in _TRIED:
        return
    _TRIED.add(key)
    where = f"criterion plugin {point.name!r} ({point.value})"
    try:
        loaded = point.load()
        if isinstance(loaded, type) and issubclass(loaded, Criterion):
            register(loaded)
        elif not isinstance(loaded, types.ModuleType):
            raise TypeError(f"it names a {type(loaded).__name__}, not a Criterion subclass or a module")
    except (Exception, SystemExit) as exc:  # a user's code: warn, never crash the caller
        _warn(f"warning: {where} failed to load: {type(exc).__name__}: {exc}".rstrip())


def load_entry_points(name: str | None = None) -> None:
    """Load the ``treebench.criteria`` entry points (only those called ``name`` if given)."""
    for point in _entry_points():
        if name is None or point.name == name:
            _load_entry_point(point)


def plugin_warnings() -> list[str]:
    """The warning lines given for broken entry-point plugins in this process."""
    return list(_PLUGIN_WARNINGS)


def available() -> list[str]:
    """Sorted names of every registered criterion (entry-point plugins included)."""
    load_builtins()
    load_entry_points()
    return sorted(_REGISTRY)


def criterion_class(name: str) -> type[Criterion]:
    """The class registered under ``name``; unknown names list close matches."""
    load_builtins()
    if name not in _REGISTRY:
        load_entry_points(str(name))
        if name not in _REGISTRY:  # a module entry point may register other names
            load_entry_points()
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
