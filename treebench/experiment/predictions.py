"""Each trial's test predictions (and class probabilities), kept beside its results store.

With ``predictions: true`` in a config, a trial also returns what it predicted for every test
row; the driver writes it to ``STORE.predictions/KEY.npz`` (one compressed file per trial,
named by the trial key) *before* the trial's row enters the store, by a temporary file and a
rename.  A run killed in between leaves at most a file without a row, which the rerun of that
trial overwrites; a row never points at a missing or half-written file.

A file holds ``rows`` (the test rows' positions in the dataset), ``truth`` and ``predicted``
(indices into ``classes``), ``classes`` (the labels, as text) and, when the learner gives them,
``proba`` (``float32``, one column per class), and ``trial`` (its trial key; files written before
it lack it).  Any metric of predictions can be computed again from them
(:mod:`treebench.stats.prediction_metrics`), and two algorithms' files of the same split pair
their cases (McNemar's test).

The store records each file's :func:`checksum` in the trial's row (``predictions_sha256``), and
every reader goes through :class:`KeptPredictions`, which checks each file against its trial
before use (:func:`problem_of`): a missing, unreadable, damaged or swapped file is a one-line
error naming the trial, or, asked, a trial left out and counted.  The checks are whole-array
numpy operations, once per file.  A store written before checksums has none to check against:
its files are checked against what the store does know (the trial's row counts and accuracy)
and against the other files of the same split (classes, test rows, true labels), which a
renamed or edited file contradicts.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from treebench.errors import TreebenchError

SUFFIX = ".predictions"
#: The arrays every file holds (``proba`` too when the learner gave probabilities).
_NAMES = ("rows", "truth", "predicted", "classes")
#: The first bytes of a zip archive (an ``.npz``) and of a single ``.npy`` array.
_ZIP_MAGIC = b"PK"  # a local file header (PK\\3\\4) or an empty archive (PK\\5\\6)
_NPY_MAGIC = b"\x93NUMPY"
#: How far a row of kept probabilities may sum from 1 (they are float32).
PROBA_TOLERANCE = 1e-3


class BadPredictions(TreebenchError):
    """A kept predictions file that is missing, unreadable or not its trial's."""


@dataclass
class TrialPredictions:
    """One trial's test predictions (see the module docstring for the fields)."""

    rows: np.ndarray
    truth: np.ndarray
    predicted: np.ndarray
    classes: np.ndarray
    proba: np.ndarray | None = None
    #: The key of the trial a file says it belongs to (``None``: not read from a file, or an older file).
    trial: str | None = None

    @classmethod
    def from_labels(cls, rows: np.ndarray, y_true: np.ndarray, y_pred: np.ndarray, classes: np.ndarray,
                    proba: np.ndarray | None = None) -> TrialPredictions:
        """From labels: ``classes`` are the learner's (the columns of ``proba``); a label outside them
        (a test class the training part never saw) is added at the end."""
        names = [str(c) for c in classes]
        extra = [str(v) for v in dict.fromkeys(np.concatenate([np.asarray(y_true), np.asarray(y_pred)]).astype(str))
                 if str(v) not in names]
        names += extra
        code = {name: i for i, name in enumerate(names)}
        truth = np.array([code[str(v)] for v in y_true], dtype=np.int32)
        predicted = np.array([code[str(v)] for v in y_pred], dtype=np.int32)
        if proba is not None and extra:  # the learner gave no probability to classes it never saw
            proba = np.hstack([proba, np.zeros((len(proba), len(extra)))])
        return cls(np.asarray(rows, dtype=np.int64), truth, predicted, np.array(names),
                   None if proba is None else np.asarray(proba, dtype=np.float32))

    @property
    def y_true(self) -> np.ndarray:
        return self.classes[self.truth]

    @property
    def y_pred(self) -> np.ndarray:
        return self.classes[self.predicted]


def folder_for(store: str | Path) -> Path:
    """Where the predictions of ``store`` live: ``STORE.predictions/`` beside it."""
    store = Path(store)
    return store.with_name(store.name + SUFFIX)


