"""A leaderboard run: resolve the suite, plan, run each group through the runner, build the outputs."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from treebench.errors import TreebenchError
from treebench.experiment.store import BOARD_LOCK
from treebench.leaderboard.plan import EXPERIMENT as BOARD_EXPERIMENT
from treebench.leaderboard.plan import STORE, Options, Plan, make_plan

if TYPE_CHECKING:
    from treebench.experiment.specs import Config

MIN_FOLDS, MAX_FOLDS = 2, 1000
MIN_REPEATS, MAX_REPEATS = 1, 10000
#: The board's lock file in ``--out`` (held for a whole run; see :func:`board_lock`).
LOCK = BOARD_LOCK


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
    if request.scheduler is not None:  # as `treebench run`: the address's form first, reachability later
        from treebench.experiment.executors import check_scheduler

        if request.jobs is not None:
            raise TreebenchError("--jobs and --scheduler exclude each other: a Dask cluster has its own workers")
        check_scheduler(request.scheduler)
    from treebench.outpaths import check_folder

    check_folder(request.out, out_option(request))
    check_inputs_outside(request)


def check_inputs_outside(request: Request) -> None:
    """Refuse a ``--suite`` or ``--plugin`` file that the board would replace or delete in ``--out``.

    A board writes its tables, page and figures (:data:`~treebench.leaderboard.page.OUTPUT_FILES`),
    its store and lock into ``--out``, and removes a previous run's ``config-*.yaml`` there: an input
    of that name in that folder would be lost.  ``--out`` equal to an input file is refused by the
    folder check already (a file where a folder must go).
    """
    import fnmatch
    import os

    from treebench.leaderboard.page import OUTPUT_FILES

    folder = Path(os.path.realpath(request.out))
    # a folder holding a page or tables that are no board's (no board store beside them): writing the board
    # there would replace them (a reproduce page's index.html, say)
    # (a folder or a link in a file's place is the place checks' to name)
    foreign = ([name for name in OUTPUT_FILES if (folder / name).is_file() and not (folder / name).is_symlink()]
               if not (folder / STORE).exists() else [])
    if foreign:
        raise TreebenchError(f"{out_option(request)} holds {', '.join(foreign[:3])}{' ...' if len(foreign) > 3 else ''} "
                             f"but no {STORE}: they are not a leaderboard's, and the board would replace them; "
                             "accepted: a new or empty folder, or a leaderboard's own folder")
    owned = (*OUTPUT_FILES, STORE, f"{STORE}.lock", LOCK, "config-*.yaml")
    suite = [("--suite", request.suite)] if Path(request.suite).suffix or Path(request.suite).exists() else []
    for option, given in [*suite, *(("--plugin", p) for p in request.plugins if p.endswith(".py"))]:
        path = Path(os.path.realpath(given))
        if path.parent == folder and any(fnmatch.fnmatch(path.name, pattern) for pattern in owned):
            raise TreebenchError(f"{option} {given!r} lies in {out_option(request)} under a name the board writes "
                                 f"or removes ({path.name}); it would be lost: move it out of the folder or give "
                                 "another --out")


def out_option(request: Request) -> str:
    """How messages name the output folder: ``--out 'PATH'``."""
    return f"--out {str(request.out)!r}"


def families(request: Request) -> list[str]:
    """The selected criteria and baselines, plus every criterion the ``--plugin`` files register."""
    from treebench.criteria.plugins import require_criteria
    from treebench.leaderboard.catalogue import parse_selection

    added: dict[str, str] = {}  # criterion -> the --plugin that registered it, as the user wrote it
    for plugin in request.plugins:  # a plugin registering nothing is refused: its row would be missing silently
        for name in require_criteria(str(Path(plugin).resolve()) if plugin.endswith(".py") else plugin, plugin):
            added.setdefault(name, plugin)
    chosen = parse_selection(request.criteria)
    selected = [*chosen, *(n for n in added if n not in chosen)]
    check_row_names(selected, added)
    return selected


def _origin(name: str, plugins: dict[str, str] | None = None) -> str:
    """Where the user wrote (or installed) the criterion ``name``: its ``--plugin``, else its module."""
    from treebench.criteria.plugins import plugin_of

    spec = (plugins or {}).get(name) or plugin_of(name)
    if spec is not None:
        return f"--plugin {spec!r} registers criterion {name!r}"
    from treebench.criteria.registry import criterion_class

    module = getattr(criterion_class(name), "__module__", "?")
    return f"criterion {name!r} (registered by module {module!r})"


def check_row_names(selected: Sequence[str], plugins: dict[str, str]) -> None:
    """Refuse a selected criterion whose name cannot name a board row, naming where it comes from.

    The board writes each row into a generated config as an algorithm ``name``; a criterion
    named against the config's rules (a space, a slash), or named like a baseline or like another
    criterion's ``-default`` row, would otherwise be refused at a line of ``config-N.yaml``, a
    file the user never wrote.  ``plugins`` maps each plugin criterion to its ``--plugin``.
    """
    from treebench.experiment.config import NAME_ACCEPTED, NAME_PATTERN
    from treebench.leaderboard.catalogue import BASELINES, catalogue
    from treebench.learners.registry import criterion_learner_class

    for name in selected:
        if name in BASELINES:
            continue
        if not NAME_PATTERN.fullmatch(name):
            raise TreebenchError(f"{_origin(name, plugins)}, which cannot name a leaderboard row (a config's "
                                 f"algorithm name); accepted: a criterion name of {NAME_ACCEPTED} "
                                 "(rename it in the plugin)")
        try:
            criterion_learner_class(name)
        except TreebenchError as exc:  # e.g. a learner kind no learner grows
            raise TreebenchError(f"{_origin(name, plugins)}, which the board cannot grow: {exc}") from None
    seen: dict[str, Any] = {}
    for row in catalogue(list(selected)):
        first = seen.setdefault(row.name, row)
        if first is row:
            continue
        # the culprit is the criterion whose own name clashes (not the -default row it clashes with)
        culprit = next(r for r in (row, first) if r.criterion is not None and r.family == r.name)
        other = first if culprit is row else row
        what = (f"the baseline {other.name!r}" if other.baseline is not None
                else f"the untuned row of criterion {other.family!r}")
        raise TreebenchError(f"{_origin(culprit.family, plugins)}, which is also the name of {what} on the board, "
                             "so two rows would share it; accepted: a criterion name that no baseline or other row "
                             "of the board has (rename it in the plugin)")


def prepare(request: Request) -> tuple[Plan, list[Config]]:
    """Check everything a run checks and plan the board in memory; write nothing.

    The options, the names, each group's trials (a dataset too small for
    ``--folds`` says so here), the store's identity and dataset pins, and
    the store's lock.  :func:`run` writes the configs only after this, under
    the board's own lock (:func:`board_lock`), so a refused board leaves
    ``--out`` as it was.
    """
    from treebench.leaderboard import suite
    from treebench.leaderboard.catalogue import catalogue

    check(request)
    selected = families(request)
    entries = suite.resolve(request.suite, request.max_rows, named=bool(request.datasets))
    entries = suite.select(entries, list(request.datasets))
    entries = suite.as_card_names(entries, lambda line: click.echo(line, err=True))
    entries = as_on_board(entries, Path(request.out))
    options = Options(request.folds, request.repeats, tuple(request.plugins))
    out = Path(request.out)
    plan = make_plan(entries, catalogue(selected), options, out)
    check_files(plan, out, out_option(request))
    configs = check_plan(plan, busy_ok=request.dry_run)
    check_kept_rows(plan, request)
    if request.scheduler is not None and not request.dry_run:
        from treebench.experiment.executors import probe_scheduler

        probe_scheduler(request.scheduler)  # as run: an unreachable cluster within seconds, before writing
    return plan, configs


def check_files(plan: Plan, out: Path, what: str) -> None:
    """Refuse, creating nothing, a board whose configs, lock or page files could not be written there
    (e.g. a folder named ``index.html``): found before the run, not after its last trial."""
    from treebench.leaderboard.page import OUTPUT_FILES
    from treebench.outpaths import check_file

    for name in (*(g.path.name for g in plan.groups), LOCK, *OUTPUT_FILES):
        check_file(out / name, what, own_lock=name == LOCK)  # its own lock: opened in place, never replaced
    lock = plan.store.with_name(plan.store.name + ".lock")  # the store's own lock (the store: check_plan)
    if lock.is_dir():
        raise TreebenchError(f"{what}: {str(lock)!r} is a folder, not a file; accepted: a board folder whose "
                             "results store and its lock can be files")


def check_plan(plan: Plan, busy_ok: bool = False) -> list[Config]:
    """Validate every group's config in memory and check the store as a run would; write nothing.

    Raises the one-line error the run of a group would stop with: too many
    trials, a dataset its protocol cannot split, a store of another
    experiment or other options (e.g. other ``--folds``), a dataset whose
    content changed, a store being written by another run (unless
    ``busy_ok``, a dry run).
    """
    from treebench.experiment.config import check_trial_count
    from treebench.experiment.runner import experiment_identity
    from treebench.experiment.runner import plan as plan_trials
    from treebench.experiment.store import check_run

    if not plan.groups:  # nothing applies: say why here, not "no results store" after the run
        raise TreebenchError(f"no selected criterion applies to any selected dataset ({_why_none(plan.skipped)}); "
                             "accepted: at least one criterion that applies to a selected dataset")
    configs = []
    for group in plan.groups:
        config = _parse_generated(group)
        identity = experiment_identity(config)
        with board_words():
            check_trial_count(config)
            check_run(plan.store, identity, busy_ok=busy_ok)  # before loading data: a foreign store stops here
        try:
            checksums = {t.dataset.label: t.checksum for t in plan_trials(config)}
        except TreebenchError as exc:
            raise TreebenchError(_plan_refusal(str(exc), group.path)) from None
        with board_words():
            check_run(plan.store, identity, checksums, busy_ok=busy_ok)
        configs.append(config)
    return configs


def _plan_refusal(text: str, path: Path) -> str:
    """A refusal of planning a generated config (``config-N.yaml: dataset 'iris': cannot make 200 folds``)
    said of the option the user gave: ``--folds``, or the dataset of ``--suite``/``--datasets``."""
    import re

    prefix = f"{path}: "
    if not text.startswith(prefix):
        return text
    rest = text[len(prefix):]
    folds = re.search(r"cannot make (\d+) folds", rest)
    if folds is not None:
        return f"--folds {folds.group(1)}: {rest} (or leave the dataset out of --suite/--datasets)"
    return "the board's " + rest.replace("remove it from datasets", "leave it out of --suite/--datasets")


def _parse_generated(group: Any) -> Config:
    """Validate a generated config; a refusal names what the user wrote, not the generated file.

    :func:`check_row_names` refuses the known bad criterion names first; anything else the
    validator finds in a row is put to the criterion's origin (its ``--plugin``), since the
    user wrote no line of ``config-N.yaml``.
    """
    import re

    from treebench.experiment.config import ConfigError, parse_config

    try:
        return parse_config(group.text, str(group.path), base_dir=group.path.parent)
    except ConfigError as exc:
        first = str(exc).splitlines()[0]
        found = re.search(r"algorithms\[(\d+)\][^:]*: (.*)$", first)
        if found is None or int(found.group(1)) >= len(group.algorithms):
            raise
        from treebench.leaderboard.catalogue import catalogue, parse_selection

        row = group.algorithms[int(found.group(1))]
        family = next((a.family for a in catalogue(parse_selection("all")) if a.name == row), row)
        raise TreebenchError(f"{_origin(family)}, whose board row {row!r} the config validator refuses: "
                             f"{found.group(2)}") from None


def _listed(names: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def as_on_board(entries: list[str], out: Path) -> list[str]:
    """``entries`` with each name of a table the board at ``out`` already holds under another name
    (``openml:61`` for its ``iris``) replaced by the board's name, said on stderr.

    Run under the new name the table would be a second column of the same data; left out, the
    kept-rows check would ask for the board's name, which the one-table check then refuses.
    """
    from treebench.data.cards import CardRegistry
    from treebench.experiment.config import table_of
    from treebench.leaderboard.suite import _card_name, _settings

    store = out / STORE
    if not store.is_file() or not entries:
        return entries
    try:  # immutable: no lock and no -wal/-shm beside a store a run may hold (the lock checks come later)
        conn = sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            held = [str(row[0]) for row in conn.execute("SELECT DISTINCT dataset FROM trials")]
        finally:
            conn.close()
    except sqlite3.Error:  # not a board's store: the checks after planning say so
        return entries
    registry = CardRegistry(_settings().card_folders)

    def table(name: str) -> str | None:
        card = _card_name(name, registry)
        return table_of(card, registry) if card is not None else None

    on_board = {table(name): name for name in held if name not in entries}
    on_board.pop(None, None)
    renamed = []
    for name in entries:
        board_name = on_board.get(table(name)) if name not in held else None
        if board_name is not None:
            click.echo(f"note: {name!r} is the dataset {board_name!r} of the board in {str(out)!r} (the same "
                       f"table); it runs and shows as {board_name!r}", err=True)
            name = board_name
        renamed.append(name)
    return renamed


def check_kept_rows(plan: Plan, request: Request) -> None:
    """Refuse a rerun whose page would silently drop rows or columns the board's store already holds.

    The page shows the board of this command's selection only, so a rerun in the
    same ``--out`` naming other ``--criteria`` (or fewer ``--datasets``) would hide
    finished results that are still in the store.  Extending a board (naming
    the old criteria and datasets too) is accepted.
    """
    from treebench.experiment.store import open_readonly

    if not plan.store.is_file():
        return
    conn = open_readonly(plan.store)
    try:
        pairs = conn.execute("SELECT DISTINCT algorithm, dataset FROM trials").fetchall()
    finally:
        conn.close()
    named = {a.name for a in plan.algorithms}
    algorithms = sorted({a for a, _ in pairs} - named)
    datasets = sorted({d for _, d in pairs} - set(plan.metas))
    what = out_option(request)
    if algorithms:
        from treebench.leaderboard.catalogue import accepted_names, catalogue

        accepted = accepted_names()
        family = {a.name: a.family for a in catalogue(accepted)}  # a row (tsallis-tuned...) -> what --criteria names
        missing = list(dict.fromkeys(family.get(a, a) for a in algorithms))
        keep = ",".join(dict.fromkeys([*(a.family for a in plan.algorithms), *missing]))
        from treebench.criteria.plugins import plugin_registered

        # a plugin's criterion: named only while its --plugin is given
        unregistered = [f for f in missing if f not in accepted or f in plugin_registered()]
        plugin = f" with the --plugin that registers {_listed(unregistered)}" if unregistered else ""
        raise TreebenchError(
            f"{what}: this board's store holds finished trials of {_listed(algorithms)}, which --criteria "
            f"{request.criteria!r} leaves out, so its page would drop them; accepted: --criteria naming them "
            f"too (e.g. --criteria {keep}{plugin}) to extend the board, or another --out")
    if datasets:
        raise TreebenchError(
            f"{what}: this board's store holds finished trials on {_listed(datasets)}, which this selection "
            "of datasets leaves out, so its page would drop them; accepted: --suite/--datasets naming them "
            "too to extend the board, or another --out")


def _why_none(skipped: Sequence[tuple[str, str, str]]) -> str:
    """The not-applicable pairs grouped by reason: ``a, b on x, y: reason`` (at most three reasons)."""
    by_reason: dict[str, tuple[dict, dict]] = {}
    for algorithm, dataset, reason in skipped:
        algorithms, datasets = by_reason.setdefault(reason, ({}, {}))
        algorithms[algorithm], datasets[dataset] = None, None
    parts = [f"{', '.join(a)} on {', '.join(d)}: {reason}" for reason, (a, d) in list(by_reason.items())[:3]]
    more = len(by_reason) - len(parts)
    return "; ".join(parts) + (f"; {more} more reason(s)" if more > 0 else "")


#: The runner's advice about its ``--store`` option, and what a board offers instead.
_ADVICE = {
    "use --store (or the config's store:) to choose another file":
        "rerun with that board's --folds, --repeats and --plugin, or choose another --out",
    "use --store to write elsewhere": "choose another --out",
    "(raise it with treebench run --max-trials N)":
        "(select fewer datasets or criteria, or lower --folds or --repeats: a board has no --max-trials)",
}


@contextlib.contextmanager
def board_words() -> Iterator[None]:
    """Re-raise a runner's refusal with the leaderboard's options in its advice (it has no ``--store``
    and no ``--max-trials``)."""
    import re

    try:
        yield
    except TreebenchError as exc:
        text = str(exc)
        other = re.search(r"holds experiment '([^']*)'", text)
        for runner, board in _ADVICE.items():
            if other and other.group(1) != BOARD_EXPERIMENT and runner.startswith("use --store (or"):
                # not a board's store: no rerun of "that board" can use it
                board = "it is another experiment's store, not a leaderboard's: choose another --out"
            text = text.replace(runner, board)
        raise TreebenchError(text) from None


def check_store_again(plan: Plan, configs: list[Config], busy_ok: bool) -> None:
    """The store's identity and lock once more, under the board lock (a run may have started meanwhile)."""
    from treebench.experiment.runner import experiment_identity
    from treebench.experiment.store import check_run

    for config in configs:
        with board_words():
            check_run(plan.store, experiment_identity(config), busy_ok=busy_ok)


