"""Plan the trials of a config, skip finished ones, run the rest, summarise.

The driver (this module) loads each dataset once to learn its checksum and
size, builds every :class:`~treebench.experiment.trial.Trial` with its key,
asks the store which keys are finished and hands the others to an executor.
It is the only writer of the store: each result is committed as it arrives.

A store belongs to one experiment (:func:`experiment_identity`) and pins the
content of every dataset label it holds trials of; the run checks both before
it loads any data (read-only) and again under the store's lock, before the
first write.
"""

from __future__ import annotations

import json
import math
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import numpy as np

from treebench.errors import TreebenchError
from treebench.experiment import predictions
from treebench.experiment.config import Config, check_trial_count, load_config
from treebench.experiment.executors import Executor, count_interrupt, make_executor
from treebench.experiment.protocols import n_folds, outer_splits
from treebench.experiment.specs import MAX_TRIALS
from treebench.experiment.store import ResultsStore, check_run, now, row_problem
from treebench.experiment.trial import Result, Trial, load_data, trial_key
from treebench.text_table import format_table

if TYPE_CHECKING:
    import pandas as pd

Echo = Callable[[str], None]


@dataclass
class RunSummary:
    """What a run did; ``exit_code`` is 0, 1 (some trial failed) or 130 (interrupted)."""

    planned: int = 0
    done: int = 0
    skipped: int = 0
    failed: int = 0
    interrupted: bool = False
    wall_seconds: float = 0.0
    store: str = ""
    failures: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return 130
        return 1 if self.failed else 0

    @property
    def rate(self) -> float:
        return self.done / self.wall_seconds if self.wall_seconds > 0 else 0.0


# --------------------------------------------------------------------------- identity
def experiment_identity(config: Config) -> dict[str, Any]:
    """What makes a store this experiment's: its name and the settings every trial shares.

    Those are the config's top-level settings that shape trials: ``seed``,
    ``tuning``, ``label_uncertainty``, ``nominal`` and the top-level
    ``protocol`` (only when some dataset uses it).  The ``datasets`` and
    ``algorithms`` entries are not part of it: adding, removing or editing
    one (its grid, params, own protocol) only adds trials to the store.
    ``description``, ``metrics``, ``store`` and ``plugins`` change no trial.
    """
    identity: dict[str, Any] = {
        "experiment": config.experiment,
        "seed": config.seed,
        "tuning": config.tuning.fields(),
        "label_uncertainty": None if config.label_uncertainty is None else config.label_uncertainty.fields(),
        # the top-level `nominal` is copied into every dataset entry
        "nominal": config.datasets[0].nominal if config.datasets else "categories",
    }
    shared = _shared_protocol(config)
    if shared is not None:
        identity["protocol"] = shared
    return identity


def _shared_protocol(config: Config) -> dict[str, Any] | None:
    """The top-level protocol's settings, as resolved for the first dataset that uses it.

    The validated config keeps a protocol per dataset only; the YAML tells
    which entries took the top-level one.  None when no dataset does (then it
    defines no trial) or the config has no YAML text (built in code).
    """
    import yaml

    try:
        data = yaml.safe_load(config.text) if config.text else None
    except yaml.YAMLError:
        return None
    entries = data.get("datasets") if isinstance(data, dict) and "protocol" in data else None
    if not isinstance(entries, list) or len(entries) != len(config.datasets):
        return None
    for entry, spec in zip(entries, config.datasets):
        if spec.protocol.kind == "openml":  # a task's own splits, whatever the top level says
            continue
        if not isinstance(entry, dict) or not {"protocol", "train", "test"} & set(entry):
            return spec.protocol.fields()
    return None


