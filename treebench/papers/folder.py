"""A paper as a folder of data: ``paper.yaml`` read into a :class:`~treebench.report.spec.PaperSpec`.

A paper folder holds::

    paper.yaml        bibliographic data, datasets, readings, figures, claims, tolerances
    causes.yaml       the known causes of its differences (optional; :mod:`treebench.report.causes`)
    reference/*.csv   its published cells (optional: else the file is looked up in results/reference)
    config.yaml       its experiment (optional: else ``config:`` names it, default configs/KEY.yaml)
    sections.py       paper-specific computations, named in paper.yaml as ``sections:function``

:func:`load_paper_folder` checks every field and reports every problem as
one line ``FOLDER/paper.yaml:LINE: field: what is wrong; accepted: ...``, as
the experiment configs do (:mod:`treebench.yamlcheck`).  A claim names its
kind by the name it is registered under (:data:`treebench.report.registry.CLAIM_KINDS`)
and gives that kind's fields; a figure names a registered figure kind
(:data:`treebench.report.figure_kinds.FIGURE_KINDS`).  The schema, with a
complete annotated example, is in ``docs/papers.md``.

Paths: a config named in ``paper.yaml`` (``config``, ``joined``, a reading's
``config``) is relative to the working directory, as every treebench config
is (stores and datasets are found from there), unless it starts with ``./``
or ``../``: then it is relative to the folder.  ``causes`` and ``reference``
are relative to the folder.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from treebench.errors import TreebenchError
from treebench.report.spec import Figure, PaperDataset, PaperSpec, Reading, SectionBuilder
from treebench.report.statements import Statement
from treebench.yamlcheck import Checker, ProblemsError, PureLoader, parse, read_text, value_kind

#: The paper's description file in its folder.
PAPER_FILE = "paper.yaml"
#: Its cause registry, used when ``paper.yaml`` names none and the file is there.
CAUSES_FILE = "causes.yaml"
#: Its experiment config, used when ``paper.yaml`` names none and the file is there.
CONFIG_FILE = "config.yaml"
#: The folder of its published cells (a ``reference`` file is looked up here first).
REFERENCE_DIR = "reference"

#: Top-level keys of ``paper.yaml`` (every field of :class:`PaperSpec` but ``folder``).
TOP_KEYS = ("key", "number", "citation", "reference", "description", "authors", "aliases", "config", "joined",
            "datasets", "dataset_source", "excluded", "baselines", "tolerances", "our_std", "paper_splits",
            "default_reading", "readings", "figures", "sections", "claims", "causes", "tree_quality_title",
            "tree_quality_text")
REQUIRED = ("key", "number", "citation", "reference")
STATEMENT_KEYS = ("location", "paraphrase", "claim", "scope", "test_as_applied", "why_not", "statement_kind", "cause")
DATASET_KEYS = ("rows", "features", "classes", "source", "note")
READING_KEYS = ("name", "description", "rename", "config", "run")
FIGURE_KEYS = ("kind", "name", "caption", "options")

_KEY = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_NUMBER = re.compile(r"^[0-9]+$")
_REF = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_]*$")


class PaperFolderError(ProblemsError):
    """One or more problems in a paper folder's ``paper.yaml``, one per line."""


def is_paper_folder(path: str | Path) -> bool:
    """Whether ``path`` is a folder holding a ``paper.yaml``."""
    return (Path(path) / PAPER_FILE).is_file()


