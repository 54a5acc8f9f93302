"""Experiment configs: YAML -> validated, frozen :class:`Config`.

Every problem in a config is collected (not just the first) and reported as
``file:line: field: what is wrong; accepted: ...``.  Line numbers come from
PyYAML's composed node tree, which keeps the position of every key and value.
The schema is documented, with a full example, in ``docs/configs.md``.

A config may not ask for more than the machine can sensibly do: the file is
at most :data:`~treebench.yamlcheck.MAX_FILE_BYTES` (aliases and nesting are
bounded by :mod:`treebench.yamlcheck`), the seed fits 32 bits, folds, repeats
and grids are bounded (:data:`MAX_FOLDS`, :data:`MAX_REPEATS`,
:data:`MAX_GRID_POINTS`), and :func:`check_trial_count` refuses a config
planning more than ``--max-trials`` trials before anything runs.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from treebench.errors import TreebenchError
from treebench.experiment.plugins import import_plugin
from treebench.experiment.specs import (  # noqa: F401 - the specs are part of the config API
    ALGORITHM_KEYS,
    DATASET_KEYS,
    DEFAULT_METRICS,
    MAX_FOLDS,
    MAX_GRID_POINTS,
    MAX_REPEATS,
    MAX_SEED,
    MAX_TRIALS,
    METRICS,
    NOMINAL_MODES,
    PAIR_PROTOCOL,
    PREDICTION_METRICS,
    PROTOCOL_KEYS,
    PRUNING,
    TIE_RULES,
    TOP_KEYS,
    TUNE_ON,
    TUNING_KEYS,
    TUNING_METRICS,
    AlgorithmSpec,
    Config,
    DatasetSpec,
    ProtocolSpec,
    TuningSpec,
)
from treebench.yamlcheck import Checker, ProblemsError, PureLoader, parse, read_text, value_kind

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
#: What an experiment or algorithm name may be (``_NAME``), for code that makes names for a config.
NAME_PATTERN = _NAME
NAME_ACCEPTED = "letters, digits, '.', '_' and '-', starting with a letter or digit"
#: The longest experiment name, algorithm name or dataset label: each is printed in every table
#: and drawn on every figure, so 200 characters leaves room for any real name.
MAX_NAME_CHARS = 200
#: The longest ``description`` (free text, printed once at the top of a report).
MAX_DESCRIPTION_CHARS = 5000


class ConfigError(ProblemsError):
    """One or more problems in a config file, one per line."""


# --------------------------------------------------------------------------- loading
def load_config(path: str | Path) -> Config:
    """Read and validate a config file.

    Raises
    ------
    TreebenchError
        A file that cannot be read as a config (missing, a folder, larger
        than :data:`~treebench.yamlcheck.MAX_FILE_BYTES`, not UTF-8), a YAML
        syntax error or a document beyond :mod:`treebench.yamlcheck`'s limits
        (one line each), or :class:`ConfigError` listing every problem found.
    """
    path = Path(path)
    text = read_text(path, "config")  # one line when missing, a folder, too large, not UTF-8
    config = parse_config(text, str(path), base_dir=path.parent)
    _check_not_moved(config, path)
    return config


def _check_not_moved(config: Config, path: Path) -> None:
    """Refuse a config whose absolute ``store`` lies elsewhere while a store of that name sits beside it.

    A config written next to its store with the store's absolute path (a leaderboard's) that was
    then moved or copied with its folder still names the old place: reading it would show another
    folder's trials, and running it would write into them.
    """
    store = Path(config.store)
    if not store.is_absolute():
        return
    beside = path.parent / store.name
    try:
        moved = beside.is_file() and store.parent.resolve() != path.parent.resolve()
    except OSError:
        return
    if moved:
        raise TreebenchError(f"{path} names the store {str(store)!r}, but a store of that name sits beside it "
                             f"({str(beside)!r}): the folder was moved or copied since the config was written, so "
                             "it would read and write another folder's store; accepted: a config whose store: is "
                             "the one meant (a leaderboard rewrites its configs when rerun with --out on its folder)")


def parse_config(text: str, display: str = "<config>", base_dir: Path | None = None) -> Config:
    """Validate config ``text``; ``display`` names it in messages, ``base_dir`` resolves plugin paths."""
    document = parse(text, display, loader=PureLoader)
    check = Checker.for_document(display, document)
    config = _validate(document.data, check, text, display, base_dir or Path.cwd())
    check.raise_problems(ConfigError)
    assert config is not None
    return config


def _validate(data: Any, check: Checker, text: str, display: str, base_dir: Path) -> Config | None:
    if data is None:  # an empty file, or comments only
        check.add((), f"the config is empty; expected a mapping with keys {', '.join(TOP_KEYS)}")
        return None
    top = check.mapping(data, (), TOP_KEYS, required=("experiment", "datasets", "algorithms"))
    if top is None:
        return None
    experiment = None
    if "experiment" in top and not _too_long(top["experiment"], "experiment name", ("experiment",), check,
                                             MAX_NAME_CHARS):
        experiment = check.text(top["experiment"], ("experiment",), _NAME)
    description = top.get("description", "")
    if not isinstance(description, str):
        check.add(("description",), f"expected text; got {value_kind(description)}")
    elif _too_long(description, "description", ("description",), check, MAX_DESCRIPTION_CHARS):
        description = ""
    seed = check.integer(top.get("seed", 0), ("seed",), 0, MAX_SEED)
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
        check.add(("store",), f"expected a file path; got {value_kind(store)}")
    predictions = top.get("predictions", False)
    if not isinstance(predictions, bool):
        check.add(("predictions",), f"expected true or false; got {value_kind(predictions)}")
    _check_probability_metrics(metrics, tuning, algorithms, check)
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
        predictions=bool(predictions),
    )


def _protocol(raw: Any, path: tuple, check: Checker) -> ProtocolSpec | None:
    if isinstance(raw, str):  # shorthand: `protocol: loo`
        raw = {"type": raw}
    if not isinstance(raw, dict) or "type" not in raw:
        check.add(
            path, f"expected a mapping with a 'type' ({', '.join(PROTOCOL_KEYS)}); got {value_kind(raw)}"
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
            values[key] = check.integer(value, where, 2, MAX_FOLDS)
        elif key == "repeats":
            values[key] = check.integer(value, where, 1, MAX_REPEATS)
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


def _tuning(raw: Any, check: Checker) -> TuningSpec | None:
    tuning = check.mapping(raw, ("tuning",), TUNING_KEYS)
    if tuning is None:
        return None
    folds = check.integer(tuning.get("folds", 5), ("tuning", "folds"), 2, MAX_FOLDS)
    metric = check.choice(
        tuning.get("metric", "accuracy"), ("tuning", "metric"), TUNING_METRICS, "tuning metric"
    )
    ties = check.choice(tuning.get("ties", "fewest-leaves"), ("tuning", "ties"), TIE_RULES, "tie rule")
    if folds is None or metric is None or ties is None:
        return None
    return TuningSpec(folds=folds, metric=metric, ties=ties)


def _metrics(raw: Any, check: Checker) -> list[str]:
    from treebench.learners.registry import declared_metrics

    # the fixed measures, the metrics of predictions, then those some learner adds (e.g. a label-mass measure)
    accepted = (*METRICS, *PREDICTION_METRICS, *declared_metrics())
    if not isinstance(raw, list) or not raw:
        check.add(
            ("metrics",), f"expected a non-empty list of {', '.join(accepted)}; got {value_kind(raw)}"
        )
        return []
    return [
        m
        for i, m in enumerate(raw)
        if check.choice(m, ("metrics", i), accepted, "metric") is not None
    ]


def _check_probability_metrics(metrics: list[str], tuning: TuningSpec | None, algorithms: list[AlgorithmSpec],
                               check: Checker) -> None:
    """A metric of class probabilities needs every algorithm to give them (Weka's J48 and C5.0 do not)."""
    from treebench.learners.registry import baseline_class, criterion_learner_class
    from treebench.stats.prediction_metrics import PREDICTION_METRICS as SCORERS

    wanted = [(("metrics", i), m) for i, m in enumerate(metrics) if m in SCORERS and SCORERS[m].needs_proba]
    if tuning is not None and tuning.metric in SCORERS and SCORERS[tuning.metric].needs_proba:
        wanted.append((("tuning", "metric"), tuning.metric))
    if not wanted:
        return
    for algorithm in algorithms:
        try:
            cls = (criterion_learner_class(algorithm.criterion, algorithm.online) if algorithm.criterion is not None
                   else baseline_class(str(algorithm.baseline)))
        except TreebenchError:
            continue  # reported where the algorithm is checked
        if not cls.gives_probabilities:
            where, metric = wanted[0]
            check.add(where, f"{metric} needs class probabilities, which algorithm {algorithm.name!r} "
                             f"({algorithm.baseline or algorithm.criterion}) does not give; accepted: a metric of "
                             f"labels ({', '.join(m for m in PREDICTION_METRICS if not SCORERS[m].needs_proba)}) "
                             "or algorithms that give probabilities")
            return


def _plugins(raw: Any, check: Checker, base_dir: Path) -> list[str]:
    """Import plugin modules now, so the criteria they register can be validated."""
    if not isinstance(raw, list):
        check.add(("plugins",), f"expected a list of module names or .py files; got {value_kind(raw)}")
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


def _datasets(
    raw: Any, protocol: ProtocolSpec | None, has_protocol: bool, check: Checker
) -> list[DatasetSpec]:
    from treebench.data.cards import CardRegistry
    from treebench.data.settings import Settings

    if not isinstance(raw, list) or not raw:
        check.add(("datasets",), f"expected a non-empty list of dataset names; got {value_kind(raw)}")
        return []
    settings = Settings.from_env()
    registry = CardRegistry(settings.card_folders)

    def card(name: Any, where: tuple):
        if check.text(name, where) is None:
            return None
        try:
            return card_named(name, registry)
        except TreebenchError as exc:
            check.add(where, str(exc))
            return None

    def tasks(name: Any, where: tuple) -> list[DatasetSpec] | None:
        """``openml-task:ID`` / ``openml-suite:ID``: one spec per task; None for anything else."""
        if not isinstance(name, str) or not name.startswith(("openml-task:", "openml-suite:")):
            return None
        try:
            return _openml_tasks(name, settings)
        except TreebenchError as exc:
            check.add(where, str(exc))
            return []

    specs: list[DatasetSpec] = []
    labels: set[str] = set()
    tables: dict[tuple, str] = {}
    for index, entry in enumerate(raw):
        where = ("datasets", index)
        name = entry.get("name") if isinstance(entry, dict) else entry
        found_tasks = tasks(name, (*where, "name") if isinstance(entry, dict) else where)
        if found_tasks is not None:
            extra = sorted(set(entry) - {"name"}) if isinstance(entry, dict) else []
            if extra:
                check.add(
                    (*where, extra[0]),
                    f"an OpenML task brings its dataset and its own splits; remove {extra[0]!r} (accepted here: name)",
                    key=True,
                )
                continue
            for spec in found_tasks:
                if spec.label in labels:
                    check.add(where, f"dataset {spec.label!r} is listed twice")
                    continue
                labels.add(spec.label)
                specs.append(spec)
            continue
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
        if _too_long(spec.label, "dataset label", where, check, MAX_NAME_CHARS):
            continue
        if _unprintable(spec.label, "dataset label", where, check):
            continue
        if spec.label in labels:
            check.add(where, f"dataset {spec.label!r} is listed twice")
            continue
        # one table under two names (a card and its alias, or its OpenML id) would count twice
        # in every rank, test and win: refused, naming the entry it repeats
        table = _table_key(spec, registry)
        if table in tables:
            first = tables[table]
            same = (card_relation(spec.name, registry) if spec.name else
                    f"train {spec.train!r} and test {spec.test!r}" if spec.train else "the same OpenML task")
            check.add(where, f"dataset {spec.label!r} is the same table as {first!r} "
                             f"({same}, the same protocol); accepted: each dataset once")
            continue
        tables[table] = spec.label
        labels.add(spec.label)
        specs.append(spec)
    return specs


def _table_key(spec: DatasetSpec, registry) -> tuple:  # noqa: ANN001 - a CardRegistry
    """What makes two dataset entries one table: the card's table (:func:`table_of`), the split files,
    the protocol, the encoding."""
    name = table_of(spec.name, registry) if spec.name else spec.name
    return (name, spec.train, spec.test, spec.protocol, spec.nominal, spec.openml_task)


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


def card_named(name: str, registry):  # noqa: ANN001, ANN202 - a CardRegistry, a Card
    """The card a dataset entry names: a card name, an alias or ``openml:ID``."""
    from treebench.data.openml import is_ref

    return openml_card(name, registry) if is_ref(name) else registry.get(name)


#: The parts of a table ``X`` that have cards of their own (``monks-1-train``, ``shuttle-test``).
TABLE_PARTS = ("train", "test")


def table_of(card: str, registry) -> str:  # noqa: ANN001 - a CardRegistry
    """The table whose rows the card ``card`` holds: ``X`` for a part ``X-train`` or ``X-test`` when
    a card ``X`` exists (its training or test rows, or all of them), else ``card`` itself.

    Two such cards in one selection would count one problem twice in every rank, test and win, as
    the bundled suite says when it leaves the parts out.  Derived cards (a class subset, a
    relabelling: ``ecoli4``, ``abalone-18``) pose another problem and are tables of their own.
    """
    stem, _, part = card.rpartition("-")
    if part in TABLE_PARTS and stem and stem in registry.names():
        return stem
    return card


def card_relation(card: str, registry) -> str:  # noqa: ANN001 - a CardRegistry
    """How a message names the table of ``card``: ``card 'wdbc'`` or ``card 'monks-1-train', the train
    part of table 'monks-1'``."""
    table = table_of(card, registry)
    if table == card:
        return f"card {card!r}"
    return f"card {card!r}, the {card.rpartition('-')[2]} part of table {table!r}"


def openml_card(name: str, registry):  # noqa: ANN202 - a Card
    """The card of ``openml:ID``: the one whose ``openml.id`` is ID (a user card first)."""
    from treebench.data.openml import parse_ref

    dataset_id = parse_ref(name, ("dataset", "task", "suite")).key
    naming = [c for c in registry.all() if c.openml is not None and c.openml.id == dataset_id]
    for found in sorted(naming, key=lambda c: (c.path.parent == registry.directory, c.name)):
        return found  # a user card before a built-in one
    raise TreebenchError(
        f"no dataset card names OpenML dataset {dataset_id}; write one with `treebench datasets add {name}`, "
        f"or run an OpenML task on it (openml-task:ID)"
    )


def _openml_tasks(name: str, settings) -> list[DatasetSpec]:  # noqa: ANN001
    """The dataset entries of ``openml-task:ID`` (one) or ``openml-suite:ID|ALIAS`` (one per task).

    Each runs on the task's own splits (protocol ``openml``); its label is
    ``openml-task:ID`` (as written for a single task).
    """
    from treebench.data.openml import parse_ref, suite, task_info

    ref = parse_ref(name, ("task", "suite"))
    ids = [int(ref.key)] if ref.kind == "task" else list(suite(ref.key, settings).tasks)
    specs = []
    for task_id in ids:
        info = task_info(task_id, settings)
        label = name if ref.kind == "task" else f"openml-task:{task_id}"
        protocol = ProtocolSpec("openml", folds=info.folds, repeats=info.repeats, task=task_id)
        specs.append(
            DatasetSpec(label=label, name=f"openml-task:{task_id}", protocol=protocol, openml_task=task_id)
        )
    return specs


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


def _too_long(value: Any, what: str, where: tuple, check: Checker, limit: int) -> bool:
    """Refuse (and return True for) text longer than ``limit`` characters.

    The message shows only the start of the value: echoing a megabyte would bury the line.
    """
    if isinstance(value, str) and len(value) > limit:
        check.add(where, f"{what} {value[:40]!r}... is {len(value)} characters long; "
                         f"accepted: at most {limit} characters")
        return True
    return False


def _unprintable(text: str, what: str, where: tuple, check: Checker) -> bool:
    """Refuse (and return True for) a label holding a line break or another control character: it
    is printed in every table, Markdown and LaTeX output, where it would split or restyle a row."""
    from treebench.text_table import line_break

    bad = line_break(str(text))
    if bad is None:
        return False
    check.add(where, f"{what} {text!r} holds the control character '{bad}', which would break the rows of "
                     "every table it is printed in; accepted: printable characters (spaces and tabs allowed)")
    return True


def _non_features(card, registry) -> tuple[str, ...]:
    """Non-feature columns of a card, looking through derived cards to their base."""
    seen = set()
    while card.derived_from is not None and card.name not in seen:
        seen.add(card.name)
        card = registry.get(card.derived_from)
    return tuple(card.non_features)


def _algorithms(raw: Any, check: Checker) -> list[AlgorithmSpec]:
    if not isinstance(raw, list) or not raw:
        check.add(("algorithms",), f"expected a non-empty list of algorithms; got {value_kind(raw)}")
        return []
    specs, names = [], set()
    for index, entry in enumerate(raw):
        spec = _algorithm(entry, ("algorithms", index), check)
        if spec is None or _unprintable(spec.name, "algorithm name", ("algorithms", index, "name"), check):
            continue
        if spec.name in names:
            check.add(("algorithms", index, "name"), f"algorithm name {spec.name!r} is used twice")
            continue
        names.add(spec.name)
        specs.append(spec)
    return _resolve_tune_as(raw, specs, check)


def _resolve_tune_as(raw: list, specs: list[AlgorithmSpec], check: Checker) -> list[AlgorithmSpec]:
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


def _algorithm(raw: Any, where: tuple, check: Checker) -> AlgorithmSpec | None:
    from treebench.criteria import available
    from treebench.learners.registry import available_baselines, estimator_baselines

    entry = check.mapping(raw, where, ALGORITHM_KEYS, required=("name",))
    if entry is None:
        return None
    before = len(check.problems)
    name = None
    if "name" in entry and not _too_long(entry["name"], "algorithm name", (*where, "name"), check, MAX_NAME_CHARS):
        name = check.text(entry.get("name"), (*where, "name"), _NAME)
    if ("criterion" in entry) == ("baseline" in entry):
        check.add(
            where,
            "give exactly one of 'criterion' (accepted: "
            f"{', '.join(available())}) or 'baseline' (accepted: {', '.join(available_baselines())})",
        )
        return None
    # `params: {}` is harmless; an empty `grid:` would silently run untuned (leave it out for that)
    params = entry.get("params", {})
    grid = entry.get("grid", {})
    if not isinstance(params, dict):
        check.add(
            (*where, "params"), f"expected a mapping of parameter: value; got {value_kind(params)}"
        )
        params = None
    if not isinstance(grid, dict) or ("grid" in entry and not grid):
        got = "an empty mapping" if grid == {} else value_kind(grid)
        check.add(
            (*where, "grid"),
            f"expected a non-empty mapping of parameter: [values]; got {got} (leave 'grid' out to run untuned)",
        )
        grid = None
    if params is None or grid is None:
        return None
    for key in grid:
        values = grid[key]
        if not isinstance(values, list) or not values:
            check.add(
                (*where, "grid", key), f"expected a non-empty list of values; got {value_kind(values)}"
            )
        elif len({repr(v) for v in values}) != len(values):
            check.add((*where, "grid", key), "a value is listed twice")
        if key in params:
            check.add(
                (*where, "grid", key), f"{key!r} is both a fixed param and a grid param; keep one"
            )
    points = math.prod(len(v) for v in grid.values() if isinstance(v, list))
    if points > MAX_GRID_POINTS:
        check.add(
            (*where, "grid"),
            f"the grid has {points} points (the product of its value counts); accepted: at most {MAX_GRID_POINTS}",
        )
    if "criterion" in entry:
        if "estimator" in entry:
            check.add(
                (*where, "estimator"),
                "a criterion algorithm takes no 'estimator'; accepted: 'estimator' with "
                f"baseline: {' or '.join(estimator_baselines())} only",
                key=True,
            )
        checked = _criterion_params(entry["criterion"], params, grid, where, check)
    else:
        checked = _baseline_params(entry["baseline"], params, grid, where, check, entry.get("estimator"))
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
    if checked is not None and "criterion" in entry:
        _check_learner_kind(entry["criterion"], pruning, online, where, check)
    if online and "baseline" in entry:
        check.add((*where, "online"), "online trees need a 'criterion'; baselines are batch learners")
    if online and pruning not in (None, "none"):
        check.add((*where, "online"), "online trees are not pruned; accepted here: pruning: none")
    tune_online = check.boolean(entry.get("tune_online", True), (*where, "tune_online"))
    if "tune_online" in entry and not online:
        check.add((*where, "tune_online"), "tune_online applies to online trees only; add online: true or remove it")
    if checked is not None and not online and "criterion" in entry:
        _check_online_params(checked, where, check)
    tune_on = check.choice(entry.get("tune_on", "inner-cv"), (*where, "tune_on"), TUNE_ON, "tune_on")
    if "tune_on" in entry and "tune_as" in entry:
        check.add((*where, "tune_on"), "an algorithm with tune_as is tuned where its tuner is; remove tune_on")
    elif tune_on == "test" and not grid:
        check.add((*where, "tune_on"), "tune_on: test chooses among grid values; add a 'grid' or remove it "
                                       "(accepted without one: inner-cv)")
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
        tune_online=bool(tune_online),
        estimator=entry.get("estimator") if "baseline" in entry else None,
        tune_on=str(tune_on),
    )


