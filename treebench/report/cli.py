"""``treebench compare`` and ``treebench plot``.

Thin click wrappers: parse options, load the frame, call the report layer,
write or print.  Heavy imports (pandas, scipy, matplotlib) happen inside the
commands so that ``treebench --help`` stays fast.
"""

from __future__ import annotations

import functools
from pathlib import Path

import click

from treebench.console import OutPath
from treebench.errors import TreebenchError
from treebench.experiment.order import CONFIG_SUFFIXES
from treebench.outpaths import (
    check_file,
    check_format_suffix,
    check_not_input,
    with_extension,
    write_text,
)

_TESTS = ("wilcoxon", "ttest", "corrected-ttest", "friedman", "kruskal", "bayes", "mcnemar")
_CORRECTIONS = ("holm", "bonferroni", "none", "shaffer", "bergmann-hommel")
#: Shown in --help; any fixed metric and any extra measure the store holds is accepted.
_METRICS_HELP = "accuracy, error, n_leaves, n_nodes, depth, fit_seconds, tree_quality, ... or an extra measure of the store"
_FORMATS = ("md", "latex", "csv", "html")


def _names(text: str | None, option: str = "") -> list[str]:
    """The comma-separated names of a list option (``[]`` when the option is absent).

    Given but naming nothing (``--datasets ""``, ``--algorithms ,``) is refused: an
    empty selection read as "every name" would compare what the user did not ask for.
    """
    if text is None:
        return []
    names = [x.strip() for x in text.split(",") if x.strip()]
    if not names:
        raise TreebenchError(f"{option or 'a list option'} {text!r} names nothing; accepted: a comma-separated "
                             "list of names (leave the option out to keep every one)")
    return names


def _check_lists(**lists: str | None) -> None:
    """Refuse an empty list option (``--datasets ""``), and an algorithm given twice to ``--underline-against``
    (a name twice in ``--datasets`` or ``--algorithms`` is refused where they are chosen:
    :func:`treebench.stats.frame.chosen_names`)."""
    from treebench.errors import first_repeat

    for key, text in lists.items():
        option = "--" + key.replace("_", "-")
        twice = first_repeat(_names(text, option))
        if twice is not None and key == "underline_against":
            raise TreebenchError(f"algorithm {twice!r} is named twice in {option}; accepted: each algorithm once")


def _check_given(**options: str | None) -> None:
    """Refuse a name option given empty (``--baseline ""``): left to its default it would compare or
    draw something the user did not name."""
    for key, value in options.items():
        if value is not None and not value.strip():
            raise TreebenchError(f"--{key.replace('_', '-')} {value!r} is empty; accepted: a name (leave the option "
                                 "out for its default)")


def stdout_dash(out: Path | None) -> Path | None:
    """``--out -`` means standard output, as for ``results export``: ``None`` for it, else ``out``."""
    return None if out is not None and str(out) == "-" else out


def write_output(text: str, out: Path | None) -> None:
    """Print ``text``, or write it to ``out`` (creating its folder) and say so on stderr."""
    if out is None:
        click.echo(text, nl=False)
        return
    write_text(out, text, f"--out {str(out)!r}")
    click.echo(f"wrote {out}", err=True)


def check_outputs(out: Path | None, plot_base: Path | None = None, plot_option: str = "--plot") -> None:
    """Refuse a bad ``--out`` file or figure base before anything is written (one line; creates nothing)."""
    if out is not None:
        check_file(out, f"--out {str(out)!r}")
    if plot_base is not None:
        for suffix in (".png", ".svg"):
            check_file(with_extension(figure_base(plot_base), suffix), f"{plot_option} {str(plot_base)!r}")
    if out is not None and plot_base is not None:
        for suffix in (".png", ".svg"):
            figure = with_extension(figure_base(plot_base), suffix)
            if same_place(out, figure):  # one option's file would silently overwrite the other's
                raise TreebenchError(f"--out {str(out)!r} is the file {plot_option} {str(plot_base)!r} draws "
                                     f"({str(figure)!r}); accepted: an --out file that is not one of "
                                     f"{plot_option}'s figures (.png, .svg)")


