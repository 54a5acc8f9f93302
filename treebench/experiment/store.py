"""The results store: one SQLite file per experiment, one row per trial.

The driver is the only writer.  The file is in WAL mode and every finished
trial is committed in its own transaction, so a run killed at any moment
keeps every trial it had recorded and the file stays consistent; the primary
key (the trial hash) makes duplicates impossible.  A rerun skips the keys
whose status is ``ok``; failed trials are tried again and their row updated.
Finished rows are only ever replaced under ``--force``.

Contract (the stats and report layers rely on it): :meth:`ResultsStore.to_frame`
returns :data:`COLUMNS`, with one more column per extra measure that some
learner recorded (a learner's ``extra_metrics``, kept per trial in the open
JSON field ``measures``) inserted after the fixed metrics; their definitions
(direction, display) are in ``frame.attrs["metrics"]``.  The extra columns
(:data:`EXTRA_COLUMNS`) come with ``to_frame(all_columns=True)`` and in exports.

Stores written before measures were open kept such a measure in a column of
its own; those columns are read into the same measure columns.

Opening: ``ResultsStore(path)`` only reads.  It never writes the file, never
switches it to WAL and never creates a ``-wal``/``-shm`` next to it: with no
run writing the store it reads a private snapshot (``immutable=1`` when the
file has no pending WAL, else a copy of the file and its WAL in a temporary
folder), and it reads alongside a live run through SQLite's read-only mode.
``ResultsStore(path, create=True, identity=..., datasets=...)`` is the run's
writer: it takes the lock (on the real path, so a symlink and the file share
it), checks that the store belongs to this experiment and that every dataset
label still has the content it was pinned to, and only then changes the file.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import math
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

from treebench.errors import TreebenchError, special_kind
from treebench.experiment.specs import METRICS
from treebench.outpaths import (
    BOARD_LOCK,  # noqa: F401 - re-exported: one spelling, in the lowest layer that checks it
    lock_held,
    writable_reason,
)
from treebench.stats.metrics import Metric

SCHEMA_VERSION = "1"

#: The contract of :meth:`ResultsStore.to_frame`, in order.
COLUMNS = (
    "experiment",
    "dataset",
    "algorithm",
    "protocol",
    "repeat",
    "fold",
    "seed",
    "status",
    *METRICS,
    "params",
    "error_text",
    "trial_key",
    "finished_at",
)
#: Also stored: the tuned values alone, tuning time, part sizes, the data checksum,
#: and the learner's extra measures as JSON (expanded into columns by ``to_frame``).
EXTRA_COLUMNS = ("chosen", "tune_seconds", "n_train", "n_test", "dataset_checksum", "measures")
#: Stored, but in no frame or export: the checksum of the trial's kept predictions file, which
#: its readers check the file against (NULL when none were kept, or in a store written before
#: it was recorded: :mod:`treebench.experiment.predictions`).
INTERNAL_COLUMNS = ("predictions_sha256",)
#: Columns that legitimately differ between two runs of the same trials.
TIMING_COLUMNS = ("fit_seconds", "predict_seconds", "tune_seconds", "finished_at")

_INT = ("repeat", "fold", "seed")
_FLOAT = (
    *METRICS,
    "tune_seconds",
    "n_train",
    "n_test",
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS trials (
    trial_key TEXT PRIMARY KEY,
    experiment TEXT NOT NULL,
    dataset TEXT NOT NULL,
    algorithm TEXT NOT NULL,
    protocol TEXT NOT NULL,
    repeat INTEGER NOT NULL,
    fold INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    accuracy REAL,
    error REAL,
    train_accuracy REAL,
    n_leaves INTEGER,
    n_nodes INTEGER,
    depth INTEGER,
    fit_seconds REAL,
    predict_seconds REAL,
    tree_quality REAL,
    params TEXT NOT NULL,
    error_text TEXT,
    finished_at TEXT NOT NULL,
    chosen TEXT,
    tune_seconds REAL,
    n_train INTEGER,
    n_test INTEGER,
    dataset_checksum TEXT,
    measures TEXT,
    predictions_sha256 TEXT
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    backend TEXT,
    planned INTEGER, done INTEGER, skipped INTEGER, failed INTEGER,
    interrupted INTEGER, wall_seconds REAL
);
"""

_ALL = (*COLUMNS, *EXTRA_COLUMNS)
_STORED = (*_ALL, *INTERNAL_COLUMNS)
_INSERT = f"INSERT INTO trials ({', '.join(_STORED)}) VALUES ({', '.join(':' + c for c in _STORED)})"
_UPDATE_FAILED = (
    _INSERT
    + " ON CONFLICT(trial_key) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _STORED if c != "trial_key")
    + " WHERE trials.status <> 'ok'"
)
_REPLACE = _INSERT.replace("INSERT INTO", "INSERT OR REPLACE INTO", 1)


