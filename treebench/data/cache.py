"""The download cache: mirror-format files, each with a SHA-256 record.

A cached dataset is ``<cache>/<name>.csv.gz`` (the card's columns, text
labels, empty cells for missing values: the same layout as a mirror file, so
it can be copied into a mirror folder as is) plus ``<name>.json`` holding the
file's SHA-256 and where it came from.  A file whose bytes no longer match the
record (or without a readable record) is corrupt: the loader stops with an
error naming it, leaves it in place and never falls back to another source;
``treebench datasets fetch NAME --refresh`` replaces it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import time
from pathlib import Path

import pandas as pd

from treebench.data.build import Table
from treebench.data.formats import SourceError, read_csv_bytes


class Cache:
    """One cache folder.

    Parameters
    ----------
    directory
        Created on first write.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def data_path(self, name: str) -> Path:
        return self.directory / f"{name}.csv.gz"

    def record_path(self, name: str) -> Path:
        return self.directory / f"{name}.json"

    def has(self, name: str) -> bool:
        return self.data_path(name).is_file()

    def read(self, name: str, text_columns: list[str]) -> pd.DataFrame:
        """Read a cached table after checking its bytes against the record.

        Raises
        ------
        SourceError
            Missing or unreadable record, checksum mismatch, unreadable data.
        """
        path = self.data_path(name)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise SourceError(f"{path}: cannot read ({exc.strerror})") from None
        try:
            record = json.loads(self.record_path(name).read_text(encoding="utf-8"))
            wanted = record["sha256"]
        except (OSError, ValueError, KeyError, TypeError):
            raise SourceError(f"{path}: no valid checksum record ({self.record_path(name).name})") from None
        actual = hashlib.sha256(data).hexdigest()
        if actual != wanted:
            raise SourceError(f"{path}: corrupt cache file (sha256 {actual[:12]}, recorded {str(wanted)[:12]})")
        return read_csv_bytes(data, str(path), text_columns=text_columns, missing=("",))

    def store(self, name: str, table: Table, source: str) -> Path:
        """Write a table atomically, with its checksum record; returns the data path.

        A cache folder that cannot be made or written (a parent that is a file, no write
        permission) is one :class:`~treebench.errors.TreebenchError` line naming it.
        """
        from treebench.outpaths import make_folder

        make_folder(self.directory, self.what)
        columns = [*table.features, *table.extras, table.target]
        text = table.frame[columns].to_csv(index=False, na_rep="", lineterminator="\n")
        data = gzip.compress(text.encode("utf-8"), mtime=0)  # same content, same bytes
        record = {
            "name": name,
            "file": self.data_path(name).name,
            "sha256": hashlib.sha256(data).hexdigest(),
            "rows": len(table.frame),
            "source": source,
            "fetched": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        # write-then-rename (outpaths): a crash never leaves a half-written file under the real name
        write_bytes(self.data_path(name), data, self.what)
        write_bytes(self.record_path(name), (json.dumps(record, indent=2) + "\n").encode(), self.what)
        return self.data_path(name)

    @property
    def what(self) -> str:
        """How messages name this cache: the folder and the variable that moves it."""
        from treebench.data.settings import ENV_CACHE

        return f"dataset cache {str(self.directory)!r} (set {ENV_CACHE} to move it)"


def write_bytes(path: Path, data: bytes, what: str) -> Path:
    """Write ``data`` to ``path`` atomically (:func:`treebench.outpaths.write_bytes`)."""
    from treebench.outpaths import write_bytes as write

    return write(path, data, what)