def _arrays(predictions: TrialPredictions) -> dict[str, np.ndarray]:
    """The arrays a file holds, exactly as written (and as :func:`checksum` hashes them)."""
    arrays = {"rows": np.asarray(predictions.rows), "truth": np.asarray(predictions.truth),
              "predicted": np.asarray(predictions.predicted), "classes": np.asarray(predictions.classes).astype(str)}
    if predictions.proba is not None:
        arrays["proba"] = np.asarray(predictions.proba)
    return arrays


def checksum(predictions: TrialPredictions, key: str) -> str:
    """SHA-256 of the trial key and the predictions' arrays (each one's name, dtype, shape and bytes),
    the content of the file :func:`write` makes.

    The content, not the file's bytes: the zip format stamps the time of writing, so two runs of
    the same trial would record different file sums; the zip's own CRCs catch damaged bytes.
    """
    digest = hashlib.sha256(f"{key};".encode())
    for name, array in _arrays(predictions).items():
        array = np.ascontiguousarray(array)
        digest.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def write(store: str | Path, key: str, predictions: TrialPredictions) -> Path:
    """Write one trial's predictions (temporary file, then rename); return the file."""
    folder = folder_for(store)
    target = folder / f"{key}.npz"
    tmp = folder / f".{key}.{os.getpid()}.tmp.npz"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(tmp, trial=np.array(key), **_arrays(predictions))
        os.replace(tmp, target)
    except OSError as exc:
        from treebench.outpaths import os_reason

        tmp.unlink(missing_ok=True)
        raise TreebenchError(f"cannot write predictions to {folder}: {os_reason(exc, tmp)}") from None
    return target


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:160]}" if text else type(exc).__name__


def _load(path: Path) -> TrialPredictions:
    """The file's arrays, all read now (an ``.npz`` decompresses lazily, where damage shows).

    Raises
    ------
    BadPredictions
        A folder, an empty file, or one numpy or zip cannot read; arrays missing or unexpected.
    """
    from treebench.errors import special_kind

    kind = special_kind(path)
    if kind is not None:  # /dev/zero has size 0 but is not an empty file
        raise BadPredictions(f"{path} is not a regular file but {kind}")
    try:
        if path.is_dir():
            raise BadPredictions(f"{path} is a folder, not a predictions file")
        size = path.stat().st_size
    except OSError as exc:  # a dangling symlink, no permission
        raise BadPredictions(f"{path} cannot be read ({exc.strerror or exc})") from None
    if size == 0:  # np.load raises EOFError, which click turns into "Aborted!"
        raise BadPredictions(f"{path} is empty (0 bytes)")
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(_NPY_MAGIC))
    except OSError as exc:
        raise BadPredictions(f"{path} cannot be read ({exc.strerror or exc})") from None
    if not head.startswith(_ZIP_MAGIC) and head != _NPY_MAGIC:  # numpy would try it as a pickle and say so
        raise BadPredictions(f"{path} is not a kept predictions file (damaged: not an .npz archive, which starts "
                             "with the zip signature PK)")
    try:
        loaded = np.load(path, allow_pickle=False)
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            raise BadPredictions(f"{path} is a single array, not an .npz file of kept predictions")
        with loaded as data:
            names = set(data.files)
            expected = set(_NAMES)
            if not expected <= names or names - expected - {"proba", "trial"}:
                shown = ", ".join(sorted(names)) or "none"
                raise BadPredictions(f"{path} holds the arrays {shown}; expected {', '.join(_NAMES)} (and proba)")
            arrays = {name: data[name] for name in data.files}
            trial = arrays.get("trial")
            if trial is not None and (trial.dtype.kind != "U" or trial.shape != ()):
                raise BadPredictions(f"{path} holds a 'trial' of dtype {trial.dtype} and shape {trial.shape}; "
                                     "expected the trial key as text")
    except BadPredictions:
        raise
    except ValueError as exc:
        if "allow_pickle" not in str(exc):
            raise BadPredictions(f"{path} is not a readable .npz file ({_one_line(exc)})") from None
        raise BadPredictions(f"{path} holds an array of Python objects (pickled data), which a kept predictions "
                             "file never does (damaged, or not written by treebench); not loaded") from None
    except Exception as exc:  # noqa: BLE001 - zip, zlib, numpy and OS errors alike: the file is unreadable
        raise BadPredictions(f"{path} is not a readable .npz file ({_one_line(exc)})") from None
    return TrialPredictions(arrays["rows"], arrays["truth"], arrays["predicted"], arrays["classes"],
                            arrays.get("proba"), None if trial is None else str(trial))


