"""``treebench reproduce``'s work: run a paper's config, then write its report; or all of them and one page.

:func:`reproduce_paper` does one paper and raises on the first problem, then
refreshes the page; :func:`reproduce_all` does every paper of the catalogue
(or those given), never lets one paper's failure stop the next, and writes
``index.html`` (:mod:`treebench.report.site`) beside the papers' report
folders.

The page is kept up: each paper's part, once rendered from a report, is
saved in its report folder (:data:`SECTION`); a later build that cannot read
that paper's inputs (no store, no config, no dataset folder, a report that
fails) shows the saved part, marked :data:`~treebench.report.site.KEPT` with
when it was built, instead of replacing it by the failure.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from treebench.errors import TreebenchError
from treebench.papers.catalogue import PAPERS, get_paper
from treebench.report.reference import load_reference
from treebench.report.reproduce import Report, build_report, write_report
from treebench.report.site import (
    FAILED,
    KEPT,
    NOT_RUN,
    REPORTED,
    UNREADABLE_KEPT,
    PaperPage,
    failure_text,
    fingerprint,
    other_paper,
    paper_body_html,
    read_kept_json,
    read_kept_verdicts,
    write_index,
)
from treebench.report.source import current_trials, read_store, store_path_for_config
from treebench.report.spec import PaperSpec
from treebench.text_table import format_table

#: How a problem with a kept file (:data:`SECTION`, ``verdicts.json``) starts, in a page's problems.

#: The page's file name, in the results folder.
INDEX = "index.html"
#: A paper's last good part of the page (JSON: the HTML, when it was built, its provenance), in its folder.
SECTION = "section.json"
#: The provenance fields a kept part carries over to the page.
_KEPT_FIELDS = ("config", "config_sha256", "store", "n_trials", "n_ok")


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
    """The configs ``reproduce`` runs beside the paper's own: the joined ones, then the readings' that run."""
    configs = [*spec.joined, *(r.config for r in spec.readings if r.config and r.run)]
    return [Path(c) for c in dict.fromkeys(configs)]


def paper_trials(spec: PaperSpec, config: Path, store: Path) -> pd.DataFrame:
    """The trials of the paper's default reading: its config's, and those of its joined configs
    (:attr:`~treebench.report.spec.PaperSpec.joined`) for the algorithms its own store does not hold.

    A joined config without a store adds nothing (the report then shows the algorithm as not run).
    """
    frame = current_trials(read_store(store), config)
    parts = [frame]
    have = set(frame["algorithm"].astype(str)) if "algorithm" in frame.columns else set()
    for joined in spec.joined:
        path = Path(joined)
        if not path.is_file() or not store_path_for_config(path).exists():
            continue
        extra = current_trials(read_store(store_path_for_config(path)), path)
        if "algorithm" in extra.columns:
            extra = extra[~extra["algorithm"].astype(str).isin(have)]
            have |= set(extra["algorithm"].astype(str))
        if len(extra):
            parts.append(extra)
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else frame


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
    frame = paper_trials(spec, config, store)
    reference = load_reference(spec.reference)
    report = build_report(spec, frame, reference, out_dir, extras=True, reading_sources=_reading_sources(spec))
    paths = write_report(report, out_dir, config=str(config), store=str(store))
    n_ok = int((frame["status"].astype(str) == "ok").sum()) if "status" in frame.columns else len(frame)
    return report, paths + [p for _, p in report.figures], len(frame), n_ok


def reproduce_paper(
    paper: str | PaperSpec, config: Path | None = None, *, out_dir: Path | None = None, run: bool = True,
    workers: int | None = None, echo: Callable[[str], None] | None = None, index: bool = True,
    papers: Iterable[PaperSpec] | None = None, command: str = "", warn: Callable[[str], None] | None = None,
) -> list[Path]:
    """Run a paper's config (unless ``run`` is False), write its report with every extra section, refresh the page.

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
        wall time (:func:`cost_table`); then with one line per other paper
        the page could not rebuild.
    warn
        Called with one ``error: KEY: unreadable kept file: ...`` line per kept
        file of a paper on the refreshed page that could not be used (as
        ``reproduce --all`` prints them on stderr).
    index
        Refresh the page ``OUT/index.html`` when the report folder is
        ``OUT/KEY`` (the default ``results/KEY`` is): this paper's new part and
        every other paper's from its store as it is (:func:`refresh_index`).
    papers
        The page's papers (default: the catalogue).
    command
        The command line, recorded in the page's provenance.

    Returns
    -------
    list of Path
        ``report.md``, ``report.tex``, the figures' PNGs and, when refreshed, the page.
    """
    spec = get_paper(paper) if isinstance(paper, str) else paper
    config = Path(config or spec.config)
    out_dir = Path(out_dir or Path("results") / spec.key)
    page = PaperPage(spec, out_dir=out_dir, config=str(config))
    if config.is_file():
        page.config_sha256 = fingerprint(config)
    if run:
        started = time.perf_counter()
        _run_with_readings(spec, config, workers, page)
        page.run_seconds = time.perf_counter() - started
    started = time.perf_counter()
    store = _store_of(config)
    page.store = str(store)
    page.report, paths, page.n_trials, page.n_ok = _report(spec, config, store, out_dir)
    page.report_seconds = time.perf_counter() - started
    if echo is not None:
        echo(cost_table([page]))
    if index and out_dir.name == spec.key:
        page_path, pages = refresh_index(out_dir.parent, page, papers=papers, command=command)
        paths.append(page_path)
        for other in pages:
            if other is not page and echo is not None and (other.status in (FAILED, KEPT) or other.problems):
                echo(f"{page_path}: {summary_line(other)}")
            for problem in other.problems if warn is not None else ():
                if problem.startswith(UNREADABLE_KEPT):
                    warn(f"error: {other.spec.key}: {problem}")
    return paths


def refresh_index(out_root: Path, fresh: PaperPage, *, papers: Iterable[PaperSpec] | None = None,
                  command: str = "") -> tuple[Path, list[PaperPage]]:
    """Rewrite ``OUT_ROOT/index.html`` around one paper's new part: the others from their stores as they are.

    Every other paper of ``papers`` (default: the catalogue) is reported
    again from its store without running (:func:`reproduce_page` with
    ``run=False``), or shows its last good part when its inputs cannot be
    read (:func:`keep_last_good`).

    Returns
    -------
    (Path, list of PaperPage)
        The page and its papers, ``fresh`` among them.
    """
    out_root = Path(out_root)
    pages = []
    for spec in PAPERS.values() if papers is None else papers:
        if spec.key == fresh.spec.key:
            pages.append(fresh)
        else:
            pages.append(_other_page(spec, out_root / spec.key))
    if fresh not in pages:  # a paper outside the page's list still shows
        pages.append(fresh)
    return publish(pages, out_root / INDEX, command=command), pages


def _other_page(spec: PaperSpec, out_dir: Path) -> PaperPage:
    """Another paper's box on a page refreshed around one paper: its report from its store, else its last
    good part; a failure of its own (its kept files, say) stays on its box, after the fresh paper's
    report was written the page must still be."""
    try:
        return keep_last_good(reproduce_page(spec, out_dir=out_dir, run=False))
    except Exception as exc:
        reason, details = failure_text(exc)
        return PaperPage(spec, out_dir=out_dir, status=FAILED, reason=reason, error_details=details)


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

    A paper whose report cannot be built now but was before keeps its last
    good part on the page (:func:`keep_last_good`).

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
        page = keep_last_good(reproduce_page(spec, out_dir=out_root / spec.key, run=run, workers=workers))
        pages.append(page)
        if echo is not None:
            echo(summary_line(page))
    return publish(pages, out_root / INDEX, command=command), pages


# -- keeping the page up ------------------------------------------------------------------------------
def page_title(pages: Sequence[PaperPage]) -> str:
    """The page's title."""
    return f"treebench: reproductions of {len(pages)} papers"