def load_paper_folder(folder: str | Path) -> PaperSpec:
    """Read and check the paper folder ``folder``.

    Raises
    ------
    TreebenchError
        A folder without ``paper.yaml``, a file that cannot be read, a YAML
        syntax error (one line each), or :class:`PaperFolderError` listing
        every problem found, each with its line.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise TreebenchError(f"paper folder {str(folder)!r} not found; accepted: a folder holding {PAPER_FILE}")
    path = folder / PAPER_FILE
    if not path.is_file():
        raise TreebenchError(f"{folder}: no {PAPER_FILE}; accepted: a paper folder (docs/papers.md)")
    text = read_text(path, "paper description")
    return parse_paper(text, str(path), folder)


def parse_paper(text: str, display: str, folder: Path) -> PaperSpec:
    """Check ``paper.yaml``'s ``text`` (shown as ``display``) of the paper folder ``folder``."""
    from treebench.papers.kinds import load_kinds

    document = parse(text, display, loader=PureLoader)
    check = Checker.for_document(display, document)
    data = document.data
    if data is None:
        check.add((), f"the paper description is empty; expected a mapping with keys {', '.join(TOP_KEYS)}")
        check.raise_problems(PaperFolderError)
    top = check.mapping(data, (), TOP_KEYS, required=REQUIRED)
    if top is None:
        check.raise_problems(PaperFolderError)
    assert top is not None
    load_kinds()
    reader = _Reader(check, folder.resolve())
    spec = reader.spec(top)
    check.raise_problems(PaperFolderError)
    assert spec is not None
    return spec