#: Types of the columns added after the first schema (an older store gets them when a run writes it).
_LATER_COLUMNS = {
    "chosen": "TEXT",
    "tune_seconds": "REAL",
    "n_train": "INTEGER",
    "n_test": "INTEGER",
    "dataset_checksum": "TEXT",
    "measures": "TEXT",
    "predictions_sha256": "TEXT",
}
_SQLITE_HEADER = b"SQLite format 3\x00"
#: Meta keys of a store's identity (JSON of the fields) and dataset pins (JSON label -> checksum).
IDENTITY_KEY = "identity"
FINGERPRINT_KEY = "fingerprint"
PINS_KEY = "dataset_checksums"
_ELSEWHERE = "use --store (or the config's store:) to choose another file"
#: The way out of a store path blocked by a file of the wrong kind (the store or a companion).
_MOVE = "move it away, or use --store (or the config's store:) to choose another file"


class StoreWriteError(TreebenchError):
    """The system refused to write a results store mid-run (a full disk, a file gone read-only).

    The trials committed before stay in the store (each is its own transaction); a
    store this run created and recorded nothing in is removed (:meth:`ResultsStore.close`).
    """


#: Why SQLite could not write, in words that say where to look (its own "database or disk is full").
_FULL = "database or disk is full"


def write_refusal(shown: str, exc: BaseException) -> StoreWriteError:
    """The one-line error of a store write the system refused (``exc``: SQLite's or the OS's error)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    way = "rerun the same command to resume once it can be written"
    if _FULL in text or getattr(exc, "errno", None) == errno.ENOSPC:
        text, way = ("no space left on the device that holds it (SQLite: database or disk is full)",
                     "free space there and rerun the same command to resume")
    # each trial is committed alone: what was committed before stays (a run recorded nothing is removed)
    return StoreWriteError(f"cannot write results store {shown!r}: {text}; no finished trial is lost: {way}, "
                           "or use --store to write elsewhere")


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def fingerprint(identity: dict[str, Any]) -> str:
    """SHA-256 of an identity's fields other than the experiment name (canonical JSON)."""
    fields = {k: v for k, v in identity.items() if k != "experiment"}
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- locations
def real_path(path: str | Path) -> Path:
    """``path`` with every symlink and ``..`` resolved: one file, one lock, whatever the spelling."""
    return Path(os.path.realpath(path))


def check_location(path: str | Path) -> None:
    """Refuse, in one line, a store path where a run could not write its store.

    The store itself must be a regular file or missing (then its nearest
    existing folder must exist and be writable), and so must each file a run
    opens beside it (:data:`COMPANIONS`: its writer lock, and SQLite's
    ``-wal``, ``-shm`` and ``-journal``): a folder, a named pipe, a device or
    a symbolic link there would fail only once the run has started writing.
    The folder must take new files too (SQLite creates its companions there),
    for an existing store as for a new one.  Creates nothing (a probe file is
    created and removed, :func:`~treebench.outpaths.writable_reason`).
    """
    shown = str(path)
    real = real_path(path)
    if real.is_dir():
        raise TreebenchError(f"results store {shown!r} is a folder; give a file path such as results/NAME.sqlite")
    if real.exists() and not real.is_file():
        kind = special_kind(real) or "not a regular file"
        raise TreebenchError(f"results store {shown!r} is {kind}, where the store must be a file; accepted: a "
                             f"SQLite file there, or nothing (a run creates it); {_MOVE}")
    _check_companions(shown, real)
    parent = real.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise TreebenchError(f"cannot create results store {shown!r}: {str(parent)!r} is a file, not a folder; {_ELSEWHERE}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise TreebenchError(f"cannot {'write' if real.exists() else 'create'} results store {shown!r}: folder "
                             f"{str(parent)!r} is not writable; {_ELSEWHERE}")
    if real.exists() and not os.access(real, os.R_OK | os.W_OK):
        raise TreebenchError(f"cannot write results store {shown!r}: the file is not writable (its permissions); "
                             f"accepted: a store file this user can write; {_MOVE}")
    why = writable_reason(parent)  # os.access says yes to root in /proc or on a read-only mount
    if why is not None:
        raise TreebenchError(f"cannot {'write' if real.exists() else 'create'} results store {shown!r} in "
                             f"{str(parent)!r} ({why}); {_ELSEWHERE}")


