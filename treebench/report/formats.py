"""Render a :class:`~treebench.report.table.ComparisonTable` as Markdown, LaTeX, CSV or HTML.

All four show the same content: mean ± std per cell, the best of each row
in bold, Weka's ``v``/``*`` marks against the baseline, the underline
against chosen opponents when asked, a (v/ /*) win/tie/loss row, then the across-dataset
analysis.  LaTeX uses booktabs and escapes every name.
"""

from __future__ import annotations

import csv
import html
import io
import math
import re

from treebench.errors import one_of
from treebench.report.table import AcrossAnalysis, Cell, ComparisonTable

FORMATS = ("md", "latex", "csv", "html")

_FLAG_TEXT = {"best": "▲", "worst": "▼"}
_FLAG_TEX = {"best": r"$^{\uparrow}$", "worst": r"$^{\downarrow}$"}


def render(table: ComparisonTable, fmt: str = "md", *, standalone: bool = False) -> str:
    """Format ``table``.

    Parameters
    ----------
    fmt
        One of :data:`FORMATS`.
    standalone
        LaTeX only: wrap the tables in a complete ``article`` document.
    """
    if fmt == "md":
        return markdown(table)
    if fmt == "latex":
        return latex(table, standalone=standalone)
    if fmt == "csv":
        return to_csv(table)
    if fmt == "html":
        return to_html(table)
    raise one_of(fmt, FORMATS, "format")


