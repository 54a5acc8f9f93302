"""Weka's J48 (J4.8, Weka's C4.5 release 8): the ``weka-j48`` baseline.

With JPype installed (the ``weka`` extra) Weka runs inside the worker process
(:mod:`treebench.learners.weka_jvm`): the same classes, options and ARFF
text, one JVM per worker, about 10 ms per small fit.  Otherwise, or with
``TREEBENCH_WEKA_ENGINE=java``, a trial costs two JVM starts (about 1.5 s),
whatever the tuning:

1. ``java -cp weka.jar <classifier> -t train.arff -no-cv -v -d model.bin``:
   the classifier is ``weka.classifiers.trees.J48`` with the fixed options,
   or, when a ``tune_*`` parameter is given,
   ``weka.classifiers.meta.CVParameterSelection -P "C lo hi steps" -X folds
   -S seed -W weka.classifiers.trees.J48 -- <fixed options>``: Weka's own
   inner cross-validation on the training part picks the values (the paper's
   "parameters tuned in a subset of data"), then builds the final J48 on the
   whole training part.  Its printed model gives the chosen options, the
   tree's "Number of Leaves" and "Size of the tree".
2. ``java -cp weka.jar <classifier> -l model.bin -T rows.arff -p 0``: the
   per-instance predictions of the test rows followed by the training rows
   (for ``train_accuracy``).

Data reach Weka as ARFF: numeric columns as ``NUMERIC``, pandas categoricals
as nominal attributes with their declared categories (so empty branches exist
exactly as in Weka reading the dataset's own ARFF), missing values as ``?``;
the class is nominal with one value per training label, written as label
*indices* so Weka's fixed-width prediction columns never truncate or split a
label.  The same header is written for training and prediction files.

``java`` is looked up on ``PATH``; the jar in ``TREEBENCH_WEKA_JAR``, else in
the usual places (:data:`JAR_CANDIDATES`).  Without them a trial fails with
:data:`MISSING_MESSAGE`; nothing is substituted.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tempfile
import zipfile
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.learners import weka_jvm
from treebench.learners.external import ExternalProgramLearner, ProgramUnavailable, run_program
from treebench.learners.external import output_tail as _tail

MISSING_MESSAGE = (
    "weka-j48 needs java and weka.jar (apt-get install weka, or set TREEBENCH_WEKA_JAR); skipped"
)
#: Where the jar is looked for when ``TREEBENCH_WEKA_JAR`` is not set (Debian/Ubuntu's
#: ``weka`` package, a manual install, Homebrew).
JAR_CANDIDATES = (
    "/usr/share/java/weka.jar",
    "/usr/local/share/java/weka.jar",
    "/opt/weka/weka.jar",
    "/usr/local/opt/weka/libexec/weka.jar",
)
J48 = "weka.classifiers.trees.J48"
CV_PARAMETER_SELECTION = "weka.classifiers.meta.CVParameterSelection"
#: Seconds one java call may take (``TREEBENCH_WEKA_TIMEOUT`` overrides).
DEFAULT_TIMEOUT = 4 * 3600.0
#: JVM options (``TREEBENCH_WEKA_JAVA_OPTS`` overrides): a deep tree recurses deeply; the serial
#: collector because every worker process runs its own JVM on one core: the default collectors'
#: parallel GC threads then compete with the other workers (J48 on segment: 100 -> 83 ms a trial
#: with the cores oversubscribed, and 8 % faster on an idle core).  No effect on the trees.
DEFAULT_JAVA_OPTS = ("-Xss16m", "-Djava.awt.headless=true", "-XX:+UseSerialGC")

#: Parameters of ``weka-j48``: name -> (J48 flag, description of accepted values, default).
PARAMS: dict[str, tuple[str, str, Any]] = {
    "C": ("-C", "0 < C <= 0.5 (pruning confidence)", 0.25),
    "M": ("-M", "an integer >= 1 (minimum instances per leaf)", 2),
    "unpruned": ("-U", "true or false", False),
    "binary_splits": ("-B", "true or false (binary splits on nominal attributes)", False),
    "tune_C": ("-C", "null or [low, high, steps] within 0 < C <= 0.5", None),
    "tune_M": ("-M", "null or [low, high, steps] of integers >= 1", None),
    "tune_folds": ("-X", "an integer >= 2 (Weka's inner CV folds when tuning)", 5),
}
_TUNED = {"tune_C": "C", "tune_M": "M"}


class WekaUnavailable(ProgramUnavailable):
    """``java`` or ``weka.jar`` is missing."""


# --------------------------------------------------------------------------- finding java and weka
def find_java() -> str:
    java = shutil.which("java")
    if java is None:
        raise WekaUnavailable(f"{MISSING_MESSAGE} (no `java` on PATH)")
    return java


def find_jar() -> Path:
    """``TREEBENCH_WEKA_JAR`` if set (it must exist), else the first of :data:`JAR_CANDIDATES`."""
    configured = os.environ.get("TREEBENCH_WEKA_JAR", "").strip()
    if configured:
        path = Path(configured).expanduser()
        if not path.is_file():
            raise WekaUnavailable(f"{MISSING_MESSAGE} (TREEBENCH_WEKA_JAR={configured} is not a file)")
        return path
    for candidate in JAR_CANDIDATES:
        if Path(candidate).is_file():
            return Path(candidate)
    raise WekaUnavailable(
        f"{MISSING_MESSAGE} (TREEBENCH_WEKA_JAR is not set and no jar in {', '.join(JAR_CANDIDATES)})"
    )


def availability() -> str | None:
    """``None`` when java and the jar are found, else the reason weka-j48 trials will fail."""
    return WekaJ48.availability()


@lru_cache(maxsize=8)
def _jar_version(path: str, mtime: float) -> str:
    try:
        with zipfile.ZipFile(path) as jar:
            return jar.read("weka/core/version.txt").decode().strip().replace("-", ".")
    except (OSError, KeyError, zipfile.BadZipFile):
        return "unknown"


def weka_version() -> str:
    """``Weka 3.6.14`` (read from the jar, no JVM), or ``Weka unavailable``."""
    try:
        jar = find_jar()
    except WekaUnavailable:
        return "Weka unavailable"
    return f"Weka {_jar_version(str(jar), jar.stat().st_mtime)}"


# --------------------------------------------------------------------------- ARFF
def arff_quote(text: Any) -> str:
    """A name or nominal value as a single-quoted ARFF string (backslash escapes)."""
    s = str(text)
    for old, new in (("\\", "\\\\"), ("'", "\\'"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t")):
        s = s.replace(old, new)
    return f"'{s}'"


@dataclass(frozen=True)
class Schema:
    """ARFF attributes: (name, nominal values or ``None`` for numeric), then the class."""

    attributes: tuple[tuple[str, tuple[str, ...] | None], ...]
    n_classes: int
    class_name: str = "class"

    @classmethod
    def of(cls, X: pd.DataFrame, n_classes: int) -> Schema:
        attributes = []
        for name in X.columns:
            series = X[name]
            dtype = series.dtype
            if isinstance(dtype, pd.CategoricalDtype):
                values = tuple(str(c) for c in dtype.categories)
            elif pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
                values = None
            elif pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
                values = tuple(sorted({str(v) for v in series.dropna()}))
            else:
                raise TreebenchError(f"weka-j48: column {name!r} has type {dtype}, which ARFF cannot hold")
            if values is not None and len(set(values)) != len(values):
                raise TreebenchError(f"weka-j48: column {name!r} has categories equal as text")
            attributes.append((str(name), values))
        names = {a for a, _ in attributes}
        class_name = "class"
        while class_name in names:
            class_name = "_" + class_name
        return cls(tuple(attributes), int(n_classes), class_name)

    def header(self) -> str:
        lines = ["@relation treebench", ""]
        for name, values in self.attributes:
            kind = "numeric" if values is None else "{" + ",".join(map(arff_quote, values)) + "}"
            lines.append(f"@attribute {arff_quote(name)} {kind}")
        labels = ",".join(str(i) for i in range(self.n_classes))
        lines += [f"@attribute {arff_quote(self.class_name)} {{{labels}}}", "", "@data", ""]
        return "\n".join(lines)

    def rows(self, X: pd.DataFrame, y: np.ndarray | None) -> list[str]:
        """Data lines; ``y`` holds class indices (``None``: the class is missing, ``?``)."""
        columns = []
        for (_, values), column in zip(self.attributes, X.columns):
            series = X[column]
            if values is None:
                numbers = series.to_numpy(dtype=np.float64, na_value=np.nan)
                text = np.array([_number(v) for v in numbers.tolist()], dtype=object)
            else:
                known = {v: arff_quote(v) for v in values}
                raw = series.astype(object).to_numpy()
                # A value outside the declared ones (only possible for predictions on new data)
                # is written as missing, as Weka cannot read it.
                text = np.array(
                    ["?" if _missing(v) else known.get(str(v), "?") for v in raw], dtype=object
                )
            columns.append(text)
        n = len(X)
        columns.append(
            np.full(n, "?", dtype=object) if y is None else np.asarray(y).astype(str).astype(object)
        )
        return [",".join(row) for row in zip(*columns)] if columns else []

    def matrix(self, X: pd.DataFrame, y: np.ndarray | None) -> np.ndarray:
        """The values Weka holds for the rows of :meth:`rows`, as one float matrix (class last).

        Numbers as they are; a nominal value as its index among the declared values; missing
        (and, as in :meth:`rows`, a value outside the declared ones) as NaN, Weka's own missing
        value.  What the ARFF text of :meth:`rows` parses to, without writing or parsing text.
        """
        out = np.empty((len(X), len(self.attributes) + 1))
        for j, ((_, values), column) in enumerate(zip(self.attributes, X.columns)):
            series = X[column]
            if values is None:
                out[:, j] = series.to_numpy(dtype=np.float64, na_value=np.nan)
                continue
            index = {v: float(i) for i, v in enumerate(values)}
            if isinstance(series.dtype, pd.CategoricalDtype):
                # one lookup per category; code -1 (missing) reads the NaN at the end
                table = np.array([index.get(str(c), np.nan) for c in series.dtype.categories] + [np.nan])
                out[:, j] = table[series.array.codes]
            else:
                raw = series.astype(object).to_numpy()
                out[:, j] = [np.nan if _missing(v) else index.get(str(v), np.nan) for v in raw]
        out[:, -1] = np.nan if y is None else np.asarray(y, dtype=np.float64)
        return out

    def text(self, frames: list[pd.DataFrame], y: np.ndarray | None = None) -> str:
        """The whole ARFF file: the header, then the rows of every frame (``y`` needs one frame)."""
        lines = [self.header()]
        for frame in frames:
            lines += [line + "\n" for line in self.rows(frame, y)]
        return "".join(lines)

    def write(self, path: Path, X: pd.DataFrame, y: np.ndarray | None) -> None:
        path.write_text(self.text([X], y), encoding="utf-8")


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA


def _number(value: float) -> str:
    if value != value:
        return "?"
    if value in (np.inf, -np.inf):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


# --------------------------------------------------------------------------- options
def _confidence(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 0.5


def _format(value: Any) -> str:
    return repr(float(value)) if isinstance(value, float) else str(value)


def classifier_options(params: dict[str, Any], seed: int) -> list[str]:
    """The classifier class and options of one fit (J48, or J48 inside CVParameterSelection)."""
    for key, value in params.items():
        WekaJ48.validate_param(key, value)
    WekaJ48.validate_combination(params)
    j48: list[str] = []
    if params.get("unpruned"):
        j48.append("-U")
    elif "C" in params:
        j48 += ["-C", _format(params["C"])]
    if "M" in params:
        j48 += ["-M", str(params["M"])]
    if params.get("binary_splits"):
        j48.append("-B")
    tuned = [(tune, params[tune]) for tune in _TUNED if params.get(tune) is not None]
    if not tuned:
        return [J48, *j48]
    cv: list[str] = [CV_PARAMETER_SELECTION]
    for tune, (low, high, steps) in tuned:
        cv += ["-P", f"{_TUNED[tune]} {_format(low)} {_format(high)} {steps}"]
    cv += ["-X", str(params.get("tune_folds", PARAMS["tune_folds"][2])), "-S", str(seed)]
    cv += ["-W", J48]
    return [*cv, "--", *j48] if j48 else cv


# --------------------------------------------------------------------------- output parsing
_LEAVES = re.compile(r"Number of Leaves\s*:\s*(\d+)")
_SIZE = re.compile(r"Size of the tree\s*:\s*(\d+)")
_CHOSEN = re.compile(r"^Classifier Options:(.*)$", re.MULTILINE)
_PREDICTION = re.compile(r"^\s*(\d+)\s+\S+\s+(\d+):")


@dataclass(frozen=True)
class ModelText:
    n_leaves: int
    n_nodes: int
    options: dict[str, str]  # the final J48's options as Weka printed them (CVParameterSelection)


def parse_model(text: str) -> ModelText:
    """Leaves, tree size and (after tuning) the chosen options from Weka's printed model."""
    leaves, size = _LEAVES.findall(text), _SIZE.findall(text)
    if not leaves or not size:
        raise TreebenchError(
            "weka-j48: no 'Number of Leaves' / 'Size of the tree' in Weka's output: "
            + _tail(text)
        )
    options: dict[str, str] = {}
    chosen = _CHOSEN.search(text)
    if chosen:
        tokens = shlex.split(chosen.group(1))
        i = 0
        while i < len(tokens):
            flag = tokens[i]
            if i + 1 < len(tokens) and not re.fullmatch(r"-[A-Za-z]\w*", tokens[i + 1]):
                options[flag] = tokens[i + 1]
                i += 2
            else:
                options[flag] = ""
                i += 1
    # The last counts are the final tree's (a wrapper prints the wrapped model last).
    return ModelText(int(leaves[-1]), int(size[-1]), options)


