"""``treebench certainty DATASET``: the certainty-raising inequality as a table and a bar plot.

The numbers come from :mod:`treebench.criteria.inequality`; this module only
loads the dataset, formats the two tables (Markdown or CSV) and draws the plot.
"""

from __future__ import annotations

from pathlib import Path

import click

from treebench.errors import TreebenchError

_TABLES = ("both", "attributes", "values")


def _number(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "inf" if value == float("inf") else f"{value:.4f}"
    return str(value)


def markdown_table(frame) -> list[str]:
    """A pandas frame as a GitHub Markdown table (``|`` in cells escaped)."""
    head = [str(c) for c in frame.columns]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for row in frame.itertuples(index=False):
        out.append("| " + " | ".join(_number(v).replace("|", "\\|") for v in row) + " |")
    return out


def render(report, dataset: str, fmt: str, table: str) -> str:
    """The report as Markdown (headings + tables) or CSV (one table, or both one after the other)."""
    parts = [("attributes", report.attributes), ("values", report.values)]
    chosen = [(name, frame) for name, frame in parts if table in ("both", name)]
    if fmt == "csv":
        return "\n".join(frame.to_csv(index=False, float_format="%.10g") for _, frame in chosen)
    raises = int(report.attributes["raises"].sum())
    lines = [
        f"# Certainty-raising inequality: {dataset}",
        "",
        f"I(C) = {report.class_certainty:.4f}; {raises} of {len(report.attributes)} attributes raise "
        "certainty (I(C|A) > I(C)).",
    ]
    for name, frame in chosen:
        lines += ["", "## Attributes ranked by I(C|A)" if name == "attributes" else
                  "## Causal certainty per value: p(c|a)/I(C|A) > p(c)/I(C)", ""]
        lines += markdown_table(frame)
    return "\n".join(lines) + "\n"


def plot(report, dataset: str, path: Path) -> list[Path]:
    """Bars of I(C|A) per attribute (raising ones coloured), a line at I(C)."""
    from treebench.report.figures import new_figure, palette, save

    frame = report.attributes
    fig, ax = new_figure(max(4.0, 0.3 * len(frame) + 2.0), 3.5)
    colours = palette(2)
    ax.bar(range(len(frame)), frame["I(C|A)"],
           color=[colours[0] if r else colours[1] for r in frame["raises"]])
    ax.axhline(report.class_certainty, color="black", linestyle="--", linewidth=1,
               label=f"I(C) = {report.class_certainty:.3f}")
    ax.set_xticks(range(len(frame)))
    ax.set_xticklabels(frame["attribute"], rotation=90, fontsize=7)
    ax.set_ylabel("I(C|A)")
    ax.set_title(f"{dataset}: conditional certainty per attribute (coloured: raises certainty)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, path.with_suffix(""))


@click.command()
@click.argument("dataset")
@click.option("--format", "fmt", type=click.Choice(("md", "csv")), default="md", show_default=True,
              help="Output format of the tables.")
@click.option("--table", type=click.Choice(_TABLES), default="both", show_default=True,
              help="Which table: the attribute ranking, the per-value comparisons, or both.")
@click.option("--attribute", "attributes", multiple=True,
              help="Only these attributes (repeatable).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the tables here instead of stdout.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also draw the bar plot (FILE.png and FILE.svg).")
def certainty(dataset: str, fmt: str, table: str, attributes: tuple[str, ...], out: Path | None,
              plot_path: Path | None) -> None:
    """Rank DATASET's attributes by conditional certainty I(C|A) against I(C) (paper 003).

    Numeric attributes are split at the threshold that maximises I(C|A);
    see docs/criteria.md.
    """
    from treebench.criteria.inequality import inequality_report
    from treebench.data.loader import load

    data = load(dataset)
    X = data.X
    if attributes:
        unknown = [a for a in attributes if a not in X.columns]
        if unknown:
            raise TreebenchError(
                f"dataset {dataset!r} has no attribute {unknown[0]!r}; accepted: {', '.join(map(str, X.columns))}"
            )
        X = X[list(attributes)]
    report = inequality_report(X, data.y)
    text = render(report, dataset, fmt, table)
    if out is None:
        click.echo(text, nl=False)
    else:
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise TreebenchError(f"cannot write {out}: {exc.strerror or exc}") from None
        click.echo(f"wrote {out}", err=True)
    if plot_path is not None:
        for path in plot(report, dataset, plot_path):
            click.echo(f"wrote {path}", err=True)
