"""The cell-by-cell reproduction report: a paper's numbers against the rerun's.

:func:`build_report` lines every published number up with the rerun's
(:func:`~treebench.report.cells.compare_cells`), recomputes the spec's claims
(:mod:`treebench.report.claims`), draws its figures and builds its extra
sections (:class:`~treebench.report.spec.SectionBuilder`); :func:`write_report` writes
``report.md`` and ``report.tex``.  Everything works on a results frame and a
:class:`~treebench.report.spec.PaperSpec`, so a report can be built and tested
before a paper's config exists.  Nothing here knows any particular paper: the
specs live in :mod:`treebench.papers`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.report.cells import compare_cells, norm
from treebench.report.claims import ClaimOutcome
from treebench.report.formats import markdown as table_markdown
from treebench.report.formats import tex_escape
from treebench.report.sections import Section
from treebench.report.spec import Figure, PaperSpec, SectionBuilder, SectionContext, section_builder
from treebench.report.table import build_table
from treebench.stats.metrics import METRICS, frame_metrics

#: What a section builder may raise when its inputs are missing or unusable: the report notes it.
SECTION_ERRORS = (TreebenchError, OSError, ValueError)


@dataclass
class Report:
    """What :func:`build_report` produced.

    Attributes
    ----------
    spec
        The paper.
    cells
        :func:`~treebench.report.cells.compare_cells`'s table.
    claims
        One outcome per claim of the spec, in its order.
    figures
        The figures drawn, with the path of their PNG.
    compare_md
        Our full comparison table (Markdown), or ``""``.
    notes
        Remarks for the "Notes" list (failed trials, what could not be built).
    sections
        The tree-quality section (when the store has the measure), then the extra sections.
    """

    spec: PaperSpec
    cells: pd.DataFrame
    claims: list[ClaimOutcome]
    figures: list[tuple[Figure, Path]]
    compare_md: str
    notes: list[str]
    sections: list[Section] = field(default_factory=list)


def build_report(
    spec: PaperSpec,
    frame: pd.DataFrame,
    reference: pd.DataFrame,
    out_dir: Path,
    *,
    figures: bool = True,
    extras: bool | dict[str, dict[str, Any]] = False,
) -> Report:
    """Compare, recompute the claims, draw the figures (PNG + SVG in ``out_dir``) and build the sections.

    Parameters
    ----------
    spec
        The paper.
    frame
        The rerun's trials (may be empty: the report then says what is not run).
    reference
        The paper's published numbers.
    out_dir
        Where figures and the sections' files go.
    figures
        Draw ``spec.figures``.
    extras
        Build the spec's extra sections (``spec.sections``): ``True`` all of
        them with their default settings, or ``{name: {setting: value}}`` only
        the named ones, with those settings.
    """
    cells = compare_cells(reference, frame)
    claims = [claim.evaluate(cells, frame) for claim in spec.claims]
    notes = []
    n_failed = int((frame["status"].astype(str) != "ok").sum()) if "status" in frame.columns else 0
    if n_failed:
        notes.append(f"{n_failed} failed trial(s) are left out (see `error_text` in the store).")
    compare_md = ""
    metric = reference["metric"].iloc[0] if len(reference) else "accuracy"
    if len(frame) and metric in {**METRICS, **frame_metrics(frame)} and metric in frame.columns:
        try:
            compare_md = table_markdown(build_table(frame, metric=metric, test="wilcoxon"))
        except TreebenchError as exc:
            notes.append(f"comparison table not built: {exc}")
    drawn: list[tuple[Figure, Path]] = []
    if figures and len(frame):
        drawn, fig_notes = _draw(spec, frame, out_dir)
        notes += fig_notes
    context = SectionContext(Path(out_dir), frame, reference, spec, notes=notes)
    sections = [section for builder in _chosen(spec.sections, extras) for section in _build(builder, context, extras)]
    sections = tree_quality(context) + sections
    return Report(spec, cells, claims, drawn, compare_md, notes, sections)


def _chosen(builders: tuple[SectionBuilder, ...], extras: bool | dict) -> list[SectionBuilder]:
    """The builders ``extras`` asks for: none, all (``True``) or those named in the dict."""
    if not extras:
        return []
    return [b for b in builders if not isinstance(extras, dict) or b.name in extras]


def _build(builder: SectionBuilder, context: SectionContext, extras: bool | dict) -> list[Section]:
    """Run one builder with its settings; a failure becomes a note."""
    options = dict(extras.get(builder.name, {})) if isinstance(extras, dict) else {}
    try:
        return builder(replace(context, options=options))
    except SECTION_ERRORS as exc:
        context.notes.append(f"section {builder.name} not built: {exc}")
        return []


@section_builder("tree_quality")
def tree_quality(context: SectionContext) -> list[Section]:
    """Per dataset, the tree-level measure of the algorithms whose criterion has one.

    Built from the store's ``tree_quality`` column (mean ± std over trials);
    no section when no trial has a value.  The spec supplies the title and
    the paragraph that says what the measure is.
    """
    from treebench.report.formats import render

    frame, spec = context.frame, context.spec
    if "tree_quality" not in frame.columns:
        return []
    rated = frame[frame["tree_quality"].notna()]
    if not len(rated):
        return []
    try:
        table = build_table(rated, metric="tree_quality", test="wilcoxon")
    except TreebenchError as exc:
        context.notes.append(f"tree-quality table not built: {exc}")
        return []
    intro = [spec.tree_quality_text, ""]
    return [Section(spec.tree_quality_title, intro + table_markdown(table).splitlines(),
                    render(table, "latex").splitlines())]


def _draw(spec: PaperSpec, frame: pd.DataFrame, out_dir: Path) -> tuple[list[tuple[Figure, Path]], list[str]]:
    """Draw ``spec.figures``; return the figures drawn (with their PNG) and notes on those that were not."""
    from treebench.report import plots

    done, notes = [], []
    for fig in spec.figures:
        base = out_dir / fig.name
        try:
            if fig.kind == "leaves":
                paths = plots.plot_leaves(frame, base, metric=fig.options.get("metric", "n_leaves"))
            elif fig.kind == "cd":
                paths = plots.plot_cd(frame, base, metric=fig.options.get("metric", "accuracy"))
            elif fig.kind == "param":
                paths = plots.plot_param(frame, base, param=fig.options["param"], dataset=fig.options.get("dataset"))
            else:  # pragma: no cover - specs are ours
                continue
        except TreebenchError as exc:
            notes.append(f"figure {fig.name} not drawn: {exc}")
            continue
        done.append((fig, paths[0]))
    return done, notes


# -- writing ----------------------------------------------------------------------------
def _fmt(x: object, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, (int, np.integer)):
        return str(x)
    return f"{x:.{digits}f}"


def _digits(unit: str, metric: str) -> int:
    return {"percent": 1, "fraction": 4, "parameter": 2}.get(unit, 0 if metric.endswith("errors") else 1)


def _within(v: object) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else ("yes" if v else "no")


def _agree(v: bool | None) -> str:
    return "–" if v is None else ("yes" if v else "**no**")


def _cell_rows(cells: pd.DataFrame) -> dict[tuple[str, str], list[list[str]]]:
    """Rows per (metric, unit) section: dataset, algorithm, paper, ours, diff, within, status."""
    out: dict[tuple[str, str], list[list[str]]] = {}
    for r in cells.itertuples(index=False):
        d = _digits(r.unit, r.metric)
        paper = _fmt(r.value, d) + ("" if math.isnan(r.std) else f" ± {_fmt(r.std, d)}")
        ours = _fmt(r.ours, d) + ("" if math.isnan(r.our_std) else f" ± {_fmt(r.our_std, d)}")
        diff = "–" if math.isnan(r.diff) else f"{r.diff:+.{d}f}"
        mark = f" ({r.mark})" if r.mark else ""
        ds = r.dataset_label + (f" ({r.dataset})" if r.dataset and norm(r.dataset) != norm(r.dataset_label) else "")
        out.setdefault((r.metric, r.unit), []).append(
            [ds, r.algorithm_label, paper + mark, ours if r.status == "ok" else r.status, diff, _within(r.within_std)]
        )
    return out


def _summary(cells: pd.DataFrame, tolerances: dict[str, float] | None = None) -> list[str]:
    lines = []
    for (metric, unit), sub in cells.groupby(["metric", "unit"], sort=False):
        done = sub[sub["status"] == "ok"]
        line = f"{metric} ({unit}): {len(done)} of {len(sub)} published cells rerun"
        if len(done):
            digits = _digits(unit, metric)
            line += f"; mean |ours - paper| = {done['diff'].abs().mean():.{digits}f}"
            judged = done[done["within_std"].notna()]
            if len(judged):
                line += f"; within the paper's ± std: {int(judged['within_std'].astype(bool).sum())} of {len(judged)}"
            tolerance = (tolerances or {}).get(metric)
            if tolerance is not None:
                close = int((done["diff"].abs() <= tolerance + 1e-9).sum())
                line += f"; within ± {tolerance:g} of the paper: {close} of {len(done)}"
        lines.append(line)
    return lines


def report_markdown(rep: Report, *, config: str = "", store: str = "") -> str:
    """The Markdown report."""
    s = rep.spec
    lines = [f"# Reproduction of paper {s.number} ({s.key})", "", f"*{s.citation}*", ""]
    if config or store:
        lines += [f"Config `{config}`, results store `{store}`; reference numbers "
                  f"`results/reference/{s.reference}` (reading notes in its README).", ""]
    lines += ["## Published cells against ours", ""]
    lines += [f"- {x}" for x in _summary(rep.cells, rep.spec.tolerances)] + [""]
    head = ["dataset", "algorithm", "paper", "ours", "ours − paper", "within paper ± std"]
    for (metric, unit), rows in _cell_rows(rep.cells).items():
        lines += [f"### {metric} ({unit})", "", "| " + " | ".join(head) + " |",
                  "| --- | --- | ---: | ---: | ---: | --- |"]
        lines += ["| " + " | ".join(x.replace("|", r"\|") for x in r) + " |" for r in rows] + [""]
    lines += ["## The paper's conclusions, recomputed", "",
              "| claim | paper | paper's own numbers | ours | agrees |", "| --- | --- | --- | --- | --- |"]
    for c in rep.claims:
        lines.append(f"| {c.text} | {c.paper} | {c.paper_numbers} | {c.ours} | {_agree(c.agrees)} |")
    for c in rep.claims:
        if c.details:
            lines += ["", f"**{c.text}**", ""] + [f"- {d}" for d in c.details]
    if rep.compare_md:
        lines += ["", "## Our full comparison", "", rep.compare_md.rstrip()]
    if rep.figures:
        lines += ["", "## Figures", ""]
        for fig, path in rep.figures:
            lines += [f"![{fig.caption}]({path.name})", "", f"*{fig.caption}*", ""]
    for sec in rep.sections:
        lines += ["", f"## {sec.title}", ""] + sec.markdown
    if rep.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in rep.notes]
    return "\n".join(lines).rstrip() + "\n"


def report_latex(rep: Report) -> str:
    """A standalone LaTeX document with the same content (figures as PNG)."""
    s = rep.spec
    out = [r"\documentclass{article}", r"\usepackage[T1]{fontenc}", r"\usepackage[utf8]{inputenc}",
           r"\usepackage{booktabs}", r"\usepackage{longtable}", r"\usepackage{graphicx}",
           r"\usepackage[margin=2cm]{geometry}", r"\begin{document}",
           rf"\section*{{Reproduction of paper {s.number} ({tex_escape(s.key)})}}",
           rf"\emph{{{tex_escape(s.citation)}}}", "", r"\subsection*{Published cells against ours}",
           r"\begin{itemize}"]
    out += [rf"\item {tex_escape(x)}" for x in _summary(rep.cells, rep.spec.tolerances)] + [r"\end{itemize}"]
    for (metric, unit), rows in _cell_rows(rep.cells).items():
        out += [rf"\subsubsection*{{{tex_escape(metric)} ({tex_escape(unit)})}}",
                r"\begin{longtable}{llrrrl}", r"\toprule",
                r"Dataset & Algorithm & Paper & Ours & Ours $-$ paper & Within $\pm$ std \\", r"\midrule",
                r"\endhead"]
        out += [" & ".join(tex_escape(x) for x in r) + r" \\" for r in rows]
        out += [r"\bottomrule", r"\end{longtable}"]
    out += [r"\subsection*{The paper's conclusions, recomputed}", r"\begin{itemize}"]
    for c in rep.claims:
        out.append(rf"\item \textbf{{{tex_escape(c.text)}}} --- paper: {tex_escape(c.paper)}; "
                   rf"paper's numbers: {tex_escape(c.paper_numbers)}; ours: {tex_escape(c.ours)}; "
                   rf"agrees: {tex_escape(_agree(c.agrees).strip('*'))}.")
        if c.details:
            out += [r"\begin{itemize}"] + [rf"\item {tex_escape(d)}" for d in c.details] + [r"\end{itemize}"]
    out.append(r"\end{itemize}")
    for fig, path in rep.figures:
        out += [r"\begin{figure}[htbp]", r"\centering",
                rf"\includegraphics[width=\linewidth]{{{path.name}}}",
                rf"\caption{{{tex_escape(fig.caption)}}}", r"\end{figure}"]
    for sec in rep.sections:
        out += [rf"\subsection*{{{tex_escape(sec.title)}}}"] + sec.latex
    if rep.notes:
        out += [r"\subsection*{Notes}", r"\begin{itemize}"] + [rf"\item {tex_escape(n)}" for n in rep.notes]
        out.append(r"\end{itemize}")
    out.append(r"\end{document}")
    return "\n".join(out) + "\n"


def write_report(rep: Report, out_dir: Path, *, config: str = "", store: str = "") -> list[Path]:
    """Write ``report.md`` and ``report.tex`` into ``out_dir``; return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    md, tex = out_dir / "report.md", out_dir / "report.tex"
    md.write_text(report_markdown(rep, config=config, store=store), encoding="utf-8")
    tex.write_text(report_latex(rep), encoding="utf-8")
    return [md, tex]
