"""``treebench paper check FOLDER``: a paper folder validated without running anything.

What is checked, each problem one line ``FILE:LINE: field: what is wrong; accepted: ...``:

* ``paper.yaml`` against the schema, and its ``causes.yaml``
  (:func:`treebench.papers.folder.load_paper_folder` reports both);
* the experiment config (``config``, ``joined`` and the readings' configs) exists and loads, and
  every dataset it runs is on this machine (the cache, a ``TREEBENCH_DATA`` mirror or scikit-learn):
  one that would be downloaded is a *warning*, not a problem;
* the reference CSV: its columns and every row (paper number, unit, numbers, mark), every row's
  dataset a known card the config runs (or empty: treebench has no such data) and its algorithm one
  the config runs; the config's algorithms and datasets without a reference cell are *noted*;
* every claim's comparators (the algorithms its fields name) run by the config or printed in the
  reference table, the datasets it names known, each statement given once;
* each reading's renamed algorithms run by its config;
* every claim's grade on the paper's own numbers computed by the code the report uses
  (:func:`treebench.report.reproduce.grade_paper_on_paper`): a rule that fails on them is a problem;
  a rule the table cannot carry (a test over folds on a table of means) is the report's
  ``not testable`` and no problem.

The cross-file checks need a ``paper.yaml`` that loads: when it does not, its own problems are
reported and the rest waits for them to be fixed (the summary says so).
"""

from __future__ import annotations

import csv
import math
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from treebench.errors import TreebenchError
from treebench.yamlcheck import (
    Checker,
    FieldPath,
    ProblemsError,
    PureLoader,
    field_name,
    parse,
    read_text,
)

#: Claim fields that name algorithms (a claim's comparators); a kind may list its own as ``algorithm_fields``.
ALGORITHM_FIELDS = ("a", "b", "others", "rivals", "opponents", "algorithms", "algorithm")
#: Claim fields that name datasets; a kind may list its own as ``dataset_fields``.
DATASET_FIELDS = ("dataset", "datasets", "chain")
#: The reference CSV's ``mark`` values (``results/reference/README.md``).
MARKS = ("", "bold", "underline", "underline?")


@dataclass
class CheckResult:
    """What :func:`check_folder` found.

    Attributes
    ----------
    problems, warnings, notes
        One line each, ``FILE:LINE: ...``; only problems fail the check.
    grades
        One line per statement: its grade on the paper's own numbers (``--grades``).
    """

    folder: str
    key: str = ""
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    grades: list[str] = field(default_factory=list)
    statements: int = 0
    graded: int = 0
    datasets: int = 0
    cells: int = 0
    loaded: bool = False
    #: Which checks wait for a problem's fix (said in the summary), or nothing.
    waiting: str = ""

    @property
    def ok(self) -> bool:
        """No problem found."""
        return not self.problems

    def summary(self) -> str:
        """One line: the counts and ``no problems``, or how many problems."""
        if self.problems:
            waiting = f" ({self.waiting})" if self.waiting else ""
            return f"{self.folder}: {len(self.problems)} problem{'s' * (len(self.problems) != 1)}{waiting}"
        warned = f" ({len(self.warnings)} warning{'s' * (len(self.warnings) != 1)})" if self.warnings else ""
        return (f"{self.key}: {self.statements} claims ({self.graded} graded), {self.datasets} datasets, "
                f"{self.cells} reference cells: no problems{warned}")


class _Lines:
    """One YAML file's lines, to place a finding on the field it is about."""

    def __init__(self, path: Path, shown: str) -> None:
        try:
            document = parse(read_text(path), shown, loader=PureLoader)
            self.check = Checker.for_document(shown, document)
        except TreebenchError:  # reported by the loader that reads it; here lines are only a help
            self.check = Checker(shown)

    def at(self, path: FieldPath, message: str, key: bool = False, level: str = "") -> str:
        """``FILE:LINE: [level: ]field: message``."""
        label = f"{level}: " if level else ""
        return f"{self.check.where(path, key)}: {label}{field_name(path)}: {message}"


def shown(path: str | Path) -> str:
    """``path`` relative to the working directory when inside it (messages name files as typed)."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _names(value: Any) -> list[str]:
    """A claim field's names: one text, or the texts of a list (pairs give their first item)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (tuple, list)):
        return [str(v[0] if isinstance(v, (tuple, list)) and v else v) for v in value]
    return []


