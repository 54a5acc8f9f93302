"""Criterion plugins: a module name or a ``.py`` file that registers criteria when imported.

Three routes bring a user criterion into the registry (see ``docs/criteria.md``,
"Plugins"):

- a config's ``plugins:`` list (imported by the validator and by every worker);
- ``--plugin FILE_OR_MODULE`` on ``treebench criteria list`` / ``criteria eval``;
- the ``treebench.criteria`` entry-point group of an installed distribution,
  loaded lazily by :mod:`treebench.criteria.registry` (a broken entry point
  gives one warning line naming it).

The first two go through :func:`import_plugin`.  :class:`ImpurityCriterion`
is a base class for criteria given by a compiled count-level impurity.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from treebench.criteria.base import Criterion, as_children
from treebench.errors import TreebenchError

#: A plugin module name: dotted Python identifiers (``pkg.module``).
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
#: What a plugin may be, for the end of every message about one.
ACCEPTED = "accepted: a .py file, or the name of a module that imports here (installed, or on PYTHONPATH)"


#: The criteria each imported plugin added to the registry, by its spec (its first import in this process).
_ADDED: dict[str, tuple[str, ...]] = {}


def _registered() -> dict[str, type]:
    from treebench.criteria.registry import registered

    return registered()


def plugin_criteria(spec: str) -> tuple[str, ...]:
    """Import the plugin ``spec`` (:func:`import_plugin`) and return the criteria it registers.

    Those its import added to the registry, and those whose class its module
    defines (a plugin imported earlier in this process added them then).
    """
    import_plugin(spec)
    module = spec if not spec.endswith(".py") else _file_module(spec)
    own = [name for name, cls in _registered().items() if getattr(cls, "__module__", None) == module]
    return tuple(dict.fromkeys([*_ADDED.get(spec, ()), *own]))


def plugin_registered() -> set[str]:
    """Every criterion a plugin imported in this process registered (not built in, not an entry point)."""
    return {name for names in _ADDED.values() for name in names}


def plugin_of(name: str) -> str | None:
    """The plugin (as imported: a module name or a ``.py`` file's resolved path) that registered the
    criterion ``name`` in this process, or ``None`` (built in, or an entry point)."""
    return next((spec for spec, names in _ADDED.items() if name in names), None)


def require_criteria(spec: str, shown: str | None = None) -> tuple[str, ...]:
    """:func:`plugin_criteria`, refusing a plugin that registers no criterion (a wrong file, a missing
    ``@register``): a board or a listing without the criterion the user meant to add would look complete."""
    found = plugin_criteria(spec)
    if not found:
        raise TreebenchError(f"--plugin {shown or spec!r} registered no criterion; accepted: a .py file or module "
                             "that registers at least one (decorate its Criterion class with "
                             "treebench.criteria.register)")
    return found


def _file_module(spec: str) -> str:
    """The module name a ``.py`` plugin is imported under (stable across processes)."""
    digest = hashlib.sha256(spec.encode()).hexdigest()[:10]
    return "treebench_plugin_" + re.sub(r"\W", "_", Path(spec).stem) + f"_{digest}"


def import_plugin(spec: str) -> None:
    """Import a plugin: a module name, or the path of a ``.py`` file (imported once per process).

    Whatever the plugin's own code does at import -- raise, have a syntax
    error, call ``sys.exit`` -- becomes a one-line :class:`TreebenchError`;
    only ``KeyboardInterrupt`` (Ctrl-C) passes through.
    """
    before = set(_registered())
    modules = set(sys.modules)
    try:
        _import(spec)
    finally:
        added = tuple(n for n in _registered() if n not in before)
        if added or spec not in _ADDED:
            _ADDED[spec] = (*_ADDED.get(spec, ()), *added)
        _IMPORTED.setdefault(spec, frozenset(set(sys.modules) - modules))


#: The modules each plugin's first import brought into ``sys.modules`` (the plugin and what it imported).
_IMPORTED: dict[str, frozenset[str]] = {}


def helper_files(module_name: str, path: Path) -> list[Path]:
    """The source files of the user's own modules that the plugin defining ``module_name`` (file
    ``path``) may run: part of its code, so an edit to them makes new trials (``code_version``).

    A module counts when it is loaded from a file outside the Python installation, its
    site-packages and treebench, is no other plugin (nor ``__main__``), and either came in with
    the plugin's import or lies under the plugin file's folder (a helper an earlier plugin
    imported first).  A module the plugin imports only later, while it runs, is not seen.  An
    installed plugin (a file under site-packages) has none: its package's version stands for its
    code.  The list is found once per set of loaded modules (a trial key asks for it per trial).
    """
    key = (module_name, os.path.realpath(path), len(sys.modules), len(_IMPORTED))
    found = _HELPERS.get(key)
    if found is None:
        found = _HELPERS[key] = _find_helpers(module_name, key[1])
    return list(found)


#: :func:`helper_files` by (module, plugin file, number of loaded modules, number of plugins).
_HELPERS: dict[tuple[str, str, int, int], tuple[Path, ...]] = {}


def _find_helpers(module_name: str, path: str) -> tuple[Path, ...]:
    roots = _installed_roots()
    if _under(path, roots):
        return ()
    folder = os.path.dirname(path) + os.sep
    with_it = set().union(*(names for names in _IMPORTED.values() if module_name in names))
    others = {_file_module(spec) if spec.endswith(".py") else spec
              for spec, names in _IMPORTED.items() if module_name not in names}
    found = set()
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or name in (module_name, "__main__") or name in others:
            continue
        if name not in with_it and not os.path.realpath(file).startswith(folder):
            continue
        file = os.path.realpath(file)
        if file != path and not _under(file, roots) and os.path.isfile(file):
            found.add(Path(file))
    return tuple(sorted(found))


def _under(file: str, roots: tuple[str, ...]) -> bool:
    return any(file == root or file.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


@functools.cache
def _installed_roots() -> tuple[str, ...]:
    """The folders of the Python installation, its site-packages and treebench itself."""
    import site
    import sysconfig

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, *sysconfig.get_paths().values(),
             str(Path(__file__).resolve().parents[1])}
    try:
        roots.update(site.getsitepackages())
        roots.add(site.getusersitepackages())
    except AttributeError:  # pragma: no cover - a virtualenv's old site module
        pass
    return tuple(sorted(os.path.realpath(r) for r in roots if r))


def _import(spec: str) -> None:
    if not spec.endswith(".py"):
        if not _MODULE.fullmatch(spec):
            from treebench.errors import special_kind

            kind = "a folder" if Path(spec).is_dir() else special_kind(spec) or "not a .py file"
            raise TreebenchError(f"plugin {spec!r} is neither a .py file nor a module name ({kind}); {ACCEPTED}")
        try:
            importlib.import_module(spec)
        except ModuleNotFoundError as exc:
            if exc.name and (spec == exc.name or spec.startswith(exc.name + ".")):
                raise TreebenchError(f"cannot import plugin module {spec!r}: no module named {exc.name!r}; {ACCEPTED}") from None
            raise TreebenchError(f"plugin module {spec!r} failed to import: {_one_line(exc)}") from None
        except (Exception, SystemExit) as exc:  # the module's own code: one line, never a traceback or an exit
            raise TreebenchError(f"plugin module {spec!r} failed to import: {_one_line(exc)}") from None
        return
    name = _file_module(spec)
    if name in sys.modules:
        return
    if Path(spec).is_dir():
        raise TreebenchError(f"plugin {spec!r} is a folder, not a .py file; {ACCEPTED}")
    from treebench.errors import special_kind

    kind = special_kind(spec)
    if kind is not None:  # there, but no file to import (a FIFO would block the import): not "not found"
        raise TreebenchError(f"plugin {spec!r} is not a regular file but {kind}; {ACCEPTED}")
    if not Path(spec).is_file():
        raise TreebenchError(f"plugin file {spec!r} not found; {ACCEPTED}")
    module_spec = importlib.util.spec_from_file_location(name, spec)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # a user's file: report, never crash (or end) the validation
        del sys.modules[name]
        raise TreebenchError(f"plugin {spec!r} failed to import: {_one_line(exc)}") from None
    except BaseException:  # Ctrl-C: stop as usual, but leave no half-imported module behind
        sys.modules.pop(name, None)
        raise


def _one_line(exc: BaseException) -> str:
    """``Type: message`` on one line (a ``SystemExit`` says its exit code)."""
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}): a plugin must not end the process"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ImpurityCriterion(Criterion):
    """A criterion given by a count-level impurity, with a compiled split search.

    Subclass it, set ``impurity = staticmethod(f)`` where ``f`` is a
    ``numba.njit`` function ``f(counts, params) -> float`` (``counts``: float64,
    one entry per class, zeros included; ``params``: float64, see
    :meth:`impurity_params`).  The node value is ``f(counts)``, a split scores
    the decrease ``f(parent) - sum_j (n_j / n) f(child_j)``, computed by
    compiled code for the numpy engine, and :meth:`grow_compiled` grows a whole
    tree in compiled code (numeric features without missing values, no sample
    weights) -- the same tree as the numpy engine (tested).
    """

    impurity: ClassVar[Any] = None

    def impurity_params(self) -> np.ndarray:
        """The parameter vector handed to ``impurity``: the declared numeric parameters but
        ``min_gain``, in declaration order."""
        values = [float(v) for k, v in self.values.items() if k != "min_gain" and not isinstance(v, str)]
        return np.asarray(values or [0.0], dtype=np.float64)

    def _function(self) -> Any:
        if self.impurity is None:
            raise TreebenchError(f"criterion {self.name!r}: ImpurityCriterion needs an impurity function")
        return self.impurity

    def node_value(self, counts: np.ndarray) -> float:
        return float(self._function()(np.asarray(counts, dtype=np.float64).copy(), self.impurity_params()))

    def split_scores(self, parent, children, context=None):  # noqa: ANN001, ANN201
        children = np.ascontiguousarray(as_children(children), dtype=np.float64)
        parent = np.ascontiguousarray(parent, dtype=np.float64)
        from treebench.kernels import custom  # numba: only when a compiled criterion is used

        scores = custom.split_scores(self._function(), self.impurity_params(), parent, children)
        if not np.isfinite(scores).all():  # a decrease of finite impurities is finite: name the value
            self._refuse_values(parent, children)
        return scores

    def _refuse_values(self, parent: np.ndarray, children: np.ndarray) -> None:
        """Raise the :class:`CriterionOutputError` naming the first impurity value that is not finite."""
        from treebench.criteria.guard import CriterionOutputError, check_node_value

        for counts in (parent, *children.reshape(-1, children.shape[-1])):
            if counts.sum() > 0:
                try:
                    check_node_value(self, self._function()(counts.copy(), self.impurity_params()), counts)
                except CriterionOutputError as exc:
                    raise CriterionOutputError(str(exc).replace("node_value", "impurity", 1)) from None

    def grow_compiled(
        self,
        X: np.ndarray,
        y: np.ndarray,
        n_classes: int,
        max_depth: int | None = None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        midpoint: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(int_nodes, float_nodes, counts, catmap)`` of the tree grown by the compiled scan.

        ``X``: numeric, finite (float64 ``(n, d)``); ``y``: labels ``0..n_classes-1``.  Returns what
        ``trees.generic.build_generic`` returns for the same data and settings.
        """
        X = np.ascontiguousarray(X, dtype=np.float64)
        if not np.isfinite(X).all():
            raise TreebenchError("the compiled impurity scan takes finite numeric features only")
        y = np.ascontiguousarray(y, dtype=np.int64)
        if X.ndim != 2 or y.shape != (X.shape[0],) or X.shape[0] == 0:
            raise TreebenchError(f"X must be (n, d) and y (n,) with n > 0; got {X.shape} and {y.shape}")
        if y.min() < 0 or y.max() >= n_classes:
            raise TreebenchError(f"labels must be 0..{n_classes - 1}; got {y.min()}..{y.max()}")
        strict = not self.accepts(float(self.min_gain))
        from treebench.kernels import custom  # numba: only when a compiled criterion is used

        ints, floats, counts, problem = custom.grow(
            self._function(), self.impurity_params(), X, y,
            int(n_classes), -1 if max_depth is None else int(max_depth), int(min_samples_split),
            int(min_samples_leaf), bool(midpoint), float(self.min_gain), bool(strict),
        )
        if problem[0] != 0:
            from treebench.criteria.guard import CriterionOutputError

            what = "a node" if problem[0] == 1 else "a candidate branch"
            raise CriterionOutputError(
                f"criterion {self.name!r}: impurity returned {problem[2]} for {what} of {problem[1]:g} rows; "
                "accepted: one finite number per node"
            )
        return ints, floats, counts, np.zeros(0, np.int64)