# --------------------------------------------------------------------------- planning
def trees_per_trial(algorithm: Any, tuning_folds: int) -> tuple[int, bool]:
    """``(trees, known)``: the trees one trial of ``algorithm`` grows (its grid's inner fits and the final
    fit, each as many as the learner grows in one fit); ``known`` is ``False`` when the learner cannot tell
    (then one tree per fit is counted)."""
    from treebench.learners.registry import learner_for

    points = len(algorithm.tuning_points())
    # a baseline that tunes itself grows many trees in each of its fits
    own = learner_for(algorithm).fits_per_trial(dict(algorithm.params))
    per_fit = 1 if own is None else own
    if points > 1 and (algorithm.tune_as or algorithm).tuned_on_test:  # one final tree per grid point
        return per_fit * points, own is not None
    return per_fit * (1 + (points * tuning_folds if points > 1 else 0)), own is not None


def _expected_cost(config: Config) -> Callable[[Trial], float]:
    """A sort key putting the costliest trials first: minus trees grown x rows x columns of the data.

    A rough guess (tree growth is about linear in the cells), enough to start
    the long trials (a tuned tree on the largest set) before the short ones.
    """
    trees = {a.name: trees_per_trial(a, config.tuning.folds)[0] for a in config.algorithms}
    cells: dict[str, float] = {}

    def key(trial: Trial) -> float:
        label = trial.dataset.label
        if label not in cells:
            X = load_data(trial.dataset).X
            cells[label] = float(X.shape[0]) * max(X.shape[1], 1)
        return -trees.get(trial.algorithm.name, 1) * cells[label]

    return key


def plan(config: Config) -> list[Trial]:
    """Every trial of the config, ordered dataset, repeat, fold, algorithm.

    Loads each dataset in the driver (for its checksum and row count) and
    computes the first repeat's splits once, so protocol problems (and a
    dataset with a single class) are reported before anything runs.
    """
    trials = []
    for dataset in config.datasets:
        data = load_data(dataset)
        if len(np.unique(np.asarray(data.y))) < 2:
            found = f"a single class in its {len(data.y)} rows" if len(data.y) else "no rows"
            raise TreebenchError(
                f"{config.path}: dataset {dataset.label!r} has {found}; "
                "every dataset needs two classes or more: remove it from datasets"
            )
        protocol = dataset.protocol
        if protocol.kind != "loo":
            try:
                outer_splits(protocol, config.seed, dataset.seed_name, data.y, data.extra, 0)
            except TreebenchError as exc:
                raise TreebenchError(f"{config.path}: dataset {dataset.label!r}: {exc}") from None
        for repeat in range(protocol.n_repeats):
            for fold in range(n_folds(protocol, len(data.y))):
                keys = {
                    algorithm.name: trial_key(
                        config.experiment,
                        dataset,
                        data.checksum,
                        algorithm,
                        config.tuning,
                        config.seed,
                        repeat,
                        fold,
                        config.label_uncertainty,
                    )
                    for algorithm in config.algorithms
                }
                for algorithm in config.algorithms:
                    trials.append(
                        Trial(
                            key=keys[algorithm.name],
                            experiment=config.experiment,
                            dataset=dataset,
                            checksum=data.checksum,
                            algorithm=algorithm,
                            tuning=config.tuning,
                            seed=config.seed,
                            repeat=repeat,
                            fold=fold,
                            plugins=config.plugins,
                            label_uncertainty=config.label_uncertainty,
                            tuner_key=None if algorithm.tune_as is None else keys[algorithm.tune_as.name],
                            metrics=config.prediction_metrics,
                            keep_predictions=config.predictions,
                        )
                    )
    return trials