# -- shared wording ---------------------------------------------------------------
def _p(p: float | None) -> str:
    """A p-value for a table column."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "–"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def _peq(p: float | None) -> str:
    """A p-value for prose: ``"= 0.0123"`` or ``"< 0.0001"``."""
    text = _p(p)
    return "< 0.0001" if text.startswith("<") else f"= {text}"


def _test_name(test: str) -> str:
    return {"ttest": "paired t-test", "corrected-ttest": "corrected resampled t-test"}[test]


def caption(t: ComparisonTable) -> str:
    """One-sentence description of what the table shows (plain text)."""
    unit = f" ({t.metric.unit})" if t.metric.unit else ""
    return (
        f"{t.metric.label}{unit}: mean ± std over trials; bold = best per dataset; "
        f"v / * = significantly better / worse than {t.baseline} "
        f"({_test_name(t.paired_test)}, alpha = {t.alpha:g})"
    )


def legend(t: ComparisonTable) -> list[str]:
    """Plain-text lines explaining marks, ratios and exclusions."""
    lines = []
    if t.paired_test == "corrected-ttest":
        ratios = sorted(set(round(r, 4) for r in t.ratios.values()))
        shown = ", ".join(f"{r:g}" for r in ratios)
        lines.append(f"Corrected resampled t-test (Nadeau & Bengio) with n_test/n_train = {shown}.")
    if t.underline_against:
        lines.append(
            "Underlined: significantly better than each of " + " and ".join(t.underline_against)
            + f" ({_test_name(t.paired_test)})."
        )
    if t.analysis.kind == "kruskal":
        lines.append(
            "▲ / ▼: significantly best / worst by Levene, then ANOVA + Tukey or Kruskal-Wallis + Dunn "
            f"(Bonferroni), alpha = {t.alpha:g} (paper 001's protocol)."
        )
    return lines + t.notes


def _analysis_heading(a: AcrossAnalysis) -> str:
    where = f"{a.n_units} datasets" if a.unit == "datasets" else f"{a.n_units} paired trials of a single dataset"
    if a.kind == "wilcoxon":
        return f"Wilcoxon signed-rank tests over {where}"
    if a.kind == "friedman":
        return f"Friedman test and Nemenyi post-hoc over {where}"
    return "Per-dataset Levene → ANOVA / Kruskal-Wallis (paper 001's protocol)"


def _analysis_notes(a: AcrossAnalysis) -> list[str]:
    notes = []
    if a.unit == "folds":
        notes.append(
            "Only one dataset: the test pairs its trials (same repeat and fold) instead of datasets; "
            "trials share training data, so read p-values as descriptive."
        )
    if a.dropped:
        notes.append("Left out (some algorithm has no result): " + ", ".join(a.dropped) + ".")
    if a.error:
        notes.append("Not computed: " + a.error + ".")
    return notes


def _wilcoxon_rows(t: ComparisonTable) -> list[list[str]]:
    rows = []
    for r in t.analysis.wilcoxon:
        sig = "yes" if r.significant(t.alpha) else "no"
        stat = "–" if math.isnan(r.statistic) else f"{r.statistic:g}"
        rows.append([r.a, r.b, stat, _p(r.p_value), f"{r.wins}/{r.ties}/{r.losses}", sig])
    return rows


_WILCOXON_HEAD = ["A", "B", "W", "p", "A better/tie/worse", "significant"]


def _friedman_lines(t: ComparisonTable) -> list[str]:
    f = t.analysis.friedman
    assert f is not None
    return [
        f"Friedman chi2 = {f.statistic:.3f}, p {_peq(f.p_value)}; "
        f"Iman-Davenport F = {f.iman_davenport:.3f}, p {_peq(f.iman_davenport_p)}.",
        f"Nemenyi critical difference (alpha = {f.alpha:g}, k = {len(f.ranks)}, N = {f.n_datasets}): "
        f"CD = {f.cd:.3f}.",
        "Groups not significantly different: "
        + ("; ".join("{" + ", ".join(g) + "}" for g in f.groups) if f.groups else "none")
        + ".",
    ]


def _rank_rows(t: ComparisonTable) -> list[list[str]]:
    f = t.analysis.friedman
    assert f is not None
    order = f.ranks.sort_values(kind="mergesort")
    return [[name, f"{rank:.3f}"] for name, rank in order.items()]


def _oneway_rows(t: ComparisonTable) -> list[list[str]]:
    rows = []
    for ds, r in t.analysis.oneway.items():
        rows.append([
            ds, _p(r.levene_p), "Kruskal-Wallis" if r.test == "kruskal" else "ANOVA",
            f"{r.statistic:.3f}", _p(r.p_value), r.posthoc,
            ", ".join(r.best) or "–", ", ".join(r.worst) or "–",
        ])
    return rows


_ONEWAY_HEAD = ["dataset", "Levene p", "test", "statistic", "p", "post-hoc", "best", "worst"]


def _wtl_row(t: ComparisonTable) -> list[str]:
    return ["" if a == t.baseline else "{}/{}/{}".format(*t.wtl[a]) for a in t.algorithms]


# -- Markdown -------------------------------------------------------------------
def _md_escape(text: str) -> str:
    # GitHub Markdown ignores intraword underscores and lone asterisks, so
    # only the column separator needs escaping in names and prose.
    return text.replace("|", r"\|")


def _styled_cell(t: ComparisonTable, c: Cell | None, bold: tuple[str, str], escape=lambda s: s) -> str:
    """``mean ± std``, underlined (``<u>``, valid in Markdown and HTML), ``bold``
    when best, then the Weka mark and any flag."""
    if c is None:
        return "–"
    text = f"{t.fmt(c.mean)} ± {t.fmt(c.std)}"
    if c.underline:
        text = f"<u>{text}</u>"
    if c.best:
        text = f"{bold[0]}{text}{bold[1]}"
    mark = {"v": " v", "*": " *"}.get(c.mark or "", "")
    return text + escape(mark) + (" " + _FLAG_TEXT[c.flag] if c.flag else "")


def _md_cell(t: ComparisonTable, c: Cell | None) -> str:
    return _styled_cell(t, c, ("**", "**"))


def md_table(head: list[str], rows: list[list[str]], align: str | None = None) -> list[str]:
    """Markdown table lines; ``align`` one letter per column (``l``/``r``, default: first left)."""
    align = align or "l" + "r" * (len(head) - 1)
    sep = ["---" if a == "l" else "---:" for a in align]
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def markdown(t: ComparisonTable) -> str:
    """GitHub-flavoured Markdown."""
    head = ["dataset"] + [_md_escape(a) + (" (baseline)" if a == t.baseline else "") for a in t.algorithms]
    rows = [[_md_escape(ds)] + [_md_cell(t, t.cells.get((ds, a))) for a in t.algorithms] for ds in t.datasets]
    if t.wtl:
        rows.append(["(v/ /*)"] + _wtl_row(t))
    lines = [f"**{_md_escape(caption(t))}**", ""] + md_table(head, rows) + [""]
    lines += [_md_escape(x) for x in legend(t)]
    a = t.analysis
    if a.kind != "none":
        lines += ["", f"### {_analysis_heading(a)}", ""]
        if a.kind == "wilcoxon" and a.wilcoxon:
            lines += md_table(_WILCOXON_HEAD, [[_md_escape(x) for x in r] for r in _wilcoxon_rows(t)], "llrrrl")
        elif a.kind == "friedman" and a.friedman is not None:
            lines += md_table(["algorithm", "average rank"], [[_md_escape(x) for x in r] for r in _rank_rows(t)])
            lines += [""] + [_md_escape(x) for x in _friedman_lines(t)]
        elif a.kind == "kruskal" and a.oneway:
            lines += md_table(_ONEWAY_HEAD, [[_md_escape(x) for x in r] for r in _oneway_rows(t)], "lrlrrlll")
        notes = _analysis_notes(a)
        if notes:
            lines += [""] + [_md_escape(x) for x in notes]
    return "\n".join(lines).rstrip() + "\n"


# -- LaTeX ----------------------------------------------------------------------
_TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
}
_TEX_TEXT = {"±": r"$\pm$", "χ": r"$\chi$", "→": r"$\rightarrow$", "▲": r"$\uparrow$", "▼": r"$\downarrow$",
             "–": "--", "Š": r"\v{S}", "š": r"\v{s}", "≤": r"$\le$", "α": r"$\alpha$"}


def tex_escape(text: str) -> str:
    """Escape LaTeX special characters (and a few non-ASCII symbols) in plain text."""
    out = "".join(_TEX_SPECIAL.get(ch, ch) for ch in str(text))
    for k, v in _TEX_TEXT.items():
        out = out.replace(k, v)
    return out


def _tex_cell(t: ComparisonTable, c: Cell | None) -> str:
    if c is None:
        return "--"
    mean, std = t.fmt(c.mean), t.fmt(c.std).replace("–", "--")
    if c.best:
        mean, std = rf"\textbf{{{mean}}}", rf"\textbf{{{std}}}"
    text = rf"{mean} $\pm$ {std}"
    if c.underline:
        text = rf"\underline{{{text}}}"
    mark = {"v": r"\,v", "*": r"\,$\ast$"}.get(c.mark or "", r"\phantom{\,v}" if c.mark is not None else "")
    return text + mark + (_FLAG_TEX[c.flag] if c.flag else "")


def _tex_tabular(head: list[str], rows: list[list[str]], align: str, mid_before_last: bool = False) -> list[str]:
    out = [rf"\begin{{tabular}}{{{align}}}", r"\toprule", " & ".join(head) + r" \\", r"\midrule"]
    for i, r in enumerate(rows):
        if mid_before_last and i == len(rows) - 1:
            out.append(r"\midrule")
        out.append(" & ".join(r) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    return out


def tex_table(head: list[str], rows: list[list[str]], align: str | None = None) -> list[str]:
    """A booktabs tabular of plain-text cells (escaped here), e.g. for report sections."""
    align = align or "l" + "r" * (len(head) - 1)
    return _tex_tabular([tex_escape(h) for h in head], [[tex_escape(c) for c in r] for r in rows], align)


def _label(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9:-]+", "-", text).strip("-")


def latex(t: ComparisonTable, *, standalone: bool = False) -> str:
    """LaTeX (booktabs).  A fragment of ``table`` floats unless ``standalone``."""
    head = ["Dataset"] + [tex_escape(a) for a in t.algorithms]
    rows = [[tex_escape(ds)] + [_tex_cell(t, t.cells.get((ds, a))) for a in t.algorithms] for ds in t.datasets]
    if t.wtl:
        rows.append([r"(v/ /$\ast$)"] + _wtl_row(t))
    body = [
        r"\begin{table}[htbp]", r"\centering", r"\small",
        rf"\caption{{{tex_escape(caption(t))}. {tex_escape(' '.join(legend(t)))}}}",
        rf"\label{{tab:{_label(t.metric.name)}}}",
        *_tex_tabular(head, rows, "l" + "r" * len(t.algorithms), mid_before_last=bool(t.wtl)),
        r"\end{table}",
    ]
    a = t.analysis
    if a.kind != "none":
        extra = [r"\begin{table}[htbp]", r"\centering", r"\small",
                 rf"\caption{{{tex_escape(_analysis_heading(a))}. {tex_escape(' '.join(_analysis_notes(a)))}}}",
                 rf"\label{{tab:{_label(t.metric.name)}-{a.kind}}}"]
        if a.kind == "wilcoxon" and a.wilcoxon:
            extra += _tex_tabular([tex_escape(h) for h in _WILCOXON_HEAD],
                                  [[tex_escape(x) for x in r] for r in _wilcoxon_rows(t)], "llrrrl")
        elif a.kind == "friedman" and a.friedman is not None:
            extra += _tex_tabular(["Algorithm", "Average rank"], [[tex_escape(x) for x in r] for r in _rank_rows(t)], "lr")
            extra += [r"\par\medskip", tex_escape(" ".join(_friedman_lines(t)))]
        elif a.kind == "kruskal" and a.oneway:
            extra += _tex_tabular([tex_escape(h) for h in _ONEWAY_HEAD],
                                  [[tex_escape(x) for x in r] for r in _oneway_rows(t)], "lrlrrlll")
        else:
            extra += [r"\emph{not computed}"]
        extra.append(r"\end{table}")
        body += [""] + extra
    head_comment = ["% treebench compare: needs \\usepackage{booktabs} in the preamble"]
    if not standalone:
        return "\n".join(head_comment + body) + "\n"
    doc = [r"\documentclass{article}", r"\usepackage[T1]{fontenc}", r"\usepackage[utf8]{inputenc}",
           r"\usepackage{booktabs}", r"\usepackage[margin=2cm,landscape]{geometry}",
           r"\begin{document}", *body, r"\end{document}"]
    return "\n".join(doc) + "\n"


# -- CSV ------------------------------------------------------------------------
def to_csv(t: ComparisonTable) -> str:
    """Tidy CSV, one row per cell, values in display units."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["dataset", "algorithm", "metric", "unit", "mean", "std", "n", "baseline", "test",
                "mark", "p_value", "best", "underline", "flag"])
    for ds in t.datasets:
        for alg in t.algorithms:
            c = t.cells.get((ds, alg))
            if c is None:
                continue
            w.writerow([
                ds, alg, t.metric.name, t.metric.unit, _num(c.mean), _num(c.std), c.n, t.baseline,
                t.paired_test, c.mark or "", _num(c.p_value), int(c.best), int(c.underline), c.flag,
            ])
    return buf.getvalue()


