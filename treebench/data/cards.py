"""Dataset cards: one YAML file per dataset, validated into a :class:`Card`.

A card says what a dataset *is* (description, citation, identifiers, which
papers use it), how to read it (target, features and their kinds, columns that
are not features) and what a correct copy looks like (rows, features, class
counts, and the canonical checksum of the one table it describes).  Derived
datasets are cards too: ``derived_from`` plus a list of declarative
``operations``, no code per dataset.

Every problem in a card is reported as one line naming the file, the line and
the field, e.g. ``datasets/foo.yaml:3: field 'target' is missing; required
fields: ...`` (see :mod:`treebench.yamlcheck`).  Papers are named by id only
(``papers: [smith2015]``); which ids exist is for the layer that knows the
papers to say, not for the data layer.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from treebench.data.labels import as_label
from treebench.errors import TreebenchError, one_of
from treebench.yamlcheck import (
    Checker,
    Document,
    FieldPath,
    YamlSyntaxError,
    field_name,
    parse,
    read_text,
)

#: Cards are read as YAML 1.1, PyYAML's default (on libyaml when available):
#: ``was: 1e-3`` stays the text of the cell it names, not the float 0.001.
_CARD_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: What a paper id in the ``papers`` field looks like: lowercase letters,
#: digits, ``-`` and ``_``, starting with a letter or digit (``smith2015``).
PAPER_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")

KINDS = ("numeric", "nominal", "ordinal")
DOWNLOAD_FORMATS = ("csv", "whitespace", "tab", "arff")
EMBEDDED_LOADERS = ("load_iris", "load_wine", "load_breast_cancer", "load_digits")
OPERATIONS = ("drop_classes", "merge_classes", "select_rows", "target_column", "drop_columns")

#: A card's ``checksum``: the 64 lowercase hex digits of
#: :func:`treebench.data.dataset.content_checksum` of the card's table.
CHECKSUM = re.compile(r"[0-9a-f]{64}")
CHECKSUM_HELP = "64 lowercase hex digits (`treebench datasets verify NAME --write-checksums` writes them)"

_COMMON_FIELDS = (
    "name", "title", "description", "citation", "papers", "aliases", "notes", "urls",
    "provenance", "expected", "classes", "checksum",
)
_RAW_FIELDS = (
    "file", "target", "features", "nominal", "ordinal", "non_features", "missing_values",
    "corrections", "uci", "openml", "embedded",
)
_DERIVED_FIELDS = ("derived_from", "operations")
_RAW_REQUIRED = ("name", "description", "target", "features", "expected")
_DERIVED_REQUIRED = ("name", "description", "derived_from", "expected")


@dataclass(frozen=True)
class DownloadFile:
    """One file of a download recipe (a UCI ``.data`` file, say)."""

    url: str
    format: str = "csv"
    header: bool = False
    columns: tuple[str, ...] | None = None
    split: str | None = None
    member: str | None = None
    skip_rows: int = 0


@dataclass(frozen=True)
class UCISpec:
    """UCI identifiers plus, optionally, a recipe to rebuild the mirror layout."""

    id: int | None = None
    page: str | None = None
    files: tuple[DownloadFile, ...] = ()
    drop: tuple[str, ...] = ()
    class_labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class OpenMLSpec:
    """OpenML identifiers; ``fetch: false`` when OpenML's copy is known to differ."""

    id: int | None = None
    version: int | None = None
    fetch: bool = True
    rename: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EmbeddedSpec:
    """A scikit-learn bundled dataset mapped onto the card's columns and labels."""

    loader: str
    columns: tuple[str, ...]
    classes: tuple[str, ...]


@dataclass(frozen=True)
class Correction:
    """A documented fix of one defective cell (applied only if it still holds ``was``)."""

    row: int
    column: str
    was: str
    value: str
    reason: str = ""


@dataclass(frozen=True)
class Expected:
    """What a correct copy must look like."""

    rows: int
    features: int
    classes: int
    class_counts: dict[str, int] | None = None
    missing: int | None = None


@dataclass(frozen=True)
class Operation:
    """One step of a derived dataset, e.g. ``drop_classes: [omL, imL]``."""

    kind: str
    args: Any