def dry_run(config: Config, store_path: str, echo: Echo) -> None:
    """Print trials per dataset and algorithm without loading data or running anything.

    The store is only read; one the run would refuse (another experiment's)
    is refused here too.
    """

    finished = check_run(store_path, experiment_identity(config), busy_ok=True)
    rows = []
    total_trials = total_fits = 0
    unknown: list[str] = []
    for dataset in config.datasets:
        protocol = dataset.protocol
        trials = protocol.n_repeats * n_folds(protocol, dataset.expected_rows)
        for algorithm in config.algorithms:
            points = len(algorithm.tuning_points())
            per_trial, known = trees_per_trial(algorithm, config.tuning.folds)
            own = None if not known else per_trial
            if own is None and algorithm.name not in unknown:
                unknown.append(algorithm.name)
            rows.append(
                [
                    dataset.label,
                    protocol.label,
                    algorithm.name,
                    str(trials),
                    str(points),
                    f"{per_trial * trials}{'+' if own is None else ''}",
                ]
            )
            total_trials += trials
            total_fits += per_trial * trials
    echo(f"experiment {config.experiment} ({config.path}), seed {config.seed}")
    echo(
        format_table(
            ["dataset", "protocol", "algorithm", "trials", "grid", "fits"], rows, numeric=(3, 4, 5)
        )
    )
    echo(f"total: {total_trials} trials, {total_fits}{'+' if unknown else ''} tree fits; store {store_path}")
    if unknown:
        echo(f"{', '.join(unknown)}: fits its own search or cross-validation; counted as one fit per fit call (+)")
    if Path(store_path).exists():
        echo(f"the store already holds {finished} finished trials (rerun skips those of this config)")


def warn_unavailable(config: Config, echo: Echo) -> None:
    """Say up front when a baseline's external program is missing (its trials will fail)."""
    from treebench.learners.registry import baseline_class

    for name in sorted({str(a.baseline) for a in config.algorithms if a.baseline is not None}):
        reason = baseline_class(name).availability()
        if reason:
            echo(f"warning: {reason}")


def _warn_without_predictions(store_path: str, finished: list[str], echo: Echo) -> None:
    """Say when finished trials kept no predictions though the config now asks for them.

    They are not rerun: a trial's key does not include ``predictions``, and rerunning a finished
    trial would replace its stored results (timings differ) behind the user's back; ``--force``
    does it when asked.
    """
    lacking = predictions.missing(store_path, finished)
    if lacking:
        n = len(lacking)
        has, are = ("has", "is") if n == 1 else ("have", "are")
        echo(f"warning: {n} finished trial{'s' * (n != 1)} of the store {has} no kept predictions file (run before "
             f"the config said predictions: true, or the file removed since) and {are} not rerun; run again with "
             "--force to rerun every trial and keep them")


def declared_measures(config: Config) -> list:
    """The extra measures the config's learners record (their definitions go into the store)."""
    from treebench.learners.registry import baseline_class, criterion_learner_class
    from treebench.stats.prediction_metrics import PREDICTION_METRICS as SCORERS

    metrics = [SCORERS[name].metric for name in config.prediction_metrics]
    for a in config.algorithms:
        if a.criterion is not None:
            metrics.extend(criterion_learner_class(a.criterion, a.online).extra_metrics)
        else:
            metrics.extend(baseline_class(str(a.baseline)).extra_metrics)
    return metrics