def _check_companions(shown: str, real: Path) -> None:
    """Refuse a store whose lock or SQLite companion is in place but no writable regular file."""
    for suffix, what in COMPANIONS:
        companion = Path(f"{real}{suffix}")
        if not os.path.lexists(companion):
            continue
        if companion.is_symlink():
            kind = "a symbolic link"  # SQLite and the lock would write through it, wherever it points
        elif companion.is_dir():
            kind = "a folder"
        elif not companion.is_file():
            kind = special_kind(companion) or "not a regular file"
        elif not os.access(companion, os.R_OK | os.W_OK):
            kind = "a file that cannot be written"
        else:
            continue
        raise TreebenchError(f"results store {shown!r} cannot be written: {str(companion)!r} ({what}) is {kind}; "
                             f"accepted: a regular file there, or nothing (a run creates it); {_MOVE}")


# --------------------------------------------------------------------------- read-only opening
def _uri(path: Path) -> str:
    return "file:" + quote(str(path), safe="/")


def _file_state(*paths: Path) -> tuple:
    """What changes when someone writes these files (inode, size, mtime; None when missing)."""
    out = []
    for path in paths:
        try:
            st = path.stat()
        except FileNotFoundError:
            out.append(None)
        else:
            out.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(out)


def _writer_running(real: Path) -> bool:
    """Whether a run holds the store's lock now (checked without creating or changing a file; when it
    cannot be told, assume a writer: SQLite's own locking applies)."""
    return lock_held(f"{real}.lock", unknown=True)


def _snapshot(real: Path) -> sqlite3.Connection | None:
    """The store's content in memory, read without touching its files; None if it kept changing.

    With no pending WAL the file alone is the store, read with ``immutable=1``
    (SQLite then takes no lock and creates no ``-wal``/``-shm``).  A WAL left
    by a killed run holds committed trials: the file and its WAL are copied to
    a temporary folder and SQLite recovers the copy.  Either way the files'
    state is compared before and after, so a run starting meanwhile is noticed.
    """
    wal = Path(f"{real}-wal")
    for _ in range(3):
        before = _file_state(real, wal)
        memory = sqlite3.connect(":memory:")
        if before[1] is not None and before[1][1] > 0:
            with tempfile.TemporaryDirectory(prefix="treebench-store-") as folder:
                copy = Path(folder) / "store.sqlite"
                shutil.copyfile(real, copy)
                shutil.copyfile(wal, f"{copy}-wal")
                source = sqlite3.connect(str(copy))
                try:
                    source.backup(memory)
                finally:
                    source.close()
        else:
            source = sqlite3.connect(f"{_uri(real)}?mode=ro&immutable=1", uri=True)
            try:
                source.backup(memory)
            finally:
                source.close()
        if _file_state(real, wal) == before:
            return memory
        memory.close()
    return None


def open_readonly(path: str | Path, *, locked_by_us: bool = False) -> sqlite3.Connection:
    """A read-only connection to the store file at ``path`` (see the module's docstring).

    Raises a one-line :class:`TreebenchError` for a missing file, a folder, an
    empty file, a file that is not SQLite, or one SQLite cannot read.
    ``locked_by_us``: the caller holds the writer's lock (no run can be live).
    """
    shown = str(path)
    real = real_path(path)
    if not real.exists():
        raise TreebenchError(f"no results store at {shown!r}")
    if real.is_dir():
        raise TreebenchError(f"results store {shown!r} is a folder, not a results store file (.sqlite)")
    if not real.is_file():
        raise TreebenchError(f"{shown!r} is not a regular file, so not a results store")
    try:
        with open(real, "rb") as handle:
            header = handle.read(len(_SQLITE_HEADER))
    except OSError as exc:
        raise TreebenchError(f"cannot read results store {shown!r}: {exc.strerror}") from None
    if not header:
        raise TreebenchError(f"{shown!r} is an empty file, not a treebench results store")
    if header != _SQLITE_HEADER:
        raise TreebenchError(f"{shown!r} is not a treebench results store: not a SQLite file")
    try:
        live = not locked_by_us and _writer_running(real)
        conn = None if live else _snapshot(real)
        if conn is None:
            # A run is writing: share its WAL through SQLite's read-only mode.
            conn = sqlite3.connect(f"{_uri(real)}?mode=ro", uri=True, timeout=30)
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except (sqlite3.DatabaseError, OSError) as exc:
        raise TreebenchError(f"cannot read results store {shown!r}: {exc}") from None
    return conn


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _trial_columns(conn: sqlite3.Connection) -> dict[str, str]:
    """The ``trials`` table's columns and their declared types."""
    return {name: str(kind).upper() for _, name, kind, *_ in conn.execute("PRAGMA table_info(trials)")}