def publish(pages: Sequence[PaperPage], path: Path, *, command: str = "") -> Path:
    """Write the page to ``path`` and save each freshly reported paper's part as its last good one.

    A part that fails to render makes its paper :data:`~treebench.report.site.FAILED`
    (or :data:`~treebench.report.site.KEPT`, when it has a last good part) and is not saved.
    """
    path = Path(path)
    built = datetime.now(timezone.utc)
    from treebench import __version__

    stamp = f"{built.isoformat(timespec='seconds')} by treebench {__version__}"
    for page in pages:
        if page.status != REPORTED or page.report is None or page.body_html:
            continue
        try:
            page.body_html = paper_body_html(page, path.parent)
        except Exception as exc:  # one paper's odd data must not cost the others their page
            page.reason, page.error_details = failure_text(exc)
            page.status, page.report, page.reason = FAILED, None, f"page part not rendered: {page.reason}"
            keep_last_good(page)
            continue
        save_section(page, stamp)
    return write_index(pages, path, title=page_title(pages), command=command, built=built)


#: The fixed files a paper's report folder receives (its claim figure ``forest`` included; the spec's
#: own figures are named by the spec: :func:`figure_files`).
REPORT_FILES = ("report.md", "report.tex", "verdicts.json", SECTION, "forest.png", "forest.svg")