def chosen_values(params: dict[str, Any], model: ModelText) -> dict[str, Any]:
    """The tuned parameters' chosen values, e.g. ``{"C": 0.15}`` (``{}`` when nothing is tuned)."""
    chosen: dict[str, Any] = {}
    for tune, name in _TUNED.items():
        if params.get(tune) is None:
            continue
        flag = PARAMS[name][0]
        if flag not in model.options:
            raise TreebenchError(f"weka-j48: Weka did not report the chosen {flag}: {model.options}")
        value = float(model.options[flag])
        chosen[name] = int(round(value)) if name == "M" else float(f"{value:.10g}")
    return chosen


def parse_predictions(text: str, n_rows: int) -> np.ndarray:
    """0-based predicted class indices from ``-p 0`` output, in instance order."""
    found: dict[int, int] = {}
    started = False
    for line in text.splitlines():
        if "=== Predictions" in line:
            started = True
            continue
        if not started:
            continue
        match = _PREDICTION.match(line)
        if match:
            found[int(match.group(1))] = int(match.group(2)) - 1
    if sorted(found) != list(range(1, n_rows + 1)):
        raise TreebenchError(
            f"weka-j48: expected {n_rows} predictions from Weka, parsed {len(found)}: " + _tail(text)
        )
    return np.array([found[i] for i in range(1, n_rows + 1)], dtype=np.int64)


