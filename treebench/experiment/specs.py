"""What a validated experiment config is: plain, frozen, picklable dataclasses.

These specs are built by :mod:`treebench.experiment.config` (the validator)
and read by every other part of the experiment layer.  They use the standard
library only, so a worker process can unpickle a trial without importing the
validator, YAML or any learner.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

#: The measures every trial stores in its own column.  Learners may add
#: measures of their own (stored in the open ``measures`` field).
METRICS = (
    "accuracy",
    "error",
    "train_accuracy",
    "n_leaves",
    "n_nodes",
    "depth",
    "fit_seconds",
    "predict_seconds",
    "tree_quality",
)
DEFAULT_METRICS = ("accuracy", "n_leaves")
#: Metrics of the test predictions (:mod:`treebench.stats.prediction_metrics`), computed by the
#: trials of a config that lists them in ``metrics:`` and stored with the learners' own measures.
PREDICTION_METRICS = ("balanced_accuracy", "f1_macro", "kappa", "log_loss", "roc_auc_ovr", "brier")

#: Protocol type -> the keys it accepts besides ``type``.
PROTOCOL_KEYS: dict[str, tuple[str, ...]] = {
    "cv": ("folds", "repeats", "stratified"),
    "holdout": ("test_size", "repeats", "stratified"),
    "loo": (),
    "ordered": ("train_fraction",),
    "fixed": ("column", "train", "test"),
}
#: Protocols a dataset entry brings with it (never written as a config's ``protocol``):
#: ``openml``, the fixed splits of an OpenML task (``openml-task:ID``).
ENTRY_PROTOCOL_KEYS: dict[str, tuple[str, ...]] = {"openml": ("task", "folds", "repeats")}
PRUNING = ("none", "pessimistic", "cost-complexity")
TOP_KEYS = (
    "experiment",
    "description",
    "seed",
    "datasets",
    "protocol",
    "tuning",
    "algorithms",
    "metrics",
    "store",
    "plugins",
    "label_uncertainty",
    "nominal",
    "predictions",
)
#: How nominal attributes reach the learners: as categories (multiway or
#: one-vs-rest splits) or as their category codes, split by thresholds.
NOMINAL_MODES = ("categories", "codes")
DATASET_KEYS = ("name", "train", "test", "protocol")
#: What a dataset entry may name besides a card: an OpenML dataset (by the card
#: that names its id), task (its data and own splits) or suite (its tasks).
OPENML_ENTRIES = ("openml:ID", "openml-task:ID", "openml-suite:ID", "openml-suite:ALIAS")
ALGORITHM_KEYS = (
    "name", "criterion", "baseline", "estimator", "params", "grid", "pruning", "online", "tune_online",
    "tune_as", "tune_on",
)
TUNING_KEYS = ("folds", "metric", "ties")
#: ``tuning.ties``: the rule among grid points of equal inner score (``treebench.experiment.tuning``).
TIE_RULES = ("fewest-leaves", "first", "smallest", "largest", "middle")
#: An algorithm's ``tune_on``: where its grid is scored.  ``test`` is a diagnostic (the outer test
#: split chooses the value it is then scored on: an optimistic bound), never a default.
TUNE_ON = ("inner-cv", "test")
TUNING_METRICS = ("accuracy", *PREDICTION_METRICS)

# Limits on what a config may ask (checked by the validator and ``treebench run``).
#: Largest seed: 2**32 - 1, the range numpy's legacy ``RandomState`` and
#: scikit-learn's ``random_state`` accept, so the seed can be handed to any of
#: them; the store keeps it in a signed 64-bit INTEGER column, which it fits.
MAX_SEED = 2**32 - 1
#: Most folds of an outer or inner cross-validation (leave-one-out covers more).
MAX_FOLDS = 1000
#: Most repeats of a protocol.
MAX_REPEATS = 10_000
#: Most points of one algorithm's grid (the product of its value counts); each
#: is fitted once per inner fold of every tuned trial.
MAX_GRID_POINTS = 10_000
#: Default of ``treebench run --max-trials``: the most trials a config may plan.
MAX_TRIALS = 1_000_000


# --------------------------------------------------------------------------- specs
@dataclass(frozen=True)
class ProtocolSpec:
    """How a dataset is split into training and test parts (see :mod:`treebench.experiment.protocols`)."""

    kind: str
    folds: int = 10
    repeats: int = 1
    stratified: bool = True
    test_size: float = 0.3
    train_fraction: float = 0.8
    column: str = "split"
    train: str = "train"
    test: str = "test"
    #: ``openml``: the OpenML task whose splits these are.
    task: int = 0

    def fields(self) -> dict[str, Any]:
        """The settings that matter for this kind (what identifies the splits)."""
        keys = PROTOCOL_KEYS[self.kind] if self.kind in PROTOCOL_KEYS else ENTRY_PROTOCOL_KEYS[self.kind]
        return {"type": self.kind, **{k: getattr(self, k) for k in keys}}

    @property
    def n_repeats(self) -> int:
        return self.repeats if self.kind in ("cv", "holdout", "openml") else 1

    @property
    def label(self) -> str:
        """Short text for the results' ``protocol`` column, e.g. ``cv10x1``."""
        if self.kind == "cv":
            return f"cv{self.folds}x{self.repeats}" + ("" if self.stratified else "-unstratified")
        if self.kind == "holdout":
            return f"holdout{self.test_size:g}x{self.repeats}" + (
                "" if self.stratified else "-unstratified"
            )
        if self.kind == "ordered":
            return f"ordered{self.train_fraction:g}"
        if self.kind == "fixed":
            return f"fixed:{self.column}" if self.column else "fixed:pair"
        if self.kind == "openml":
            return f"openml:{self.folds}x{self.repeats}"
        return self.kind


