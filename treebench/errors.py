"""User-facing errors.

Anything the user can fix (a bad name, an out-of-range value, a missing file)
raises :class:`TreebenchError` with a one-line message naming what is wrong and
what is accepted.  The CLI prints that line and exits non-zero without a
traceback; library callers get an ordinary exception (a ``ValueError``
subclass, so ``except ValueError`` keeps working).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence


class TreebenchError(ValueError):
    """A problem with user input, reported as one readable line."""


def one_of(value: object, accepted: list[str] | tuple[str, ...], what: str) -> TreebenchError:
    """Build the standard "unknown X" error listing the accepted values."""
    listing = ", ".join(sorted(accepted))
    return TreebenchError(f"unknown {what} {value!r}; accepted: {listing}")


def first_repeat(names: Sequence[str]) -> str | None:
    """The first name that ``names`` gives a second time, or ``None``: for the one-line refusal of a
    selection that names something twice (it would make a second, identical row, column or run)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def no_such_parameter(owner: str, key: object, accepted: Sequence[str], listing: str | None = None) -> TreebenchError:
    """"OWNER has no parameter KEY (did you mean ...?); accepted: ..." for an unknown parameter.

    ``listing`` replaces the comma-separated ``accepted`` names, e.g. to say
    what values each parameter takes.
    """
    close = difflib.get_close_matches(str(key), list(accepted), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return TreebenchError(f"{owner} has no parameter {key!r}{hint}; accepted: {listing or ', '.join(accepted)}")


def physical_memory() -> int | None:
    """This machine's physical memory in bytes (``None`` where the system does not say)."""
    import os

    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def byte_size(n: float) -> str:
    """``n`` bytes for a message: ``512 B``, ``3.2 GiB``, ``16 TiB``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"  # pragma: no cover - the loop returns


def check_memory(needed: float, what: str, accepted: str) -> None:
    """Refuse, before allocating, what needs more memory than this machine has.

    Parameters
    ----------
    needed
        Bytes the request needs at least.
    what
        The request, e.g. ``"convexity_points=1000000000"``.
    accepted
        How to stay under the limit, for the end of the message.

    Raises
    ------
    TreebenchError
        One line naming the request, its memory and the machine's.
    """
    total = physical_memory()
    if total is not None and needed > total:
        raise TreebenchError(
            f"{what} needs at least {byte_size(needed)} of memory, more than this machine's "
            f"{byte_size(total)}; accepted: {accepted}"
        )


def special_kind(path: object) -> str | None:
    """What the existing ``path`` is when it is no regular file nor folder (followed through links):
    ``"a character device"`` (``/dev/zero``), ``"a named pipe (FIFO)"``, ...; None otherwise.

    An input read from such a file would never end (``/dev/zero``, ``/dev/urandom``), block
    (a FIFO) or look empty (its size is 0), so readers refuse it by this name first.
    """
    import os
    import stat

    try:
        mode = os.stat(os.fspath(path)).st_mode  # type: ignore[arg-type]
    except (OSError, ValueError, TypeError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"