def check_shape(conn: sqlite3.Connection, shown: str, *, allow_empty: bool = False) -> None:
    """Refuse a SQLite file that is not a results store (``allow_empty``: one without tables is a new store)."""
    tables = _tables(conn)
    if "trials" not in tables:
        if not tables and allow_empty:
            return
        what = f"its tables are {', '.join(sorted(tables))}" if tables else "it has no tables"
        raise TreebenchError(
            f"{shown!r} is a SQLite file but not a treebench results store (no 'trials' table; {what})"
        )
    missing = [c for c in COLUMNS if c not in _trial_columns(conn)]
    if missing:
        listed = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        raise TreebenchError(
            f"{shown!r} is not a treebench results store: its 'trials' table lacks the columns {listed}"
        )
    if "meta" in tables:
        meta_columns = {row[1] for row in conn.execute("PRAGMA table_info(meta)")}
        if not {"key", "value"} <= meta_columns:
            raise TreebenchError(
                f"{shown!r} is not a treebench results store: its 'meta' table has no key/value columns"
            )


def _legacy_measure_columns(columns: dict[str, str]) -> list[str]:
    """Numeric columns of an older schema that held one learner's measure each."""
    return [name for name, kind in columns.items() if name not in _ALL and kind == "REAL"]


def _flow(value: Any) -> str:
    """A value the way a config writes it (YAML flow style), for messages."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return str(value)


class ResultsStore:
    """A results store file.

    Parameters
    ----------
    path:
        The ``.sqlite`` file.
    create:
        Open for writing, creating the file (and its folder) if missing, and
        take the writer's lock.  Without it the store is opened read-only and
        a missing file is a one-line error.
    identity:
        Writing: the experiment's identity (``experiment`` plus the fields of
        :func:`fingerprint`); a store that holds another experiment is refused
        before anything is written, one without an identity adopts this one.
    datasets:
        Writing: dataset label -> content checksum of this run; a label pinned
        to other content is refused, new labels are pinned.
    """

    def __init__(
        self,
        path: str | Path,
        create: bool = False,
        *,
        identity: dict[str, Any] | None = None,
        datasets: dict[str, str] | None = None,
    ) -> None:
        self.path = Path(path)
        self.real = real_path(path)
        self.writable = create
        self.created = self._lock_created = self._kept_created = False
        self._lock_file: Any = None
        if not create:
            self.conn = open_readonly(path)
            try:
                check_shape(self.conn, str(path))
            except TreebenchError:
                self.conn.close()
                raise
            return
        check_location(path)
        # a store this run creates and records nothing in is removed again if writing it fails
        self.created = not self.real.exists()
        self._lock_created = not os.path.lexists(f"{self.real}.lock")
        self._kept_created = not os.path.lexists(f"{self.path}.predictions")  # a run keeping predictions makes it
        try:
            self.real.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            from treebench.outpaths import os_reason

            raise TreebenchError(f"cannot create results store {str(path)!r}: {os_reason(exc, self.real.parent)}; "
                                 f"{_ELSEWHERE}") from None
        self.lock()
        try:
            self.conn = self._open_writer(identity, datasets)
        except BaseException as exc:
            self._discard_if_new(None, isinstance(exc, StoreWriteError))
            self.unlock()
            raise

    def _open_writer(self, identity: dict[str, Any] | None, datasets: dict[str, str] | None) -> sqlite3.Connection:
        """Check the store against this run on a read-only view, then open, upgrade and claim it."""
        shown = str(self.path)
        _, pins, stored_identity = _inspect(self.path, identity, datasets, locked_by_us=True)
        conn = None
        try:
            conn = sqlite3.connect(str(self.real), timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            with conn:
                conn.executescript(_SCHEMA)
                present = _trial_columns(conn)
                for column, kind in _LATER_COLUMNS.items():
                    if column not in present:  # a column added after this store was created joins as NULLs
                        conn.execute(f"ALTER TABLE trials ADD COLUMN {column} {kind}")
                conn.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,)
                )
                claimed: dict[str, str] = {}
                if identity is not None:
                    merged = {**stored_identity, **identity}
                    claimed[IDENTITY_KEY] = json.dumps(merged, default=str)  # the config's order, for messages
                    claimed[FINGERPRINT_KEY] = fingerprint(merged)
                if datasets:
                    claimed[PINS_KEY] = json.dumps({**pins, **datasets}, sort_keys=True)
                conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", claimed.items())
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            if isinstance(exc, sqlite3.OperationalError):  # a full disk, an I/O error: the place, not the content
                raise write_refusal(shown, exc) from None
            raise TreebenchError(f"cannot write results store {shown!r}: {exc}; {_ELSEWHERE}") from None
        return conn

    # -- life cycle --------------------------------------------------------------
    def close(self, failed: bool = False) -> None:
        """Close the store; ``failed``: writing it failed (a new store holding no trial is removed)."""
        conn = getattr(self, "conn", None)
        if failed and conn is not None:
            self._discard_if_new(conn, True)
        elif conn is not None:
            conn.close()
        self.unlock()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        self.close(failed=isinstance(exc, StoreWriteError))

    def _discard_if_new(self, conn: sqlite3.Connection | None, failed: bool) -> None:
        """Close ``conn``; when writing failed and this run created the store and recorded no trial in it,
        remove the store and the files beside it that it created (a refused run leaves no empty store)."""
        empty = True
        if conn is not None:
            try:
                empty = int(conn.execute("SELECT COUNT(*) FROM trials").fetchone()[0]) == 0
            except sqlite3.Error:  # unreadable now: keep it (it may hold this run's trials)
                empty = False
            conn.close()
        if not (failed and self.created and empty):
            return
        for suffix in ("", "-wal", "-shm", "-journal", *([".lock"] if self._lock_created else [])):
            Path(f"{self.real}{suffix}").unlink(missing_ok=True)  # the lock's flock ends at unlock()
        kept = Path(f"{self.path}.predictions")
        if self._kept_created and kept.is_dir() and not kept.is_symlink():
            # made by this run under its lock: its files are of trials the store never recorded
            shutil.rmtree(kept, ignore_errors=True)

    def lock(self) -> None:
        """Take the writer's lock (``<real path>.lock``): two runs never write one store.

        The lock is the kernel's (``flock``), so a killed run releases it; it
        is taken on the resolved path, so a symlink or ``x/../store.sqlite``
        and the file itself share one lock.
        """
        if self._lock_file is not None:
            return
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            return
        try:
            handle = open(f"{self.real}.lock", "a+")  # noqa: SIM115 - held until unlock()
        except OSError as exc:
            from treebench.outpaths import os_reason

            raise TreebenchError(  # check_location found it usable a moment ago: it changed meanwhile
                f"cannot write results store {str(self.path)!r}: its lock file {f'{self.real}.lock'!r} cannot be "
                f"opened ({os_reason(exc, f'{self.real}.lock')}); {_MOVE}"
            ) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise _busy(self.path) from None
        self._lock_file = handle

    def unlock(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()  # closing releases the flock
            self._lock_file = None

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """A write the system may refuse (a full disk): one line naming the store, never a traceback.
        SQLite rolls the transaction back, so only the trial being written is not kept."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            raise write_refusal(str(self.path), exc) from None

    def _require_writable(self) -> None:
        if not self.writable:  # a programming error, like writing to a file opened for reading
            raise io.UnsupportedOperation(f"results store {str(self.path)!r} is open read-only")

    # -- meta --------------------------------------------------------------------
    def set_meta(self, **items: str) -> None:
        self._require_writable()
        with self._writing(), self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [(k, str(v)) for k, v in items.items()],
            )

    def meta(self) -> dict[str, str]:
        return _meta(self.conn)

    def identity(self) -> dict[str, Any] | None:
        """The experiment identity this store was claimed by, or None (an older store)."""
        return _stored_identity(self.meta())

    def dataset_pins(self) -> dict[str, str]:
        """Dataset label -> the content checksum this store's trials were computed on."""
        return dataset_pins(self.conn)

    def check_claim(self, identity: dict[str, Any] | None, datasets: dict[str, str] | None = None) -> None:
        """Raise the one-line error a run with ``identity`` and ``datasets`` would get; write nothing."""
        check_claim(self.conn, str(self.path), identity, datasets)

    def declare_measures(self, metrics: Iterable[Metric]) -> None:
        """Record the definitions of extra measures the store's trials carry (merged with earlier ones)."""
        known = self.measure_definitions()
        known.update({m.name: m for m in metrics})
        text = json.dumps({name: asdict(m) for name, m in sorted(known.items())}, sort_keys=True)
        self.set_meta(measures=text)

    def measure_definitions(self) -> dict[str, Metric]:
        """Extra measures declared in this store: name -> :class:`~treebench.stats.metrics.Metric`."""
        try:
            declared = json.loads(self.meta().get("measures", "{}"))
        except ValueError:
            declared = {}
        if not isinstance(declared, dict):
            return {}
        return {name: Metric(**fields) for name, fields in declared.items() if isinstance(fields, dict)}

    def start_run(self, backend: str, planned: int, skipped: int) -> int:
        self._require_writable()
        with self._writing(), self.conn:
            cursor = self.conn.execute(
                "INSERT INTO runs (started_at, backend, planned, skipped) VALUES (?, ?, ?, ?)",
                (now(), backend, planned, skipped),
            )
        return int(cursor.lastrowid or 0)

    def finish_run(
        self, run_id: int, done: int, failed: int, interrupted: bool, wall_seconds: float
    ) -> None:
        self._require_writable()
        with self._writing(), self.conn:
            self.conn.execute(
                "UPDATE runs SET finished_at = ?, done = ?, failed = ?, interrupted = ?, wall_seconds = ? WHERE id = ?",
                (now(), done, failed, int(interrupted), wall_seconds, run_id),
            )

    # -- trials ------------------------------------------------------------------
    def ok_keys(self) -> set[str]:
        """Keys of the trials finished successfully (a rerun skips these)."""
        return {
            row[0] for row in self.conn.execute("SELECT trial_key FROM trials WHERE status = 'ok'")
        }

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM trials").fetchone()[0])

    def record(self, row: dict[str, Any], force: bool = False) -> None:
        """Write one finished trial in its own transaction.

        Without ``force`` an ``ok`` row is never overwritten (a failed one is);
        with it the row is replaced.

        Raises
        ------
        TreebenchError
            An ``ok`` row with a value outside its domain (:func:`row_problem`);
            the runner turns such a row into a failed trial before it gets here.
        """
        self._require_writable()
        problem = row_problem(row)
        if problem is not None:
            raise TreebenchError(f"trial {str(row.get('trial_key'))[:12]} not stored: {problem}")
        values = {c: row.get(c) for c in _STORED}
        values["finished_at"] = values["finished_at"] or now()
        with self._writing(), self.conn:
            self.conn.execute(_REPLACE if force else _UPDATE_FAILED, values)

    def to_frame(self, all_columns: bool = False, keys: set[str] | None = None):
        """Trials as a DataFrame, one row per trial, columns exactly :data:`COLUMNS`.

        Numeric columns are ``float64`` (NaN where a failed trial has no value)
        except ``repeat``, ``fold`` and ``seed`` (``int64``).  Rows are sorted by
        dataset, algorithm, repeat, fold.  ``keys`` restricts to those trials.
        Columns an older store lacks read as NULL (nothing is added to the file).
        """
        import pandas as pd

        columns = _ALL if all_columns else COLUMNS
        present = _trial_columns(self.conn)
        legacy = _legacy_measure_columns(present)
        read = [*dict.fromkeys([*columns, "measures", *legacy])]
        selected = ", ".join(c if c in present else f"NULL AS {c}" for c in read)
        frame = pd.read_sql_query(
            f"SELECT {selected} FROM trials ORDER BY dataset, algorithm, repeat, fold, trial_key",
            self.conn,
        )
        if keys is not None:
            frame = frame[frame["trial_key"].isin(keys)].reset_index(drop=True)
        for column in columns:
            if column in _INT:
                frame[column] = frame[column].astype("int64")
            elif column in _FLOAT:
                frame[column] = frame[column].astype("float64")
            else:
                frame[column] = frame[column].astype(object)
        measures = _measure_columns(frame, legacy)
        frame = frame.drop(columns=[c for c in ("measures", *legacy) if c not in columns])
        position = frame.columns.get_loc(METRICS[-1]) + 1
        for offset, (name, values) in enumerate(sorted(measures.items())):
            frame.insert(position + offset, name, values)
        frame.attrs["metrics"] = self._definitions(measures)
        return frame

    def trial_columns(self) -> set[str]:
        """The columns of the store's trials table (an older store lacks some)."""
        return set(_trial_columns(self.conn))

    def trial_facts(self, columns: Iterable[str]) -> list[tuple]:
        """``columns`` of every trial, one tuple per trial; a column an older store lacks reads as None."""
        present = _trial_columns(self.conn)
        selected = ", ".join(c if c in present else f"NULL AS {c}" for c in columns)
        return self.conn.execute(f"SELECT {selected} FROM trials").fetchall()

    def _definitions(self, names: Iterable[str]) -> dict[str, Metric]:
        """Definitions of the measures ``names``: the store's, else what the learners declare."""
        definitions = self.measure_definitions()
        missing = [n for n in names if n not in definitions]
        if missing:
            from treebench.learners.registry import declared_metrics

            declared = declared_metrics()
            definitions.update({n: declared[n] for n in missing if n in declared})
        return {n: definitions[n] for n in names if n in definitions}


