"""The leaderboard's outputs: ``leaderboard.csv``, ``pairwise.csv``, ``not_applicable.csv``,
``winners.csv``, ``leaderboard.md``, the figures and ``index.html``.

The Markdown is the page's source: ``index.html`` is that Markdown through
:func:`treebench.report.md_html.markdown_to_html` (raw HTML off) in a Jinja2
template that autoescapes every value, with the figures inlined.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jinja2
import pandas as pd
from markupsafe import Markup

from treebench.leaderboard.board import ROPE, Board, pareto_front
from treebench.leaderboard.catalogue import GRIDS, REFERENCE
from treebench.leaderboard.imbalanced import IMBALANCED_BELOW, ImbalancedView
from treebench.leaderboard.imbalanced import METRICS as IMBALANCED_METRICS
from treebench.leaderboard.plan import Plan
from treebench.text_table import md_text

TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title><style>{{ style }}</style></head><body>
<h1>{{ title }}</h1>
<p>Built {{ built }} by treebench {{ version }}; every number was computed from the results store named under Provenance.</p>
{{ body }}
</body></html>
"""


# -- formatting ----------------------------------------------------------------------------------------
def _missing(x: Any) -> bool:
    return x is None or x is pd.NA or (isinstance(x, float) and math.isnan(x))


def num(x: Any, digits: int = 2, scale: float = 1.0) -> str:
    """A number with ``digits`` decimals; an en dash when missing."""
    return "–" if _missing(x) else f"{float(x) * scale:.{digits}f}"


def pvalue(p: Any) -> str:
    if _missing(p):
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def p_is(p: Any) -> str:
    """``p = 0.123`` or ``p < 0.001``."""
    text = pvalue(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def _wtl(row: pd.Series, suffix: str) -> str:
    values = [row[f"{k}{suffix}"] for k in ("wins", "ties", "losses")]
    return "–" if any(_missing(v) for v in values) else "/".join(str(int(v)) for v in values)


class Md(str):
    """A table cell that is Markdown already (``**0.012**``): :func:`md_table` writes it as it is."""

    __slots__ = ()


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]], right: Sequence[int] = ()) -> list[str]:
    """A pipe table; columns in ``right`` right-aligned.

    Every cell but an :class:`Md` one is user text or a number, shown as written
    (:func:`~treebench.text_table.md_text`): a plugin's description or a dataset's name
    cannot add a link, an image, HTML, emphasis or a line to the table.
    """
    def cell(v: Any) -> str:
        from treebench.text_table import one_line

        return one_line(v) if isinstance(v, Md) else md_text(v)

    align = ["---:" if i in right else "---" for i in range(len(header))]
    return ["| " + " | ".join(cell(h) for h in header) + " |", "| " + " | ".join(align) + " |",
            *("| " + " | ".join(cell(v) for v in r) + " |" for r in rows)]


# -- sections --------------------------------------------------------------------------------------------
def _leaderboard(board: Board, plan: Plan) -> list[str]:
    best = board.table.loc[board.table["status"] == "ranked", "algorithm"]
    leader = str(best.iloc[0]) if len(best) else "–"
    lines = ["## Leaderboard", "",
             f"Mean rank of accuracy over the {len(board.accuracy)} datasets (1 = best; ties share their ranks), "
             f"means over datasets of per-dataset mean accuracy, balanced accuracy and leaves, and of the per-dataset "
             f"median fit time (a worker's first fit also loads the compiled kernels). "
             f"W/T/L: datasets won, tied and lost against the leader ({leader}) and against {REFERENCE}. "
             "Rows marked *partial* apply to some datasets only: their means and W/T/L are over those datasets, "
             "and their rank (in brackets) is among the ranked rows on those datasets.", ""]
    rows = []
    for i, r in board.table.iterrows():
        rank = num(r["mean_rank"]) if not _missing(r["mean_rank"]) else (
            f"({num(r['mean_rank_where_applicable'])})" if not _missing(r["mean_rank_where_applicable"]) else "–")
        rows.append([i + 1 if r["status"] == "ranked" else "", r["algorithm"], "yes" if r["tuned"] else "no",
                     r["status"], rank, num(r["mean_accuracy"], 2, 100), num(r["mean_balanced_accuracy"], 2, 100),
                     num(r["mean_leaves"], 1), num(r["mean_fit_seconds"], 1, 1000), _wtl(r, ""),
                     _wtl(r, "_vs_entropy"), f"{r['n_datasets']}"])
    lines += md_table(["#", "algorithm", "tuned", "status", "mean rank", "accuracy %", "balanced accuracy %",
                       "leaves", "fit ms", "W/T/L vs leader", f"W/T/L vs {REFERENCE}", "datasets"],
                      rows, right=(0, 4, 5, 6, 7, 8, 11))
    if not board.has_balanced:
        lines += ["", "Balanced accuracy: – (this store has no `balanced_accuracy` column)."]
    fr = board.friedman
    lines += [""]
    if fr is not None:
        verdict = "differ" if fr.significant() else "do not differ significantly"
        lines += [f"**Friedman test** over {fr.n_datasets} datasets and {len(board.ranked)} algorithms: "
                  f"χ² = {fr.statistic:.2f}, {p_is(fr.p_value)}; Iman–Davenport F = {fr.iman_davenport:.2f}, "
                  f"{p_is(fr.iman_davenport_p)}: at α = {fr.alpha} the algorithms' ranks {verdict}."]
    lines += [f"Note: {n}" for n in board.notes]
    return lines


