"""OpenML through openml-python: cards from metadata, tasks with their own splits, suites.

Three kinds of reference name something on OpenML (:func:`parse_ref`):

``openml:ID``
    a dataset; ``treebench datasets add openml:ID`` writes a card for it
    (:func:`add_card`) from OpenML's metadata and caches its table.
``openml-task:ID``
    a supervised classification task: its dataset, its target and its fixed
    train/test splits (:func:`task_info`, :func:`load_task`).
``openml-suite:ID`` / ``openml-suite:ALIAS``
    a benchmarking suite, i.e. a list of tasks (:func:`suite`), e.g.
    ``openml-suite:99`` = ``openml-suite:OpenML-CC18``; the aliases are those of
    :data:`KNOWN_SUITES` (another is refused before any network access).

Everything goes through openml-python, with its cache directory pointed at
``<TREEBENCH_CACHE>/openml`` (:func:`session`), so the same code runs online
and, from what is cached, offline: with ``TREEBENCH_OFFLINE=1`` nothing is
downloaded and a reference that is not cached is a one-line error.
openml-python does not cache suites; treebench keeps the suite's XML as
OpenML sent it in ``<openml cache>/<server>/treebench-suites/<ref>.xml``.
Every failure is one line naming what was tried (the URL or id) and why.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from treebench.data.build import Table, labels_of, normalize, to_dataset
from treebench.data.cards import (
    Card,
    CardRegistry,
    card_from_mapping,
    display_path,
    parse_card_text,
)
from treebench.data.dataset import Dataset
from treebench.data.formats import NetworkError, SourceError
from treebench.data.settings import ENV_OFFLINE, ENV_OPENML_SERVER, Settings
from treebench.errors import TreebenchError

#: Reference prefix -> what it names.
PREFIXES = {"openml": "dataset", "openml-task": "task", "openml-suite": "suite"}
#: The suite aliases treebench knows (OpenML's curated suites), with their ids.  An alias is only a
#: name on the server: one outside this list could be refused only after a network round trip (or,
#: offline, looks like a suite that is not cached), so any other suite is named by its id.
KNOWN_SUITES = {"OpenML100": 14, "OpenML-CC18": 99, "AutoML-Benchmark": 218, "OpenML-friendly": 225}
REF_HELP = {
    "dataset": "openml:ID",
    "task": "openml-task:ID",
    "suite": "openml-suite:ID or openml-suite:ALIAS (e.g. openml-suite:99, openml-suite:OpenML-CC18)",
}
_ID = re.compile(r"[1-9][0-9]{0,9}")
_ALIAS = re.compile(r"[A-Za-z][A-Za-z0-9._-]{0,99}")
_CARD_NAME = re.compile(r"[^A-Za-z0-9._-]+")
#: Where treebench keeps suites (openml-python does not cache them), under the server's cache folder.
SUITES_DIR = "treebench-suites"
#: Name of the subfolder of ``TREEBENCH_CACHE`` that is openml-python's cache root.
CACHE_SUBDIR = "openml"

_LOCK = threading.RLock()


# --------------------------------------------------------------------------- references
@dataclass(frozen=True)
class Ref:
    """A parsed OpenML reference: ``kind`` is ``dataset``, ``task`` or ``suite``."""

    kind: str
    key: int | str
    text: str


def is_ref(text: Any) -> bool:
    """Whether ``text`` is meant as an OpenML reference (starts with one of the prefixes)."""
    return isinstance(text, str) and text.partition(":")[0] in PREFIXES and ":" in text


def parse_ref(text: str, kinds: tuple[str, ...] = ("dataset", "task", "suite")) -> Ref:
    """Parse ``openml:ID``, ``openml-task:ID`` or ``openml-suite:ID|ALIAS``.

    Parameters
    ----------
    text
        The reference as written.
    kinds
        The kinds accepted here.

    Raises
    ------
    TreebenchError
        One line naming the reference and the accepted forms.
    """
    accepted = "; ".join(REF_HELP[k] for k in kinds) + " (ID a positive integer)"
    prefix, colon, rest = str(text).partition(":")
    kind = PREFIXES.get(prefix)
    if not colon or kind is None or kind not in kinds:
        raise TreebenchError(f"{text!r} is not an OpenML reference; accepted: {accepted}")
    if _ID.fullmatch(rest):
        return Ref(kind, int(rest), text)
    if kind == "suite" and rest in KNOWN_SUITES:
        return Ref(kind, rest, text)
    if kind == "suite" and _ALIAS.fullmatch(rest):  # checked here, before any download or cache look-up
        close = [a for a in KNOWN_SUITES if a.lower() == rest.lower()]
        hint = f" (did you mean openml-suite:{close[0]}?)" if close else ""
        known = ", ".join(f"{alias} (= {number})" for alias, number in KNOWN_SUITES.items())
        raise TreebenchError(f"{text!r}: {rest!r} is not a suite alias treebench knows{hint}; accepted: "
                             f"openml-suite:ID (ID a positive integer, any suite), or one of the aliases {known}")
    raise TreebenchError(f"{text!r}: {rest!r} is not an OpenML {kind} id; accepted: {accepted}")


# --------------------------------------------------------------------------- openml-python
def cache_root(settings: Settings) -> Path:
    """openml-python's cache root inside treebench's cache: ``<TREEBENCH_CACHE>/openml``."""
    return settings.cache_dir / CACHE_SUBDIR


@contextmanager
def session(settings: Settings) -> Iterator[Any]:
    """openml-python configured for treebench; its settings are restored afterwards.

    The cache root is :func:`cache_root`, the server ``TREEBENCH_OPENML_SERVER``
    when set, retries are lowered to one (an offline machine fails at once)
    and openml-python's log warnings are silenced (treebench reports failures
    itself, in one line).  Yields the ``openml`` module.

    Raises
    ------
    TreebenchError
        openml-python is not installed.
    """
    try:
        import openml
    except ImportError:
        raise TreebenchError("OpenML needs the 'openml' package; install it with `pip install openml`") from None
    with _LOCK:
        config = openml.config
        saved = (config.get_config_as_dict()["cachedir"], config.server, config.connection_n_retries)
        log = logging.getLogger("openml")
        level = log.level
        try:
            config.set_root_cache_directory(cache_root(settings))
            if settings.openml_server:
                config.server = settings.openml_server
            config.connection_n_retries = 1
            log.setLevel(logging.ERROR)
            with bounded_requests(settings.timeout):
                yield openml
        finally:
            config.set_root_cache_directory(saved[0])
            config.server, config.connection_n_retries = saved[1], saved[2]
            log.setLevel(level)


@contextmanager
def bounded_requests(timeout: float) -> Iterator[None]:
    """Every HTTP request made meanwhile gives up after ``timeout`` seconds without an answer.

    openml-python calls ``requests`` without a timeout, so a server that
    accepts the connection and never answers would hang the command for
    ever.  Here a request that names no timeout gets ``TREEBENCH_TIMEOUT``
    (to connect, and between two bytes of the answer), and sockets opened
    without one (urllib) get it as their default.  Both are restored after.
    """
    import requests

    original = requests.Session.request
    saved_default = socket.getdefaulttimeout()

    def request(self: Any, method: Any, url: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = timeout
        return original(self, method, url, *args, **kwargs)

    requests.Session.request = request  # type: ignore[method-assign]
    socket.setdefaulttimeout(timeout)
    try:
        yield
    finally:
        requests.Session.request = original  # type: ignore[method-assign]
        socket.setdefaulttimeout(saved_default)


def _cache_folder(openml: Any, kind: str, key: int | str) -> Path:
    return Path(openml.config.get_cache_directory()) / kind / str(key)


def _api_url(openml: Any, call: str) -> str:
    return f"{openml.config.server.rstrip('/')}/{call}"


def _require_cached(settings: Settings, what: str, folder: Path, needed: list[tuple[str, ...]], ref: str) -> None:
    """Offline, refuse (one line) when one of the ``needed`` files (any of each tuple) is not cached."""
    if not settings.offline:
        return
    for alternatives in needed:
        if not any((folder / name).is_file() for name in alternatives):
            raise TreebenchError(
                f"{what} is not in the OpenML cache ({folder}: no {' or '.join(alternatives)}) and "
                f"{ENV_OFFLINE} is set, so nothing is downloaded; run `treebench datasets fetch {ref}` online first"
            )


@contextmanager
def _no_parquet_download(folder: Path, dataset_id: int, settings: Settings) -> Iterator[None]:
    """Offline, keep openml-python from trying its parquet download when only the ARFF is cached."""
    skip = settings.offline and not (folder / f"dataset_{dataset_id}.pq").is_file()
    saved = os.environ.get("OPENML_SKIP_PARQUET")
    if skip:
        os.environ["OPENML_SKIP_PARQUET"] = "true"
    try:
        yield
    finally:
        if skip:
            if saved is None:
                os.environ.pop("OPENML_SKIP_PARQUET", None)
            else:
                os.environ["OPENML_SKIP_PARQUET"] = saved


# --------------------------------------------------------------------------- failures
def network_reason(exc: BaseException) -> str | None:
    """Why a connection failed (``"connection refused"``, ...), or ``None`` when ``exc`` is not a network failure.

    Walks the exception's causes, so urllib3's nested exceptions (a
    ``NameResolutionError`` inside a ``MaxRetryError`` inside requests'
    ``ConnectionError``) come out as one short reason.
    """
    stack: list[Any] = [exc]
    seen: set[int] = set()
    generic = None
    while stack:
        e = stack.pop()
        if not isinstance(e, BaseException) or id(e) in seen:
            continue
        seen.add(id(e))
        name = type(e).__name__
        text = str(e)
        if isinstance(e, socket.gaierror) or name == "NameResolutionError" or "Name or service not known" in text \
                or "Temporary failure in name resolution" in text:
            return "cannot resolve the host name: no network?"
        if isinstance(e, ConnectionRefusedError) or "Connection refused" in text:
            return "connection refused"
        if isinstance(e, (TimeoutError, socket.timeout)) or name in (
            "ConnectTimeoutError", "ReadTimeoutError", "ConnectTimeout", "ReadTimeout", "Timeout",
        ):
            return "timed out"
        if isinstance(e, ssl.SSLError) or name == "SSLError":
            return "TLS/SSL error"
        if isinstance(e, OSError) and e.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return "network unreachable"
        if isinstance(e, OSError) and e.errno == errno.ECONNRESET:
            return "connection reset"
        if name in (
            "ConnectionError", "NewConnectionError", "MaxRetryError", "ProtocolError", "ChunkedEncodingError",
            "URLError", "RemoteDisconnected", "IncompleteRead", "ConnectionResetError", "S3Error",
        ):
            generic = generic or "connection failed"
        stack.extend([e.__cause__, e.__context__, getattr(e, "reason", None)])
        stack.extend(a for a in getattr(e, "args", ()) if isinstance(a, BaseException))
    return generic


def _url_in(exc: BaseException) -> str | None:
    """The URL a failed request asked for, without its query (which may hold an API key)."""
    stack: list[Any] = [exc]
    seen: set[int] = set()
    while stack:
        e = stack.pop()
        if not isinstance(e, BaseException) or id(e) in seen:
            continue
        seen.add(id(e))
        request = getattr(e, "request", None)
        url = getattr(request, "url", None) or (getattr(e, "url", None) if str(getattr(e, "url", "")).startswith("http") else None)
        if isinstance(url, str) and url:
            return url.split("?", 1)[0]
        stack.extend([e.__cause__, e.__context__])
    return None


def failure_text(what: str, exc: BaseException, url: str) -> tuple[str, bool]:
    """One line saying what failed and why, and whether it was the network.

    Parameters
    ----------
    what
        What was asked for, e.g. ``OpenML dataset 61``.
    exc
        openml-python's (or requests') exception.
    url
        The URL asked for, when the exception does not carry one.
    """
    reason = network_reason(exc)
    if reason is not None:
        return f"{what}: could not reach {_url_in(exc) or url} ({reason})", True
    code = getattr(exc, "code", None)
    message = getattr(exc, "message", None)
    if type(exc).__name__.startswith("OpenMLServer") and message is not None:
        detail = " ".join(str(message).split())
        return f"{what}: {getattr(exc, 'url', None) or url} answered: {detail}" + (
            f" (OpenML error {code})" if code is not None else ""
        ), False
    text = " ".join(str(exc).split()) or type(exc).__name__
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{what}: {type(exc).__name__}: {text}", False


def _fail(what: str, exc: BaseException, url: str) -> TreebenchError:
    text, network = failure_text(what, exc, url)
    if network:
        text += f"; check the network, or set {ENV_OFFLINE}=1 to use what is cached"
    return TreebenchError(text)


# --------------------------------------------------------------------------- datasets
@dataclass
class OpenMLTable:
    """A dataset as openml-python read it, with the metadata a card needs."""

    dataset_id: int
    version: int | None
    name: str
    frame: pd.DataFrame
    #: column -> OpenML data type (``numeric``, ``nominal``, ``string``, ``date``)
    types: dict[str, str]
    #: nominal column -> OpenML's declared levels, in OpenML's order
    levels: dict[str, list[str]]
    default_target: str | None
    description: str
    citation: str
    urls: list[str]
    qualities: dict[str, float] | None
    server: str


def read_dataset(
    dataset_id: int, settings: Settings, *, qualities: bool = False, ref: str | None = None
) -> OpenMLTable:
    """Read an OpenML dataset (data, features and optionally qualities) through openml-python.

    ``ref`` is what to fetch online when it is not cached offline (default ``openml:ID``).

    Raises
    ------
    TreebenchError
        Not cached while offline; a network failure; an unknown id; a
        dataset openml-python cannot read.  One line each.
    """
    what = f"OpenML dataset {dataset_id}"
    with session(settings) as openml:
        folder = _cache_folder(openml, "datasets", dataset_id)
        _require_cached(
            settings, what, folder,
            [("description.xml",), ("features.xml",), (f"dataset_{dataset_id}.pq", "dataset.arff")],
            ref or f"openml:{dataset_id}",
        )
        url = _api_url(openml, f"data/{dataset_id}")
        try:
            with _no_parquet_download(folder, dataset_id, settings):
                ds = openml.datasets.get_dataset(
                    dataset_id, download_data=True, download_qualities=False, download_features_meta_data=True
                )
                frame = ds.get_data(dataset_format="dataframe")[0]
                features = ds.features
            found_qualities = None
            if qualities and (not settings.offline or (folder / "qualities.xml").is_file()):
                found_qualities = ds.qualities
        except TreebenchError:
            raise
        except Exception as exc:  # openml-python, requests, urllib3, minio, liac-arff: all mean "could not read"
            raise _fail(what, exc, url) from None
        server = openml.config.server
    types = {f.name: f.data_type for f in features.values()}
    levels = {}
    for f in features.values():
        if f.data_type == "nominal" and f.name in frame.columns:
            column = frame[f.name]
            declared = list(column.cat.categories) if isinstance(column.dtype, pd.CategoricalDtype) else f.nominal_values
            levels[f.name] = [str(v) for v in (declared or [])]
    site = server.split("/api/", 1)[0]
    urls = [f"{site}/d/{dataset_id}"]
    for extra in (getattr(ds, "original_data_url", None), getattr(ds, "paper_url", None)):
        if isinstance(extra, str) and extra.strip().startswith("http") and extra.strip() not in urls:
            urls.append(extra.strip())
    return OpenMLTable(
        dataset_id=dataset_id,
        version=int(ds.version) if getattr(ds, "version", None) is not None else None,
        name=str(ds.name),
        frame=pd.DataFrame(frame),
        types=types,
        levels=levels,
        default_target=ds.default_target_attribute,
        description=str(ds.description or ""),
        citation=" ".join(str(ds.citation or "").split()),
        urls=urls,
        qualities=found_qualities,
        server=server,
    )


def read_frame(dataset_id: int, settings: Settings) -> tuple[pd.DataFrame, str | None, int | None]:
    """The data of an OpenML dataset, its default target and its version (for a card's ``openml`` source).

    Raises
    ------
    NetworkError
        OpenML could not be reached.
    SourceError
        Any other failure (not cached offline, unknown id, unreadable).
    """
    try:
        table = read_dataset(dataset_id, settings)
    except TreebenchError as exc:
        text = str(exc)
        if "could not reach" in text:
            raise NetworkError(text.split("; check the network", 1)[0]) from None
        raise SourceError(text) from None
    return table.frame, table.default_target, table.version


def card_name(table: OpenMLTable) -> str:
    """A card name from OpenML's dataset name: lowercase letters, digits, ``.``, ``_`` and ``-``."""
    name = _CARD_NAME.sub("-", table.name).strip("-._").lower()
    return name if name and name[0].isalnum() else f"openml-{table.dataset_id}"


def card_mapping(table: OpenMLTable, name: str, target: str | None = None) -> dict[str, Any]:
    """The fields of a card for ``table`` (``expected`` counts rows, features and classes only).

    Raises
    ------
    TreebenchError
        No usable target: none given and OpenML names none (or several), an
        unknown column, or a target that is not nominal.
    """
    what = f"OpenML dataset {table.dataset_id} ({table.name})"
    columns = [str(c) for c in table.frame.columns]
    nominal_columns = [c for c in columns if table.types.get(c) == "nominal"]
    if target is None:
        default = table.default_target
        if not default or "," in default:
            raise TreebenchError(
                f"{what} names {'several targets (' + default + ')' if default else 'no default target'}; "
                f"choose one with --target; accepted: {', '.join(nominal_columns) or 'none (no nominal column)'}"
            )
        target = default
    if target not in columns:
        raise TreebenchError(f"{what} has no column {target!r}; accepted: {', '.join(nominal_columns) or 'none'}")
    if table.types.get(target) != "nominal":
        raise TreebenchError(
            f"{what}: target {target!r} is {table.types.get(target, 'unknown')}, not nominal: treebench learns "
            f"classes; accepted: {', '.join(nominal_columns) or 'none (no nominal column)'}"
        )
    features = [c for c in columns if c != target and table.types.get(c) in ("numeric", "nominal")]
    others = [c for c in columns if c != target and c not in features]
    if not features:
        raise TreebenchError(f"{what} has no numeric or nominal feature besides {target!r}")
    labels = labels_of(table.frame[target])
    version = f", version {table.version}" if table.version is not None else ""
    summary = " ".join(table.description.split())
    summary = re.sub(r"[*#`]+", "", summary).strip()
    if len(summary) > 240:
        summary = summary[:237].rsplit(" ", 1)[0] + "..."
    description = f"{table.name}, OpenML dataset {table.dataset_id}{version}" + (f": {summary}" if summary else ".")
    mapping: dict[str, Any] = {
        "name": name,
        "title": f"{table.name} (OpenML {table.dataset_id}{version})",
        "description": description,
        "citation": table.citation or None,
        "urls": table.urls,
        "openml": {"id": table.dataset_id, **({"version": table.version} if table.version is not None else {})},
        "provenance": f"card written by `treebench datasets add openml:{table.dataset_id}` from the metadata of "
        f"{table.server} (features, kinds, levels, target); counts and checksum from its data",
        "target": target,
        "features": features,
        "nominal": {c: table.levels.get(c, []) or None for c in features if table.types.get(c) == "nominal"} or None,
        "non_features": others or None,
        "expected": {
            "rows": len(table.frame),
            "features": len(features),
            "classes": max(1, len({v for v in labels if v is not None})),
        },
    }
    if others:
        mapping["notes"] = f"Columns of OpenML type string or date are kept out of the features: {', '.join(others)}."
    return {k: v for k, v in mapping.items() if v is not None}


def build_card(
    table: OpenMLTable, name: str, path: Path, target: str | None = None
) -> tuple[Card, Dataset, dict[str, Any]]:
    """A complete card for ``table`` (its counts and checksum from the data), the dataset it pins
    and the card's fields.

    Raises
    ------
    TreebenchError
        No usable target (see :func:`card_mapping`), or data openml-python
        read that does not fit its own metadata (a value outside the
        declared levels, a non-numeric cell in a numeric column).
    """
    mapping = card_mapping(table, name, target)
    origin = f"OpenML dataset {table.dataset_id}"
    try:
        first = card_from_mapping(path, mapping)
        ds = to_dataset(name, first, normalize(first, table.frame, origin), f"openml {origin}")
    except SourceError as exc:
        raise TreebenchError(str(exc)) from None
    if ds.n_classes < 2:
        raise TreebenchError(f"{origin}: target {first.target!r} has {ds.n_classes} class; treebench needs two or more")
    mapping["expected"] = {
        "rows": ds.n_samples,
        "features": ds.n_features,
        "classes": ds.n_classes,
        "class_counts": ds.class_counts(),
        "missing": ds.missing_cells(),
    }
    mapping["checksum"] = ds.checksum
    card = card_from_mapping(path, mapping)
    ds.card = card
    return card, ds, mapping


def check_qualities(table: OpenMLTable, ds: Dataset) -> None:
    """Compare the data with OpenML's own counts (when its qualities were read).

    Raises
    ------
    TreebenchError
        The data has another number of rows or classes than OpenML says.
    """
    q = table.qualities or {}
    for key, found in (("NumberOfInstances", ds.n_samples), ("NumberOfClasses", ds.n_classes)):
        value = q.get(key)
        if value is not None and value == value and int(value) != found:
            raise TreebenchError(
                f"OpenML dataset {table.dataset_id}: the data has {found} {'rows' if 'Inst' in key else 'classes'}, "
                f"OpenML's qualities say {int(value)} ({key}); the cached copy may be incomplete: delete "
                f"{CACHE_SUBDIR}/.../datasets/{table.dataset_id} in the cache and try again"
            )


def card_yaml(card_fields: dict[str, Any]) -> str:
    """The text of a card: a comment line, then the fields in the usual order (YAML 1.1 safe)."""
    order = [
        "name", "title", "description", "citation", "papers", "urls", "openml", "provenance", "target",
        "features", "nominal", "non_features", "expected", "checksum", "notes",
    ]
    ordered = {k: card_fields[k] for k in order if k in card_fields}
    body = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None)
    return f"# written by `treebench datasets add openml:{card_fields['openml']['id']}`\n" + body


