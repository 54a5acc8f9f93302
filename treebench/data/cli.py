"""``treebench datasets ...``: list, describe, fetch and verify datasets.

Registered in :mod:`treebench.cli`; also runnable alone as
``python -m treebench.data``.
"""

from __future__ import annotations

import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from treebench.console import run_command
from treebench.errors import TreebenchError
from treebench.text_table import format_table


@contextmanager
def _warnings_to_stderr() -> Iterator[None]:
    """Show data warnings as ``warning: ...`` lines, not Python warning blocks."""
    from treebench.data.loader import DataWarning

    def show(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001
        click.echo(f"warning: {message}", err=True)

    with warnings.catch_warnings():
        warnings.simplefilter("always", DataWarning)
        warnings.showwarning = show
        yield


def _context():
    from treebench.data.cards import CardRegistry
    from treebench.data.settings import Settings

    settings = Settings.from_env()
    return CardRegistry(settings.card_folders), settings


@click.group("datasets")
def datasets() -> None:
    """Dataset cards, local copies and downloads.

    Data is looked for in the cache (TREEBENCH_CACHE), then in the mirror
    folders of TREEBENCH_DATA (a path list), then in scikit-learn's bundled
    copies, then on OpenML and UCI.  TREEBENCH_OFFLINE=1 skips the network.
    The first copy found must be the card's table (its counts and checksum):
    a corrupt local copy is an error, never a reason to use another source.
    Cards are read from the folders of TREEBENCH_CARDS (a path list; default
    ~/.local/share/treebench/cards) and then from the built-in cards.
    """


@datasets.command("list")
@click.option("--paper", metavar="ID", help="Only datasets whose card names this paper id (e.g. smith2015).")
def list_command(paper: str | None) -> None:
    """Table of all datasets: size, papers, and where a local copy is."""
    from treebench.data.loader import local_sources

    registry, settings = _context()
    cards = registry.validate()
    if paper is not None:
        named = sorted({p for card in cards for p in card.papers})
        if paper not in named:
            raise TreebenchError(
                f"no dataset card names paper {paper!r}; accepted: {', '.join(named) or 'none (no card names a paper)'}"
            )
        cards = [c for c in cards if paper in c.papers]
    rows = []
    available = 0
    for card in cards:
        where = local_sources(card, registry, settings)
        available += bool(where)
        local = ("derived: " if card.is_derived and where else "") + (", ".join(where) or "no")
        e = card.expected
        rows.append([card.name, e.rows, e.features, e.classes, ",".join(card.papers) or "-", local])
    click.echo(format_table(["name", "rows", "features", "classes", "papers", "local"], rows, numeric=(1, 2, 3)))
    aliases = registry.aliases()
    click.echo("")
    click.echo(f"{len(cards)} datasets, {available} available locally; mirrors: {settings.describe_mirrors()}")
    if aliases:
        click.echo("aliases: " + ", ".join(f"{a} -> {n}" for a, n in sorted(aliases.items())))
    click.echo("cards: " + ", ".join(_describe_folder(f, settings) for f in registry.directories))
    shown = {card.name for card in cards}
    from treebench.data.cards import display_path

    for name, hidden in registry.overrides().items():
        if name in shown:
            winner = registry.get(name).display_path
            click.echo(f"note: {winner} overrides {', '.join(display_path(p) for p in hidden)}")


def _describe_folder(folder, settings) -> str:  # noqa: ANN001
    from treebench.data.cards import display_path

    kind = "built-in" if folder == settings.cards_dir else "user"
    state = "" if folder.is_dir() else ", no such folder yet"
    return f"{display_path(folder)} ({kind}{state})"


@datasets.command("info")
@click.argument("name")
def info_command(name: str) -> None:
    """Everything the card says about NAME, and its local copy if there is one."""
    from treebench.data.loader import Loader, local_sources

    registry, settings = _context()
    card = registry.get(name)
    out: list[tuple[str, str]] = []
    add = out.append
    add(("name", card.name + (f" ({card.title})" if card.title else "")))
    if card.aliases:
        add(("aliases", ", ".join(card.aliases)))
    add(("card", card.display_path))
    add(("description", card.description))
    if card.citation:
        add(("citation", card.citation))
    add(("papers", ", ".join(card.papers) or "-"))
    if card.is_derived:
        add(("derived from", card.derived_from or ""))
        from treebench.data.derive import describe

        for op in card.operations:
            add(("operation", describe(op)))
        if not card.operations:
            add(("operation", "none (the same rows as the base)"))
    else:
        if card.uci is not None:
            uci = f"id {card.uci.id}" if card.uci.id else "no id"
            if card.uci.page:
                uci += f", {card.uci.page}"
            if card.uci.files:
                uci += f"; download recipe: {len(card.uci.files)} file(s)"
            add(("UCI", uci))
        if card.openml is not None:
            o = card.openml
            text = f"id {o.id}, version {o.version}" if o.id else "no id"
            if o.id and not o.fetch:
                text += " (not downloaded: OpenML's copy differs)"
            add(("OpenML", text))
        if card.embedded is not None:
            add(("embedded", f"sklearn.datasets.{card.embedded.loader}"))
        for url in card.urls:
            add(("source", url))
        if card.provenance:
            add(("provenance", card.provenance))
        add(("target", card.target))
        kinds = card.feature_kinds
        for kind in ("numeric", "nominal", "ordinal"):
            columns = [c for c, k in kinds.items() if k == kind]
            if columns:
                add((f"{kind} ({len(columns)})", ", ".join(columns)))
        for column, levels in card.ordinal.items():
            if levels:
                add(("order", f"{column}: {' < '.join(levels)}"))
        if card.non_features:
            add(("not features", ", ".join(card.non_features)))
        for fix in card.corrections:
            add(("correction", f"row {fix.row} {fix.column}: {fix.was!r} -> {fix.value!r} ({fix.reason})"))
    e = card.expected
    counts = ", ".join(f"{k} {v}" for k, v in (e.class_counts or {}).items())
    missing = f", {e.missing} missing cells" if e.missing is not None else ""
    add(("expected", f"{e.rows} rows, {e.features} features, {e.classes} classes{missing}"))
    if counts:
        add(("class counts", counts))
    if card.notes:
        add(("notes", card.notes))
    add(("checksum", card.checksum or f"none (not pinned: `treebench datasets verify {card.name} --write-checksums`)"))
    where = local_sources(card, registry, settings)
    add(("local copy", ", ".join(where) if where else f"none (mirrors: {settings.describe_mirrors()})"))
    failure = None
    if where:
        from dataclasses import replace

        with _warnings_to_stderr():
            try:
                ds = Loader(registry, replace(settings, offline=True)).load(card)
                add(("loaded", f"{ds.n_samples} rows, {ds.n_features} features, {ds.n_classes} classes from {ds.source}"))
                if card.checksum is None:
                    add(("content", f"sha256 {ds.checksum}"))
                else:
                    add(("content", "matches the card's checksum"))
            except TreebenchError as exc:
                add(("loaded", "FAILED (see the error below)"))
                failure = exc
    width = max(len(k) for k, _ in out) + 2
    for key, value in out:
        lines = textwrap.wrap(value, 100 - width, break_on_hyphens=False) or [""]
        click.echo(f"{key + ':':<{width}}{lines[0]}")
        for more in lines[1:]:
            click.echo(" " * width + more)
    if failure is not None:
        raise failure  # the card is shown; the bad local copy is an error (exit 2)


@datasets.command("fetch")
@click.argument("names", nargs=-1)
@click.option("--all", "fetch_all", is_flag=True, help="Every dataset.")
@click.option("--refresh", is_flag=True, help="Download again even if a local copy exists.")
def fetch_command(names: tuple[str, ...], fetch_all: bool, refresh: bool) -> None:
    """Make NAMES available locally (downloads go to the cache), with progress."""
    from tqdm import tqdm

    from treebench.data.loader import Loader
    from treebench.data.openml import is_ref, parse_ref

    registry, settings = _context()
    if fetch_all:
        names = tuple(registry.names())
    if not names:
        raise TreebenchError("name at least one dataset, or use --all; `treebench datasets list` shows them")
    refs = [parse_ref(n) for n in names if is_ref(n)]  # bad references fail before any download
    if refs:
        if len(refs) != len(names):
            raise TreebenchError("fetch either dataset names or OpenML references (openml:ID, openml-task:ID, "
                                 "openml-suite:ID), not both in one command")
        _fetch_openml(refs, settings)
        return
    cards = [registry.get(n) for n in names]  # unknown names fail before any download
    failures: list[str] = []
    bars: dict[str, tqdm] = {}

    def progress(done: int, total: int | None, what: str) -> None:
        bar = bars.get(what)
        if bar is None:
            bar = bars[what] = tqdm(total=total, desc=what, unit="B", unit_scale=True, leave=False, file=sys.stderr)
        bar.update(done - bar.n)

    outer = tqdm(cards, desc="fetch", unit="dataset", disable=len(cards) < 2, file=sys.stderr, leave=False)
    with _warnings_to_stderr():
        for card in outer:
            outer.set_postfix_str(card.name)
            loader = Loader(registry, settings, progress=progress, refresh=refresh)
            try:
                target = card
                if refresh:  # refresh the raw base; derived data is rebuilt from it
                    while target.derived_from is not None:
                        target = registry.get(target.derived_from)
                ds = loader.load(target)
                if target is not card:
                    ds = Loader(registry, settings).load(card)
            except TreebenchError as exc:
                if len(cards) == 1:
                    raise  # one dataset: its error is the one line to show
                failures.append(card.name)
                tqdm.write(f"error: {exc}", file=sys.stderr)
                continue
            finally:
                for bar in bars.values():
                    bar.close()
                bars.clear()
            tqdm.write(f"{card.name}: ok, {ds.n_samples} rows, {ds.n_classes} classes ({ds.source})")
    if failures:
        raise TreebenchError(
            f"{len(failures)} of {len(cards)} datasets could not be fetched: {', '.join(failures)} (reasons above)"
        )


def _fetch_openml(refs, settings) -> None:  # noqa: ANN001
    """Put OpenML datasets, tasks (with their data and splits) and suites into the cache."""
    from treebench.data import openml as oml

    for ref in refs:
        if ref.kind == "dataset":
            table = oml.read_dataset(int(ref.key), settings, qualities=True)
            click.echo(f"{ref.text}: ok, {table.name}, {len(table.frame)} rows (OpenML cache {oml.cache_root(settings)})")
            continue
        tasks = [int(ref.key)] if ref.kind == "task" else list(oml.suite(ref.key, settings).tasks)
        for task_id in tasks:
            data = oml.load_task(task_id, settings)
            info = data.info
            click.echo(
                f"openml-task:{task_id}: ok, {info.dataset_name} (OpenML dataset {info.dataset_id}, target "
                f"{info.target}), {data.dataset.n_samples} rows, {info.folds} folds x {info.repeats} repeats"
            )


@datasets.command("add")
@click.argument("ref", metavar="openml:ID")
@click.option("--name", help="The card's name (default: OpenML's dataset name).")
@click.option("--target", help="The class column (default: OpenML's default target).")
@click.option("--force", is_flag=True, help="Replace a user card of that name.")
def add_command(ref: str, name: str | None, target: str | None, force: bool) -> None:
    """Write a card for OpenML dataset ID from OpenML's metadata.

    The card goes to the first folder of TREEBENCH_CARDS (default
    ~/.local/share/treebench/cards): the dataset's name, OpenML id and
    version, target, features with their kinds and levels, counts, and the
    checksum of its table.  The table is put in the cache, so the dataset
    then loads offline like any other.
    """
    from dataclasses import replace

    from treebench.data.loader import Loader
    from treebench.data.openml import add_card

    _registry, settings = _context()
    with _warnings_to_stderr():
        added = add_card(ref, settings, name=name, target=target, force=force)
        from treebench.data.cards import CardRegistry

        registry = CardRegistry(settings.card_folders)
        ds = Loader(registry, replace(settings, offline=True)).load(registry.get(added.card.name))
    card = added.card
    click.echo(
        f"wrote {card.display_path}: {card.name}, {ds.n_samples} rows, {ds.n_features} features, "
        f"{ds.n_classes} classes, checksum {ds.checksum} (OpenML dataset {card.openml.id if card.openml else '?'})"
    )
    if added.overrides is not None:
        from treebench.data.cards import display_path

        click.echo(f"note: it overrides {display_path(added.overrides)}")


@datasets.command("verify")
@click.argument("names", nargs=-1)
@click.option(
    "--write-checksums",
    "write",
    is_flag=True,
    help="First compute the canonical checksum of each card's table from its local copies "
    "(which must agree) and write it into the card.",
)
def verify_command(names: tuple[str, ...], write: bool) -> None:
    """Check every local copy of every dataset (or of NAMES) against its card.

    A copy passes when it is readable, every numeric cell is finite, and it
    has the card's counts and canonical checksum.  Exits with status 1 when a
    copy fails (one summary line on stderr).  Datasets with no local copy are
    listed but do not fail the check.
    """
    from tqdm import tqdm

    from treebench.data.verify import ABSENT, FAILED, OK, verify, write_checksums

    registry, settings = _context()
    total = len(names) or len(registry.names())

    @contextmanager
    def progress(what: str) -> Iterator[Callable[..., None]]:
        # disable=None: no bar when stderr is not a terminal (logs, tests)
        bar = tqdm(total=total, desc=what, unit="dataset", leave=False, file=sys.stderr, disable=None)

        def on_card(card) -> None:  # noqa: ANN001
            bar.set_postfix_str(card.name)
            bar.update(1)

        try:
            yield on_card
        finally:
            bar.close()

    if write:
        with progress("checksums") as on_card:
            written = write_checksums(registry, settings, list(names) or None, on_card=on_card)
        for w in written:
            if w.checksum is None:
                click.echo(f"{w.name}: no local copy, {w.path} left as it is")
            else:
                what = "written to" if w.changed else "already in"
                click.echo(f"{w.name}: checksum {w.checksum} {what} {w.path}")
        click.echo("")
    with progress("verify") as on_card:
        verdicts = verify(registry, settings, list(names) or None, on_card=on_card)
    rows = []
    for v in verdicts:
        ds = v.dataset
        size = f"{ds.n_samples} x {ds.n_features}, {ds.n_classes} classes" if ds is not None else ""
        status = {OK: "OK", FAILED: "FAILED", ABSENT: "absent"}[v.status]
        detail = v.detail if v.status != OK else f"sha256 {ds.checksum[:12]}" if ds else ""
        rows.append([status, v.name, size, v.where or "-", detail])
    click.echo(format_table(["status", "dataset", "size", "copy", "detail"], rows))
    ok = sum(v.status == OK for v in verdicts)
    failed = sum(v.status == FAILED for v in verdicts)
    absent = sorted({v.name for v in verdicts if v.status == ABSENT})
    checked = len({v.name for v in verdicts if v.status != ABSENT})
    click.echo("")
    click.echo(
        f"{checked} datasets checked ({ok + failed} copies): {ok} OK, {failed} failed; "
        f"{len(absent)} not available locally{': ' + ', '.join(absent) if absent else ''}"
    )
    click.echo(f"mirrors: {settings.describe_mirrors()}")
    if failed:
        bad = [f"{v.name} ({v.where}): {v.detail}" for v in verdicts if v.status == FAILED]
        more = f"; and {len(bad) - 3} more (see the table)" if len(bad) > 3 else ""
        click.echo(f"error: {failed} of {ok + failed} copies failed verification: {'; '.join(bad[:3])}{more}", err=True)
        raise SystemExit(1)


def run(argv: list[str] | None = None) -> None:
    """Entry point of ``python -m treebench.data``: same error handling as ``treebench``."""
    run_command(datasets, argv, "python -m treebench.data")
