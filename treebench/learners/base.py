"""The :class:`Learner` interface: what a trial fits, tunes, predicts and measures.

A learner hides the differences between treebench's own trees and reference
programs behind a few calls -- ``prepare`` (work shared by every fit on one
training matrix, e.g. the presort), ``fit``, ``predict`` and ``measures`` --
so that tuning and trials treat every algorithm alike.  Everything a kind of
learner *may* do beyond that is an explicit hook with a default here, so the
experiment layer never asks ``hasattr`` or branches on a learner's name:

=========================  ==================================================
hook                       default
=========================  ==================================================
``extra_metrics``          ``()``: no measures beyond the fixed ones
``extra_measures()``       ``{}``
``uses_label_masses``      ``False``: the learner learns from crisp labels
``supports_pruning``       ``False``: a config's ``pruning:`` must be none
``use_label_masses()``     ignored
``chosen()``               ``{}``: nothing tuned inside the fit
``availability()``         ``None``: nothing external is needed
``code_version()``         ``""``: only treebench's version matters
``validate_params()``      accepts anything (criterion trees are checked by
                           the config validator against the criterion)
``kernel_groups()``        ``()``: no compiled kernel of treebench's (see
                           :mod:`treebench.kernels.readiness`)
=========================  ==================================================
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from treebench.stats.metrics import Metric

#: Key of ``DataFrame.attrs`` set to ``"codes"`` on a frame whose nominal attributes a config turned
#: into category codes (``nominal: codes``; they are ordered categoricals then, like ordinal attributes).
NOMINAL_MODE = "treebench.nominal"


def nominal_codes_mode(X: pd.DataFrame | np.ndarray) -> bool:
    """Whether ``X`` carries the ``nominal: codes`` mark (pandas keeps ``attrs`` through row selection)."""
    return isinstance(X, pd.DataFrame) and X.attrs.get(NOMINAL_MODE) == "codes"


def take(X: pd.DataFrame | np.ndarray, rows: np.ndarray) -> pd.DataFrame | np.ndarray:
    """Rows of a frame or of a matrix."""
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else X[rows]


class Learner:
    """Interface used by tuning and trials; subclasses override what they need."""

    #: Measures this learner adds to every trial, beyond accuracy and tree sizes
    #: (stored in the trial's open ``measures`` field and listed by ``compare``).
    extra_metrics: ClassVar[tuple[Metric, ...]] = ()
    #: Whether fits consume per-example label masses (uncertain labels).
    uses_label_masses: ClassVar[bool] = False
    #: Whether a config's ``pruning:`` applies (treebench's own pruning of its trees).
    supports_pruning: ClassVar[bool] = False

    # -- what the learner needs -----------------------------------------------------
    def kernel_groups(self) -> tuple[str, ...]:
        """The groups of compiled kernels its fits and predictions use (:mod:`treebench.kernels.readiness`).

        A run names the ones not yet in numba's cache before it starts, so a
        first compile never looks like a hang.
        """
        return ()

    def fits_per_trial(self, params: dict[str, Any]) -> int | None:
        """Trees one :meth:`fit` with ``params`` grows (``--dry-run``'s count); ``None``: unknown.

        One, unless the learner tunes itself inside ``fit`` (inner cross-validation of its own).
        """
        return 1

    @classmethod
    def availability(cls) -> str | None:
        """``None`` when the learner can run here, else the one-line reason it cannot."""
        return None

    @classmethod
    def code_version(cls) -> str:
        """Implementation identity outside treebench (e.g. ``Weka 3.6.14``) for trial keys."""
        return ""

    @classmethod
    def validate_params(cls, params: dict[str, Any]) -> None:
        """Raise a one-line :class:`~treebench.errors.TreebenchError` for the first bad parameter."""

    # -- fitting ----------------------------------------------------------------------
    def use_label_masses(self, masses: np.ndarray | None, index: pd.Index) -> None:
        """The dataset's label masses ``(n, k + 1)`` (``None``: crisp labels), rows labelled by ``index``.

        Only called when :attr:`uses_label_masses` is true.
        """

    def view(self, X: pd.DataFrame) -> pd.DataFrame | np.ndarray:
        """The form of ``X`` that the many fits of a tuning grid use (default: ``X``)."""
        return X

    def prepare(self, X: pd.DataFrame, y: np.ndarray) -> Any:
        """Work shared by every fit on exactly this training data (default: none)."""
        return None

    def fit(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None
    ) -> Any:
        raise NotImplementedError

    def fit_final(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, seed: int
    ) -> Any:
        """The trial's model, once the grid values are chosen (default: :meth:`fit`)."""
        return self.fit(params, X, y)

    def will_predict(self, *frames: pd.DataFrame) -> None:
        """The frames the trial will predict after :meth:`fit_final` (default: ignored).

        A learner that runs an external program predicts them in the same
        call as the fit instead of starting the program again.
        """

    def chosen(self, model: Any) -> dict[str, Any]:
        """Parameter values the learner tuned itself during the fit (default: none)."""
        return {}

    # -- evaluating ------------------------------------------------------------------
    def predict(self, model: Any, X: pd.DataFrame) -> np.ndarray:
        return model.predict(X)

    #: Whether :meth:`predict_proba` gives class probabilities (metrics such as log-loss need them).
    gives_probabilities: ClassVar[bool] = False

    def predict_proba(self, model: Any, X: pd.DataFrame) -> tuple[np.ndarray, np.ndarray] | None:
        """Class probabilities of the rows of ``X`` and the classes of their columns (``None``: none).

        The default reads the model's own ``predict_proba`` and ``classes_`` (with the input
        :meth:`predict` would get, :meth:`proba_input`).
        """
        if not self.gives_probabilities or not hasattr(model, "predict_proba"):
            return None
        return np.asarray(model.predict_proba(self.proba_input(X))), np.asarray(model.classes_)

    def proba_input(self, X: pd.DataFrame) -> Any:
        """What :meth:`predict_proba` hands the model (as :meth:`predict` does; default ``X``)."""
        return X

    def n_leaves(self, model: Any) -> int:
        return int(self.measures(model)["n_leaves"])

    def measures(self, model: Any) -> dict[str, Any]:
        """``n_leaves``, ``n_nodes``, ``depth`` and ``tree_quality`` (``None`` if undefined)."""
        raise NotImplementedError

    def extra_measures(
        self, model: Any, X_test: pd.DataFrame, test_masses: np.ndarray
    ) -> dict[str, float]:
        """Values of :attr:`extra_metrics` on the test part.

        ``test_masses`` are the test examples' label masses ``(n, k + 1)``
        (one-hot for crisp labels), so a measure can use uncertain labels.
        """
        return {}


class TreeMeasures:
    """Sizes and quality read off a fitted treebench estimator (``tree_`` and ``tree_quality()``).

    treebench's trees give class probabilities (the training class frequencies at a leaf).
    """

    gives_probabilities: ClassVar[bool] = True

    def n_leaves(self, model: Any) -> int:
        return int(model.tree_.n_leaves)

    def measures(self, model: Any) -> dict[str, Any]:
        tree = model.tree_
        return {
            "n_leaves": int(tree.n_leaves),
            "n_nodes": int(tree.n_nodes),
            "depth": int(tree.depth),
            "tree_quality": model.tree_quality(),
        }
