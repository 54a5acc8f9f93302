"""The generic claim kinds, registered by name before a ``paper.yaml`` is read.

The generic kinds (``fewer``, ``folds``, ``wilcoxon``, ...) register
themselves in :mod:`treebench.report.claims`.  A paper's own kinds live in
its folder, in modules its ``paper.yaml`` names under ``modules:``, imported
by the loader before the claims are read
(:meth:`treebench.papers.folder._Reader.modules`), so adding a paper edits
nothing outside its folder.
"""

from __future__ import annotations

import importlib

from treebench.report.registry import CLAIM_KINDS

#: The modules that define the generic claim kinds.
KIND_MODULES = ("treebench.report.claims",)


def load_kinds() -> list[str]:
    """Import every module of :data:`KIND_MODULES`; return the registered claim kind names."""
    for module in KIND_MODULES:
        importlib.import_module(module)
    return CLAIM_KINDS.names()
