"""Known causes of a paper's differences from the rerun, kept as data beside the paper.

Each paper folder may hold a ``causes.yaml``: one entry per documented
difference between the paper's setting and the rerun's, with where it is
established, so that a report's calibration and "what differs" lines come
from this registry and from the dataset-shape comparison, never from prose
written into the report::

    causes:
      - dataset: Vehicle                # the paper's label or the card name
        algorithm: o-pitree             # optional: only this algorithm's cells
        metric: accuracy                # optional: only this metric's cells
        kind: misprint                  # one of KINDS
        explains: [rows]                # optional: Table fields the cause accounts for
        text: Table I prints 946 rows; the data has 846.
        source: {kind: text, where: "Table I; datasets/vehicle.yaml"}

:func:`load_causes` reads and checks a file; :class:`Causes` answers per
dataset and per cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from treebench.yamlcheck import Checker, ProblemsError, PureLoader, parse, read_text, value_kind

#: What a cause can be.
KINDS = ("misprint", "id column", "minimum leaf", "file order", "unpublished data", "different file",
         "unstated data", "tie rule", "reading", "not located")
#: Where a cause is established: the paper's own text, a measurement, a sensitivity run.
SOURCE_KINDS = ("text", "measurement", "sensitivity")
#: Shape fields a cause may explain.
FIELDS = ("rows", "features", "classes")
#: The registry's file name in a paper's folder.
FILE_NAME = "causes.yaml"


def _key(name: object) -> str:
    import re

    return re.sub(r"[^a-z0-9]", "", str(name).lower())


@dataclass(frozen=True)
class Cause:
    """One known difference on one dataset (optionally one algorithm's cells)."""

    dataset: str
    kind: str
    text: str
    source_kind: str
    source: str
    algorithm: str = ""
    explains: tuple[str, ...] = ()
    metric: str = ""

    @property
    def shape_only(self) -> bool:
        """A cause of the dataset's shape (it explains rows/features/classes, names no algorithm or metric):
        it belongs to the calibration's "what differs", not to every cell of the dataset."""
        return bool(self.explains) and not self.algorithm and not self.metric

    def line(self) -> str:
        """``kind: text (source kind: where)``."""
        return f"{self.kind}: {self.text} ({self.source_kind}: {self.source})"

    def matches(self, *names: object, algorithm: object = "") -> bool:
        """Whether the cause is about one of ``names`` (and ``algorithm``, when it names one)."""
        if self.algorithm and algorithm and _key(algorithm) != _key(self.algorithm):
            return False
        return any(n and _key(n) == _key(self.dataset) for n in names)


@dataclass(frozen=True)
class Causes:
    """A paper's registry: every :class:`Cause`, and where it was read from."""

    causes: tuple[Cause, ...] = ()
    path: str = ""

    def for_dataset(self, *names: object) -> list[Cause]:
        """The causes about any of ``names`` (every algorithm's)."""
        return [c for c in self.causes if c.matches(*names)]

    def for_cell(self, dataset: object, label: object, algorithm: object, metric: object = "") -> list[Cause]:
        """The causes that explain one cell: its dataset's, less those about another algorithm or metric and
        those of the dataset's shape only (:attr:`Cause.shape_only`)."""
        return [c for c in self.causes if c.matches(dataset, label, algorithm=algorithm)
                and (not c.algorithm or _key(c.algorithm) == _key(algorithm))
                and (not c.metric or not metric or _key(c.metric) == _key(metric))
                and not c.shape_only]

    def explained(self, *names: object) -> set[str]:
        """The shape fields the dataset's causes account for."""
        return {f for c in self.for_dataset(*names) for f in c.explains}


#: The fields a cause may have.
ENTRY_KEYS = ("dataset", "algorithm", "metric", "kind", "explains", "text", "source")


class CausesError(ProblemsError):
    """One or more problems in a ``causes.yaml``, one per line with its line number."""


def _entry(raw: Any, where: tuple, check: Checker) -> Cause | None:
    """One cause from its mapping; every problem is recorded on ``check`` at its field's line."""
    entry = check.mapping(raw, where, ENTRY_KEYS, required=("dataset", "kind", "text", "source"))
    if entry is None:
        return None
    ok = True
    for name in ("dataset", "kind", "text"):
        if name in entry and (not isinstance(entry[name], str) or not entry[name].strip()):
            check.add((*where, name), f"expected non-empty text; got {value_kind(entry[name])}")
            ok = False
    if isinstance(entry.get("kind"), str) and entry["kind"].strip() and entry["kind"] not in KINDS:
        check.add((*where, "kind"), f"kind {entry['kind']!r} is not accepted; accepted: {', '.join(KINDS)}")
        ok = False
    source = entry.get("source")
    if "source" in entry and (not isinstance(source, dict) or source.get("kind") not in SOURCE_KINDS
                              or not source.get("where")):
        check.add((*where, "source"), f"source must be {{kind: {'|'.join(SOURCE_KINDS)}, where: TEXT}}; got "
                                      f"{source!r}")
        ok = False
    explains = entry.get("explains", [])
    if not isinstance(explains, list) or any(f not in FIELDS for f in explains):
        check.add((*where, "explains"), f"explains must be a list of {', '.join(FIELDS)}; got {explains!r}")
        ok = False
    if not ok or not {"dataset", "kind", "text", "source"} <= set(entry):
        return None
    return Cause(entry["dataset"], entry["kind"], " ".join(entry["text"].split()), source["kind"],
                 str(source["where"]), str(entry.get("algorithm", "") or ""), tuple(explains),
                 str(entry.get("metric", "") or ""))


def load_causes(path: str | Path) -> Causes:
    """Read a ``causes.yaml``; a missing or empty file is an empty registry.

    Raises
    ------
    TreebenchError
        A file that cannot be read or a YAML syntax error (one line), or
        :class:`CausesError` listing every problem, each as
        ``FILE:LINE: causes[i].field: what is wrong; accepted: ...``.
    """
    path = Path(path)
    shown = _shown(path)
    if not path.is_file():
        return Causes((), shown)
    document = parse(read_text(path, "cause registry"), str(path), loader=PureLoader)
    if document.data is None:  # empty, or comments only
        return Causes((), shown)
    check = Checker.for_document(str(path), document)
    top = check.mapping(document.data, (), ("causes",))
    raw = top.get("causes", []) if top is not None else []
    if top is not None and not isinstance(raw, list):
        check.add(("causes",), f"expected a list of causes (or []); got {value_kind(raw)}")
        raw = []
    found = [_entry(entry, ("causes", i), check) for i, entry in enumerate(raw or [])]
    check.raise_problems(CausesError)
    return Causes(tuple(c for c in found if c is not None), shown)


def _shown(path: Path) -> str:
    """``path`` as reports show it: relative to the package's parent when inside the package (no machine paths)."""
    import treebench

    root = Path(treebench.__file__).resolve().parent.parent
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)
