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
    ``max_depth``, ``threshold``, ``feature_ties`` and ``draw``; other tree
    parameters are refused.  ``feature_ties: random`` draws from the trial's
    model seed ``random_state`` (``draw: k`` from its k-th further seed, as
    for every tree: :func:`treebench.learners.trees.drawn_seed`).
    """

    def __init__(self, criterion: str = "mee", pruning: str | None = None, *, random_state: int = 0) -> None:
        from treebench.criteria import criterion_class

        # ``pruning`` is accepted for a uniform constructor: the config refuses pruning for this kind.
        cls = criterion_class(criterion)
        self.criterion = criterion
        self.accepted = (*(p.name for p in cls.all_params()), *cls.tree_params)
        #: the trial's model seed: ``feature_ties: random`` draws from it
        self.random_state = random_state

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
        from treebench.learners.trees import drawn_seed

        values = {key: value for key, value in params.items() if key != "draw"}
        if values.get("max_merged") == 0:
            values["max_merged"] = None  # the criterion's 0 spells floor(c/2)
        seed = drawn_seed(self.random_state, int(params.get("draw", 0)))
        return MEETreeClassifier(**values, random_state=seed).fit(X, y)