@dataclass(frozen=True)
class Card:
    """A validated dataset card."""

    name: str
    path: Path
    description: str
    expected: Expected
    title: str = ""
    citation: str = ""
    papers: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    notes: str = ""
    urls: tuple[str, ...] = ()
    provenance: str = ""
    classes: tuple[str, ...] | None = None
    #: SHA-256 of the canonical table (``Dataset.checksum``); ``None`` = not pinned yet.
    checksum: str | None = None
    # raw datasets
    file: str = ""
    target: str = ""
    features: tuple[str, ...] = ()
    nominal: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    ordinal: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    non_features: tuple[str, ...] = ()
    missing_values: tuple[str, ...] = ("", "?")
    corrections: tuple[Correction, ...] = ()
    uci: UCISpec | None = None
    openml: OpenMLSpec | None = None
    embedded: EmbeddedSpec | None = None
    # derived datasets
    derived_from: str | None = None
    operations: tuple[Operation, ...] = ()

    @property
    def is_derived(self) -> bool:
        return self.derived_from is not None

    def kind_of(self, column: str) -> str:
        """``numeric``, ``nominal`` or ``ordinal`` for a feature of a raw card."""
        if column in self.nominal:
            return "nominal"
        if column in self.ordinal:
            return "ordinal"
        return "numeric"

    @property
    def feature_kinds(self) -> dict[str, str]:
        return {c: self.kind_of(c) for c in self.features}

    @property
    def display_path(self) -> str:
        return display_path(self.path)


def display_path(path: Path) -> str:
    """The path relative to the working directory when inside it, else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# --------------------------------------------------------------------------- parsing
class _Source:
    """The file a card comes from and, when read from text, the line of each field.

    The checker (and the file's display name, which needs the file system) is
    made only when a problem is reported: valid cards never pay for it.
    """

    def __init__(self, path: Path, document: Document | None = None) -> None:
        self.path = path
        self.document = document

    @cached_property
    def check(self) -> Checker:
        if self.document is None:
            return Checker(display_path(self.path))
        return Checker(display_path(self.path), self.document.lines, self.document.key_lines)


class _Fields:
    """Typed access to one mapping of a card, with one-line errors naming the field.

    Parameters
    ----------
    source:
        The card's file and lines: errors read ``file:line: message``.
    data:
        The mapping.
    where:
        Its field path in the card (``()`` for the card itself).
    """

    def __init__(self, source: _Source, data: Mapping[str, Any], where: FieldPath = ()) -> None:
        self.source = source
        self.data = data
        self.where = where

    def path(self, key: Any = None) -> FieldPath:
        """Field path of ``key`` in this mapping: a key, an index or a tuple of them
        (``("files", 0)``); this mapping's own path when ``None``."""
        if key is None:
            return self.where
        return (*self.where, *key) if isinstance(key, tuple) else (*self.where, key)

    def name(self, key: Any) -> str:
        """``key``'s field as written in messages, e.g. ``uci.files[0].format``."""
        return field_name(self.path(key))

    def fail(self, message: str, key: Any = None, on_key: bool = False) -> TreebenchError:
        """A one-line error placed on the line of ``key`` (of its key text when ``on_key``)."""
        return self.source.check.error(self.path(key), message, key=on_key)

    def check_keys(self, accepted: tuple[str, ...]) -> None:
        for key in self.data:
            if key not in accepted:
                raise self.fail(
                    f"unknown field '{self.name(str(key))}'; accepted: {', '.join(accepted)}",
                    str(key),
                    on_key=True,
                )

    def require(self, keys: tuple[str, ...]) -> None:
        for key in keys:
            if self.data.get(key) is None:
                raise self.fail(
                    f"field '{self.name(key)}' is missing; required fields: "
                    + ", ".join(self.name(k) for k in keys),
                    key,
                )

    def text(self, key: str, default: str = "") -> str:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, str) or not value.strip():
            raise self.wrong(key, "a non-empty string", value)
        return value.strip()

    def integer(self, key: str, default: int | None = None, minimum: int = 0) -> int | None:
        value = self.data.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.wrong(key, f"an integer >= {minimum}", value)
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.wrong(key, "true or false", value)
        return value

    def text_list(self, key: str, labels: bool = False) -> tuple[str, ...]:
        value = self.data.get(key)
        if value is None:
            return ()
        if not isinstance(value, list):
            raise self.wrong(key, "a list", value)
        out = []
        for item in value:
            if labels and isinstance(item, (str, int, float, bool)):
                out.append(as_label(item))
            elif isinstance(item, str) and item.strip():
                out.append(item.strip())
            else:
                raise self.wrong(key, "a list of names", value)
        if len(set(out)) != len(out):
            dupes = sorted({x for x in out if out.count(x) > 1})
            raise self.fail(f"field '{self.name(key)}' lists {', '.join(dupes)} more than once", key)
        return tuple(out)

    def items(self, key: str, expected: str) -> list[Any]:
        """The list under ``key`` (empty when absent); ``expected`` says what it should be."""
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.wrong(key, expected, value)
        return value

    def mapping(self, key: str) -> _Fields | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.wrong(key, "a mapping", value)
        return _Fields(self.source, value, self.path(key))

    def wrong(self, key: Any, expected: str, value: Any) -> TreebenchError:
        shown = repr(value)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return self.fail(
            f"field '{self.name(key)}' must be {expected}, got {shown} ({type(value).__name__})", key
        )


