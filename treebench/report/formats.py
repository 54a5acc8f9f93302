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
from treebench.stats import multiple
from treebench.text_table import one_line

FORMATS = ("md", "latex", "csv", "html")

_FLAG_TEXT = {"best": "▲", "worst": "▼"}
_FLAG_TEX = {"best": r"$^{\uparrow}$", "worst": r"$^{\downarrow}$"}



def correction_label(name: str) -> str:
    """A correction's name as printed: ``holm`` -> Holm, ``bergmann-hommel`` -> Bergmann-Hommel."""
    return "-".join(part.capitalize() for part in name.split("-"))

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
        f"({_test_name(t.paired_test)}{_adjusted_by(t.mark_correction)}, alpha = {t.alpha:g})"
    )


def _adjusted_by(correction: str) -> str:
    return "" if correction == "none" else f", {multiple.label(correction)}-adjusted per dataset"


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
    if t.mark_correction != "none":
        lines.append(
            f"Marks use {multiple.label(t.mark_correction)}-adjusted p-values; the family is each dataset's "
            f"{len(t.algorithms) - 1} comparisons with {t.baseline}."
        )
    if t.analysis.kind == "kruskal":
        lines.append(
            "▲ / ▼: significantly best / worst by Levene, then ANOVA + Tukey or Kruskal-Wallis + Dunn "
            f"(Bonferroni), alpha = {t.alpha:g} (paper 001's protocol)."
        )
    fewer = _fewer_splits(t)
    if fewer:  # e.g. trials skipped for bad kept predictions: the row's means are not on the same splits
        lines.append("Over fewer splits than the rest of their row (their means are not on the same splits): "
                     + "; ".join(fewer) + ".")
    return lines + t.notes


def _fewer_splits(t: ComparisonTable) -> list[str]:
    """``dataset / algorithm (n of m)`` for each cell with fewer trials than the most in its row."""
    out = []
    for ds in t.datasets:
        cells = {a: t.cells.get((ds, a)) for a in t.algorithms}
        most = max((c.n for c in cells.values() if c is not None), default=0)
        out += [f"{ds} / {a} ({c.n} of {most})" for a, c in cells.items() if c is not None and c.n < most]
    return out


def _analysis_heading(a: AcrossAnalysis) -> str:
    where = f"{a.n_units} datasets" if a.unit == "datasets" else f"{a.n_units} paired trials of a single dataset"
    if a.kind == "wilcoxon":
        return f"Wilcoxon signed-rank tests over {where}"
    if a.kind == "friedman":
        return f"Friedman test and Nemenyi post-hoc over {where}"
    if a.kind == "bayes":
        return f"Bayesian signed-rank tests over {where}"
    return "Per-dataset Levene → ANOVA / Kruskal-Wallis (paper 001's protocol)"


def _analysis_notes(a: AcrossAnalysis) -> list[str]:
    notes = []
    if a.unit == "folds":
        notes.append(
            "Only one dataset: the test pairs its trials (same repeat and fold) instead of datasets; "
            "trials share training data, so read p-values as descriptive."
        )
    if a.kind == "wilcoxon" and a.correction != "none":
        notes.append(
            f"p ({multiple.label(a.correction)}): adjusted over the {len(a.wilcoxon)} pairwise tests; "
            "'significant' uses the adjusted p-value."
        )
    if a.kind == "bayes" and a.bayes:
        r = a.bayes[0]
        notes.append(
            f"Benavoli et al. (2017): Dirichlet-process posterior (prior weight 0.5 at zero), "
            f"ROPE = ±{r.rope:g}, {len(r.samples)} Monte Carlo draws, seed {r.seed}; "
            "each probability is the share of draws where that outcome is the most probable."
        )
    if a.dropped:
        notes.append("Left out (some algorithm has no result): " + ", ".join(a.dropped) + ".")
    if a.error:
        notes.append("Not computed: " + a.error + ".")
    return notes


def _wilcoxon_rows(t: ComparisonTable) -> list[list[str]]:
    a = t.analysis
    adjusted = a.correction != "none" and len(a.wilcoxon_p_adjusted) == len(a.wilcoxon)
    rows = []
    for i, r in enumerate(a.wilcoxon):
        p = a.wilcoxon_p_adjusted[i] if adjusted else r.p_value
        sig = "yes" if p <= t.alpha else "no"
        stat = "–" if math.isnan(r.statistic) else f"{r.statistic:g}"
        row = [r.a, r.b, stat, _p(r.p_value)] + ([_p(p)] if adjusted else [])
        rows.append(row + [f"{r.wins}/{r.ties}/{r.losses}", sig])
    return rows


