"""Paper 001: Marques de Sá, Gama, Sebastião & Alexandre, minimum entropy-of-error trees.

* ``paper.yaml`` (a paper folder, :mod:`treebench.papers.folder`) — the claims inventory, datasets, readings;
* :mod:`~treebench.papers.mee.builders` — the section ``paper.yaml`` names (``builders:mee``);
* :mod:`~treebench.papers.mee.sections` — the generalisation measure R, Fig. 5, Fig. 1 and section 4.
"""
