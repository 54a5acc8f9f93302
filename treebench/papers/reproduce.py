"""``treebench reproduce``'s work: run a paper's config, then write its report."""

from __future__ import annotations

from pathlib import Path

from treebench.errors import TreebenchError
from treebench.papers.catalogue import get_paper
from treebench.report.reference import load_reference
from treebench.report.reproduce import build_report, write_report
from treebench.report.source import current_trials, read_store, store_path_for_config
from treebench.report.spec import PaperSpec


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
    paper: str | PaperSpec, config: Path | None = None, *, out_dir: Path | None = None, run: bool = True,
    workers: int | None = None,
) -> list[Path]:
    """Run a paper's config (unless ``run`` is False), then write its report with every extra section.

    Parameters
    ----------
    paper
        A catalogue name (key or alias) or a spec.
    config
        The experiment config (default: the spec's, ``configs/KEY.yaml``).
    out_dir
        The report folder (default ``results/KEY``).
    run
        Run the config first (resuming); False reports on the store as it is.
    workers
        Worker processes for the run.

    Returns
    -------
    list of Path
        ``report.md``, ``report.tex`` and the figures' PNGs.
    """
    spec = get_paper(paper) if isinstance(paper, str) else paper
    config = Path(config or spec.config)
    out_dir = Path(out_dir or Path("results") / spec.key)
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