def _check_learner_kind(criterion: str, pruning: str | None, online: bool, where: tuple, check: Checker) -> None:
    """Pruning and online growth only where the criterion's learner offers them."""
    from treebench.learners.registry import criterion_learner_class, learner_kind

    learner = criterion_learner_class(criterion)
    if pruning not in (None, "none") and not learner.supports_pruning:
        check.add(
            (*where, "pruning"),
            f"criterion {criterion!r} grows unpruned batch trees; accepted here: pruning: none, online: false",
        )
    elif online and learner_kind(criterion) != "tree":
        check.add(
            (*where, "online"),
            f"criterion {criterion!r} grows unpruned batch trees; accepted here: pruning: none, online: false",
        )


def _check_pruning_params(pruning: str, checked: tuple, where: tuple, check: Checker) -> None:
    """A pruning parameter without its pruning would silently do nothing: say so."""
    from treebench.trees.settings import PRUNING_PARAMS

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


def _check_online_params(checked: tuple, where: tuple, check: Checker) -> None:
    """An online tree's parameter (``order``) on a batch algorithm would do nothing: say so."""
    from treebench.trees.settings import ONLINE_PARAMS

    fixed, grid = checked
    for section, names in (("params", fixed), ("grid", grid)):
        for name in names:
            if name in ONLINE_PARAMS:
                check.add((*where, section, name), f"{name!r} applies to online trees only; add online: true or "
                          "remove it", key=True)


