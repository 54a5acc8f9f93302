"""Paper 000: Serrurier & Prade, possibilistic cumulative entropy (ICML 2015).

* :mod:`~treebench.papers.serrurier2015.spec` — Table 1's claims and figures (:data:`SPEC`);
* :mod:`~treebench.papers.serrurier2015.random_trees` — the random-tree experiment behind Figs. 2-3;
* :mod:`~treebench.papers.serrurier2015.figures` — Figs. 2-3 drawn and checked, the report section;
* :mod:`~treebench.papers.serrurier2015.figure_claims` — Figs. 2-3's four statements as graded claims;
* :mod:`~treebench.papers.serrurier2015.sizes` and :mod:`~treebench.papers.serrurier2015.size_claims` — Fig. 4's
  size statements (the spec's ``CLAIMS`` is the inventory of every results statement of the text).
"""
