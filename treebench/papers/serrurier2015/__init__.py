"""Paper 000: Serrurier & Prade, possibilistic cumulative entropy (ICML 2015).

* ``paper.yaml`` (a paper folder, :mod:`treebench.papers.folder`) — Table 1's claims, figures and readings;
* :mod:`~treebench.papers.serrurier2015.sections` — the three sections ``paper.yaml`` names;
* :mod:`~treebench.papers.serrurier2015.random_trees` — the random-tree experiment behind Figs. 2-3;
* :mod:`~treebench.papers.serrurier2015.figures` — Figs. 2-3 drawn and checked, the report section;
* :mod:`~treebench.papers.serrurier2015.figure_claims` — Figs. 2-3's four statements as graded claims;
* :mod:`~treebench.papers.serrurier2015.sizes` and :mod:`~treebench.papers.serrurier2015.size_claims` — Fig. 4's
  size statements (``paper.yaml``'s ``claims`` is the inventory of every results statement of the text).
"""
