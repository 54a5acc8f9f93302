"""Command-line entry point: ``treebench <group> <command>``.

Each command group lives next to the layer it drives (``treebench.criteria.cli``,
``treebench.data.cli``, ...); this module only assembles them and turns user
errors into one-line messages with a non-zero exit.
"""

from __future__ import annotations

import click

from treebench import __version__
from treebench.console import refuse_repeated_options, run_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="treebench")
def cli() -> None:
    """Experiments on decision-tree split criteria."""


def _register() -> None:
    from treebench.criteria.cli import criteria
    from treebench.demo import demo

    cli.add_command(criteria)
    cli.add_command(demo)
    # --- command groups of other layers are registered below this line ---
    from treebench.data.cli import datasets

    cli.add_command(datasets)
    from treebench.papers.cli import reproduce
    from treebench.report.cli import compare, plot

    for command in (compare, plot, reproduce):
        cli.add_command(command)
    from treebench.experiment.cli import results, run

    cli.add_command(run)
    cli.add_command(results)
    from treebench.papers.certainty.cli import certainty

    cli.add_command(certainty)
    from treebench.leaderboard.cli import leaderboard

    cli.add_command(leaderboard)
    # here, not only in main: click's CliRunner (tests, embedding) invokes the group directly
    refuse_repeated_options(cli)


_register()


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; user errors print one line on stderr and exit with status 2."""
    run_command(cli, argv, "treebench")


if __name__ == "__main__":  # pragma: no cover
    main()
