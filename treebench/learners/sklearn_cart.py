"""scikit-learn's CART as a baseline: ``sklearn-cart`` and ``sklearn-cart-ccp``.

``sklearn-cart`` passes the config's params to ``DecisionTreeClassifier``;
``sklearn-cart-ccp`` grows the same tree and prunes it by cost-complexity
with α chosen by inner cross-validation (:mod:`treebench.learners.ccp`).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError, no_such_parameter
from treebench.learners.base import Learner
from treebench.sampling import stratified_kfold


def reject_unknown(baseline: str, params: dict[str, Any], accepted: list[str]) -> None:
    """One-line error for the first parameter not in ``accepted``, with a close match if any."""
    for key in params:
        if key not in accepted:
            raise no_such_parameter(f"baseline {baseline!r}", key, accepted)


def check_values(estimator: Any) -> None:
    """scikit-learn's own check of ``estimator``'s parameter values, as a one-line error.

    Uses the estimator's ``_validate_params`` (scikit-learn >= 1.2); older
    versions, and estimators without it, validate at fit time instead.

    Raises
    ------
    TreebenchError
        scikit-learn's message (which names the accepted values) on one line.
    """
    validate = getattr(estimator, "_validate_params", None)
    if validate is None:  # pragma: no cover - scikit-learn < 1.2 validates at fit time
        return
    try:
        validate()
    except (TypeError, ValueError) as exc:
        raise TreebenchError(" ".join(str(exc).split())) from None


def tree_sizes(tree: Any) -> dict[str, int]:
    """``n_leaves``, ``n_nodes`` (leaves included) and ``depth`` (root 0) of a fitted scikit-learn ``Tree``."""
    return {"n_leaves": int(tree.n_leaves), "n_nodes": int(tree.node_count), "depth": int(tree.max_depth)}


def codes_matrix(X: pd.DataFrame | np.ndarray) -> np.ndarray:
    """Every column as float64: nominal ones as their category codes, missing values as NaN."""
    if isinstance(X, np.ndarray):
        return X
    columns = []
    for name in X.columns:
        series = X[name]
        if isinstance(series.dtype, pd.CategoricalDtype):
            codes = series.cat.codes.to_numpy().astype(np.float64)
            codes[codes < 0] = np.nan
            columns.append(codes)
        else:
            columns.append(series.to_numpy(dtype=np.float64, na_value=np.nan))
    return np.column_stack(columns) if columns else np.zeros((len(X), 0))


class SklearnLearner(Learner):
    """What the scikit-learn baselines share: features as codes, scikit-learn's version in trial keys.

    Parameters
    ----------
    random_state:
        The trial's model seed, for the estimator's ``random_state`` unless
        the config sets it.
    """

    def __init__(self, random_state: int) -> None:
        self.random_state = int(random_state)

    @classmethod
    def code_version(cls) -> str:
        import sklearn

        return f"scikit-learn {sklearn.__version__}"

    def view(self, X: pd.DataFrame) -> np.ndarray:
        return codes_matrix(X)  # convert once for a whole tuning grid

    def predict(self, model: Any, X: pd.DataFrame | np.ndarray) -> np.ndarray:
        return model.predict(codes_matrix(X))

    gives_probabilities: ClassVar[bool] = True

    def proba_input(self, X: pd.DataFrame | np.ndarray) -> Any:
        return codes_matrix(X)


class SklearnCart(SklearnLearner):
    """scikit-learn's ``DecisionTreeClassifier``; config ``params`` are passed through.

    Nominal features are given to scikit-learn as their category codes
    (missing values as NaN), since its trees have no nominal splits.  Unless
    ``random_state`` is set in the config, each trial fixes it from the
    experiment seed, dataset, repeat and fold, so ties between equally good
    features are broken the same way in every backend.
    """

    name = "sklearn-cart"

    @staticmethod
    def accepted_params() -> list[str]:
        from sklearn.tree import DecisionTreeClassifier

        return sorted(DecisionTreeClassifier().get_params())

    @classmethod
    def validate_params(cls, params: dict[str, Any]) -> None:
        """Raise a one-line :class:`TreebenchError` for the first bad parameter."""
        from sklearn.tree import DecisionTreeClassifier

        reject_unknown(cls.name, params, cls.accepted_params())
        check_values(DecisionTreeClassifier(**params))

    def fit(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None
    ) -> Any:
        from sklearn.tree import DecisionTreeClassifier

        settings = {"random_state": self.random_state, **params}
        return DecisionTreeClassifier(**settings).fit(codes_matrix(X), y)

    def n_leaves(self, model: Any) -> int:
        return int(model.get_n_leaves())

    def measures(self, model: Any) -> dict[str, Any]:
        return {**tree_sizes(model.tree_), "tree_quality": None}


class SklearnCartCCP(SklearnCart):
    """CART: a Gini tree pruned by cost-complexity, α chosen by inner cross-validation.

    The candidates are the α of scikit-learn's ``cost_complexity_pruning_path``
    on the trial's training part; each is scored by the misclassifications
    of the pruned tree over ``inner_folds`` stratified folds of that part
    (:mod:`treebench.learners.ccp`, one growth per fold).  Ties go to the
    largest α, i.e. the smallest tree.  The chosen α is stored with the trial.
    Other ``params`` go to ``DecisionTreeClassifier``.
    """

    name = "sklearn-cart-ccp"

    @staticmethod
    def accepted_params() -> list[str]:
        return sorted([*(p for p in SklearnCart.accepted_params() if p != "ccp_alpha"), "inner_folds"])

    @classmethod
    def validate_params(cls, params: dict[str, Any]) -> None:
        """Raise a one-line :class:`TreebenchError` for the first bad parameter."""
        reject_unknown(cls.name, params, cls.accepted_params())
        folds = params.get("inner_folds", 5)
        if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
            raise TreebenchError(f"baseline 'sklearn-cart-ccp': inner_folds must be an integer >= 2, got {folds!r}")
        SklearnCart.validate_params({k: v for k, v in params.items() if k != "inner_folds"})

    def fit(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None
    ) -> Any:
        from sklearn.tree import DecisionTreeClassifier

        from treebench.learners import ccp

        tree_params = {k: v for k, v in params.items() if k != "inner_folds"}
        settings = {"random_state": self.random_state, **tree_params}
        matrix, y = codes_matrix(X), np.asarray(y)
        # the full tree, grown once: its pruning path gives the candidates and,
        # pruned at the chosen alpha, it is the trial's model
        full = DecisionTreeClassifier(**settings).fit(matrix, y)
        candidates = ccp.pruning_path(full, matrix, y)
        folds = stratified_kfold(y, int(params.get("inner_folds", 5)), np.random.default_rng(self.random_state))
        folds = [(tr, te) for tr, te in folds if len(te) and len(tr)]
        errors = ccp.inner_cv_errors(matrix, y, candidates, folds, **settings)
        alpha = ccp.choose_alpha(errors, candidates)
        model = ccp.pruned_at(full, alpha, matrix, y)
        model.treebench_alpha_ = alpha
        return model

    def chosen(self, model: Any) -> dict[str, Any]:
        return {"ccp_alpha": float(model.treebench_alpha_)}

    def fits_per_trial(self, params: dict[str, Any]) -> int | None:
        """The full tree (its pruning path and, pruned, the model) and one per inner fold."""
        return 1 + int(params.get("inner_folds", 5))