def read(store: str | Path, key: str) -> TrialPredictions | None:
    """One trial's predictions, or ``None`` when there is no file for it (not checked against its
    trial: the readers of a store use :class:`KeptPredictions`)."""
    path = folder_for(store) / f"{key}.npz"
    if not path.exists():
        return None
    try:
        return _load(path)
    except BadPredictions as exc:
        raise TreebenchError(f"unreadable predictions file {exc}") from None


def folder_problem(store: str | Path) -> str | None:
    """What makes the place of ``store``'s predictions folder no folder (a file, a link to nothing...), or ``None``."""
    folder = folder_for(store)
    if not os.path.lexists(folder) or folder.is_dir():
        return None
    from treebench.errors import special_kind

    kind = special_kind(folder) or ("a broken link" if not folder.exists() else "a file")
    return f"the kept predictions folder {str(folder)!r} of results store {str(store)!r} is {kind}, not a folder"


def check_place(store: str | Path) -> None:
    """Refuse (one line) a run keeping predictions where the predictions folder cannot be: checked
    before the store is created, so a refused run leaves nothing behind."""
    problem = folder_problem(store)
    if problem is not None:
        raise TreebenchError(f"{problem}; accepted: a folder there, or nothing (the run makes it) -- move "
                             "that file away, or give the store another name (--store)")


def missing(store: str | Path, keys: Iterator[str]) -> list[str]:
    """Those of ``keys`` (finished trials) that have no kept predictions file."""
    folder = folder_for(store)
    return [key for key in keys if not os.path.lexists(folder / f"{key}.npz")]


def keys(store: str | Path) -> Iterator[str]:
    """Trial keys with kept predictions (finished files only)."""
    folder = folder_for(store)
    if folder.is_dir():
        for path in sorted(folder.glob("*.npz")):
            if not path.name.startswith("."):
                yield path.stem


# --------------------------------------------------------------------------- verification
#: The store's columns a file is checked against (:meth:`ResultsStore.trial_facts`), in :class:`TrialFacts` order.
FACT_COLUMNS = ("trial_key", "dataset", "algorithm", "repeat", "fold", "status", "n_test", "predictions_sha256",
                "accuracy", "n_train", "protocol", "dataset_checksum")
#: How far the accuracy computed from a file may be from the one stored with its trial (both are
#: ``correct / n_test`` in float64: only the storage's rounding may separate them).
ACCURACY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class TrialFacts:
    """What the store says of one trial, which its kept predictions must agree with."""

    key: str
    dataset: str
    algorithm: str
    repeat: int
    fold: int
    status: str
    n_test: float | None
    checksum: str | None
    #: The test accuracy stored with the trial (``None`` when the row has none).
    accuracy: float | None = None
    n_train: float | None = None
    #: The protocol's label (``cv10x1``, ``holdout0.3x1``, ``fixed:COLUMN``...) and the dataset's content checksum.
    protocol: str | None = None
    dataset_checksum: str | None = None

    @property
    def n_rows(self) -> int | None:
        """The dataset's row count, ``n_train + n_test``: every protocol but a fixed split (which may
        leave rows unused) trains on all the rows it does not test; ``None`` when unknown."""
        counts = (self.n_train, self.n_test)
        if any(c is None or not np.isfinite(c) for c in counts) or str(self.protocol or "").startswith("fixed"):
            return None
        return int(self.n_train) + int(self.n_test)

    @property
    def split(self) -> tuple:
        """The trials tested on the same rows: same dataset (and content), repeat and fold."""
        return self.dataset, self.dataset_checksum, self.repeat, self.fold

    @property
    def label(self) -> str:
        return f"{self.dataset} / {self.algorithm} repeat {self.repeat} fold {self.fold} (trial {self.key[:12]})"


def _is_int(array: np.ndarray) -> bool:
    return array.dtype.kind in "iu"


