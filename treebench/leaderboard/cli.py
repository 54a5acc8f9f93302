"""``treebench leaderboard``: every split criterion on one suite, one store, one page."""

from __future__ import annotations

from pathlib import Path

import click

from treebench.console import OutPath


@click.command("leaderboard")
@click.option("--suite", default="bundled", show_default=True, metavar="bundled|openml-suite:ID|FILE",
              help="The datasets: the bundled cards with a local copy, an OpenML suite, or a file of names.")
@click.option("--datasets", default=None, metavar="A,B,...", help="Only these datasets (a card outside the suite joins by name).")
@click.option("--criteria", default="all", show_default=True, metavar="all|A,B,...",
              help="Criteria and baselines (c4.5, weka-j48, c50, sklearn-cart) to put on the board.")
@click.option("--plugin", "plugins", multiple=True, metavar="FILE|MODULE",
              help="A .py file (or module) registering criteria: each is one more row (repeatable).")
@click.option("--folds", type=int, default=10, show_default=True, help="Outer stratified folds.")
@click.option("--repeats", type=int, default=1, show_default=True, help="Repeats of the outer cross-validation.")
@click.option("--max-rows", type=int, default=100_000, show_default=True,
              help="Bundled suite: datasets up to this many rows (0: no limit).")
@click.option("--jobs", "-j", type=int, default=None, help="Worker processes (default: all cores).")
@click.option("--scheduler", default=None, metavar="ADDRESS", help="A dask.distributed scheduler address.")
@click.option("--out", default="results/leaderboard", show_default=True, type=OutPath(folder=True),
              help="Folder of the configs, the store and the page.")
@click.option("--dry-run", is_flag=True, help="Write the configs, print the trial counts and what does not apply; run nothing.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def leaderboard(suite: str, datasets: str | None, criteria: str, plugins: tuple[str, ...], folds: int, repeats: int,
                max_rows: int, jobs: int | None, scheduler: str | None, out: str, dry_run: bool, quiet: bool) -> int:
    """Rank every split criterion on the same folds of one suite (see docs/leaderboard.md)."""
    from treebench.errors import TreebenchError
    from treebench.leaderboard.run import Request, run

    names = tuple(d.strip() for d in (datasets or "").split(",") if d.strip())
    if datasets is not None and not names:  # given but empty: not "the whole suite"
        raise TreebenchError(f"--datasets {datasets!r} names no dataset; accepted: a comma-separated list of "
                             "dataset names (leave --datasets out for the whole --suite)")
    request = Request(suite=suite, datasets=names,
                      criteria=criteria, plugins=plugins, folds=folds, repeats=repeats, max_rows=max_rows,
                      jobs=jobs, scheduler=scheduler, out=Path(out), dry_run=dry_run, quiet=quiet)
    return run(request)
