"""``treebench run CONFIG`` and ``treebench results ...``.

Registered in :mod:`treebench.cli`.  Exit status of ``run``: 0 all trials
finished, 1 some trial failed (each is in the store with its error), 2 a user
error (bad config, missing data; one line, no traceback), 130 interrupted.
"""

from __future__ import annotations

from pathlib import Path

import click

from treebench.errors import TreebenchError


@click.command("run")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Local worker processes (default: all cores; 1 runs in this process).",
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
    type=click.Path(dir_okay=False),
    help="Results store file (default: the config's 'store', else results/<experiment>.sqlite).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def run(
    config: str,
    jobs: int | None,
    scheduler: str | None,
    dry_run: bool,
    force: bool,
    store_path: str | None,
    quiet: bool,
) -> int:
    """Run the experiment described by CONFIG (YAML; see docs/configs.md).

    Finished trials already in the store are skipped, so an interrupted run
    resumes where it stopped.
    """
    if jobs is not None and scheduler:
        raise TreebenchError(
            "--jobs and --scheduler exclude each other: a Dask cluster has its own workers"
        )
    if not dry_run and not scheduler and jobs != 1:
        from treebench.experiment.pool import prestart

        prestart()  # the workers' imports overlap with the driver's
    from treebench.experiment.runner import run_experiment

    summary = run_experiment(
        config,
        jobs=jobs,
        scheduler=scheduler,
        force=force,
        store_path=store_path,
        quiet=quiet,
        dry=dry_run,
    )
    return summary.exit_code


@click.group("results")
def results() -> None:
    """Inspect and export results stores."""


@results.command("export")
@click.argument("store", type=click.Path(dir_okay=False))
@click.option(
    "--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv", show_default=True
)
@click.option(
    "--out",
    default=None,
    type=click.Path(dir_okay=False),
    help="Output file (default: the store's name with .csv or .parquet; '-' for stdout, csv only).",
)
def export(store: str, fmt: str, out: str | None) -> None:
    """Write every trial of STORE (all columns) as CSV or Parquet."""
    from treebench.experiment.store import ResultsStore

    if not Path(store).exists():
        raise TreebenchError(f"no results store at {store!r}")
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise TreebenchError(
                "--format parquet needs pyarrow, which is not installed: pip install pyarrow"
            ) from None
    with ResultsStore(store) as opened:
        frame = opened.to_frame(all_columns=True)
    if out == "-":
        if fmt != "csv":
            raise TreebenchError("--out - (stdout) works with --format csv only")
        click.echo(frame.to_csv(index=False), nl=False)
        return
    target = Path(out) if out else Path(store).with_suffix(f".{fmt}")
    if fmt == "csv":
        frame.to_csv(target, index=False)
    else:
        frame.to_parquet(target, index=False)
    click.echo(f"wrote {len(frame)} trials to {target}")


@results.command("show")
@click.argument("store", type=click.Path(dir_okay=False))
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
    from treebench.experiment.runner import comparison_table
    from treebench.experiment.specs import METRICS
    from treebench.experiment.store import ResultsStore
    from treebench.stats.metrics import frame_metrics

    if not Path(store).exists():
        raise TreebenchError(f"no results store at {store!r}")
    with ResultsStore(store) as opened:
        frame = opened.to_frame()
    accepted = (*METRICS, *frame_metrics(frame))  # the fixed measures and the store's extra ones
    for metric in metrics:
        if metric not in accepted:
            raise TreebenchError(f"unknown metric {metric!r}; accepted: {', '.join(accepted)}")
    counts = frame["status"].value_counts().to_dict()
    click.echo(comparison_table(frame, metrics) or "no finished trials")
    click.echo(f"{len(frame)} trials: {counts.get('ok', 0)} ok, {counts.get('failed', 0)} failed")