def folder_of(argument: str) -> Path:
    """The folder a command line names: a path, else a catalogued paper's folder (its key or an alias)."""
    path = Path(argument)
    if path.exists() or "/" in argument or "\\" in argument:
        return path
    from treebench.papers.catalogue import PAPERS

    for spec in PAPERS.values():
        if spec.folder and argument in (spec.key, *spec.aliases):
            return Path(shown(spec.folder))
    return path


def _as_typed(line: str, folder: Path) -> str:
    """``line`` naming a file of ``folder`` by the folder's path as typed (the loader names it resolved)."""
    resolved = f"{folder.resolve()}/"
    return f"{folder}/{line[len(resolved):]}" if line.startswith(resolved) else line


def check_folder(folder: str | Path) -> CheckResult:
    """Check the paper folder ``folder`` without running anything (module docstring)."""
    from treebench.papers.folder import PAPER_FILE, load_paper_folder

    folder = Path(folder)
    result = CheckResult(str(folder), waiting="the cross-file checks run once paper.yaml and causes.yaml load")
    if not (folder / PAPER_FILE).is_file():
        what = "not found" if not folder.exists() else "holds no paper.yaml" if folder.is_dir() else "is not a folder"
        result.problems.append(f"{folder}: {what}; accepted: a paper folder holding {PAPER_FILE} (docs/papers.md; "
                               "`treebench paper new NAME` writes one)")
        return result
    try:
        spec = load_paper_folder(folder)
    except ProblemsError as exc:  # PaperFolderError: paper.yaml's and causes.yaml's lines
        result.problems.extend(_as_typed(line, folder) for line in exc.problems)
        return result
    except TreebenchError as exc:  # a YAML syntax error, an unreadable file: one line
        result.problems.append(_as_typed(str(exc), folder))
        return result
    result.loaded, result.key, result.waiting = True, spec.key, ""
    _Checks(spec, folder, result).run()
    return result


