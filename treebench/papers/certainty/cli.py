"""``treebench certainty DATASET``: the certainty-raising inequality of paper 003.

A thin click wrapper: load the dataset, compute the report
(:mod:`treebench.criteria.inequality`), format and plot it
(:mod:`treebench.papers.certainty.inequality`).  Heavy imports happen inside the
command so that ``treebench --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import click

from treebench.console import OutPath
from treebench.errors import TreebenchError, first_repeat
from treebench.outpaths import check_format_suffix, check_not_input
from treebench.report.cli import check_outputs, figure_base, stdout_dash, write_output

_TABLES = ("both", "attributes", "values")


@click.command()
@click.argument("dataset")
@click.option("--format", "fmt", type=click.Choice(("md", "csv")), default="md", show_default=True,
              help="Output format of the tables.")
@click.option("--table", type=click.Choice(_TABLES), default="both", show_default=True,
              help="Which table: the attribute ranking, the per-value comparisons, or both.")
@click.option("--attribute", "attributes", multiple=True,
              help="Only these attributes (repeatable).")
@click.option("--out", type=OutPath(dir_okay=False, path_type=Path, dash=True), default=None,
              help="Write the tables here instead of stdout ('-': stdout).")
@click.option("--plot", "plot_path", type=OutPath(dir_okay=False, path_type=Path, writes="figures: FILE.png, FILE.svg"),
              default=None,
              help="Also draw the bar plot (FILE.png and FILE.svg).")
def certainty(dataset: str, fmt: str, table: str, attributes: tuple[str, ...], out: Path | None,
              plot_path: Path | None) -> None:
    """Rank DATASET's attributes by conditional certainty I(C|A) against I(C) (paper 003).

    Numeric attributes are split at the threshold that maximises I(C|A);
    see docs/criteria.md.
    """
    from treebench.criteria.inequality import inequality_report
    from treebench.data.loader import load
    from treebench.papers.certainty.inequality import plot, render

    out = stdout_dash(out)
    check_outputs(out, plot_path)  # before writing a byte: a bad --plot must not leave --out half done
    check_format_suffix(out, fmt)
    check_not_input(out, ())  # reads a dataset by name: only the config/plugin suffix rule applies
    data = load(dataset)
    X = data.X
    if attributes:
        unknown = [a for a in attributes if a not in X.columns]
        if unknown:
            raise TreebenchError(
                f"dataset {dataset!r} has no attribute {unknown[0]!r}; accepted: {', '.join(map(str, X.columns))}"
            )
        twice = first_repeat(attributes)
        if twice is not None:
            raise TreebenchError(f"--attribute {twice!r} is given twice; accepted: each attribute once")
        X = X[list(attributes)]
    report = inequality_report(X, data.y)
    write_output(render(report, dataset, fmt, table), out)
    if plot_path is not None:
        for path in plot(report, dataset, figure_base(plot_path)):
            click.echo(f"wrote {path}", err=True)
