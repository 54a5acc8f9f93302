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

import hashlib
import importlib
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from treebench.criteria.base import Criterion, as_children
from treebench.errors import TreebenchError


def import_plugin(spec: str) -> None:
    """Import a plugin: a module name, or the path of a ``.py`` file (imported once per process)."""
    if not spec.endswith(".py"):
        try:
            importlib.import_module(spec)
        except ImportError as exc:
            raise TreebenchError(f"cannot import plugin module {spec!r}: {exc}") from None
        return
    digest = hashlib.sha256(spec.encode()).hexdigest()[:10]  # stable across processes
    name = "treebench_plugin_" + re.sub(r"\W", "_", Path(spec).stem) + f"_{digest}"
    if name in sys.modules:
        return
    if not Path(spec).is_file():
        raise TreebenchError(f"plugin file {spec!r} not found")
    module_spec = importlib.util.spec_from_file_location(name, spec)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:  # a user's file: report, never crash the validation
        del sys.modules[name]
        raise TreebenchError(
            f"plugin {spec!r} failed to import: {type(exc).__name__}: {exc}"
        ) from None


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

        return custom.split_scores(self._function(), self.impurity_params(), parent, children)

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

        ints, floats, counts = custom.grow(
            self._function(), self.impurity_params(), X, y,
            int(n_classes), -1 if max_depth is None else int(max_depth), int(min_samples_split),
            int(min_samples_leaf), bool(midpoint), float(self.min_gain), bool(strict),
        )
        return ints, floats, counts, np.zeros(0, np.int64)
