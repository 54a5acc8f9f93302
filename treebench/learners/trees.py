"""Learners for trees grown by treebench's builder with one registered criterion.

:class:`CriterionLearner` is the learner of every criterion whose
``learner_kind`` is ``"tree"``; :class:`OnlineLearner` grows the trial's
final tree one example at a time (a config's ``online: true``), and by
default the trees of its grid search too (``tune_online: false``: batch trees).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from treebench.learners.base import Learner, TreeMeasures


class CriterionLearner(TreeMeasures, Learner):
    """A :class:`treebench.TreeClassifier` grown with one registered criterion, optionally pruned.

    Fitted as :class:`treebench.trees.model.TreeModel`: the same tree, no scikit-learn import.
    """

    supports_pruning: ClassVar[bool] = True

    def __init__(self, criterion: str, pruning: str | None = None, *, random_state: int = 0) -> None:
        from treebench.criteria import criterion_class

        self.criterion = criterion
        self.pruning = pruning
        #: the trial's model seed: ``feature_ties: random`` draws from it (see :meth:`estimator_params`)
        self.random_state = random_state
        # Only the compiled kernels use a presort; the generic numpy search ignores it.
        self.uses_presort = criterion_class(criterion).kernel_id >= 0

    def kernel_groups(self) -> tuple[str, ...]:
        from treebench.criteria import criterion_class
        from treebench.criteria.builtin import is_whole_split

        # a criterion scored whole compiles its own specialisation of the builder besides the plain one
        whole = ("whole-split",) if is_whole_split(criterion_class(self.criterion).kernel_id) else ()
        return ("tree", *whole, "pruning") if self.pruning else ("tree", *whole)

    def view(self, X: pd.DataFrame) -> pd.DataFrame | np.ndarray:
        """An all-numeric frame as its float64 matrix, else the frame itself.

        The estimator encodes a numeric column to exactly these floats, so the
        trees are the same; a matrix just skips pandas' per-call overhead,
        which is more than half of a small fit.  Frames with nominal or ordinal
        (categorical) columns stay frames: their encoding depends on the
        declared categories.
        """
        if all(pd.api.types.is_float_dtype(t) for t in X.dtypes):
            return X.to_numpy(dtype=np.float64)
        return X

    def prepare(self, X: pd.DataFrame, y: np.ndarray) -> Any:
        if not self.uses_presort:
            return None
        from treebench.trees.builder import Presorted

        # every fit of the grid shares one sort of this training matrix
        return Presorted.for_fit(X, y)

    def fit(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None
    ) -> Any:
        from treebench.trees.model import TreeModel  # TreeClassifier without scikit-learn's bases

        if params.get("engine") == "python":
            prepared = None
        model = TreeModel(self.criterion, pruning=self.pruning, **self.estimator_params(params))
        return model.fit(X, y, presorted=prepared)

    def seed(self, params: dict[str, Any]) -> int:
        """The seed of this fit's random choices: the trial's, or its ``draw``-th further draw."""
        return drawn_seed(self.random_state, int(params.get("draw", 0)))

    def estimator_params(self, params: dict[str, Any], online: bool = False) -> dict[str, Any]:
        """A config's params as the estimator takes them: ``draw`` becomes ``random_state``.

        ``order`` reaches online trees only (a batch-tuned online algorithm's
        inner fits are batch trees, which have no arrival order).
        """
        dropped = ("draw",) if online else ("draw", "order")
        settings = {key: value for key, value in params.items() if key not in dropped}
        settings["random_state"] = self.seed(params)
        return settings


class OnlineLearner(CriterionLearner):
    """O-ΠTree (paper 000, §4.2): the trial's tree is grown one example at a time.

    ``tune_online`` says which trees the grid search cross-validates (the
    paper: "The γ parameter is tuned as in the previous algorithm", i.e. by a
    cross-validation on the training set -- of the algorithm being tuned):

    * ``True`` (the default, a config's ``online: true``): every inner fit is
      an online tree too, fed its inner training part in the order drawn from
      ``random_state``; so the chosen γ is the one whose *online* trees
      validate best;
    * ``False`` (``tune_online: false``): the inner fits are batch trees of the
      same criterion (:meth:`CriterionLearner.fit`) and only the final tree is
      grown online; the γ that suits a batch tree may make an online tree
      split on almost every arrival.

    The final tree sees the training part in a permutation seeded by the
    trial (:meth:`fit_final`'s ``seed``), or in the file's order with the
    param ``order: file``; ``draw: k`` takes the k-th further seed instead.
    The paper states no order: the seeded permutation is treebench's default.
    """

    def __init__(
        self, criterion: str, pruning: str | None = None, *, tune_online: bool = True, random_state: int = 0
    ) -> None:
        from treebench.errors import TreebenchError

        super().__init__(criterion, pruning, random_state=random_state)
        if not isinstance(tune_online, bool):
            raise TreebenchError(f"tune_online={tune_online!r} is invalid; accepted: true, false")
        self.tune_online = tune_online

    def kernel_groups(self) -> tuple[str, ...]:
        return (*super().kernel_groups(), "online")

    def prepare(self, X: pd.DataFrame, y: np.ndarray) -> Any:
        """Batch tuning: the presort; online tuning: the inner training part checked, encoded and ordered once.

        Every grid point's online tree is then fed the same encoded stream in
        the same order (the order depends on the seed and ``order`` only), so
        the checks, the encoding and the permutation are paid once per inner
        fold instead of once per grid point; each tree still gets its own
        pass (its leaves split at other arrivals for every γ).
        """
        if not self.tune_online:
            return super().prepare(X, y)
        from treebench.trees.online import OnlineTreeClassifier

        stream = OnlineTreeClassifier(self.criterion).encode_stream(X, y)
        return stream, {}  # orders by (seed, order), drawn on first use

    def fit(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None
    ) -> Any:
        """A fit of the grid search: an online tree (``tune_online``) or a batch tree."""
        if not self.tune_online:
            return super().fit(params, X, y, prepared)
        if prepared is None or params.get("nominal_features") is not None:  # encoded without nominal_features
            return self._online(params, X, y, self.random_state)
        from treebench.trees.online import OnlineTreeClassifier

        stream, orders = prepared
        settings = self.estimator_params({key: value for key, value in params.items() if key != "engine"}, True)
        how = (settings["random_state"], settings.get("order", "shuffled"))
        if how not in orders:
            orders[how] = stream.order(*how)
        return OnlineTreeClassifier(self.criterion, **settings).fit_stream(stream, orders[how])

    def fit_final(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, seed: int
    ) -> Any:
        return self._online(params, X, y, seed)

    def _online(self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, seed: int) -> Any:
        from treebench.trees.online import OnlineTreeClassifier

        settings = {key: value for key, value in params.items() if key not in ("engine", "draw")}
        seed = drawn_seed(seed, int(params.get("draw", 0)))
        return OnlineTreeClassifier(self.criterion, **settings, random_state=seed).fit(X, y)


def drawn_seed(seed: int, draw: int) -> int:
    """``seed`` itself for ``draw == 0`` (the trial's own choices), else the ``draw``-th seed mixed from it.

    A config's ``draw: k`` reruns a trial's random choices -- an online tree's
    arrival order, random tie-breaks -- on the same splits, so their spread
    shows apart from the splits'.
    """
    if draw == 0:
        return int(seed)
    return int(np.random.SeedSequence([int(seed), int(draw)]).generate_state(1)[0] & 0x7FFFFFFF)
