"""scikit-learn compatible estimator: ``TreeClassifier(criterion=..., **params)``."""

from __future__ import annotations

from sklearn.base import BaseEstimator, ClassifierMixin

from treebench.trees.model import ESTIMATOR_PARAMS, UNSUPPORTED, TreeModel

__all__ = ["ESTIMATOR_PARAMS", "UNSUPPORTED", "TreeClassifier"]


class TreeClassifier(TreeModel, ClassifierMixin, BaseEstimator):
    """A decision tree grown with any registered split criterion.

    Parameters
    ----------
    criterion:
        A registered criterion name (``treebench criteria list``) or a
        :class:`treebench.criteria.Criterion` instance.
    max_depth, min_samples_split, min_samples_leaf, threshold, nominal_split:
        See :class:`treebench.trees.settings.GrowSettings`.
    nominal_features:
        Columns (indices or names) to treat as nominal; DataFrame columns of
        categorical, string, object or bool dtype are nominal anyway and
        ordered categoricals are ordinal (split by thresholds on their order).
    pruning:
        ``None``, ``"pessimistic"`` (C4.5's error-based pruning with
        ``confidence`` and optional ``subtree_raising``) or
        ``"cost-complexity"`` (Breiman's weakest-link pruning with
        ``ccp_alpha``); see :mod:`treebench.trees.pruning`.
    engine:
        ``"auto"`` (compiled kernel when the criterion has one), ``"numba"``
        or ``"python"`` (the generic numpy split search).
    feature_ties:
        ``"first"`` (default): of several features whose best splits score
        the same, the lowest column wins, so the tree depends on the column
        order; ``"random"``: one of them at random, each equally likely (the
        distribution scikit-learn's per-node feature permutation gives),
        drawn from ``random_state``.  Ties within one feature always go to
        the smallest threshold.
    random_state:
        Seed of ``feature_ties="random"``'s draws: ``None`` (fresh entropy
        each fit), an integer >= 0, or a numpy ``Generator`` or
        ``RandomState``; unused with ``"first"``.
    **criterion_params:
        The criterion's own parameters, e.g. ``gamma=0.1`` or ``q=2.5``; they
        are ordinary estimator parameters for ``get_params``/``set_params``,
        ``clone`` and ``GridSearchCV``.  scikit-learn's ``max_features``,
        ``max_leaf_nodes``, ``min_impurity_decrease``, ``splitter`` and
        ``class_weight`` are refused with the reason (``class_weight``: pass
        ``sample_weight=compute_sample_weight("balanced", y)`` instead); any
        other unknown name is refused with every accepted parameter listed.

    Attributes
    ----------
    tree_ : Tree
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray
        Column names, only when fitted on a DataFrame whose column names are
        all strings (as scikit-learn); ``predict`` then refuses a DataFrame
        whose columns differ or come in another order.
    criterion_ : Criterion
    feature_importances_ : ndarray
        Normalised weighted decrease of the criterion's node value per
        feature (see :attr:`FittedTreeMixin.feature_importances_`).
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags
