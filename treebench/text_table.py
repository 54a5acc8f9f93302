"""Plain-text tables for the terminal: a header, a rule, aligned columns.

Standard library only, so every layer may use it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

__all__ = ["format_table", "line_break", "md_text", "one_line"]


def line_break(text: str) -> str | None:
    """The first character of ``text`` that a table cell cannot hold, as an escape (``'\\n'``), or None.

    Every control or format character but the tab counts: a line break (``\\n``, ``\\r``,
    U+2028, ...) would split a Markdown or text table's row in two, an escape
    sequence would restyle the terminal.
    """
    for char in text:
        if char != "\t" and not char.isprintable() and char != " ":
            return repr(char)[1:-1]
    return None


def one_line(text: object) -> str:
    """``str(text)`` with every character :func:`line_break` names replaced by its escape (``a\\nb``), so a
    label from an old or hand-made store cannot break a table's row."""
    raw = str(text)
    if line_break(raw) is None:
        return raw
    return "".join(c if c == "\t" or c.isprintable() or c == " " else repr(c)[1:-1] for c in raw)


#: What starts Markdown markup inside a line (raw HTML and autolinks ``<``, links and images ``[``, emphasis
#: ``*`` and ``_``, code spans, entities ``&``, strikethrough ``~``), ends a table cell (``|``) or escapes
#: (a backslash).  An ``_`` between two letters or digits starts nothing (``gain_ratio``) and is left as it is.
_MD_MARKUP = re.compile(r"[\\`*\[\]<>&~|]|(?<![^\W_])_|_(?![^\W_])")


def md_text(text: object) -> str:
    """User text (a name, a label, a plugin's description) for one line of Markdown, shown as written.

    :func:`one_line`, then a backslash before every character that would start markup
    (CommonMark takes a backslash before any ASCII punctuation as the character itself), so a
    ``<script>``, a ``javascript:`` link or a remote image in the text is shown, never rendered
    or fetched, by whatever renders the file (an editor's preview, a wiki, the report page).
    """
    return _MD_MARKUP.sub(lambda m: "\\" + m.group(0), one_line(text))


def format_table(
    headers: Sequence[object], rows: Iterable[Sequence[object]], numeric: Collection[int] = ()
) -> str:
    """Lay out ``rows`` under ``headers`` as aligned plain text.

    Parameters
    ----------
    headers:
        Column titles.
    rows:
        One sequence of cells per row, as many as there are headers.  Cells
        are shown with ``str``; ``None`` shows as an empty cell.
    numeric:
        Indices of the columns to align right (numbers); the others align left.

    Returns
    -------
    str
        The header line, a rule of dashes under each column, then one line
        per row; columns are two spaces apart and lines have no trailing
        blanks.  No final newline.

    Raises
    ------
    ValueError
        A row with more or fewer cells than there are headers.

    Examples
    --------
    >>> print(format_table(["name", "rows"], [["iris", 150], ["wine", None]], numeric=(1,)))
    name  rows
    ----  ----
    iris   150
    wine
    """
    lines = [[one_line(h) for h in headers]]
    for row in rows:
        cells = ["" if v is None else one_line(v) for v in row]
        if len(cells) != len(lines[0]):
            raise ValueError(
                f"table row has {len(cells)} cells for {len(lines[0])} headers: {cells!r}"
            )
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]

    def render(cells: list[str]) -> str:
        return "  ".join(
            cell.rjust(width) if i in numeric else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(cells, widths))
        ).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([render(lines[0]), rule, *(render(cells) for cells in lines[1:])])
