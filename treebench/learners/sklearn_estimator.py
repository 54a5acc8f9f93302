"""Any scikit-learn compatible classifier as a baseline: ``baseline: sklearn``.

A config names the classifier by ``estimator:``, a dotted path: a class
(``sklearn.ensemble.RandomForestClassifier``), built without arguments, or a
Python function of no arguments returning an estimator or a pipeline
(``mymodule.make_pipeline``).  Its ``params:`` and ``grid:`` are the
estimator's own parameters (``get_params(deep=True)``, so a pipeline's
``clf__max_depth`` too), set with ``set_params``; the runner's inner CV tunes
the grid like any other algorithm's.

Resolving a path imports the module it names and reads one attribute; no
other text of the config is evaluated.  A class is only instantiated when it
has ``fit`` and ``predict``; only a plain Python function is called as a
factory (never a built-in such as ``os.abort``).

Nominal features reach the estimator as their category codes (missing values
as NaN), as for ``sklearn-cart``; every ``random_state`` parameter that
neither the config nor the factory sets (still ``None``) is fixed per trial
from the experiment seed, dataset, repeat and fold.

Sizes (:func:`model_sizes`): a single tree (``tree_``) gives its leaves,
nodes and depth; an ensemble of trees (``estimators_`` of trees, gradient
boosting's array of trees, histogram gradient boosting's predictors) gives
the leaves and nodes summed over all its trees and the largest depth; a
pipeline is measured by its last step; anything else has no size (NaN).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import importlib
import inspect
import json
import pkgutil
import re
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError, no_such_parameter
from treebench.learners.sklearn_cart import SklearnLearner, check_values, codes_matrix, tree_sizes

#: A dotted path: ``module.Name``, the module itself possibly dotted.
_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
#: What ``estimator:`` accepts, for the end of every message about it.
ACCEPTED = (
    "accepted: the dotted path of a scikit-learn compatible classifier class "
    "(e.g. sklearn.ensemble.RandomForestClassifier) or of a function of no arguments returning one"
)
#: Memory addresses in a repr (``<function f at 0x7f...>``) differ between processes.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


# --------------------------------------------------------------------------- resolving a path
def _close_modules(missing: str) -> list[str]:
    """Modules named like ``missing`` beside it (its parent's submodules, or top-level ones)."""
    parent, _, last = missing.rpartition(".")
    if parent:
        package = sys.modules.get(parent)
        where = getattr(package, "__path__", None)
        if where is None:
            return []
        names = [m.name for m in pkgutil.iter_modules(where)]
    else:
        names = [m.name for m in pkgutil.iter_modules()]
    close = _close(last, names)
    return [f"{parent}.{name}" if parent else name for name in close]


def _close(word: str, candidates: list[str]) -> list[str]:
    """At most one close match of ``word`` among ``candidates``."""
    return difflib.get_close_matches(word, candidates, n=1)


def _import(module_name: str, path: str) -> Any:
    """Import the module of ``path``; a missing or failing module is a one-line error."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or module_name
        if module_name == missing or module_name.startswith(missing + "."):
            close = _close_modules(missing)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise TreebenchError(
                f"estimator {path!r}: no module named {missing!r}{hint}; "
                "accepted: a module that imports here (installed, or on PYTHONPATH)"
            ) from None
        raise TreebenchError(
            f"estimator {path!r}: importing module {module_name!r} failed: {_one_line(exc)}"
        ) from None
    except (Exception, SystemExit) as exc:  # the module's own code failed
        raise TreebenchError(
            f"estimator {path!r}: importing module {module_name!r} failed: {_one_line(exc)}"
        ) from None


def _required_arguments(function: Callable[..., Any]) -> list[str]:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # pragma: no cover - every Python function has a signature
        return []
    no_default = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in parameters if p.kind in no_default and p.default is inspect.Parameter.empty]


def resolve(path: Any) -> Callable[[], Any]:
    """The class or factory function ``path`` names, checked before anything is called.

    Parameters
    ----------
    path:
        ``module.Name``: the module is imported, ``Name`` read from it.

    Returns
    -------
    callable
        A class with ``fit`` and ``predict``, or a Python function whose
        parameters all have defaults.

    Raises
    ------
    TreebenchError
        One line: not a dotted path, the module does not import, it has no
        such name, or the name is neither such a class nor such a function.
    """
    if not isinstance(path, str) or not _PATH.fullmatch(path):
        raise TreebenchError(f"estimator {path!r} is not a dotted path module.Name; {ACCEPTED}")
    module_name, _, attribute = path.rpartition(".")
    module = _import(module_name, path)
    if not hasattr(module, attribute):
        close = _close(attribute, [n for n in dir(module) if not n.startswith("_")])
        hint = f" (did you mean {module_name}.{close[0]}?)" if close else ""
        raise TreebenchError(f"estimator {path!r}: module {module_name!r} has no {attribute!r}{hint}; {ACCEPTED}")
    target = getattr(module, attribute)
    if inspect.isclass(target):
        missing = [m for m in ("fit", "predict") if not callable(getattr(target, m, None))]
        if missing:
            raise TreebenchError(
                f"estimator {path!r} is a class without {' and '.join(missing)}, not a classifier; {ACCEPTED}"
            )
        return target
    if inspect.isfunction(target):
        required = _required_arguments(target)
        if required:
            raise TreebenchError(
                f"estimator {path!r} is a function that needs arguments ({', '.join(required)}); {ACCEPTED}"
            )
        return target
    raise TreebenchError(f"estimator {path!r} is a {type(target).__name__}, not a class or a function; {ACCEPTED}")


def estimator_type(estimator: Any) -> str | None:
    """``"classifier"``, ``"regressor"``, ... as scikit-learn's tags say; ``None`` when it declares none."""
    try:
        from sklearn.utils import get_tags

        return get_tags(estimator).estimator_type
    except Exception:  # not a scikit-learn estimator (or scikit-learn < 1.6): the old attribute
        return getattr(estimator, "_estimator_type", None)


def build(path: str) -> Any:
    """A fresh, unfitted estimator from ``path``: the class built without arguments, or the factory's result.

    Raises
    ------
    TreebenchError
        One line when :func:`resolve` refuses the path, building fails, or
        the result is not a classifier (its scikit-learn tags say another
        type, or it has no ``fit``/``predict``).
    """
    target = resolve(path)
    try:
        estimator = target()
    except (Exception, SystemExit) as exc:  # required arguments, a failing factory (or one calling sys.exit)
        how = "cannot be built without arguments" if inspect.isclass(target) else "failed"
        raise TreebenchError(
            f"estimator {path!r} {how}: {_one_line(exc)}; accepted: a class whose parameters all have "
            "defaults, or a function of no arguments returning the estimator"
        ) from None
    if inspect.isclass(estimator):
        raise TreebenchError(f"estimator {path!r} returns the class {estimator.__name__}, not an estimator; {ACCEPTED}")
    kind = estimator_type(estimator)
    if kind == "classifier":
        return estimator
    missing = [m for m in ("fit", "predict") if not callable(getattr(estimator, m, None))]
    if kind is None and not missing:
        return estimator
    what = f"a {kind}" if kind else f"a {type(estimator).__name__} without {' and '.join(missing)}"
    verb = "is" if inspect.isclass(target) else "returns"
    raise TreebenchError(f"estimator {path!r} {verb} {what}, not a classifier; {ACCEPTED}")


def parameter_names(estimator: Any) -> list[str]:
    """The parameters ``params:`` and ``grid:`` may set: ``get_params(deep=True)`` (none without it)."""
    get_params = getattr(estimator, "get_params", None)
    return sorted(get_params(deep=True)) if callable(get_params) else []


def validate_params(path: str, params: dict[str, Any]) -> None:
    """Check ``params`` for the estimator of ``path``: known names, values scikit-learn accepts.

    Raises
    ------
    TreebenchError
        One line for the first unknown parameter (with the accepted names)
        or the first value scikit-learn's own validation refuses (its
        message names the accepted values).
    """
    estimator = build(path)
    accepted = parameter_names(estimator)
    for key in params:
        if key not in accepted:
            listing = None if accepted else "none (the estimator has no get_params)"
            raise no_such_parameter(f"estimator {path!r}", key, accepted, listing)
    if not params:
        return
    try:
        estimator.set_params(**params)
    except Exception as exc:
        raise TreebenchError(f"estimator {path!r}: {_one_line(exc)}") from None
    nested = [v for v in estimator.get_params(deep=True).values() if hasattr(v, "get_params") and not inspect.isclass(v)]
    for part in [estimator, *nested]:
        check_values(part)


def seeded(estimator: Any, params: dict[str, Any], random_state: int) -> dict[str, Any]:
    """``params`` plus ``random_state`` for every such parameter (nested ones too) still ``None``.

    A parameter the config sets, or the factory set, keeps its value.
    """
    settings = dict(params)
    for key, value in (estimator.get_params(deep=True).items() if hasattr(estimator, "get_params") else ()):
        if (key == "random_state" or key.endswith("__random_state")) and value is None and key not in params:
            settings[key] = random_state
    return settings


# --------------------------------------------------------------------------- identity
def _package_version(top: str) -> str:
    """``dist version`` of the installed distributions providing module ``top``, else its ``__version__``."""
    from importlib import metadata

    dists = sorted(set(_distributions().get(top, [])))
    if dists:
        return ", ".join(f"{d} {metadata.version(d)}" for d in dists)
    version = getattr(sys.modules.get(top), "__version__", None)
    return f"{top} {version}" if version else f"{top} (no version)"


@functools.cache
def _distributions() -> dict[str, list[str]]:
    from importlib import metadata

    return dict(metadata.packages_distributions())


def _plain(value: Any) -> Any:
    """``value`` as JSON-able text that is the same in every process (estimators by class name)."""
    if hasattr(value, "get_params") and not inspect.isclass(value):
        return f"{type(value).__module__}.{type(value).__qualname__}"  # its params are listed deeply
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return _ADDRESS.sub("", repr(value))


def defaults_digest(path: str) -> str:
    """12 hex digits of the parameters ``path`` builds before ``params:`` (a factory's choices included)."""
    estimator = build(path)
    params = estimator.get_params(deep=True) if hasattr(estimator, "get_params") else {}
    text = json.dumps({"class": _plain(estimator), "params": {k: _plain(v) for k, v in params.items()}}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@functools.cache
def estimator_code_version(path: str) -> str:
    """What a trial of ``path`` depends on outside treebench, for trial keys.

    scikit-learn's version, the version of the package the estimator comes
    from when it is not scikit-learn, and :func:`defaults_digest` (so a
    changed factory or a changed default makes new trials).
    """
    import sklearn

    parts = [f"scikit-learn {sklearn.__version__}"]
    top = path.partition(".")[0]
    if top != "sklearn":
        parts.append(_package_version(top))
    parts.append(f"defaults {defaults_digest(path)}")
    return "; ".join(parts)


# --------------------------------------------------------------------------- sizes
def _trees(members: Any) -> list[Any]:
    """The members of an ensemble, flattened (gradient boosting keeps a 2-D array of trees)."""
    if isinstance(members, np.ndarray):
        return list(members.ravel())
    flat: list[Any] = []
    for member in members:
        flat.extend(_trees(member) if isinstance(member, (list, tuple, np.ndarray)) else [member])
    return flat


def model_sizes(model: Any) -> dict[str, int] | None:
    """``n_leaves``, ``n_nodes`` and ``depth`` of a fitted model made of trees, else ``None``.

    A single tree (``tree_``): its own.  An ensemble of trees -- ``estimators_``
    whose members all have a ``tree_`` (random forest, extra trees, bagging or
    AdaBoost of trees, gradient boosting's (iterations x classes) array), or
    histogram gradient boosting's predictors -- the leaves and the nodes
    (leaves included) summed over all its trees, and the largest depth (root
    at depth 0).  A pipeline is measured by its last step.
    """
    steps = getattr(model, "steps", None)
    if isinstance(steps, list) and steps:
        model = steps[-1][1]
    tree = getattr(model, "tree_", None)
    if tree is not None and hasattr(tree, "node_count"):
        return tree_sizes(tree)
    predictors = getattr(model, "_predictors", None)  # HistGradientBoosting*: iterations x classes
    if isinstance(predictors, list) and predictors:
        flat = _trees(predictors)
        if all(hasattr(p, "get_n_leaf_nodes") and hasattr(p, "nodes") for p in flat):
            return {
                "n_leaves": int(sum(p.get_n_leaf_nodes() for p in flat)),
                "n_nodes": int(sum(len(p.nodes) for p in flat)),
                "depth": int(max(p.get_max_depth() for p in flat)),
            }
    members = getattr(model, "estimators_", None)
    if isinstance(members, (list, np.ndarray)) and len(members):
        flat = _trees(members)
        if flat and all(hasattr(getattr(m, "tree_", None), "node_count") for m in flat):
            sizes = [tree_sizes(m.tree_) for m in flat]
            return {
                "n_leaves": sum(s["n_leaves"] for s in sizes),
                "n_nodes": sum(s["n_nodes"] for s in sizes),
                "depth": max(s["depth"] for s in sizes),
            }
    return None


# --------------------------------------------------------------------------- threads
@functools.cache
def _controller(path: str) -> Any:
    """The native thread pools (BLAS, OpenMP) loaded once ``path``'s module is imported."""
    from threadpoolctl import ThreadpoolController  # threadpoolctl >= 3 (scikit-learn's dependency)

    return ThreadpoolController()


def one_thread(path: str) -> Any:
    """A context in which BLAS and OpenMP use one thread (joblib's ``n_jobs`` is not affected).

    The runner already runs one trial per core: an estimator that also
    starts a thread per core (histogram gradient boosting) then fights the
    other workers for every core and runs tens of times slower.
    """
    try:
        return _controller(path).limit(limits=1)
    except ImportError:  # pragma: no cover - threadpoolctl < 3: the slower module-level call
        from threadpoolctl import threadpool_limits

        return threadpool_limits(limits=1)


# --------------------------------------------------------------------------- the learner
class SklearnEstimator(SklearnLearner):
    """Any scikit-learn compatible classifier, named by a config's ``estimator:`` path.

    Parameters
    ----------
    random_state:
        The trial's model seed, given to every ``random_state`` parameter the
        config and the factory leave unset (see :func:`seeded`).
    estimator:
        The dotted path of the classifier class or factory (see :func:`resolve`).
    """

    name = "sklearn"

    def __init__(self, random_state: int, estimator: str) -> None:
        super().__init__(random_state)
        self.estimator = estimator

    @classmethod
    def validate_params(cls, params: dict[str, Any]) -> None:
        """Without its estimator the parameters cannot be checked: use :func:`validate_params`."""
        raise TreebenchError(f"baseline {cls.name!r} needs 'estimator:'; {ACCEPTED}")

    @staticmethod
    def validate_estimator_params(path: str, params: dict[str, Any]) -> None:
        """Check the estimator ``path`` names and ``params`` for it (see :func:`validate_params`)."""
        validate_params(path, params)

    @staticmethod
    def estimator_code_version(path: str) -> str:
        """The trial-key code version of the estimator ``path`` names (see :func:`estimator_code_version`)."""
        return estimator_code_version(path)

    def fits_per_trial(self, params: dict[str, Any]) -> int | None:
        """One, unless the estimator searches or cross-validates inside ``fit`` (it has a ``cv``):
        how many models that grows is the estimator's business, so ``None`` (unknown)."""
        try:
            estimator = build(self.estimator)
        except TreebenchError:
            return None
        return None if hasattr(estimator, "cv") else 1

    def fit(
        self, params: dict[str, Any], X: pd.DataFrame | np.ndarray, y: np.ndarray, prepared: Any = None
    ) -> Any:
        estimator = build(self.estimator)
        settings = seeded(estimator, params, self.random_state)
        if settings:
            estimator.set_params(**settings)
        with one_thread(self.estimator):
            return estimator.fit(codes_matrix(X), np.asarray(y))

    def predict(self, model: Any, X: pd.DataFrame | np.ndarray) -> np.ndarray:
        with one_thread(self.estimator):
            return np.asarray(super().predict(model, X))

    def predict_proba(self, model: Any, X: pd.DataFrame | np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        if not hasattr(model, "predict_proba"):
            raise TreebenchError(f"estimator {self.estimator!r} has no predict_proba: the config's metrics of "
                                 "class probabilities (log_loss, roc_auc_ovr, brier) cannot be computed for it")
        with one_thread(self.estimator):
            return super().predict_proba(model, X)

    def n_leaves(self, model: Any) -> int:
        """Leaves for tuning's tie-break (summed over an ensemble); 0 for a model without trees."""
        sizes = model_sizes(model)
        return sizes["n_leaves"] if sizes is not None else 0

    def measures(self, model: Any) -> dict[str, Any]:
        sizes = model_sizes(model) or {"n_leaves": None, "n_nodes": None, "depth": None}
        return {**sizes, "tree_quality": None}