class _Reader:
    """Turns the checked ``paper.yaml`` data into a spec, recording each problem on ``check``."""

    def __init__(self, check: Checker, folder: Path) -> None:
        self.check = check
        self.folder = folder

    # -- small typed fields ------------------------------------------------------------------
    def text(self, value: Any, path: tuple, empty_ok: bool = True) -> str:
        """``value`` if it is text (non-empty unless ``empty_ok``); else records a problem."""
        if not isinstance(value, str) or (not empty_ok and not value.strip()):
            self.check.add(path, f"expected {'text' if empty_ok else 'non-empty text'}; got {value_kind(value)}")
            return ""
        return value

    def texts(self, value: Any, path: tuple) -> tuple[str, ...]:
        """A list of non-empty texts."""
        if not isinstance(value, list):
            self.check.add(path, f"expected a list of names; got {value_kind(value)}")
            return ()
        return tuple(self.text(v, (*path, i), empty_ok=False) for i, v in enumerate(value))

    def text_map(self, value: Any, path: tuple) -> dict[str, str]:
        """A mapping of text to text."""
        if not isinstance(value, dict):
            self.check.add(path, f"expected a mapping of names to text; got {value_kind(value)}")
            return {}
        return {str(k): self.text(v, (*path, k), empty_ok=False) for k, v in value.items()}

    def optional_int(self, value: Any, path: tuple, minimum: int) -> int | None:
        """``None`` or an integer ``>= minimum``."""
        return None if value is None else self.check.integer(value, path, minimum)

    def config_path(self, value: Any, path: tuple) -> str:
        """A config path as the spec keeps it (``./`` and ``../`` made relative to the folder); must exist
        only when folder-relative (a working-directory path is checked when the paper is run)."""
        name = self.text(value, path, empty_ok=False)
        if name.startswith(("./", "../")):
            resolved = self.folder / name
            if not resolved.is_file():
                self.check.add(path, f"no file {name!r} in the paper folder {self.folder}; accepted: an existing "
                                     "config (./NAME relative to the folder, else relative to the working directory)")
            return str(resolved)
        return name

    # -- the spec ----------------------------------------------------------------------------
    def spec(self, top: dict) -> PaperSpec | None:
        c = self.check
        key = c.text(top.get("key"), ("key",), _KEY, "lower-case letters, digits, '_', '-'") if "key" in top else None
        number = top.get("number")
        if "number" in top and (not isinstance(number, str) or not _NUMBER.match(number)):
            c.add(("number",), f"expected the paper's number as quoted digits (number: \"004\"); got "
                               f"{value_kind(number)} {number!r}")
        citation = self.text(top.get("citation", ""), ("citation",), empty_ok=False) if "citation" in top else ""
        reference = self.reference(top["reference"]) if "reference" in top else ""
        from treebench.report.cells import OUR_STD_KINDS

        our_std = c.choice(top.get("our_std", "sample"), ("our_std",), OUR_STD_KINDS, "std kind") or "sample"
        config = ""
        if "config" in top:
            config = self.config_path(top["config"], ("config",))
        elif (self.folder / CONFIG_FILE).is_file():
            config = str(self.folder / CONFIG_FILE)
        sections = self.sections(top.get("sections", []))  # before the claims: a folder's module may add kinds
        tolerances = self.tolerances(top.get("tolerances", {}))
        spec_fields: dict[str, Any] = dict(
            description=self.text(top.get("description", ""), ("description",)),
            authors=self.text(top.get("authors", ""), ("authors",)),
            aliases=self.texts(top.get("aliases", []), ("aliases",)),
            joined=tuple(self.config_path(v, ("joined", i)) for i, v in enumerate(self.items_of(top, "joined"))),
            datasets=self.datasets(top.get("datasets", {})),
            dataset_source=self.text(top.get("dataset_source", ""), ("dataset_source",)),
            excluded=self.text_map(top.get("excluded", {}), ("excluded",)),
            baselines=self.texts(top.get("baselines", []), ("baselines",)),
            tolerances=tolerances,
            our_std=our_std,
            paper_splits=self.optional_int(top.get("paper_splits"), ("paper_splits",), 1),
            default_reading=self.text(top.get("default_reading", ""), ("default_reading",)),
            readings=tuple(self.reading(r, ("readings", i)) for i, r in enumerate(self.items_of(top, "readings"))),
            figures=tuple(self.figure(f, ("figures", i)) for i, f in enumerate(self.items_of(top, "figures"))),
            sections=sections,
            claims=tuple(self.statement(s, ("claims", i)) for i, s in enumerate(self.items_of(top, "claims"))),
            causes=self.causes(top),
            config_file=config,
            folder=str(self.folder),
        )
        for name in ("tree_quality_title", "tree_quality_text"):
            if name in top:
                spec_fields[name] = self.text(top[name], (name,), empty_ok=False)
        self.unique([r and r.name for r in spec_fields["readings"]], "readings", "reading name")
        self.unique([f and f.name for f in spec_fields["figures"]], "figures", "figure name")
        self.unique([s.name for s in sections], "sections", "section name")
        if c.problems or key is None:
            return None
        return PaperSpec(key=key, number=str(number), citation=citation, reference=reference, **spec_fields)

    def items_of(self, top: dict, name: str) -> list:
        """``top[name]`` if it is a list (empty when absent)."""
        value = top.get(name, [])
        if not isinstance(value, list):
            self.check.add((name,), f"expected a list; got {value_kind(value)}")
            return []
        return value

    def unique(self, names: list[str | None], where: str, what: str) -> None:
        """Record every name given a second time (``None``: an entry already refused)."""
        seen: set[str] = set()
        for i, name in enumerate(names):
            if name is None:
                continue
            if name in seen:
                self.check.add((where, i), f"{what} {name!r} given twice; accepted: each once")
            seen.add(name)

    def reference(self, value: Any) -> str:
        """The reference CSV: ``reference/NAME`` in the folder (its path), else ``NAME`` in results/reference."""
        from treebench.report.reference import reference_dir

        name = self.text(value, ("reference",), empty_ok=False)
        if not name:
            return ""
        own = self.folder / REFERENCE_DIR / name
        if own.is_file():
            return str(own)
        # the working directory's results/reference is read when the paper runs; the checkout's may stand in
        # for it here (a test's workspace, another folder): refused only when neither has the file
        import treebench

        places = (reference_dir(), Path(treebench.__file__).resolve().parents[1] / "results" / "reference")
        if not any((place / name).is_file() for place in places):
            self.check.add(("reference",), f"no reference table {name!r} in {own.parent} nor in {places[0]}; "
                                           "accepted: a CSV in the folder's reference/ or in results/reference")
        return name

    def causes(self, top: dict) -> str:
        """The cause registry's path (checked now), ``causes.yaml`` in the folder by default."""
        from treebench.report.causes import load_causes

        if "causes" not in top:
            default = self.folder / CAUSES_FILE
            return str(default) if default.is_file() else ""
        name = self.text(top["causes"], ("causes",), empty_ok=False)
        if not name:
            return ""
        path = self.folder / name
        if not path.is_file():
            self.check.add(("causes",), f"no file {name!r} in the paper folder; accepted: a causes.yaml there")
            return ""
        try:
            load_causes(path)
        except TreebenchError as exc:
            self.check.add(("causes",), str(exc))
        return str(path)

    def tolerances(self, value: Any) -> dict[str, float]:
        if not isinstance(value, dict):
            self.check.add(("tolerances",), f"expected a mapping of metric to a number; got {value_kind(value)}")
            return {}
        out = {}
        for metric, tol in value.items():
            if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not tol >= 0:
                self.check.add(("tolerances", metric), f"expected a number >= 0; got {tol!r}")
                continue
            out[str(metric)] = float(tol)
        return out

    def datasets(self, value: Any) -> dict[str, PaperDataset]:
        if not isinstance(value, dict):
            self.check.add(("datasets",), f"expected a mapping of the paper's dataset names to their description; "
                                          f"got {value_kind(value)}")
            return {}
        out = {}
        for label, raw in value.items():
            where = ("datasets", label)
            entry = self.check.mapping(raw, where, DATASET_KEYS)
            if entry is None:
                continue
            out[str(label)] = PaperDataset(
                *(self.optional_int(entry.get(n), (*where, n), 0) for n in ("rows", "features", "classes")),
                source=self.text(entry.get("source", ""), (*where, "source")),
                note=self.text(entry.get("note", ""), (*where, "note")))
        return out

    def reading(self, raw: Any, where: tuple) -> Reading | None:
        entry = self.check.mapping(raw, where, READING_KEYS, required=("name", "description"))
        if entry is None or not {"name", "description"} <= set(entry):
            return None
        run = self.check.boolean(entry.get("run", True), (*where, "run"))
        return Reading(self.text(entry.get("name", ""), (*where, "name"), empty_ok=False),
                       self.text(entry.get("description", ""), (*where, "description")),
                       self.text_map(entry.get("rename", {}), (*where, "rename")),
                       self.config_path(entry["config"], (*where, "config")) if "config" in entry else None,
                       True if run is None else run)

    def figure(self, raw: Any, where: tuple) -> Figure | None:
        from treebench.report.figure_kinds import FIGURE_KINDS, figure_options

        entry = self.check.mapping(raw, where, FIGURE_KEYS, required=("kind", "name", "caption"))
        if entry is None or not {"kind", "name", "caption"} <= set(entry):
            return None
        kind = entry.get("kind")
        if kind not in FIGURE_KINDS:
            self.check.add((*where, "kind"), FIGURE_KINDS.unknown(kind))
            return None
        options = entry.get("options", {})
        accepted, required = figure_options(kind)
        if not isinstance(options, dict):
            self.check.add((*where, "options"), f"expected a mapping of {', '.join(accepted) or 'no options'}; "
                                                f"got {value_kind(options)}")
            options = {}
        for name in options:
            if name not in accepted:
                self.check.add((*where, "options", name), f"figure kind {kind!r} has no option {name!r}; accepted: "
                                                          f"{', '.join(accepted) or 'none'}", key=True)
        for name in required:
            if name not in options:
                self.check.add((*where, "options"), f"figure kind {kind!r} needs option {name!r}")
        name = self.check.text(entry.get("name"), (*where, "name"))
        return Figure(kind, name or "", self.text(entry.get("caption", ""), (*where, "caption")), dict(options))

    def sections(self, value: Any) -> tuple[SectionBuilder, ...]:
        if not isinstance(value, list):
            self.check.add(("sections",), f"expected a list of module:function; got {value_kind(value)}")
            return ()
        out = []
        for i, ref in enumerate(value):
            builder = self.section(ref, ("sections", i))
            if builder is not None:
                out.append(builder)
        return tuple(out)

    def section(self, ref: Any, where: tuple) -> SectionBuilder | None:
        if not isinstance(ref, str) or not _REF.match(ref):
            self.check.add(where, f"expected module:function (e.g. sections:my_tables); got {ref!r}")
            return None
        module_name, attr = ref.split(":")
        try:
            module = import_folder_module(self.folder, module_name)
        except Exception as exc:  # the folder's own code: whatever it raises is one line on its reference
            self.check.add(where, f"cannot import {module_name!r}: {type(exc).__name__}: {exc}; accepted: "
                                  f"{module_name}.py in the paper folder or an importable module")
            return None
        found = getattr(module, attr, None)
        if isinstance(found, SectionBuilder):
            return found
        if callable(found):  # a plain function: named after itself
            return SectionBuilder(attr, found)
        self.check.add(where, f"{module_name} has no section function {attr!r}; accepted: a function of a "
                              "SectionContext returning sections (or one decorated with @section_builder)")
        return None

    def statement(self, raw: Any, where: tuple) -> Statement | None:
        from treebench.report.verdicts import KINDS

        entry = self.check.mapping(raw, where, STATEMENT_KEYS, required=("location",))
        if entry is None or "location" not in entry:
            return None
        claim = self.claim(entry["claim"], (*where, "claim")) if "claim" in entry else None
        why_not = self.text(entry.get("why_not", ""), (*where, "why_not"))
        if "claim" not in entry and not why_not.strip():
            self.check.add(where, "give a claim (claim: {kind: ...}) or why it cannot be graded (why_not: ...)")
            return None
        if "claim" in entry and why_not:
            self.check.add((*where, "why_not"), "a graded statement has no why_not; accepted: claim or why_not")
        kind = self.check.choice(entry.get("statement_kind", KINDS[0]), (*where, "statement_kind"), KINDS,
                                 "statement kind")
        values = {name: self.text(entry.get(name, default), (*where, name))
                  for name, default in (("paraphrase", ""), ("scope", ""), ("test_as_applied", "none"),
                                        ("cause", ""))}
        location = self.text(entry.get("location", ""), (*where, "location"), empty_ok=False)
        if ("claim" in entry and claim is None) or kind is None or not location:
            return None
        return Statement(location, claim=claim, why_not=why_not, statement_kind=kind, **values)

    def claim(self, raw: Any, where: tuple) -> Any:
        """A claim of a registered kind from its fields (``kind`` plus the kind's dataclass fields)."""
        from treebench.report.registry import CLAIM_KINDS

        if not isinstance(raw, dict):
            self.check.add(where, f"expected a mapping with 'kind' and the kind's fields; got {value_kind(raw)}")
            return None
        kind = raw.get("kind")
        if "kind" not in raw:
            self.check.add(where, f"missing required key 'kind'; accepted: {', '.join(CLAIM_KINDS.names())}")
            return None
        if kind not in CLAIM_KINDS:
            self.check.add((*where, "kind"), CLAIM_KINDS.unknown(kind))
            return None
        cls = CLAIM_KINDS.get(kind)
        settable = claim_fields(cls)
        accepted = ("kind", *settable)
        values: dict[str, Any] = {}
        ok = True
        for name, value in raw.items():
            if name == "kind":
                continue
            if name not in settable:
                self.check.add((*where, name), f"claim kind {kind!r} has no field {name!r}; accepted: "
                                               f"{', '.join(accepted)}", key=True)
                ok = False
                continue
            converted, problem = convert(value, settable[name][0])
            if problem:
                self.check.add((*where, name), problem)
                ok = False
            values[name] = converted
        for name, (_, required) in settable.items():
            if required and name not in raw:
                self.check.add(where, f"claim kind {kind!r} needs field {name!r}")
                ok = False
        if not ok:
            return None
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:  # the kind's own checks
            self.check.add(where, f"claim kind {kind!r}: {exc}")
            return None


