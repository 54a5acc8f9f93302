"""Which learner runs a config's ``criterion:`` or ``baseline:``.

Criteria declare their learner kind (``Criterion.learner_kind``: ``"tree"``
for the shared builder, or a kind with its own learner); baselines are
registered here by name.  The experiment layer asks :func:`make_learner` and
never branches on a criterion's or a baseline's name.
"""

from __future__ import annotations

import difflib
from typing import Any

from treebench.errors import TreebenchError
from treebench.learners.base import Learner
from treebench.learners.belief import BeliefLearner
from treebench.learners.c45 import C45Learner
from treebench.learners.c50 import C50
from treebench.learners.mee import MEELearner
from treebench.learners.sklearn_cart import SklearnCart, SklearnCartCCP
from treebench.learners.sklearn_estimator import ACCEPTED as ESTIMATOR_ACCEPTED
from treebench.learners.sklearn_estimator import SklearnEstimator
from treebench.learners.trees import CriterionLearner, OnlineLearner
from treebench.learners.weka import WekaJ48
from treebench.stats.metrics import Metric

#: Learner kind a criterion declares -> the learner that grows its trees.
LEARNER_KINDS: dict[str, type[Learner]] = {
    "tree": CriterionLearner,
    "mee": MEELearner,
    "belief": BeliefLearner,
}
#: Baseline name (a config's ``baseline:``) -> its learner.
BASELINES: dict[str, type[Learner]] = {
    "sklearn": SklearnEstimator,
    "sklearn-cart": SklearnCart,
    "sklearn-cart-ccp": SklearnCartCCP,
    "weka-j48": WekaJ48,
    "c50": C50,
    "c4.5": C45Learner,
}
#: The baselines a config's ``estimator:`` (a dotted class or factory path) configures.
ESTIMATOR_BASELINES: dict[str, type[SklearnEstimator]] = {"sklearn": SklearnEstimator}


def available_baselines() -> list[str]:
    return sorted(BASELINES)


def baseline_class(name: str) -> type[Learner]:
    """The baseline called ``name``; an unknown name gives a one-line error with a close match."""
    if name in BASELINES:
        return BASELINES[name]
    close = difflib.get_close_matches(str(name), list(BASELINES), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise TreebenchError(f"unknown baseline {name!r}{hint}; accepted: {', '.join(available_baselines())}")


def estimator_baselines() -> list[str]:
    """The baselines that take an ``estimator:`` (and need one)."""
    return sorted(ESTIMATOR_BASELINES)


def takes_estimator(baseline: str) -> bool:
    """Whether ``baseline`` is configured by an ``estimator:`` path."""
    return baseline in ESTIMATOR_BASELINES


def check_estimator(baseline: str, estimator: Any) -> None:
    """Check a baseline's ``estimator:`` (``None`` when not given).

    Raises
    ------
    TreebenchError
        One line: a baseline of :data:`ESTIMATOR_BASELINES` without an
        estimator, another baseline with one, or an estimator path that
        does not name a classifier (see :func:`~treebench.learners.sklearn_estimator.build`).
    """
    if takes_estimator(baseline):
        if estimator is None:
            raise TreebenchError(f"baseline {baseline!r} needs an 'estimator'; {ESTIMATOR_ACCEPTED}")
        ESTIMATOR_BASELINES[baseline].validate_estimator_params(estimator, {})
    elif estimator is not None:
        raise TreebenchError(
            f"baseline {baseline!r} takes no 'estimator'; accepted: 'estimator' with "
            f"baseline: {' or '.join(estimator_baselines())} only (remove it, or change the baseline)"
        )


def validate_baseline_params(baseline: str, params: dict[str, Any], estimator: str | None = None) -> None:
    """Raise a one-line :class:`TreebenchError` for the first bad parameter of a baseline (and its estimator)."""
    if estimator is not None and takes_estimator(baseline):
        ESTIMATOR_BASELINES[baseline].validate_estimator_params(estimator, params)
    else:
        baseline_class(baseline).validate_params(params)


def baseline_code_version(baseline: str, estimator: str | None = None) -> str:
    """The implementation a baseline's trials depend on, for trial keys (with its estimator's, if any)."""
    if estimator is not None and takes_estimator(baseline):
        return ESTIMATOR_BASELINES[baseline].estimator_code_version(estimator)
    return baseline_class(baseline).code_version()


def learner_kind(criterion: str) -> str:
    """The learner kind a registered criterion declares."""
    from treebench.criteria import criterion_class

    return criterion_class(criterion).learner_kind


def criterion_learner_class(criterion: str, online: bool = False) -> type[Learner]:
    """The learner of a registered criterion (``online``: grown one example at a time)."""
    kind = learner_kind(criterion)
    if kind not in LEARNER_KINDS:
        raise TreebenchError(
            f"criterion {criterion!r} declares learner kind {kind!r}; accepted: {', '.join(LEARNER_KINDS)}"
        )
    if online:
        if kind != "tree":
            raise TreebenchError(f"criterion {criterion!r} has no online tree; online: true needs a 'tree' kind")
        return OnlineLearner
    return LEARNER_KINDS[kind]


def make_learner(
    *,
    criterion: str | None = None,
    baseline: str | None = None,
    pruning: str | None = None,
    online: bool = False,
    random_state: int = 0,
    estimator: str | None = None,
    tune_online: bool = True,
) -> Learner:
    """A fresh learner for one algorithm of a config (exactly one of ``criterion``/``baseline``).

    ``estimator`` is the dotted path a baseline of :data:`ESTIMATOR_BASELINES`
    needs (and any other refuses).  ``tune_online`` (online trees only): the
    grid is tuned with online trees too (else with batch trees); online trees
    feed their examples in an order drawn from ``random_state``, and every
    tree draws its random tie-breaks (``feature_ties: random``) from it.
    """
    if criterion is not None:
        cls = criterion_learner_class(criterion, online)
        if online:
            return cls(criterion, pruning, tune_online=tune_online, random_state=random_state)
        return cls(criterion, pruning, random_state=random_state)
    if baseline is None:
        raise TreebenchError("an algorithm needs a 'criterion' or a 'baseline'")
    if takes_estimator(baseline):
        if estimator is None:
            raise TreebenchError(f"baseline {baseline!r} needs 'estimator:', a dotted class or factory path")
        return ESTIMATOR_BASELINES[baseline](random_state=random_state, estimator=estimator)
    if estimator is not None:
        raise TreebenchError(f"baseline {baseline!r} takes no 'estimator'")
    return baseline_class(baseline)(random_state=random_state)


def declared_metrics() -> dict[str, Metric]:
    """Every extra measure some learner declares, by name."""
    learners = [*LEARNER_KINDS.values(), OnlineLearner, *BASELINES.values()]
    return {m.name: m for cls in learners for m in cls.extra_metrics}


def learner_for(algorithm: Any, random_state: int = 0) -> Learner:
    """:func:`make_learner` for a config's algorithm (anything with its ``criterion``, ``baseline``,
    ``pruning``, ``online``, ``tune_online`` and ``estimator`` attributes)."""
    return make_learner(
        criterion=algorithm.criterion, baseline=algorithm.baseline, pruning=algorithm.pruning,
        online=algorithm.online, tune_online=algorithm.tune_online, random_state=random_state,
        estimator=algorithm.estimator,
    )
