"""Paper 001: Marques de Sá, Gama, Sebastião & Alexandre, minimum entropy-of-error trees.

* :mod:`~treebench.papers.mee.spec` — Table 2's claim (:data:`SPEC`);
* :mod:`~treebench.papers.mee.sections` — the generalisation measure R, Fig. 5, Fig. 1 and section 4.
"""
