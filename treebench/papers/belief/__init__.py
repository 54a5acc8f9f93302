"""Paper 004: Denœux & Skarstein Bjanger, belief-function trees from partially classified data.

* ``paper.yaml`` (a paper folder, :mod:`treebench.papers.folder`) — Table 1's claims, datasets and readings;
* :mod:`~treebench.papers.belief.sections` — the section ``paper.yaml`` names;
* :mod:`~treebench.papers.belief.tables` — crisp vs uncertain labels, belief vs entropy and C4.5, on public data.
"""