def same_place(first: Path, second: Path) -> bool:
    """Whether two output paths name one file (after resolving links, ``..``; or one existing inode)."""
    try:
        if first.resolve() == second.resolve():
            return True
    except (OSError, RuntimeError):  # a link loop: compare the paths as written
        if first.absolute() == second.absolute():
            return True
    try:
        return first.exists() and second.exists() and first.samefile(second)
    except OSError:
        return False


def inputs_of(source: str | Path, store: Path | None) -> list[tuple[str, str | Path | None]]:
    """What a command reading ``source`` (a config, store or exported frame) reads, for
    :func:`~treebench.outpaths.check_not_input`: the source, its store, the store's kept predictions and
    the files kept beside it (lock, SQLite's log files, a board's lock)."""
    from treebench.experiment.predictions import store_inputs

    return [("the results file", source), *store_inputs(store)]


def figure_base(path: Path) -> Path:
    """A figure path without a figure extension of its own (``x.png`` -> ``x``; ``x.v2`` stays)."""
    return path.with_suffix("") if path.suffix.lower() in (".png", ".svg", ".dot") else path


@click.command()
@click.argument("source", metavar="STORE_OR_CONFIG")
@click.option("--metric", default="accuracy", show_default=True,
              help=f"Column of the results to compare: {_METRICS_HELP}.")
@click.option("--test", "test", type=click.Choice(_TESTS), default="corrected-ttest", show_default=True,
              help="ttest/corrected-ttest: per-dataset paired test behind the v/* marks; "
                   "wilcoxon, friedman: across-dataset tests (marks from --paired); "
                   "kruskal: per-dataset Levene -> ANOVA/Kruskal-Wallis, then the best/worst flags; "
                   "bayes: Bayesian signed-rank test per pair over datasets (with --rope); "
                   "mcnemar: each algorithm against the baseline on one split per dataset "
                   "(needs predictions: true).")
@click.option("--baseline", metavar="ALG",
              help="Algorithm the marks compare against (default: the config's first algorithm).")
@click.option("--correction", type=click.Choice(_CORRECTIONS), default=None,
              help="Multiple-comparison correction of each family of pairwise tests "
                   "(marks per dataset, pairwise Wilcoxon, rank tests after Friedman)  "
                   "[default: holm when a family has 2+ tests; Shaffer after Friedman].  "
                   "shaffer, bergmann-hommel (García & Herrera 2008; up to 9 algorithms): "
                   "the rank tests after Friedman; Holm for the other families.")
@click.option("--rope", type=float, default=1.0, show_default=True,
              help="bayes: half-width of the region of practical equivalence, in display units (e.g. accuracy points).")
@click.option("--samples", type=int, default=50_000, show_default=True, help="bayes: Monte Carlo draws.")
@click.option("--seed", type=int, default=0, show_default=True, help="bayes: seed of the Monte Carlo draws.")
@click.option("--plot", "plot_path", type=OutPath(dir_okay=False, path_type=Path, writes="figures: PATH.png, PATH.svg"),
              help="bayes: also draw the posteriors in a simplex (PATH.png and PATH.svg).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level.")
@click.option("--paired", "paired_test", type=click.Choice(("ttest", "corrected-ttest")), default="corrected-ttest",
              show_default=True, help="Paired test behind the marks when --test is an across-dataset test.")
@click.option("--test-train-ratio", type=float, default=None,
              help="n_test/n_train for the corrected t-test (default: from the protocol; 1/9 if unknown).")
@click.option("--underline-against", metavar="ALG,ALG",
              help="Underline cells significantly better (paired test) than each of these algorithms.")
@click.option("--datasets", metavar="A,B,...", help="Only these datasets, in this order.")
@click.option("--algorithms", metavar="A,B,...", help="Only these algorithms, in this order.")
@click.option("--format", "fmt", type=click.Choice(_FORMATS), default="md", show_default=True)
@click.option("--standalone", is_flag=True, help="LaTeX: emit a complete document instead of table floats.")
@click.option("--out", type=OutPath(dir_okay=False, path_type=Path, dash=True),
              help="Write here instead of stdout ('-': stdout).")
@click.option("--skip-bad-predictions", "skip_bad", is_flag=True,
              help="Leave out (and count) the trials whose kept predictions are missing or fail verification "
                   "against their trial, instead of stopping with an error.")