# --------------------------------------------------------------------------- running
def run_experiment(
    config_path: str | Path | Config,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    force: bool = False,
    store_path: str | Path | None = None,
    quiet: bool = False,
    dry: bool = False,
    echo: Echo = click.echo,
    table: bool = True,
    max_trials: int = MAX_TRIALS,
) -> RunSummary:
    """Run (or with ``dry`` only describe) the experiment of a config file (or a loaded :class:`Config`).

    A config planning more than ``max_trials`` trials is refused before
    anything runs.  Returns a :class:`RunSummary`; user errors raise
    :class:`TreebenchError`.
    """
    started = time.perf_counter()
    config = config_path if isinstance(config_path, Config) else load_config(config_path)
    store_path = str(store_path or config.store)
    warn_unavailable(config, echo)
    if dry:
        dry_run(config, store_path, echo)
        return RunSummary(store=store_path)
    check_trial_count(config, max_trials)
    identity = experiment_identity(config)
    check_run(store_path, identity)  # a foreign or unusable store stops the run before any data is loaded
    if config.predictions:  # before the store is created: a refused run leaves nothing behind
        predictions.check_place(store_path)
    trials = plan(config)
    # the content each dataset label is pinned to; --force does not lift the check
    checksums = {t.dataset.label: t.checksum for t in trials}
    with ResultsStore(store_path, create=True, identity=identity, datasets=checksums) as store:
        finished = set() if force else store.ok_keys()
        todo = [t for t in trials if t.key not in finished]
        # Longest first (trees grown x cells of the dataset): the costly trials do not
        # end up alone at the tail of the run while other workers sit idle.
        todo.sort(key=_expected_cost(config))
        summary = RunSummary(planned=len(trials), skipped=len(trials) - len(todo), store=store_path)
        if config.predictions and not force:
            _warn_without_predictions(store_path, [t.key for t in trials if t.key in finished], echo)
        meta = store.meta()
        from treebench import __version__

        store.set_meta(
            experiment=config.experiment,
            config=config.text,
            config_path=str(config.path),
            treebench_version=__version__,
            created_at=meta.get("created_at", now()),
            updated_at=now(),
        )
        store.declare_measures(declared_measures(config))
        if todo:
            executor = make_executor(jobs, scheduler)
            run_id = store.start_run(executor.describe(), len(trials), summary.skipped)
            _execute(todo, executor, store, force, summary, config, quiet)
            summary.wall_seconds = time.perf_counter() - started
            store.finish_run(
                run_id, summary.done, summary.failed, summary.interrupted, summary.wall_seconds
            )
        summary.wall_seconds = time.perf_counter() - started
        if table and not summary.interrupted:
            frame = store.to_frame(keys={t.key for t in trials})
            text = comparison_table(
                frame,
                config.metrics,
                [d.label for d in config.datasets],
                [a.name for a in config.algorithms],
            )
            if text:
                echo(text)
    echo(summary_line(config, summary))
    summary.failures.sort()
    for line in summary.failures[:10]:
        echo(f"  failed: {line}")
    if len(summary.failures) > 10:
        echo(f"  ... and {len(summary.failures) - 10} more (see status/error_text in the store)")
    return summary


def checked(result: Result) -> Result:
    """``result``, or a failed result naming the first value outside its domain (:func:`row_problem`)."""
    # the kept predictions are arrays written beside the store, not a stored value
    problem = row_problem({f.name: getattr(result, f.name) for f in fields(result) if f.name != "predictions"})
    if problem is None:
        return result
    return Result(
        key=result.key, status="failed", params=result.params,
        error_text=f"TreebenchError: the trial's result is outside its domain: {problem}",
    )


def _row(trial: Trial, result: Result) -> dict:
    return {
        "experiment": trial.experiment,
        "dataset": trial.dataset.label,
        "algorithm": trial.algorithm.name,
        "protocol": trial.protocol.label,
        "repeat": trial.repeat,
        "fold": trial.fold,
        "seed": trial.seed,
        "status": result.status,
        "accuracy": result.accuracy,
        "error": result.error,
        "train_accuracy": result.train_accuracy,
        "n_leaves": result.n_leaves,
        "n_nodes": result.n_nodes,
        "depth": result.depth,
        "fit_seconds": result.fit_seconds,
        "predict_seconds": result.predict_seconds,
        "tree_quality": result.tree_quality,
        "measures": result.measures,
        "params": result.params,
        "error_text": result.error_text,
        "trial_key": trial.key,
        "finished_at": now(),
        "chosen": result.chosen,
        "tune_seconds": result.tune_seconds,
        "n_train": result.n_train,
        "n_test": result.n_test,
        "dataset_checksum": trial.checksum,
        # the readers of the kept file check it against this (a file swapped in from another trial)
        "predictions_sha256": None if result.predictions is None else predictions.checksum(result.predictions, trial.key),
    }


