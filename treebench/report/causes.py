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

from treebench.errors import TreebenchError

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


def _entry(raw: Any, i: int, where: str) -> Cause:
    def bad(what: str) -> TreebenchError:
        return TreebenchError(f"{where}: cause {i + 1}: {what}")

    if not isinstance(raw, dict):
        raise bad("expected a mapping with dataset, kind, text and source")
    unknown = set(raw) - {"dataset", "algorithm", "metric", "kind", "explains", "text", "source"}
    if unknown:
        raise bad(f"unknown field(s) {', '.join(sorted(unknown))}; accepted: dataset, algorithm, metric, kind, "
                  "explains, text, source")
    for name in ("dataset", "kind", "text"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            raise bad(f"field {name!r} must be a non-empty text")
    if raw["kind"] not in KINDS:
        raise bad(f"kind {raw['kind']!r} is not accepted; accepted: {', '.join(KINDS)}")
    source = raw.get("source")
    if not isinstance(source, dict) or source.get("kind") not in SOURCE_KINDS or not source.get("where"):
        raise bad(f"source must be {{kind: {'|'.join(SOURCE_KINDS)}, where: TEXT}}")
    explains = raw.get("explains", [])
    if not isinstance(explains, list) or any(f not in FIELDS for f in explains):
        raise bad(f"explains must be a list of {', '.join(FIELDS)}")
    return Cause(raw["dataset"], raw["kind"], " ".join(raw["text"].split()), source["kind"], str(source["where"]),
                 str(raw.get("algorithm", "") or ""), tuple(explains), str(raw.get("metric", "") or ""))


def load_causes(path: str | Path) -> Causes:
    """Read a ``causes.yaml``; a missing file is an empty registry.

    Raises
    ------
    TreebenchError
        One line naming the file, the entry and what is wrong with it.
    """
    import yaml

    path = Path(path)
    shown = _shown(path)
    if not path.is_file():
        return Causes((), shown)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise TreebenchError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("causes", []), list):
        raise TreebenchError(f"{path}: expected a mapping with a list under 'causes'")
    return Causes(tuple(_entry(raw, i, shown) for i, raw in enumerate(data.get("causes", []))), shown)


def _shown(path: Path) -> str:
    """``path`` as reports show it: relative to the package's parent when inside the package (no machine paths)."""
    import treebench

    root = Path(treebench.__file__).resolve().parent.parent
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)