def _structure_problem(kept: TrialPredictions) -> str | None:
    """Wrong dtypes or shapes of the arrays, whatever the trial."""
    for name in ("rows", "truth", "predicted"):
        array = getattr(kept, name)
        if not _is_int(array) or array.ndim != 1:
            return f"has {name!r} of dtype {array.dtype} and shape {array.shape}; expected a 1-D integer array"
    if kept.classes.dtype.kind != "U" or kept.classes.ndim != 1 or len(kept.classes) == 0:
        return f"has 'classes' of dtype {kept.classes.dtype} and shape {kept.classes.shape}; expected 1-D text labels"
    if len(np.unique(kept.classes)) != len(kept.classes):
        return "has repeated labels in 'classes'"
    if not len(kept.rows) == len(kept.truth) == len(kept.predicted):
        return (f"has {len(kept.rows)} rows, {len(kept.truth)} truths and {len(kept.predicted)} predictions; "
                "expected one of each per test row")
    return None


def _codes_problem(kept: TrialPredictions) -> str | None:
    """Labels outside the classes, and impossible test rows."""
    n_classes = len(kept.classes)
    for name in ("truth", "predicted"):
        codes = getattr(kept, name)
        if len(codes) and (codes.min() < 0 or codes.max() >= n_classes):
            return f"has codes in {name!r} outside its {n_classes} classes"
    if len(kept.rows) and kept.rows.min() < 0:
        return "has negative test row positions"
    if len(np.unique(kept.rows)) != len(kept.rows):
        return "has repeated test row positions (each test row is predicted once)"
    return None


def _rows_problem(kept: TrialPredictions, facts: TrialFacts) -> str | None:
    """Test row positions beyond the dataset's rows (known from the trial's row counts)."""
    n_rows = facts.n_rows
    if n_rows is None or not len(kept.rows) or kept.rows.max() < n_rows:
        return None
    return (f"has test row position {int(kept.rows.max())}; the dataset has {n_rows} rows "
            f"(positions 0 to {n_rows - 1}, from the trial's n_train + n_test)")


def _proba_problem(kept: TrialPredictions) -> str | None:
    """Probabilities of the wrong shape, not finite, outside [0, 1], or rows not summing to 1."""
    proba = kept.proba
    if proba is None:
        return None
    expected = (len(kept.truth), len(kept.classes))
    if proba.dtype.kind != "f" or proba.shape != expected:
        return f"has 'proba' of dtype {proba.dtype} and shape {proba.shape}; expected floats of shape {expected}"
    if not np.isfinite(proba).all():
        return "has NaN or infinite class probabilities"
    if len(proba) and (proba.min() < 0 or proba.max() > 1):
        return "has class probabilities outside [0, 1]"
    sums = proba.sum(axis=1, dtype=np.float64)
    off = np.abs(sums - 1.0)
    if len(off) and off.max() > PROBA_TOLERANCE:
        worst = int(off.argmax())
        return f"has class probabilities that do not sum to 1 (test row {worst} sums to {sums[worst]:.4g})"
    return None


def _accuracy_problem(kept: TrialPredictions, facts: TrialFacts) -> str | None:
    """The accuracy of the file's predictions against the accuracy stored with the trial.

    For a trial stored before checksums were recorded: a file edited into other valid predictions
    (or swapped in from a trial of the same size) passes every content check, but its accuracy
    would have to equal the trial's by chance; the trial's accuracy was computed from these very
    labels (``correct / n_test``), so any difference beyond float rounding is a changed file.
    """
    from sklearn.metrics import accuracy_score

    stored = facts.accuracy
    if stored is None or not np.isfinite(stored) or not len(kept.truth):
        return None
    found = float(accuracy_score(kept.truth, kept.predicted))
    if abs(found - float(stored)) <= ACCURACY_TOLERANCE:
        return None
    right = int(np.count_nonzero(kept.truth == kept.predicted))
    return (f"has accuracy {_shown(found, stored)} ({right} of {len(kept.truth)} right), not the "
            f"{_shown(float(stored), found)} stored with the trial (another trial's file, or changed since)")


