"""Where a raw dataset can come from: cache, mirror folders, scikit-learn, OpenML, UCI.

Each source offers :class:`Candidate` copies for a card (or says why it has
none).  A candidate only *reads* a raw table; the loader types and checks it,
so every source is held to the same card.
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from treebench.data.cache import Cache
from treebench.data.cards import Card, DownloadFile
from treebench.data.formats import (
    MIRROR_SUFFIXES,
    NetworkError,
    SourceError,
    read_arff_bytes,
    read_csv_bytes,
    read_mirror_file,
    unpack,
)
from treebench.data.labels import as_label, is_missing
from treebench.data.settings import Settings

#: progress(bytes_done, bytes_total_or_None, what)
Progress = Callable[[int, "int | None", str], None]

_SEPARATORS = {"csv": ",", "whitespace": r"\s+", "tab": "\t"}
_CHUNK = 1 << 16


@dataclass
class Candidate:
    """One copy of a dataset that may be read."""

    kind: str  # cache | mirror | embedded | openml | uci
    origin: str  # a path or URL, for messages
    read: Callable[[], pd.DataFrame]
    network: bool = False

    @property
    def label(self) -> str:
        return f"{self.kind} {self.origin}"


def text_columns(card: Card) -> list[str]:
    """Columns read as text: labels and categories keep their spelling."""
    return [*card.nominal, *card.ordinal, *card.non_features, card.target]


# --------------------------------------------------------------------------- local
def cache_candidates(card: Card, cache: Cache) -> tuple[list[Candidate], str]:
    if not cache.has(card.name):
        return [], f"cache: no {cache.data_path(card.name).name} in {cache.directory}"
    path = cache.data_path(card.name)
    return [Candidate("cache", str(path), lambda: cache.read(card.name, text_columns(card)))], ""


def mirror_files(card: Card, settings: Settings) -> list:
    """Existing ``<file>.csv.gz|.csv|.arff`` files in the mirror folders, in search order."""
    found = []
    for folder in settings.mirrors:
        for suffix in MIRROR_SUFFIXES:
            path = folder / f"{card.file}{suffix}"
            if path.is_file():
                found.append(path)
    return found


def mirror_candidates(card: Card, settings: Settings) -> tuple[list[Candidate], str]:
    if not settings.mirrors:
        return [], "mirror: TREEBENCH_DATA is not set"
    files = mirror_files(card, settings)
    if not files:
        names = "/".join(f"{card.file}{s}" for s in MIRROR_SUFFIXES)
        return [], f"mirror: no {names} in {settings.describe_mirrors()}"
    columns, missing = text_columns(card), card.missing_values
    out = [
        Candidate("mirror", str(path), lambda path=path: read_mirror_file(path, columns, missing))
        for path in files
    ]
    return out, ""


def embedded_candidates(card: Card) -> tuple[list[Candidate], str]:
    if card.embedded is None:
        return [], ""
    origin = f"sklearn.datasets.{card.embedded.loader}"
    return [Candidate("embedded", origin, lambda: _read_embedded(card))], ""


def _read_embedded(card: Card) -> pd.DataFrame:
    spec = card.embedded
    assert spec is not None
    try:
        from sklearn import datasets as bundled

        bunch = getattr(bundled, spec.loader)()
    except Exception as exc:  # an incomplete scikit-learn install: report, try other sources
        raise SourceError(f"sklearn.datasets.{spec.loader}: failed ({_one_line(exc)})") from None
    data = np.asarray(bunch.data, dtype=np.float64)
    target = np.asarray(bunch.target)
    if data.shape[1] != len(spec.columns) or target.max() >= len(spec.classes):
        raise SourceError(
            f"sklearn.datasets.{spec.loader}: {data.shape[1]} columns and {target.max() + 1} classes, "
            f"card maps {len(spec.columns)} and {len(spec.classes)}"
        )
    frame = pd.DataFrame(data, columns=list(spec.columns))
    frame[card.target] = np.asarray(spec.classes, dtype=object)[target]
    return frame


# --------------------------------------------------------------------------- network
def openml_candidates(card: Card, settings: Settings) -> tuple[list[Candidate], str]:
    spec = card.openml
    if spec is None or spec.id is None:
        return [], "OpenML: no id in the card"
    if not spec.fetch:
        return [], f"OpenML: dataset {spec.id} is not used (the card says OpenML's copy differs)"
    if settings.offline:
        return [], "OpenML: skipped (offline)"
    origin = f"OpenML dataset {spec.id}" + (f" v{spec.version}" if spec.version else "")
    return [Candidate("openml", origin, lambda: read_openml(card, settings), network=True)], ""


def read_openml(card: Card, settings: Settings) -> pd.DataFrame:
    """Read through openml-python (see :mod:`treebench.data.openml`) and rename to the card's columns.

    Raises
    ------
    NetworkError
        OpenML could not be reached.
    SourceError
        Any other failure, or another version than the card names.
    """
    from treebench.data.openml import read_frame

    spec = card.openml
    assert spec is not None and spec.id is not None
    frame, default_target, version = read_frame(spec.id, settings)
    if spec.version is not None and version is not None and version != spec.version:
        raise SourceError(f"OpenML dataset {spec.id}: is version {version}, the card names version {spec.version}")
    rename = dict(spec.rename)
    if (
        default_target
        and default_target not in rename
        and default_target != card.target
        and card.target not in frame.columns
    ):
        rename[default_target] = card.target
    return pd.DataFrame(frame).rename(columns=rename)


def uci_candidates(card: Card, settings: Settings, progress: Progress | None) -> tuple[list[Candidate], str]:
    spec = card.uci
    if spec is None or not spec.files:
        return [], "UCI: no download recipe in the card"
    if settings.offline:
        return [], "UCI: skipped (offline)"
    origin = spec.files[0].url + (f" (+{len(spec.files) - 1} files)" if len(spec.files) > 1 else "")
    return [Candidate("uci", origin, lambda: read_uci(card, settings, progress), network=True)], ""


def read_uci(card: Card, settings: Settings, progress: Progress | None = None) -> pd.DataFrame:
    """Download the recipe's files and rebuild the mirror layout."""
    spec = card.uci
    assert spec is not None
    parts = []
    for item in spec.files:
        data = download(item.url, settings.timeout, progress)
        parts.append(_parse_download(card, item, data))
    frame = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    frame = frame.drop(columns=[c for c in spec.drop if c in frame.columns])
    if spec.class_labels and card.target in frame.columns:
        mapping = spec.class_labels
        frame[card.target] = [
            v if is_missing(v) else mapping.get(as_label(v), v) for v in frame[card.target].tolist()
        ]
    return frame