class _TunedFirst:
    """The run's trials in order, except that a ``tune_as`` trial waits for its tuner.

    When the tuner's trial is part of this run, the dependent trial is held
    back until that trial finishes and then takes its chosen values instead of
    repeating the same grid search (identical by construction: same grid,
    learner and inner splits).  If the tuner failed, or is not in this run
    (already stored), the dependent trial searches itself.
    """

    def __init__(self, todo: list[Trial]) -> None:
        self._queue = deque(todo)
        self._ready: deque[Trial] = deque()
        # tuners that are part of this run and have not finished yet
        self._pending = {t.tuner_key for t in todo if t.tuner_key is not None} & {t.key for t in todo}
        self._waiting: dict[str, list[Trial]] = {}
        self._tuned: dict[str, dict | None] = {}  # finished tuners' chosen values (None: failed)

    def next(self) -> Trial | None:
        """The next trial to submit, or ``None`` when nothing can be submitted now."""
        if self._ready:
            return self._ready.popleft()
        while self._queue:
            trial = self._queue.popleft()
            tuner = trial.tuner_key
            if tuner is not None and tuner in self._pending:
                self._waiting.setdefault(tuner, []).append(trial)
                continue
            if tuner is not None and tuner in self._tuned:
                return replace(trial, tuned=self._tuned[tuner])
            return trial
        return None

    def finished(self, trial: Trial, result: Result) -> None:
        """Release the trials waiting for ``trial``, with its chosen values if it succeeded."""
        if trial.key not in self._pending:
            return
        self._pending.discard(trial.key)
        tuned = json.loads(result.chosen) if result.status == "ok" else None
        self._tuned[trial.key] = tuned
        for waiting in self._waiting.pop(trial.key, []):
            self._ready.append(replace(waiting, tuned=tuned))

    def drop(self) -> int:
        """Forget every trial not yet submitted (interrupt); returns how many."""
        count = len(self._queue) + len(self._ready) + sum(len(w) for w in self._waiting.values())
        self._queue.clear()
        self._ready.clear()
        self._waiting.clear()
        return count


class _Interrupt(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C."""


def _execute(
    todo: list[Trial],
    executor: Executor,
    store: ResultsStore,
    force: bool,
    summary: RunSummary,
    config: Config,
    quiet: bool,
) -> None:
    from tqdm import tqdm

    class Bar(tqdm):
        # tqdm's monitor is a thread; a driver with a thread alive cannot fork
        # its workers (experiment/pool.py) and would wait for the fork server
        monitor_interval = 0

    bar = Bar(
        total=len(todo),
        unit="trial",
        desc=config.experiment,
        disable=quiet,
        file=sys.stderr,
        dynamic_ncols=True,
        mininterval=0.5,
        smoothing=0.05,
    )
    queue = _TunedFirst(todo)

    def collect() -> None:
        for trial, result in executor.wait():
            result = checked(result)  # a value outside its domain fails the trial, never the run
            queue.finished(trial, result)
            if result.predictions is not None:  # whole on disk before the row that says the trial is done
                predictions.write(store.path, trial.key, result.predictions)
            store.record(_row(trial, result), force=force)
            summary.done += 1
            if result.status != "ok":
                summary.failed += 1
                summary.failures.append(
                    f"{trial.dataset.label} / {trial.algorithm.name} repeat {trial.repeat} fold {trial.fold}: "
                    f"{result.error_text}"
                )
                bar.set_postfix(failed=summary.failed)
            bar.update(1)

    previous = _on_sigterm()
    try:
        try:
            while True:
                while executor.in_flight() < executor.capacity:
                    trial = queue.next()
                    if trial is None:
                        break
                    executor.submit(trial)
                if executor.in_flight() == 0:
                    break
                collect()
        except KeyboardInterrupt:
            summary.interrupted = True
            dropped = executor.cancel_pending() + queue.drop()
            running = executor.in_flight()
            bar.write(
                f"interrupted: {dropped} queued trials dropped; finishing {running} in flight "
                "(Ctrl-C again to abort them)",
                file=sys.stderr,
            )
            try:
                while executor.in_flight():
                    collect()
            except KeyboardInterrupt:
                executor.shutdown(abort=True)
                return
        except TreebenchError:
            # the store or the predictions folder refused a write (a full disk): nothing more can be
            # kept, so the workers stop now; the trials committed so far stay in the store
            executor.cancel_pending()
            queue.drop()
            executor.shutdown(abort=True)
            raise
        executor.shutdown()
    finally:
        bar.close()
        _restore_sigterm(previous)


def _on_sigterm():
    """Handle SIGTERM like Ctrl-C, and count both (:func:`executors.run_in_driver`); the previous handlers."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def on_term(signum, frame):  # noqa: ANN001
        count_interrupt()
        raise _Interrupt()

    def on_int(signum, frame):  # noqa: ANN001
        count_interrupt()
        raise KeyboardInterrupt

    previous_int = signal.getsignal(signal.SIGINT)
    if previous_int is signal.default_int_handler:  # an ignored or custom Ctrl-C stays as it is
        signal.signal(signal.SIGINT, on_int)
    return signal.signal(signal.SIGTERM, on_term), previous_int


def _restore_sigterm(previous) -> None:  # noqa: ANN001
    if previous is not None:
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1])