def compare(source, metric, test, baseline, alpha, paired_test, test_train_ratio, underline_against,
            datasets, algorithms, fmt, standalone, out, correction=None, rope=1.0, samples=50_000, seed=0,
            plot_path=None, skip_bad=False) -> None:
    """Tabulate a results store: mean ± std per dataset and algorithm, with significance tests.

    STORE_OR_CONFIG is a results store (.sqlite) or an experiment config (.yaml).
    """
    from treebench.experiment.predictions import KeptPredictions
    from treebench.report.formats import render
    from treebench.report.source import load_frame, store_of
    from treebench.report.table import build_table, source_algorithm_order
    from treebench.stats.frame import chosen_names

    out = stdout_dash(out)
    if not 0.0 < alpha < 1.0:  # before anything is read (build_table checks it too, for its other callers)
        raise TreebenchError(f"--alpha must be in (0, 1), got {alpha}")
    if plot_path is not None and test != "bayes":
        raise TreebenchError("--plot draws the posteriors of --test bayes; add --test bayes")
    if test == "mcnemar":
        _refuse_unused_by_mcnemar()
    else:
        _refuse_unread(test, fmt, paired_test)
    if skip_bad:  # as export's: an option that reads no kept predictions here would be silently ignored
        from treebench.stats.prediction_metrics import PREDICTION_METRICS

        if test != "mcnemar" and metric not in PREDICTION_METRICS:
            raise TreebenchError("--skip-bad-predictions goes with what reads kept predictions: --test mcnemar, or "
                                 f"--metric a metric of predictions ({', '.join(PREDICTION_METRICS)})")
    _check_lists(datasets=datasets, algorithms=algorithms, underline_against=underline_against)
    _check_given(baseline=baseline, metric=metric)
    check_outputs(out, plot_path)
    check_format_suffix(out, fmt)
    store = store_of(source) if out is not None else None
    check_not_input(out, inputs_of(source, store))
    frame = load_frame(source)
    store = store_of(source)
    frame, kept = with_prediction_metric(frame, source, metric, skip_bad)
    if str(source).lower().endswith(CONFIG_SUFFIXES):  # as results show, the table stays; the gap is said
        from treebench.report.source import unfinished_planned

        gap = unfinished_planned(frame, Path(source), _names(datasets), _names(algorithms))
        if gap is not None:
            click.echo(gap, err=True)
    if test == "mcnemar":
        from treebench.report.mcnemar_table import mcnemar_rows, render_mcnemar

        if store is None:
            raise TreebenchError("--test mcnemar reads the predictions kept beside a store; give the store or config")
        kept = kept or KeptPredictions(store, skip_bad=skip_bad)
        finished = frame[frame["status"].astype(str) == "ok"] if "status" in frame.columns else frame
        if finished.empty:
            raise TreebenchError(f"no finished trial in {store}: nothing to compare "
                                 f"({len(frame)} trial(s) stored, none ok)")
        # the same names policy as every other test: an unknown name is refused, never dropped
        known = tuple(dict.fromkeys(finished["algorithm"].astype(str)))
        names = list(chosen_names(_names(algorithms), known, "algorithm")) if algorithms else \
            [n for n in source_algorithm_order(source) if n in known] or list(known)
        chosen = chosen_names(_names(datasets), tuple(dict.fromkeys(finished["dataset"].astype(str))), "dataset")
        rows = mcnemar_rows(frame, store, baseline, names, correction or "auto", kept, datasets=list(chosen))
        write_output(render_mcnemar(rows, fmt, alpha, [facts.label for facts, _ in kept.skipped]), out)
        _echo_lines(kept.report_lines())
        return
    table = build_table(
        frame, metric=metric, test=test, baseline=baseline, alpha=alpha, paired_test=paired_test,
        test_train_ratio=test_train_ratio, underline_against=_names(underline_against),
        datasets=_names(datasets) or None, algorithms=_names(algorithms) or None,
        correction=correction or "auto", algorithm_order=source_algorithm_order(source),
        rope=rope, bayes_samples=samples, seed=seed,
    )
    if plot_path is not None and not table.analysis.bayes:  # refused before the table is written
        raise TreebenchError(f"--plot {str(plot_path)!r}: nothing to plot: "
                             f"{table.analysis.error or 'no pair of algorithms'}; accepted: --test bayes over at "
                             "least two algorithms")
    write_output(render(table, fmt, standalone=standalone), out)
    if kept is not None:
        _echo_lines(kept.report_lines())
    _echo_anomalies(frame, source)
    if plot_path is not None:
        from treebench.stats.bayes import plot_simplex

        for p in plot_simplex(table.analysis.bayes, figure_base(plot_path)):
            click.echo(f"wrote {p}", err=True)


