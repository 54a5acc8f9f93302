"""The catalogue of reproduced papers: key -> :class:`~treebench.report.spec.PaperSpec`.

A paper is a folder ``treebench/papers/<name>/``: either a paper folder of
data (``paper.yaml`` and friends, :mod:`treebench.papers.folder`; found
here by itself), or, until it is converted, a ``spec.py`` defining ``SPEC``
and imported below.  Its config is ``configs/<key>.yaml`` (or what its
``paper.yaml`` names) and its reference table in ``results/reference`` (or
the folder's ``reference/``).  ``treebench reproduce PATH`` also takes a
paper folder anywhere on disk (:func:`paper_from_argument`).
"""

from __future__ import annotations

from pathlib import Path

from treebench.errors import TreebenchError, one_of
from treebench.papers.certainty.spec import SPEC as CERTAINTY
from treebench.papers.folder import PAPER_FILE, is_paper_folder, load_paper_folder
from treebench.papers.mee.spec import SPEC as MEE
from treebench.papers.serrurier2015.spec import SPEC as SERRURIER2015
from treebench.papers.tsallis.spec import SPEC as TSALLIS
from treebench.report.spec import PaperSpec

#: The folder of the built-in papers.
PAPERS_DIR = Path(__file__).resolve().parent


def folder_papers(root: Path = PAPERS_DIR) -> list[PaperSpec]:
    """Every paper folder directly under ``root`` (a subfolder holding ``paper.yaml``), loaded."""
    return [load_paper_folder(sub) for sub in sorted(root.iterdir()) if is_paper_folder(sub)]


def _catalogue(specs: list[PaperSpec]) -> dict[str, PaperSpec]:
    """Key -> spec in the order of the papers' numbers; two papers with one key or number are refused."""
    out: dict[str, PaperSpec] = {}
    for spec in sorted(specs, key=lambda s: s.number):
        if spec.key in out or any(s.number == spec.number for s in out.values()):
            raise TreebenchError(f"two built-in papers share key {spec.key!r} or number {spec.number}")
        out[spec.key] = spec
    return out


#: Every paper by key, in the order of their numbers.
PAPERS: dict[str, PaperSpec] = _catalogue([SERRURIER2015, MEE, TSALLIS, CERTAINTY, *folder_papers()])


def get_paper(name: str) -> PaperSpec:
    """The paper called ``name`` (its key or an alias).

    Raises
    ------
    TreebenchError
        Unknown name; the message lists the keys.
    """
    for spec in PAPERS.values():
        if name == spec.key or name in spec.aliases:
            return spec
    raise one_of(name, tuple(PAPERS), "paper")


def looks_like_path(text: str) -> bool:
    """Whether a PAPER argument names a folder rather than a catalogued paper (a separator, or a folder here)."""
    return "/" in text or "\\" in text or text in (".", "..") or (Path(text).is_dir() and text not in PAPERS)


def paper_from_argument(text: str) -> PaperSpec:
    """The paper a command line names: a paper folder on disk (a path), else a catalogue key or alias.

    Raises
    ------
    TreebenchError
        An unknown name (the keys listed), or a path that is not a paper folder.
    """
    if looks_like_path(text):
        path = Path(text)
        if path.name == PAPER_FILE and path.is_file():  # the folder's paper.yaml named itself
            path = path.parent
        if path.is_dir() and not is_paper_folder(path):
            raise TreebenchError(f"{text!r} holds no {PAPER_FILE}; accepted: a paper folder (docs/papers.md) or "
                                 f"one of {', '.join(PAPERS)}")
        return load_paper_folder(path)
    try:
        return get_paper(text)
    except TreebenchError:
        raise TreebenchError(f"unknown paper {text!r}; accepted: {', '.join(PAPERS)}, or a paper folder's "
                             "path") from None
