"""The code shown in the docs runs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from sklearn.datasets import load_iris

from treebench import TreeClassifier, criteria

DOCS = Path(__file__).resolve().parents[1] / "docs"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_the_one_file_criterion_example_works():
    definition = python_blocks(DOCS / "criteria.md")[0]
    if "misclassification" not in criteria.available():
        exec(compile(definition, "docs/criteria.md", "exec"), {})
    X, y = load_iris(return_X_y=True)
    model = TreeClassifier("misclassification", floor=0.1, max_depth=3).fit(X, y)
    assert model.score(X, y) > 0.9
    assert criteria.get("misclassification").node_value(np.array([3, 1])) == 0.25