#: Options of compare that --test mcnemar does not read (it counts right and wrong predictions of
#: one split per dataset): given with it they would be ignored without a word.
_NOT_MCNEMAR = {"metric": "--metric", "rope": "--rope", "underline_against": "--underline-against",
                "paired_test": "--paired", "samples": "--samples", "seed": "--seed",
                "test_train_ratio": "--test-train-ratio"}
_MCNEMAR_OPTIONS = "--baseline, --algorithms, --datasets, --alpha, --correction, --format, --out, --skip-bad-predictions"


def _refuse_unused_by_mcnemar() -> None:
    """Refuse an option given on the command line that ``--test mcnemar`` would ignore.

    ``--metric accuracy`` is let through: McNemar's test compares exactly the right/wrong
    counts behind accuracy.
    """
    from click.core import ParameterSource

    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return
    for name, option in _NOT_MCNEMAR.items():
        if ctx.get_parameter_source(name) != ParameterSource.COMMANDLINE:
            continue
        if name == "metric" and ctx.params.get(name) == "accuracy":
            continue
        raise TreebenchError(f"{option} is not read by --test mcnemar (it tests the right and wrong predictions "
                             f"of each algorithm against the baseline); accepted with it: {_MCNEMAR_OPTIONS}")


def _given(name: str) -> bool:
    """Whether the option ``name`` of the running command was typed on the command line."""
    from click.core import ParameterSource

    ctx = click.get_current_context(silent=True)
    return ctx is not None and ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE


def _refuse_unread(test: str, fmt: str, paired_test: str) -> None:
    """Refuse an option typed on the command line that this ``--test`` / ``--format`` would not read:
    it would be ignored without a word, and the user would believe the table used it."""
    for name, option in (("rope", "--rope"), ("samples", "--samples"), ("seed", "--seed")):
        if _given(name) and test != "bayes":
            raise TreebenchError(f"{option} is read by --test bayes only (the Bayesian signed-rank test); "
                                 f"--test {test} ignores it: add --test bayes or leave {option} out")
    if _given("standalone") and fmt != "latex":
        raise TreebenchError(f"--standalone makes a complete LaTeX document; --format {fmt} ignores it: add "
                             "--format latex or leave --standalone out")
    if _given("paired_test") and test in ("ttest", "corrected-ttest"):
        raise TreebenchError(f"--paired chooses the marks' test under an across-dataset test (wilcoxon, friedman, "
                             f"kruskal, bayes); with --test {test} the marks use {test} itself: leave --paired out")
    marks = test if test in ("ttest", "corrected-ttest") else paired_test
    if _given("test_train_ratio") and marks != "corrected-ttest":
        raise TreebenchError(f"--test-train-ratio is read by the corrected t-test only; the marks here use {marks}: "
                             "give --test corrected-ttest (or --paired corrected-ttest) or leave it out")


def with_prediction_metric(frame, source: str, metric: str | None, skip_bad: bool = False):  # noqa: ANN001, ANN201
    """``frame`` with the metric of predictions ``metric`` (``f1_macro``...) computed from the store's kept
    predictions where its trials did not store it, and the :class:`KeptPredictions` read (or None).

    Each file is verified against its trial when read (``skip_bad``: a bad one is left out and counted).
    """
    from treebench.experiment.predictions import KeptPredictions, with_metric
    from treebench.report.source import store_of
    from treebench.stats.prediction_metrics import PREDICTION_METRICS

    store = store_of(source)
    if metric is not None:
        _check_metric_name(frame, metric, store)
    if metric not in PREDICTION_METRICS or store is None or (
            metric in frame.columns and not frame[metric].isna().any()):
        return frame, None
    kept = KeptPredictions(store, skip_bad=skip_bad)
    return with_metric(frame, store, metric, kept), kept  # computed again from the kept predictions