def _num(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return repr(round(float(x), 10))


# -- HTML -----------------------------------------------------------------------
def _html_cell(t: ComparisonTable, c: Cell | None) -> str:
    return _styled_cell(t, c, ("<b>", "</b>"), html.escape)


def _html_table(head: list[str], rows: list[list[str]], escape_cells: bool = True) -> list[str]:
    out = ["<table>", "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr></thead>", "<tbody>"]
    for r in rows:
        cells = [html.escape(x) if escape_cells else x for x in r]
        out.append("<tr>" + "".join(f"<td>{x}</td>" for x in cells) + "</tr>")
    return out + ["</tbody>", "</table>"]


def to_html(t: ComparisonTable) -> str:
    """A self-contained HTML fragment (table, legend, across analysis)."""
    head = ["dataset"] + [a + (" (baseline)" if a == t.baseline else "") for a in t.algorithms]
    rows = [[html.escape(ds)] + [_html_cell(t, t.cells.get((ds, a))) for a in t.algorithms] for ds in t.datasets]
    if t.wtl:
        rows.append(["(v/ /*)"] + _wtl_row(t))
    out = ['<div class="treebench-compare">', f"<p><strong>{html.escape(caption(t))}</strong></p>"]
    out += _html_table(head, rows, escape_cells=False)
    out += [f"<p>{html.escape(x)}</p>" for x in legend(t)]
    a = t.analysis
    if a.kind != "none":
        out.append(f"<h3>{html.escape(_analysis_heading(a))}</h3>")
        if a.kind == "wilcoxon" and a.wilcoxon:
            out += _html_table(_WILCOXON_HEAD, _wilcoxon_rows(t))
        elif a.kind == "friedman" and a.friedman is not None:
            out += _html_table(["algorithm", "average rank"], _rank_rows(t))
            out += [f"<p>{html.escape(x)}</p>" for x in _friedman_lines(t)]
        elif a.kind == "kruskal" and a.oneway:
            out += _html_table(_ONEWAY_HEAD, _oneway_rows(t))
        out += [f"<p>{html.escape(x)}</p>" for x in _analysis_notes(a)]
    out.append("</div>")
    return "\n".join(out) + "\n"