@dataclass(frozen=True)
class Added:
    """What :func:`add_card` wrote."""

    path: Path
    card: Card
    dataset: Dataset
    overrides: Path | None


def add_card(
    ref: str, settings: Settings, *, name: str | None = None, target: str | None = None, force: bool = False
) -> Added:
    """Write a card for ``openml:ID`` into the user card folder and cache its table.

    The card names the dataset's OpenML id and version, its target, features
    and their kinds (nominal ones with OpenML's levels), its counts and the
    checksum of its canonical table; it is read back and the cached table is
    cached in treebench's cache (so it loads offline).

    Parameters
    ----------
    ref
        ``openml:ID``.
    settings
        Where the user cards are (the first of ``TREEBENCH_CARDS``) and the cache.
    name
        The card's name (default: OpenML's dataset name, made a card name).
    target
        The class column (default: OpenML's default target).
    force
        Replace a user card of that name.

    Raises
    ------
    TreebenchError
        A bad reference, name or target; a network failure; a card of that
        name already in the user folder (without ``force``), or, for a
        default name, anywhere.
    """
    from treebench.data.cache import Cache

    dataset_id = int(parse_ref(ref, ("dataset",)).key)
    if name is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
        raise TreebenchError(f"card name {name!r} is not valid; accepted: letters, digits, '.', '_' and '-'")
    table = read_dataset(dataset_id, settings, qualities=True)
    chosen = name or card_name(table)
    folder = settings.user_cards_dir
    path = folder / f"{chosen}.yaml"
    registry = CardRegistry(settings.card_folders)
    existing = _existing(registry, chosen)
    if path.exists() and not force:
        raise TreebenchError(f"{display_path(path)} exists; use --force to replace it, or --name to choose another name")
    if existing is not None and existing != path and name is None:
        raise TreebenchError(
            f"a card named {chosen!r} exists ({display_path(existing)}); choose another name with --name "
            f"(e.g. --name {chosen}-openml{dataset_id}), or give --name {chosen} to override it"
        )
    _card, ds, fields = build_card(table, chosen, path, target)
    check_qualities(table, ds)
    text = card_yaml(fields)
    written = parse_card_text(path, text)  # what is written must read back as this card
    if written.checksum != ds.checksum:  # pragma: no cover - a YAML round-trip bug
        raise TreebenchError(f"{display_path(path)}: the card does not read back as written")
    from treebench.outpaths import make_folder, write_text

    shown = f"card {display_path(path)}"  # a parent that is a file, no write permission: one line naming it
    make_folder(folder, shown)
    write_text(path, text, shown)
    Cache(settings.cache_dir).store(chosen, Table.from_dataset(ds), f"openml OpenML dataset {dataset_id}")
    hidden = CardRegistry(settings.card_folders).overrides().get(chosen)
    return Added(path, written, ds, hidden[0] if hidden else None)


