"""Paper 004: Denœux & Skarstein Bjanger, belief-function trees from partially classified data.

* :mod:`~treebench.papers.belief.spec` — Table 1's claims (:data:`SPEC`);
* :mod:`~treebench.papers.belief.tables` — crisp vs uncertain labels, belief vs entropy and C4.5, on public data.
"""
