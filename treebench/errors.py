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


def no_such_parameter(owner: str, key: object, accepted: Sequence[str], listing: str | None = None) -> TreebenchError:
    """"OWNER has no parameter KEY (did you mean ...?); accepted: ..." for an unknown parameter.

    ``listing`` replaces the comma-separated ``accepted`` names, e.g. to say
    what values each parameter takes.
    """
    close = difflib.get_close_matches(str(key), list(accepted), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return TreebenchError(f"{owner} has no parameter {key!r}{hint}; accepted: {listing or ', '.join(accepted)}")