def _existing(registry: CardRegistry, name: str) -> Path | None:
    try:
        return registry.get(name).path if name in registry.names() or name in registry.aliases() else None
    except TreebenchError:
        return None


# --------------------------------------------------------------------------- tasks
@dataclass(frozen=True)
class TaskInfo:
    """What a config needs to know of an OpenML task before running it."""

    task_id: int
    dataset_id: int
    dataset_name: str
    target: str
    procedure: str
    repeats: int
    folds: int


@dataclass
class TaskData:
    """An OpenML task's data and splits.

    ``test_folds[r][i]`` is the fold of repeat ``r`` whose test part holds
    row ``i`` (-1: no fold tests it, as in a holdout's training rows); fold
    ``f``'s training part is every row not in its test part (checked when
    the splits are read).
    """

    info: TaskInfo
    dataset: Dataset
    test_folds: tuple[np.ndarray, ...]


def _classification_task(openml: Any, task_id: int, settings: Settings) -> Any:
    """The task through openml-python (cached or downloaded), refused unless supervised classification."""
    what = f"OpenML task {task_id}"
    ref = f"openml-task:{task_id}"
    folder = _cache_folder(openml, "tasks", task_id)
    _require_cached(settings, what, folder, [("task.xml",)], ref)
    url = _api_url(openml, f"task/{task_id}")
    try:
        if settings.offline:  # look at the type before asking for the dataset's files
            from openml.tasks.functions import _get_cached_task

            cached = _get_cached_task(task_id)
            _check_type(openml, cached, what)
            data_folder = _cache_folder(openml, "datasets", cached.dataset_id)
            _require_cached(settings, what + "'s dataset", data_folder, [("description.xml",), ("features.xml",)], ref)
        task = openml.tasks.get_task(
            task_id, download_splits=False, download_data=False,
            download_qualities=False, download_features_meta_data=False,
        )
    except TreebenchError:
        raise
    except Exception as exc:
        raise _fail(what, exc, url) from None
    _check_type(openml, task, what)
    return task