def _check_metric_name(frame, metric: str, store: Path | None) -> None:  # noqa: ANN001 - a results frame
    """Refuse a metric name no source or kept predictions give, listing what is accepted *here*: the
    fixed measures, the frame's extra ones and, where predictions were kept, the metrics of predictions
    (the fixed list alone sent a user who mistyped ``roc_auc`` away from ``roc_auc_ovr``)."""
    from treebench.experiment.predictions import keys
    from treebench.stats.metrics import METRICS, frame_metrics
    from treebench.stats.prediction_metrics import PREDICTION_METRICS, unknown_metric

    known = sorted({*METRICS, *frame_metrics(frame), *(c for c in PREDICTION_METRICS if c in frame.columns)})
    if metric in known or metric in PREDICTION_METRICS:
        return
    kept = store is not None and next(keys(store), None) is not None
    raise unknown_metric(metric, known, computed_here=kept)


def _echo_lines(lines: list[str]) -> None:
    """Lines for the user on stderr (the table stays clean on stdout)."""
    for line in lines:
        click.echo(line, err=True)


def _experiment_name(frame, source: str) -> str:
    """The store's experiment name (for default file names), else the source file's stem."""
    from treebench.outpaths import safe_name

    names = frame["experiment"].dropna().astype(str).unique() if "experiment" in frame.columns else []
    name = names[0] if len(names) == 1 else Path(source).stem
    return safe_name(name) if name else "results"


def _echo_anomalies(frame, source: str) -> None:  # noqa: ANN001 - a results frame
    """The anomaly flags of the compared trials, one line each on stderr (the table stays clean on stdout).

    A config names the tuned grids; a bare store does not, and the grid check says so.
    """
    from treebench.report.anomalies import (
        config_grids,
        find_anomalies,
        majority_rates,
        skipped_checks,
    )

    grids, ranges = config_grids(source) if str(source).endswith((".yaml", ".yml")) else ({}, {})
    datasets = sorted(set(frame["dataset"].astype(str))) if "dataset" in frame.columns else []
    majority = majority_rates(datasets)
    flags = find_anomalies(frame, grids=grids, ranges=ranges, majority=majority)
    lines = [f"  {a.flag}: {a.text}" for a in flags] or ["  none found"]
    lines += [f"  {x}" for x in skipped_checks(frame, grids=grids, majority=majority,
                                               from_config=str(source).lower().endswith(CONFIG_SUFFIXES))]
    click.echo("anomaly flags:\n" + "\n".join(lines), err=True)


@click.command()
@click.argument("kind", type=click.Choice(("leaves", "param", "cd", "scores", "tree")))
@click.argument("source", metavar="STORE_OR_CONFIG")
@click.option("--param", help="param: the hyperparameter on the x axis, fixed by the algorithms' params (an untuned sweep; e.g. q, gamma).")
@click.option("--dataset", help="param: only this dataset; tree: the trial's dataset.")
@click.option("--algorithm", "algorithm", metavar="ALG", help="tree: the trial's algorithm.")
@click.option("--repeat", type=click.IntRange(min=0), default=0, show_default=True, help="tree: the trial's repeat.")
@click.option("--fold", type=click.IntRange(min=0), default=0, show_default=True, help="tree: the trial's fold.")
@click.option("--max-depth", "max_depth", type=click.IntRange(min=0), default=4, show_default=True,
              help="tree: deeper nodes are folded into their parent (0: the whole tree).")
@click.option("--metric", default=None,
              help=f"leaves: bar height (default n_leaves); cd, scores: the metric (default accuracy); {_METRICS_HELP}.")
