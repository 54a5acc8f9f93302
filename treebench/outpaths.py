"""One guarded way to create output folders, write output files and name them.

Every command that writes (``leaderboard --out``, ``plot --out``,
``reproduce --out-dir``, ``certainty --plot``, ...) goes through here, so a bad
place gives one :class:`~treebench.errors.TreebenchError` line naming what is
wrong and what is accepted, never a traceback:

- :func:`make_folder` creates an output folder (and its parents);
- :func:`check_folder` and :func:`check_file` say, creating nothing, whether
  a folder or file could be written there (a command checks before it writes
  its first byte);
- :func:`write_text`, :func:`write_bytes` and :func:`write_with` write a file
  to a temporary name in its own folder and rename it into place, so a crash
  never leaves half a file, and remove the temporary on any failure;
- :func:`safe_name` turns user text (a dataset label, an algorithm name, an
  experiment name) into one file-name component.

``what`` in every function is how the message names the user's input, e.g.
``"--out 'x/y'"``; by default the path itself, quoted.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import tempfile
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path

from treebench.errors import TreebenchError

#: What the messages say is accepted.
FOLDER_ACCEPTED = "a folder path (created if missing)"
FILE_ACCEPTED = "a file path in a writable folder"
#: The longest file-name component :func:`safe_name` returns (file systems allow 255 bytes).
MAX_NAME = 100
#: Characters kept in a file name besides letters and digits.
_KEPT = frozenset("-_.+=,@")


#: What the system's refusal to write means, by errno, in words that point the right way (its own
#: "No such file or directory" for a new file in /proc would send the user looking for a missing folder).
_REASONS = {
    errno.EROFS: "the file system there is read-only",
    errno.EACCES: "permission denied: no write permission there",
    errno.EPERM: "the system does not permit writing there",
    errno.ENOTDIR: "a part of the path is not a folder",
}


def os_reason(exc: OSError, place: str | Path | None = None) -> str:
    """Why writing at ``place`` failed, in words (for every writer's one-line message).

    ``ENOENT`` is the one errno whose words mislead: it also comes from a file
    system that takes no new files (``/proc``, ``/sys``) although the folder
    exists, so it is told apart here: a missing folder is named, an existing
    one is said to take no new files.

    Parameters
    ----------
    exc
        The system's refusal.
    place
        The file or folder being written (its folder is checked for ``ENOENT``).

    Returns
    -------
    str
        A short reason, e.g. ``"the file system there is read-only"``.
    """
    if exc.errno == errno.ENOENT:
        if place is None:
            return "a folder of the path does not exist"
        place = Path(place)
        folder = place if place.is_dir() else place.parent
        if folder.is_dir():
            return "the file system there takes no new files or folders: a virtual one, such as /proc or /sys"
        return f"its folder {_q(_missing_folder(folder))} does not exist"
    reason = _REASONS.get(exc.errno) if exc.errno is not None else None
    if reason is not None:
        return reason
    return exc.strerror or " ".join(str(exc).split()) or type(exc).__name__


def _missing_folder(folder: Path) -> Path:
    """The first missing folder on the way to ``folder``."""
    missing = folder
    while not missing.parent.exists() and missing.parent != missing:
        missing = missing.parent
    return missing


def _what(path: Path, what: str | None) -> str:
    return what if what is not None else repr(str(path))


def _q(path: Path) -> str:
    return repr(str(path))


def _nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (as a link target or a file of any kind)."""
    probe = path
    while not os.path.lexists(probe) and probe != probe.parent:
        probe = probe.parent
    return probe


def _refuse_blocker(path: Path, what: str, accepted: str) -> None:
    """Raise if an ancestor of ``path`` (or ``path`` itself, as a folder) cannot hold folders."""
    existing = _nearest_existing(path)
    if existing.is_dir():
        if not os.access(existing, os.W_OK | os.X_OK) and existing != path:
            raise TreebenchError(f"{what}: folder {_q(existing)} is not writable; accepted: {accepted}")
        return
    if os.path.islink(existing) and not existing.exists():
        raise TreebenchError(f"{what}: {_q(existing)} is a broken symbolic link; accepted: {accepted}")
    kind = "a file" if existing.is_file() else "a special file"
    raise TreebenchError(f"{what}: {_q(existing)} is {kind}, not a folder; accepted: {accepted}")


#: The longest file-name component most file systems take (bytes).
NAME_MAX = 255
#: How a SQLite database file starts (a results store).
_SQLITE_MAGIC = b"SQLite format 3\x00"


def _refuse_bad_form(path: Path, raw: str | Path, shown: str, accepted: str) -> None:
    """Refuse an empty path and a name longer than the file system takes, before touching anything."""
    if not str(raw).strip():
        raise TreebenchError(f"{shown}: the path is empty; accepted: {accepted}")
    for part in path.parts:
        size = len(os.fsencode(part))
        if size > NAME_MAX:
            raise TreebenchError(f"{shown}: the name {part[:24]!r}... is {size} bytes long; "
                                 f"accepted: {accepted}, each name at most {NAME_MAX} bytes")


def check_name(path: str | Path, what: str | None = None, accepted: str = FILE_ACCEPTED) -> Path:
    """Refuse an empty path or a name longer than :data:`NAME_MAX` bytes, touching nothing.

    For a command that must ask the file system about a path (``is_dir()``...)
    before its full check: such a question on a too-long name raises
    ``OSError`` (errno 36) instead of answering.
    """
    raw, path = path, Path(path)
    _refuse_bad_form(path, raw, _what(path, what), accepted)
    return path


#: The files SQLite keeps beside a database.
_SQLITE_SIBLINGS = ("-wal", "-shm", "-journal")


def _is_sqlite(path: Path) -> bool:
    if not path.is_file():  # a FIFO beside the output (``--out fifo.lock``) would block this read forever
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC
    except OSError:
        return False


#: The lock a leaderboard holds in its folder for a whole run (re-exported by ``treebench.experiment.store``;
#: spelled here, the lowest layer that checks it, so that every writer's check stays free of the store's imports).
BOARD_LOCK = ".leaderboard.lock"
#: The suffix of a results store's writer lock (``X.sqlite.lock`` beside ``X.sqlite``).
LOCK_SUFFIX = ".lock"


def lock_held(path: str | Path, *, unknown: bool = False) -> bool:
    """Whether a process holds a ``flock`` on the file ``path`` now (changing nothing).

    A missing file is not held.  ``unknown`` is the answer when it cannot be told (no ``flock`` on
    this system, a file that cannot be opened): ``False`` for an output check, ``True`` for a reader
    that must be careful.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no flock locks
        return unknown
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # non-blocking: a FIFO in the lock's place never hangs
    except FileNotFoundError:
        return False
    except OSError:
        return unknown
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _refuse_lock(path: Path, shown: str) -> None:
    """Refuse to replace a lock: a board's ``.leaderboard.lock``, a results store's ``X.lock`` beside the
    store ``X``, or any ``*.lock`` a process holds now, whichever command reads them.

    A writer holds its lock by the file's inode: a file renamed over it is a new, unlocked inode, so a
    second run (or board) would write beside the first without a word.
    """
    accepted = f"{FILE_ACCEPTED} that is no lock file"
    if path.name == BOARD_LOCK:
        raise TreebenchError(f"{shown}: {_q(path)} is a leaderboard's lock; replacing it would let a second board "
                             f"write that folder beside a running one; accepted: {accepted}")
    if not path.name.endswith(LOCK_SUFFIX) or path.name == LOCK_SUFFIX:
        return
    store = path.with_name(path.name[: -len(LOCK_SUFFIX)])
    if _is_sqlite(store):
        raise TreebenchError(f"{shown}: {_q(path)} is the writer lock of results store {_q(store)}; replacing it "
                             f"would let two runs write that store at once; accepted: {accepted}")
    if path.is_file() and lock_held(path):
        raise TreebenchError(f"{shown}: {_q(path)} is a lock file a running process holds now; replacing it "
                             f"would void that lock; accepted: {accepted}")


def _refuse_results(path: Path, shown: str, own_lock: bool = False) -> None:
    """Refuse to replace finished results: a results store (any SQLite file), its companions and lock,
    a board's lock, or a kept predictions file (``own_lock``: ``path`` is the caller's own lock, which it
    opens in place and never replaces)."""
    if not own_lock:
        _refuse_lock(path, shown)
    if any(parent.name.endswith(".predictions") for parent in path.parents):
        raise TreebenchError(f"{shown}: {_q(path)} is inside a store's kept predictions; writing there would "
                             f"corrupt them; accepted: {FILE_ACCEPTED} outside a *.predictions folder")
    for suffix in _SQLITE_SIBLINGS:  # SQLite reads (and resets) these beside a store: never an output
        if path.name.endswith(suffix) and _is_sqlite(path.with_name(path.name[: -len(suffix)])):
            raise TreebenchError(f"{shown}: {_q(path)} is the {suffix[1:]} file of results store "
                                 f"{_q(path.with_name(path.name[: -len(suffix)]))}; writing there would damage it; "
                                 f"accepted: {FILE_ACCEPTED} that is not a results store's")
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(_SQLITE_MAGIC))
    except OSError:
        return
    if head == _SQLITE_MAGIC:
        raise TreebenchError(f"{shown}: {_q(path)} is a results store (SQLite); writing there would lose its "
                             f"trials; accepted: {FILE_ACCEPTED} that is not a results store")


def writable_reason(folder: Path) -> str | None:
    """Why no file can be written in the existing ``folder`` (``None``: one can).

    Creates and removes a temporary file: the only sure test (``os.access`` says yes to root in
    ``/proc``, on a read-only mount, ...).
    """
    try:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".treebench-probe-")
    except OSError as exc:
        return os_reason(exc, folder)
    os.close(fd)
    os.unlink(name)
    return None


def _probe(folder: Path, shown: str, accepted: str) -> None:
    """Refuse ``folder`` when :func:`writable_reason` finds that no file can be written there."""
    why = writable_reason(folder)
    if why is not None:
        raise TreebenchError(f"{shown}: cannot write in {_q(folder)} ({why}); accepted: {accepted}")


def check_folder(path: str | Path, what: str | None = None) -> Path:
    """Refuse, creating nothing, a folder path that cannot be created or written.

    Parameters
    ----------
    path
        The output folder (may not exist yet).
    what
        How the message names the user's input, e.g. ``"--out 'x/y'"``.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    TreebenchError
        A part of the path is a file (or a special file), a broken link, or
        the folder (or the existing folder it would be created in) is not
        writable.
    """
    raw, path = path, Path(path)
    shown = _what(path, what)
    _refuse_bad_form(path, raw, shown, FOLDER_ACCEPTED)
    _refuse_blocker(path, shown, FOLDER_ACCEPTED)
    if path.is_dir() and not os.access(path, os.W_OK | os.X_OK):
        raise TreebenchError(f"{shown}: folder {_q(path)} is not writable; accepted: {FOLDER_ACCEPTED}")
    existing = _nearest_existing(path)
    if existing.is_dir():
        _probe(existing, shown, FOLDER_ACCEPTED)
    return path


def make_folder(path: str | Path, what: str | None = None) -> Path:
    """Create the output folder ``path`` and its parents (nothing when it exists); return it.

    Raises
    ------
    TreebenchError
        As :func:`check_folder`, and for anything the system refuses
        (a read-only file system, a full disk), in one line.
    """
    path = check_folder(path, what)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TreebenchError(
            f"{_what(path, what)}: cannot create folder {_q(path)} ({os_reason(exc, path)}); accepted: {FOLDER_ACCEPTED}"
        ) from None
    return path


def check_file(path: str | Path, what: str | None = None, *, own_lock: bool = False) -> Path:
    """Refuse, creating nothing, a file path that cannot be written.

    Parameters
    ----------
    path
        The output file (may not exist yet).
    what
        How the message names the user's input, e.g. ``"--out 'x/y'"``.
    own_lock
        ``path`` is the caller's own lock file (a board checking its ``.leaderboard.lock``): the
        refusal of lock files is skipped, every other check made.

    Raises
    ------
    TreebenchError
        ``path`` is a folder or a special file, a results store, one of its
        companions (``-wal``, ``-shm``, ``-journal``, its writer lock), a
        board's lock or a lock a process holds, or its folder could not be
        created or written (:func:`check_folder`).
    """
    raw, path = path, Path(path)
    shown = _what(path, what)
    _refuse_bad_form(path, raw, shown, FILE_ACCEPTED)
    if path.is_dir():
        raise TreebenchError(f"{shown}: {_q(path)} is a folder, not a file; accepted: {FILE_ACCEPTED}")
    if path.exists() and not path.is_file():
        raise TreebenchError(f"{shown}: {_q(path)} is not a regular file; accepted: {FILE_ACCEPTED}")
    _refuse_results(path, shown, own_lock)
    _refuse_blocker(path.parent, shown, FILE_ACCEPTED)
    if path.parent.is_dir() and not os.access(path.parent, os.W_OK | os.X_OK):
        raise TreebenchError(f"{shown}: folder {_q(path.parent)} is not writable; accepted: {FILE_ACCEPTED}")
    existing = _nearest_existing(path.parent)
    if existing.is_dir():
        _probe(existing, shown, FILE_ACCEPTED)
    return path


def _file_mode() -> int:
    """The mode a plain ``open(..., "w")`` would give a new file (0o666 less the umask)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def write_with(path: str | Path, writer: Callable[[Path], object], what: str | None = None) -> Path:
    """Write ``path`` through ``writer(temporary_path)``, then rename the temporary into place.

    The temporary lives in ``path``'s folder (so the rename is atomic) and
    keeps ``path``'s suffix (matplotlib and pandas choose the format by it).
    It is removed whatever goes wrong; the folder is created when missing.

    Parameters
    ----------
    path
        The file to write.
    writer
        Writes the whole content to the path it is given.
    what
        How the message names the user's input.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    TreebenchError
        :func:`check_file`'s refusals, and any ``OSError`` of the writing, in one line.
    """
    path = check_file(path, what)
    make_folder(path.parent, what if what is not None else _q(path))
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:MAX_NAME]}.", suffix=f".tmp{path.suffix}")
    except OSError as exc:
        raise TreebenchError(f"{_what(path, what)}: cannot write {_q(path)} ({os_reason(exc, path)}); "
                             f"accepted: {FILE_ACCEPTED}") from None
    os.close(fd)
    tmp = Path(name)
    try:
        writer(tmp)
        os.chmod(tmp, _file_mode())  # mkstemp's 0600 would make outputs private
        os.replace(tmp, path)
    except OSError as exc:
        raise TreebenchError(f"{_what(path, what)}: cannot write {_q(path)} ({os_reason(exc, path)}); "
                             f"accepted: {FILE_ACCEPTED}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_text(path: str | Path, text: str, what: str | None = None) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`write_with`); return ``path``."""
    return write_with(path, lambda tmp: tmp.write_text(text, encoding="utf-8"), what)


def write_bytes(path: str | Path, data: bytes, what: str | None = None) -> Path:
    """Write ``data`` to ``path`` atomically (:func:`write_with`); return ``path``."""
    return write_with(path, lambda tmp: tmp.write_bytes(data), what)


#: File suffixes that name a format: a reader (or the user's editor) goes by them.
FORMAT_SUFFIXES = {".md": "md", ".markdown": "md", ".tex": "latex", ".csv": "csv", ".html": "html",
                   ".htm": "html", ".parquet": "parquet"}


def check_format_suffix(path: Path | None, fmt: str, option: str = "--out") -> None:
    """Refuse an output file whose suffix names another format than ``fmt`` (``x.html`` with ``--format md``).

    Readers go by the suffix, so such a file would later read as damaged or be shown raw; a suffix that
    names no format (``.txt``, none) is accepted.
    """
    if path is None:
        return
    written_as = FORMAT_SUFFIXES.get(path.suffix.lower())
    if written_as is not None and written_as != fmt:
        raise TreebenchError(f"{option} {str(path)!r} names a {written_as} file, but --format is {fmt}; accepted: "
                             f"--format {written_as}, or {option} ending in .{_suffix_of(fmt)} (or a suffix "
                             "naming no format)")


def _suffix_of(fmt: str) -> str:
    """The usual suffix of a format (``latex`` -> ``tex``)."""
    return next((suffix[1:] for suffix, name in FORMAT_SUFFIXES.items() if name == fmt), fmt)


def with_extension(base: str | Path, suffix: str) -> Path:
    """``base`` with ``suffix`` added: ``plots/c4.5-r0f0`` -> ``plots/c4.5-r0f0.png``.

    ``Path.with_suffix`` would replace the ``.5-r0f0`` of such a name; only a
    known figure or text extension already on ``base`` is replaced.
    """
    base = Path(base)
    if not base.name or base.name == "..":  # "" and "." read as the current folder: no file name to extend
        raise TreebenchError(f"{_q(base)} names no file (an empty path, '.' or '..'); accepted: {FILE_ACCEPTED}")
    if base.suffix.lower() in (".png", ".svg", ".dot", ".pdf", ".csv", ".json", ".md"):
        return base.with_suffix(suffix)
    return base.with_name(base.name + suffix)


def safe_name(text: object, limit: int = MAX_NAME) -> str:
    """One file-name component made from user text; distinct texts get distinct names.

    Letters, digits and ``-_.+=,@`` are kept; any other character (a path
    separator, a control character, a space) becomes ``_``; leading dots and
    underscores go (no ``..``, no hidden file).  When the text had to change,
    is longer than ``limit`` bytes, or already ends like a changed name
    (``-`` and 8 hex digits), the first 8 hex digits of its SHA-256 are
    appended, so two labels that clean up to the same name (``a/b``, ``a:b``)
    still name two files, and no label takes another's changed name.

    Parameters
    ----------
    text
        The user's text (converted with ``str``).
    limit
        The longest name returned, in UTF-8 bytes (at least 16).

    Returns
    -------
    str
        A non-empty name of at most ``limit`` bytes.
    """
    raw = str(text)
    limit = max(16, limit)
    normal = unicodedata.normalize("NFC", raw)
    kept = "".join(c if (c.isalnum() or c in _KEPT) and c.isprintable() else "_" for c in normal)
    kept = re.sub(r"_+", "_", kept).lstrip("._")
    kept = re.sub(r"\.{2,}", ".", kept).rstrip(". ")
    # a text that already looks like a changed name (ending in -XXXXXXXX, or 8 hex digits alone) gets its
    # own digest too, so that it never takes the name another text was changed into ("a/b" -> a_b-c14cddc0)
    looks_changed = re.fullmatch(r"(?:.*-)?[0-9a-f]{8}", kept) is not None
    if kept == raw and 0 < _bytes(kept) <= limit and not looks_changed:
        return kept
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    # the limit is in bytes: file systems bound a name's bytes (255), and a CJK character is 3 of them
    stem = kept.encode("utf-8", "surrogatepass")[: limit - len(digest) - 1].decode("utf-8", "ignore").rstrip("._")
    return f"{stem}-{digest}" if stem else digest


def _bytes(name: str) -> int:
    """The length of ``name`` in a file name, in UTF-8 bytes."""
    return len(name.encode("utf-8", "surrogatepass"))


#: Suffixes of the files commands read (configs, plugins, suites are YAML/Python/text): no table or
#: figure writer writes them, so an output named so would only ever replace an input.
INPUT_SUFFIXES = {".yaml": "a YAML config", ".yml": "a YAML config", ".py": "a Python plugin"}


def check_not_input(path: Path | None, inputs: Iterable[tuple[str, str | Path | None]],
                    option: str = "--out") -> None:
    """Refuse an output ``path`` that is one of the command's inputs, or lies inside an input folder.

    ``inputs`` pairs a description (``"the config"``, ``"the store's kept predictions"``) with a
    path (None: not used).  An output named like a config or plugin (``.yaml``, ``.py``) is refused
    too: no writer writes one, so it could only replace such a file.  Paths are compared resolved,
    so ``./x.yaml`` and a link to it are the same file.
    """
    if path is None or str(path) == "-":
        return
    shown = f"{option} {str(path)!r}"
    kind = INPUT_SUFFIXES.get(Path(path).suffix.lower())
    if kind is not None:
        raise TreebenchError(f"{shown} is named like {kind} file, which this command never writes (it would "
                             f"replace one); accepted: {FILE_ACCEPTED} with the suffix of its format")
    target = Path(os.path.realpath(path))
    for what, source in inputs:
        if source is None:
            continue
        given = Path(os.path.realpath(source))
        if target == given or given in target.parents:
            where = "is" if target == given else "is inside"
            raise TreebenchError(f"{shown} {where} {what} ({str(source)!r}) this command reads; writing there "
                                 f"would replace its own input; accepted: {FILE_ACCEPTED} that is none of its inputs")