# --------------------------------------------------------------------------- invariants
#: Columns holding a fraction of the test (or training) rows.
_FRACTIONS = ("accuracy", "error", "train_accuracy")
#: How far a trial's ``accuracy + error`` may be from 1 (rounding only): every row has error = 1 - accuracy.
ERROR_SUM_TOLERANCE = 1e-9
#: Columns holding a count: a whole number >= 0 (NaN where a learner has no size).
_COUNTS = ("n_leaves", "n_nodes", "depth", "n_train", "n_test")
#: Columns holding a duration in seconds: >= 0.
_SECONDS = ("fit_seconds", "predict_seconds", "tune_seconds")


def _number(value: Any) -> float | None:
    """``value`` as a float; ``None`` for a missing value (None or NaN); raises ``TypeError`` otherwise."""
    if value is None:
        return None
    if isinstance(value, (bool, str, bytes)):
        raise TypeError(value)
    number = float(value)
    return None if math.isnan(number) else number


def row_problem(row: dict[str, Any]) -> str | None:
    """What is wrong with a finished trial's values, or ``None``: the store's invariants.

    Checked before a row is written, so no code path (a learner, an
    estimator, a plugin) can store a value outside its domain: accuracy and
    error in [0, 1] (present in an ``ok`` row, summing to 1), counts whole
    and >= 0, times >= 0, every number finite (a missing value is ``None``
    or NaN: a learner without a size has none), the extra measures too.
    A ``failed`` row carries no metric and is not checked.
    """
    if row.get("status") != "ok":
        return None
    checks: list[tuple[str, Any]] = [(c, row.get(c)) for c in (*_FRACTIONS, *_COUNTS, *_SECONDS, "tree_quality")]
    try:
        measures = json.loads(row.get("measures") or "{}")
    except ValueError:
        return f"measures {str(row.get('measures'))[:60]!r} is not JSON"
    if not isinstance(measures, dict):
        return "measures is not a JSON object"
    checks += [(f"measure {name}", value) for name, value in measures.items()]
    for column, value in checks:
        try:
            number = _number(value)
        except (TypeError, ValueError, OverflowError):
            return f"{column}={value!r} is not a number"
        if number is None:
            if column in ("accuracy", "error"):
                return f"{column} is missing from a finished trial"
            continue
        if not math.isfinite(number):
            return f"{column}={number} is not finite"
        if column in _FRACTIONS and not 0.0 <= number <= 1.0:
            return f"{column}={number:g} is outside [0, 1]"
        if column in _COUNTS and (number < 0 or not number.is_integer()):
            return f"{column}={number:g} is not a whole number >= 0"
        if column in _SECONDS and number < 0:
            return f"{column}={number:g} is negative"
    if abs(float(row["accuracy"]) + float(row["error"]) - 1.0) > ERROR_SUM_TOLERANCE:
        return f"accuracy {float(row['accuracy']):g} and error {float(row['error']):g} do not sum to 1"
    return None


