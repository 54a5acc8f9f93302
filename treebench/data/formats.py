"""Read tables from files or downloaded bytes: CSV (plain or gzip), ARFF, zip.

Readers return raw :class:`pandas.DataFrame` objects with the file's own
column names; :mod:`treebench.data.build` turns them into typed datasets.
Any unreadable input raises :class:`SourceError` naming the file.
"""

from __future__ import annotations

import csv
import gzip
import io
import warnings
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"
MIRROR_SUFFIXES = (".csv.gz", ".csv", ".arff")


class SourceError(Exception):
    """A copy exists but cannot be used (corrupt, unreadable, wrong layout)."""


class NetworkError(SourceError):
    """A download could not be made: no network, a refused or timed-out connection.

    Nothing was read, so nothing is wrong with any copy: the loader notes it
    without a warning and tries the next source.
    """


def read_mirror_file(path: Path, text_columns: Iterable[str], missing: Iterable[str]) -> pd.DataFrame:
    """Read ``<name>.csv.gz``, ``<name>.csv`` or ``<name>.arff``.

    Parameters
    ----------
    path
        The file.
    text_columns
        Columns to keep as written (labels, categories): never parsed as numbers.
    missing
        Cell texts that mean "missing" (CSV only; ARFF uses ``?``).
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: cannot read ({exc.strerror})") from None
    if path.name.endswith(".arff"):
        return read_arff_bytes(data, str(path))
    return read_csv_bytes(data, str(path), text_columns=text_columns, missing=missing)


def unpack(data: bytes, origin: str, member: str | None = None) -> bytes:
    """Undo gzip or zip compression (by magic bytes); plain bytes pass through."""
    if data[:2] == GZIP_MAGIC:
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise SourceError(f"{origin}: corrupt gzip data ({exc})") from None
    if data[:4] == ZIP_MAGIC:
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                names = [n for n in archive.namelist() if not n.endswith("/")]
                if member is None and len(names) != 1:
                    raise SourceError(
                        f"{origin}: zip archive holds {len(names)} files; name one with 'member' ({', '.join(names[:5])})"
                    )
                chosen = member or names[0]
                if chosen not in names:
                    raise SourceError(f"{origin}: zip archive has no member {chosen!r}; found: {', '.join(names[:5])}")
                return archive.read(chosen)
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise SourceError(f"{origin}: corrupt zip data ({exc})") from None
    return data


def read_csv_bytes(
    data: bytes,
    origin: str,
    *,
    text_columns: Iterable[str] = (),
    missing: Iterable[str] = ("", "?"),
    header: bool = True,
    columns: Iterable[str] | None = None,
    sep: str = ",",
    skip_rows: int = 0,
) -> pd.DataFrame:
    """Parse CSV-like bytes (gzip/zip detected) into a DataFrame of raw values.

    Only the given ``missing`` markers become NaN: pandas' defaults would turn
    legitimate category names such as ``None`` or ``NA`` into missing values.
    """
    raw = unpack(data, origin)
    names = list(columns) if columns is not None else None
    text = set(text_columns)
    if names is not None:
        text &= set(names)
    try:
        with warnings.catch_warnings():
            # rows with more fields than the header would silently lose data
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(
                io.BytesIO(raw),
                sep=sep,
                header=0 if header else None,
                names=names,
                skiprows=skip_rows,
                keep_default_na=False,
                na_values=list(missing),
                dtype={c: str for c in text} or None,
                skipinitialspace=sep == ",",
                index_col=False,
                encoding="utf-8",
                encoding_errors="strict",
            )
    except UnicodeDecodeError:
        raise SourceError(f"{origin}: not UTF-8 text (binary or corrupt file?)") from None
    except (pd.errors.ParserError, pd.errors.ParserWarning, pd.errors.EmptyDataError, ValueError, csv.Error) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SourceError(f"{origin}: not a readable CSV table ({first})") from None
    if frame.empty:
        raise SourceError(f"{origin}: the table has no rows")
    return frame


def read_arff_bytes(data: bytes, origin: str) -> pd.DataFrame:
    """Parse an ARFF file (gzip/zip detected) with liac-arff."""
    import arff  # liac-arff, installed with openml

    raw = unpack(data, origin)
    try:
        parsed = arff.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SourceError(f"{origin}: not UTF-8 text (binary or corrupt file?)") from None
    except Exception as exc:  # liac-arff raises its own hierarchy; any failure means unreadable
        raise SourceError(f"{origin}: not a readable ARFF file ({exc})") from None
    names = [name for name, _ in parsed["attributes"]]
    frame = pd.DataFrame(parsed["data"], columns=names)
    if frame.empty:
        raise SourceError(f"{origin}: the table has no rows")
    return frame
