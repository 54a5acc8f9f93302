"""Hostile plugins, estimators and configs shared by ``tests/test_bad_inputs_surfaces*.py`` (issue 29).

Each plugin is the text of a ``.py`` file a case writes into its folder; the
criteria score like Gini but break one rule of the criterion interface
(``docs/criteria.md``, "The interface").
"""

from __future__ import annotations

import textwrap

_HEAD = """
import sys
import numpy as np
from treebench.criteria import Criterion, register


def gini(counts):
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    return 1.0 - (p * p).sum(axis=-1)


def decrease(parent, children):
    children = np.asarray(children, dtype=float)
    sizes = children.sum(axis=2)
    return gini(parent) - (sizes / sizes.sum(axis=1, keepdims=True) * gini(children)).sum(axis=1)


@register
class Broken(Criterion):
    name = "broken"

    def node_value(self, counts):
        return {node}

    def split_scores(self, parent, children, context=None):
        scores = decrease(parent, children)
        return {scores}
"""


def criterion_plugin(node: str = "float(gini(counts))", scores: str = "scores", extra: str = "") -> str:
    """A plugin registering ``broken``: ``node`` / ``scores`` are the returned expressions."""
    return _HEAD.format(node=node, scores=scores) + textwrap.dedent(extra)


GOOD_PLUGIN = criterion_plugin()
NAN_NODE = criterion_plugin(node="float('nan')")
INF_NODE = criterion_plugin(node="float('inf')")
STR_NODE = criterion_plugin(node="'high'")
ARRAY_NODE = criterion_plugin(node="np.array([0.1, 0.2])")
NAN_SCORES = criterion_plugin(scores="np.full_like(scores, np.nan)")
INF_SCORES = criterion_plugin(scores="np.where(np.arange(scores.size) == 0, np.inf, scores)")
FEW_SCORES = criterion_plugin(scores="scores[:-1]")
MANY_SCORES = criterion_plugin(scores="np.append(scores, 0.5)")
SCALAR_SCORE = criterion_plugin(scores="float(scores.max())")
STRING_SCORES = criterion_plugin(scores="'good'")
COLUMN_SCORES = criterion_plugin(scores="scores[:, None]")
NONE_SCORES = criterion_plugin(scores="None")
OBJECT_SCORES = criterion_plugin(scores="[None] * scores.size")
EXIT_IN_SCORES = criterion_plugin(scores="sys.exit(0)")
RAISE_IN_SCORES = criterion_plugin(scores="scores[scores.size + 5]")
BAD_CANDIDATES = criterion_plugin().replace(
    "        return scores\n",
    "        return scores\n\n    def candidate_scores(self, parent, children, context=None):\n"
    "        return np.zeros(len(children) + 2)\n",
)
NAN_TIES = criterion_plugin().replace(
    "        return scores\n",
    "        return scores\n\n    def tie_scores(self, parent, children, context=None):\n"
    "        return np.full(len(children), np.nan)\n",
)

EXIT0_IMPORT = "import sys\nsys.exit(0)\n"
EXIT3_IMPORT = "import sys\nsys.exit(3)\n"
KEYBOARD_IMPORT = "raise KeyboardInterrupt\n"
RAISE_IMPORT = "raise RuntimeError('plugin setup failed')\n"
SYNTAX_ERROR = "def broken(:\n    pass\n"

_IMPURITY = """
import numpy as np
from numba import njit
from treebench.criteria import register
from treebench.criteria.plugins import ImpurityCriterion


@njit
def impurity(counts, params):
    total = counts.sum()
    if total == 0.0:
        return 0.0
    g = 1.0
    for c in counts:
        g -= (c / total) ** 2
    {line}
    return g


@register
class BrokenFast(ImpurityCriterion):
    name = "broken_fast"
    impurity = staticmethod(impurity)
"""
IMPURITY_GOOD = _IMPURITY.format(line="")
IMPURITY_NAN = _IMPURITY.format(line="if total < 40.0:\n        return np.nan")
IMPURITY_INF = _IMPURITY.format(line="if g == 0.0:\n        return np.inf")
IMPURITY_ROOT_NAN = _IMPURITY.format(line="return np.nan")

ESTIMATORS = """
import sys
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.tree import DecisionTreeClassifier


class Base(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.tree_model_ = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
        return self

    def predict(self, X):
        return self.tree_model_.predict(X)

    def predict_proba(self, X):
        return self.tree_model_.predict_proba(X)


class Good(Base):
    pass


class OneLabel(Base):
    def predict(self, X):
        return self.classes_[0]


class Column(Base):
    def predict(self, X):
        return super().predict(X)[:, None]


class Unknown(Base):
    def predict(self, X):
        return np.full(len(X), 99)


class TooMany(Base):
    def predict(self, X):
        return np.append(super().predict(X), self.classes_[0])


class Words(Base):
    def predict(self, X):
        return np.array(["setosa"] * len(X))


class NaNs(Base):
    def predict(self, X):
        return np.full(len(X), np.nan)


class UnnormalisedProba(Base):
    def predict_proba(self, X):
        return 0.5 * super().predict_proba(X)


class NegativeProba(Base):
    def predict_proba(self, X):
        p = super().predict_proba(X).copy()
        p[:, 0] -= 0.5
        p[:, 1] += 0.5
        return p


class ExitInFit(Base):
    def fit(self, X, y):
        sys.exit(0)


class ExitInPredict(Base):
    def predict(self, X):
        sys.exit(0)


def make_exit():
    sys.exit(0)


def make_good():
    return Good()
"""

#: A small run: iris, 2-fold CV, one algorithm (``{algorithm}``), maybe plugins.
RUN_CONFIG = (
    "experiment: hostile\nseed: 0\ndatasets: [iris]\n{plugins}"
    "protocol: {{type: cv, folds: 2, repeats: 1}}\n"
    "algorithms:\n  - {algorithm}\n"
)


def run_config(algorithm: str, plugins: str = "") -> str:
    """A config text running ``algorithm`` (a YAML flow mapping) with ``plugins: [...]``."""
    return RUN_CONFIG.format(algorithm=algorithm, plugins=f"plugins: [{plugins}]\n" if plugins else "")


def criterion_config(plugin: str = "p.py", criterion: str = "broken") -> str:
    return run_config(f"{{name: x, criterion: {criterion}, params: {{max_depth: 3}}}}", plugin)


def estimator_config(estimator: str) -> str:
    return run_config(f"{{name: est, baseline: sklearn, estimator: {estimator}}}")
