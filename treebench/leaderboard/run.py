"""A leaderboard run: resolve the suite, plan, run each group through the runner, build the outputs."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from treebench.errors import TreebenchError
from treebench.leaderboard.plan import Options, Plan, make_plan

MIN_FOLDS, MAX_FOLDS = 2, 1000
MIN_REPEATS, MAX_REPEATS = 1, 10000


@dataclass(frozen=True)
class Request:
    """The command line of a leaderboard run."""

    suite: str = "bundled"
    datasets: tuple[str, ...] = ()
    criteria: str = "all"
    plugins: tuple[str, ...] = ()
    folds: int = 10
    repeats: int = 1
    max_rows: int = 100_000
    jobs: int | None = None
    scheduler: str | None = None
    out: Path = Path("results/leaderboard")
    dry_run: bool = False
    quiet: bool = False


def check(request: Request) -> None:
    """One-line errors for out-of-range options (before anything is loaded)."""
    if not MIN_FOLDS <= request.folds <= MAX_FOLDS:
        raise TreebenchError(f"--folds {request.folds} is out of range; accepted: an integer from {MIN_FOLDS} to {MAX_FOLDS}")
    if not MIN_REPEATS <= request.repeats <= MAX_REPEATS:
        raise TreebenchError(
            f"--repeats {request.repeats} is out of range; accepted: an integer from {MIN_REPEATS} to {MAX_REPEATS}")
    if request.max_rows < 0:
        raise TreebenchError(f"--max-rows {request.max_rows} is out of range; accepted: 0 (no limit) or a positive integer")
    if request.jobs is not None and request.jobs < 1:
        raise TreebenchError(f"--jobs {request.jobs} is out of range; accepted: a positive integer")
    if Path(request.out).exists() and not Path(request.out).is_dir():
        raise TreebenchError(f"--out {str(request.out)!r} is a file; accepted: a folder (created when missing)")


def families(request: Request) -> list[str]:
    """The selected criteria and baselines, plus every criterion the ``--plugin`` files register."""
    from treebench.criteria.plugins import import_plugin
    from treebench.leaderboard.catalogue import parse_selection, registered_criteria

    before = set(registered_criteria())
    for plugin in request.plugins:
        import_plugin(str(Path(plugin).resolve()) if plugin.endswith(".py") else plugin)
    added = [n for n in registered_criteria() if n not in before]
    chosen = parse_selection(request.criteria)
    return [*chosen, *(n for n in added if n not in chosen)]


def prepare(request: Request) -> Plan:
    """Check the options, resolve the suite and write the configs."""
    from treebench.leaderboard import suite
    from treebench.leaderboard.catalogue import catalogue

    check(request)
    selected = families(request)
    entries = suite.resolve(request.suite, request.max_rows)
    entries = suite.select(entries, list(request.datasets))
    options = Options(request.folds, request.repeats, tuple(request.plugins))
    return make_plan(entries, catalogue(selected), options, Path(request.out))


def board_keys(plan: Plan) -> tuple[set[str], dict[str, int]]:
    """The trial keys of every group's config and the outer splits per dataset."""
    from treebench.experiment.config import load_config
    from treebench.experiment.runner import plan as plan_trials

    keys: set[str] = set()
    splits: dict[str, int] = {}
    for group in plan.groups:
        trials = plan_trials(load_config(group.path))
        keys.update(t.key for t in trials)
        per = Counter(t.dataset.label for t in trials)
        for label, n in per.items():
            splits[label] = n // len(group.algorithms)
    return keys, splits


def store_runs(store: Any) -> tuple[int, float]:
    """Runs recorded in the store and their summed wall time (seconds)."""
    row = store.conn.execute("SELECT COUNT(*), COALESCE(SUM(wall_seconds), 0) FROM runs").fetchone()
    return int(row[0]), float(row[1])


