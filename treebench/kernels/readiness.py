"""Which compiled kernels are already on disk, so that a first use can say that it will compile.

numba compiles a kernel on first use and caches the machine code next to the
sources (or in ``NUMBA_CACHE_DIR``); the first compile of the tree builder
alone takes about 20 s, during which a progress bar would sit at 0% (or a
first ``fit`` would look hung) with no word.

Two ways to say so:

* up front, from the registry :data:`KERNELS`: :func:`uncached` lists the
  kernels of the given groups that numba's cache does not hold for the
  current sources (``treebench run`` asks before its progress bar starts);
* at the moment it happens, for the Python API: :func:`watch_compiles` (called
  by every estimator's fit through the feature encoder) prints
  :data:`FIRST_FIT_NOTICE` on stderr when a cached treebench kernel really
  compiles, once per process: never when the cache is warm, never twice.

A module with a kernel of its own registers it in one line (its entry point:
the compiled function Python calls)::

    register("mee", "treebench.kernels.mee_grow", "presort")
register("mee", "treebench.kernels.mee_grow", "grow_mee_tree")
register("online", "treebench.kernels.online", "feed")
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass

#: What the Python API prints, once per process, when a first fit compiles.
FIRST_FIT_NOTICE = (
    "treebench: this first fit compiles numba kernels (once: they are cached on disk; "
    "about 20 s on 2 idle cores, longer on a busy machine)"
)


#: Positions of the builder's arguments ``tables``, ``label_masses`` and ``whole`` (``weights``
#: and ``tie_stream`` between them).
TABLES, LABEL_MASSES, WHOLE = -5, -3, -1


@dataclass(frozen=True)
class Kernel:
    """A compiled entry point: ``module.function``, in a ``group`` of kernels used together.

    ``rank_dtype`` names one specialisation of the tree builder: the one whose
    rank array (its second argument) has that dtype.
    """

    group: str
    module: str
    function: str
    rank_dtype: str | None = None
    #: Only the specialisation whose arguments match every ``(position, type prefix)`` here: the
    #: argument at ``position`` (from the end when negative) has a numba type starting with the prefix.
    #: For the builder: ``(LABEL_MASSES, "array")`` the one with per-sample data (belief trees' label
    #: masses), ``(WHOLE, "array")`` the one of a criterion scored whole; ``"none"`` at both every other
    #: criterion's.
    arguments: tuple[tuple[int, str], ...] = ()

    @property
    def label(self) -> str:
        suffix = f" [{self.rank_dtype} ranks]" if self.rank_dtype else ""
        if (LABEL_MASSES, "array") in self.arguments:
            suffix += " [per-sample data]"
        if (WHOLE, "array") in self.arguments:
            suffix += " [whole split]"
        if (TABLES, "array") in self.arguments:
            suffix += " [tables]"
        return f"{self.module.rsplit('.', 1)[-1]}.{self.function}{suffix}"


#: First compile of each group, seconds on 2 idle cores with a cold cache (measured; see
#: docs/architecture.md), for the notice's estimate.  A group not listed counts 5 s.
GROUP_SECONDS: dict[str, int] = {"tree": 19, "large": 15, "c4.5": 15, "pruning": 1, "mee": 7, "online": 10,
                                  "belief": 16, "whole-split": 25}

#: Every registered kernel.  Groups: ``tree`` (every fit and predict), ``large``
#: (columns of more than 65,535 distinct values), ``c4.5``, ``pruning``, ``mee``, ``belief``, ``whole-split``
#: (the builder of a criterion scored whole, e.g. Hellinger distance).
KERNELS: list[Kernel] = []


def register(group: str, module: str, function: str, *, rank_dtype: str | None = None,
             arguments: tuple[tuple[int, str], ...] = ()) -> Kernel:
    """Add a kernel to :data:`KERNELS` (once; registering it again changes nothing)."""
    kernel = Kernel(group, module, function, rank_dtype, arguments)
    if kernel not in KERNELS:
        KERNELS.append(kernel)
    return kernel


#: The plain builder: neither label masses nor a whole-split marker.  A fit of at least
#: ``rank_tables.TABLES_MIN_ROWS`` rows without weights keeps tables (its ``tables`` marker is an
#: array): the groups ``tree`` and ``whole-split`` hold both specialisations, ``large`` (more rows
#: than that always) the one with tables.
_PLAIN = ((LABEL_MASSES, "none"), (WHOLE, "none"))
_NO_TABLES = ((TABLES, "none"),)
_WITH_TABLES = ((TABLES, "array"),)
register("tree", "treebench.kernels.induction", "build", rank_dtype="uint16", arguments=_PLAIN + _NO_TABLES)
register("tree", "treebench.kernels.induction", "build", rank_dtype="uint16", arguments=_PLAIN + _WITH_TABLES)
register("tree", "treebench.kernels.partition", "fill_sorted_row")
register("tree", "treebench.kernels.traversal", "apply_tree")
register("large", "treebench.kernels.induction", "build", rank_dtype="int32", arguments=_PLAIN + _WITH_TABLES)
register("c4.5", "treebench.kernels.c45_build", "grow_presorted")
register("c4.5", "treebench.kernels.c45_build", "grow_general")
register("c4.5", "treebench.kernels.c45_prune", "collapse_and_prune")
register("c4.5", "treebench.kernels.c45_prune", "final_cases")
register("c4.5", "treebench.kernels.c45_predict", "predict_proba")
register("pruning", "treebench.kernels.pruning", "weakest_link_prune")
register("mee", "treebench.kernels.mee_grow", "grow_mee_tree")
register("online", "treebench.kernels.online", "feed")
register("belief", "treebench.kernels.induction", "build", rank_dtype="uint16",
         arguments=((LABEL_MASSES, "array"), (WHOLE, "none")) + _NO_TABLES)
for _tables in (_NO_TABLES, _WITH_TABLES):
    register("whole-split", "treebench.kernels.induction", "build", rank_dtype="uint16",
             arguments=((LABEL_MASSES, "none"), (WHOLE, "array")) + _tables)


def is_cached(kernel: Kernel) -> bool | None:
    """``True`` if numba's cache holds ``kernel`` for its current source, ``False`` if not.

    ``None`` when it cannot tell (numba's cache internals changed, caching
    off, the module missing): callers then say nothing rather than something wrong.
    """
    try:
        dispatcher = getattr(importlib.import_module(kernel.module), kernel.function)
        # the index is empty when missing or when its source stamp no longer matches
        index = dispatcher._cache._cache_file._load_index()
    except Exception:
        return None
    return any(
        (kernel.rank_dtype is None or _rank_dtype(key) == kernel.rank_dtype)
        and all(_argument_type(key, position).startswith(prefix) for position, prefix in kernel.arguments)
        for key in index
    )


def _argument_type(key: tuple, position: int) -> str:
    """The numba type of the argument at ``position`` in one cached signature (``""`` if unreadable)."""
    try:
        return str(key[0][position])
    except (IndexError, TypeError):
        return ""


def _rank_dtype(key: tuple) -> str | None:
    """The dtype of argument 1 (the rank array) in one cached signature, if it has one."""
    try:
        return str(key[0][1].dtype)
    except (AttributeError, IndexError, TypeError):
        return None


def compile_notice(missing: Iterable[str]) -> str:
    """The line a run prints before compiling the kernels ``missing`` (labels from :func:`uncached`)."""
    missing = list(missing)
    groups = sorted({k.group for k in KERNELS if k.label in missing})
    seconds = sum(GROUP_SECONDS.get(g, 5) for g in groups)
    return (
        f"treebench: compiling {len(missing)} kernel{'s' * (len(missing) != 1)} on first use "
        f"({', '.join(groups)}; once, then cached on disk; about {seconds} s on 2 idle cores, "
        "longer on a busy machine)"
    )


def uncached(groups: Iterable[str] = ("tree",)) -> list[str] | None:
    """Labels of the kernels of ``groups`` that would compile on first use (``None``: cannot tell)."""
    wanted = set(groups)
    missing = []
    for kernel in KERNELS:
        if kernel.group not in wanted:
            continue
        cached = is_cached(kernel)
        if cached is None:
            return None
        if not cached:
            missing.append(kernel.label)
    return missing


# --------------------------------------------------------------------------- the Python API's notice
_state = {"watching": False, "announced": False}


def mark_announced() -> None:
    """The notice was given (or must not be): :func:`watch_compiles` stays silent in this process."""
    _state["announced"] = True


def watch_compiles() -> None:
    """Print :data:`FIRST_FIT_NOTICE` on stderr when a cached treebench kernel first compiles in this process.

    Listens to numba's ``numba:compile`` event, which fires on a real compile
    only (a kernel loaded from the cache raises none).  Cheap after the first
    call; the listener removes itself after speaking.
    """
    if _state["watching"] or _state["announced"]:
        return
    _state["watching"] = True
    try:
        from numba.core import event
    except Exception:  # pragma: no cover - numba without its event API: say nothing
        return

    class FirstCompile(event.Listener):
        def on_start(self, data: event.Event) -> None:
            if _state["announced"]:
                return
            details = data.data if isinstance(data.data, dict) else {}
            dispatcher = details.get("dispatcher")
            function = getattr(dispatcher, "py_func", None)
            cache = type(getattr(dispatcher, "_cache", None)).__name__
            if getattr(function, "__module__", "").startswith("treebench.") and cache != "NullCache":
                mark_announced()
                print(FIRST_FIT_NOTICE, file=sys.stderr, flush=True)

        def on_end(self, data: event.Event) -> None:
            pass

    event.register("numba:compile", FirstCompile())