_WILCOXON_HEAD = ["A", "B", "W", "p", "A better/tie/worse", "significant"]


def _wilcoxon_head(t: ComparisonTable) -> tuple[list[str], str]:
    """Header and alignment of the Wilcoxon table (an adjusted-p column when corrected)."""
    c = t.analysis.correction
    if c == "none":
        return _WILCOXON_HEAD, "llrrrl"
    return _WILCOXON_HEAD[:4] + [f"p ({multiple.label(c)})"] + _WILCOXON_HEAD[4:], "llrrrrl"


_BAYES_HEAD = ["A", "B", "P(A better)", "P(equivalent)", "P(B better)"]


def _posthoc_head(t: ComparisonTable) -> list[str]:
    return ["A", "B", "z", "p", f"p ({correction_label(t.analysis.posthoc_correction)})", "significant"]


def _posthoc_rows(t: ComparisonTable) -> list[list[str]]:
    ph = t.analysis.posthoc
    if ph is None:
        return []
    return [[r.a, r.b, f"{r.z:.3f}", _p(r.p), _p(r.p_adjusted), "yes" if r.p_adjusted <= t.alpha else "no"]
            for r in ph.itertuples()]


def _posthoc_note(t: ComparisonTable) -> str:
    return (f"Pairwise rank z-tests after Friedman (García & Herrera 2008), "
            f"{correction_label(t.analysis.posthoc_correction)}-adjusted over all pairs.")


def _bayes_rows(t: ComparisonTable) -> list[list[str]]:
    return [[r.a, r.b, f"{r.p_a_better:.3f}", f"{r.p_rope:.3f}", f"{r.p_b_better:.3f}"] for r in t.analysis.bayes]


def _pvalue_rows(t: ComparisonTable) -> tuple[list[str], list[list[str]]]:
    """Raw and adjusted p-values of the marks: one row per dataset, ``raw / adjusted``."""
    others = [a for a in t.algorithms if a != t.baseline]
    rows = []
    for ds in t.datasets:
        row = [ds]
        for alg in others:
            c = t.cells.get((ds, alg))
            row.append("–" if c is None or c.p_value is None else f"{_p(c.p_value)} / {_p(c.p_adjusted)}")
        rows.append(row)
    return ["dataset"] + [f"{a} vs {t.baseline}" for a in others], rows


def _pvalue_title(t: ComparisonTable) -> str:
    return (f"p-values of the marks ({_test_name(t.paired_test)}): raw / "
            f"{multiple.label(t.mark_correction)}-adjusted")


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
    return one_line(text).replace("|", r"\|")


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
    # one_line: a label with a line break (an old or hand-made store) must not split a row
    out = ["| " + " | ".join(one_line(h) for h in head) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(one_line(c) for c in r) + " |" for r in rows]
    return out