def anomaly_lines(frame: Any, plan: Plan) -> list[str]:
    """The papers' reports' anomaly flags (:mod:`treebench.report.anomalies`) on the board's trials, and the
    checks that could not be made."""
    from treebench.report.anomalies import (
        config_grids,
        find_anomalies,
        majority_rates,
        skipped_checks,
    )

    grids: dict = {}
    ranges: dict = {}
    for group in plan.groups:
        g, r = config_grids(group.path)
        grids.update(g)
        ranges.update(r)
    majority = majority_rates(sorted(plan.metas))
    flags = find_anomalies(frame, grids=grids, ranges=ranges, majority=majority)
    return [f"{a.flag}: {a.text}" for a in flags] + skipped_checks(frame, grids=grids, majority=majority)


def _join_workers(timeout: float = 60.0) -> None:
    """Wait for the worker processes of the group just run to exit.

    A worker forked from this process holds a copy of the store's lock until
    it exits, which can be a moment after the run returns; the next group's
    run would otherwise find the store "being written by another run".
    """
    import multiprocessing

    deadline = time.monotonic() + timeout
    for process in multiprocessing.active_children():
        process.join(max(0.0, deadline - time.monotonic()))


def run(request: Request, echo=click.echo) -> int:  # noqa: ANN001
    """Run the board; return the exit status (0 ok, 1 some trial failed, 130 interrupted)."""
    from treebench.experiment.runner import run_experiment
    from treebench.experiment.store import ResultsStore
    from treebench.leaderboard.board import build
    from treebench.leaderboard.page import write_outputs

    started = time.perf_counter()
    plan = prepare(request)
    n_algorithms = len(plan.algorithms)
    echo(f"leaderboard: {len(plan.metas)} datasets, {n_algorithms} algorithms, {len(plan.groups)} config(s) "
         f"in {request.out}; {len(plan.skipped)} dataset/algorithm pairs not applicable")
    if request.dry_run:
        for group in plan.groups:
            run_experiment(group.path, dry=True, echo=echo)
        for algorithm, dataset, reason in plan.skipped:
            echo(f"not applicable: {algorithm} on {dataset}: {reason}")
        return 0
    planned = done = skipped = failed = 0
    for group in plan.groups:
        summary = run_experiment(group.path, jobs=request.jobs, scheduler=request.scheduler, quiet=request.quiet,
                                 echo=echo, table=False)
        planned, done, skipped, failed = (planned + summary.planned, done + summary.done,
                                          skipped + summary.skipped, failed + summary.failed)
        _join_workers()
        if summary.interrupted:
            echo("interrupted: rerun the same command to resume (finished trials are kept)")
            return 130
    keys, splits = board_keys(plan)
    with ResultsStore(plan.store) as store:
        frame = store.to_frame(all_columns=True, keys=keys)
        runs, compute = store_runs(store)
    board = build(frame, list(plan.algorithms), plan.metas, list(plan.skipped), splits)
    board.flags = anomaly_lines(frame, plan)
    wall = time.perf_counter() - started
    provenance = {
        "suite": request.suite + (f" ({', '.join(request.datasets)})" if request.datasets else ""),
        "max_rows": request.max_rows or "no limit",
        "protocol": f"stratified {request.folds}-fold cross-validation x {request.repeats} repeat(s); "
                    f"tuned rows: inner stratified 3-fold CV",
        "seed": 0,
        "trials": f"{int((frame['status'] == 'ok').sum())} ok of {len(keys)} planned "
                  f"(this run: {done} computed, {skipped} already stored, {failed} failed)",
        "wall time": f"this command {wall:.1f} s; {runs} run(s) recorded in the store, {compute:.1f} s of running in all",
        "store": str(plan.store),
        "configs": ", ".join(g.path.name for g in plan.groups),
    }
    written = write_outputs(board, plan, provenance, Path(request.out))
    echo(f"leaderboard: {done} trials computed, {skipped} already stored, {failed} failed; "
         f"{wall:.1f} s; wrote {', '.join(p.name for p in written)} in {request.out}")
    return 1 if failed else 0