def _argmax_problem(kept: TrialPredictions) -> str | None:
    """A predicted class that is not a most probable class of its row's kept probabilities.

    A tree predicts a class its leaf gives the highest probability (ties: any of the tied), so a
    file whose labels and probabilities disagree was edited after it was written.  Checked for
    files without a checksum (a store written before checksums), where nothing else ties the
    probabilities to the trial.
    """
    proba = kept.proba
    if proba is None or not len(proba):
        return None
    picked = proba[np.arange(len(proba)), kept.predicted].astype(np.float64)
    behind = proba.max(axis=1).astype(np.float64) - picked
    if behind.max() <= PROBA_TOLERANCE:
        return None
    worst = int(behind.argmax())
    return (f"predicts class {kept.classes[kept.predicted[worst]]!s} on test row {worst} with probability "
            f"{picked[worst]:.4g} while its kept probabilities put {proba[worst].max():.4g} on class "
            f"{kept.classes[int(proba[worst].argmax())]!s} (labels and probabilities disagree: changed since)")


def _shown(value: float, other: float) -> str:
    """``value`` with enough digits to differ from ``other`` on the page."""
    for digits in (6, 10, 17):
        text = f"{value:.{digits}g}"
        if text != f"{other:.{digits}g}":
            return text
    return repr(value)


def problem_of(kept: TrialPredictions, facts: TrialFacts) -> str | None:
    """What shows that ``kept`` is not (or no longer) ``facts``' trial's predictions, or ``None``.

    Whole-array checks, one pass per array: dtypes and shapes, the row count against the trial's
    ``n_test``, codes within the classes, probabilities, the trial key the file names, and the
    checksum recorded with the trial.  A store written before checksums has none, nor its files a
    key: the content checks apply, the file's accuracy must be the one stored with the trial, and
    each predicted class must be a most probable one of its kept probabilities.
    """
    if kept.trial is not None and kept.trial != facts.key:
        return f"holds the predictions of trial {kept.trial[:12]} (another trial's file)"
    problem = _structure_problem(kept)
    if problem is None and facts.n_test is not None and not np.isnan(facts.n_test) and len(kept.rows) != facts.n_test:
        problem = f"has {len(kept.rows)} test rows; the trial tested {int(facts.n_test)}"
    problem = problem or _codes_problem(kept) or _rows_problem(kept, facts) or _proba_problem(kept)
    if problem is None and facts.checksum is not None and (found := checksum(kept, facts.key)) != facts.checksum:
        problem = (f"has checksum {found[:12]}, not the {facts.checksum[:12]} recorded with the trial "
                   "(another trial's file, or changed since)")
    if problem is None and facts.checksum is None:
        problem = _accuracy_problem(kept, facts) or _argmax_problem(kept)
    return problem


