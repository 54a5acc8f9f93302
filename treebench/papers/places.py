"""Whose files a reproduction's output folder already holds: checked before ``reproduce`` writes a byte.

``reproduce PAPER --out-dir DIR`` writes the paper's report, verdicts and kept
part into ``DIR``, and a paper's folder is often the only copy of its last good
report (a paper whose store is gone is shown from it).  ``reproduce --all``
writes ``index.html`` into its folder, the name a leaderboard's page has.  So a
folder holding another paper's report, or a leaderboard, is refused, as a board
refuses a folder holding a page that is no board's
(:func:`treebench.leaderboard.run.check_inputs_outside`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from treebench.errors import TreebenchError

if TYPE_CHECKING:
    from treebench.report.spec import PaperSpec

#: The kept files that record which paper a report folder belongs to, with how messages name them.
RECORDS = (("section.json", "kept part"), ("verdicts.json", "verdicts"))
#: The files that make a folder a leaderboard's (its results store, its run lock).
BOARD_FILES = ("leaderboard.sqlite", ".leaderboard.lock")
#: The report whose first line names its paper (``# Reproduction of paper NNN (KEY)``).
REPORT_MD = "report.md"
#: How a Markdown report's first line names its paper.
_REPORT_HEADING = re.compile(r"# Reproduction of paper (\S+) \((.+)\)\s*$")
#: What marks an ``index.html`` as a reproductions' page: the generator tag pages carry since it was
#: added, or the sentence every such page has opened with (pages written before the tag).
PAGE_MARKS = ('<meta name="generator" content="treebench reproduce"',
              "Paper values are the published ones; every other number was computed by treebench")


def check_no_other_paper(folder: Path, spec: PaperSpec, what: str) -> None:
    """Refuse ``folder`` when its ``section.json`` or ``verdicts.json`` records another paper than ``spec``.

    Writing ``spec``'s report there would replace that paper's kept report without a word.  A
    file that cannot be read says nothing about whose it is and is left to the page's own checks
    (it is named there); a field a file does not record is no evidence either
    (:func:`~treebench.report.site.other_paper`).

    Parameters
    ----------
    folder
        The paper's output folder (``--out-dir``; may not exist).
    spec
        The paper about to be written there.
    what
        How the message names the folder, e.g. ``"--out-dir 'results/tsallis'"``.
    """
    from treebench.papers.reproduce import _section_paper
    from treebench.report.site import other_paper, read_kept_json

    for name, label in (*RECORDS, (REPORT_MD, "report")):
        path = Path(folder) / name
        if not path.is_file():
            continue
        if name == REPORT_MD:  # a folder copied without its JSON parts still names its paper here
            number, key = report_paper(path)
        else:
            doc, _ = read_kept_json(path, f"the {label}")
            if not isinstance(doc, dict):
                continue
            number, key = _section_paper(doc) if name == "section.json" else (doc.get("paper"), doc.get("key"))
        mismatch = other_paper(number, key, spec)
        if mismatch:
            raise TreebenchError(f"{what}: {str(path)!r} {mismatch}: that folder holds another paper's report, "
                                 f"which writing {spec.key}'s there would replace; accepted: a new or empty folder, "
                                 f"or one holding {spec.key}'s own report")


def report_paper(path: Path) -> tuple[str | None, str | None]:
    """The paper number and key a ``report.md`` names on its first line, or ``(None, None)``.

    Only a first line in the form the report writes counts: a hand-written file, or one that
    cannot be read, says nothing about whose it is.
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = handle.readline(400)
    except OSError:
        return None, None
    found = _REPORT_HEADING.match(first)
    return (found.group(1), found.group(2)) if found else (None, None)


def check_page_is_ours(page: Path, what: str) -> None:
    """Refuse to replace an ``index.html`` that is no reproductions' page (a site's own front page, say).

    ``reproduce`` rewrites the page beside the papers' folders; a page it did not write is a
    user's file that would be lost.  A page is recognised by :data:`PAGE_MARKS` in its first
    64 kB; a folder or link in the page's place is left to the place checks, which name it.
    """
    page = Path(page)
    if not page.is_file() or page.is_symlink():
        return
    try:
        with open(page, encoding="utf-8", errors="replace") as handle:
            head = handle.read(65536)
    except OSError:
        return  # unreadable: the place checks say whether it can be written
    if not any(mark in head for mark in PAGE_MARKS):
        raise TreebenchError(f"{what}: {str(page)!r} is no page treebench reproduce wrote, and the reproductions' "
                             "page would replace it; accepted: a folder without an index.html, or one whose "
                             "index.html is a reproductions' page (move the file, or give another --out-dir)")


def check_no_board(folder: Path, what: str) -> None:
    """Refuse a ``folder`` that is a leaderboard's (it holds a board's store or lock).

    The reproductions' page would replace the board's ``index.html``, and a paper's report its
    figures (papers 000 and 002 draw ``cd.png``, as a board does), leaving the board's tables
    beside files that no longer describe them.
    """
    found = [name for name in BOARD_FILES if Path(folder, name).exists() or Path(folder, name).is_symlink()]
    if found:
        raise TreebenchError(f"{what}: {str(folder)!r} holds a leaderboard ({', '.join(found)}), whose page and "
                             "figures (index.html, cd.png) a reproduction written there would replace; accepted: "
                             "a folder that holds no leaderboard (e.g. results)")