class _Checks:
    """The cross-file checks of one loaded paper folder, appending to ``result``."""

    def __init__(self, spec: Any, folder: Path, result: CheckResult) -> None:
        from treebench.papers.folder import PAPER_FILE

        self.spec, self.folder, self.result = spec, folder, result
        self.paper_file = folder / PAPER_FILE
        self.paper = _Lines(self.paper_file, str(self.paper_file))
        self.top = self.paper.check.lines  # field path -> line: whether a key is written
        self.config_algorithms: list[str] = []
        self.config_datasets: list[str] = []  # labels and card names
        self.config_labels: list[str] = []  # the trials' dataset column: what the report matches
        self.reference_algorithms: list[str] = []
        self.reference_datasets: list[str] = []  # cards and the paper's labels
        #: Whether the paper's config and its joined ones loaded: the checks against them need it (else the
        #: config's own problems are reported, not their echo on every row and claim).
        self.configs_loaded = False
        self.columns: list[str] = []  # the reference CSV's header

    # -- helpers -------------------------------------------------------------------------------------
    def problem(self, line: str) -> None:
        self.result.problems.append(line)

    def run(self) -> None:
        configs = self.configs()
        reference = self.reference()
        self.claims()
        self.readings(configs)
        if reference is not None:
            self.paper_on_paper(reference)
        self.result.statements = len(self.spec.claims)
        self.result.graded = sum(1 for s in self.spec.claims if getattr(s, "claim", None) is not None)

    # -- configs -------------------------------------------------------------------------------------
    def load_config(self, name: str, where: FieldPath, what: str) -> Any:
        """The config ``name`` (relative to the working directory unless absolute), or None with a problem."""
        from treebench.experiment.config import load_config

        path = Path(name)
        if not path.is_file():
            self.problem(self.paper.at(where, f"{what} {name!r} not found (from {Path.cwd()}); accepted: an existing "
                                              "config: ./NAME relative to the paper folder, else relative to the "
                                              "working directory (run from the repository root)"))
            return None
        try:
            return load_config(path)
        except ProblemsError as exc:
            self.result.problems.extend(exc.problems)
        except TreebenchError as exc:
            self.problem(str(exc))
        return None

    def configs(self) -> dict[str, Any]:
        """Load the paper's config, its joined ones and the readings' own; check their datasets are here."""
        spec = self.spec
        where: FieldPath = ("config",) if ("config",) in self.top else ()
        named = [(spec.config, where, "config" if where else
                  f"config (no config.yaml in the folder, so configs/{spec.key}.yaml)")]
        named += [(path, ("joined", i), "joined config") for i, path in enumerate(spec.joined)]
        named += [(r.config, ("readings", i, "config"), f"reading {r.name!r}'s config")
                  for i, r in enumerate(spec.readings) if r.config]
        loaded: dict[str, Any] = {}
        for name, place, what in named:
            if name in loaded:
                continue
            loaded[name] = self.load_config(name, place, what)
        main = [loaded.get(n) for n in (spec.config, *spec.joined)]
        self.configs_loaded = all(config is not None for config in main)
        if not self.configs_loaded:
            self.result.waiting = "the checks against the config run once it loads"
        for config in main:
            if config is None:
                continue
            self.config_algorithms += [a.name for a in config.algorithms]
            for d in config.datasets:
                self.config_labels.append(d.label)
                self.config_datasets += [n for n in (d.label, d.name, d.train, d.test) if n]
        seen: set[str] = set()
        for name, config in loaded.items():
            if config is not None:
                self.local_data(Path(name), config, seen)
        if loaded.get(spec.config) is not None:
            self.result.datasets = len(loaded[spec.config].datasets)
        return loaded

    def local_data(self, path: Path, config: Any, seen: set[str]) -> None:
        """A warning for each dataset of ``config`` that is not on this machine (running would download it)."""
        from treebench.data.cards import CardRegistry
        from treebench.data.loader import local_sources
        from treebench.data.settings import Settings

        settings = Settings.from_env()
        registry = CardRegistry(settings.card_folders)
        lines = _Lines(path, shown(path))
        for i, spec in enumerate(config.datasets):
            for name in (n for n in (spec.name, spec.train, spec.test) if n):
                if name in seen:
                    continue
                seen.add(name)
                try:
                    here = local_sources(registry.get(name), registry, settings)
                except TreebenchError:
                    here = []
                if not here:
                    self.result.warnings.append(lines.at(
                        ("datasets", i), f"dataset {name!r} is not in the cache, a mirror ({settings.describe_mirrors()}) "
                                         f"nor scikit-learn: running the paper downloads it (`treebench datasets fetch "
                                         f"{name}`, or set TREEBENCH_DATA)", level="warning"))

    # -- the reference table -------------------------------------------------------------------------
    def reference(self) -> Any:
        """Check the reference CSV row by row (its own lines); return it as the report reads it, or None."""
        from treebench.data.cards import CardRegistry
        from treebench.data.settings import Settings
        from treebench.report.cells import Matcher, norm
        from treebench.report.reference import COLUMNS, UNITS, load_reference, reference_dir

        spec = self.spec
        path = Path(spec.reference) if Path(spec.reference).is_absolute() else reference_dir() / spec.reference
        if not path.is_file():
            self.problem(self.paper.at(("reference",), f"no reference table {spec.reference!r} at {path}; accepted: "
                                                       "a CSV in the folder's reference/ or in results/reference"))
            return None
        display = shown(path)
        before = len(self.result.problems)
        match = Matcher(sorted(set(self.config_labels)), sorted(set(self.config_algorithms)))
        registry = CardRegistry(Settings.from_env().card_folders)
        cards = set(registry.names()) | set(registry.aliases())
        try:
            with path.open(newline="", encoding="utf-8-sig") as handle:  # a BOM, as pandas reads it
                reader = csv.DictReader(handle)
                header = reader.fieldnames or []
                missing = [c for c in COLUMNS if c not in header]
                if missing:
                    self.problem(f"{display}:1: header: missing column(s) {', '.join(missing)}; accepted: "
                                 f"{','.join(COLUMNS)} (results/reference/README.md)")
                    return None
                rows = 0
                self.columns = header
                for row in reader:
                    rows += 1
                    self.reference_row(row, f"{display}:{reader.line_num}", match, cards, UNITS)
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            self.problem(f"{display}: cannot be read as a CSV table ({exc}); accepted: UTF-8 text, "
                         "results/reference/README.md's columns")
            return None
        self.result.cells = rows
        if len(self.result.problems) > before:  # the rows' own lines say it; the reader would repeat the first
            return None
        try:
            reference = load_reference(spec.reference)  # the report's own reader: what it refuses, refused here
        except TreebenchError as exc:
            self.problem(str(exc))
            return None
        self.reverse(reference, norm)
        return reference

    def reference_row(self, row: dict, where: str, match: Any, cards: set[str], units: Iterable[str]) -> None:
        """The problems of one reference row (``where`` is ``FILE:LINE``)."""
        spec = self.spec

        def bad(column: str, message: str) -> None:
            self.problem(f"{where}: {column}: {message}")

        if None in row or None in row.values():  # csv.DictReader: extra cells under None, missing ones None
            extra = row.get(None) or []  # type: ignore[call-overload]
            cells = sum(v is not None for k, v in row.items() if k is not None) + len(extra)
            bad("row", f"{cells} cells; accepted: {len(self.columns)}, one per column of the header")
            return

        paper = (row.get("paper") or "").strip()
        if not paper.isdigit() or int(paper) != int(spec.number):
            bad("paper", f"{paper!r} is not this paper's number; accepted: {spec.number} (paper.yaml's number)")
        if row.get("unit") not in units:
            bad("unit", f"unknown unit {row.get('unit')!r}; accepted: {', '.join(units)}")
        for column, empty_ok in (("value", False), ("std", True)):
            text = (row.get(column) or "").strip()
            if not text and empty_ok:
                continue
            try:
                number = float(text)
            except ValueError:
                number = math.nan
            if math.isnan(number):
                bad(column, f"expected a number{' or nothing' if empty_ok else ''}; got {text!r}")
        if (row.get("mark") or "") not in MARKS:
            bad("mark", f"unknown mark {row.get('mark')!r}; accepted: nothing, {', '.join(MARKS[1:])}")
        for column in ("metric", "algorithm"):
            if not (row.get(column) or "").strip():
                bad(column, "empty; accepted: a name (results/reference/README.md)")
        dataset, label = (row.get("dataset") or "").strip(), row.get("dataset_label") or ""
        algorithm = (row.get("algorithm") or "").strip()
        if algorithm:
            self.reference_algorithms += [algorithm, row.get("algorithm_label") or ""]
        self.reference_datasets += [n for n in (dataset, label) if n]
        if dataset and dataset not in cards:
            bad("dataset", f"unknown dataset card {dataset!r}; accepted: a card name (`treebench datasets list`), or "
                           "nothing when treebench has no such data")
        elif dataset and self.configs_loaded and match.dataset(dataset, label) is None:
            bad("dataset", f"{dataset!r} is not run by the config; accepted: one of "
                           f"{', '.join(dict.fromkeys(self.config_labels))}, or nothing "
                           "when the rerun has no such data")
        if algorithm and self.configs_loaded and match.algorithm(algorithm, row.get("algorithm_label") or "") is None:
            bad("algorithm", f"{algorithm!r} is not run by the config; accepted: "
                             f"{', '.join(dict.fromkeys(self.config_algorithms))}")

    def reverse(self, reference: Any, norm: Any) -> None:
        """Notes: the config's algorithms and datasets that no reference cell names."""
        if not self.config_algorithms or not Path(self.spec.config).is_file():
            return
        printed_algs = {norm(n) for n in self.reference_algorithms}
        printed_ds = {norm(n) for n in self.reference_datasets}
        config = _Lines(Path(self.spec.config), shown(self.spec.config))
        algs = [a for a in dict.fromkeys(self.config_algorithms) if norm(a) not in printed_algs]
        if algs:
            self.result.notes.append(config.at(("algorithms",), f"{len(algs)} of "
                                                                f"{len(set(self.config_algorithms))} algorithms "
                                                                f"have no reference cell ({', '.join(algs)}): they "
                                                                "serve the claims and readings only", level="note"))
        labels = set(self.config_labels)
        missing = [d for d in labels if norm(d) not in printed_ds]
        if missing:
            self.result.notes.append(config.at(("datasets",), f"{len(missing)} of {len(labels)} datasets have no "
                                                              f"reference cell ({', '.join(sorted(missing))})",
                                               level="note"))

    # -- claims and readings -------------------------------------------------------------------------
    def claims(self) -> None:
        """Comparators and datasets of every claim known; each statement given once."""
        from treebench.report.cells import norm
        from treebench.report.registry import CLAIM_KINDS

        algorithms = {norm(n) for n in (*self.config_algorithms, *self.reference_algorithms) if n}
        datasets = {norm(n) for n in (*self.config_datasets, *self.reference_datasets, *self.spec.datasets) if n}
        first: dict[str, int] = {}
        for i, statement in enumerate(self.spec.claims):
            text = statement.text
            if text in first:
                self.problem(self.paper.at(("claims", i), f"statement {text!r} given twice (also claims[{first[text]}]); "
                                                          "accepted: each statement once (its text names it in the "
                                                          "report and verdicts.json)"))
            first.setdefault(text, i)
            claim = statement.claim
            if claim is None or not self.configs_loaded:
                continue
            kind = CLAIM_KINDS.name_of(type(claim)) or type(claim).__name__
            for name in getattr(claim, "algorithm_fields", ALGORITHM_FIELDS):
                for j, value in self.values(claim, name):
                    if norm(value) not in algorithms:
                        self.problem(self.paper.at(("claims", i, "claim", name, *j), (
                            f"claim kind {kind!r} compares algorithm {value!r}, which the config does not run and "
                            f"the reference table does not print; accepted: "
                            f"{', '.join(dict.fromkeys(self.config_algorithms))}")))
            for name in getattr(claim, "dataset_fields", DATASET_FIELDS):
                for j, value in self.values(claim, name):
                    if norm(value) not in datasets:
                        self.problem(self.paper.at(("claims", i, "claim", name, *j), (
                            f"claim kind {kind!r} names dataset {value!r}, which neither the config, the reference "
                            f"table nor paper.yaml's datasets know; accepted: "
                            f"{', '.join(dict.fromkeys(self.config_labels))}")))

    @staticmethod
    def values(claim: Any, name: str) -> list[tuple[tuple, str]]:
        """``(index path, name)`` of each name in the claim's field ``name`` (a list's items indexed)."""
        from dataclasses import fields as dc_fields

        if name not in {f.name for f in dc_fields(claim)}:
            return []
        value = getattr(claim, name)
        if isinstance(value, str):
            return [((), value)] if value else []
        return [((j,), v) for j, v in enumerate(_names(value)) if v]

    def readings(self, configs: dict[str, Any]) -> None:
        """Each reading renames algorithms its config runs to algorithms the paper's config runs."""
        from treebench.report.cells import norm

        if not self.configs_loaded:
            return
        main = {norm(a): a for a in self.config_algorithms}
        for i, reading in enumerate(self.spec.readings):
            config = configs.get(reading.config) if reading.config else None
            if reading.config and config is None:
                continue  # its config's problem is reported already
            runs = {norm(a.name): a.name for a in config.algorithms} if config is not None else main
            for old, new in reading.rename.items():
                if norm(old) not in runs:
                    self.problem(self.paper.at(("readings", i, "rename", old), (
                        f"reading {reading.name!r} renames {old!r}, which "
                        f"{'its config ' + repr(reading.config) if reading.config else 'the config'} does not run; "
                        f"accepted: {', '.join(runs.values())}"), key=True))
                if norm(new) not in main:
                    self.problem(self.paper.at(("readings", i, "rename", old), (
                        f"reading {reading.name!r} stands {old!r} in for {new!r}, which the paper's config does not "
                        f"run; accepted: {', '.join(dict.fromkeys(self.config_algorithms))}")))

    # -- the paper's own numbers -------------------------------------------------------------------
    def paper_on_paper(self, reference: Any) -> None:
        """Grade every claim on the paper's own numbers by the report's code; a rule that raises is a problem."""
        import pandas as pd

        from treebench.report.cells import compare_cells, drop_excluded
        from treebench.report.claims import evaluate_claim, in_report_folder
        from treebench.report.paper_frame import paper_cells
        from treebench.report.reproduce import grade_paper_on_paper

        spec = self.spec
        empty = pd.DataFrame()
        with tempfile.TemporaryDirectory() as out:  # a claim that reads a report folder reads an empty one
            bound = replace(spec, claims=tuple(in_report_folder(c, out) for c in spec.claims))
            try:
                cells = compare_cells(reference, empty, spec.our_std, spec.paper_splits)
                cells = drop_excluded(cells, empty, spec.excluded)[0]
            except Exception as exc:  # noqa: BLE001 - the folder's table: any failure is its problem, one line
                self.problem(self.paper.at(("reference",), f"the report cannot read the reference table: "
                                                           f"{type(exc).__name__}: {exc}"))
                return
            outcomes = [SimpleNamespace(effect=None, paper_on_paper=None) for _ in bound.claims]
            try:
                grade_paper_on_paper(bound, cells, outcomes)
            except Exception:  # noqa: BLE001 - find which claims' rules fail, one line each
                published, frame = paper_cells(cells)
                for i, statement in enumerate(bound.claims):
                    try:
                        evaluate_claim(statement, published, frame)
                    except Exception as exc:  # noqa: BLE001 - a claim kind's own code
                        self.problem(self.paper.at(("claims", i, "claim"), (
                            f"its rule fails on the paper's own numbers ({type(exc).__name__}: {exc}); accepted: a "
                            "claim whose fields its kind can grade on the reference table")))
                return
        for i, (statement, outcome) in enumerate(zip(spec.claims, outcomes)):
            effect = outcome.paper_on_paper
            verdict = getattr(effect, "verdict", "") or "–"
            self.result.grades.append(self.paper.at(("claims", i), f"{statement.kind}: {statement.text}: on the "
                                                                   f"paper's own numbers: {verdict}"))


__all__ = ["ALGORITHM_FIELDS", "DATASET_FIELDS", "CheckResult", "check_folder", "folder_of"]