class KeptPredictions:
    """The kept predictions of a store's trials, each file checked against its trial when read.

    Parameters
    ----------
    store:
        The results store the files are kept beside.
    skip_bad:
        Leave out a trial whose file is missing or fails :func:`problem_of` (counted in
        :meth:`report_lines`) instead of raising.
    """

    def __init__(self, store: str | Path, *, skip_bad: bool = False) -> None:
        from treebench.experiment.store import ResultsStore

        self.store = Path(store)
        self.skip_bad = skip_bad
        problem = folder_problem(store)
        if problem is not None:  # not one trial's problem: no skipping helps
            raise BadPredictions(f"{problem}, so no trial's predictions can be read; accepted: the folder a run "
                                 "with predictions: true writes beside its store")
        with ResultsStore(store) as opened:
            self.facts = {str(row[0]): TrialFacts(*row) for row in opened.trial_facts(FACT_COLUMNS)}
            # a store that records checksums records one for every trial that kept its predictions
            self._checksummed = "predictions_sha256" in opened.trial_columns()
        # a store written before checksums: a finished trial has a file when the store kept any
        self._kept_any = next(keys(store), None) is not None
        #: Finished trials that kept no predictions (their run had predictions: false), said once.
        self.not_kept: dict[str, TrialFacts] = {}
        self.skipped: list[tuple[TrialFacts, str]] = []
        #: The files checked without a checksum (distinct trial keys: a baseline is read once per pair).
        self.content_only: set[str] = set()
        self._peer_verdicts: dict[tuple, dict[str, str]] = {}
        self._by_split: dict[tuple, list[TrialFacts]] | None = None

    def expects(self, facts: TrialFacts) -> bool:
        """Whether the trial must have a file: its row records a checksum, or (a store written before
        checksums) it finished in a store that kept predictions.  In a store that records checksums, a
        finished trial without one was run with ``predictions: false`` (or stored before the store
        recorded them): it is not expected to have a file, and is counted as keeping none."""
        if facts.checksum is not None:
            return True
        return facts.status == "ok" and self._kept_any and not self._checksummed

    def was_skipped(self, key: str) -> bool:
        return any(facts.key == key for facts, _ in self.skipped)

    def get(self, key: str) -> TrialPredictions | None:
        """The trial's verified predictions; ``None`` when it kept none (or, ``skip_bad``, a bad file).

        Raises
        ------
        BadPredictions
            The file is missing, unreadable or not this trial's (one line naming the trial).
        """
        facts = self.facts.get(key)
        path = folder_for(self.store) / f"{key}.npz"
        if self.was_skipped(key):  # read again (a baseline paired with each other algorithm): counted once
            return None
        if facts is None:  # a key the store does not hold: nothing to check a file against
            raise BadPredictions(f"trial {key[:12]} is not in results store {str(self.store)!r}")
        if facts.status != "ok":  # a failed trial predicted nothing (a file left by an earlier try is stale)
            return None
        if not path.exists() and not path.is_symlink():
            if self.expects(facts):
                return self._bad(facts, f"{path} is missing")
            self.not_kept[key] = facts
            return None
        try:
            kept = _load(path)
        except BadPredictions as exc:
            return self._bad(facts, str(exc))
        problem = problem_of(kept, facts)
        if problem is None and facts.checksum is None:  # no checksum: the other files of its split vouch for it
            problem = self._peer_problem(facts)
        if problem is not None:
            return self._bad(facts, f"{path} {problem}")
        if facts.checksum is None:
            self.content_only.add(key)
        return kept

    def _peer_problem(self, facts: TrialFacts) -> str | None:
        """How the file disagrees with the other files of its split (judged once per split)."""
        verdicts = self._peer_verdicts.get(facts.split)
        if verdicts is None:
            verdicts = self._peer_verdicts[facts.split] = self._judge_split(facts.split)
        return verdicts.get(facts.key)

    def _judge_split(self, split: tuple) -> dict[str, str]:
        """Trial key -> disagreement, for the files of one split that the others outvote.

        The trials of one split tested the same rows, whose true labels (as text) and the
        dataset's classes are the same whatever the algorithm.  A file that passes its own checks
        but disagrees with at least as many of the others as agree with it (itself counted) is
        named; of two files that disagree, both are (nothing tells which one changed).
        """
        folder = folder_for(self.store)
        if self._by_split is None:  # once: a trial's split, for every split judged
            self._by_split = {}
            for facts in self.facts.values():
                if facts.status == "ok":
                    self._by_split.setdefault(facts.split, []).append(facts)
        seen: dict[str, tuple] = {}
        for other in self._by_split.get(split, []):
            try:
                peer = _load(folder / f"{other.key}.npz")
            except BadPredictions:  # its own read names it
                continue
            if problem_of(peer, other) is None:  # a file that fails its own checks has no vote
                order = np.argsort(peer.rows, kind="stable")
                seen[other.key] = (tuple(peer.classes.tolist()), peer.rows[order], peer.y_true[order])
        verdicts = {}
        for key, mine in seen.items():
            differ = {k: d for k, other in seen.items() if k != key and (d := _difference(mine, other))}
            if differ and len(differ) >= len(seen) - len(differ):
                first, how = next(iter(differ.items()))
                verdicts[key] = (f"disagrees with the kept predictions of {len(differ)} of the other "
                                 f"{len(seen) - 1} trial(s) of its split: {how} of "
                                 f"{self.facts[first].algorithm} (trial {first[:12]}); renamed or edited since "
                                 "(the store records no checksum to tell which file changed)")
        return verdicts

    def _bad(self, facts: TrialFacts, problem: str) -> None:
        if self.skip_bad:
            self.skipped.append((facts, problem))
            return None
        raise BadPredictions(f"kept predictions of {facts.label} failed verification: {problem}; "
                             "--skip-bad-predictions leaves such trials out")

    def report_lines(self) -> list[str]:
        """What the reader should say once: the trials skipped, the files checked without a checksum."""
        lines = []
        if self.skipped:
            n = len(self.skipped)
            named = "; ".join(f"{facts.label}: {problem}" for facts, problem in self.skipped)
            lines.append(f"skipped {n} trial{'s' * (n != 1)} whose kept predictions failed verification: {named}")
        if self.not_kept:
            n = len(self.not_kept)
            named = ", ".join(facts.label for facts in list(self.not_kept.values())[:6])
            more = f" and {n - 6} more" if n > 6 else ""
            lines.append(f"note: {n} finished trial{'s' * (n != 1)} kept no predictions (run with predictions: false, "
                         f"or stored before the store recorded checksums) and {'are' if n != 1 else 'is'} left out: "
                         f"{named}{more}")
        if self.content_only:
            n = len(self.content_only)
            lines.append(f"warning: {n} kept predictions file{'s' * (n != 1)} checked without a checksum (by "
                         "content, stored accuracy and row counts, and against the other files of the same "
                         "split): their trials were stored before predictions checksums were recorded")
        return lines