def read_card_text(path: Path) -> str:
    """A card file's text: bounded in size, UTF-8, or a one-line error naming the file."""
    return read_text(path, "dataset card")


def parse_card(path: Path) -> Card:
    """Read and validate one card file.

    Raises
    ------
    TreebenchError
        One line naming the file, the line and the offending field.
    """
    return parse_card_text(path, read_card_text(path))


def parse_card_text(path: Path, text: str) -> Card:
    """Validate the text of a card file (see :func:`parse_card`)."""
    try:
        document = parse(text, str(path), loader=_CARD_LOADER)
    except YamlSyntaxError as exc:
        where = f" at line {exc.line}" if exc.line is not None else ""
        problem = exc.problem or "syntax error"
        raise TreebenchError(f"{display_path(path)}: not valid YAML{where}: {problem}") from None
    data = document.data
    if not isinstance(data, dict):
        raise TreebenchError(f"{display_path(path)}: a card must be a YAML mapping of fields, got {type(data).__name__}")
    source = _Source(path, document)
    for where, _line in document.duplicates:
        raise source.check.error(
            where, f"field '{field_name(where)}' is given twice (the last one would silently win)", key=True
        )
    return _card(path, data, source)


def card_from_mapping(path: Path, data: Mapping[str, Any]) -> Card:
    """Validate an already parsed card (see :func:`parse_card`); errors carry no line."""
    return _card(path, data, _Source(path))


def _card(path: Path, data: Mapping[str, Any], source: _Source) -> Card:
    f = _Fields(source, data)
    derived = data.get("derived_from") is not None
    if derived:
        f.check_keys(_COMMON_FIELDS + _DERIVED_FIELDS)
        f.require(_DERIVED_REQUIRED)
    else:
        extra = [k for k in _DERIVED_FIELDS if k in data]
        if extra:
            raise f.fail(f"field '{extra[0]}' needs 'derived_from' (the card it derives from)", extra[0], on_key=True)
        f.check_keys(_COMMON_FIELDS + _RAW_FIELDS)
        f.require(_RAW_REQUIRED)

    name = f.text("name")
    if name != path.stem:
        raise f.fail(f"field 'name' is {name!r} but the file is {path.name}; they must agree", "name")
    papers = f.text_list("papers")
    for i, paper in enumerate(papers):
        if not PAPER_ID.match(paper):
            raise f.fail(
                f"field 'papers' names {paper!r}, which is not a paper id; accepted: "
                "lowercase letters, digits, '-' and '_' (e.g. smith2015)",
                ("papers", i),
            )
    common: dict[str, Any] = dict(
        name=name,
        path=path,
        title=f.text("title"),
        description=f.text("description"),
        citation=f.text("citation"),
        papers=papers,
        aliases=f.text_list("aliases"),
        notes=f.text("notes"),
        urls=f.text_list("urls"),
        provenance=f.text("provenance"),
        classes=f.text_list("classes", labels=True) or None,
        expected=_expected(f),
        checksum=_checksum(f),
    )
    if derived:
        card = Card(
            **common,
            derived_from=f.text("derived_from"),
            operations=_operations(f),
        )
    else:
        card = _raw_card(f, common)
    _check_classes(f, card)
    return card


