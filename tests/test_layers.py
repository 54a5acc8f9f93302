"""The package's layering: no import loops, no import from a lower layer to a higher one.

Every ``import`` statement counts, including those inside functions (a
function-level import is still a dependency; it only hides a loop).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "treebench"

#: Lowest first.  A module may import modules of its own layer or lower ones.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "lazy", "console", "sampling", "yamlcheck", "text_table", "outpaths"),
    ("kernels",),
    ("criteria",),
    ("trees",),
    ("data", "stats"),
    ("learners",),
    ("experiment",),
    ("report",),
    ("papers", "leaderboard"),
    ("cli", "demo", "__init__", "__main__"),
)
#: Upward imports allowed by design, as (importer, prefix of the imported): the generated dispatch
#: of the kernels calls the compiled functions of the built-in criterion modules (one module holds
#: a criterion's formula, its compiled scoring and its class; see treebench/kernels/dispatch.py).
UPWARD_ALLOWED = (("treebench.kernels.dispatch", "treebench.criteria.builtin."),)
#: Generic layers: no module here may name a paper or a paper's criterion.
GENERIC = ("experiment", "stats", "data", "report")
PAPER_WORDS = re.compile(r"mee|belief|possibilistic|tsallis|certainty|pignistic|serrurier", re.IGNORECASE)
#: Words that only contain a paper word's letters.
HARMLESS = re.compile(r"meet|measure|agreement|refereed|uncertain|RuntimeError", re.IGNORECASE)


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _layer(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    for rank, names in enumerate(LAYERS):
        if top in names:
            return rank
    raise AssertionError(f"module {module} is in no layer of tests/test_layers.py: add it to LAYERS")


def _imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The treebench modules ``module`` imports (``from pkg import sub`` resolves to the submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name.startswith("treebench") and name != module:
                found.add(name)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    known = _modules()
    return {module: _imports(module, path, known) for module, path in known.items()}


def test_every_module_has_a_layer(graph):
    for module in graph:
        _layer(module)


def test_no_import_runs_up_a_layer(graph):
    upward = [
        f"{a} -> {b}"
        for a, targets in graph.items()
        for b in targets
        if b != "treebench" and _layer(b) > _layer(a)
        and not any(a == importer and b.startswith(prefix) for importer, prefix in UPWARD_ALLOWED)
    ]
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(sorted(upward))


def test_no_import_loop(graph):
    # a package's __init__ importing its own submodules (a lazy face) is not a loop of files
    edges = {a: {b for b in t if not a.startswith(b + ".") and b != "treebench"} for a, t in graph.items()}
    state: dict[str, int] = {}
    loops: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                loops.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    assert not loops, "import loops:\n" + "\n".join(" -> ".join(loop) for loop in loops)


def test_generic_layers_name_no_paper():
    found = []
    for package in GENERIC:
        for path in (PACKAGE / package).rglob("*.py"):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if PAPER_WORDS.search(HARMLESS.sub("", line)):
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert not found, "generic modules naming a paper or its criterion:\n" + "\n".join(found)


def test_command_line_start_up_imports_no_heavy_library():
    """`treebench --help` loads the command groups only: no numba, pandas, scipy, matplotlib or scikit-learn."""
    import subprocess
    import sys

    code = (
        "import sys; from treebench.cli import cli; "
        "print(sorted(m for m in ('numba', 'pandas', 'scipy', 'matplotlib', 'sklearn') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