# --------------------------------------------------------------------------- identity and pins
def check_run(
    path: str | Path,
    identity: dict[str, Any] | None,
    datasets: dict[str, str] | None = None,
    *,
    busy_ok: bool = False,
) -> int:
    """Raise the one-line error a run would get on the store at ``path``, reading it only.

    Returns the number of finished (``ok``) trials the store holds, 0 for a
    missing or empty file (a run creates the store).  The run checks again
    under its lock; this lets it stop before loading any data.  A store
    another run is writing is refused too, unless ``busy_ok`` (a dry run).
    """
    check_location(path)
    if not busy_ok and _writer_running(real_path(path)):
        raise _busy(path)
    return _inspect(path, identity, datasets)[0]


def _busy(path: str | Path) -> TreebenchError:
    return TreebenchError(
        f"results store {str(path)!r} is being written by another treebench run; "
        "wait for it or use --store to write elsewhere"
    )


def _inspect(
    path: str | Path, identity: dict[str, Any] | None, datasets: dict[str, str] | None, *, locked_by_us: bool = False
) -> tuple[int, dict[str, str], dict[str, Any]]:
    """Check a store for a run (read-only); returns its finished-trial count, pins and identity."""
    real = real_path(path)
    if not real.is_file() or real.stat().st_size == 0:
        return 0, {}, {}
    view = open_readonly(path, locked_by_us=locked_by_us)
    try:
        check_shape(view, str(path), allow_empty=True)
        if "trials" not in _tables(view):
            return 0, {}, {}
        check_claim(view, str(path), identity, datasets)
        done = int(view.execute("SELECT COUNT(*) FROM trials WHERE status = 'ok'").fetchone()[0])
        return done, dataset_pins(view), _stored_identity(_meta(view)) or {}
    finally:
        view.close()