def _expected(f: _Fields) -> Expected:
    e = f.mapping("expected")
    assert e is not None  # required above
    e.check_keys(("rows", "features", "classes", "class_counts", "missing"))
    e.require(("rows", "features", "classes"))
    counts_field = e.mapping("class_counts")
    counts: dict[str, int] | None = None
    if counts_field is not None:
        counts = {}
        for label, count in counts_field.data.items():
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise counts_field.wrong(str(label), "a count (integer >= 0)", count)
            counts[as_label(label)] = count
    expected = Expected(
        rows=e.integer("rows", minimum=1),  # type: ignore[arg-type]
        features=e.integer("features", minimum=1),  # type: ignore[arg-type]
        classes=e.integer("classes", minimum=1),  # type: ignore[arg-type]
        class_counts=counts,
        missing=e.integer("missing"),
    )
    if counts is not None:
        if len(counts) != expected.classes:
            raise e.fail(
                f"field 'expected.class_counts' has {len(counts)} classes but 'expected.classes' is {expected.classes}",
                "class_counts",
            )
        if sum(counts.values()) != expected.rows:
            raise e.fail(
                f"field 'expected.class_counts' sums to {sum(counts.values())} but 'expected.rows' is {expected.rows}",
                "class_counts",
            )
    return expected


def _checksum(f: _Fields) -> str | None:
    value = f.data.get("checksum")
    if value is None:
        return None
    if not isinstance(value, str) or not CHECKSUM.fullmatch(value):
        raise f.wrong("checksum", CHECKSUM_HELP, value)
    return value


def _levels(f: _Fields, key: str) -> dict[str, tuple[str, ...] | None]:
    """``nominal``/``ordinal``: a list of columns, or column -> list of levels (or null)."""
    value = f.data.get(key)
    if value is None:
        return {}
    if isinstance(value, list):
        return {c: None for c in f.text_list(key)}
    sub = f.mapping(key)
    assert sub is not None
    out: dict[str, tuple[str, ...] | None] = {}
    for column in sub.data:
        out[str(column)] = sub.text_list(str(column), labels=True) or None
    return out


def _raw_card(f: _Fields, common: dict[str, Any]) -> Card:
    features = f.text_list("features")
    target = f.text("target")
    non_features = f.text_list("non_features")
    nominal = _levels(f, "nominal")
    ordinal = _levels(f, "ordinal")
    if target in features:
        raise f.fail(f"field 'target' ({target!r}) is also listed in 'features'", "target")
    if target in non_features:
        raise f.fail(f"field 'target' ({target!r}) is also listed in 'non_features'", "target")
    both = [c for c in non_features if c in features]
    if both:
        raise f.fail(f"column {both[0]!r} is in both 'features' and 'non_features'", "non_features")
    for key, columns in (("nominal", nominal), ("ordinal", ordinal)):
        for column in columns:
            if column not in features:
                raise f.fail(
                    f"field '{key}' names {column!r}, which is not in 'features'; accepted: {', '.join(features)}",
                    key,
                )
    clash = [c for c in nominal if c in ordinal]
    if clash:
        raise f.fail(f"column {clash[0]!r} is both nominal and ordinal", "ordinal")
    expected: Expected = common["expected"]
    if expected.features != len(features):
        raise f.fail(
            f"field 'expected.features' is {expected.features} but 'features' lists {len(features)} columns",
            ("expected", "features"),
        )
    missing_values = f.data.get("missing_values")
    if missing_values is None:
        markers: tuple[str, ...] = ("", "?")
    elif isinstance(missing_values, list) and all(isinstance(x, str) for x in missing_values):
        markers = tuple(missing_values)
    else:
        raise f.wrong("missing_values", "a list of strings", missing_values)
    columns = (*features, *non_features, target)
    return Card(
        **common,
        file=f.text("file", default=common["name"]),
        target=target,
        features=features,
        nominal=nominal,
        ordinal=ordinal,
        non_features=non_features,
        missing_values=markers,
        corrections=_corrections(f, columns),
        uci=_uci(f),
        openml=_openml(f),
        embedded=_embedded(f, features),
    )


def _corrections(f: _Fields, columns: tuple[str, ...]) -> tuple[Correction, ...]:
    out = []
    for i, item in enumerate(f.items("corrections", "a list of {row, column, was, value, reason}")):
        if not isinstance(item, dict):
            raise f.wrong(("corrections", i), "a mapping", item)
        c = _Fields(f.source, item, f.path(("corrections", i)))
        c.check_keys(("row", "column", "was", "value", "reason"))
        c.require(("row", "column", "was", "value"))
        column = c.text("column")
        if column not in columns:
            raise c.fail(f"field '{c.name('column')}' names unknown column {column!r}", "column")
        out.append(
            Correction(
                row=c.integer("row"),  # type: ignore[arg-type]
                column=column,
                was=str(item["was"]),
                value=str(item["value"]),
                reason=c.text("reason"),
            )
        )
    return tuple(out)


