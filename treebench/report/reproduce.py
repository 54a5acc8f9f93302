"""Cell-by-cell reproduction report: the paper's numbers against ours.

:func:`compare_cells` lines every published number up with the rerun's
value for the same dataset, algorithm and metric (in the paper's unit);
:func:`evaluate_claims` recomputes the paper's statistical conclusions on
the rerun; :func:`write_report` writes ``report.md``, ``report.tex`` and the
figures.  Everything works on a results frame, so it can be built and tested
before a paper's config exists.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.report import papers as P
from treebench.report.formats import markdown as table_markdown
from treebench.report.formats import tex_escape
from treebench.report.table import build_table
from treebench.stats import across, oneway
from treebench.stats.metrics import METRICS


def norm(name: object) -> str:
    """Loose name key: lower case, letters and digits only (``O-PiTree`` == ``opitree``)."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


# -- our values in the paper's units ----------------------------------------------
def _json_value(text: object, key: str) -> float:
    try:
        value = json.loads(text) if isinstance(text, str) and text else {}
    except ValueError:
        return math.nan
    v = value.get(key) if isinstance(value, dict) else None
    return float(v) if isinstance(v, (int, float)) else math.nan


def trial_values(frame: pd.DataFrame, metric: str, unit: str) -> pd.Series:
    """Per-trial values of a reference metric, in the reference's unit.

    ``train_errors``/``test_errors`` are counts: the error rate times the
    size of the part (``n_train``/``n_test`` columns of the store).  ``q``
    (or any other name that is not a store column) is read from the tuned
    values (``chosen``), else from ``params``.
    """
    n = len(frame)
    nan = pd.Series(np.full(n, np.nan), index=frame.index)
    num = lambda col: pd.to_numeric(frame[col], errors="coerce") if col in frame.columns else nan  # noqa: E731
    if metric == "train_errors":
        values = (1.0 - num("train_accuracy")) * num("n_train")
    elif metric == "test_errors":
        values = num("error") * num("n_test")
    elif metric in frame.columns:
        values = num(metric)
    else:
        values = nan.copy()
        for col in ("chosen", "params"):
            if col in frame.columns:
                found = frame[col].map(lambda t: _json_value(t, metric))
                values = values.fillna(found)
    if unit == "percent":
        values = values * 100.0
    if unit == "count" and metric in ("train_errors", "test_errors"):
        values = values.round()
    return values


@dataclass
class Matcher:
    """Map reference dataset/algorithm names onto the names in the frame."""

    frame_datasets: list[str]
    frame_algorithms: list[str]

    @classmethod
    def of(cls, frame: pd.DataFrame) -> Matcher:
        return cls(sorted(set(frame["dataset"].astype(str))), sorted(set(frame["algorithm"].astype(str))))

    @staticmethod
    def _find(candidates: list[str], *names: str) -> str | None:
        keys = {norm(c): c for c in candidates}
        for name in names:
            if name and norm(name) in keys:
                return keys[norm(name)]
        return None

    def dataset(self, name: str, label: str = "") -> str | None:
        return self._find(self.frame_datasets, name, label) if name else None

    def algorithm(self, name: str, label: str = "") -> str | None:
        return self._find(self.frame_algorithms, name, label)