def _shown_labels(labels: tuple) -> str:
    shown = ", ".join(repr(c) for c in labels[:4])
    return shown + (f", ... ({len(labels)})" if len(labels) > 4 else "")


def _difference(mine: tuple, other: tuple) -> str | None:
    """How one file's (classes, sorted rows, truth of those rows) differs from another's of the same split."""
    if mine[0] != other[0]:
        return f"its classes {_shown_labels(mine[0])} are not the classes {_shown_labels(other[0])}"
    if not np.array_equal(mine[1], other[1]):
        return "its test rows are not the test rows"
    wrong = np.flatnonzero(mine[2] != other[2])
    if len(wrong):
        at = int(wrong[0])
        return (f"its truth of test row {int(mine[1][at])} is {str(mine[2][at])!r} "
                f"({len(wrong)} row(s) differ), not the {str(other[2][at])!r}")
    return None


def with_metric(frame: Any, store: str | Path, metric: str, kept: KeptPredictions | None = None) -> Any:
    """``frame`` with the prediction metric ``metric`` computed from the store's kept predictions
    where the trials did not store it (a config that kept predictions but did not list it).
    Each file is verified against its trial first (``kept``; a trial it skips leaves the frame).

    Raises
    ------
    TreebenchError
        When the store kept no predictions for the trials that lack the metric.
    BadPredictions
        A file that fails verification (unless ``kept`` skips it).
    """
    import pandas as pd

    from treebench.stats.metrics import Metric
    from treebench.stats.prediction_metrics import get_prediction_metric, score_predictions

    kept = kept or KeptPredictions(store)
    scorer = get_prediction_metric(metric)
    frame = frame.copy()
    if metric not in frame.columns:
        frame[metric] = float("nan")
    missing = frame.index[(frame["status"] == "ok") & pd.to_numeric(frame[metric], errors="coerce").isna()]
    found, dropped = 0, []
    for at in missing:
        key = str(frame.at[at, "trial_key"])
        trial = kept.get(key)
        if trial is None:
            if kept.was_skipped(key):
                dropped.append(at)
            continue
        if scorer.needs_proba and trial.proba is None:
            raise TreebenchError(f"{metric} needs class probabilities; the predictions kept for "
                                 f"{frame.at[at, 'algorithm']!r} have none")
        proba = None if trial.proba is None else trial.proba.astype(np.float64)
        frame.at[at, metric] = score_predictions([metric], trial.y_true, trial.y_pred, proba, trial.classes)[metric]
        found += 1
    if len(missing) and not found:
        if dropped:
            raise TreebenchError(f"no {metric} to compare: every trial's kept predictions failed verification "
                                 f"({len(dropped)} skipped)")
        raise TreebenchError(f"the store holds no {metric} and kept no predictions to compute it from "
                             f"(add {metric} to the config's metrics, or predictions: true, and rerun with --force)")
    frame = frame.drop(index=dropped)
    declared: dict[str, Metric] = dict(frame.attrs.get("metrics", {}))
    declared[metric] = scorer.metric
    frame.attrs["metrics"] = declared
    return frame