def _uci(f: _Fields) -> UCISpec | None:
    u = f.mapping("uci")
    if u is None:
        return None
    u.check_keys(("id", "page", "files", "drop", "class_labels"))
    files_value = u.data.get("files") or []
    if not isinstance(files_value, list):
        raise u.wrong("files", "a list of {url, format, ...}", files_value)
    files = []
    for i, item in enumerate(files_value):
        if not isinstance(item, dict):
            raise u.wrong(("files", i), "a mapping", item)
        d = _Fields(f.source, item, u.path(("files", i)))
        d.check_keys(("url", "format", "header", "columns", "split", "member", "skip_rows"))
        d.require(("url",))
        fmt = d.text("format", default="csv")
        if fmt not in DOWNLOAD_FORMATS:
            raise d.fail(
                f"field '{d.name('format')}' is {fmt!r}; accepted: {', '.join(DOWNLOAD_FORMATS)}", "format"
            )
        header = d.boolean("header", False)
        columns = d.text_list("columns") or None
        if fmt != "arff" and not header and columns is None:
            raise d.fail(f"field '{d.name('columns')}' is needed when the file has no header")
        files.append(
            DownloadFile(
                url=d.text("url"),
                format=fmt,
                header=header,
                columns=columns,
                split=d.text("split") or None,
                member=d.text("member") or None,
                skip_rows=d.integer("skip_rows", default=0),  # type: ignore[arg-type]
            )
        )
    labels = u.mapping("class_labels")
    return UCISpec(
        id=u.integer("id", minimum=1),
        page=u.text("page") or None,
        files=tuple(files),
        drop=u.text_list("drop"),
        class_labels={as_label(k): as_label(v) for k, v in (labels.data.items() if labels else [])},
    )


def _openml(f: _Fields) -> OpenMLSpec | None:
    o = f.mapping("openml")
    if o is None:
        return None
    o.check_keys(("id", "version", "fetch", "rename"))
    rename = o.mapping("rename")
    return OpenMLSpec(
        id=o.integer("id", minimum=1),
        version=o.integer("version", minimum=1),
        fetch=o.boolean("fetch", True),
        rename={str(k): str(v) for k, v in (rename.data.items() if rename else [])},
    )


def _embedded(f: _Fields, features: tuple[str, ...]) -> EmbeddedSpec | None:
    e = f.mapping("embedded")
    if e is None:
        return None
    e.check_keys(("loader", "columns", "classes"))
    e.require(("loader", "columns", "classes"))
    loader = e.text("loader")
    if loader not in EMBEDDED_LOADERS:
        raise e.fail(
            f"field '{e.name('loader')}' is {loader!r}; accepted: {', '.join(EMBEDDED_LOADERS)}", "loader"
        )
    columns = e.text_list("columns")
    if set(columns) != set(features):
        raise e.fail(f"field '{e.name('columns')}' must name the same columns as 'features'", "columns")
    return EmbeddedSpec(loader=loader, columns=columns, classes=e.text_list("classes", labels=True))


def _operations(f: _Fields) -> tuple[Operation, ...]:
    out = []
    for i, item in enumerate(f.items("operations", "a list of one-key mappings")):
        where = ("operations", i)
        if not isinstance(item, dict) or len(item) != 1:
            raise f.wrong(where, f"a one-key mapping (one of {', '.join(OPERATIONS)})", item)
        (kind, args), = item.items()
        if kind not in OPERATIONS:
            raise f.fail(
                f"field '{f.name(where)}' has unknown operation {kind!r}; accepted: {', '.join(OPERATIONS)}",
                (*where, str(kind)),
                on_key=True,
            )
        out.append(Operation(kind, _operation_args(f, f.path(where), kind, args)))
    return tuple(out)


