"""The criteria leaderboard: every split criterion on one broad suite, one store, one page.

* :mod:`treebench.leaderboard.suite` — which datasets (bundled, an OpenML suite, a file) and
  their meta-features.
* :mod:`treebench.leaderboard.catalogue` — which algorithms, their documented grids, and on
  which datasets each applies.
* :mod:`treebench.leaderboard.plan` — the generated experiment configs (one per
  applicability group, all into one store).
* :mod:`treebench.leaderboard.board` — the tables and statistics, computed from the store.
* :mod:`treebench.leaderboard.figures`, :mod:`treebench.leaderboard.page` — plots and the
  ``leaderboard.md`` / ``.csv`` / ``pairwise.csv`` / ``index.html`` outputs.
* :mod:`treebench.leaderboard.cli` — ``treebench leaderboard``.

See ``docs/leaderboard.md``.
"""
