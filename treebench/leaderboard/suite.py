"""The leaderboard's datasets: resolve a suite and describe each dataset by its meta-features.

A suite is ``bundled`` (every raw classification card with a local copy in the
mirror folders, ``TREEBENCH_DATA``), ``openml-suite:ID`` (one ``openml-task:ID``
entry per task, each on its own splits) or a file listing dataset names.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError, first_repeat

SUITE_FORMS = "bundled, openml-suite:ID (or :ALIAS), or a file listing one dataset per line"


@dataclass(frozen=True)
class DatasetMeta:
    """What the "where each criterion wins" table shows about a dataset.

    Attributes
    ----------
    name
        The dataset entry as written in the generated config.
    rows, features, classes
        Shape of the table (features exclude non-feature columns).
    imbalance
        Largest class count over smallest (1.0 = balanced).
    nominal_share
        Share of the features that are nominal (unordered categories).
    missing
        Whether any feature value is missing.
    """

    name: str
    rows: int
    features: int
    classes: int
    imbalance: float
    nominal_share: float
    missing: bool

    @property
    def n_nominal(self) -> int:
        return int(round(self.nominal_share * self.features))


def meta_features(name: str, X: pd.DataFrame, y: np.ndarray) -> DatasetMeta:
    """The meta-features of one loaded dataset (``X`` as the learners see it)."""
    counts = np.unique(np.asarray(y), return_counts=True)[1]
    nominal = sum(
        1 for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype) and not X[c].dtype.ordered
    )
    n_features = int(X.shape[1])
    return DatasetMeta(
        name=name,
        rows=int(X.shape[0]),
        features=n_features,
        classes=int(counts.size),
        imbalance=float(counts.max() / counts.min()) if counts.size else float("nan"),
        nominal_share=nominal / n_features if n_features else 0.0,
        missing=bool(X.isna().to_numpy().any()),
    )


def _settings():  # noqa: ANN202 - a treebench.data.settings.Settings
    from treebench.data.settings import Settings

    return Settings.from_env()


def bundled(max_rows: int, required: bool = True) -> list[str]:
    """Every raw classification card with a local (mirror) copy and at most ``max_rows`` rows (0: any).

    ``required=False`` (``--datasets`` names the datasets): an empty suite is no
    error, since a named card joins by name and says itself what it lacks.

    Left out: derived cards (a subset or relabelling of another card), the
    ``X-train`` / ``X-test`` parts of a card ``X`` (the same problem twice) and
    cards available only embedded in a library or remotely.
    """
    from treebench.data.cards import CardRegistry
    from treebench.data.sources import mirror_files

    settings = _settings()
    registry = CardRegistry(settings.card_folders)
    cards = registry.all()
    names = {c.name for c in cards}
    out = []
    too_large = 0  # copies found but left out by --max-rows: the message must say which cause it is
    for card in cards:
        if card.is_derived or not mirror_files(card, settings):
            continue
        stem, _, part = card.name.rpartition("-")
        if part in ("train", "test") and stem in names:
            continue
        if max_rows and card.expected.rows > max_rows:
            too_large += 1
            continue
        out.append(card.name)
    if not out and required:
        where = ", ".join(str(p) for p in settings.mirrors) or "no mirror folder"
        if too_large:
            raise TreebenchError(
                f"the bundled suite is empty: all {too_large} datasets with a local copy in {where} have more "
                f"than --max-rows {max_rows} rows; accepted: a larger --max-rows (0: no limit)"
            )
        raise TreebenchError(
            f"the bundled suite is empty: no dataset card has a local copy in {where}; "
            f"set TREEBENCH_DATA to the folder of the .csv.gz copies"
        )
    return out


def openml_suite(text: str) -> list[str]:
    """``openml-suite:ID`` -> one ``openml-task:ID`` entry per task, in OpenML's order."""
    from treebench.data.openml import parse_ref, suite

    ref = parse_ref(text, ("suite",))
    return [f"openml-task:{task}" for task in suite(ref.key, _settings()).tasks]


def suite_file(path: str) -> list[str]:
    """Dataset names of a suite file: one per line (or comma-separated); ``#`` starts a comment."""
    file = Path(path)
    if file.is_dir():
        raise TreebenchError(f"--suite {path!r} is a folder; accepted: {SUITE_FORMS}")
    from treebench.errors import special_kind

    kind = special_kind(file)
    if kind is not None:
        raise TreebenchError(f"--suite {path!r} is not a regular file but {kind}; accepted: {SUITE_FORMS}")
    if not file.is_file():
        raise TreebenchError(f"--suite {path!r}: no such file; accepted: {SUITE_FORMS}")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise TreebenchError(f"--suite {path!r} is not UTF-8 text (a binary file?); accepted: {SUITE_FORMS}") from None
    except OSError as exc:
        raise TreebenchError(f"--suite {path!r} cannot be read: {exc.strerror or exc}") from None
    if "\x00" in text:
        raise TreebenchError(f"--suite {path!r} holds NUL bytes (a binary file?); accepted: {SUITE_FORMS}")
    names: list[str] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        for item in line.split("#", 1)[0].replace(",", " ").split():
            if item in first_line:  # as --datasets iris,iris: refused, never merged without a word
                raise TreebenchError(f"--suite {path!r}, line {number}: {item!r} is listed twice (first on line "
                                     f"{first_line[item]}); accepted: each dataset once")
            first_line[item] = number
            names.append(item)
    if not names:
        raise TreebenchError(f"--suite {path!r} lists no dataset; write one dataset name per line")
    _check_names(names, f"--suite {path}", [])
    _check_once(names, f"--suite {path}")
    return names