def _operation_args(f: _Fields, where: FieldPath, kind: str, args: Any) -> Any:
    holder = _Fields(f.source, {kind: args}, where)
    if kind in ("drop_classes", "drop_columns"):
        values = holder.text_list(kind, labels=kind == "drop_classes")
        if not values:
            raise holder.wrong(kind, "a non-empty list", args)
        return values
    if kind == "merge_classes":
        sub = holder.mapping(kind)
        if sub is None or not sub.data:
            raise holder.wrong(kind, "a mapping new_class: [old classes]", args)
        merged = {}
        for new in sub.data:
            members = sub.text_list(str(new), labels=True)
            if len(members) < 2:
                raise sub.wrong(str(new), "a list of at least two classes", sub.data[new])
            merged[as_label(new)] = members
        return merged
    if kind == "select_rows":
        sub = holder.mapping(kind)
        if sub is None:
            raise holder.wrong(kind, "a mapping {column, equals} or {column, in}", args)
        sub.check_keys(("column", "equals", "in"))
        sub.require(("column",))
        if ("equals" in sub.data) == ("in" in sub.data):
            raise sub.fail(f"field '{field_name(sub.where)}' needs exactly one of 'equals' or 'in'")
        if "equals" in sub.data:
            values = (as_label(sub.data["equals"]),)
        else:
            values = sub.text_list("in", labels=True)
        return {"column": sub.text("column"), "values": values}
    # target_column
    if not isinstance(args, str) or not args.strip():
        raise holder.wrong(kind, "a column name", args)
    return args.strip()


def _check_classes(f: _Fields, card: Card) -> None:
    counts = card.expected.class_counts
    if card.classes is not None:
        if len(card.classes) != card.expected.classes:
            raise f.fail(
                f"field 'classes' lists {len(card.classes)} classes but 'expected.classes' is {card.expected.classes}",
                "classes",
            )
        if counts is not None and set(counts) != set(card.classes):
            raise f.fail("fields 'classes' and 'expected.class_counts' name different classes", "classes")
    if card.embedded is not None and counts is not None:
        unknown = [c for c in card.embedded.classes if c not in counts]
        if unknown:
            raise f.fail(
                f"field 'embedded.classes' names {unknown[0]!r}, not a class in 'expected.class_counts'",
                ("embedded", "classes"),
            )


