"""Paper 003: Peñate-Díaz, certainty vs entropy.

* ``paper.yaml`` (a paper folder, :mod:`treebench.papers.folder`) — the claims against C5.0, datasets, readings;
* :mod:`~treebench.papers.certainty.sections` — the two sections ``paper.yaml`` names;
* :mod:`~treebench.papers.certainty.error_counts` — the report's error-count section;
* :mod:`~treebench.papers.certainty.inequality` — the certainty-raising inequality as tables and a plot;
* :mod:`~treebench.papers.certainty.cli` — ``treebench certainty DATASET``.
"""
