"""``treebench reproduce PAPER|--all``: rerun catalogued papers and report against their published numbers.

A thin click wrapper around :func:`treebench.papers.reproduce.reproduce_paper`
and :func:`~treebench.papers.reproduce.reproduce_all`; the catalogue (and
with it pandas) is imported inside the command so that ``treebench --help``
stays fast.
"""

from __future__ import annotations

from pathlib import Path

import click

from treebench.console import OutPath
from treebench.errors import TreebenchError


@click.command()
@click.argument("paper", metavar="PAPER", required=False)
@click.option("--all", "every", is_flag=True,
              help="Every paper of the catalogue, then one page for all of them: OUT_DIR/index.html.")
@click.option("--no-run", is_flag=True, help="Do not run the config; report on the results already stored.")
@click.option("--jobs", "workers", type=int, default=None, help="Worker processes for the run (as treebench run --jobs).")
@click.option("--out-dir", type=OutPath(folder=True, file_okay=False, path_type=Path),
              help="Where report.md, report.tex and figures go (default results/PAPER); "
                   "with --all, the folder of index.html and of one folder per paper (default results).")
def reproduce(paper: str | None, every: bool, no_run: bool, workers: int | None, out_dir: Path | None) -> None:
    """Rerun a paper's config (resuming) and report, cell by cell, against the published numbers.

    PAPER is one of serrurier2015, mee, tsallis, certainty, belief, or the path
    of a paper folder (a folder holding paper.yaml; docs/papers.md).  With --all,
    every paper is done in turn (one that fails does not stop the others) and
    results/index.html shows them all: verdicts, coloured cells, figures and
    provenance.  A single PAPER refreshes that page too (the other papers from
    their stores as they are).  A paper whose inputs cannot be read keeps its
    last good part on the page.  The exit status is 1 when a run or a report
    failed, a paper could not be rebuilt, or a kept file on the page could not
    be used (named on stderr, with PAPER as with --all).
    """
    from treebench.papers.catalogue import PAPERS

    if every == bool(paper):
        raise click.UsageError("give a PAPER or --all (not both)")
    if out_dir is not None:  # before any run: a bad place is found now, not after hours of trials
        from treebench.outpaths import check_folder

        check_folder(out_dir, f"--out-dir {str(out_dir)!r}")
    if workers is not None:  # as run: 0 and negative refused, more than the cores capped
        from treebench.experiment.executors import check_jobs

        workers = check_jobs(workers, lambda line: click.echo(line, err=True))
    if every:
        from treebench.papers import reproduce as R
        from treebench.papers.reproduce import NOT_RUN, UNREADABLE_KEPT, cost_table, reproduce_all

        catalogue = R.PAPERS  # the papers reproduce_all will do
        present = [Path(spec.config) for spec in catalogue.values() if Path(spec.config).is_file()]
        if not present:
            raise TreebenchError(
                f"nothing to reproduce: no paper's config is here ({', '.join(s.config for s in catalogue.values())}); "
                "accepted: run it from the folder holding configs/ (the repository's root)"
            )
        for spec in catalogue.values():  # a store of another experiment stops everything, as it stops run
            config = Path(spec.config)
            if not config.is_file():
                continue
            problem = unreadable_store(config)
            if problem is not None:  # a junk store is one paper's problem: named now, the others go on
                click.echo(f"error: {spec.key}: {problem}; the other papers go on", err=True)
                continue
            check_store(config, skip_bad_config=True)
        root = out_dir or Path("results")
        shown = f"--out-dir {str(out_dir)!r}" if out_dir is not None else repr(str(root))
        from treebench.papers.places import check_no_board, check_page_is_ours

        check_no_board(root, shown)  # its index.html is a board's page
        check_page_is_ours(root / R.INDEX, shown)  # or a page of the user's own
        for spec in catalogue.values():  # every place written, before any paper runs
            if no_run and not _has_store(Path(spec.config)):
                continue  # nothing of it is written, its kept part only read: a bad one is named on its box
            check_no_board(root / spec.key, shown)
            R.check_report_places(root / spec.key, shown, spec=spec)
        R.check_report_places(root, shown, root / R.INDEX, files=())

        options = ["--no-run"] * no_run + (["--jobs", str(workers)] if workers else [])
        options += ["--out-dir", str(out_dir)] if out_dir else []
        index, pages = reproduce_all(out_dir or Path("results"), run=not no_run, workers=workers, echo=click.echo,
                                     command=" ".join(["treebench reproduce --all", *options]))
        click.echo(f"wrote {index}")
        click.echo(cost_table(pages))
        failed = [p.spec.key for p in pages if p.status == "failed" or (p.problems and p.status != "kept")]
        nothing = all(p.status == NOT_RUN for p in pages)
        if nothing:
            click.echo(f"error: nothing reproduced: no paper has a results store (see {index})", err=True)
            failed = []  # their only problem: said in that line (and the kept files they could not use, below)
        if failed:
            click.echo(f"error: {', '.join(failed)} failed (see {index})", err=True)
        for p in pages:  # kept files that could not be used: named, as on the page
            for problem in p.problems:
                if problem.startswith(UNREADABLE_KEPT):
                    click.echo(f"error: {p.spec.key}: {problem}", err=True)
        for p in pages:  # could not be read now: the page keeps their last good part
            if p.status == "kept":
                click.echo(f"error: could not rebuild {p.spec.key}: {p.reason}; {index} keeps its last good "
                           f"part, built {p.kept_built}", err=True)
        if nothing or failed or any(p.status == "kept" for p in pages):
            click.get_current_context().exit(1)
        return
    from treebench.papers.catalogue import paper_from_argument
    from treebench.papers.reproduce import reproduce_paper

    spec = paper_from_argument(paper)  # a catalogue name, or a paper folder anywhere on disk
    config = Path(spec.config)
    if not config.exists():
        if not any(Path(s.config).is_file() for s in PAPERS.values()):  # the wrong folder, not a missing config
            raise TreebenchError(
                f"{spec.key}'s config {str(config)!r} is not in this folder ({Path.cwd()}), nor any paper's; "
                "accepted: run it from the folder holding configs/ (the repository's root)"
            )
        raise TreebenchError(
            f"no config for {spec.key} yet ({config}); the reference numbers are in "
            f"{spec.reference if Path(spec.reference).is_absolute() else 'results/reference/' + spec.reference}"
        )
    check_store(config)
    from treebench.papers.places import check_no_board, check_no_other_paper, check_page_is_ours
    from treebench.papers.reproduce import INDEX, check_report_places

    folder = Path(out_dir or Path("results") / spec.key)
    shown = f"--out-dir {str(out_dir)!r}" if out_dir is not None else None
    page = folder.parent / INDEX if folder.name == spec.key else None
    check_no_other_paper(folder, spec, shown or repr(str(folder)))  # e.g. results/tsallis for certainty
    for place in (folder, *((page.parent,) if page is not None else ())):
        check_no_board(place, shown or repr(str(folder)))
    if page is not None:
        check_page_is_ours(page, shown or repr(str(folder)))
    check_report_places(folder, shown or repr(str(folder)), page, spec=spec)
    lines: list[str] = []
    unusable: list[str] = []  # kept files that could not be used: stderr and exit 1, as with --all
    options = ["--no-run"] * no_run + (["--jobs", str(workers)] if workers else [])
    options += ["--out-dir", str(out_dir)] if out_dir else []
    for path in reproduce_paper(spec, config, out_dir=out_dir, run=not no_run, workers=workers, echo=lines.append,
                                command=" ".join(["treebench reproduce", spec.key, *options]), warn=unusable.append):
        click.echo(f"wrote {path}")
    for line in lines:  # the cost last, below the files written
        click.echo(line)
    for line in unusable:
        click.echo(line, err=True)
    if unusable:
        click.get_current_context().exit(1)


