"""The catalogued papers as a listing: ``treebench papers list`` and ``python -m treebench.papers.listing --keys``.

The Makefile's ``PAPERS`` (the ``reproduce-KEY`` targets) is ``--keys``'s output, so a paper added
to the catalogue (a folder under ``treebench/papers/``) gets its target without typing its key again.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The listing's columns.
COLUMNS = ("key", "number", "aliases", "citation", "folder")
#: The longest citation shown (the rest is cut at a word, with an ellipsis).
CITATION_CHARS = 60


def _short(text: str, width: int = CITATION_CHARS) -> str:
    """``text`` on one line, cut at a word to ``width`` characters."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    return text[: width - 1].rsplit(" ", 1)[0] + "…"


def _folder(spec: object) -> str:
    """Where the paper lives: its folder relative to the package's parent (the checkout), else as stored."""
    import treebench

    folder = getattr(spec, "folder", "") or ""
    if not folder:  # a paper defined in Python (spec.py), until it is converted
        key = getattr(spec, "key", "")
        folder = str(Path(treebench.__file__).resolve().parent / "papers" / key)
    root = Path(treebench.__file__).resolve().parent.parent
    try:
        return Path(folder).resolve().relative_to(root).as_posix()
    except ValueError:
        return folder


def rows() -> list[list[str]]:
    """One row per catalogued paper, in the order of their numbers: :data:`COLUMNS`."""
    from treebench.papers.catalogue import PAPERS

    return [[spec.key, spec.number, ", ".join(spec.aliases) or "-", _short(spec.authors or spec.citation),
             _folder(spec)] for spec in PAPERS.values()]


def table(body: list[list[str]]) -> str:
    """``body`` under :data:`COLUMNS`, as an aligned plain-text table."""
    from treebench.text_table import format_table

    return format_table(COLUMNS, body)


def keys() -> list[str]:
    """The catalogued papers' keys, in the order of their numbers."""
    from treebench.papers.catalogue import PAPERS

    return list(PAPERS)


def main(argv: list[str] | None = None) -> int:
    """``--keys``: the keys on one line (for the Makefile); nothing: the listing."""
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["--keys"]):
        print(f"usage: python -m treebench.papers.listing [--keys]; got {' '.join(args)}", file=sys.stderr)
        return 2
    print(" ".join(keys()) if args else table(rows()))
    return 0


if __name__ == "__main__":  # pragma: no cover - the Makefile's entry point
    raise SystemExit(main())
