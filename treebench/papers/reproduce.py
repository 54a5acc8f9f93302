"""``treebench reproduce``'s work: run a paper's config, then write its report; or all of them and one page.

:func:`reproduce_paper` does one paper and raises on the first problem;
:func:`reproduce_all` does every paper of the catalogue (or those given),
never lets one paper's failure stop the next, and writes ``index.html``
(:mod:`treebench.report.site`) beside the papers' report folders.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from treebench.errors import TreebenchError
from treebench.papers.catalogue import PAPERS, get_paper
from treebench.report.reference import load_reference
from treebench.report.reproduce import Report, build_report, write_report
from treebench.report.site import (
    FAILED,
    NOT_RUN,
    REPORTED,
    PaperPage,
    failure_text,
    fingerprint,
    write_index,
)
from treebench.report.source import current_trials, read_store, store_path_for_config
from treebench.report.spec import PaperSpec
from treebench.text_table import format_table

#: The page's file name, in the results folder.
INDEX = "index.html"


def run_config(config: Path, workers: int | None = None) -> Any:
    """Run (or resume) an experiment config through the runner's API; returns its ``RunSummary``.

    Finished trials are skipped by the runner, so this is cheap when the
    store is complete.
    """
    try:
        from treebench.experiment.runner import run_experiment
    except ImportError:
        raise TreebenchError("the experiment runner (treebench.experiment.runner) is not installed") from None
    return run_experiment(config, jobs=workers)


def _store_of(config: Path) -> Path:
    """The config's results store; a missing store says how to fill it."""
    store = store_path_for_config(config)
    if not store.exists():
        raise TreebenchError(f"no results store at {store}; run `treebench run {config}` first")
    return store


def reading_configs(spec: PaperSpec) -> list[Path]:
    """The configs of the spec's readings that ``reproduce`` runs beside the paper's own config."""
    return [Path(r.config) for r in spec.readings if r.config and r.run]


def _reading_sources(spec: PaperSpec) -> dict[str, pd.DataFrame]:
    """Reading name -> its trials, for the readings whose config has a store already.

    Each store is read once, however many readings share its config.
    """
    by_config: dict[str, pd.DataFrame] = {}
    sources = {}
    for reading in spec.readings:
        # a reading whose config is not here (reproduce run elsewhere) is reported as not run
        if not reading.config or not Path(reading.config).is_file():
            continue
        if reading.config not in by_config:
            store = store_path_for_config(Path(reading.config))
            if not store.exists():
                continue
            by_config[reading.config] = current_trials(read_store(store), Path(reading.config))
        sources[reading.name] = by_config[reading.config]
    return sources


def _run_with_readings(spec: PaperSpec, config: Path, workers: int | None, page: PaperPage | None = None) -> None:
    """Run the paper's config, then each reading's own config (both resume).

    With ``page``, each run's trial counts are added to it as they finish
    (so a failing reading still leaves the earlier runs' counts).
    """
    for path in [config, *reading_configs(spec)]:
        summary = run_config(path, workers)
        if page is not None and summary is not None:
            page.add_run(summary)


def _report(spec: PaperSpec, config: Path, store: Path, out_dir: Path) -> tuple[Report, list[Path], int, int]:
    """Read the store, build and write the report; return it, the files written and the trial counts."""
    frame = current_trials(read_store(store), config)
    reference = load_reference(spec.reference)
    report = build_report(spec, frame, reference, out_dir, extras=True, reading_sources=_reading_sources(spec))
    paths = write_report(report, out_dir, config=str(config), store=str(store))
    n_ok = int((frame["status"].astype(str) == "ok").sum()) if "status" in frame.columns else len(frame)
    return report, paths + [p for _, p in report.figures], len(frame), n_ok


def reproduce_paper(
    paper: str | PaperSpec, config: Path | None = None, *, out_dir: Path | None = None, run: bool = True,
    workers: int | None = None, echo: Callable[[str], None] | None = None,
) -> list[Path]:
    """Run a paper's config (unless ``run`` is False), then write its report with every extra section.

    Parameters
    ----------
    paper
        A catalogue name (key or alias) or a spec.
    config
        The experiment config (default: the spec's, ``configs/KEY.yaml``).
    out_dir
        The report folder (default ``results/KEY``).
    run
        Run the config first (resuming); False reports on the store as it is.
    workers
        Worker processes for the run.
    echo
        Called, after the report is written, with the run's cost: trials and
        wall time (:func:`cost_table`).

    Returns
    -------
    list of Path
        ``report.md``, ``report.tex`` and the figures' PNGs.
    """
    spec = get_paper(paper) if isinstance(paper, str) else paper
    config = Path(config or spec.config)
    out_dir = Path(out_dir or Path("results") / spec.key)
    page = PaperPage(spec, out_dir=out_dir, config=str(config))
    if run:
        started = time.perf_counter()
        _run_with_readings(spec, config, workers, page)
        page.run_seconds = time.perf_counter() - started
    started = time.perf_counter()
    page.report, paths, page.n_trials, page.n_ok = _report(spec, config, _store_of(config), out_dir)
    page.report_seconds = time.perf_counter() - started
    if echo is not None:
        echo(cost_table([page]))
    return paths