def _parse_download(card: Card, item: DownloadFile, data: bytes) -> pd.DataFrame:
    origin = item.url
    if item.format == "arff":
        frame = read_arff_bytes(unpack(data, origin, item.member), origin)
    else:
        frame = read_csv_bytes(
            unpack(data, origin, item.member),
            origin,
            text_columns=text_columns(card),
            missing=card.missing_values,
            header=item.header,
            columns=item.columns,
            sep=_SEPARATORS[item.format],
            skip_rows=item.skip_rows,
        )
    if item.split is not None:
        frame["split"] = item.split
    return frame


def download(url: str, timeout: float, progress: Progress | None = None) -> bytes:
    """GET a URL with a timeout, reporting progress; failures raise :class:`SourceError`."""
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in ("http", "https"):
        raise SourceError(f"{url}: only http and https downloads are supported")
    request = urllib.request.Request(url, headers={"User-Agent": "treebench-data/1"})
    name = url.rsplit("/", 1)[-1] or url
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            chunks, done = [], 0
            while True:
                chunk = response.read(_CHUNK)
                if not chunk:
                    break
                chunks.append(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total, name)
    except urllib.error.HTTPError as exc:
        raise SourceError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        from treebench.data.openml import network_reason

        reason = network_reason(exc) or _one_line(getattr(exc, "reason", exc)) or "timed out"
        raise NetworkError(f"could not reach {url} ({reason})") from None
    data = b"".join(chunks)
    if total is not None and len(data) != total:
        raise SourceError(f"{url}: download truncated ({len(data)} of {total} bytes)")
    return data


def _one_line(exc: object) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."