def compare_cells(reference: pd.DataFrame, frame: pd.DataFrame) -> pd.DataFrame:
    """Every published number next to ours.

    Returns
    -------
    DataFrame
        The reference columns plus ``ours``, ``our_std``, ``n`` (trials),
        ``diff`` (ours - paper), ``within_std`` (``|diff| <= paper std``;
        None without a paper std or without our value) and ``status``
        (``ok``, ``no dataset``, ``not run``, ``no value``).
    """
    ok = frame[frame["status"].astype(str) == "ok"] if "status" in frame.columns else frame
    match = Matcher.of(ok) if len(ok) else Matcher([], [])
    rows = []
    for ref in reference.itertuples(index=False):
        row = ref._asdict()
        row.update(ours=math.nan, our_std=math.nan, n=0, diff=math.nan, within_std=None)
        ds = match.dataset(ref.dataset, ref.dataset_label) if ref.dataset else None
        alg = match.algorithm(ref.algorithm, ref.algorithm_label)
        if not ref.dataset:
            row["status"] = "no dataset"
        elif ds is None or alg is None:
            row["status"] = "not run"
        else:
            sub = ok[(ok["dataset"].astype(str) == ds) & (ok["algorithm"].astype(str) == alg)]
            vals = trial_values(sub, ref.metric, ref.unit).dropna()
            if vals.empty:
                row["status"] = "no value"
            else:
                row["status"] = "ok"
                row["ours"] = float(vals.median() if ref.metric == "q" else vals.mean())
                row["our_std"] = float(vals.std(ddof=1)) if len(vals) > 1 else math.nan
                row["n"] = int(len(vals))
                row["diff"] = row["ours"] - float(ref.value)
                if not math.isnan(ref.std):
                    row["within_std"] = bool(abs(row["diff"]) <= ref.std + 1e-9)
        rows.append(row)
    return pd.DataFrame(rows)


# -- claims -------------------------------------------------------------------------
@dataclass
class ClaimOutcome:
    """One recomputed conclusion: what the paper says, what its numbers and ours give."""

    text: str
    paper: str
    paper_numbers: str
    ours: str
    agrees: bool | None
    details: list[str] = field(default_factory=list)


def _means(cells: pd.DataFrame, metric: str, column: str) -> pd.DataFrame:
    """Datasets x algorithms matrix of ``column`` (``value`` = paper, ``ours``) for one metric."""
    sub = cells[(cells["metric"] == metric)]
    if column == "ours":
        sub = sub[sub["status"] == "ok"]
    wide = sub.pivot_table(index="dataset_label", columns="algorithm", values=column, aggfunc="mean")
    return wide


def _higher(metric: str) -> bool:
    m = METRICS.get(metric)
    return m.higher_is_better if m else False


def _wilcoxon_claim(c: P.WilcoxonClaim, cells: pd.DataFrame) -> ClaimOutcome:
    hib = _higher(c.metric)
    paper_says = "significant" if c.significant else "not significant"
    out = ClaimOutcome(c.text, paper_says, "–", "not run", None)
    for column, slot in (("value", "paper_numbers"), ("ours", "ours")):
        wide = _means(cells, c.metric, column)
        if c.a not in wide or c.b not in wide:
            continue
        both = wide[[c.a, c.b]].dropna()
        if len(both) < 2:
            setattr(out, slot, f"only {len(both)} dataset(s)")
            continue
        r = across.wilcoxon(both[c.a].to_numpy(), both[c.b].to_numpy(), c.a, c.b, hib)
        different = r.significant(c.alpha)
        a_better = different and r.wins > r.losses
        verdict = (
            f"significant, {c.a} better" if a_better
            else f"significant, {c.b} better" if different
            else "not significant"
        )
        text = (f"W = {r.statistic:g}, p = {r.p_value:.4f} over {r.n} datasets "
                f"({r.wins}/{r.ties}/{r.losses} win/tie/loss): {verdict}")
        setattr(out, slot, text)
        if column == "ours":
            # "a beats b" needs a significant difference in a's favour; "no
            # significant difference" fails on a difference in either direction
            out.agrees = a_better if c.significant else not different
    return out