def _skipped(board: Board) -> list[str]:
    lines = ["## Not applicable", ""]
    if board.skipped.empty:
        return [*lines, "Every algorithm applies to every dataset of the board."]
    lines += ["These algorithm/dataset pairs get no trials; the reason is checked before anything runs.", ""]
    grouped = board.skipped.groupby(["algorithm", "reason"], sort=False)["dataset"].apply(list)
    rows = [[a, reason, len(ds), ", ".join(ds)] for (a, reason), ds in grouped.items()]
    return lines + md_table(["algorithm", "reason", "datasets", "which"], rows, right=(2,))


def _pairwise(board: Board) -> list[str]:
    lines = ["## Pairwise comparisons", ""]
    if board.pairwise.empty:
        return [*lines, "Not computed: " + ("; ".join(board.notes) or "too few algorithms or datasets") + "."]
    names = sorted(board.ranked, key=lambda n: board.ranks[n])
    p = {(r.a, r.b): r for r in board.pairwise.itertuples(index=False)}

    def get(a: str, b: str) -> Any:
        return p.get((a, b)) or p.get((b, a))

    label = "Bergmann–Hommel" if board.correction == "bergmann-hommel" else "Holm"
    lines += [f"Adjusted p-values of the rank z-test after Friedman ({label} correction over all "
              f"{len(board.pairwise)} pairs; **bold**: below 0.05). Rows and columns in rank order.", ""]
    def adjusted(a: str, b: str) -> str:
        v = get(a, b).p_adjusted
        return Md(f"**{pvalue(v)}**") if v < 0.05 else pvalue(v)

    lines += _matrix(names, adjusted)
    lines += ["", "### Bayesian signed-rank test", "",
              f"Each cell: P(row better) / P(practically equivalent), the posterior of the Bayesian signed-rank "
              f"test (Benavoli et al. 2017) on per-dataset mean accuracies, with a region of practical equivalence "
              f"of ±{ROPE * 100:g} accuracy point. P(column better) is the rest.", ""]
    def posterior(a: str, b: str) -> str:
        r = get(a, b)
        return f"{_better(r, a):.2f} / {r.p_equivalent:.2f}"

    lines += _matrix(names, posterior)
    if REFERENCE in names:
        beat = [a for a in names if a != REFERENCE and _better(get(a, REFERENCE), a) >= 0.95]
        lines += ["", f"Beat {REFERENCE} with posterior probability ≥ 0.95 (ROPE ±{ROPE * 100:g} point): "
                  + (", ".join(map(md_text, beat)) if beat else "none") + "."]
    return lines


def _matrix(names: Sequence[str], cell: Callable[[str, str], str]) -> list[str]:
    """A square pipe table over ``names`` (row, column) with ``cell(row, column)`` off the diagonal."""
    rows = [[a, *("" if a == b else cell(a, b) for b in names)] for a in names]
    return md_table(["", *names], rows, right=tuple(range(1, len(names) + 1)))


def _better(r: Any, a: str) -> float:
    return r.p_a_better if r.a == a else r.p_b_better


def _pareto(board: Board) -> tuple[list[str], pd.DataFrame]:
    points = pd.DataFrame({"leaves": board.leaves[board.ranked].mean(), "accuracy": board.accuracy[board.ranked].mean()})
    front = pareto_front(points) if len(points) else []
    lines = ["## Accuracy against tree size", "",
             "Mean accuracy against mean leaves of the ranked algorithms. On the Pareto front (no other row is at "
             "least as accurate with at most as many leaves): " + (", ".join(map(md_text, front)) or "–") + ".", ""]
    if len(points):
        lines += ["![Accuracy against tree size; filled points are on the Pareto front](pareto.png)"]
    return lines, points