def _meta(conn: sqlite3.Connection) -> dict[str, str]:
    if "meta" not in _tables(conn):
        return {}
    return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta").fetchall()}


def _stored_identity(meta: dict[str, str]) -> dict[str, Any] | None:
    try:
        identity = json.loads(meta[IDENTITY_KEY])
    except (KeyError, ValueError):
        return None
    return identity if isinstance(identity, dict) else None


def dataset_pins(conn: sqlite3.Connection) -> dict[str, str]:
    """Dataset label -> checksum: the store's pins, else (a store written before pinning)
    the checksum its trials agree on for each label."""
    pins: dict[str, str] = {}
    if "dataset_checksum" in _trial_columns(conn):
        seen: dict[str, set[str]] = {}
        for label, checksum in conn.execute(
            "SELECT DISTINCT dataset, dataset_checksum FROM trials WHERE dataset_checksum IS NOT NULL"
        ):
            seen.setdefault(str(label), set()).add(str(checksum))
        # a label already stored with two contents (before pinning) pins nothing: this run decides
        pins = {label: next(iter(sums)) for label, sums in seen.items() if len(sums) == 1}
    try:
        stored = json.loads(_meta(conn).get(PINS_KEY, "{}"))
    except ValueError:
        stored = {}
    if isinstance(stored, dict):
        pins.update({str(k): str(v) for k, v in stored.items()})
    return pins


