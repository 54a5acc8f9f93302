"""Tables, plots and reproduction reports built from a tidy results frame.

Generic: nothing here names a particular paper.  The papers themselves (their
specs, claims and extra sections) are in :mod:`treebench.papers`, a layer above.

* :mod:`treebench.report.table` — the comparison table model (``treebench compare``).
* :mod:`treebench.report.formats` — Markdown, LaTeX, CSV and HTML renderers.
* :mod:`treebench.report.plots` — leaves bars, hyperparameter curves (PNG/SVG).
* :mod:`treebench.report.figures` — the shared matplotlib set-up (PNG + SVG).
* :mod:`treebench.report.cd_diagram` — critical-difference diagrams.
* :mod:`treebench.report.reference` — published numbers (``results/reference``) as a frame.
* :mod:`treebench.report.spec` — :class:`PaperSpec` and :class:`Figure`: what a paper publishes.
* :mod:`treebench.report.claims` — claim kinds that recompute a conclusion (Wilcoxon, one-way, ...).
* :mod:`treebench.report.cells` — published cells lined up with the rerun's values.
* :mod:`treebench.report.sections` — extra report sections and their named builders.
* :mod:`treebench.report.reproduce` — the cell-by-cell reproduction report (Markdown, LaTeX).
* :mod:`treebench.report.source` — resolve a store or config path to a frame.
* :mod:`treebench.report.cli` — the ``compare`` and ``plot`` commands.

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