def _winners(board: Board) -> list[str]:
    lines = ["## Where each criterion wins", "",
             "Per dataset, the algorithm(s) with the best mean accuracy (all rows with results there, ties listed "
             "together), against the dataset's meta-features.", ""]
    w = board.winners
    counts = (w.assign(winner=w["winners"].str.split(", ")).explode("winner")["winner"].value_counts())
    lines += ["Datasets won (ties count for each): "
              + (", ".join(f"{md_text(n)} {c}" for n, c in counts.items()) or "–") + ".", ""]
    rows = [[r.dataset, r.rows, r.features, r.classes, num(r.imbalance, 1), num(r.nominal_share, 2), r.winners,
             num(r.best_accuracy, 2, 100), num(r.entropy_accuracy, 2, 100)] for r in w.itertuples(index=False)]
    lines += md_table(["dataset", "rows", "features", "classes", "imbalance", "nominal share", "winner(s)",
                       "best accuracy %", f"{REFERENCE} accuracy %"], rows, right=(1, 2, 3, 4, 5, 7, 8))
    if len(w):
        lines += ["", "![Where each algorithm wins, against the datasets' meta-features](wins.png)"]
    return lines


def _imbalanced(view: ImbalancedView) -> list[str]:
    """The "Imbalanced view" section (:mod:`treebench.leaderboard.imbalanced`)."""
    lines = ["## Imbalanced view", "",
             f"The datasets whose smallest class has fewer than {IMBALANCED_BELOW:g} times the examples of their "
             "largest (minority/majority ratio below it), and every row ranked there by balanced accuracy and by "
             "one-vs-rest ROC AUC (class probabilities of the test rows; rows that give labels only have none). "
             "Means over those datasets of the per-dataset means; ranks as on the accuracy board.", ""]
    if not view.datasets:
        return [*lines, f"No dataset of this board has a minority/majority ratio below {IMBALANCED_BELOW:g}."]
    lines += ["Datasets: " + ", ".join(f"{d} ({r:.3f})" for d, r in view.ratios.items()) + ".", ""]
    table = view.table()
    order = [m for m in IMBALANCED_METRICS if m in view.rankings]
    first = f"mean_rank_{order[0]}"
    table = table.sort_values([first, f"mean_{order[0]}"], ascending=[True, False], na_position="last",
                              kind="mergesort")
    header = ["algorithm"]
    for metric in order:
        label = IMBALANCED_METRICS[metric][0]
        header += [f"rank ({label})", label]
    rows = []
    for r in table.itertuples(index=False):
        row = [r.algorithm]
        for metric in order:
            label, scale, digits = IMBALANCED_METRICS[metric]
            rank, partial = getattr(r, f"mean_rank_{metric}"), getattr(r, f"mean_rank_where_applicable_{metric}")
            shown = num(rank) if not _missing(rank) else (f"({num(partial)})" if not _missing(partial) else "–")
            row += [shown, num(getattr(r, f"mean_{metric}"), digits, scale)]
        rows.append(row)
    lines += md_table(header, rows, right=tuple(range(1, len(header))))
    for metric in order:
        ranking, label = view.rankings[metric], IMBALANCED_METRICS[metric][0]
        fr = ranking.friedman
        if fr is not None:
            verdict = "differ" if fr.significant() else "do not differ significantly"
            lines += ["", f"**Friedman test, {label}**, {fr.n_datasets} datasets and {len(ranking.ranked)} rows: "
                      f"χ² = {fr.statistic:.2f}, {p_is(fr.p_value)}: at α = {fr.alpha} the ranks {verdict}."]
        if ranking.note:
            lines += ["", f"Note ({label}): {ranking.note}."]
    return lines


def _grids(plan: Plan) -> list[str]:
    lines = ["## Algorithms", ""]
    rows = [[a.name, a.description] for a in plan.algorithms]
    lines += md_table(["algorithm", "what"], rows)
    lines += ["", "Tuned rows choose their parameter by inner stratified 3-fold cross-validation on each outer "
              "training part (most correct predictions, then fewest leaves, then the first grid value); the "
              "`-default` rows run the criterion's default. Grids: "
              + "; ".join(f"{c}: {grid_text(g)}" for c, g in GRIDS.items()) + "."]
    return lines


def grid_text(grid: dict[str, list[Any]]) -> str:
    """``q ∈ {0.5, 1.0}`` for a grid."""
    return ", ".join(k + " ∈ {" + ", ".join(map(str, v)) + "}" for k, v in grid.items())