def _check_type(openml: Any, task: Any, what: str) -> None:
    if task.task_type_id != openml.tasks.TaskType.SUPERVISED_CLASSIFICATION:
        raise TreebenchError(
            f"{what} is a {task.task_type} task; accepted: Supervised Classification tasks"
        )


def _dimensions(openml: Any, task: Any, settings: Settings) -> tuple[int, int]:
    what = f"OpenML task {task.task_id}"
    try:
        repeats, folds, samples = task.get_split_dimensions()
    except Exception as exc:
        raise _fail(what + " splits", exc, str(task.estimation_procedure.get("data_splits_url"))) from None
    if samples != 1:
        raise TreebenchError(f"{what} has {samples} samples per fold (a learning curve); accepted: one sample per fold")
    return int(repeats), int(folds)


#: OpenML estimation procedures whose splits treebench runs: each fold tests some rows and trains on the rest.
PROCEDURES = ("crossvalidation", "holdout", "customholdout")


def task_info(task_id: int, settings: Settings) -> TaskInfo:
    """The task's dataset, target and number of repeats and folds, from the task's description.

    Nothing but the task's and its dataset's descriptions is read (no data,
    no splits): enough to validate a config and plan its trials.

    Raises
    ------
    TreebenchError
        Not cached while offline, a network failure, an unknown task, a task
        that is not supervised classification, or an estimation procedure
        other than cross-validation or holdout.  One line each.
    """
    with session(settings) as openml:
        task = _classification_task(openml, task_id, settings)
        procedure = task.estimation_procedure or {}
        kind = str(procedure.get("type") or "")
        params = procedure.get("parameters") or {}
        if kind not in PROCEDURES:
            raise TreebenchError(
                f"OpenML task {task_id} estimates by {kind or 'an unnamed procedure'!r}; accepted: "
                f"{', '.join(PROCEDURES)} (fixed folds that test some rows and train on the rest)"
            )
        try:
            repeats = int(params.get("number_repeats") or 1)
            folds = int(params.get("number_folds") or 1) if kind == "crossvalidation" else 1
        except (TypeError, ValueError):
            raise TreebenchError(
                f"OpenML task {task_id}: its estimation procedure has no usable number_repeats/number_folds ({params})"
            ) from None
        try:
            name = str(openml.datasets.get_dataset(task.dataset_id).name)
        except Exception as exc:
            raise _fail(f"OpenML dataset {task.dataset_id}", exc, _api_url(openml, f"data/{task.dataset_id}")) from None
    return TaskInfo(task_id, int(task.dataset_id), name, str(task.target_name), kind, repeats, folds)