#: The protocol of a ``{train: A, test: B}`` dataset entry: A is trained on, B tested.
PAIR_PROTOCOL = ProtocolSpec("fixed", column="")


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset of the config.

    ``label`` is what the config wrote (the results' ``dataset`` column);
    ``name`` (or ``train`` and ``test`` for a pair) are canonical card names,
    which also seed the splits, so an alias gives the same splits as its card.
    An OpenML task (``openml_task``) is named ``openml-task:ID``: its data is
    the task's dataset and target, its protocol (``openml``) the task's splits.
    """

    label: str
    name: str | None
    protocol: ProtocolSpec
    train: str | None = None
    test: str | None = None
    expected_rows: int = 0
    #: ``codes``: nominal attributes become ordered category codes (see NOMINAL_MODES).
    nominal: str = "categories"
    #: The OpenML task id of an ``openml-task:ID`` entry.
    openml_task: int | None = None

    @property
    def is_pair(self) -> bool:
        return self.train is not None

    @property
    def seed_name(self) -> str:
        return self.name if self.name is not None else f"{self.train}+{self.test}"


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm: a criterion or a baseline, fixed params and an optional grid.

    ``params`` and ``grid`` are tuples of pairs in the order written (frozen
    and picklable); ``grid_points`` enumerates the grid with the last
    parameter varying fastest, which is the order ties are broken in.
    """

    name: str
    criterion: str | None = None
    baseline: str | None = None
    params: tuple[tuple[str, Any], ...] = ()
    grid: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    pruning: str | None = None
    #: Grow the final tree online, one training example at a time in a seeded
    #: order (O-ΠTree).
    online: bool = False
    #: With ``online``: tune the grid by cross-validating online trees (every
    #: inner fit is grown one example at a time), the default; ``False`` tunes
    #: it with batch trees of the same criterion and grows only the final tree
    #: online.  Ignored without ``online``.
    tune_online: bool = True
    #: Take the grid values chosen by this other algorithm's inner CV on the
    #: same training part instead of tuning its own grid (e.g. a gain ratio
    #: taking the parameter tuned for its entropy).
    tune_as: AlgorithmSpec | None = None
    #: The dotted path of the classifier class or factory of a baseline that
    #: takes one (``baseline: sklearn``); ``None`` for every other algorithm.
    estimator: str | None = None
    #: Where the grid is scored: ``inner-cv`` (the default) or ``test``, the diagnostic that picks
    #: the value by its accuracy on the outer test split (an optimistic bound; see ``TUNE_ON``).
    tune_on: str = "inner-cv"

    @property
    def tuned_on_test(self) -> bool:
        """Whether the outer test split chooses the grid value (the optimistic-bound diagnostic)."""
        return self.tune_on == "test"

    @property
    def fixed_params(self) -> dict[str, Any]:
        return dict(self.params)

    def grid_points(self) -> list[dict[str, Any]]:
        if not self.grid:
            return [{}]
        names = [name for name, _ in self.grid]
        return [
            dict(zip(names, values)) for values in itertools.product(*(v for _, v in self.grid))
        ]

    def tuning_points(self) -> list[dict[str, Any]]:
        """The grid points tuned for this algorithm: its own, or its ``tune_as`` algorithm's."""
        return (self.tune_as or self).grid_points()

    @property
    def kind(self) -> str:
        return (
            f"criterion:{self.criterion}"
            if self.criterion is not None
            else f"baseline:{self.baseline}"
        )

    def fields(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            # only when set, so the keys of algorithms without one stay as they were
            **({"estimator": self.estimator} if self.estimator is not None else {}),
            "params": dict(self.params),
            "grid": [[name, list(values)] for name, values in self.grid],
            "pruning": self.pruning,
            **({"online": True} if self.online else {}),
            # online-tuned trials get their own keys; batch-tuned ones keep the keys they always had
            **({"tune_online": True} if self.online and self.tune_online else {}),
            **({"tune_as": self.tune_as.fields()} if self.tune_as is not None else {}),
            # only when set: the diagnostic's trials get keys of their own, the others keep theirs
            **({"tune_on": self.tune_on} if self.tuned_on_test else {}),
        }


@dataclass(frozen=True)
class TuningSpec:
    """Inner cross-validation used to pick grid values."""

    folds: int = 5
    metric: str = "accuracy"
    #: The rule among grid points of equal score (``TIE_RULES``).
    ties: str = "fewest-leaves"

    def fields(self) -> dict[str, Any]:
        # the tie rule only when not the default, so the keys of existing results stay valid
        return {"folds": self.folds, "metric": self.metric,
                **({"ties": self.ties} if self.ties != "fewest-leaves" else {})}


@dataclass(frozen=True)
class Config:
    """A validated experiment config."""

    experiment: str
    seed: int
    datasets: tuple[DatasetSpec, ...]
    algorithms: tuple[AlgorithmSpec, ...]
    tuning: TuningSpec = field(default_factory=TuningSpec)
    metrics: tuple[str, ...] = DEFAULT_METRICS
    store: str = ""
    plugins: tuple[str, ...] = ()
    description: str = ""
    path: str = ""
    text: str = ""
    #: Simulated uncertain expert labels, a ``treebench.data.label_uncertainty.LabelUncertainty`` or None.
    label_uncertainty: Any = None
    #: Keep every trial's test predictions and probabilities beside the store (``predictions: true``).
    predictions: bool = False

    @property
    def prediction_metrics(self) -> tuple[str, ...]:
        """The metrics of predictions the trials compute: those listed, and the tuning metric."""
        wanted = [m for m in self.metrics if m in PREDICTION_METRICS]
        if self.tuning.metric in PREDICTION_METRICS and self.tuning.metric not in wanted:
            wanted.append(self.tuning.metric)
        return tuple(wanted)