# --------------------------------------------------------------------------- registry
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class CardRegistry:
    """All cards of one or more folders, parsed on demand and remembered while unchanged.

    Parameters
    ----------
    directories
        A folder holding ``<name>.yaml`` files, or several searched in order:
        the first folder holding a name gives its card, and the same name in a
        later folder is *overridden* (see :meth:`overrides`).  A folder that
        does not exist holds no card; at least one must exist.
    """

    # parsed cards by path, reused while the file's text is unchanged (mtimes are too coarse)
    _parsed: dict[Path, tuple[str, Card]] = {}

    def __init__(self, directories: Path | str | Sequence[Path | str]) -> None:
        if isinstance(directories, (str, os.PathLike)):
            directories = [directories]
        self.directories: tuple[Path, ...] = tuple(Path(d) for d in directories)
        if not self.directories:
            raise ValueError("CardRegistry needs at least one folder")

    @property
    def directory(self) -> Path:
        """The last folder searched (the built-in cards when user folders come first)."""
        return self.directories[-1]

    def _folder_files(self, folder: Path) -> dict[str, Path]:
        return {p.stem: p for p in sorted(folder.glob("*.yaml")) if _NAME.match(p.stem) and p.is_file()}

    def _files(self) -> dict[str, Path]:
        if not any(folder.is_dir() for folder in self.directories):
            where = ", ".join(map(str, self.directories))
            raise TreebenchError(
                f"no dataset cards at {where}; set TREEBENCH_CARDS to a folder of <name>.yaml cards"
            )
        files: dict[str, Path] = {}
        for folder in self.directories:
            if folder.is_dir():
                for name, path in self._folder_files(folder).items():
                    files.setdefault(name, path)
        return dict(sorted(files.items()))

    def overrides(self) -> dict[str, list[Path]]:
        """Card name -> the cards of later folders it hides (only names found more than once)."""
        seen: dict[str, list[Path]] = {}
        for folder in self.directories:
            if folder.is_dir():
                for name, path in self._folder_files(folder).items():
                    seen.setdefault(name, []).append(path)
        return {name: paths[1:] for name, paths in sorted(seen.items()) if len(paths) > 1}

    def names(self) -> list[str]:
        """Card names, sorted."""
        return sorted(self._files())

    def _parse(self, path: Path) -> Card:
        text = read_card_text(path)
        hit = self._parsed.get(path)
        if hit is not None and hit[0] == text:
            return hit[1]
        card = parse_card_text(path, text)
        self._parsed[path] = (text, card)
        return card

    def all(self) -> list[Card]:
        """Every card, validated, sorted by name."""
        return [self._parse(p) for _, p in sorted(self._files().items())]

    def aliases(self) -> dict[str, str]:
        """Alias -> card name."""
        out: dict[str, str] = {}
        for card in self.all():
            for alias in card.aliases:
                out[alias] = card.name
        return out

    def get(self, name: str) -> Card:
        """The card called ``name`` (or with that alias).

        Raises
        ------
        TreebenchError
            Unknown name, listing close matches (or all names when none is close).
        """
        files = self._files()
        if name in files:
            return self._parse(files[name])
        aliases = self.aliases()
        if name in aliases:
            return self._parse(files[aliases[name]])
        known = sorted(files) + sorted(aliases)
        close = difflib.get_close_matches(name, known, n=5, cutoff=0.6)
        if close:
            raise TreebenchError(
                f"unknown dataset {name!r}; did you mean: {', '.join(close)}? "
                f"(`treebench datasets list` shows all {len(files)})"
            )
        raise one_of(name, known, "dataset")

    def validate(self) -> list[Card]:
        """Parse every card and check what spans cards: aliases, bases, cycles."""
        cards = self.all()
        by_name = {c.name: c for c in cards}
        seen_alias: dict[str, str] = {}
        for card in cards:
            for alias in card.aliases:
                if alias in by_name:
                    raise TreebenchError(f"{card.display_path}: alias {alias!r} is also a card name")
                if alias in seen_alias:
                    raise TreebenchError(
                        f"{card.display_path}: alias {alias!r} is already used by {seen_alias[alias]!r}"
                    )
                seen_alias[alias] = card.name
        for card in cards:
            chain = [card.name]
            current = card
            while current.derived_from is not None:
                base = current.derived_from
                if base not in by_name:
                    raise TreebenchError(
                        f"{current.display_path}: field 'derived_from' names unknown dataset {base!r}"
                    )
                if base in chain:
                    raise TreebenchError(
                        f"{card.display_path}: derived_from makes a cycle: {' -> '.join(chain + [base])}"
                    )
                chain.append(base)
                current = by_name[base]
        return cards


# --------------------------------------------------------------------------- writing
_TOP_LEVEL_CHECKSUM = re.compile(r"^checksum:.*$", re.M)


def write_checksum(card: Card, checksum: str) -> bool:
    """Set the ``checksum`` field of ``card``'s file; returns whether the file changed.

    The file is edited as text, so comments and layout survive: an existing
    top-level ``checksum:`` line is replaced, else one is added after the
    ``expected`` block.  The result is parsed again before it replaces the
    file (atomically).

    Raises
    ------
    TreebenchError
        ``checksum`` is not 64 hex digits, or the file cannot be read or written.
    """
    if not CHECKSUM.fullmatch(checksum):
        raise TreebenchError(f"checksum {checksum!r} is not {CHECKSUM_HELP}")
    text = read_card_text(card.path)
    value = checksum
    if yaml.load(f"checksum: {value}", Loader=_CARD_LOADER)["checksum"] != value:
        value = f"'{value}'"  # all digits: YAML would read a number
    line = f"checksum: {value}"
    if _TOP_LEVEL_CHECKSUM.search(text):
        new = _TOP_LEVEL_CHECKSUM.sub(line, text, count=1)
    else:
        new = _insert_after_expected(text, line)
    if new == text:
        return False
    written = parse_card_text(card.path, new)
    assert written.checksum == checksum, (written.checksum, checksum)
    from treebench.outpaths import write_text

    write_text(card.path, new, f"card {card.display_path}")  # write-then-rename: never a half-written card
    return True


def _insert_after_expected(text: str, line: str) -> str:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    start = next((i for i, x in enumerate(lines) if re.match(r"^expected\s*:", x)), None)
    if start is None:
        return "".join(lines) + line + "\n"
    end = start + 1
    # the block goes on while lines are indented (or blank before more indented lines)
    while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end].strip()):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    lines.insert(end, line + "\n")
    return "".join(lines)