def _oneway_claim(c: P.OneWayClaim, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
    hib = _higher(c.metric)
    out = ClaimOutcome(c.text, "bold/underline in the table", "–", "not run", None)
    sub = cells[cells["metric"] == c.metric]
    ok = frame[frame["status"].astype(str) == "ok"] if "status" in frame.columns else frame
    match = Matcher.of(ok) if len(ok) else Matcher([], [])
    agreements, total = 0, 0
    for label, group in sub.groupby("dataset_label", sort=False):
        paper_best = sorted(group.loc[group["mark"] == "bold", "algorithm"])
        paper_worst = sorted(group.loc[group["mark"] == "underline", "algorithm"])
        ds = match.dataset(group["dataset"].iloc[0], label)
        groups = {}
        for alg in group["algorithm"]:
            name = match.algorithm(alg)
            if ds is None or name is None:
                continue
            rows = ok[(ok["dataset"].astype(str) == ds) & (ok["algorithm"].astype(str) == name)]
            vals = trial_values(rows, c.metric, "fraction").dropna().to_numpy()
            if vals.size >= 2:
                groups[alg] = vals
        if len(groups) < 2:
            out.details.append(f"{label}: paper best {paper_best or '–'}, worst {paper_worst or '–'}; ours: not run")
            continue
        res = oneway.oneway_protocol(groups, hib, c.alpha)
        total += 1
        same = sorted(res.best) == paper_best and sorted(res.worst) == paper_worst
        agreements += same
        out.details.append(
            f"{label}: paper best {', '.join(paper_best) or '–'} / worst {', '.join(paper_worst) or '–'}; "
            f"ours ({'Kruskal-Wallis' if res.test == 'kruskal' else 'ANOVA'}, p = {res.p_value:.4f}) "
            f"best {', '.join(res.best) or '–'} / worst {', '.join(res.worst) or '–'}"
            f"{'' if same else '  ← differs'}"
        )
    if total:
        out.ours = f"same marks on {agreements} of {total} datasets"
        out.agrees = agreements == total
    return out


def _underline_claim(c: P.UnderlineClaim, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
    paper_cells = cells[(cells["metric"] == c.metric) & (cells["mark"].str.startswith("underline"))]
    paper_set = {(r.dataset_label, r.algorithm) for r in paper_cells.itertuples()}
    out = ClaimOutcome(c.text, f"{len(paper_set)} underlined cells (as read, see the reference README)", "–",
                       "not run", None)
    ok = frame[frame["status"].astype(str) == "ok"] if "status" in frame.columns else frame
    if ok.empty:
        return out
    match = Matcher.of(ok)
    opp = [match.algorithm(o) for o in c.opponents]
    if any(o is None for o in opp):
        return out
    try:
        table = build_table(ok, metric=c.metric, test=c.test, alpha=c.alpha, underline_against=opp)
    except TreebenchError as exc:
        out.ours = f"not computed: {exc}"
        return out
    labels = {}
    for r in cells[cells["metric"] == c.metric].itertuples():
        ds, alg = match.dataset(r.dataset, r.dataset_label), match.algorithm(r.algorithm)
        if ds and alg:
            labels[(ds, alg)] = (r.dataset_label, r.algorithm)
    ours = {labels[k] for k, cell in table.cells.items() if cell.underline and k in labels}
    covered = {v for v in labels.values()}
    paper_in = {p for p in paper_set if p in covered}
    both = ours & paper_in
    out.ours = f"{len(ours)} underlined; {len(both)} of the paper's {len(paper_in)} (on datasets run) among them"
    out.agrees = ours == paper_in
    for ds_label, alg in sorted(ours ^ paper_in):
        who = "ours only" if (ds_label, alg) in ours else "paper only"
        out.details.append(f"{ds_label} / {alg}: {who}")
    return out


def _fewer_claim(c: P.FewerClaim, cells: pd.DataFrame, frame: pd.DataFrame) -> ClaimOutcome:
    out = ClaimOutcome(c.text, "yes", "–", "not run", None)
    ok = frame[frame["status"].astype(str) == "ok"] if "status" in frame.columns else frame
    if ok.empty:
        return out
    match = Matcher.of(ok)
    a, b = match.algorithm(c.a), match.algorithm(c.b)
    datasets = [match.dataset(d) for d in c.datasets] if c.datasets else match.frame_datasets
    results = []
    for want, ds in zip(c.datasets or datasets, datasets):
        if ds is None or a is None or b is None:
            out.details.append(f"{want}: not run")
            continue
        va = trial_values(ok[(ok["dataset"] == ds) & (ok["algorithm"] == a)], c.metric, "count").mean()
        vb = trial_values(ok[(ok["dataset"] == ds) & (ok["algorithm"] == b)], c.metric, "count").mean()
        if math.isnan(va) or math.isnan(vb):
            out.details.append(f"{ds}: no {c.metric} in the store")
            continue
        results.append(va < vb)
        out.details.append(f"{ds}: {c.a} {va:.4g} vs {c.b} {vb:.4g} → {'fewer' if va < vb else 'not fewer'}")
    if results:
        out.ours = f"fewer on {sum(results)} of {len(results)} dataset(s)"
        out.agrees = all(results)
    return out


def _most_claim(c: P.MostClaim, frame: pd.DataFrame) -> ClaimOutcome:
    out = ClaimOutcome(c.text, "yes (figure)", "–", "not run", None)
    ok = frame[frame["status"].astype(str) == "ok"] if "status" in frame.columns else frame
    if ok.empty or c.metric not in ok.columns:
        return out
    a = Matcher.of(ok).algorithm(c.a)
    if a is None:
        return out
    wide = ok.pivot_table(index="dataset", columns="algorithm", values=c.metric, aggfunc="mean")
    top = wide.max(axis=1)
    hits = int((wide[a] >= top - 1e-12).sum())
    out.ours = f"largest on {hits} of {len(wide)} datasets"
    out.agrees = hits == len(wide)
    return out


def _meandiff_claim(c: P.MeanDiffClaim, cells: pd.DataFrame) -> ClaimOutcome:
    out = ClaimOutcome(c.text, "≈ 4 points", "–", "not run", None)
    for column, slot in (("value", "paper_numbers"), ("ours", "ours")):
        wide = _means(cells, c.metric, column)
        parts = []
        for b in c.others:
            if c.a in wide and b in wide:
                d = (wide[c.a] - wide[b]).dropna()
                if len(d):
                    parts.append(f"vs {b} {d.mean():+.2f}")
        others = [b for b in c.others if b in wide]
        if c.a in wide and others:
            # per dataset, against whichever of the others did best there
            best = wide[others].max(axis=1) if _higher(c.metric) else wide[others].min(axis=1)
            d = (wide[c.a] - best).dropna()
            if len(d):
                parts.append(f"vs the best of {', '.join(others)} per dataset {d.mean():+.2f}")
        if parts:
            setattr(out, slot, "; ".join(parts))
    return out


def evaluate_claims(spec: P.PaperSpec, cells: pd.DataFrame, frame: pd.DataFrame) -> list[ClaimOutcome]:
    """Recompute each claim of ``spec`` on the rerun (and on the paper's numbers where it makes sense)."""
    out = []
    for c in spec.claims:
        if isinstance(c, P.WilcoxonClaim):
            out.append(_wilcoxon_claim(c, cells))
        elif isinstance(c, P.OneWayClaim):
            out.append(_oneway_claim(c, cells, frame))
        elif isinstance(c, P.UnderlineClaim):
            out.append(_underline_claim(c, cells, frame))
        elif isinstance(c, P.FewerClaim):
            out.append(_fewer_claim(c, cells, frame))
        elif isinstance(c, P.MostClaim):
            out.append(_most_claim(c, frame))
        elif isinstance(c, P.MeanDiffClaim):
            out.append(_meandiff_claim(c, cells))
    return out


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


@dataclass
class Report:
    """What :func:`build_report` produced."""

    spec: P.PaperSpec
    cells: pd.DataFrame
    claims: list[ClaimOutcome]
    figures: list[tuple[P.Figure, Path]]
    compare_md: str
    notes: list[str]
    sections: list = field(default_factory=list)  # extra sections (treebench.report.random_trees.Section)


def build_report(
    spec: P.PaperSpec,
    frame: pd.DataFrame,
    reference: pd.DataFrame,
    out_dir: Path,
    *,
    figures: bool = True,
    extras: bool | dict = False,
) -> Report:
    """Compare, recompute the claims and draw the figures (PNG + SVG in ``out_dir``).

    ``extras`` adds the paper's extra sections (``spec.extras``; for serrurier2015 the
    random-tree experiment of Figs. 2-3): ``True`` with their default settings, or a
    dict ``{name: {setting: value}}``.
    """
    cells = compare_cells(reference, frame)
    claims = evaluate_claims(spec, cells, frame)
    notes = []
    n_failed = int((frame["status"].astype(str) != "ok").sum()) if "status" in frame.columns else 0
    if n_failed:
        notes.append(f"{n_failed} failed trial(s) are left out (see `error_text` in the store).")
    compare_md = ""
    metric = reference["metric"].iloc[0] if len(reference) else "accuracy"
    if len(frame) and metric in METRICS and metric in frame.columns:
        try:
            compare_md = table_markdown(build_table(frame, metric=metric, test="wilcoxon"))
        except TreebenchError as exc:
            notes.append(f"comparison table not built: {exc}")
    drawn: list[tuple[P.Figure, Path]] = []
    if figures and len(frame):
        drawn, fig_notes = _draw(spec, frame, out_dir)
        notes += fig_notes
    sections = _extra_sections(spec, out_dir, extras, notes, frame) if extras else []
    quality = _tree_quality_section(frame, notes)
    if quality is not None:
        sections.insert(0, quality)
    return Report(spec, cells, claims, drawn, compare_md, notes, sections)


def _tree_quality_section(frame: pd.DataFrame, notes: list[str]):
    """Per dataset, the tree-level measure of the algorithms whose criterion has
    one (eq. 18 of paper 000 for possibilistic trees); ``None`` when none has."""
    from treebench.report.random_trees import Section

    if "tree_quality" not in frame.columns:
        return None
    rated = frame[frame["tree_quality"].notna()]
    if not len(rated):
        return None
    try:
        table = build_table(rated, metric="tree_quality", test="wilcoxon")
    except TreebenchError as exc:
        notes.append(f"tree-quality table not built: {exc}")
        return None
    from treebench.report.formats import render

    intro = ["Mean ± std over trials of the criterion's tree measure of every fitted tree "
             "(eq. 18: the sum over the leaves of H*(p_l, n_l, γ) at the tuned γ; lower is better).", ""]
    return Section("Tree quality measure (eq. 18)", intro + table_markdown(table).splitlines(),
                   render(table, "latex").splitlines())


def _extra_sections(
    spec: P.PaperSpec, out_dir: Path, extras: bool | dict, notes: list[str], frame: pd.DataFrame | None = None
) -> list:
    """Sections beyond the published table (only papers whose spec names ``extras``)."""
    out = []
    for name in spec.extras:
        options = dict(extras.get(name, {})) if isinstance(extras, dict) else {}
        if isinstance(extras, dict) and name not in extras:
            continue
        if name == "random_trees":
            from treebench.report.random_trees import random_trees_section

            try:
                out.append(random_trees_section(out_dir, **options))
            except (TreebenchError, OSError, ValueError) as exc:
                notes.append(f"section {name} not built: {exc}")
        elif name == "certainty_errors" and frame is not None and len(frame):
            from treebench.report.certainty_extras import certainty_section

            out.append(certainty_section(frame))
        elif name == "belief_tables" and frame is not None and len(frame):
            from treebench.report.belief_extras import belief_section

            out.append(belief_section(frame))
        elif name == "mee":
            from treebench.report.mee_extras import mee_sections
            from treebench.report.reference import load_reference

            try:
                out.extend(mee_sections(out_dir, frame, load_reference(spec.reference), **options))
            except (TreebenchError, OSError, ValueError) as exc:
                notes.append(f"section {name} not built: {exc}")
        elif name == "q_sweep":
            from treebench.report.q_sweep import q_sweep_section

            try:
                out.append(q_sweep_section(out_dir, config=spec.config, **options))
            except (TreebenchError, OSError, ValueError) as exc:
                notes.append(f"section {name} not built: {exc}")
    return out


def _draw(spec: P.PaperSpec, frame: pd.DataFrame, out_dir: Path) -> tuple[list[tuple[P.Figure, Path]], list[str]]:
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
