"""``treebench run CONFIG`` and ``treebench results ...``.

Registered in :mod:`treebench.cli`.  Exit status of ``run``: 0 all trials
finished, 1 some trial failed (each is in the store with its error), 2 a user
error (bad config, missing data; one line, no traceback), 130 interrupted.

``run`` loads and checks the config itself (file, schema, trial count, jobs,
scheduler address) and only then hands the loaded config to the runner, so a
refused run never opens or creates its store.  Paths are checked here rather
than by click, whose usage errors take three lines.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from treebench.console import OutPath
from treebench.errors import TreebenchError
from treebench.experiment.specs import MAX_TRIALS

if TYPE_CHECKING:
    from treebench.experiment.config import Config


@click.command("run")
@click.argument("config", type=click.Path())
@click.option(
    "--jobs",
    "-j",
    type=int,
    default=None,
    help="Local worker processes, at most the cores (default: all cores; 1 runs in this process).",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Run on a Dask cluster, e.g. tcp://127.0.0.1:8786 (needs dask[distributed]).",
)
@click.option(
    "--dry-run", is_flag=True, help="Print the trial count per dataset and algorithm; run nothing."
)
@click.option(
    "--force", is_flag=True, help="Recompute trials already in the store (their rows are replaced)."
)
@click.option(
    "--store",
    "store_path",
    default=None,
    type=OutPath(writes="a results store"),
    help="Results store file (default: the config's 'store', else results/<experiment>.sqlite).",
)
@click.option(
    "--max-trials",
    type=int,
    default=MAX_TRIALS,
    show_default=True,
    help="Refuse a config planning more trials than this (before anything runs).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def run(
    config: str,
    jobs: int | None,
    scheduler: str | None,
    dry_run: bool,
    force: bool,
    store_path: str | None,
    max_trials: int,
    quiet: bool,
) -> int:
    """Run the experiment described by CONFIG (YAML; see docs/configs.md).

    Finished trials already in the store are skipped, so an interrupted run
    resumes where it stopped.
    """
    from treebench.experiment.config import check_trial_count, load_config
    from treebench.experiment.executors import check_jobs, check_scheduler, probe_scheduler

    # Everything a run could refuse is checked here, before the store is opened.
    if jobs is not None and scheduler:
        raise TreebenchError(
            "--jobs and --scheduler exclude each other: a Dask cluster has its own workers"
        )
    if max_trials < 1:
        raise TreebenchError(f"--max-trials {max_trials} is out of range; accepted: an integer >= 1")
    if jobs is not None:
        jobs = check_jobs(jobs, _warn)
    if scheduler:
        check_scheduler(scheduler)
    loaded = load_config(config)
    store = Path(store_path or loaded.store)
    if store.is_dir():
        raise TreebenchError(
            f"store {str(store)!r} is a folder; accepted: a results store file (e.g. results/NAME.sqlite)"
        )
    try:
        check_trial_count(loaded, max_trials)
    except TreebenchError as exc:
        if not dry_run:
            raise
        _warn(f"warning: {exc}")  # a dry run only counts, and says how many
    if scheduler and not dry_run:
        probe_scheduler(scheduler)
    if not dry_run and not scheduler and jobs != 1:
        from treebench.experiment.pool import fork_supported, prestart

        if not fork_supported():  # else the workers are forked from the warm driver: no server
            prestart()  # the workers' imports overlap with the driver's
    from treebench.experiment.predictions import check_place
    from treebench.experiment.runner import experiment_identity
    from treebench.experiment.store import check_run

    # an unusable or foreign store is refused before the kernels compile (a minute on first use); a dry
    # run, which writes nothing, says what a run would stop at
    for check in (lambda: check_run(str(store), experiment_identity(loaded)),
                  lambda: check_place(store) if loaded.predictions else None):
        try:
            check()
        except TreebenchError as exc:
            if not dry_run:
                raise
            _warn(f"warning: a run would stop here: {exc}")
    if not dry_run:
        _announce_compile(loaded, quiet)
    from treebench.experiment.runner import run_experiment

    summary = run_experiment(
        loaded,
        jobs=jobs,
        scheduler=scheduler,
        force=force,
        store_path=str(store),
        quiet=quiet,
        dry=dry_run,
    )
    return summary.exit_code


def _announce_compile(config: Config, quiet: bool = False) -> None:
    """Compile what the run's learners need before the trials, under a progress line of its own.

    Every kernel group the config's learners use is checked (their ``kernel_groups()``); the
    groups with a kernel not in numba's cache are named, then compiled by fitting tiny models
    (:mod:`treebench.trees.warm`).  The trial bar then starts with everything loaded: it never
    sits at 0 % through a compile, and its ETA counts trials only.
    """
    from treebench.kernels.readiness import KERNELS, compile_notice, mark_announced, uncached
    from treebench.learners.registry import learner_for

    groups: list[str] = []
    for algorithm in config.algorithms:
        try:
            learner = learner_for(algorithm)
        except TreebenchError:
            continue  # the run itself says what is wrong with it
        groups += [g for g in learner.kernel_groups() if g not in groups]
    missing = uncached(groups)
    if not missing:
        return
    mark_announced()  # the Python API's own notice would say it a second time
    _warn(compile_notice(missing))
    _compile_groups([g for g in groups if any(k.group == g and k.label in missing for k in KERNELS)], quiet)


def _compile_groups(groups: list[str], quiet: bool) -> None:
    """Warm each group under a tqdm bar that keeps its clock running while numba compiles."""
    import threading

    from tqdm import tqdm

    from treebench.kernels.readiness import GROUP_SECONDS
    from treebench.trees.warm import warm_group

    class Bar(tqdm):
        monitor_interval = 0  # no tqdm monitor thread: a driver with a thread alive cannot fork its workers

    total = sum(GROUP_SECONDS.get(g, 5) for g in groups)
    bar = Bar(total=total, desc="compiling kernels", unit="s", disable=quiet, leave=False, file=sys.stderr,
              bar_format="{desc}: {percentage:3.0f}% |{bar}| {elapsed} (about {total} s on 2 idle cores)")
    done = threading.Event()

    def tick() -> None:  # the clock moves while a long compile holds the main thread
        while not done.wait(0.5):
            bar.refresh()

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        for group in groups:
            bar.set_description_str(f"compiling kernels ({group})")
            try:
                warm_group(group)
            except Exception:  # noqa: BLE001 - a warm-up problem is the first trial's to report, in its words
                pass
            bar.update(GROUP_SECONDS.get(group, 5))
    finally:
        done.set()
        ticker.join()
        bar.close()


def _warn(line: str) -> None:
    click.echo(line, err=True)


def _store_file(store: str) -> Path:
    """``store`` as a path, refused in one line unless it is an existing file."""
    path = Path(store)
    if not str(store).strip():
        raise TreebenchError("the results store path is empty; accepted: a results store file (.sqlite)")
    if path.is_dir():
        raise TreebenchError(f"{store!r} is a folder; accepted: a results store file (.sqlite)")
    if not path.exists():
        raise TreebenchError(f"no results store at {store!r}")
    return path


def _config_store(config: Path) -> Path:
    """The results store of the experiment config ``config``, refused in one line unless both exist."""
    from treebench.experiment.config import load_config

    if not config.is_file():
        raise TreebenchError(f"config {str(config)!r} does not exist or is no file; accepted: an experiment "
                             "config (.yaml) or a results store file (.sqlite)")
    store = Path(load_config(config).store)  # where the runner writes it (report.source reads it alike)
    if not store.is_file():
        raise TreebenchError(f"no results yet for {config}: {store} does not exist (run `treebench run {config}`)")
    return store


@click.group("results")
def results() -> None:
    """Inspect and export results stores."""


@results.command("export")
@click.argument("store", metavar="STORE_OR_CONFIG", type=click.Path())
@click.option(
    "--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv", show_default=True
)
@click.option(
    "--out",
    default=None,
    type=OutPath(dash=True),
    help="Output file, its folder created if needed (default: the store's name, or the config's, with "
    ".csv or .parquet; '-' for stdout, csv only).",
)
@click.option("--predictions", "with_predictions", is_flag=True,
              help="Write the kept test predictions instead: one row per trial and test case "
                   "(dataset, algorithm, repeat, fold, row, truth, predicted, one probability column per class).")
@click.option("--skip-bad-predictions", "skip_bad", is_flag=True,
              help="With --predictions: leave out (and count) the trials whose kept predictions are missing "
                   "or fail verification against their trial, instead of stopping with an error.")
def export(store: str, fmt: str, out: str | None, with_predictions: bool = False, skip_bad: bool = False) -> None:
    """Write every trial of a results store (all columns) as CSV or Parquet (or, --predictions, its kept
    predictions); given an experiment config (.yaml), only the trials of the config as it is now."""
    from treebench.experiment.order import CONFIG_SUFFIXES
    from treebench.experiment.store import ResultsStore

    config = Path(store) if Path(store).suffix.lower() in CONFIG_SUFFIXES else None
    path = _config_store(config) if config is not None else _store_file(store)
    if out == "-" and fmt != "csv":
        raise TreebenchError("--out - (stdout) works with --format csv only")
    named = config if config is not None else path  # a config's export is not the whole store's
    target = None if out == "-" else Path(out) if out else named.with_suffix(f".{fmt}")
    if target is not None:  # a name too long for the file system makes is_dir() raise: refuse it first
        from treebench.outpaths import check_format_suffix, check_name

        check_name(target, f"--out {str(target)!r}", "a file path, or - for stdout")
    if target is not None and target.is_dir():
        raise TreebenchError(f"--out {str(target)!r} is a folder; accepted: a file path, or - for stdout")
    if target is not None:
        check_format_suffix(target, fmt)  # readers go by the suffix: the file would read as damaged
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise TreebenchError(
                "--format parquet needs pyarrow, which is not installed: pip install pyarrow"
            ) from None
    if skip_bad and not with_predictions:
        raise TreebenchError("--skip-bad-predictions goes with --predictions")
    if with_predictions and target is not None and not out:
        target = named.with_name(named.stem + f"-predictions.{fmt}")
    if target is not None:  # the place first: a bad one is found before the predictions are read
        from treebench.outpaths import check_file

        check_file(target, f"--out {str(target)!r}")  # first: it names a store or its predictions as such
        from treebench.experiment.predictions import store_inputs
        from treebench.outpaths import check_not_input

        check_not_input(target, store_inputs(path))
    with ResultsStore(path) as opened:
        frame = opened.to_frame(all_columns=True)
    if config is not None:  # a store keeps earlier versions' trials too: the config's current ones only
        from treebench.experiment.runner import current_trials

        frame = current_trials(frame, config)
    report: list[str] = []
    trials = len(frame)
    if with_predictions:
        from treebench.experiment.predictions import KeptPredictions, as_frame

        kept = KeptPredictions(path, skip_bad=skip_bad)
        frame = as_frame(path, frame, kept)  # each file verified against its trial
        report = kept.report_lines()
        trials = int(frame["trial_key"].nunique()) if "trial_key" in frame.columns else trials
    for line in report:
        click.echo(line, err=True)
    if target is None:
        click.echo(frame.to_csv(index=False), nl=False)
        return
    from treebench.outpaths import write_with

    if fmt == "csv":
        write_with(target, lambda tmp: frame.to_csv(tmp, index=False), f"--out {str(target)!r}")
    else:
        write_with(target, lambda tmp: frame.to_parquet(tmp, index=False), f"--out {str(target)!r}")
    what = f"{len(frame)} predictions of {trials} trials" if with_predictions else f"{len(frame)} trials"
    click.echo(f"wrote {what} to {target}")


@results.command("show")
@click.argument("store", type=click.Path())
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    default=("accuracy", "n_leaves"),
    show_default=True,
    help="Metric column(s) to show (repeatable).",
)
def show(store: str, metrics: tuple[str, ...]) -> None:
    """Print STORE's dataset x algorithm table (mean ± std over finished trials)."""
    from treebench.experiment.order import in_config_order, source_algorithm_order
    from treebench.experiment.runner import comparison_table
    from treebench.experiment.specs import METRICS
    from treebench.experiment.store import ResultsStore
    from treebench.stats.frame import refuse_duplicated_splits
    from treebench.stats.metrics import frame_metrics

    with ResultsStore(_store_file(store)) as opened:
        frame = opened.to_frame()
    refuse_duplicated_splits(frame, Path(store))  # two versions of one cell would be averaged
    accepted = (*METRICS, *frame_metrics(frame))  # the fixed measures and the store's extra ones
    for metric in metrics:
        if metric not in accepted:
            from treebench.stats.prediction_metrics import unknown_metric

            raise unknown_metric(metric, accepted, computed_here=False, elsewhere="treebench compare --metric")
    from treebench.errors import first_repeat

    repeated = first_repeat(metrics)
    if repeated is not None:  # a second, identical column
        raise TreebenchError(f"--metric names {repeated!r} twice; accepted: each metric once")
    counts = frame["status"].value_counts().to_dict()
    order = in_config_order(frame["algorithm"].astype(str), source_algorithm_order(_store_file(store)))
    click.echo(comparison_table(frame, metrics, algorithms=order) or "no finished trials")
    click.echo(f"{len(frame)} trials: {counts.get('ok', 0)} ok, {counts.get('failed', 0)} failed")
