"""The learner of minimum entropy-of-error trees (paper 001), which have their own builder."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.learners.base import Learner, TreeMeasures


class MEELearner(TreeMeasures, Learner):
    """The minimum entropy-of-error tree (paper 001), which has its own builder.

    Config ``params`` are the ``mee`` criterion's parameters plus
    ``max_depth`` and ``threshold``; other tree parameters are refused.
    """

    def __init__(self, criterion: str = "mee", pruning: str | None = None, *, random_state: int = 0) -> None:
        from treebench.criteria import criterion_class

        # ``pruning`` and ``random_state`` are accepted for a uniform constructor: the config refuses
        # pruning for this kind, and MEE's builder makes no random choice.

        cls = criterion_class(criterion)
        self.criterion = criterion
        self.accepted = (*(p.name for p in cls.all_params()), *cls.tree_params)

    def kernel_groups(self) -> tuple[str, ...]:
        return ("tree", "mee")

    def view(self, X: pd.DataFrame) -> pd.DataFrame | np.ndarray:
        from treebench.trees.mee import as_frame_or_matrix

        return as_frame_or_matrix(X)

    def fit(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None
    ) -> Any:
        from treebench.trees.mee import MEETreeClassifier

        unknown = sorted(set(params) - set(self.accepted))
        if unknown:
            raise TreebenchError(
                f"criterion {self.criterion!r} has no parameter {unknown[0]!r}; accepted: {', '.join(self.accepted)}"
            )
        values = dict(params)
        if values.get("max_merged") == 0:
            values["max_merged"] = None  # the criterion's 0 spells floor(c/2)
        return MEETreeClassifier(**values).fit(X, y)