def claim_fields(cls: type) -> dict[str, tuple[str, bool]]:
    """A claim class's fields settable from YAML: name -> (annotation text, required).

    Fields kept out of its repr and comparison (run-time hooks such as a data
    loader) are not data and cannot be set.
    """
    out = {}
    for f in fields(cls):
        if not f.init or not f.repr or not f.compare:
            continue
        required = f.default is MISSING and f.default_factory is MISSING
        out[f.name] = (f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type)), required)
    return out


# -- values against a field's annotation ---------------------------------------------------------
def _split_top(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets (``"dict[str, int], str"`` at ``,``: two parts)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if ch == separator and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _split_args(inner: str) -> list[str]:
    """``"str, int"`` -> ``["str", "int"]``, respecting brackets."""
    return _split_top(inner, ",")


def convert(value: Any, annotation: str) -> tuple[Any, str]:
    """``value`` (from YAML) as the field annotated ``annotation`` holds it, and a problem ('' when none).

    Knows ``str``, ``bool``, ``int``, ``float``, ``X | None``, ``tuple[X, ...]``
    and ``tuple[X, Y]``; any other annotation takes the value as it is (lists as tuples).
    """
    annotation = annotation.strip()
    options = _split_union(annotation)
    if len(options) > 1:
        if value is None and "None" in options:
            return None, ""
        problems = []
        for option in (o for o in options if o != "None"):
            converted, problem = convert(value, option)
            if not problem:
                return converted, ""
            problems.append(problem)
        return value, problems[0]
    if annotation == "str":
        return (value, "") if isinstance(value, str) else (value, f"expected text; got {value_kind(value)} {value!r}")
    if annotation == "bool":
        return (value, "") if isinstance(value, bool) else (value, f"expected true or false; got {value!r}")
    if annotation == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
        return (value, "") if ok else (value, f"expected an integer; got {value!r}")
    if annotation == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return value, f"expected a number (.nan for none); got {value_kind(value)} {value!r}"
        return float(value), ""
    if annotation.startswith("tuple[") and annotation.endswith("]"):
        args = _split_args(annotation[6:-1])
        if not isinstance(value, list):
            return value, f"expected a list; got {value_kind(value)} {value!r}"
        if len(args) == 2 and args[1] == "...":
            items = [convert(v, args[0]) for v in value]
        elif len(value) != len(args):
            return value, f"expected a list of {len(args)} values; got {len(value)}"
        else:
            items = [convert(v, a) for v, a in zip(value, args)]
        problems = [f"item {i + 1}: {p}" for i, (_, p) in enumerate(items) if p]
        return tuple(v for v, _ in items), (problems[0] if problems else "")
    return _tuples(value), ""


def _split_union(annotation: str) -> list[str]:
    """``"int | None"`` -> ``["int", "None"]``, respecting brackets."""
    return _split_top(annotation, "|")


def _tuples(value: Any) -> Any:
    """Lists as tuples, all the way down (claims are frozen: their fields hash)."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


# -- a folder's own Python ----------------------------------------------------------------------
def import_folder_module(folder: Path, name: str) -> Any:
    """The module ``name`` of a paper folder: ``NAME.py`` in ``folder`` if there, else an importable module.

    A built-in paper's module is imported under its package name
    (``treebench.papers.KEY.NAME``), so it is the module the rest of the code
    imports; a folder elsewhere gets a private module name derived from its path.
    """
    file = folder / f"{name}.py"
    if not file.is_file():
        return importlib.import_module(name)
    import treebench.papers as papers

    package_dir = Path(papers.__file__).resolve().parent
    if folder.resolve().parent == package_dir and (folder / "__init__.py").is_file():
        return importlib.import_module(f"treebench.papers.{folder.name}.{name}")
    digest = hashlib.sha1(str(file.resolve()).encode()).hexdigest()[:12]
    module_name = f"_treebench_paper_{digest}_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"{file} is not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look modules up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


__all__ = ["CAUSES_FILE", "CONFIG_FILE", "PAPER_FILE", "REFERENCE_DIR", "PaperFolderError", "claim_fields",
           "convert", "import_folder_module", "is_paper_folder", "load_paper_folder", "parse_paper"]
