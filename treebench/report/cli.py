"""``treebench compare`` and ``treebench plot``.

Thin click wrappers: parse options, load the frame, call the report layer,
write or print.  Heavy imports (pandas, scipy, matplotlib) happen inside the
commands so that ``treebench --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import click

from treebench.errors import TreebenchError

_TESTS = ("wilcoxon", "ttest", "corrected-ttest", "friedman", "kruskal", "bayes")
_CORRECTIONS = ("holm", "bonferroni", "none", "shaffer", "bergmann-hommel")
#: Shown in --help; any fixed metric and any extra measure the store holds is accepted.
_METRICS_HELP = "accuracy, error, n_leaves, n_nodes, depth, fit_seconds, tree_quality, ... or an extra measure of the store"
_FORMATS = ("md", "latex", "csv", "html")


def _names(text: str | None) -> list[str]:
    return [x.strip() for x in (text or "").split(",") if x.strip()]


def write_output(text: str, out: Path | None) -> None:
    """Print ``text``, or write it to ``out`` (creating its folder) and say so on stderr."""
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise TreebenchError(f"cannot write {out}: {exc.strerror or exc}") from None
    click.echo(f"wrote {out}", err=True)


@click.command()
@click.argument("source", metavar="STORE_OR_CONFIG")
@click.option("--metric", default="accuracy", show_default=True,
              help=f"Column of the results to compare: {_METRICS_HELP}.")
@click.option("--test", "test", type=click.Choice(_TESTS), default="corrected-ttest", show_default=True,
              help="ttest/corrected-ttest: per-dataset paired test behind the v/* marks; "
                   "wilcoxon, friedman: across-dataset tests (marks from --paired); "
                   "kruskal: per-dataset Levene -> ANOVA/Kruskal-Wallis, then the best/worst flags; "
                   "bayes: Bayesian signed-rank test per pair over datasets (with --rope).")
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
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path),
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
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here instead of stdout.")
def compare(source, metric, test, baseline, alpha, paired_test, test_train_ratio, underline_against,
            datasets, algorithms, fmt, standalone, out, correction=None, rope=1.0, samples=50_000, seed=0,
            plot_path=None) -> None:
    """Tabulate a results store: mean ± std per dataset and algorithm, with significance tests.

    STORE_OR_CONFIG is a results store (.sqlite) or an experiment config (.yaml).
    """
    from treebench.report.formats import render
    from treebench.report.source import load_frame
    from treebench.report.table import build_table, source_algorithm_order

    if plot_path is not None and test != "bayes":
        raise TreebenchError("--plot draws the posteriors of --test bayes; add --test bayes")
    frame = load_frame(source)
    table = build_table(
        frame, metric=metric, test=test, baseline=baseline, alpha=alpha, paired_test=paired_test,
        test_train_ratio=test_train_ratio, underline_against=_names(underline_against),
        datasets=_names(datasets) or None, algorithms=_names(algorithms) or None,
        correction=correction or "auto", algorithm_order=source_algorithm_order(source),
        rope=rope, bayes_samples=samples, seed=seed,
    )
    write_output(render(table, fmt, standalone=standalone), out)
    _echo_anomalies(frame, source)
    if plot_path is not None:
        from treebench.stats.bayes import plot_simplex

        if not table.analysis.bayes:
            raise TreebenchError(f"nothing to plot: {table.analysis.error or 'no pair of algorithms'}")
        for p in plot_simplex(table.analysis.bayes, plot_path):
            click.echo(f"wrote {p}", err=True)


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
    lines += [f"  {x}" for x in skipped_checks(frame, grids=grids, majority=majority)]
    click.echo("anomaly flags:\n" + "\n".join(lines), err=True)


@click.command()
@click.argument("kind", type=click.Choice(("leaves", "param", "cd")))
@click.argument("source", metavar="STORE_OR_CONFIG")
@click.option("--param", help="param: the hyperparameter on the x axis, fixed by the algorithms' params (an untuned sweep; e.g. q, gamma).")
@click.option("--dataset", help="param: only this dataset.")
@click.option("--metric", default=None,
              help=f"leaves: bar height (default n_leaves); cd: ranked metric (default accuracy); {_METRICS_HELP}.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="cd: Nemenyi level.")
@click.option("--datasets", metavar="A,B,...", help="Only these datasets, in this order.")
@click.option("--algorithms", metavar="A,B,...", help="Only these algorithms, in this order.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Output path without suffix; .png and .svg are written (default: results/plots/KIND).")
def plot(kind, source, param, dataset, metric, alpha, datasets, algorithms, out) -> None:
    """Draw a figure from a results store: leaves (grouped bars), param (sensitivity curve of an untuned sweep), cd.

    STORE_OR_CONFIG is a results store (.sqlite) or an experiment config (.yaml).
    """
    from treebench.report import plots
    from treebench.report.source import load_frame

    if kind == "param" and not param:
        raise TreebenchError("plot param needs --param NAME (the hyperparameter for the x axis, e.g. q)")
    frame = load_frame(source)
    base = out.with_suffix("") if out else Path("results/plots") / (kind if kind != "param" else f"param-{param}")
    ds, algs = _names(datasets) or None, _names(algorithms) or None
    if kind == "leaves":
        paths = plots.plot_leaves(frame, base, metric=metric or "n_leaves", datasets=ds, algorithms=algs)
    elif kind == "cd":
        paths = plots.plot_cd(frame, base, metric=metric or "accuracy", alpha=alpha, datasets=ds, algorithms=algs)
    else:
        metrics = ("accuracy", "n_nodes") if metric is None else (metric,)
        paths = plots.plot_param(frame, base, param=param, dataset=dataset, metrics=metrics, algorithms=algs)
    for p in paths:
        click.echo(f"wrote {p}")