def reproduce_page(spec: PaperSpec, config: Path | None = None, *, out_dir: Path | None = None,
                   run: bool = True, workers: int | None = None) -> PaperPage:
    """Like :func:`reproduce_paper`, but every failure is recorded on the returned page, never raised.

    A failed run is a problem of the page and the report still shows what the
    store holds; a missing config or store makes the page :data:`NOT_RUN`; a
    report that cannot be built makes it :data:`FAILED`.  Ctrl-C still stops.
    """
    config = Path(config or spec.config)
    out_dir = Path(out_dir or Path("results") / spec.key)
    page = PaperPage(spec, out_dir=out_dir, config=str(config))
    if not config.is_file():
        page.status, page.reason = NOT_RUN, f"no config for {spec.key} yet ({config})"
        return page
    page.config_sha256 = fingerprint(config)
    if run:
        started = time.perf_counter()
        try:
            _run_with_readings(spec, config, workers, page)
        except Exception as exc:  # the report still says what the store holds
            reason, page.error_details = failure_text(exc)
            page.problems.append(f"the run failed: {reason}")
        page.run_seconds = time.perf_counter() - started
    started = time.perf_counter()
    try:
        store = store_path_for_config(config)
        page.store = str(store)
        if not store.exists():
            page.status = NOT_RUN
            page.reason = f"no results store at {store}; run `treebench run {config}` first"
            return page
        page.report, _, page.n_trials, page.n_ok = _report(spec, config, store, out_dir)
        page.status = REPORTED
    except Exception as exc:  # one paper's report must not stop the others
        page.status = FAILED
        page.reason, details = failure_text(exc)
        page.error_details = "\n".join(x for x in (page.error_details, details) if x)
    finally:
        page.report_seconds = time.perf_counter() - started
    return page


def reproduce_all(
    out_root: Path = Path("results"), *, run: bool = True, workers: int | None = None,
    papers: Iterable[PaperSpec] | None = None, echo: Callable[[str], None] | None = None,
    command: str = "",
) -> tuple[Path, list[PaperPage]]:
    """Reproduce every paper (resuming each run), write each report and then ``OUT_ROOT/index.html``.

    Parameters
    ----------
    out_root
        Folder of the page; each paper's report goes to ``OUT_ROOT/KEY``.
    run
        Run each config first; False reports on the stores as they are.
    workers
        Worker processes for the runs.
    papers
        The specs to do, in order (default: the catalogue, :data:`PAPERS`).
    echo
        Called with one line per paper as it finishes (e.g. ``click.echo``).
    command
        The command line, recorded in the page's provenance.

    Returns
    -------
    (Path, list of PaperPage)
        The page and what happened to each paper.
    """
    out_root = Path(out_root)
    pages = []
    for spec in PAPERS.values() if papers is None else papers:
        page = reproduce_page(spec, out_dir=out_root / spec.key, run=run, workers=workers)
        pages.append(page)
        if echo is not None:
            echo(summary_line(page))
    return write_index(pages, out_root / INDEX, title=f"treebench: reproductions of {len(pages)} papers",
                       command=command), pages


def summary_line(page: PaperPage) -> str:
    """One line on what happened to a paper, for the terminal."""
    times = []
    if page.run_seconds is not None:
        times.append(f"run {page.run_seconds:.1f} s")
    if page.report_seconds is not None:
        times.append(f"report {page.report_seconds:.1f} s")
    line = f"{page.spec.key}: {page.status}" + (f" ({', '.join(times)})" if times else "")
    if page.reason:
        line += f": {page.reason}"
    return line + "".join(f"; {p}" for p in page.problems)


def cost_table(pages: Sequence[PaperPage]) -> str:
    """What each paper's reproduction cost: trials and wall time, as a plain table (and a total row).

    ``trials`` counts every trial the paper's configs plan (its readings'
    included), ``run now`` those computed by this call (the rest were in the
    store already and resumed), ``run`` the wall time of running them and
    ``report`` that of reading the stores and writing the report.
    """
    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f} s" if value < 120 else f"{value / 60:.1f} min"

    def count(value: int | None) -> str:
        return "-" if value is None else str(value)

    rows = [
        [p.spec.key, p.status, count(p.trials_planned), count(p.trials_run), count(p.trials_failed),
         seconds(p.run_seconds), seconds(p.report_seconds)]
        for p in pages
    ]
    if len(pages) > 1:
        def total(values: list) -> Any:
            known = [v for v in values if v is not None]
            return sum(known) if known else None

        rows.append(["total", "", count(total([p.trials_planned for p in pages])),
                     count(total([p.trials_run for p in pages])), count(total([p.trials_failed for p in pages])),
                     seconds(total([p.run_seconds for p in pages])), seconds(total([p.report_seconds for p in pages]))])
    return format_table(["paper", "status", "trials", "run now", "failed", "run", "report"], rows,
                        numeric=(2, 3, 4, 5, 6))