# --------------------------------------------------------------------------- reporting
def summary_line(config: Config, summary: RunSummary) -> str:
    state = "interrupted" if summary.interrupted else "finished"
    rate = f", {summary.rate:.2f} trials/s" if summary.done else ""
    return (
        f"{config.experiment} {state}: {summary.done} done, {summary.skipped} skipped, "
        f"{summary.failed} failed of {summary.planned} trials in {summary.wall_seconds:.1f}s{rate}; "
        f"store {summary.store}"
    )




def comparison_table(
    frame,
    metrics: tuple[str, ...] | list[str],
    datasets: list[str] | None = None,
    algorithms: list[str] | None = None,
) -> str:
    """Dataset x algorithm: mean ± std of each metric over the finished trials.

    Rows follow ``datasets`` and ``algorithms`` (default: first-seen order).
    Accuracy-like metrics are shown in percent.  Kept deliberately small:
    ``treebench compare`` gives the statistics.
    """
    from treebench.stats.metrics import frame_metrics, get_metric

    ok = frame[frame["status"] == "ok"]
    if ok.empty:
        return ""
    extra = frame_metrics(frame)
    percent = {m for m in metrics if get_metric(m, extra).unit == "%"}
    rows = []
    datasets = datasets or list(dict.fromkeys(frame["dataset"]))
    algorithms = algorithms or list(dict.fromkeys(frame["algorithm"]))
    for dataset in datasets:
        part = ok[ok["dataset"] == dataset]
        for algorithm in algorithms:
            cells = part[part["algorithm"] == algorithm]
            if cells.empty and not (frame["dataset"] == dataset).any():
                continue
            row = [dataset, algorithm, str(len(cells))]
            for metric in metrics:
                values = cells[metric].dropna() if metric in cells.columns else cells["status"].iloc[:0]
                row.append(_cell(values, metric, metric in percent))
            rows.append(row)
    headers = [
        "dataset",
        "algorithm",
        "trials",
        *(f"{m} %" if m in percent else m for m in metrics),
    ]
    return format_table(headers, rows, numeric=tuple(range(2, len(headers))))


def _cell(values, metric: str, percent: bool) -> str:
    if values.empty:
        return "-"
    scale = 100.0 if percent else 1.0
    mean = float(values.mean()) * scale
    std = float(values.std(ddof=1)) * scale if len(values) > 1 else 0.0
    if percent:
        return f"{mean:.2f} ± {std:.2f}"
    if metric.endswith("seconds"):
        return f"{mean:.4f}"
    return f"{mean:.2f}" if not math.isnan(mean) else "-"


def current_trials(frame: pd.DataFrame, config: str | Path) -> pd.DataFrame:
    """The rows of ``frame`` (a store's trials) that belong to ``config`` as it is now.

    A store keeps the trials of earlier versions of a config (another grid,
    a renamed algorithm) under their own keys; a table of the config must
    not average them in.
    """
    keys = {trial.key for trial in plan(load_config(config))}
    return frame[frame["trial_key"].isin(keys)].reset_index(drop=True)
