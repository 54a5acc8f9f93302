"""Tree structure, induction (compiled and generic) and the estimator."""

from __future__ import annotations

from treebench.trees.builder import GrowSettings, Presorted, grow
from treebench.trees.estimator import TreeClassifier
from treebench.trees.online import OnlineTreeClassifier
from treebench.trees.structure import Tree

__all__ = ["GrowSettings", "OnlineTreeClassifier", "Presorted", "Tree", "TreeClassifier", "grow"]
