"""Turn the STORE_OR_CONFIG argument of ``compare``/``plot`` into a results frame.

* ``*.sqlite`` (or ``.db``): a results store, read (read-only, the file is
  never modified) with ``treebench.experiment.store.ResultsStore(path).to_frame()``;
* ``*.yaml``/``*.yml``: an experiment config; its store is
  the config's ``store`` (default ``results/<experiment>.sqlite``);
* ``*.csv``/``*.parquet``: a frame exported earlier (handy for sharing).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from treebench.errors import TreebenchError
from treebench.experiment.order import CONFIG_SUFFIXES, STORE_SUFFIXES
from treebench.stats.frame import refuse_duplicated_splits

FRAME_SUFFIXES = (".csv", ".parquet")


def store_path_for_config(config: Path) -> Path:
    """Where the runner writes the store of ``config``.

    Uses the runner's validated config (its ``store`` field, by default
    ``results/<experiment>.sqlite``) when :mod:`treebench.experiment` is
    installed; otherwise reads the YAML's ``store`` or ``experiment``/``name``
    key directly.  Relative store paths are relative to the working
    directory, as for ``treebench run``.
    """
    try:
        from treebench.experiment.config import load_config
    except ImportError:
        load_config = None
    if load_config is not None:
        return Path(load_config(config).store)
    import yaml

    try:
        data = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise TreebenchError(f"{config}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise TreebenchError(f"{config}: expected a mapping at the top level")
    if data.get("store"):
        return Path(str(data["store"]))
    name = data.get("experiment") or data.get("name")
    if not name:
        raise TreebenchError(f"{config}: no 'experiment' key to locate its results store")
    return Path("results") / f"{name}.sqlite"


def read_store(path: Path) -> pd.DataFrame:
    """Read a results store, read-only: the file (and its folder) are left exactly as they were.

    Raises
    ------
    TreebenchError
        A folder, a file that is not SQLite, or a SQLite file that is not a
        results store (one line each).
    """
    from treebench.experiment.store import ResultsStore

    with ResultsStore(path) as store:
        # The extra columns carry n_train/n_test (the corrected t-test's
        # ratio) and the tuned values alone (`chosen`).
        return store.to_frame(all_columns=True)


def current_trials(frame: pd.DataFrame, config: Path) -> pd.DataFrame:
    """The rows of ``frame`` that belong to ``config`` as it is now
    (:func:`treebench.experiment.runner.current_trials`, imported on use: the runner is heavy)."""
    from treebench.experiment.runner import current_trials as of_config

    return of_config(frame, config)


def unfinished_planned(frame: pd.DataFrame, config: Path, datasets: list[str] | None = None,
                       algorithms: list[str] | None = None) -> str | None:
    """A warning naming the datasets and algorithms ``config`` plans (within ``datasets`` and
    ``algorithms`` when given) that have no finished trial in ``frame``, or None when all have one.

    A table of a config otherwise leaves such a row or column out without a word, and a reader
    takes the table for the whole experiment.
    """
    from treebench.experiment.config import load_config

    config_spec = load_config(config)
    ok = frame[frame["status"].astype(str) == "ok"] if "status" in frame.columns else frame
    parts = []
    for what, planned, chosen, column in (
            ("datasets", [d.label for d in config_spec.datasets], datasets, "dataset"),
            ("algorithms", [a.name for a in config_spec.algorithms], algorithms, "algorithm")):
        done = set(ok[column].astype(str)) if column in ok.columns else set()
        missing = [n for n in dict.fromkeys(planned) if n not in done and (not chosen or n in chosen)]
        if missing:
            parts.append(f"{what} {', '.join(missing)}")
    if not parts:
        return None
    return (f"warning: {config} plans {'; '.join(parts)} with no finished trial in {config_spec.store}, so the "
            f"table leaves them out (run `treebench run {config}` to add them)")


def load_frame(source: str | Path) -> pd.DataFrame:
    """Load the trials frame named by a store, config or exported frame path.

    Raises
    ------
    TreebenchError
        Missing file, unknown suffix, or a config whose store does not exist.
    """
    path = Path(source)
    suffix = path.suffix.lower()
    accepted = "a results store (.sqlite), an experiment config (.yaml) or an exported frame (.csv, .parquet)"
    if not str(source).strip():  # Path("") is ".", which would be reported as a folder
        raise TreebenchError(f"the source path is empty; accepted: {accepted}")
    if path.is_dir():  # say what was expected and what was given, not "unknown kind"
        raise TreebenchError(f"{str(path)!r} is a folder; accepted: {accepted}")
    from treebench.errors import special_kind

    kind = special_kind(path)
    if kind is not None:  # /dev/zero read as a CSV would fill the memory
        raise TreebenchError(f"{str(path)!r} is not a regular file but {kind}; accepted: {accepted}")
    if suffix not in STORE_SUFFIXES + CONFIG_SUFFIXES + FRAME_SUFFIXES:
        what = "does not exist" if not path.exists() else f"has the suffix {suffix!r}" if suffix else "has no suffix"
        raise TreebenchError(f"{str(path)!r} {what}, so it is no results file; accepted: {accepted} "
                             f"(suffixes {', '.join(STORE_SUFFIXES + CONFIG_SUFFIXES + FRAME_SUFFIXES)})")
    if suffix in CONFIG_SUFFIXES:
        if not path.exists():
            raise TreebenchError(f"config {path} does not exist")
        store = store_path_for_config(path)
        if not store.exists():
            raise TreebenchError(f"no results yet for {path}: {store} does not exist (run `treebench run {path}`)")
        return current_trials(read_store(store), path)
    if not path.exists():
        raise TreebenchError(f"{path} does not exist; give a results store (.sqlite) or an experiment config (.yaml)")
    if suffix in STORE_SUFFIXES:
        return refuse_duplicated_splits(read_store(path), path)
    from treebench.report.frame_check import check_frame

    try:  # an exported frame: a damaged or foreign file is one line, not a parser's traceback
        if suffix == ".csv":
            frame = pd.read_csv(path)
        elif suffix == ".parquet":
            frame = pd.read_parquet(path)
    except (ValueError, OSError, ImportError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise TreebenchError(f"cannot read the results frame {str(path)!r} ({reason}); accepted: a CSV or Parquet "
                             "file written by `treebench results export`") from None
    if suffix in FRAME_SUFFIXES:  # rows a store could never hold are named, never tabulated
        return check_frame(frame, path)
    accepted = ", ".join(STORE_SUFFIXES + CONFIG_SUFFIXES + FRAME_SUFFIXES)
    raise TreebenchError(f"unknown kind of results file {path.name!r}; accepted suffixes: {accepted}")


def store_of(source: str | Path) -> Path | None:
    """The results store behind a ``compare``/``plot`` source (``None`` for an exported frame)."""
    path = Path(source)
    suffix = path.suffix.lower()
    if suffix in CONFIG_SUFFIXES:
        return store_path_for_config(path)
    if suffix in STORE_SUFFIXES:
        return path
    return None
