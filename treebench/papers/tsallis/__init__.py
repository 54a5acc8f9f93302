"""Paper 002: Wang, Song & Xia, Tsallis entropy split criteria.

* :mod:`~treebench.papers.tsallis.spec` — Table II's claims and figures (:data:`SPEC`);
* :mod:`~treebench.papers.tsallis.q_sweep` — Fig. 1: accuracy and tree size on a fine q grid.
"""