def _criterion_params(criterion, params, grid, where, check):
    from treebench.criteria import criterion_class
    from treebench.trees.settings import TREE_PARAMS, validate_tree_param

    if check.text(criterion, (*where, "criterion")) is None:
        return None
    try:
        declared = {p.name: p for p in criterion_class(criterion).all_params()}
    except TreebenchError as exc:
        check.add((*where, "criterion"), str(exc))
        return None
    # a criterion with its own tree builder names the tree parameters it takes
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


def _baseline_params(baseline, params, grid, where, check, estimator=None):
    """Check a baseline's name, its ``estimator`` (a dotted path, for the baselines that take one) and params."""
    from treebench.learners.registry import (
        baseline_class,
        check_estimator,
        takes_estimator,
        validate_baseline_params,
    )

    if check.text(baseline, (*where, "baseline")) is None:
        return None
    try:
        baseline_class(baseline)
    except TreebenchError as exc:
        check.add((*where, "baseline"), str(exc))
        return None
    try:
        check_estimator(baseline, estimator)
    except TreebenchError as exc:
        if estimator is None:  # the baseline needs one
            check.add((*where, "baseline"), str(exc))
        else:
            check.add((*where, "estimator"), str(exc), key=not takes_estimator(baseline))
        return None

    def one(key, value, path):
        validate_baseline_params(baseline, {key: value}, estimator)
        return value

    checked = _check_values(params, grid, where, check, one)
    if checked is not None:  # checks across parameters, on the first value of each grid
        fixed, grid_values = checked
        try:
            validate_baseline_params(baseline, {**fixed, **{k: v[0] for k, v in grid_values.items() if v}}, estimator)
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


# --------------------------------------------------------------------------- limits
def planned_trials(config: Config) -> int:
    """How many trials ``config`` plans: every dataset's outer splits times the algorithms.

    Leave-one-out counts the rows the dataset's card expects, so nothing is
    loaded and this is cheap however large the answer.
    """
    from treebench.experiment.protocols import n_folds

    splits = sum(
        spec.protocol.n_repeats * n_folds(spec.protocol, spec.expected_rows)
        for spec in config.datasets
    )
    return splits * len(config.algorithms)


def check_trial_count(config: Config, max_trials: int = MAX_TRIALS) -> int:
    """:func:`planned_trials` of ``config``, refused when above ``max_trials``.

    Raises
    ------
    TreebenchError
        One line giving the count, the limit and the flag that lifts it.
    """
    count = planned_trials(config)
    if count > max_trials:
        raise TreebenchError(
            f"{config.path}: the config plans {count} trials (outer splits x algorithms), more "
            f"than {max_trials}; accepted: at most {max_trials} (raise it with treebench run --max-trials N)"
        )
    return count
