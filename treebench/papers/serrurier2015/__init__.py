"""Paper 000: Serrurier & Prade, possibilistic cumulative entropy (ICML 2015).

* :mod:`~treebench.papers.serrurier2015.spec` — Table 1's claims and figures (:data:`SPEC`);
* :mod:`~treebench.papers.serrurier2015.random_trees` — the random-tree experiment behind Figs. 2-3;
* :mod:`~treebench.papers.serrurier2015.figures` — Figs. 2-3 drawn and checked, the report section.
"""