def figure_files(spec: PaperSpec) -> tuple[str, ...]:
    """The file names of the paper's figures in its report folder: ``NAME.png`` and ``NAME.svg`` each."""
    from treebench.outpaths import with_extension

    return tuple(with_extension(Path(fig.name), suffix).as_posix() for fig in spec.figures
                 for suffix in (".png", ".svg"))


def check_report_places(folder: Path, what: str, page: Path | None = None,
                        files: tuple[str, ...] = REPORT_FILES, spec: PaperSpec | None = None) -> None:
    """Refuse, creating nothing, a report folder whose fixed files, figures (of ``spec``) or page could
    not be written.

    Found before a run of hours or a report of minutes, not after: a folder where ``report.md``
    or a figure's PNG must go, a parent that is a file, a place no file can be created in.
    """
    from treebench.outpaths import check_file, check_folder

    check_folder(folder, what)
    for name in (*files, *(figure_files(spec) if spec is not None else ())):
        check_file(Path(folder) / name, what)
    if page is not None:
        check_file(page, what)


def save_section(page: PaperPage, built: str) -> Path:
    """Keep a paper's rendered part (``page.body_html``) in its folder as :data:`SECTION`; return the file.

    Written to a temporary file and renamed, so a crash never leaves half of it.
    """
    record = {"built": built, "paper": page.spec.number, "key": page.spec.key, "html": page.body_html,
              **{name: getattr(page, name) for name in _KEPT_FIELDS}}
    verdicts = Path(page.out_dir) / "verdicts.json"
    if verdicts.is_file():  # the headline of a kept part counts these verdicts only (read_kept_verdicts)
        record["verdicts_sha256"] = fingerprint(verdicts)
    from treebench.outpaths import write_text

    return write_text(Path(page.out_dir) / SECTION, json.dumps(record), f"--out-dir {str(page.out_dir)!r}")


def _section_paper(record: dict[str, Any]) -> tuple[object, object]:
    """The paper a kept part records: its ``paper``/``key``, or, in a part kept before they were
    recorded, the catalogue paper whose config it names (``None``: a config of no catalogue paper)."""
    if "paper" in record or "key" in record:
        return record.get("paper"), record.get("key")
    config = record.get("config")
    if not isinstance(config, str) or not config:
        return None, None
    for spec in PAPERS.values():  # only a config that is another paper's own tells it apart
        if Path(config).name == Path(spec.config).name:
            return spec.number, spec.key
    return None, None