def resolve(suite: str, max_rows: int, named: bool = False) -> list[str]:
    """The dataset entries of ``--suite`` (see :data:`SUITE_FORMS`); ``named``: ``--datasets`` names them."""
    if not suite.strip():  # Path("") is the current folder: say what is really wrong
        raise TreebenchError(f"--suite {suite!r} is empty; accepted: {SUITE_FORMS}")
    if suite == "bundled":
        return bundled(max_rows, required=not named)
    if suite.startswith("openml-suite:"):
        return openml_suite(suite)
    if Path(suite).suffix or Path(suite).exists():
        return suite_file(suite)
    raise TreebenchError(f"--suite {suite!r} is not a suite; accepted: {SUITE_FORMS}")


def _check_names(names: list[str], where: str, accepted: list[str]) -> None:
    """A one-line error for the first name that is no dataset card, alias or OpenML entry."""
    import difflib

    from treebench.data.cards import CardRegistry
    from treebench.data.openml import parse_ref

    registry = CardRegistry(_settings().card_folders)
    known = set(registry.names()) | set(registry.aliases())
    for name in names:
        if name.startswith(("openml-task:", "openml:")):
            try:  # the id's form here, where the user wrote it (not at a line of a generated config)
                parse_ref(name, ("dataset", "task"))
            except TreebenchError as exc:
                raise TreebenchError(f"{where}: {exc}") from None
            continue
        if name in known or name in accepted:
            continue
        close = difflib.get_close_matches(name, [*accepted, *sorted(known)], n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        listed = ", ".join(accepted) if accepted else "dataset card names (`treebench datasets list`)"
        raise TreebenchError(f"{where}: unknown dataset {name!r}{hint}; accepted: {listed}")


def _card_name(name: str, registry) -> str | None:  # noqa: ANN001 - a CardRegistry
    """The card ``name`` resolves to (a card, an alias or ``openml:ID``), or None (a task, unknown)."""
    from treebench.experiment.config import card_named

    if name.startswith(("openml-task:", "openml-suite:")):  # a task brings its own splits: no card
        return None
    try:
        return card_named(name, registry).name
    except TreebenchError:
        return None


def _check_once(names: list[str], where: str) -> None:
    """Refuse two names of one table (a card and its alias, its OpenML id, or its train or test part:
    :func:`treebench.experiment.config.table_of`): it would count twice."""
    from treebench.data.cards import CardRegistry
    from treebench.experiment.config import card_relation, table_of

    registry = CardRegistry(_settings().card_folders)
    seen: dict[str, str] = {}
    for name in names:
        card = _card_name(name, registry)
        if card is None:
            continue
        table = table_of(card, registry)
        if table in seen and seen[table] != name:
            raise TreebenchError(f"{where}: {name!r} is the same dataset as {seen[table]!r} "
                                 f"({card_relation(card, registry)}): it would count twice in every rank, test "
                                 "and win; accepted: each dataset once")
        seen.setdefault(table, name)


def as_card_names(entries: list[str], echo=None) -> list[str]:  # noqa: ANN001 - a click.echo-like callable
    """``entries`` with each ``openml:ID`` that is a dataset card's table replaced by the card's name
    (``openml:61`` -> ``iris``), said through ``echo``: the board's rows, page and tables name the
    dataset as every other command does, not by the id typed."""
    from treebench.data.cards import CardRegistry

    registry = CardRegistry(_settings().card_folders)
    out = []
    for name in entries:
        card = _card_name(name, registry) if name.startswith("openml:") else None
        if card is not None and card != name:
            if echo is not None:
                echo(f"note: {name!r} is the dataset card {card!r}; the board names it {card!r}")
            name = card
        out.append(name)
    return out


def select(entries: list[str], wanted: list[str]) -> list[str]:
    """Keep the ``--datasets`` names, in the order given.

    A name outside the suite is accepted when it is a dataset card (a large
    set excluded by ``--max-rows`` joins by name); anything else is an error
    listing the suite's names.
    """
    if not wanted:
        return entries
    _check_names(wanted, "--datasets", entries)
    twice = first_repeat(wanted)
    if twice is not None:  # as every other command: a name given twice is refused, not quietly merged
        raise TreebenchError(f"--datasets names {twice!r} twice; accepted: each dataset once")
    _check_once(wanted, "--datasets")
    return list(dict.fromkeys(wanted))
