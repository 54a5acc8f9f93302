"""Paper 003: Peñate-Díaz, certainty vs entropy.

* :mod:`~treebench.papers.certainty.spec` — the error-count claims against C5.0 (:data:`SPEC`);
* :mod:`~treebench.papers.certainty.error_counts` — the report's error-count section;
* :mod:`~treebench.papers.certainty.inequality` — the certainty-raising inequality as tables and a plot;
* :mod:`~treebench.papers.certainty.cli` — ``treebench certainty DATASET``.
"""
