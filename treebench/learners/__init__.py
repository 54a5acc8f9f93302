"""Learners: what a trial fits, one module per kind.

* :mod:`treebench.learners.base` — the :class:`Learner` interface and its optional hooks.
* :mod:`treebench.learners.trees` — trees of treebench's builder with one criterion (batch, online).
* :mod:`treebench.learners.mee` — minimum entropy-of-error trees (their own builder).
* :mod:`treebench.learners.belief` — belief-function trees with uncertain labels.
* :mod:`treebench.learners.sklearn_cart` — scikit-learn's CART, and CART pruned by cost-complexity.
* :mod:`treebench.learners.external` — what programs outside Python share (finding, versions,
  parameters, running); :mod:`~treebench.learners.weka` (J48) and :mod:`~treebench.learners.c50`.
* :mod:`treebench.learners.registry` — a config's ``criterion:``/``baseline:`` -> learner.
"""

from __future__ import annotations

from treebench.lazy import lazy_getattr

__all__ = ["Learner", "baseline_class", "make_learner"]

_LAZY = {
    "Learner": "treebench.learners.base",
    "baseline_class": "treebench.learners.registry",
    "make_learner": "treebench.learners.registry",
}

__getattr__ = lazy_getattr("treebench.learners", _LAZY)