FILES = ("leaderboard.csv", "pairwise.csv", "not_applicable.csv", "winners.csv", "imbalanced.csv", "leaderboard.md")


def markdown(board: Board, plan: Plan, provenance: dict[str, Any], env: dict[str, str] | None = None) -> str:
    """The whole ``leaderboard.md``; ``env`` (versions, :func:`treebench.report.site.environment`) joins the
    provenance."""
    pareto_lines, _ = _pareto(board)
    lines = ["# treebench criteria leaderboard", "",
             f"{len(board.accuracy)} datasets, {len(plan.algorithms)} algorithms ({len(board.ranked)} ranked), "
             f"{provenance.get('protocol', '')}.", "",
             "Files: " + ", ".join(f"[{name}]({name})" for name in FILES) + ".", ""]
    lines += _leaderboard(board, plan) + [""]
    lines += _skipped(board) + [""]
    lines += _pairwise(board) + [""]
    if board.friedman is not None:
        lines += ["## Critical-difference diagram", "",
                  f"Mean ranks; a bar joins algorithms the Nemenyi test does not separate (CD = {board.friedman.cd:.2f} "
                  f"at α = {board.friedman.alpha}).", "",
                  "![Critical-difference diagram of the mean ranks](cd.png)", ""]
    lines += pareto_lines + [""]
    lines += _winners(board) + [""]
    if board.imbalanced is not None:
        lines += _imbalanced(board.imbalanced) + [""]
    lines += ["## Anomaly flags", "",
              "The checks of the papers' reports (docs/reports.md, \"Anomaly flags\") on the board's trials:", ""]
    lines += [f"- {md_text(line)}" for line in board.flags] or ["- none found"]
    lines += [""]
    lines += _grids(plan) + [""]
    items = {**provenance, **(env or {})}
    lines += ["## Provenance", ""] + md_table(["", ""], [[k, v] for k, v in items.items()])
    return "\n".join(lines) + "\n"


def html_page(md: str, out: Path, version: str, built: str) -> str:
    """``index.html``: the Markdown (its own ``#`` title dropped) in the page template, figures inlined."""
    from treebench.report.md_html import markdown_to_html
    from treebench.report.site import STYLE, _Images

    body = md.split("\n", 1)[1] if md.startswith("# ") else md
    images = _Images(out, out, inline=True)
    html = markdown_to_html(body, image=images, heading_offset=0)
    template = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined).from_string(TEMPLATE)
    return template.render(title="treebench criteria leaderboard", style=Markup(STYLE), body=Markup(html),
                           built=built, version=version)


#: Every file :func:`write_outputs` may write into ``--out`` (checked before a board runs).
OUTPUT_FILES = ("leaderboard.csv", "pairwise.csv", "not_applicable.csv", "winners.csv", "imbalanced.csv",
                "leaderboard.md",
                "index.html", *(f"{name}.{ext}" for name in ("cd", "pareto", "wins") for ext in ("png", "svg")))


def write_outputs(board: Board, plan: Plan, provenance: dict[str, Any], out: Path) -> list[Path]:
    """Write every output into ``out``; return the paths (figures as PNG, each also as SVG)."""
    from treebench.leaderboard.figures import pareto_plot, wins_plot
    from treebench.outpaths import make_folder, write_text, write_with
    from treebench.report.cd_diagram import draw_cd
    from treebench.report.site import environment

    what = f"--out {str(out)!r}"
    make_folder(out, what)
    written = []
    for name, frame in (("leaderboard.csv", board.table), ("pairwise.csv", board.pairwise),
                        ("not_applicable.csv", board.skipped), ("winners.csv", board.winners),
                        ("imbalanced.csv", board.imbalanced.table() if board.imbalanced else pd.DataFrame())):
        written.append(write_with(out / name, lambda tmp, f=frame: f.to_csv(tmp, index=False), what))
    if board.friedman is not None:
        draw_cd(board.friedman.ranks, board.friedman.cd, board.friedman.groups, out / "cd")
        written.append(out / "cd.png")
    _, points = _pareto(board)
    if len(points):
        pareto_plot(points, pareto_front(points), out / "pareto")
        written.append(out / "pareto.png")
    if len(board.winners):
        wins_plot(board.winners, out / "wins")
        written.append(out / "wins.png")
    env = environment()
    md = markdown(board, plan, provenance, env)
    written.append(write_text(out / "leaderboard.md", md, what))
    built = datetime.now(timezone.utc).isoformat(timespec="seconds")
    written.append(write_text(out / "index.html", html_page(md, out, env.get("treebench", "?"), built), what))
    return written
