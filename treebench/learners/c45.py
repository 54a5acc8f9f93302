"""treebench's C4.5, grown, collapsed and pruned by Weka J48's rules: the ``c4.5`` baseline.

This is the configuration a config names when its paper says "C4.5" and real
Weka J48 is not run (:class:`treebench.trees.c45.C45Classifier`: MDL-corrected
numeric gain, J48's minimum-split rule, thresholds on data values, the
average-gain rule, fractional cases for missing values, collapsing, pessimistic
pruning with subtree raising).  The plain gain-ratio tree of the shared builder
stays available as ``criterion: gain_ratio`` (optionally ``pruning:
pessimistic``), so a report always says which of the two ran.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError, no_such_parameter
from treebench.learners.base import Learner, TreeMeasures, nominal_codes_mode
from treebench.learners.sklearn_cart import codes_matrix

#: Parameters of ``c4.5``: name -> (accepted values, default), J48's option in brackets.
PARAMS: dict[str, tuple[str, Any]] = {
    "confidence": ("a number 0 < confidence <= 0.5 (-C, pruning confidence)", 0.25),
    "min_samples_leaf": ("an integer >= 1 (-M, least weight in two branches)", 2),
    "unpruned": ("true or false (-U: no error-based pruning)", False),
    "subtree_raising": ("true or false (false: -S)", True),
    "collapse": ("true or false (false: -O)", True),
    "mdl_correction": ("true or false (false: -J)", True),
    "feature_ties": ("first or random (of attributes of equal gain ratio: the first, J48's rule, or one at "
                     "random, seeded by the trial)", "first"),
    "draw": ("an integer >= 0 (0: the trial's seed for random ties; others: further draws mixed from it)", 0),
}


def _value_ok(key: str, value: Any) -> bool:
    if key == "confidence":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 0.5
    if key == "min_samples_leaf":
        return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1
    if key == "feature_ties":
        return value in ("first", "random")
    if key == "draw":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return isinstance(value, bool)


def as_numbers_if_codes(X: pd.DataFrame | np.ndarray) -> pd.DataFrame | np.ndarray:
    """Under ``nominal: codes``, every column as numbers (the codes of the coded ones; missing NaN).

    C4.5, like J48 reading ARFF, splits every categorical multiway, ordered or
    not; a config that asks for codes wants thresholds on them instead, which
    is what J48 does with a numeric column of codes.
    """
    return codes_matrix(X) if nominal_codes_mode(X) else X


class C45Learner(TreeMeasures, Learner):
    """The ``c4.5`` baseline: :class:`~treebench.trees.c45.C45Classifier` with the config's params.

    Parameters
    ----------
    random_state:
        The trial's model seed: ``feature_ties: random`` draws from it (``draw`` mixes further seeds).
    """

    name = "c4.5"

    def kernel_groups(self) -> tuple[str, ...]:
        return ("c4.5",)

    def __init__(self, random_state: int) -> None:
        self.random_state = int(random_state)

    @classmethod
    def validate_params(cls, params: dict[str, Any]) -> None:
        """Raise a one-line :class:`TreebenchError` for the first unknown or out-of-range parameter."""
        listing = "; ".join(f"{key}: {text}" for key, (text, _) in PARAMS.items())
        for key, value in params.items():
            if key not in PARAMS:
                raise no_such_parameter(f"baseline {cls.name!r}", key, list(PARAMS), listing)
            if not _value_ok(key, value):
                raise TreebenchError(
                    f"baseline {cls.name!r}: {key} = {value!r} is out of range; accepted: {PARAMS[key][0]}"
                )

    def view(self, X: pd.DataFrame) -> pd.DataFrame | np.ndarray:
        return as_numbers_if_codes(X)  # once for a whole tuning grid

    def fit(self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None) -> Any:
        from treebench.learners.trees import drawn_seed
        from treebench.trees.c45 import C45Classifier

        settings = {key: value for key, value in params.items() if key != "draw"}
        seed = drawn_seed(self.random_state, int(params.get("draw", 0)))
        return C45Classifier(**settings, random_state=seed).fit(as_numbers_if_codes(X), y)

    def predict(self, model: Any, X: pd.DataFrame) -> np.ndarray:
        return model.predict(as_numbers_if_codes(X))

    def proba_input(self, X: pd.DataFrame) -> Any:
        return as_numbers_if_codes(X)