def markdown(t: ComparisonTable) -> str:
    """GitHub-flavoured Markdown."""
    head = ["dataset"] + [_md_escape(a) + (" (baseline)" if a == t.baseline else "") for a in t.algorithms]
    rows = [[_md_escape(ds)] + [_md_cell(t, t.cells.get((ds, a))) for a in t.algorithms] for ds in t.datasets]
    if t.wtl:
        rows.append(["(v/ /*)"] + _wtl_row(t))
    lines = [f"**{_md_escape(caption(t))}**", ""] + md_table(head, rows) + [""]
    lines += [_md_escape(x) for x in legend(t)]
    if t.mark_correction != "none":
        head, prow = _pvalue_rows(t)
        lines += ["", f"### {_md_escape(_pvalue_title(t))}", ""]
        lines += md_table([_md_escape(h) for h in head], [[_md_escape(x) for x in r] for r in prow])
    a = t.analysis
    if a.kind != "none":
        lines += ["", f"### {_analysis_heading(a)}", ""]
        if a.kind == "wilcoxon" and a.wilcoxon:
            whead, walign = _wilcoxon_head(t)
            lines += md_table(whead, [[_md_escape(x) for x in r] for r in _wilcoxon_rows(t)], walign)
        elif a.kind == "bayes" and a.bayes:
            lines += md_table(_BAYES_HEAD, [[_md_escape(x) for x in r] for r in _bayes_rows(t)], "llrrr")
        elif a.kind == "friedman" and a.friedman is not None:
            lines += md_table(["algorithm", "average rank"], [[_md_escape(x) for x in r] for r in _rank_rows(t)])
            lines += [""] + [_md_escape(x) for x in _friedman_lines(t)]
            if a.posthoc is not None:
                lines += ["", _md_escape(_posthoc_note(t)), ""]
                lines += md_table(_posthoc_head(t), [[_md_escape(x) for x in r] for r in _posthoc_rows(t)], "llrrrl")
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
    out = "".join(_TEX_SPECIAL.get(ch, ch) for ch in one_line(text))  # a line break would end a row or a paragraph
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
            whead, walign = _wilcoxon_head(t)
            extra += _tex_tabular([tex_escape(h) for h in whead],
                                  [[tex_escape(x) for x in r] for r in _wilcoxon_rows(t)], walign)
        elif a.kind == "bayes" and a.bayes:
            extra += _tex_tabular([tex_escape(h) for h in _BAYES_HEAD],
                                  [[tex_escape(x) for x in r] for r in _bayes_rows(t)], "llrrr")
        elif a.kind == "friedman" and a.friedman is not None:
            extra += _tex_tabular(["Algorithm", "Average rank"], [[tex_escape(x) for x in r] for r in _rank_rows(t)], "lr")
            extra += [r"\par\medskip", tex_escape(" ".join(_friedman_lines(t)))]
            if a.posthoc is not None:
                extra += [r"\par\medskip", tex_escape(_posthoc_note(t)), r"\par\medskip"]
                extra += _tex_tabular([tex_escape(h) for h in _posthoc_head(t)],
                                      [[tex_escape(x) for x in r] for r in _posthoc_rows(t)], "llrrrl")
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
#: Columns of the CSV.  ``kind`` says what a row is: ``cell`` (one per dataset and
#: algorithm, with its mark against the baseline), ``wilcoxon`` / ``bayes`` (one per
#: pair, ``algorithm`` vs ``opponent``), ``friedman``, ``iman-davenport``, ``nemenyi-cd``,
#: ``rank``, ``nemenyi`` and ``friedman-posthoc`` (one per pair), ``oneway`` (one per dataset).
CSV_COLUMNS = [
    "kind", "dataset", "algorithm", "opponent", "metric", "unit", "mean", "std", "n", "baseline", "test",
    "mark", "statistic", "p_value", "p_adjusted", "correction", "significant", "best", "underline", "flag",
    "wins", "ties", "losses", "p_better", "p_equivalent", "p_worse", "rope", "detail",
]


