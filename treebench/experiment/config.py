"""Experiment configs: YAML -> validated, frozen :class:`Config`.

Every problem in a config is collected (not just the first) and reported as
``file:line: field: what is wrong; accepted: ...``.  Line numbers come from
PyYAML's composed node tree, which keeps the position of every key and value.
The schema is documented, with a full example, in ``docs/configs.md``.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import itertools
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from treebench.errors import TreebenchError

METRICS = (
    "accuracy",
    "error",
    "train_accuracy",
    "n_leaves",
    "n_nodes",
    "depth",
    "fit_seconds",
    "predict_seconds",
    "tree_quality",
    "pignistic_error",
)
DEFAULT_METRICS = ("accuracy", "n_leaves")

#: Protocol type -> the keys it accepts besides ``type``.
PROTOCOL_KEYS: dict[str, tuple[str, ...]] = {
    "cv": ("folds", "repeats", "stratified"),
    "holdout": ("test_size", "repeats", "stratified"),
    "loo": (),
    "ordered": ("train_fraction",),
    "fixed": ("column", "train", "test"),
}
PRUNING = ("none", "pessimistic", "cost-complexity")
TOP_KEYS = (
    "experiment",
    "description",
    "seed",
    "datasets",
    "protocol",
    "tuning",
    "algorithms",
    "metrics",
    "store",
    "plugins",
    "label_uncertainty",
    "nominal",
)
#: How nominal attributes reach the learners: as categories (multiway or
#: one-vs-rest splits) or as their category codes, split by thresholds.
NOMINAL_MODES = ("categories", "codes")
DATASET_KEYS = ("name", "train", "test", "protocol")
ALGORITHM_KEYS = (
    "name", "criterion", "baseline", "params", "grid", "pruning", "online", "tune_as",
)
TUNING_KEYS = ("folds", "metric")
TUNING_METRICS = ("accuracy",)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class ConfigError(TreebenchError):
    """One or more problems in a config file, one per line."""

    def __init__(self, problems: list[str], path: str) -> None:
        self.problems = problems
        if len(problems) == 1:
            message = problems[0]
        else:
            message = f"{len(problems)} problems in {path}:\n" + "\n".join(
                f"  {p}" for p in problems
            )
        super().__init__(message)


# --------------------------------------------------------------------------- specs
@dataclass(frozen=True)
class ProtocolSpec:
    """How a dataset is split into training and test parts (see :mod:`.protocols`)."""

    kind: str
    folds: int = 10
    repeats: int = 1
    stratified: bool = True
    test_size: float = 0.3
    train_fraction: float = 0.8
    column: str = "split"
    train: str = "train"
    test: str = "test"

    def fields(self) -> dict[str, Any]:
        """The settings that matter for this kind (what identifies the splits)."""
        return {"type": self.kind, **{k: getattr(self, k) for k in PROTOCOL_KEYS[self.kind]}}

    @property
    def n_repeats(self) -> int:
        return self.repeats if self.kind in ("cv", "holdout") else 1

    @property
    def label(self) -> str:
        """Short text for the results' ``protocol`` column, e.g. ``cv10x1``."""
        if self.kind == "cv":
            return f"cv{self.folds}x{self.repeats}" + ("" if self.stratified else "-unstratified")
        if self.kind == "holdout":
            return f"holdout{self.test_size:g}x{self.repeats}" + (
                "" if self.stratified else "-unstratified"
            )
        if self.kind == "ordered":
            return f"ordered{self.train_fraction:g}"
        if self.kind == "fixed":
            return f"fixed:{self.column}" if self.column else "fixed:pair"
        return self.kind


