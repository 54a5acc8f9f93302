"""Run a click command the treebench way: user errors as one line, no traceback."""

from __future__ import annotations

import os
import sys

import click

from treebench.errors import TreebenchError


def run_command(command: click.Command, argv: list[str] | None, prog_name: str) -> None:
    """Invoke ``command``; a :class:`TreebenchError` or a usage error prints one
    ``error: ...`` line and exits 2 (click's code for usage errors), Ctrl-C exits 130.

    Every command under ``command`` refuses a single-value option given twice
    (:func:`refuse_repeated_options`).
    """
    refuse_repeated_options(command)
    try:
        status = command.main(args=argv, prog_name=prog_name, standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.UsageError as exc:
        # click's own three-line usage block, as one line like every other error
        where = exc.ctx.command_path if exc.ctx is not None else prog_name
        click.echo(f"error: {exc.format_message()} (see '{where} --help')", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except TreebenchError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    if isinstance(status, int) and status != 0:
        sys.exit(status)


def refuse_repeated_options(command: click.Command) -> None:
    """Make ``command`` and every command under it refuse a single-value option given twice.

    click keeps the last value of such an option without a word, so
    ``--criteria belief --criteria entropy,gini`` would drop ``belief`` while a
    repeatable option (``--plugin``) adds up: a user cannot tell the two apart.
    Options declared ``multiple``, counted or flags (``-q -q`` means ``-q``)
    are left alone.  Wrapping each command's parser is the one place that sees
    every occurrence (click's parser records them in order).
    """
    if not getattr(command, "_refuses_repeats", False):
        make_parser = command.make_parser

        def checked_make_parser(ctx: click.Context):  # noqa: ANN202 - click's private parser type
            parser = make_parser(ctx)
            parse = parser.parse_args

            def parse_args(args: list[str]):  # noqa: ANN202 - as click's
                opts, rest, order = parse(args=args)
                _refuse_repeats(order, ctx)
                return opts, rest, order

            parser.parse_args = parse_args
            return parser

        command.make_parser = checked_make_parser
        command._refuses_repeats = True
    for sub in getattr(command, "commands", {}).values():
        refuse_repeated_options(sub)


def _refuse_repeats(order: list, ctx: click.Context) -> None:
    """A usage error naming the first single-value option that occurs twice in ``order``."""
    seen: set[int] = set()
    for param in order:
        if not isinstance(param, click.Option) or param.multiple or param.count or param.is_flag:
            continue
        if id(param) in seen:
            name = max(param.opts, key=len)
            # a list option (metavar A,B,...) takes its names in one value, not in repeats
            listed = " with the names in one comma-separated value" if ",..." in (param.metavar or "") else ""
            raise click.UsageError(f"option {name} is given twice, and it takes one value (the last would replace "
                                   f"the first without a word); accepted: {name} once{listed}", ctx)
        seen.add(id(param))


class OutPath(click.Path):
    """``click.Path`` for an output place that refuses an empty or blank path in one line.

    ``click.Path(path_type=Path)`` turns ``""`` into ``Path(".")``, the current
    folder: ``--out-dir ""`` would write there and ``--out ""`` would be
    reported as "'.' is a folder".  An empty path is a mistake (an unset shell
    variable, say), so it is refused, naming the option.  So is ``-`` unless
    the option prints there (``dash``): a figure, a folder or a store cannot
    go to standard output, and a file named ``-`` (``-.png``) is no one's intent.
    """

    def __init__(self, folder: bool = False, dash: bool = False, writes: str | None = None,
                 **kwargs: object) -> None:
        """``folder``: the option names a folder (for the message); ``dash``: ``-`` means standard output
        (the command prints there); ``writes``: what the option writes, for the refusal of ``-``
        (default: a folder, or a file); ``kwargs`` go to ``click.Path``."""
        super().__init__(**kwargs)
        self.folder = folder
        self.dash = dash
        self.writes = writes or ("a folder" if folder else "a file")

    def convert(self, value, param, ctx):  # noqa: ANN001, ANN201 - click's signature
        if isinstance(value, str) and not value.strip():
            from treebench.outpaths import FILE_ACCEPTED, FOLDER_ACCEPTED

            option = param.opts[0] if param is not None and param.opts else "the path"
            accepted = FOLDER_ACCEPTED if self.folder else FILE_ACCEPTED
            raise TreebenchError(f"{option} {value!r}: the path is empty; accepted: {accepted}")
        if isinstance(value, str) and value == "-" and not self.dash:
            from treebench.outpaths import FILE_ACCEPTED, FOLDER_ACCEPTED

            option = param.opts[0] if param is not None and param.opts else "the path"
            accepted = FOLDER_ACCEPTED if self.folder else FILE_ACCEPTED
            raise TreebenchError(f"{option} '-' names standard output, where {option} cannot write (it writes "
                                 f"{self.writes}); accepted: {accepted}")
        if isinstance(value, str) and not self.folder and value.endswith(("/", os.sep)):
            from treebench.outpaths import FILE_ACCEPTED

            option = param.opts[0] if param is not None and param.opts else "the path"
            # Path("x/") is Path("x"): the user named a folder and would get a file called x
            raise TreebenchError(f"{option} {value!r} ends with a separator, so it names a folder; accepted: "
                                 f"{FILE_ACCEPTED} (no trailing '/')")
        return super().convert(value, param, ctx)