def load_task(task_id: int, settings: Settings) -> TaskData:
    """The task's data (its dataset with the task's target, as a card from OpenML's metadata would read it)
    and its splits as test folds per repeat.

    Raises
    ------
    TreebenchError
        As :func:`task_info`; also splits that are not a partition into a
        training and a test part (a row in both or in neither), or that name
        rows the data does not have.
    """
    info = task_info(task_id, settings)
    table = read_dataset(info.dataset_id, settings, ref=f"openml-task:{task_id}")
    name = f"openml-task-{task_id}"
    with session(settings) as openml:
        path = _cache_folder(openml, "tasks", task_id) / f"{name}.yaml"
        _card, ds, _fields = build_card(table, name, path, info.target)
        task = _classification_task(openml, task_id, settings)
        _require_cached(
            settings, f"OpenML task {task_id}'s splits", _cache_folder(openml, "tasks", task_id),
            [("datasplits.arff", "datasplits.pkl.py3")], f"openml-task:{task_id}",
        )
        repeats, folds = _dimensions(openml, task, settings)
        if (repeats, folds) != (info.repeats, info.folds):
            raise TreebenchError(
                f"OpenML task {task_id}: its splits file has {folds} folds x {repeats} repeats, its estimation "
                f"procedure says {info.folds} x {info.repeats}"
            )
        n = ds.n_samples
        what = f"OpenML task {task_id}"
        folds: list[np.ndarray] = []
        try:
            for r in range(info.repeats):
                codes = np.full(n, -1, dtype=np.int64)
                for f in range(info.folds):
                    train, test = (np.asarray(a, dtype=np.int64) for a in task.get_train_test_split_indices(fold=f, repeat=r))
                    if (train.size and (train.min() < 0 or train.max() >= n)) or (test.size and (test.min() < 0 or test.max() >= n)):
                        raise TreebenchError(f"{what}: repeat {r} fold {f} names rows outside the data's {n} rows")
                    seen = np.bincount(train, minlength=n) + 2 * np.bincount(test, minlength=n)
                    if not test.size or not np.isin(seen, (1, 2)).all() or (codes[test] != -1).any():
                        raise TreebenchError(
                            f"{what}: repeat {r} fold {f} is not a split into a training part and the rest "
                            "(a row in both, in neither, or tested twice in one repeat); accepted: cross-validation "
                            "and holdout tasks"
                        )
                    codes[test] = f
                folds.append(codes)
        except TreebenchError:
            raise
        except Exception as exc:
            raise _fail(what + " splits", exc, str(task.estimation_procedure.get("data_splits_url"))) from None
    return TaskData(info, ds, tuple(folds))