def to_csv(t: ComparisonTable) -> str:
    """Tidy CSV: one row per cell (values in display units), then one per test result.

    See :data:`CSV_COLUMNS`; columns that do not apply to a row are empty.
    """
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, restval="", lineterminator="\n")
    w.writeheader()
    common = {"metric": t.metric.name, "unit": t.metric.unit}
    for ds in t.datasets:
        for alg in t.algorithms:
            c = t.cells.get((ds, alg))
            if c is None:
                continue
            w.writerow({
                **common, "kind": "cell", "dataset": ds, "algorithm": alg, "mean": _num(c.mean),
                "std": _num(c.std), "n": c.n, "baseline": t.baseline, "test": t.paired_test,
                "mark": c.mark or "", "p_value": _num(c.p_value), "p_adjusted": _num(c.p_adjusted),
                "correction": t.mark_correction if c.mark is not None else "",
                "significant": "" if c.mark is None else int(c.mark != ""),
                "best": int(c.best), "underline": int(c.underline), "flag": c.flag,
            })
    a = t.analysis
    scope = "datasets" if a.unit == "datasets" else a.unit
    for i, r in enumerate(a.wilcoxon):
        adj = a.wilcoxon_p_adjusted[i] if i < len(a.wilcoxon_p_adjusted) else r.p_value
        w.writerow({
            **common, "kind": "wilcoxon", "algorithm": r.a, "opponent": r.b, "n": r.n, "test": "wilcoxon",
            "statistic": _num(r.statistic), "p_value": _num(r.p_value), "p_adjusted": _num(adj),
            "correction": a.correction, "significant": int(adj <= t.alpha),
            "wins": r.wins, "ties": r.ties, "losses": r.losses, "detail": scope,
        })
    for r in a.bayes:
        w.writerow({
            **common, "kind": "bayes", "algorithm": r.a, "opponent": r.b, "n": r.n, "test": "bayes",
            "p_better": _num(r.p_a_better), "p_equivalent": _num(r.p_rope), "p_worse": _num(r.p_b_better),
            "rope": _num(r.rope), "detail": f"{len(r.samples)} draws, seed {r.seed}",
        })
    f = a.friedman
    if f is not None:
        k = len(f.ranks)
        w.writerow({**common, "kind": "friedman", "n": f.n_datasets, "test": "friedman",
                    "statistic": _num(f.statistic), "p_value": _num(f.p_value),
                    "significant": int(f.p_value <= t.alpha), "detail": f"df={k - 1}"})
        w.writerow({**common, "kind": "iman-davenport", "n": f.n_datasets, "test": "friedman",
                    "statistic": _num(f.iman_davenport), "p_value": _num(f.iman_davenport_p),
                    "significant": int(f.iman_davenport_p <= t.alpha),
                    "detail": f"df=({k - 1}, {(k - 1) * (f.n_datasets - 1)})"})
        w.writerow({**common, "kind": "nemenyi-cd", "n": f.n_datasets, "test": "friedman",
                    "statistic": _num(f.cd), "detail": f"alpha={f.alpha:g}"})
        for name, rank in f.ranks.items():
            w.writerow({**common, "kind": "rank", "algorithm": name, "n": f.n_datasets, "test": "friedman",
                        "statistic": _num(rank)})
        names = list(f.ranks.index)
        for i, x in enumerate(names):
            for y in names[i + 1:]:
                pv = float(f.nemenyi_p.loc[x, y])
                w.writerow({**common, "kind": "nemenyi", "algorithm": x, "opponent": y, "n": f.n_datasets,
                            "test": "nemenyi", "p_value": _num(pv), "significant": int(pv <= t.alpha)})
    if a.posthoc is not None:
        for r in a.posthoc.itertuples():
            w.writerow({**common, "kind": "friedman-posthoc", "algorithm": r.a, "opponent": r.b,
                        "n": a.n_units, "test": "rank-z", "statistic": _num(r.z), "p_value": _num(r.p),
                        "p_adjusted": _num(r.p_adjusted), "correction": a.posthoc_correction,
                        "significant": int(r.p_adjusted <= t.alpha)})
    for ds, r in a.oneway.items():
        w.writerow({
            **common, "kind": "oneway", "dataset": ds, "test": r.test, "statistic": _num(r.statistic),
            "p_value": _num(r.p_value), "significant": int(r.p_value <= t.alpha),
            "detail": f"levene_p={_num(r.levene_p)}; posthoc={r.posthoc}; best={'/'.join(r.best)}; "
                      f"worst={'/'.join(r.worst)}",
        })
    if a.error:
        w.writerow({**common, "kind": a.kind, "test": a.kind, "detail": "not computed: " + a.error})
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
    if t.mark_correction != "none":
        head, prow = _pvalue_rows(t)
        out.append(f"<h3>{html.escape(_pvalue_title(t))}</h3>")
        out += _html_table(head, prow)
    a = t.analysis
    if a.kind != "none":
        out.append(f"<h3>{html.escape(_analysis_heading(a))}</h3>")
        if a.kind == "wilcoxon" and a.wilcoxon:
            out += _html_table(_wilcoxon_head(t)[0], _wilcoxon_rows(t))
        elif a.kind == "bayes" and a.bayes:
            out += _html_table(_BAYES_HEAD, _bayes_rows(t))
        elif a.kind == "friedman" and a.friedman is not None:
            out += _html_table(["algorithm", "average rank"], _rank_rows(t))
            out += [f"<p>{html.escape(x)}</p>" for x in _friedman_lines(t)]
            if a.posthoc is not None:
                out.append(f"<p>{html.escape(_posthoc_note(t))}</p>")
                out += _html_table(_posthoc_head(t), _posthoc_rows(t))
        elif a.kind == "kruskal" and a.oneway:
            out += _html_table(_ONEWAY_HEAD, _oneway_rows(t))
        out += [f"<p>{html.escape(x)}</p>" for x in _analysis_notes(a)]
    out.append("</div>")
    return "\n".join(out) + "\n"
