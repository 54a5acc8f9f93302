"""The catalogue of reproduced papers: key -> :class:`~treebench.report.spec.PaperSpec`.

Adding a paper = a folder ``treebench/papers/<key>/`` whose ``spec.py`` defines
``SPEC``, one line below, its config ``configs/<key>.yaml`` and its reference
table in ``results/reference``.
"""

from __future__ import annotations

from treebench.errors import one_of
from treebench.papers.belief.spec import SPEC as BELIEF
from treebench.papers.certainty.spec import SPEC as CERTAINTY
from treebench.papers.mee.spec import SPEC as MEE
from treebench.papers.serrurier2015.spec import SPEC as SERRURIER2015
from treebench.papers.tsallis.spec import SPEC as TSALLIS
from treebench.report.spec import PaperSpec

#: Every paper by key, in the order of their numbers.
PAPERS: dict[str, PaperSpec] = {spec.key: spec for spec in (SERRURIER2015, MEE, TSALLIS, CERTAINTY, BELIEF)}


def get_paper(name: str) -> PaperSpec:
    """The paper called ``name`` (its key or an alias).

    Raises
    ------
    TreebenchError
        Unknown name; the message lists the keys.
    """
    for spec in PAPERS.values():
        if name == spec.key or name in spec.aliases:
            return spec
    raise one_of(name, tuple(PAPERS), "paper")