# --------------------------------------------------------------------------- suites
@dataclass(frozen=True)
class Suite:
    """An OpenML benchmarking suite: its id, alias, name and tasks (in OpenML's order)."""

    id: int
    alias: str | None
    name: str
    tasks: tuple[int, ...]


def suite(key: int | str, settings: Settings) -> Suite:
    """The suite with this id or alias, from treebench's copy of OpenML's answer or downloaded.

    Raises
    ------
    TreebenchError
        Not cached while offline, a network failure, an unknown suite, a
        study of runs rather than tasks, a suite without tasks.
    """
    given = key
    # an alias is the same suite as its id: one cached file (<id>.xml), whichever form fetched it
    key = KNOWN_SUITES.get(key, key) if isinstance(key, str) else key
    what = f"OpenML suite {given}" + (f" (id {key})" if given != key else "")
    with session(settings) as openml:
        folder = Path(openml.config.get_cache_directory()) / SUITES_DIR
        path = folder / f"{key}.xml"
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise TreebenchError(f"{what}: cannot read {path} ({exc}); delete it to download it again") from None
            fetched = False
        elif settings.offline:
            raise TreebenchError(
                f"{what} is not in the OpenML cache ({path} does not exist) and {ENV_OFFLINE} is set, so nothing "
                f"is downloaded; run `treebench datasets fetch openml-suite:{given}` online first"
            )
        else:
            url = _api_url(openml, f"study/{key}")
            try:
                text = openml._api_calls._perform_api_call(f"study/{key}", "get")
            except Exception as exc:
                raise _fail(what, exc, url) from None
            fetched = True
    found = parse_suite(text, what, path)
    if fetched:
        from treebench.outpaths import make_folder, write_text

        shown = f"OpenML cache {str(folder)!r}"
        make_folder(folder, shown)
        write_text(path, text, shown)
    return found