def paired_cases(store: str | Path, frame: Any, dataset: str, a: str, b: str,
                 kept: KeptPredictions | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The truth and the two algorithms' predictions on the same test cases of ``dataset``'s one split;
    ``None`` when ``kept`` skipped one of the two files (it failed verification).

    Raises
    ------
    TreebenchError
        For more than one split (McNemar's test is for a single split), or missing predictions.
    BadPredictions
        A file that fails verification (unless ``kept`` skips it).
    """
    kept = kept or KeptPredictions(store)
    rows = frame[(frame["dataset"] == dataset) & (frame["status"] == "ok")]
    splits = rows[["repeat", "fold"]].drop_duplicates()
    if len(splits) != 1:
        raise TreebenchError(f"McNemar's test compares two algorithms on one split; {dataset!r} has {len(splits)} "
                             "(use --test corrected-ttest for repeated splits)")
    keys = {name: rows.loc[rows["algorithm"] == name, "trial_key"] for name in (a, b)}
    # both files read before either is judged: a skipped baseline must not hide its partner's bad file
    gots = {name: kept.get(str(key.iloc[0])) if len(key) else None for name, key in keys.items()}
    if any(len(key) and kept.was_skipped(str(key.iloc[0])) for key in keys.values()):
        return None
    found = []
    for name in (a, b):
        got = gots[name]
        if got is None:
            raise TreebenchError(f"no kept predictions of {name!r} on {dataset!r}: McNemar's test needs them "
                                 "(predictions: true in the config, then run it again with --force: a finished "
                                 "trial is not rerun otherwise)")
        order = np.argsort(got.rows, kind="stable")
        found.append((got.rows[order], got.y_true[order], got.y_pred[order]))
    if not np.array_equal(found[0][0], found[1][0]):
        raise TreebenchError(f"{a!r} and {b!r} were tested on different rows of {dataset!r}")
    return found[0][1], found[0][2], found[1][2]


def as_frame(store: str | Path, trials: Any, kept: KeptPredictions | None = None) -> Any:
    """Every kept prediction of the store's trials as one tidy frame (a row per trial and test case),
    each file verified against its trial first.

    Raises
    ------
    TreebenchError
        When the store kept no predictions.
    BadPredictions
        A file that fails verification (unless ``kept`` skips it).
    """
    import pandas as pd

    kept = kept or KeptPredictions(store)
    parts = []
    for row in trials.itertuples(index=False):
        trial = kept.get(str(row.trial_key))
        if trial is None:
            continue
        part = pd.DataFrame({"trial_key": row.trial_key, "dataset": row.dataset, "algorithm": row.algorithm,
                             "repeat": row.repeat, "fold": row.fold, "row": trial.rows,
                             "truth": trial.y_true, "predicted": trial.y_pred})
        if trial.proba is not None:
            for j, name in enumerate(trial.classes):
                part[f"proba_{name}"] = trial.proba[:, j]
        parts.append(part)
    if not parts:
        if kept.skipped:
            raise TreebenchError(f"every kept predictions file of {store} failed verification "
                                 f"({len(kept.skipped)} skipped)")
        finished = sum(f.status == "ok" for f in kept.facts.values())
        if not finished:  # nothing finished: no file could have been kept, whatever the config said
            raise TreebenchError(f"{store} holds no finished trial ({len(kept.facts)} stored, none ok: see "
                                 "`treebench results show` for their errors), so it kept no predictions")
        raise TreebenchError(f"{store} kept no predictions (predictions: true in the config keeps them; "
                             "run it again with --force for the trials already finished)")
    return pd.concat(parts, ignore_index=True)


def store_inputs(store: str | Path | None) -> list[tuple[str, Path | None]]:
    """What a command reading ``store`` must never write over (for
    :func:`treebench.outpaths.check_not_input`): the store, its kept predictions, its companions
    (lock, SQLite's log and index files) and the board lock of the folder it sits in."""
    from treebench.experiment.store import BOARD_LOCK, COMPANIONS

    if store is None:
        return []
    store = Path(store)
    return [("the results store", store), ("the store's kept predictions", folder_for(store)),
            *((what, store.with_name(store.name + suffix)) for suffix, what in COMPANIONS),
            ("the folder's leaderboard lock", store.parent / BOARD_LOCK)]
