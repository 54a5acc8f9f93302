"""The grades a kept part shows, read back from its HTML.

A paper kept from its last good report shows two things on the page: its part
(``section.json``'s HTML, with the claims table) and, in the verdicts headline,
the grades of the ``verdicts.json`` written with it.  The part records the
SHA-256 of that file, but the digest sits in a file that can be edited too: a
``verdicts.json`` forged together with its digest would be counted.  There is
no secret to sign with, so no check can tell a consistent forgery of both files
from the real ones; what can be checked is that the page never disagrees with
itself: the grades the headline counts are the ones the part's claims table
shows (its ``verdict`` column, claim by claim).
"""

from __future__ import annotations

from html.parser import HTMLParser


class _ClaimsTable(HTMLParser):
    """Collects the header and the body rows of the part's ``<table class="claims">``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found = False
        self.inside = False
        self.head: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and not self.found and "claims" in (dict(attrs).get("class") or "").split():
            self.found = self.inside = True
        elif not self.inside:
            return
        elif tag == "thead":
            self._in_head = True
        elif tag == "tbody":
            self._in_head = False
        elif tag == "tr" and not self._in_head:
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if not self.inside:
            return
        if tag == "table":
            self.inside = False
        elif tag in ("td", "th") and self._cell is not None:
            text = " ".join("".join(self._cell).split())
            if self._in_head:
                self.head.append(text)
            elif self.rows:
                self.rows[-1].append(text)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self.inside and self._cell is not None:
            self._cell.append(data)


def shown_verdicts(html: str) -> list[str] | None:
    """The grades a part's claims table shows, in order; ``[]`` without a claims table; ``None`` when its
    claims table has no ``verdict`` column to read them from."""
    table = _ClaimsTable()
    table.feed(html)
    table.close()
    if not table.found:
        return []
    if "verdict" not in table.head:
        return None
    column = table.head.index("verdict")
    return [row[column] if column < len(row) else "" for row in table.rows]


def disagreement(html: str, verdicts: list[str]) -> str | None:
    """How the grades of a kept ``verdicts.json`` differ from those its part shows, or ``None`` when they agree.

    Parameters
    ----------
    html
        The kept part's HTML (already checked by :func:`treebench.report.kept_html.check_kept_html`).
    verdicts
        The claims' grades in the kept ``verdicts.json``, in order.
    """
    shown = shown_verdicts(html)
    if shown is None:
        return "the kept part beside them shows no verdict column to hold them against"
    given = [" ".join(str(v).split()) for v in verdicts]
    if len(shown) != len(given):
        return f"they hold {len(given)} claims where the kept part beside them shows {len(shown)}"
    for number, (mine, theirs) in enumerate(zip(given, shown, strict=True), 1):
        if mine != theirs:
            return (f"they grade claim {number} {mine[:40]!r} where the kept part beside them shows "
                    f"{theirs[:40]!r}")
    return None
