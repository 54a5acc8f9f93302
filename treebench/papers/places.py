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
#: The LaTeX report, whose first ``\section*`` names its paper (``\section*{Reproduction of paper NNN (KEY)}``).
REPORT_TEX = "report.tex"
#: How a Markdown report's first line names its paper.
_REPORT_HEADING = re.compile(r"# Reproduction of paper (\S+) \((.+)\)\s*$")
#: How the LaTeX report's heading names its paper (its key LaTeX-escaped: ``\_`` for ``_``).
_TEX_HEADING = re.compile(r"\\section\*\{Reproduction of paper (\S+) \((.+)\)\}\s*$")
#: How far into ``report.tex`` its heading is looked for (the template writes it on line 9, after
#: the preamble): lines, then characters per line.
_TEX_HEAD_LINES, _LINE_CHARS = 40, 400
#: What marks an ``index.html`` as a reproductions' page, each where the page template writes it (a
#: page that merely quotes them elsewhere is no such page): the generator tag, a line of its own in
#: the head (pages carry it since it was added), or the opening sentence, the body's first paragraph
#: after the title (every such page has it, older ones too).
PAGE_MARKS = ('<meta name="generator" content="treebench reproduce"',
              "Paper values are the published ones; every other number was computed by treebench")
_PAGE_TAG = re.compile(r"^" + re.escape(PAGE_MARKS[0]) + r">\s*$", re.MULTILINE)
_PAGE_SENTENCE = re.compile(r"^<h1>[^<\n]*</h1>\r?\n<p>\d+ papers; built [^<\n]* by treebench [^<\n]*\. "
                            + re.escape(PAGE_MARKS[1]), re.MULTILINE)
#: How much of a page is read to find its marks (the template writes them in its first lines).
_PAGE_HEAD = 65536


def check_no_other_paper(folder: Path, spec: PaperSpec, what: str) -> None:
    """Refuse ``folder`` when a file of it names another paper than ``spec`` (:func:`papers_named`).

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
    from treebench.report.site import other_paper

    for path, number, key in papers_named(folder):
        mismatch = other_paper(number, key, spec)
        if mismatch:
            raise TreebenchError(f"{what}: {str(path)!r} {mismatch}: that folder holds another paper's report, "
                                 f"which writing {spec.key}'s there would replace; accepted: a new or empty folder, "
                                 f"or one holding {spec.key}'s own report")


def papers_named(folder: Path) -> list[tuple[Path, object, object]]:
    """Every file of a report folder that names the paper it belongs to: (file, number, key).

    The kept part (``section.json``: its ``paper``/``key``, or an older part's config), the
    verdicts (``verdicts.json``), ``report.md``'s first line and ``report.tex``'s heading; a file
    that names no paper (or cannot be read: the page's own checks name it) is left out.  The
    figures (PNG, SVG) name no paper and are not recognised.
    """
    from treebench.papers.reproduce import _section_paper
    from treebench.report.site import read_kept_json

    found = []
    for name, label in (*RECORDS, (REPORT_MD, "report"), (REPORT_TEX, "LaTeX report")):
        path = Path(folder) / name
        if not path.is_file():
            continue
        if name == REPORT_MD:  # a folder copied without its JSON parts still names its paper here
            number, key = report_paper(path)
        elif name == REPORT_TEX:  # ... and so does the .tex copied alone (with its figures) for LaTeX
            number, key = tex_report_paper(path)
        else:
            doc, _ = read_kept_json(path, f"the {label}")
            if not isinstance(doc, dict):
                continue
            number, key = _section_paper(doc) if name == "section.json" else (doc.get("paper"), doc.get("key"))
        if number is not None or key is not None:
            found.append((path, number, key))
    return found


def report_paper(path: Path) -> tuple[str | None, str | None]:
    """The paper number and key a ``report.md`` names on its first line, or ``(None, None)``.

    Only a first line in the form the report writes counts: a hand-written file, or one that
    cannot be read, says nothing about whose it is.
    """
    try:  # utf-8-sig: an editor may have saved it with a byte-order mark; \s*$ takes a CRLF ending
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            first = handle.readline(_LINE_CHARS)
    except OSError:
        return None, None
    found = _REPORT_HEADING.match(first)
    return (found.group(1), found.group(2)) if found else (None, None)


def tex_report_paper(path: Path) -> tuple[str | None, str | None]:
    """The paper number and key a ``report.tex`` names in its heading, or ``(None, None)``.

    The heading is the document's first ``\\section*`` line, in the first :data:`_TEX_HEAD_LINES`
    lines (where the template writes it); a hand-written file, another heading first, or a file
    that cannot be read says nothing about whose it is.
    """
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            for _ in range(_TEX_HEAD_LINES):
                line = handle.readline(_LINE_CHARS)
                if not line:
                    break
                if line.startswith("\\section"):
                    found = _TEX_HEADING.match(line)
                    if not found:
                        break
                    # the template escapes the key for LaTeX (\_ for _): undone to compare with the spec's
                    return found.group(1), re.sub(r"\\([_&%$#{}])", r"\1", found.group(2))
    except OSError:
        pass
    return None, None


def check_page_is_ours(page: Path, what: str) -> None:
    """Refuse to replace an ``index.html`` that is no reproductions' page (a site's own front page, say).

    ``reproduce`` rewrites the page beside the papers' folders; a page it did not write is a
    user's file that would be lost.  A page is recognised by :data:`PAGE_MARKS` where the template
    writes them, in its first 64 kB: the generator tag on a line of its own before the body, or the
    opening sentence as the paragraph right after the title.  A link in the page's place is refused
    too (the page would replace the link by a file, whatever it points to); a folder there is left
    to the place checks, which name it.
    """
    page = Path(page)
    if page.is_symlink():
        raise TreebenchError(f"{what}: {str(page)!r} is a symbolic link, which the reproductions' page would "
                             "replace by a file; accepted: a folder without an index.html, or one whose index.html "
                             "is a reproductions' page as a file (remove the link, or give another --out-dir)")
    if not page.is_file():
        return
    try:
        with open(page, encoding="utf-8-sig", errors="replace") as handle:
            head = handle.read(_PAGE_HEAD)
    except OSError:
        return  # unreadable: the place checks say whether it can be written
    before_body = head.split("<body", 1)[0]
    if not (_PAGE_TAG.search(before_body) or _PAGE_SENTENCE.search(head)):
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
