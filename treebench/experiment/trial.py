"""One trial: (dataset, algorithm, protocol, repeat, fold, seed) -> :class:`Result`.

:func:`run_trial` is a pure function of its :class:`Trial` (apart from the
timing fields): the split, the inner-CV tuning and the fit all derive from the
trial's fields, so it gives the same numbers in the driver, in a local worker
process or on a Dask worker.  Datasets and splits are cached per process.
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.experiment.outputs import (
    check_predictions,
    check_probabilities,
    learner_name,
    training_classes,
)
from treebench.experiment.plugins import import_plugin
from treebench.experiment.predictions import TrialPredictions
from treebench.experiment.protocols import (
    OPENML_FOLD_COLUMN,
    PAIR_COLUMN,
    inner_splits,
    outer_splits,
)
from treebench.experiment.specs import AlgorithmSpec, DatasetSpec, ProtocolSpec, TuningSpec
from treebench.experiment.tuning import (
    TuningOutcome,
    grid_search,
    label_probabilities,
    test_split_search,
)
from treebench.learners.base import NOMINAL_MODE, Learner
from treebench.sampling import Split, model_seed, rng_for
from treebench.stats.prediction_metrics import score_predictions

#: Bumped when the meaning of a stored trial changes (invalidates every key).
KEY_VERSION = 1


@dataclass(frozen=True)
class Trial:
    """Everything that determines one outer train/test evaluation."""

    key: str
    experiment: str
    dataset: DatasetSpec
    checksum: str
    algorithm: AlgorithmSpec
    tuning: TuningSpec
    seed: int
    repeat: int
    fold: int
    plugins: tuple[str, ...] = ()
    #: Simulated uncertain expert labels: a LabelUncertainty or None.
    label_uncertainty: Any = None
    #: ``tune_as``: key of the tuner's trial on the same dataset, repeat and fold.
    tuner_key: str | None = None
    #: ``tune_as``: the values that trial chose, when the driver has them (not part
    #: of the key: they are what this trial's own search would find).
    tuned: dict[str, Any] | None = None
    #: Metrics of the test predictions to compute (``Config.prediction_metrics``; not part of
    #: the key: they measure the same model).
    metrics: tuple[str, ...] = ()
    #: Return the test predictions and probabilities with the result (``predictions: true``).
    keep_predictions: bool = False

    @property
    def protocol(self) -> ProtocolSpec:
        return self.dataset.protocol


@dataclass(frozen=True)
class Result:
    """What a trial produced; ``status`` is ``"ok"`` or ``"failed"`` (then ``error_text`` says why)."""

    key: str
    status: str
    accuracy: float | None = None
    error: float | None = None
    train_accuracy: float | None = None
    n_leaves: int | None = None
    n_nodes: int | None = None
    depth: int | None = None
    fit_seconds: float | None = None
    predict_seconds: float | None = None
    tune_seconds: float | None = None
    tree_quality: float | None = None
    #: The learner's extra measures (``Learner.extra_metrics``), as JSON ``{name: value}``.
    measures: str = "{}"
    params: str = "{}"
    chosen: str = "{}"
    error_text: str | None = None
    n_train: int | None = None
    n_test: int | None = None
    #: The test predictions (``treebench.experiment.predictions.TrialPredictions``) when the
    #: trial keeps them; the driver writes them beside the store, never into it.
    predictions: Any = None


# --------------------------------------------------------------------------- keys
def code_version(algorithm: AlgorithmSpec) -> dict[str, str]:
    """The code a trial's numbers depend on: treebench's version and the algorithm's implementation.

    For a criterion: its class, an optional ``version`` class attribute (bump
    it when the criterion's behaviour changes) and its parameters' defaults.
    For a baseline: the version of the program or library it runs; with an
    ``estimator`` also that package's version and the estimator's defaults.
    """
    from treebench import __version__

    code = {"treebench": __version__}
    if algorithm.criterion is not None:
        from treebench.criteria import criterion_class
        from treebench.criteria.base import stored_name

        cls = criterion_class(algorithm.criterion)
        # the name the class was first stored under: moving a class between modules keeps its trials
        code["criterion"] = f"{stored_name(cls)}:{getattr(cls, 'version', '')}"
        # A new parameter or a changed default changes the trees even when the
        # config does not change: the declared defaults are part of the code.
        code["criterion_defaults"] = {p.name: p.default for p in cls.all_params() if not p.since_default_keyless}
        source = _plugin_source_digest(cls)
        if source is not None:  # a plugin's file is its code: edited, its trials are new trials
            code["criterion_source"] = source
    else:
        from treebench.learners.registry import baseline_code_version

        # with an estimator: scikit-learn's (and the estimator package's) version, its defaults
        code["baseline"] = baseline_code_version(str(algorithm.baseline), algorithm.estimator)
    return code


def _plugin_source_digest(cls: type) -> str | None:
    """SHA-256 (16 hex digits) of the source of a criterion class defined outside treebench (a
    plugin), or ``None`` for a built-in one (treebench's version stands for its code).

    The source is the plugin's file and the files of its helper modules
    (:func:`treebench.criteria.plugins.helper_files`: the user's own modules it
    imports); without helpers the digest is the file's alone, as before helpers counted.
    """
    import sys

    from treebench.criteria.plugins import helper_files

    module = sys.modules.get(cls.__module__)
    path = getattr(module, "__file__", None)
    if path is None or cls.__module__ == "treebench" or cls.__module__.startswith("treebench."):
        return None
    try:
        digest = hashlib.sha256(Path(path).read_bytes())
        folder = Path(path).resolve().parent
        for helper in helper_files(cls.__module__, Path(path)):
            # its place as well as its bytes: a helper moved, or another one, is other code
            name = str(helper.relative_to(folder)) if folder in helper.parents else str(helper)
            digest.update(b"\0" + name.encode() + b"\0" + helper.read_bytes())
        return digest.hexdigest()[:16]
    except OSError:
        return None


def trial_key(
    experiment: str,
    dataset: DatasetSpec,
    checksum: str,
    algorithm: AlgorithmSpec,
    tuning: TuningSpec,
    seed: int,
    repeat: int,
    fold: int,
    label_uncertainty: Any = None,
) -> str:
    """SHA-256 of everything that determines a trial (canonical JSON)."""
    payload = {
        "v": KEY_VERSION,
        "experiment": experiment,
        "dataset": {
            "label": dataset.label,
            "name": dataset.seed_name,
            "checksum": checksum,
            # only when not the default, so the keys of existing results stay valid
            **({"nominal": dataset.nominal} if dataset.nominal != "categories" else {}),
        },
        "protocol": dataset.protocol.fields(),
        "algorithm": algorithm.fields(),
        "tuning": tuning.fields() if len(algorithm.tuning_points()) > 1 else None,
        "seed": seed,
        "repeat": repeat,
        "fold": fold,
        "code": code_version(algorithm),
    }
    if label_uncertainty is not None:  # only then: other trials keep their keys
        payload["label_uncertainty"] = label_uncertainty.fields()
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- per-process caches
@dataclass
class LoadedData:
    """Features, labels and non-feature columns of a dataset entry, with its checksum."""

    X: pd.DataFrame
    y: np.ndarray
    extra: pd.DataFrame
    checksum: str


_DATA: OrderedDict[tuple, LoadedData] = OrderedDict()
_SPLITS: OrderedDict[tuple, list[Split]] = OrderedDict()
_CACHE_SIZE = 4


def _remember(cache: OrderedDict, key: tuple, value: Any) -> Any:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return value


def load_data(spec: DatasetSpec) -> LoadedData:
    """Load a dataset entry (cached per process); a pair is train rows then test rows.

    An OpenML task (``spec.openml_task``) is its dataset with the task's
    target; its extra columns are the task's splits (one column per repeat,
    see :func:`treebench.experiment.protocols.openml_task`), and its checksum
    covers both the table and the splits.
    """
    from treebench.data import load
    from treebench.data.settings import Settings

    # where the data comes from is part of the key: another mirror may hold another copy
    where = Settings.from_env()
    key = (
        spec.name, spec.train, spec.test, spec.nominal, spec.openml_task,
        where.card_folders, where.mirrors, where.cache_dir, where.openml_server,
    )
    if key in _DATA:
        _DATA.move_to_end(key)
        return _DATA[key]
    if spec.openml_task is not None:
        data = _openml_task(spec.openml_task, where)
    elif not spec.is_pair:
        ds = load(str(spec.name))
        data = LoadedData(ds.X, ds.y, ds.extra, ds.checksum)
    else:
        data = _pair(load(str(spec.train)), load(str(spec.test)))
    if spec.nominal == "codes":
        data = replace(data, X=nominal_as_codes(data.X))
    return _remember(_DATA, key, data)


def _openml_task(task_id: int, settings: Any) -> LoadedData:
    from treebench.data.openml import load_task

    task = load_task(task_id, settings)
    ds = task.dataset
    extra = pd.DataFrame({OPENML_FOLD_COLUMN.format(r): codes for r, codes in enumerate(task.test_folds)})
    digest = hashlib.sha256(f"openml-task:{task_id}:{ds.checksum}".encode())
    for codes in task.test_folds:
        digest.update(codes.astype("<i8").tobytes())
    return LoadedData(ds.X, ds.y, extra, digest.hexdigest())


def nominal_as_codes(X: pd.DataFrame) -> pd.DataFrame:
    """Nominal columns as ordered categoricals: learners split them by thresholds on the codes.

    The category order is the card's (its declared order, else sorted), so a
    code is the category's position; missing values stay missing.  This is
    how a learner that only takes numbers (scikit-learn's trees, or a paper's
    own implementation) sees label-encoded categorical attributes.
    """
    out = X.copy()
    for name in out.columns:
        dtype = out[name].dtype
        if isinstance(dtype, pd.CategoricalDtype):
            if not dtype.ordered:
                out[name] = out[name].cat.as_ordered()
        elif pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            categories = sorted(out[name].dropna().unique().tolist())
            out[name] = pd.Categorical(out[name], categories=categories, ordered=True)
    # ordinal attributes are ordered categoricals too: the mark tells a learner that keeps
    # ordinal attributes nominal (c4.5, as J48 reading ARFF) to use these as numbers
    out.attrs[NOMINAL_MODE] = "codes"
    return out


def _pair(train, test) -> LoadedData:
    if list(train.X.columns) != list(test.X.columns) or any(
        train.X[c].dtype != test.X[c].dtype for c in train.X.columns
    ):
        raise TreebenchError(
            f"datasets {train.name!r} and {test.name!r} do not have the same columns and types; "
            "a train/test pair needs identical features"
        )
    classes = list(train.classes) + [c for c in test.classes if c not in train.classes]
    code = {name: i for i, name in enumerate(classes)}
    remap = np.array([code[c] for c in test.classes], dtype=np.int64)
    X = pd.concat([train.X, test.X], ignore_index=True)
    y = np.concatenate([np.asarray(train.y, dtype=np.int64), remap[np.asarray(test.y)]])
    extra = pd.DataFrame({PAIR_COLUMN: ["train"] * len(train.y) + ["test"] * len(test.y)})
    checksum = hashlib.sha256(f"pair:{train.checksum}:{test.checksum}".encode()).hexdigest()
    return LoadedData(X, y, extra, checksum)


def trial_labels(trial: Trial, data: LoadedData) -> tuple[np.ndarray, np.ndarray]:
    """Every example's label masses ``(n, k + 1)`` and crisp label codes.

    Without ``label_uncertainty`` the data's labels, as one-hot masses; with
    it the simulated expert labels (seeded per dataset, the same for every
    fold and algorithm), whose crisp labels can differ from the data's.
    """
    from treebench.data.label_uncertainty import (
        LABEL_STREAM,
        crisp_label_masses,
        simulate_label_masses,
    )

    if trial.label_uncertainty is None:
        return crisp_label_masses(data.y, int(np.max(data.y)) + 1), data.y
    rng = rng_for(trial.seed, trial.dataset.seed_name, 0, LABEL_STREAM)
    return simulate_label_masses(data.y, trial.label_uncertainty, rng)


def outer_split(trial: Trial, data: LoadedData) -> Split:
    """The trial's (train, test) rows; splits of a repeat are computed once per process."""
    protocol = trial.protocol
    if protocol.kind == "loo":  # n splits of n-1 rows: build only the one needed
        n = len(data.y)
        return np.delete(np.arange(n), trial.fold), np.array([trial.fold])
    key = (protocol, trial.seed, trial.dataset.seed_name, data.checksum, trial.repeat)
    splits = _SPLITS.get(key)
    if splits is None:
        splits = outer_splits(
            protocol, trial.seed, trial.dataset.seed_name, data.y, data.extra, trial.repeat
        )
        _remember(_SPLITS, key, splits)
    return splits[trial.fold]


def make_learner(trial: Trial) -> Learner:
    """The trial's learner, as the registry maps its algorithm (criterion kind or baseline)."""
    from treebench.learners.registry import make_learner as registry_learner

    algorithm = trial.algorithm
    return registry_learner(
        criterion=algorithm.criterion,
        baseline=algorithm.baseline,
        pruning=algorithm.pruning,
        online=algorithm.online,
        tune_online=algorithm.tune_online,
        random_state=model_seed(trial.seed, trial.dataset.seed_name, trial.repeat, trial.fold),
        estimator=algorithm.estimator,
    )


# --------------------------------------------------------------------------- running
def run_trial(trial: Trial) -> Result:
    """Run one trial; any exception becomes a ``failed`` result (the run goes on)."""
    try:
        return _run(trial)
    # a trial's failure is data, not a crash of the run; SystemExit comes from user code
    # (a plugin, an estimator) calling sys.exit: an error too.  Ctrl-C still stops the run.
    except (Exception, SystemExit) as exc:
        params = json.dumps(trial.algorithm.fixed_params, sort_keys=True)
        return Result(key=trial.key, status="failed", params=params, error_text=describe_error(exc))


def describe_error(exc: BaseException) -> str:
    """``Type: message (at file.py:line in function)``: deterministic, no absolute paths."""
    text = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    if isinstance(exc, SystemExit):
        text = f"SystemExit({exc.code!r}): user code (a plugin or an estimator) called sys.exit"
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        text += f" (at {Path(last.filename).name}:{last.lineno} in {last.name})"
    return text


def _run(trial: Trial) -> Result:
    for plugin in trial.plugins:
        import_plugin(plugin)
    data = load_data(trial.dataset)
    if data.checksum != trial.checksum:
        raise TreebenchError(
            f"dataset {trial.dataset.label!r} here has checksum {data.checksum[:12]}, the driver's has "
            f"{trial.checksum[:12]}: every worker must load the same copy (check TREEBENCH_DATA)"
        )
    train, test = outer_split(trial, data)
    labels, masses = data.y, None
    if trial.label_uncertainty is not None:  # simulated expert labels, for every learner
        masses, labels = trial_labels(trial, data)
    X_train, y_train = data.X.iloc[train], labels[train]
    X_test, y_test = data.X.iloc[test], labels[test]
    learner = make_learner(trial)
    if learner.uses_label_masses:  # None: crisp labels
        learner.use_label_masses(masses, data.X.index)
    # every class of the dataset (a learner of label masses may give weight to one no crisp label has)
    label_set = np.arange(np.asarray(masses).shape[1] - 1) if masses is not None else np.unique(labels)
    fixed = trial.algorithm.fixed_params
    # tune_as: the grid is another algorithm's, searched with that algorithm's
    # learner on the same inner splits; only the chosen values are used here.
    tuner = trial.algorithm.tune_as
    points = trial.algorithm.tuning_points()

    started = time.perf_counter()
    seed = model_seed(trial.seed, trial.dataset.seed_name, trial.repeat, trial.fold)
    model = None  # the test-split diagnostic grows the chosen tree while searching
    if tuner is not None and trial.tuned is not None:
        # the tuner's trial searched the same grid on the same splits already
        grid_keys = set().union(*points) if points else set()
        outcome = TuningOutcome(chosen={k: v for k, v in trial.tuned.items() if k in grid_keys})
    elif (tuner or trial.algorithm).tuned_on_test and len(points) > 1:
        # diagnostic (an optimistic bound): the outer test split picks the grid value (a tune_as
        # algorithm is tuned where its tuner is)
        searcher = learner if tuner is None else make_learner(replace(trial, algorithm=tuner))
        outcome, found = test_split_search(searcher, (tuner or trial.algorithm).fixed_params, points, X_train,
                                           y_train, X_test, y_test, seed, trial.tuning.metric, label_set,
                                           trial.tuning.ties)
        model = found if tuner is None else None
    else:
        inner = []
        if len(points) > 1:
            name = trial.dataset.seed_name
            inner = inner_splits(y_train, trial.tuning.folds, trial.seed, name, trial.repeat, trial.fold)
        metric, ties = trial.tuning.metric, trial.tuning.ties
        if tuner is None:
            outcome = grid_search(learner, fixed, points, X_train, y_train, inner, metric, label_set, ties)
        else:
            tuner_learner = make_learner(replace(trial, algorithm=tuner))
            outcome = grid_search(tuner_learner, tuner.fixed_params, points, X_train, y_train, inner, metric,
                                  label_set, ties)
    tune_seconds = time.perf_counter() - started

    params = {**fixed, **outcome.chosen}
    started = time.perf_counter()
    if model is None:
        learner.will_predict(X_test, X_train)  # an external program can predict in the same call
        model = learner.fit_final(params, X_train, y_train, seed)
    fit_seconds = time.perf_counter() - started
    chosen = {**outcome.chosen, **learner.chosen(model)}  # incl. values a learner tuned itself
    params = {**params, **chosen}
    started = time.perf_counter()
    predicted = learner.predict(model, X_test)
    predict_seconds = time.perf_counter() - started
    who, classes = learner_name(trial.algorithm), training_classes(learner, y_train, masses)
    predicted = check_predictions(predicted, len(y_test), classes, who)
    if trial.algorithm.estimator:  # a third party's classifier: its probabilities too
        check_probabilities(model, X_test, learner, who)
    accuracy = float(np.count_nonzero(predicted == y_test) / len(y_test))
    train_predicted = check_predictions(learner.predict(model, X_train), len(y_train), classes, who)
    train_accuracy = float(np.count_nonzero(train_predicted == y_train) / len(y_train))
    measures = learner.measures(model)
    extra: dict[str, float] = {}
    if learner.extra_metrics:  # against the test labels as masses (one-hot when crisp)
        all_masses = masses if masses is not None else trial_labels(trial, data)[0]
        extra = learner.extra_measures(model, X_test, all_masses[test])
    kept = None
    if trial.metrics or trial.keep_predictions:
        proba = label_probabilities(learner, model, X_test, label_set)
        scores = score_predictions(trial.metrics, y_test, predicted, proba, label_set)
        extra.update({name: value for name, value in scores.items() if np.isfinite(value)})
        if trial.keep_predictions:
            kept = TrialPredictions.from_labels(test, y_test, predicted, label_set, proba)
    quality = measures["tree_quality"]
    return Result(
        key=trial.key,
        status="ok",
        accuracy=accuracy,
        error=1.0 - accuracy,
        train_accuracy=train_accuracy,
        n_leaves=measures["n_leaves"],
        n_nodes=measures["n_nodes"],
        depth=measures["depth"],
        fit_seconds=fit_seconds,
        predict_seconds=predict_seconds,
        tune_seconds=tune_seconds,
        tree_quality=None if quality is None else float(quality),
        measures=json.dumps(extra, sort_keys=True),
        params=json.dumps(params, sort_keys=True),
        chosen=json.dumps(chosen, sort_keys=True),
        n_train=len(train),
        n_test=len(test),
        predictions=kept,
    )