# --------------------------------------------------------------------------- running java
def java_options() -> list[str]:
    """JVM options: ``TREEBENCH_WEKA_JAVA_OPTS`` or :data:`DEFAULT_JAVA_OPTS`."""
    opts = os.environ.get("TREEBENCH_WEKA_JAVA_OPTS")
    return shlex.split(opts) if opts is not None else list(DEFAULT_JAVA_OPTS)


def run_weka(arguments: list[str], cwd: Path) -> str:
    """Run ``java -cp weka.jar ARGUMENTS`` in ``cwd``; stdout, or a clear error."""
    java, jar = find_java(), find_jar()
    timeout = float(os.environ.get("TREEBENCH_WEKA_TIMEOUT", DEFAULT_TIMEOUT))
    return run_program(
        [java, *java_options(), "-cp", str(jar), *arguments], cwd,
        owner="weka-j48", what=f"java {' '.join(arguments[:1])}", timeout=timeout, timeout_setting="TREEBENCH_WEKA_TIMEOUT",
        # Weka 3.6 prints "Weka exception: ..." to stdout and still exits 0.
        failed=lambda done: done.returncode != 0 or "Weka exception:" in done.stdout,
    )


# --------------------------------------------------------------------------- the learner
@dataclass
class WekaModel:
    """A trained J48: the serialized model, its schema and what Weka said about it."""

    classifier: str
    schema: Schema
    labels: np.ndarray  # class index -> label as given in y
    model_bytes: bytes  # the serialized model (command-line engine; empty in-process)
    text: str
    tree: ModelText
    chosen: dict[str, Any]
    cached: list[tuple[Any, np.ndarray]] = field(default_factory=list, repr=False)
    handle: Any = field(default=None, repr=False)  # the Java object (in-process engine)