def check_claim(
    conn: sqlite3.Connection, shown: str, identity: dict[str, Any] | None, datasets: dict[str, str] | None = None
) -> None:
    """Refuse (one line) a run of ``identity`` on data ``datasets`` in the store behind ``conn``.

    * another experiment name in the store (its identity, its ``meta``, or its trials);
    * a field of the identity that differs from the stored one (a field either side
      lacks is adopted, so a store without an identity takes this run's);
    * a dataset label whose pinned content checksum differs from this run's.
    """
    if "trials" not in _tables(conn):
        return  # an empty file: a new store
    if identity is not None:  # compared as stored: through JSON
        identity = json.loads(json.dumps(identity, default=str))
    meta = _meta(conn)
    stored = _stored_identity(meta)
    if identity is not None:
        name = identity["experiment"]
        names = {row[0] for row in conn.execute("SELECT DISTINCT experiment FROM trials")}
        names |= {n for n in ((stored or {}).get("experiment"), meta.get("experiment")) if n}
        others = sorted(str(n) for n in names if n != name)
        if others:
            raise TreebenchError(
                f"results store {shown!r} holds experiment {', '.join(map(repr, others))}, "
                f"not {name!r}: a store belongs to one experiment; {_ELSEWHERE}"
            )
        if stored is not None:
            differing = [
                k for k in identity if k != "experiment" and k in stored and stored[k] != identity[k]
            ]
            if differing:
                was = ", ".join(f"{k} {_flow(stored[k])}" for k in differing)
                now_ = ", ".join(f"{k} {_flow(identity[k])}" for k in differing)
                raise TreebenchError(
                    f"results store {shown!r} holds experiment {name!r} with {was}, this config has {now_} "
                    f"(fingerprint {fingerprint(stored)[:12]} vs {fingerprint(identity)[:12]}): "
                    f"that is another experiment; {_ELSEWHERE}"
                )
    if datasets:
        pins = dataset_pins(conn)
        changed = [label for label, checksum in datasets.items() if pins.get(label, checksum) != checksum]
        if changed:
            first = changed[0]
            more = f" (and {', '.join(map(repr, changed[1:]))})" if changed[1:] else ""
            raise TreebenchError(
                f"dataset {first!r}{more} now has other content than the trials in results store {shown!r} "
                f"(sha256 {datasets[first][:12]}, stored {pins[first][:12]}; check TREEBENCH_DATA): "
                f"--force does not mix two versions of a dataset in one store; {_ELSEWHERE}"
            )


def _measure_columns(frame, legacy: list[str]) -> dict[str, Any]:
    """Each extra measure as a float64 array (NaN where a trial has none)."""
    import numpy as np

    parsed = [json.loads(text) if isinstance(text, str) and text else {} for text in frame["measures"]]
    names = sorted({name for values in parsed for name in values} | set(legacy))
    out = {}
    for name in names:
        values = np.array([row.get(name, np.nan) for row in parsed], dtype=np.float64)
        if name in legacy:  # an older store's own column fills what the JSON lacks
            old = frame[name].to_numpy(dtype=np.float64, na_value=np.nan)
            values = np.where(np.isnan(values), old, values)
        if name in legacy and np.isnan(values).all():
            continue  # a legacy column no trial used
        out[name] = values
    return out


#: Files SQLite and treebench keep beside a store, by suffix of its name: replacing one breaks the store
#: or its writer's lock (a lock file replaced by a table lets a second run write beside the first).
COMPANIONS = ((".lock", "the store's writer lock"), ("-wal", "the store's write-ahead log"),
              ("-shm", "the store's shared-memory index"), ("-journal", "the store's rollback journal"))