#: The protocol of a ``{train: A, test: B}`` dataset entry: A is trained on, B tested.
PAIR_PROTOCOL = ProtocolSpec("fixed", column="")


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset of the config.

    ``label`` is what the config wrote (the results' ``dataset`` column);
    ``name`` (or ``train`` and ``test`` for a pair) are canonical card names,
    which also seed the splits, so an alias gives the same splits as its card.
    """

    label: str
    name: str | None
    protocol: ProtocolSpec
    train: str | None = None
    test: str | None = None
    expected_rows: int = 0
    #: ``codes``: nominal attributes become ordered category codes (see NOMINAL_MODES).
    nominal: str = "categories"

    @property
    def is_pair(self) -> bool:
        return self.train is not None

    @property
    def seed_name(self) -> str:
        return self.name if self.name is not None else f"{self.train}+{self.test}"


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm: a criterion or a baseline, fixed params and an optional grid.

    ``params`` and ``grid`` are tuples of pairs in the order written (frozen
    and picklable); ``grid_points`` enumerates the grid with the last
    parameter varying fastest, which is the order ties are broken in.
    """

    name: str
    criterion: str | None = None
    baseline: str | None = None
    params: tuple[tuple[str, Any], ...] = ()
    grid: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    pruning: str | None = None
    #: Grow the final tree online, one training example at a time in a seeded
    #: order (O-ΠTree); grid values are still chosen with batch trees.
    online: bool = False
    #: Take the grid values chosen by this other algorithm's inner CV on the
    #: same training part instead of tuning its own grid (paper 002 reuses the
    #: q tuned for Tsallis entropy for the Tsallis gain ratio).
    tune_as: AlgorithmSpec | None = None

    @property
    def fixed_params(self) -> dict[str, Any]:
        return dict(self.params)

    def grid_points(self) -> list[dict[str, Any]]:
        if not self.grid:
            return [{}]
        names = [name for name, _ in self.grid]
        return [
            dict(zip(names, values)) for values in itertools.product(*(v for _, v in self.grid))
        ]

    def tuning_points(self) -> list[dict[str, Any]]:
        """The grid points tuned for this algorithm: its own, or its ``tune_as`` algorithm's."""
        return (self.tune_as or self).grid_points()

    @property
    def kind(self) -> str:
        return (
            f"criterion:{self.criterion}"
            if self.criterion is not None
            else f"baseline:{self.baseline}"
        )

    def fields(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "params": dict(self.params),
            "grid": [[name, list(values)] for name, values in self.grid],
            "pruning": self.pruning,
            **({"online": True} if self.online else {}),
            **({"tune_as": self.tune_as.fields()} if self.tune_as is not None else {}),
        }


@dataclass(frozen=True)
class TuningSpec:
    """Inner cross-validation used to pick grid values."""

    folds: int = 5
    metric: str = "accuracy"

    def fields(self) -> dict[str, Any]:
        return {"folds": self.folds, "metric": self.metric}


@dataclass(frozen=True)
class Config:
    """A validated experiment config."""

    experiment: str
    seed: int
    datasets: tuple[DatasetSpec, ...]
    algorithms: tuple[AlgorithmSpec, ...]
    tuning: TuningSpec = field(default_factory=TuningSpec)
    metrics: tuple[str, ...] = DEFAULT_METRICS
    store: str = ""
    plugins: tuple[str, ...] = ()
    description: str = ""
    path: str = ""
    text: str = ""
    #: Simulated expert label uncertainty (paper 004), a LabelUncertainty or None.
    label_uncertainty: Any = None


# --------------------------------------------------------------------------- YAML with lines
class _Loader(yaml.SafeLoader):
    """Safe loader that also reads YAML 1.2 floats such as ``1e-3`` (1.1 needs a dot)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def _walk(node: yaml.Node, path: tuple, lines: dict, key_lines: dict, duplicates: list) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            child = (*path, key)
            if key in seen:
                duplicates.append((child, key_node.start_mark.line + 1))
            seen.add(key)
            key_lines[child] = key_node.start_mark.line + 1
            _walk(value_node, child, lines, key_lines, duplicates)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), lines, key_lines, duplicates)


def _field_name(path: tuple) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: "text", bool: "true/false"}.get(
        type(value), type(value).__name__
    )


class _Checker:
    """Collects problems with their line numbers."""

    def __init__(self, display: str, lines: dict, key_lines: dict) -> None:
        self.display = display
        self.lines = lines
        self.key_lines = key_lines
        self.problems: list[tuple[int, str]] = []

    def line(self, path: tuple, key: bool = False) -> int:
        if key and path in self.key_lines:
            return self.key_lines[path]
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path, 1)

    def add(self, path: tuple, message: str, key: bool = False) -> None:
        self.problems.append((self.line(path, key), f"{_field_name(path)}: {message}"))

    # -- typed fields ------------------------------------------------------------
    def mapping(
        self, value: Any, path: tuple, accepted: tuple[str, ...], required: tuple[str, ...] = ()
    ) -> dict | None:
        if not isinstance(value, dict):
            self.add(
                path, f"expected a mapping with keys {', '.join(accepted)}; got {_kind(value)}"
            )
            return None
        for key in value:
            if key not in accepted:
                close = difflib.get_close_matches(str(key), accepted, n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                self.add(
                    (*path, key),
                    f"unknown key {key!r}{hint}; accepted: {', '.join(accepted)}",
                    key=True,
                )
        for key in required:
            if key not in value:
                self.add(path, f"missing required key {key!r}")
        return value

    def integer(self, value: Any, path: tuple, minimum: int) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(path, f"expected an integer >= {minimum}; got {value!r}")
            return None
        if value < minimum:
            self.add(path, f"{value} is out of range; accepted: an integer >= {minimum}")
            return None
        return value

    def fraction(self, value: Any, path: tuple) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            self.add(path, f"expected a number strictly between 0 and 1; got {value!r}")
            return None
        return float(value)

    def text(self, value: Any, path: tuple, pattern: re.Pattern | None = None) -> str | None:
        if not isinstance(value, str) or not value.strip():
            self.add(path, f"expected non-empty text; got {_kind(value)} {value!r}")
            return None
        if pattern is not None and not pattern.match(value):
            self.add(
                path, f"{value!r} is not a valid name; accepted: letters, digits, '.', '_', '-'"
            )
            return None
        return value

    def boolean(self, value: Any, path: tuple) -> bool | None:
        if not isinstance(value, bool):
            self.add(path, f"expected true or false; got {value!r}")
            return None
        return value

    def choice(self, value: Any, path: tuple, accepted: tuple[str, ...], what: str) -> str | None:
        if value not in accepted:
            close = difflib.get_close_matches(str(value), accepted, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            self.add(path, f"unknown {what} {value!r}{hint}; accepted: {', '.join(accepted)}")
            return None
        return value


# --------------------------------------------------------------------------- loading
def load_config(path: str | Path) -> Config:
    """Read and validate a config file.

    Raises
    ------
    TreebenchError
        Missing file or YAML syntax error (one line), or :class:`ConfigError`
        listing every problem found.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TreebenchError(f"config file {str(path)!r} not found") from None
    except OSError as exc:
        raise TreebenchError(f"cannot read config {str(path)!r}: {exc.strerror}") from None
    return parse_config(text, str(path), base_dir=path.parent)


def parse_config(text: str, display: str = "<config>", base_dir: Path | None = None) -> Config:
    """Validate config ``text``; ``display`` names it in messages, ``base_dir`` resolves plugin paths."""
    try:
        node = yaml.compose(text, Loader=_Loader)
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{display}:{mark.line + 1}" if mark is not None else display
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise TreebenchError(f"{where}: YAML syntax error: {problem}") from None
    lines: dict = {}
    key_lines: dict = {}
    duplicates: list = []
    if node is not None:
        _walk(node, (), lines, key_lines, duplicates)
    check = _Checker(display, lines, key_lines)
    for dup_path, _line in duplicates:
        check.add(dup_path, "key given twice (the last one would silently win)", key=True)
    config = _validate(data, check, text, display, base_dir or Path.cwd())
    if check.problems:
        problems = [
            f"{display}:{line}: {message}"
            for line, message in sorted(check.problems, key=lambda p: p[0])
        ]
        raise ConfigError(problems, display)
    assert config is not None
    return config


def _validate(data: Any, check: _Checker, text: str, display: str, base_dir: Path) -> Config | None:
    top = check.mapping(data, (), TOP_KEYS, required=("experiment", "datasets", "algorithms"))
    if top is None:
        return None
    experiment = (
        check.text(top.get("experiment"), ("experiment",), _NAME) if "experiment" in top else None
    )
    description = top.get("description", "")
    if not isinstance(description, str):
        check.add(("description",), f"expected text; got {_kind(description)}")
    seed = check.integer(top.get("seed", 0), ("seed",), 0)
    plugins = _plugins(top.get("plugins", []), check, base_dir)
    protocol = _protocol(top["protocol"], ("protocol",), check) if "protocol" in top else None
    tuning = _tuning(top.get("tuning", {}), check)
    datasets = (
        _datasets(top.get("datasets"), protocol, "protocol" in top, check)
        if "datasets" in top
        else []
    )
    algorithms = _algorithms(top.get("algorithms"), check) if "algorithms" in top else []
    metrics = _metrics(top.get("metrics", list(DEFAULT_METRICS)), check)
    nominal = check.choice(top.get("nominal", "categories"), ("nominal",), NOMINAL_MODES, "nominal mode")
    if nominal == "codes":
        datasets = [replace(spec, nominal="codes") for spec in datasets]
    store = top.get("store", f"results/{experiment}.sqlite")
    label_uncertainty = None
    if "label_uncertainty" in top:
        from treebench.data.label_uncertainty import parse_label_uncertainty

        try:
            label_uncertainty = parse_label_uncertainty(top["label_uncertainty"])
        except TreebenchError as exc:
            check.add(("label_uncertainty",), str(exc))
    if not isinstance(store, str) or not store:
        check.add(("store",), f"expected a file path; got {_kind(store)}")
    if check.problems:
        return None
    return Config(
        experiment=str(experiment),
        seed=int(seed or 0),
        datasets=tuple(datasets),
        algorithms=tuple(algorithms),
        tuning=tuning or TuningSpec(),
        metrics=tuple(metrics),
        store=store,
        plugins=tuple(plugins),
        description=description,
        path=display,
        text=text,
        label_uncertainty=label_uncertainty,
    )


def _protocol(raw: Any, path: tuple, check: _Checker) -> ProtocolSpec | None:
    if isinstance(raw, str):  # shorthand: `protocol: loo`
        raw = {"type": raw}
    if not isinstance(raw, dict) or "type" not in raw:
        check.add(
            path, f"expected a mapping with a 'type' ({', '.join(PROTOCOL_KEYS)}); got {_kind(raw)}"
        )
        return None
    kind = check.choice(raw["type"], (*path, "type"), tuple(PROTOCOL_KEYS), "protocol type")
    if kind is None:
        return None
    if check.mapping(raw, path, ("type", *PROTOCOL_KEYS[kind])) is None:
        return None
    values: dict[str, Any] = {}
    for key in PROTOCOL_KEYS[kind]:
        if key not in raw:
            continue
        where = (*path, key)
        value = raw[key]
        if key == "folds":
            values[key] = check.integer(value, where, 2)
        elif key == "repeats":
            values[key] = check.integer(value, where, 1)
        elif key in ("test_size", "train_fraction"):
            values[key] = check.fraction(value, where)
        elif key == "stratified":
            values[key] = check.boolean(value, where)
        else:  # column, train, test: text (YAML may read a bare 1 as a number)
            values[key] = check.text(
                str(value) if isinstance(value, (int, float)) else value, where
            )
    if any(v is None for v in values.values()):
        return None
    if kind == "holdout" and "repeats" not in values:
        values["repeats"] = 10
    return ProtocolSpec(kind, **values)


def _tuning(raw: Any, check: _Checker) -> TuningSpec | None:
    tuning = check.mapping(raw, ("tuning",), TUNING_KEYS)
    if tuning is None:
        return None
    folds = check.integer(tuning.get("folds", 5), ("tuning", "folds"), 2)
    metric = check.choice(
        tuning.get("metric", "accuracy"), ("tuning", "metric"), TUNING_METRICS, "tuning metric"
    )
    if folds is None or metric is None:
        return None
    return TuningSpec(folds=folds, metric=metric)


def _metrics(raw: Any, check: _Checker) -> list[str]:
    if not isinstance(raw, list) or not raw:
        check.add(
            ("metrics",), f"expected a non-empty list of {', '.join(METRICS)}; got {_kind(raw)}"
        )
        return []
    return [
        m
        for i, m in enumerate(raw)
        if check.choice(m, ("metrics", i), METRICS, "metric") is not None
    ]


def _plugins(raw: Any, check: _Checker, base_dir: Path) -> list[str]:
    """Import plugin modules now, so the criteria they register can be validated."""
    if not isinstance(raw, list):
        check.add(("plugins",), f"expected a list of module names or .py files; got {_kind(raw)}")
        return []
    resolved = []
    for index, item in enumerate(raw):
        where = ("plugins", index)
        if check.text(item, where) is None:
            continue
        spec = str((base_dir / item).resolve()) if item.endswith(".py") else item
        try:
            import_plugin(spec)
        except TreebenchError as exc:
            check.add(where, str(exc))
            continue
        resolved.append(spec)
    return resolved


def import_plugin(spec: str) -> None:
    """Import a plugin: a module name, or the path of a ``.py`` file (imported once per process)."""
    if not spec.endswith(".py"):
        try:
            importlib.import_module(spec)
        except ImportError as exc:
            raise TreebenchError(f"cannot import plugin module {spec!r}: {exc}") from None
        return
    digest = hashlib.sha256(spec.encode()).hexdigest()[:10]  # stable across processes
    name = "treebench_plugin_" + re.sub(r"\W", "_", Path(spec).stem) + f"_{digest}"
    if name in sys.modules:
        return
    if not Path(spec).is_file():
        raise TreebenchError(f"plugin file {spec!r} not found")
    module_spec = importlib.util.spec_from_file_location(name, spec)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:  # a user's file: report, never crash the validation
        del sys.modules[name]
        raise TreebenchError(
            f"plugin {spec!r} failed to import: {type(exc).__name__}: {exc}"
        ) from None


def _datasets(
    raw: Any, protocol: ProtocolSpec | None, has_protocol: bool, check: _Checker
) -> list[DatasetSpec]:
    from treebench.data.cards import CardRegistry
    from treebench.data.settings import Settings

    if not isinstance(raw, list) or not raw:
        check.add(("datasets",), f"expected a non-empty list of dataset names; got {_kind(raw)}")
        return []
    registry = CardRegistry(Settings.from_env().cards_dir)

    def card(name: Any, where: tuple):
        if check.text(name, where) is None:
            return None
        try:
            return registry.get(name)
        except TreebenchError as exc:
            check.add(where, str(exc))
            return None

    specs: list[DatasetSpec] = []
    labels: set[str] = set()
    for index, entry in enumerate(raw):
        where = ("datasets", index)
        if isinstance(entry, dict):
            if check.mapping(entry, where, DATASET_KEYS) is None:
                continue
            own_protocol = (
                _protocol(entry["protocol"], (*where, "protocol"), check)
                if "protocol" in entry
                else None
            )
            if "train" in entry or "test" in entry:
                spec = _pair(entry, where, own_protocol, card, check)
            elif "name" not in entry:
                check.add(
                    where, "missing required key 'name' (or 'train' and 'test' for a fixed pair)"
                )
                continue
            else:
                found = card(entry["name"], (*where, "name"))
                chosen = own_protocol or protocol
                if found is None or (chosen is None and "protocol" in entry):
                    continue
                spec = _single(
                    entry["name"],
                    found,
                    chosen,
                    has_protocol or "protocol" in entry,
                    where,
                    registry,
                    check,
                )
        else:
            found = card(entry, where)
            if found is None:
                continue
            spec = _single(entry, found, protocol, has_protocol, where, registry, check)
        if spec is None:
            continue
        if spec.label in labels:
            check.add(where, f"dataset {spec.label!r} is listed twice")
            continue
        labels.add(spec.label)
        specs.append(spec)
    return specs


def _single(label, card, protocol, has_protocol, where, registry, check) -> DatasetSpec | None:
    if protocol is None:
        if not has_protocol:
            check.add(
                where, "no protocol: add a top-level 'protocol' or a 'protocol' for this dataset"
            )
        return None
    if protocol.kind == "fixed":
        columns = _non_features(card, registry)
        if protocol.column not in columns:
            accepted = (
                ", ".join(columns) if columns else "none (use {train: A, test: B} datasets instead)"
            )
            check.add(
                where,
                f"fixed protocol column {protocol.column!r} is not a column of dataset {card.name!r}; accepted: {accepted}",
            )
            return None
    return DatasetSpec(
        label=str(label), name=card.name, protocol=protocol, expected_rows=card.expected.rows
    )


def _pair(entry, where, own_protocol, card, check) -> DatasetSpec | None:
    for key in ("train", "test"):
        if key not in entry:
            check.add(
                where, f"a fixed train/test pair needs both 'train' and 'test'; missing {key!r}"
            )
            return None
    if own_protocol is not None:
        check.add(
            (*where, "protocol"), "a {train, test} pair is its own fixed split; remove 'protocol'"
        )
        return None
    train, test = card(entry["train"], (*where, "train")), card(entry["test"], (*where, "test"))
    if train is None or test is None:
        return None
    label = entry.get("name", f"{entry['train']}+{entry['test']}")
    if check.text(label, (*where, "name")) is None:
        return None
    return DatasetSpec(
        label=label,
        name=None,
        protocol=PAIR_PROTOCOL,
        train=train.name,
        test=test.name,
        expected_rows=train.expected.rows + test.expected.rows,
    )


def _non_features(card, registry) -> tuple[str, ...]:
    """Non-feature columns of a card, looking through derived cards to their base."""
    seen = set()
    while card.derived_from is not None and card.name not in seen:
        seen.add(card.name)
        card = registry.get(card.derived_from)
    return tuple(card.non_features)


def _algorithms(raw: Any, check: _Checker) -> list[AlgorithmSpec]:
    if not isinstance(raw, list) or not raw:
        check.add(("algorithms",), f"expected a non-empty list of algorithms; got {_kind(raw)}")
        return []
    specs, names = [], set()
    for index, entry in enumerate(raw):
        spec = _algorithm(entry, ("algorithms", index), check)
        if spec is None:
            continue
        if spec.name in names:
            check.add(("algorithms", index, "name"), f"algorithm name {spec.name!r} is used twice")
            continue
        names.add(spec.name)
        specs.append(spec)
    return _resolve_tune_as(raw, specs, check)


def _resolve_tune_as(raw: list, specs: list[AlgorithmSpec], check: _Checker) -> list[AlgorithmSpec]:
    """Link each ``tune_as: NAME`` to the algorithm called NAME, which must tune its own grid."""
    entries = {entry.get("name"): (i, entry) for i, entry in enumerate(raw) if isinstance(entry, dict)}
    tuners = {s.name: s for s in specs if s.grid and "tune_as" not in entries[s.name][1]}
    resolved = []
    for spec in specs:
        index, entry = entries[spec.name]
        if "tune_as" not in entry:
            resolved.append(spec)
            continue
        where = ("algorithms", index, "tune_as")
        target = entry["tune_as"]
        if not isinstance(target, str) or target not in tuners or target == spec.name:
            accepted = ", ".join(n for n in tuners if n != spec.name) or "none (no algorithm has a grid)"
            check.add(where, f"tune_as {target!r} is not another algorithm with its own grid; accepted: {accepted}")
            continue
        if spec.grid:
            check.add(where, "an algorithm with tune_as takes its grid values from it; remove its own 'grid'")
            continue
        if spec.criterion is None or tuners[target].criterion is None:
            check.add(where, "tune_as links two criterion algorithms; baselines tune their own grids")
            continue
        grid = {key: list(values) for key, values in tuners[target].grid}
        if _criterion_params(spec.criterion, dict(spec.params), grid, where, check) is not None:
            resolved.append(replace(spec, tune_as=tuners[target]))
    return resolved


def _algorithm(raw: Any, where: tuple, check: _Checker) -> AlgorithmSpec | None:
    from treebench.criteria import available
    from treebench.experiment import baselines

    entry = check.mapping(raw, where, ALGORITHM_KEYS, required=("name",))
    if entry is None:
        return None
    before = len(check.problems)
    name = check.text(entry.get("name"), (*where, "name"), _NAME) if "name" in entry else None
    if ("criterion" in entry) == ("baseline" in entry):
        check.add(
            where,
            "give exactly one of 'criterion' (accepted: "
            f"{', '.join(available())}) or 'baseline' (accepted: {', '.join(baselines.available())})",
        )
        return None
    params = entry.get("params", {}) or {}
    grid = entry.get("grid", {}) or {}
    if not isinstance(params, dict):
        check.add(
            (*where, "params"), f"expected a mapping of parameter: value; got {_kind(params)}"
        )
        params = None
    if not isinstance(grid, dict):
        check.add((*where, "grid"), f"expected a mapping of parameter: [values]; got {_kind(grid)}")
        grid = None
    if params is None or grid is None:
        return None
    for key in grid:
        values = grid[key]
        if not isinstance(values, list) or not values:
            check.add(
                (*where, "grid", key), f"expected a non-empty list of values; got {_kind(values)}"
            )
        elif len({repr(v) for v in values}) != len(values):
            check.add((*where, "grid", key), "a value is listed twice")
        if key in params:
            check.add(
                (*where, "grid", key), f"{key!r} is both a fixed param and a grid param; keep one"
            )
    if "criterion" in entry:
        checked = _criterion_params(entry["criterion"], params, grid, where, check)
    else:
        checked = _baseline_params(entry["baseline"], params, grid, where, check)
    pruning = check.choice(entry.get("pruning", "none"), (*where, "pruning"), PRUNING, "pruning")
    if pruning not in (None, "none") and "baseline" in entry:
        check.add(
            (*where, "pruning"),
            f"baseline {entry['baseline']!r} prunes through its own params (sklearn-cart: ccp_alpha); "
            "accepted here: none",
        )
    if checked is not None and pruning is not None and "criterion" in entry:
        _check_pruning_params(pruning, checked, where, check)
    online = check.boolean(entry.get("online", False), (*where, "online"))
    if checked is not None and "criterion" in entry and _own_builder(entry["criterion"]):
        if pruning not in (None, "none") or online:
            check.add(
                (*where, "pruning" if pruning not in (None, "none") else "online"),
                f"criterion {entry['criterion']!r} grows unpruned batch trees; accepted here: pruning: none, online: false",
            )
    if online and "baseline" in entry:
        check.add((*where, "online"), "online trees need a 'criterion'; baselines are batch learners")
    if online and pruning not in (None, "none"):
        check.add((*where, "online"), "online trees are not pruned; accepted here: pruning: none")
    if len(check.problems) > before or checked is None:
        return None
    fixed, grid_values = checked
    return AlgorithmSpec(
        name=str(name),
        criterion=entry.get("criterion"),
        baseline=entry.get("baseline"),
        params=tuple(fixed.items()),
        grid=tuple((k, tuple(v)) for k, v in grid_values.items()),
        pruning=None if pruning == "none" else pruning,
        online=bool(online),
    )


def _own_builder(criterion: str) -> bool:
    """Whether a (valid) criterion grows its trees with its own builder (mee)."""
    from treebench.criteria import criterion_class

    return bool(getattr(criterion_class(criterion), "own_builder", False))


def _check_pruning_params(pruning: str, checked: tuple, where: tuple, check: _Checker) -> None:
    """A pruning parameter without its pruning would silently do nothing: say so."""
    from treebench.experiment.learners import PRUNING_PARAMS

    fixed, grid = checked
    for section, names in (("params", fixed), ("grid", grid)):
        for name in names:
            needed = PRUNING_PARAMS.get(name)
            if needed is not None and needed != pruning:
                check.add(
                    (*where, section, name),
                    f"{name!r} applies to pruning: {needed} only; this algorithm has pruning: {pruning}",
                    key=True,
                )


def _criterion_params(criterion, params, grid, where, check):
    from treebench.criteria import criterion_class
    from treebench.experiment.learners import TREE_PARAMS, criterion_params, validate_tree_param

    if check.text(criterion, (*where, "criterion")) is None:
        return None
    try:
        declared = criterion_params(criterion)
    except TreebenchError as exc:
        check.add((*where, "criterion"), str(exc))
        return None
    # a criterion with its own tree builder (mee) names the tree parameters it takes
    allowed = getattr(criterion_class(criterion), "tree_params", None)
    tree_params = {k: v for k, v in TREE_PARAMS.items() if allowed is None or k in allowed}
    accepted = [
        *(p.describe() for p in declared.values()),
        *(f"{k} ({v})" for k, v in tree_params.items()),
    ]

    def one(key, value, path):
        if key in declared:
            return declared[key].validate(value, criterion)
        if key in tree_params:
            return validate_tree_param(key, value)
        close = difflib.get_close_matches(str(key), [*declared, *tree_params], n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise TreebenchError(
            f"criterion {criterion!r} has no parameter {key!r}{hint}; accepted: {'; '.join(accepted)}"
        )

    return _check_values(params, grid, where, check, one)


def _baseline_params(baseline, params, grid, where, check):
    from treebench.experiment.baselines import baseline_class

    if check.text(baseline, (*where, "baseline")) is None:
        return None
    try:
        cls = baseline_class(baseline)
    except TreebenchError as exc:
        check.add((*where, "baseline"), str(exc))
        return None

    def one(key, value, path):
        cls.validate_params({key: value})
        return value

    checked = _check_values(params, grid, where, check, one)
    combination = getattr(cls, "validate_combination", None)  # checks across parameters
    if checked is not None and combination is not None:
        fixed, grid_values = checked
        try:
            combination({**fixed, **{k: v[0] for k, v in grid_values.items() if v}})
        except TreebenchError as exc:
            check.add((*where, "params"), str(exc), key=True)
            return None
    return checked


def _check_values(params, grid, where, check, one):
    """Validate fixed params and every grid value with ``one(key, value, path)``."""
    fixed, grid_values, ok = {}, {}, True
    for key, value in params.items():
        path = (*where, "params", key)
        try:
            fixed[key] = one(key, value, path)
        except TreebenchError as exc:
            check.add(path, str(exc), key=True)
            ok = False
    for key, values in grid.items():
        if not isinstance(values, list):
            continue
        coerced = []
        for index, value in enumerate(values):
            path = (*where, "grid", key, index)
            try:
                coerced.append(one(key, value, path))
            except TreebenchError as exc:
                check.add(path, str(exc))
                ok = False
                break  # one message per grid parameter is enough (unknown names repeat otherwise)
        grid_values[key] = coerced
    return (fixed, grid_values) if ok else None
