"""The tree estimator's own work, without scikit-learn: :class:`TreeModel`.

:class:`treebench.trees.estimator.TreeClassifier` is this class plus
scikit-learn's estimator bases (``clone``, tags, ``repr``, ``score``): the
public estimator.  The experiment runner fits :class:`TreeModel` itself --
the same trees, checks and predictions -- so that a trial never imports
scikit-learn, whose import (about 1 s, mostly ``scipy.stats``) every worker
process would otherwise pay before its first trial.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from treebench import criteria
from treebench.errors import TreebenchError, no_such_parameter
from treebench.kernels.ties import tie_state
from treebench.trees.builder import Presorted, grow
from treebench.trees.encoding import FeatureEncoder
from treebench.trees.fitted import FittedTreeMixin, check_fitted, check_sample_weight
from treebench.trees.limits import check_class_counts
from treebench.trees.pruning import prune_cost_complexity, prune_pessimistic
from treebench.trees.randomness import tie_seed
from treebench.trees.settings import PRUNINGS, GrowSettings
from treebench.trees.structure import Tree

#: Constructor arguments other than the criterion's own (scikit-learn's get_params order).
ESTIMATOR_PARAMS = (
    "criterion",
    "max_depth",
    "min_samples_split",
    "min_samples_leaf",
    "threshold",
    "nominal_split",
    "nominal_features",
    "pruning",
    "confidence",
    "subtree_raising",
    "ccp_alpha",
    "engine",
    "feature_ties",
    "random_state",
)
#: scikit-learn tree parameters these trees do not have, and why (said instead of "unknown").
UNSUPPORTED = {
    "max_features": "random feature subsets per node are a forest's device; these trees weigh every feature "
                    "at every node (feature_ties='random' breaks ties at random)",
    "max_leaf_nodes": "trees grow depth first to their stopping rules; limit them with max_depth, "
                      "min_samples_leaf or pruning",
    "min_impurity_decrease": "the criterion's min_gain is the least score a split needs",
    "splitter": "every split is the best one (splitter='best')",
    "class_weight": "give the weights as sample_weight, e.g. sklearn.utils.class_weight.compute_sample_weight("
                    "'balanced', y) (scikit-learn's own check of class_weight needs min_weight_fraction_leaf, "
                    "which these trees do not have yet)",
}


class TreeModel(FittedTreeMixin):
    """A decision tree grown with any registered split criterion (see :class:`TreeClassifier`,
    which documents the parameters and attributes; this is it without scikit-learn's bases)."""

    #: Parameters that are the estimator's own; any other keyword is a criterion parameter.
    _estimator_params: ClassVar[tuple[str, ...]] = ESTIMATOR_PARAMS

    def __init__(
        self,
        criterion: Any = "entropy",
        *,
        max_depth: int | None = None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        threshold: str = "midpoint",
        nominal_split: str = "multiway",
        nominal_features: Any = None,
        pruning: str | None = None,
        confidence: float = 0.25,
        subtree_raising: bool = False,
        ccp_alpha: float = 0.0,
        engine: str = "auto",
        feature_ties: str = "first",
        random_state: Any = None,
        **criterion_params: Any,
    ) -> None:
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.threshold = threshold
        self.nominal_split = nominal_split
        self.nominal_features = nominal_features
        self.pruning = pruning
        self.confidence = confidence
        self.subtree_raising = subtree_raising
        self.ccp_alpha = ccp_alpha
        self.engine = engine
        self.feature_ties = feature_ties
        self.random_state = random_state
        self._criterion_param_names = sorted(criterion_params)
        for name, value in criterion_params.items():
            setattr(self, name, value)

    # -- scikit-learn parameter protocol --------------------------------------
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        params = {name: getattr(self, name) for name in self._estimator_params}
        for name in self._criterion_param_names:
            params[name] = getattr(self, name)
        return params

    def set_params(self, **params: Any) -> TreeModel:
        for name, value in params.items():
            if name not in self._estimator_params and name not in self._criterion_param_names:
                self._criterion_param_names = sorted({*self._criterion_param_names, name})
            setattr(self, name, value)
        return self

    def _make_criterion(self) -> criteria.Criterion:
        params = {name: getattr(self, name) for name in self._criterion_param_names}
        if not isinstance(self.criterion, criteria.Criterion):
            declared = [p.name for p in criteria.criterion_class(self.criterion).all_params()]
            for name in params:
                if name in UNSUPPORTED:
                    raise TreebenchError(f"{self._name()}: {name} is not supported: {UNSUPPORTED[name]}")
                if name not in declared:
                    own = [p for p in self._estimator_params if p != "criterion"]
                    raise no_such_parameter(
                        f"{self._name()}({self.criterion!r})", name, [*own, *declared],
                        listing=f"{', '.join(own)}; and the criterion's {', '.join(declared)}")
        return criteria.get(self.criterion, **params)

    def _settings(self) -> GrowSettings:
        return GrowSettings(
            max_depth=self.max_depth,
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            threshold=self.threshold,
            nominal_split=self.nominal_split,
            feature_ties=self.feature_ties,
        )

    def _tie_stream(self, settings: GrowSettings) -> np.ndarray | None:
        """The stream random ties are drawn from (``None`` for ``feature_ties="first"``)."""
        return None if settings.feature_ties == "first" else tie_state(tie_seed(self.random_state))

    # -- fitting ------------------------------------------------------------------
    def fit(
        self,
        X: Any,
        y: Any,
        sample_weight: Any = None,
        sample_data: np.ndarray | None = None,
        presorted: Presorted | None = None,
    ) -> TreeModel:
        """Grow the tree.

        Parameters
        ----------
        X:
            Training features, ``(n_samples, n_features)``: an array or a
            DataFrame (dense; nominal and missing values allowed).
        y:
            Class labels, one per row.
        sample_weight:
            Non-negative row weights (scikit-learn's convention, as AdaBoost
            and bagging pass them).  A node's class counts become sums of
            weights: every split score, the leaves' class frequencies,
            :attr:`feature_importances_` and pruning use them.  Rows of weight
            0 are left out, as if removed; ``min_samples_split`` and
            ``min_samples_leaf`` count rows, as in scikit-learn, so with their
            defaults integer weights grow the tree of the repeated rows.  The
            compiled kernels of the built-in criteria take weights (a
            separately compiled version; the unweighted path is unchanged); a
            user criterion gets float counts in the generic engine.  Criteria
            whose scores depend on the size of the counts -- ``possibilistic``
            (confidence intervals of ``n``), ``belief`` (``1/(n + 1)``) -- and
            pessimistic pruning read weights as frequencies: rescaling them
            changes the tree.
        sample_data:
            An optional per-sample array handed to criteria that need more
            than class counts (see :class:`treebench.criteria.SplitContext`);
            not together with ``sample_weight``.
        presorted:
            Lets a caller that fits many trees on the same training matrix
            sort it once (it is copied, not consumed).
        """
        criterion = self._make_criterion()
        settings = self._settings()
        if self.pruning is not None and self.pruning not in PRUNINGS:
            raise TreebenchError(
                f"pruning={self.pruning!r} is invalid; accepted: None, {', '.join(PRUNINGS)}"
            )
        X = self._check_X(X, reset=True)
        encoder, matrix = FeatureEncoder.fit(X, self.nominal_features)
        codes = self._fit_labels(y, matrix.shape[0])
        check_class_counts(len(self.classes_), matrix.shape[0], settings.max_depth, settings.min_samples_leaf)
        weights = check_sample_weight(sample_weight, matrix)
        if sample_data is not None and len(sample_data) != matrix.shape[0]:
            raise TreebenchError(
                f"sample_data has {len(sample_data)} rows; X has {matrix.shape[0]}"
            )
        if weights is not None and sample_data is not None:
            raise TreebenchError(
                "sample_weight cannot be combined with sample_data (per-example label masses); accepted: one of them"
            )
        if weights is not None and not (weights > 0).all():
            # a row of weight 0 counts for nothing: it is removed, so it is in
            # no threshold, no min_samples_* count and no learnt category
            kept = weights > 0
            kept_rows = X.iloc[kept] if isinstance(X, pd.DataFrame) else X[kept]
            encoder, matrix = FeatureEncoder.fit(kept_rows, self.nominal_features)
            codes, weights, presorted = codes[kept], weights[kept], None
        self._fit_inputs(encoder, criterion)
        tree = grow(
            matrix,
            codes,
            len(self.classes_),
            encoder,
            criterion,
            settings,
            classes=self.classes_.tolist(),
            engine=self.engine,
            sample_data=sample_data,
            presorted=presorted.copy() if presorted is not None else None,
            sample_weight=weights,
            tie_stream=self._tie_stream(settings),
        )
        if self.pruning == "pessimistic":
            tree = prune_pessimistic(
                tree, matrix, codes, float(self.confidence), bool(self.subtree_raising), sample_weight=weights
            )
        elif self.pruning == "cost-complexity":
            tree = prune_cost_complexity(tree, self.ccp_alpha)
        self.tree_: Tree = tree
        return self

    def tree_quality(self) -> float | None:
        """The criterion's tree-level measure (eq. 18 for ``possibilistic``), if any."""
        check_fitted(self)
        return self.criterion_.tree_quality(self.tree_.leaf_counts())

    def _name(self) -> str:
        """The class name errors show: the public estimator's for this core class (a user meets it
        only through ``TreeClassifier``), a subclass's own otherwise."""
        return "TreeClassifier" if type(self) is TreeModel else type(self).__name__
