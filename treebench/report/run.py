"""Glue for ``treebench reproduce``: run a paper's config, then write its report."""

from __future__ import annotations

from pathlib import Path

from treebench.errors import TreebenchError
from treebench.report.papers import PaperSpec
from treebench.report.reference import load_reference
from treebench.report.reproduce import build_report, write_report
from treebench.report.source import current_trials, read_store, store_path_for_config


def run_config(config: Path, workers: int | None = None) -> None:
    """Run (or resume) an experiment config through the runner's API.

    Finished trials are skipped by the runner, so this is cheap when the
    store is complete.
    """
    try:
        from treebench.experiment.runner import run_experiment
    except ImportError:
        raise TreebenchError("the experiment runner (treebench.experiment.runner) is not installed") from None
    run_experiment(config, jobs=workers)


def reproduce_paper(
    spec: PaperSpec, config: Path, *, out_dir: Path, run: bool = True, workers: int | None = None
) -> list[Path]:
    """Run ``config`` (unless ``run`` is False), then write the report into ``out_dir``."""
    if run:
        run_config(config, workers)
    store = store_path_for_config(config)
    if not store.exists():
        raise TreebenchError(f"no results store at {store}; run `treebench run {config}` first")
    frame = current_trials(read_store(store), config)
    reference = load_reference(spec.reference)
    report = build_report(spec, frame, reference, out_dir, extras=True)
    paths = write_report(report, out_dir, config=str(config), store=str(store))
    return paths + [p for _, p in report.figures]