def read_section(out_dir: Path, spec: PaperSpec | None = None) -> tuple[dict[str, Any] | None, str | None]:
    """A paper's kept part (:data:`SECTION` in ``out_dir``) and ``None``, or ``None`` and why it cannot be used.

    ``(None, None)`` when nothing was kept.  A part that records another paper than ``spec``
    (copied from another paper's folder) cannot be used.
    """
    path = Path(out_dir) / SECTION
    record, problem = read_kept_json(path, "the kept part")
    if record is None:
        return None, problem
    mismatch = other_paper(*_section_paper(record), spec)
    if mismatch:
        return None, f"the kept part {path} {mismatch}"
    html = record.get("html")
    if html is None:
        return None, f"the kept part {path} has no page text ('html')"
    if not isinstance(html, str):  # say what is wrong: the field is there, of another type
        kind = {bool: "true/false", int: "a number", float: "a number", list: "a list", dict: "an object"}.get(
            type(html), type(html).__name__)
        return None, f"the kept part {path} has a page text ('html') of the wrong type: {kind}, not a string"
    if not html.strip():
        return None, f"the kept part {path} has an empty page text ('html')"
    from treebench.report.kept_html import check_kept_html

    # the part goes into the page as HTML: only markup the renderer writes, written again as it was read
    shown, foreign = check_kept_html(html)
    if shown is None:
        return None, (f"the kept part {path} holds markup the report never writes ({foreign}); accepted: "
                      "a part written by treebench reproduce")
    odd = _odd_kept_field(record)
    if odd:  # its fields go into the provenance table as the kept part's trials and config
        return None, f"the kept part {path} {odd}; accepted: a part written by treebench reproduce"
    return {**record, "html": shown}, None


#: The most rows an SQLite table (a results store's trials) can hold: its rowid is a signed 64-bit integer.
MAX_STORE_ROWS = 2**63 - 1


def _odd_kept_field(record: dict[str, Any]) -> str | None:
    """What no part written by :func:`save_section` holds among the provenance fields, or ``None``.

    Counts are whole numbers of trials, at least 0, and no more succeeded than there are
    (``None``: not read); the config, its SHA-256, the store and the verdicts' SHA-256 are text.
    """
    for name in ("config", "config_sha256", "store", "verdicts_sha256"):
        value = record.get(name)
        if value is not None and not isinstance(value, str):
            return f"has a {name!r} that is not text ({json.dumps(value)[:40]})"
    counts = {}
    for name in ("n_trials", "n_ok"):
        value = record.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_STORE_ROWS:
            return (f"has an impossible {name!r} of {json.dumps(value)[:40]} (a count of trials is a whole number "
                    f"from 0 to {MAX_STORE_ROWS}, the most rows a results store can hold)")
        counts[name] = value
    if len(counts) == 2 and counts["n_ok"] > counts["n_trials"]:
        return f"counts more trials ok than it has (n_ok {counts['n_ok']} > n_trials {counts['n_trials']})"
    return None


def load_section(out_dir: Path) -> dict[str, Any] | None:
    """A paper's kept part, or None when there is none or it is unreadable (:func:`read_section` says why)."""
    return read_section(out_dir)[0]


def keep_last_good(page: PaperPage) -> PaperPage:
    """A paper that could not be reported now (not run, failed) shows its last good part if it has one.

    Its status becomes :data:`~treebench.report.site.KEPT`; the reason it
    could not be rebuilt stays on the page with when the kept part was built.
    """
    if page.status not in (NOT_RUN, FAILED) or page.report is not None:
        return page
    record, problem = read_section(page.out_dir, page.spec)
    if record is None:
        if problem:  # kept, but unusable: said on the page and in the command's output
            page.problems.append(f"{UNREADABLE_KEPT}{problem}: no last good part to show")
        return page
    page.status, page.body_html, page.kept_built = KEPT, record["html"], str(record.get("built") or "?")
    digest = record.get("verdicts_sha256")
    page.kept_verdicts_sha256 = digest if isinstance(digest, str) else ""
    _, unread = read_kept_verdicts(Path(page.out_dir), page.spec, page.kept_verdicts_sha256, page.body_html)
    if unread:
        page.problems.append(f"{UNREADABLE_KEPT}{unread}: the verdicts headline leaves them out")
    for name in _KEPT_FIELDS:
        if getattr(page, name) in (None, "") and record.get(name) not in (None, ""):
            setattr(page, name, record[name])
    return page


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
    if page.status == KEPT:
        line += f"; showing its last good part, built {page.kept_built}"
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