@contextlib.contextmanager
def board_lock(request: Request) -> Iterator[None]:
    """Hold ``--out``'s board lock (``.leaderboard.lock``) for a whole run.

    The store's own lock is free between two groups; this one keeps a
    second board from rewriting the configs of a board that is running.
    It is only taken (and its file only created) once every check passed,
    and it is the kernel's (``flock``): a killed run releases it.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        yield
        return
    from treebench.outpaths import make_folder

    out = Path(request.out)
    make_folder(out, out_option(request))
    try:
        handle = open(out / LOCK, "a+")  # noqa: SIM115 - held until the run ends
    except OSError as exc:
        from treebench.outpaths import os_reason

        raise TreebenchError(f"{out_option(request)}: cannot create the board's lock file "
                             f"({os_reason(exc, out / LOCK)}); accepted: a writable folder") from None
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise TreebenchError(f"{out_option(request)}: another treebench leaderboard is running in this folder; "
                                 "wait for it or choose another --out") from None
        yield
    finally:
        handle.close()  # closing releases the flock


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
    """Run the board; return the exit status (0 ok, 1 some trial failed, 130 interrupted).

    Everything is checked before the first byte is written (:func:`prepare`).
    """
    from treebench.leaderboard.plan import write_configs

    started = time.perf_counter()
    plan, configs = prepare(request)
    with board_lock(request):
        check_store_again(plan, configs, busy_ok=request.dry_run)
        write_configs(plan, Path(request.out), out_option(request))
        return _run_board(request, plan, configs, started, echo)


def _run_board(request: Request, plan: Plan, configs: list[Config], started: float, echo) -> int:  # noqa: ANN001
    """Run the checked and written board's groups, then build its page (see :func:`run`)."""
    from treebench.experiment.runner import run_experiment
    from treebench.experiment.store import ResultsStore
    from treebench.leaderboard.board import build
    from treebench.leaderboard.page import write_outputs

    n_algorithms = len(plan.algorithms)
    echo(f"leaderboard: {len(plan.metas)} datasets, {n_algorithms} algorithms, {len(plan.groups)} config(s) "
         f"in {request.out}; {len(plan.skipped)} dataset/algorithm pairs not applicable")
    if request.dry_run:
        for config in configs:
            run_experiment(config, dry=True, echo=echo)
        for algorithm, dataset, reason in plan.skipped:
            echo(f"not applicable: {algorithm} on {dataset}: {reason}")
        return 0
    planned = done = skipped = failed = 0
    for config in configs:  # the checked configs: the files are what they say, not re-read
        summary = run_experiment(config, jobs=request.jobs, scheduler=request.scheduler, quiet=request.quiet,
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
