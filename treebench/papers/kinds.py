"""The built-in papers' own claim kinds, registered by name for their ``paper.yaml``.

The generic kinds (``fewer``, ``folds``, ``wilcoxon``, ...) register
themselves in :mod:`treebench.report.claims`; a paper's own kinds in the
module that defines them (``@claim_kind("rate_below")``).  Importing this
module imports those modules, so that every kind is known before a paper
folder is read (:func:`treebench.papers.folder.load_paper_folder`).  A paper
folder outside the package registers its own kinds in its ``sections.py``.
"""

from __future__ import annotations

import importlib

from treebench.report.registry import CLAIM_KINDS

#: The modules of :mod:`treebench.papers` that define claim kinds.
KIND_MODULES = (
    "treebench.report.claims",
    "treebench.papers.serrurier2015.size_claims",
    "treebench.papers.serrurier2015.figure_claims",
    "treebench.papers.serrurier2015.sizes",
    "treebench.papers.mee.claims",
    "treebench.papers.tsallis.claims",
    "treebench.papers.certainty.claims",
)


def load_kinds() -> list[str]:
    """Import every module of :data:`KIND_MODULES`; return the registered claim kind names."""
    for module in KIND_MODULES:
        importlib.import_module(module)
    return CLAIM_KINDS.names()