@click.option("--style", type=click.Choice(("box", "violin")), default="box", show_default=True,
              help="scores: a box or a violin per dataset and algorithm.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="cd: Nemenyi level.")
@click.option("--datasets", metavar="A,B,...", help="Only these datasets, in this order.")
@click.option("--algorithms", metavar="A,B,...", help="Only these algorithms, in this order.")
@click.option("--out", type=OutPath(dir_okay=False, path_type=Path, writes="figures: PATH.png, PATH.svg"),
              help="Output path without suffix; .png and .svg are written (default: results/plots/EXPERIMENT-KIND).")
@click.option("--skip-bad-predictions", "skip_bad", is_flag=True,
              help="With --metric a metric of predictions: leave out (and count) the trials whose kept predictions "
                   "are missing or fail verification against their trial, instead of stopping with an error.")
def plot(kind, source, param, dataset, metric, alpha, datasets, algorithms, out, style="box", algorithm=None,
         repeat=0, fold=0, max_depth=4, skip_bad=False) -> None:
    """Draw a figure from a results store: leaves (grouped bars), param (sensitivity curve of an untuned sweep),
    cd (critical-difference diagram), scores (per-split distributions, box or violin), tree (one trial's tree).

    STORE_OR_CONFIG is a results store (.sqlite) or an experiment config (.yaml).  For tree it is the
    config (the trial's tree is fitted again with the parameters its store records) or a fitted
    estimator saved with joblib (.joblib, .pkl; only load files you trust).
    """
    _check_lists(datasets=datasets, algorithms=algorithms)
    _check_given(metric=metric, param=param, dataset=dataset, algorithm=algorithm)
    # as compare's (build_table): a level outside (0, 1), or nan, would draw a CD of 0, inf or nan as a result
    if not 0.0 < alpha < 1.0:
        raise TreebenchError(f"--alpha must be in (0, 1), got {alpha}")
    if skip_bad:  # as compare's: an option that reads no kept predictions here would be silently ignored
        from treebench.stats.prediction_metrics import PREDICTION_METRICS

        if kind == "tree" or metric not in PREDICTION_METRICS:
            raise TreebenchError("--skip-bad-predictions goes with what reads kept predictions: --metric a metric "
                                 f"of predictions ({', '.join(PREDICTION_METRICS)}), which plot computes from them")
    if kind == "tree":
        for path in _plot_tree(Path(source), out, dataset, algorithm, repeat, fold, max_depth or None):
            click.echo(f"wrote {path}")
        return
    from treebench.experiment.order import config_ordered, source_algorithm_order
    from treebench.report import plots
    from treebench.report.source import load_frame

    if kind == "param" and not param:
        raise TreebenchError("plot param needs --param NAME (the hyperparameter for the x axis, e.g. q)")
    frame = load_frame(source)
    # a metric of predictions (f1_macro...): computed from the kept predictions, as compare does
    frame, kept = with_prediction_metric(frame, source, metric, skip_bad)
    name = kind if kind != "param" else f"param-{param}"
    base = figure_base(out) if out else Path("results/plots") / f"{_experiment_name(frame, source)}-{name}"
    for suffix in (".png", ".svg"):  # refuse a bad place before drawing anything
        check_file(with_extension(base, suffix), f"--out {str(out)!r}" if out else None)
    # the config's order, as in compare's tables (an explicit --algorithms keeps its own)
    frame = config_ordered(frame, source_algorithm_order(source))
    ds, algs = _names(datasets) or None, _names(algorithms) or None
    if kind == "leaves":
        paths = plots.plot_leaves(frame, base, metric=metric or "n_leaves", datasets=ds, algorithms=algs)
    elif kind == "scores":
        paths = plots.plot_scores(frame, base, metric=metric or "accuracy", datasets=ds, algorithms=algs, style=style)
    elif kind == "cd":
        paths = plots.plot_cd(frame, base, metric=metric or "accuracy", alpha=alpha, datasets=ds, algorithms=algs)
    else:
        metrics = ("accuracy", "n_nodes") if metric is None else (metric,)
        paths = plots.plot_param(frame, base, param=param, dataset=dataset, metrics=metrics, algorithms=algs)
    for p in paths:
        click.echo(f"wrote {p}")
    if kept is not None:  # the trials left out of the figure, the files read without a checksum
        _echo_lines(kept.report_lines())


_MODEL_SUFFIXES = (".joblib", ".pkl", ".pickle")


def _plot_tree(source: Path, out: Path | None, dataset: str | None, algorithm: str | None, repeat: int,
               fold: int, max_depth: int | None) -> list[Path]:
    """``plot tree``: draw (PNG, SVG) and export (DOT) one fitted tree."""
    from treebench.outpaths import safe_name

    if source.suffix.lower() in _MODEL_SUFFIXES:
        from treebench.errors import special_kind

        kind = special_kind(source)
        if kind is not None:  # a FIFO would block the unpickler forever, /dev/zero would never end
            raise TreebenchError(f"cannot read a fitted estimator from {source}: it is not a regular file but {kind}; "
                                 f"accepted: an estimator saved with joblib.dump, as {', '.join(_MODEL_SUFFIXES)}")
        import joblib

        try:
            model = joblib.load(source)
        except Exception as exc:  # noqa: BLE001 - any unreadable file: one line
            # unpickling garbage raises bare KeyErrors ("110"): name the kind of error, and what is accepted
            text = " ".join(str(exc).split())[:160]
            raise TreebenchError(f"cannot read a fitted estimator from {source}: not a readable joblib or pickle "
                                 f"file ({type(exc).__name__}{': ' + text if text else ''}); accepted: an estimator "
                                 f"saved with joblib.dump, as {', '.join(_MODEL_SUFFIXES)}") from None
        title, base = f"{type(model).__name__} ({source.name})", source.with_suffix("")
    elif source.suffix.lower() in (".yaml", ".yml"):
        from treebench.experiment.refit import refit_trial

        fitted = refit_trial(source, dataset=dataset, algorithm=algorithm, repeat=repeat, fold=fold)
        model = fitted.model
        title = (f"{fitted.algorithm} on {fitted.dataset}, repeat {fitted.repeat} fold {fitted.fold} "
                 f"({fitted.n_train} training rows)")
        # the labels are user text: one safe file-name component each (no ../, no /, bounded); three parts
        # of at most 70 bytes keep the whole name, with its suffix, under the file systems' 255 bytes
        part = functools.partial(safe_name, limit=70)
        name = f"{part(source.stem)}-tree-{part(fitted.dataset)}-{part(fitted.algorithm)}-r{repeat}f{fold}"
        base = Path("results/plots") / name
    else:
        raise TreebenchError(f"plot tree reads an experiment config (.yaml) or a saved estimator "
                             f"({', '.join(_MODEL_SUFFIXES)}); got {source}")
    base = figure_base(out) if out else base
    for suffix in (".png", ".svg", ".dot"):  # refuse a bad place before drawing anything
        check_file(with_extension(base, suffix), f"--out {str(out)!r}" if out else None)
    return _draw_model(model, base, title, max_depth)


def _draw_model(model, base: Path, title: str, max_depth: int | None) -> list[Path]:  # noqa: ANN001
    from sklearn.tree import DecisionTreeClassifier

    is_tree = isinstance(model, DecisionTreeClassifier) or type(model).__module__.startswith("treebench.")
    if is_tree and hasattr(model, "fit") and getattr(model, "tree_", None) is None:
        raise TreebenchError(f"cannot draw an unfitted {type(model).__name__}; accepted: a fitted tree")
    if isinstance(model, DecisionTreeClassifier):  # the sklearn-cart baselines: scikit-learn draws its own
        from sklearn import tree as sktree

        from treebench.report.figures import new_figure, save

        fig, ax = new_figure(min(max(6.0, 1.2 * model.get_n_leaves()), 60.0), 2.0 + 1.2 * min(model.get_depth(),
                                                                                                 max_depth or 99))
        sktree.plot_tree(model, max_depth=max_depth, filled=True, fontsize=7, ax=ax)
        ax.set_title(title, fontsize=10)
        paths = save(fig, base)
        dot = sktree.export_graphviz(model, max_depth=max_depth, filled=True, rounded=True)
    else:
        from treebench.report.tree_plot import draw_tree
        from treebench.trees.view import to_dot, view_of

        try:
            view = view_of(model)
        except TreebenchError:
            raise TreebenchError(f"cannot draw {type(model).__name__}: plot tree draws treebench's trees and "
                                 "scikit-learn's DecisionTreeClassifier (Weka and C5.0 print their own)") from None
        paths = draw_tree(view, base, max_depth=max_depth, title=title)
        dot = to_dot(view, max_depth=max_depth)
    target = write_text(with_extension(base, ".dot"), dot)
    return [*paths, target]