def _has_store(config: Path) -> bool:
    """Whether ``config`` loads and its results store exists (``reproduce --no-run`` then writes a report)."""
    from treebench.report.source import store_path_for_config

    if not config.is_file():
        return False
    try:
        store = store_path_for_config(config)
    except Exception:  # a config that does not load: the paper fails on its box, nothing is written
        return False
    return store.exists() or store.is_symlink()


def unreadable_store(config: Path) -> str | None:
    """Why the results store of ``config`` cannot be read (not SQLite, not a results store, a folder...),
    or None (it reads, it does not exist yet, or the config itself does not load)."""
    from treebench.experiment.config import load_config
    from treebench.experiment.store import check_shape, open_readonly

    try:
        store = Path(load_config(config).store)
    except TreebenchError:
        return None
    if not store.exists() and not store.is_symlink():
        return None
    try:
        conn = open_readonly(store)
        try:
            check_shape(conn, str(store), allow_empty=True)
        finally:
            conn.close()
    except TreebenchError as exc:
        return str(exc)
    return None


def check_store(config: Path, *, skip_bad_config: bool = False) -> None:
    """Refuse, as ``treebench run`` does, a results store that holds another experiment than ``config``'s.

    With ``skip_bad_config`` a config that does not load is left to the
    paper's page (``--all``: one paper's problem does not stop the others).
    """
    from treebench.experiment.config import load_config
    from treebench.experiment.runner import experiment_identity
    from treebench.experiment.store import check_run

    try:
        loaded = load_config(config)
    except TreebenchError:
        if skip_bad_config:
            return
        raise
    if Path(loaded.store).exists():
        check_run(loaded.store, experiment_identity(loaded), busy_ok=True)