class WekaJ48(ExternalProgramLearner):
    """Weka's J48 through ``java``; see the module docstring and docs/configs.md."""

    name = "weka-j48"
    PARAM_HELP = {key: what for key, (_, what, _) in PARAMS.items()}

    def __init__(self, random_state: int) -> None:
        # CVParameterSelection's -S (the seed of its inner folds) must be a Java int.
        self.seed = int(random_state) % (2**31 - 1)
        self._expected: tuple[pd.DataFrame, ...] = ()

    @classmethod
    def locate(cls) -> tuple[str, Path]:
        java, jar = find_java(), find_jar()
        weka_jvm.requested_engine()  # a bad TREEBENCH_WEKA_ENGINE is said before the run too
        return java, jar

    @classmethod
    def program_version(cls) -> str:
        return weka_version()

    @classmethod
    def value_ok(cls, key: str, value: Any) -> bool:
        if key in ("unpruned", "binary_splits"):
            return isinstance(value, bool)
        if key in ("M", "tune_folds"):
            return not isinstance(value, bool) and isinstance(value, int) and value >= (1 if key == "M" else 2)
        if key == "C":
            return _confidence(value)
        # tune_C / tune_M: null or [low, high, steps]
        if value is None:
            return True
        if not isinstance(value, (list, tuple)) or len(value) != 3:
            return False
        low, high, steps = value
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
            return False
        if key == "tune_C":
            return _confidence(low) and _confidence(high) and low <= high
        integers = all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high))
        return integers and 1 <= low <= high

    @classmethod
    def validate_combination(cls, params: dict[str, Any]) -> None:
        for tune, name in _TUNED.items():
            if params.get(tune) is not None and name in params:
                raise TreebenchError(f"weka-j48: give {name} or {tune}, not both")
        if params.get("unpruned") and (params.get("tune_C") is not None or "C" in params):
            raise TreebenchError("weka-j48: unpruned: true has no pruning confidence to set or tune")

    # -- fitting
    def fit(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, prepared: Any = None
    ) -> WekaModel:
        return self._fit(params, X, y, ())

    def will_predict(self, *frames: pd.DataFrame) -> None:
        self._expected = frames

    def fit_final(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, seed: int
    ) -> WekaModel:
        """Fit, then predict the frames announced by :meth:`will_predict` in one more JVM."""
        frames, self._expected = self._expected, ()
        return self._fit(params, X, y, frames)

    def _fit(
        self, params: dict[str, Any], X: pd.DataFrame, y: np.ndarray, also: tuple
    ) -> WekaModel:
        find_java(), find_jar()  # the clear message before any work
        arguments = classifier_options(params, self.seed)
        X = _frame(X)
        labels, codes = np.unique(np.asarray(y), return_inverse=True)
        frames = [X, *(_frame(f) for f in also)]
        schema = Schema.of(pd.concat(frames, ignore_index=True) if len(frames) > 1 else X, len(labels))
        in_process = weka_jvm.use_jpype()
        # the command line exchanges files; the in-process engine needs no folder
        with nullcontext() if in_process else tempfile.TemporaryDirectory(prefix="treebench-weka-") as tmp:
            folder = None
            if in_process:
                handle, text, trained_on = weka_jvm.train(find_jar(), java_options(), arguments, schema.header(),
                                                          schema.matrix(X, codes.ravel()))
                model_bytes = b""
            else:
                handle, folder, trained_on = None, Path(tmp), None
                schema.write(folder / "train.arff", X, codes.ravel())
                text = run_weka(
                    [*arguments[:1], "-t", "train.arff", "-no-cv", "-v", "-d", "model.bin", *arguments[1:]],
                    folder,
                )
                model_bytes = (folder / "model.bin").read_bytes()
            tree = parse_model(text)
            model = WekaModel(
                classifier=arguments[0], schema=schema, labels=labels, model_bytes=model_bytes,
                text=text, tree=tree, chosen=chosen_values(params, tree), handle=handle,
            )
            # the training rows themselves (a trial's train accuracy) are classified from the dataset
            # the JVM already holds instead of being converted again
            again = [f for f in also if f is X and trained_on is not None]
            others = [f for f in also if not any(f is g for g in again)]
            if others:
                predicted = self._predict(model, [_frame(f) for f in others], folder)
                model.cached.extend(zip(others, predicted))
            for frame in again:
                model.cached.append((frame, labels[weka_jvm.classify(handle, trained_on, len(frame))]))
        return model

    # -- predicting
    def predict(self, model: WekaModel, X: pd.DataFrame) -> np.ndarray:
        for frame, predicted in model.cached:
            if frame is X:
                return predicted
        if model.handle is not None:
            return self._predict(model, [_frame(X)], None)[0]
        with tempfile.TemporaryDirectory(prefix="treebench-weka-") as tmp:
            return self._predict(model, [_frame(X)], Path(tmp))[0]

    def _predict(
        self, model: WekaModel, frames: list[pd.DataFrame], folder: Path | None
    ) -> list[np.ndarray]:
        n = sum(len(f) for f in frames)
        if model.handle is not None:
            rows = [model.schema.matrix(f, None) for f in frames]
            indices = weka_jvm.predict(model.handle, model.schema.header(), np.vstack(rows), n)
        else:
            assert folder is not None
            arff = model.schema.text(frames)
            (folder / "model.bin").write_bytes(model.model_bytes)
            (folder / "rows.arff").write_text(arff, encoding="utf-8")
            text = run_weka([model.classifier, "-l", "model.bin", "-T", "rows.arff", "-p", "0"], folder)
            indices = parse_predictions(text, n)
        out_arrays, start = [], 0
        for frame in frames:
            out_arrays.append(model.labels[indices[start : start + len(frame)]])
            start += len(frame)
        return out_arrays

    def n_leaves(self, model: WekaModel) -> int:
        return model.tree.n_leaves

    def fits_per_trial(self, params: dict[str, Any]) -> int | None:
        """J48 once, or inside CVParameterSelection: every combination of the tuned values on each
        inner fold, then the final tree."""
        combinations = 1
        for tune in _TUNED:
            if params.get(tune) is not None:
                combinations *= int(params[tune][2])
        if combinations == 1 and not any(params.get(t) is not None for t in _TUNED):
            return 1
        return combinations * int(params.get("tune_folds", PARAMS["tune_folds"][2])) + 1

    def measures(self, model: WekaModel) -> dict[str, Any]:
        return {
            "n_leaves": model.tree.n_leaves,
            "n_nodes": model.tree.n_nodes,
            "depth": None,  # Weka does not print it
            "tree_quality": None,
        }

    def chosen(self, model: WekaModel) -> dict[str, Any]:
        return dict(model.chosen)


def _frame(X: pd.DataFrame | np.ndarray) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        return X
    matrix = np.asarray(X, dtype=np.float64)
    return pd.DataFrame(matrix, columns=[f"x{i}" for i in range(matrix.shape[1])])
