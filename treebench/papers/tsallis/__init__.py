"""Paper 002: Wang, Song & Xia, Tsallis entropy split criteria.

* ``paper.yaml`` (a paper folder, :mod:`treebench.papers.folder`) — Table II's claims, figures, datasets, readings;
* :mod:`~treebench.papers.tsallis.sections` — the section ``paper.yaml`` names (Fig. 1);
* :mod:`~treebench.papers.tsallis.q_sweep` — Fig. 1: accuracy and tree size on a fine q grid.
"""
