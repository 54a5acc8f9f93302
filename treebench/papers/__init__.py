"""The reproduced papers: one subpackage per paper, and the command that reruns them.

* :mod:`treebench.papers.catalogue` — :data:`PAPERS` and :func:`get_paper`;
* :mod:`treebench.papers.reproduce` — run a paper's config and write its report;
* :mod:`treebench.papers.cli` — ``treebench reproduce PAPER`` (or ``--all``);
* :mod:`treebench.papers.folder` — a paper folder (``paper.yaml``) read into a spec;
* one subpackage per paper, each with a ``spec.py`` or a ``paper.yaml``
  (its reference table, claims, tolerances, figures and extra sections)
  and the code only that paper needs: :mod:`~treebench.papers.serrurier2015` (000),
  :mod:`~treebench.papers.mee` (001), :mod:`~treebench.papers.tsallis` (002),
  :mod:`~treebench.papers.certainty` (003, also ``treebench certainty``),
  :mod:`~treebench.papers.belief` (004).

The generic machinery (claim kinds, sections, the report builder) is in
:mod:`treebench.report`, which never imports this package.  See ``docs/reports.md``.
"""

from __future__ import annotations

from treebench.lazy import lazy_getattr

__all__ = ["PAPERS", "get_paper"]

# Lazy: `treebench --help` imports the papers' command modules, which must not
# load the specs (and with them pandas).
__getattr__ = lazy_getattr("treebench.papers", {
    "PAPERS": "treebench.papers.catalogue",
    "get_paper": "treebench.papers.catalogue",
})
