"""``treebench reproduce PAPER``: rerun a catalogued paper and report against its published numbers.

A thin click wrapper around :func:`treebench.papers.reproduce.reproduce_paper`;
the catalogue (and with it pandas) is imported inside the command so that
``treebench --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import click

from treebench.errors import TreebenchError


@click.command()
@click.argument("paper", metavar="PAPER")
@click.option("--no-run", is_flag=True, help="Do not run the config; report on the results already stored.")
@click.option("--jobs", "workers", type=int, default=None, help="Worker processes for the run (as treebench run --jobs).")
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where report.md, report.tex and figures go (default results/PAPER).")
def reproduce(paper: str, no_run: bool, workers: int | None, out_dir: Path | None) -> None:
    """Rerun a paper's config (resuming) and report, cell by cell, against the published numbers.

    PAPER is one of serrurier2015, mee, tsallis, certainty, belief.
    """
    from treebench.papers.catalogue import PAPERS, get_paper
    from treebench.papers.reproduce import reproduce_paper

    try:
        spec = get_paper(paper)
    except TreebenchError:
        raise TreebenchError(f"unknown paper {paper!r}; accepted: {', '.join(PAPERS)}") from None
    config = Path(spec.config)
    if not config.exists():
        raise TreebenchError(
            f"no config for {spec.key} yet ({config}); the reference numbers are in "
            f"results/reference/{spec.reference}"
        )
    for path in reproduce_paper(spec, config, out_dir=out_dir, run=not no_run, workers=workers):
        click.echo(f"wrote {path}")
