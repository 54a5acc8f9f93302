"""A report section beyond the published table, already rendered in Markdown and LaTeX.

The builders that make sections are part of a paper's spec
(:class:`treebench.report.spec.SectionBuilder`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Section:
    """One section of a reproduction report, already rendered.

    Attributes
    ----------
    title
        The heading (``## title`` in Markdown, ``\\subsection*`` in LaTeX).
    markdown, latex
        The body, one list item per line, in each output format.
    figures
        Files the section wrote (its figures), for the caller to list.
    notes
        Remarks for the report's "Notes" list.
    """

    title: str
    markdown: list[str]
    latex: list[str]
    figures: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
