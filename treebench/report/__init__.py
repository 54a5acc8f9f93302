"""Tables, plots and reproduction reports built from a tidy results frame.

* :mod:`treebench.report.table` — the comparison table model (``treebench compare``).
* :mod:`treebench.report.formats` — Markdown, LaTeX, CSV and HTML renderers.
* :mod:`treebench.report.plots` — leaves bars, hyperparameter curves (PNG/SVG).
* :mod:`treebench.report.cd_diagram` — critical-difference diagrams.
* :mod:`treebench.report.reference` — the papers' published numbers (``results/reference``).
* :mod:`treebench.report.papers` — what each paper claims and how to check it.
* :mod:`treebench.report.reproduce` — the cell-by-cell reproduction report.
* :mod:`treebench.report.source` — resolve a store or config path to a frame.
* :mod:`treebench.report.cli` — the ``compare``, ``plot`` and ``reproduce`` commands.

See ``docs/reports.md``.
"""

from __future__ import annotations

from treebench.lazy import lazy_getattr

__all__ = ["FORMATS", "TESTS", "ComparisonTable", "build_table", "render"]

# Lazy: `treebench --help` imports treebench.report.cli, which must not pull
# in pandas, scipy or matplotlib.
_LAZY = {
    "FORMATS": "treebench.report.formats",
    "render": "treebench.report.formats",
    "TESTS": "treebench.report.table",
    "ComparisonTable": "treebench.report.table",
    "build_table": "treebench.report.table",
}


__getattr__ = lazy_getattr('treebench.report', _LAZY)