def parse_suite(text: str, what: str, path: Path) -> Suite:
    """Read OpenML's XML answer for ``study/<id>`` (the fields openml-python's ``get_suite`` reads).

    Raises
    ------
    TreebenchError
        Not XML, not a study, a study of runs, no tasks.
    """
    from xml.parsers.expat import ExpatError

    import xmltodict

    try:
        study = xmltodict.parse(text, force_list=("oml:task_id",)).get("oml:study")
    except (ExpatError, ValueError, AttributeError):
        study = None
    if not isinstance(study, dict):
        raise TreebenchError(f"{what}: {path} is not an OpenML study (XML oml:study); delete it to download it again")
    kind = study.get("oml:main_entity_type")
    if kind != "task":
        raise TreebenchError(f"{what} is a study of {kind}s, not a suite of tasks; accepted: benchmarking suites")
    tasks = tuple(int(t) for t in ((study.get("oml:tasks") or {}).get("oml:task_id") or []))
    if not tasks:
        raise TreebenchError(f"{what} holds no task")
    return Suite(int(study["oml:id"]), study.get("oml:alias"), str(study.get("oml:name") or ""), tasks)


def server_note(settings: Settings) -> str:
    """Which OpenML server is used, for messages."""
    return settings.openml_server or f"openml-python's configured server ({ENV_OPENML_SERVER} not set)"
