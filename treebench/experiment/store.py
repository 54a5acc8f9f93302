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
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from treebench.errors import TreebenchError
from treebench.experiment.specs import METRICS
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
    measures TEXT
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
_INSERT = f"INSERT INTO trials ({', '.join(_ALL)}) VALUES ({', '.join(':' + c for c in _ALL)})"
_UPDATE_FAILED = (
    _INSERT
    + " ON CONFLICT(trial_key) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _ALL if c != "trial_key")
    + " WHERE trials.status <> 'ok'"
)
_REPLACE = _INSERT.replace("INSERT INTO", "INSERT OR REPLACE INTO", 1)


def _add_missing_columns(conn: sqlite3.Connection) -> None:
    """Columns added after a store was created (``measures``) join it as NULLs."""
    present = {row[1] for row in conn.execute("PRAGMA table_info(trials)")}
    if "measures" not in present:
        conn.execute("ALTER TABLE trials ADD COLUMN measures TEXT")


def _legacy_measure_columns(conn: sqlite3.Connection) -> list[str]:
    """Numeric columns of an older schema that held one learner's measure each."""
    rows = conn.execute("PRAGMA table_info(trials)").fetchall()
    return [name for _, name, kind, *_ in rows if name not in _ALL and str(kind).upper() == "REAL"]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class ResultsStore:
    """A results store file.

    Parameters
    ----------
    path:
        The ``.sqlite`` file.
    create:
        Create the file (and its folder) if missing; otherwise a missing file
        is a one-line error.
    """

    def __init__(self, path: str | Path, create: bool = False) -> None:
        self.path = Path(path)
        if not self.path.exists():
            if not create:
                raise TreebenchError(f"no results store at {str(self.path)!r}")
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(str(self.path), timeout=30)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            with self.conn:
                self.conn.executescript(_SCHEMA)
                _add_missing_columns(self.conn)
                self.conn.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
                    (SCHEMA_VERSION,),
                )
        except sqlite3.DatabaseError as exc:
            raise TreebenchError(
                f"{str(self.path)!r} is not a treebench results store: {exc}"
            ) from None
        self._lock_file: Any = None

    # -- life cycle --------------------------------------------------------------
    def close(self) -> None:
        self.unlock()
        self.conn.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def lock(self) -> None:
        """Take the writer's lock (``<store>.lock``): two runs never write one store.

        The lock is the kernel's (``flock``), so a killed run releases it.
        """
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            return
        handle = open(f"{self.path}.lock", "a+")  # noqa: SIM115 - held until unlock()
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise TreebenchError(
                f"results store {str(self.path)!r} is being written by another treebench run; "
                "wait for it or use --store to write elsewhere"
            ) from None
        self._lock_file = handle

    def unlock(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()  # closing releases the flock
            self._lock_file = None

    # -- meta --------------------------------------------------------------------
    def set_meta(self, **items: str) -> None:
        with self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [(k, str(v)) for k, v in items.items()],
            )

    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())

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
        return {name: Metric(**fields) for name, fields in declared.items() if isinstance(fields, dict)}

    def start_run(self, backend: str, planned: int, skipped: int) -> int:
        with self.conn:
            cursor = self.conn.execute(
                "INSERT INTO runs (started_at, backend, planned, skipped) VALUES (?, ?, ?, ?)",
                (now(), backend, planned, skipped),
            )
        return int(cursor.lastrowid or 0)

    def finish_run(
        self, run_id: int, done: int, failed: int, interrupted: bool, wall_seconds: float
    ) -> None:
        with self.conn:
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
        """
        values = {c: row.get(c) for c in _ALL}
        values["finished_at"] = values["finished_at"] or now()
        with self.conn:
            self.conn.execute(_REPLACE if force else _UPDATE_FAILED, values)

    def to_frame(self, all_columns: bool = False, keys: set[str] | None = None):
        """Trials as a DataFrame, one row per trial, columns exactly :data:`COLUMNS`.

        Numeric columns are ``float64`` (NaN where a failed trial has no value)
        except ``repeat``, ``fold`` and ``seed`` (``int64``).  Rows are sorted by
        dataset, algorithm, repeat, fold.  ``keys`` restricts to those trials.
        """
        import pandas as pd

        columns = _ALL if all_columns else COLUMNS
        legacy = _legacy_measure_columns(self.conn)
        read = [*dict.fromkeys([*columns, "measures", *legacy])]
        frame = pd.read_sql_query(
            f"SELECT {', '.join(read)} FROM trials ORDER BY dataset, algorithm, repeat, fold, trial_key",
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

    def _definitions(self, names: Iterable[str]) -> dict[str, Metric]:
        """Definitions of the measures ``names``: the store's, else what the learners declare."""
        definitions = self.measure_definitions()
        missing = [n for n in names if n not in definitions]
        if missing:
            from treebench.learners.registry import declared_metrics

            declared = declared_metrics()
            definitions.update({n: declared[n] for n in missing if n in declared})
        return {n: definitions[n] for n in names if n in definitions}


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
