"""The cell-by-cell reproduction report: a paper's numbers against the rerun's.

:func:`build_report` lines every published number up with the rerun's
(:func:`~treebench.report.cells.compare_cells`), calibrates the protocol on the
spec's baselines (:func:`~treebench.report.cells.calibrate`), recomputes the
spec's claims (:mod:`treebench.report.claims`) with their effects and verdicts
twice -- over all datasets and over the calibrated ones --, draws its figures
and builds its extra sections (:class:`~treebench.report.spec.SectionBuilder`);
:func:`write_report` writes ``report.md`` and ``report.tex``.  Everything works
on a results frame and a :class:`~treebench.report.spec.PaperSpec`, so a report
can be built and tested before a paper's config exists.  Nothing here knows any particular paper: the
specs live in :mod:`treebench.papers`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from treebench.errors import TreebenchError
from treebench.report.anomalies import (
    Anomaly,
    config_grids,
    find_anomalies,
    majority_rates,
    majority_source,
    skipped_checks,
)
from treebench.report.causes import Causes, load_causes
from treebench.report.cells import (
    AGREEMENT_Z,
    CALIBRATED,
    EXCLUDED,
    MISMATCH,
    NOT_IN_PAPER,
    NOT_JUDGED,
    Calibration,
    calibrate,
    compare_cells,
    drop_excluded,
    norm,
    what_differs,
)
from treebench.report.claims import (
    NOT_TESTABLE,
    ClaimOutcome,
    Effect,
    adjust_families,
    evaluate_claim,
    in_report_folder,
    not_testable,
    rejudge,
)
from treebench.report.forest import FOREST, forest_plot
from treebench.report.formats import markdown as table_markdown
from treebench.report.formats import tex_escape
from treebench.report.misses import explained_claims, open_questions
from treebench.report.sections import Section
from treebench.report.spec import (
    Figure,
    PaperSpec,
    Reading,
    SectionBuilder,
    SectionContext,
    section_builder,
)
from treebench.report.systematic import Deviation, systematic, systematic_markdown
from treebench.report.table import build_table
from treebench.report.verdicts import (
    KINDS,
    SIGNIFICANCE,
    own_numbers_why,
    rule_text,
    summary,
    summary_text,
    units_text,
    verdicts_document,
    views,
)
from treebench.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
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
    calibration
        Per dataset, whether the rerun's baselines agree with the paper's
        (:func:`~treebench.report.cells.calibrate`); each claim's
        ``calibrated`` effect is computed on the datasets it calls calibrated.
    readings
        The other readings, judged like the default one.
    anomalies, anomalies_skipped
        The anomaly flags of the rerun (:mod:`treebench.report.anomalies`) and
        the checks that could not be made, with why.
    causes
        The paper's cause registry (:mod:`treebench.report.causes`).
    systematic
        Per algorithm, ours − paper over datasets (:mod:`treebench.report.systematic`), computed once
        for the report and its ``verdicts.json``.
    """

    spec: PaperSpec
    cells: pd.DataFrame
    claims: list[ClaimOutcome]
    figures: list[tuple[Figure, Path]]
    compare_md: str
    notes: list[str]
    sections: list[Section] = field(default_factory=list)
    calibration: Calibration | None = None
    readings: list[ReadingOutcome] = field(default_factory=list)
    anomalies: list[Anomaly] = field(default_factory=list)
    anomalies_skipped: list[str] = field(default_factory=list)
    causes: Causes = field(default_factory=Causes)
    systematic: list[Deviation] = field(default_factory=list)

    @property
    def summary(self) -> dict[str, int]:
        """Grade -> number of claims with it over all datasets (the headline of every page), plus ``total``."""
        return summary(c.verdict for c in self.claims)


@dataclass
class ReadingOutcome:
    """The cells and claims recomputed under one of the spec's other readings.

    ``status`` is ``"ok"``, or why the reading could not be judged (its
    trials are not in the store yet).
    """

    reading: Reading
    cells: pd.DataFrame
    claims: list[ClaimOutcome]
    calibration: Calibration | None
    status: str = "ok"
    #: The datasets the reading's own algorithms were run on.
    datasets: tuple[str, ...] = ()
    #: When those are fewer than the default's: the default's claims judged on the same datasets
    #: (a reading is compared with the default on the data it covers, not on a larger set).
    default_same: list[ClaimOutcome] | None = None


def reading_frame(frame: pd.DataFrame, reading: Reading, source: pd.DataFrame | None = None) -> pd.DataFrame:
    """The trials as ``reading`` sees them: its algorithms stand in for the ones they rename.

    ``source`` holds the reading's trials when they come from another store
    (``reading.config``); the rest comes from ``frame``.  Algorithms the
    reading replaces, and the replacements' own names, leave the base frame.
    """
    source = frame if source is None else source
    if not len(source) or "algorithm" not in source.columns:
        return source.iloc[0:0]
    variant = source[source["algorithm"].isin(list(reading.rename))]
    variant = variant.assign(algorithm=variant["algorithm"].map(reading.rename))
    replaced = set(reading.rename) | set(reading.rename.values())
    base = frame[~frame["algorithm"].isin(replaced)] if len(frame) else frame
    return pd.concat([base, variant], ignore_index=True)


def judge_readings(
    spec: PaperSpec, frame: pd.DataFrame, reference: pd.DataFrame, sources: dict[str, pd.DataFrame] | None = None,
    causes: Causes | None = None,
) -> list[ReadingOutcome]:
    """Every reading of ``spec`` judged like the default one (cells, calibration, claims)."""
    outcomes = []
    for reading in spec.readings:
        source = (sources or {}).get(reading.name) if reading.config else None
        if reading.config and source is None:
            outcomes.append(ReadingOutcome(reading, pd.DataFrame(), [], None,
                                           f"not run: no store for {reading.config} yet "
                                           f"(treebench run {reading.config})"))
            continue
        seen = frame if source is None else source
        missing = sorted(set(reading.rename) - set(seen["algorithm"] if "algorithm" in seen.columns else ()))
        if missing:
            outcomes.append(ReadingOutcome(reading, pd.DataFrame(), [], None,
                                           f"not run: no trials of {', '.join(missing)} in the store"))
            continue
        view = reading_frame(frame, reading, source)
        cells = with_causes(compare_cells(reference, view, spec.our_std, spec.paper_splits), causes)
        calibration, claims = judge_claims(spec, cells, view, causes)
        covered = _datasets_of(view, reading.rename.values())
        default_same = None
        if covered and covered < _datasets_of(frame, reading.rename.values()):
            same = frame[frame["dataset"].isin(covered)]
            _, default_same = judge_claims(
                spec, with_causes(compare_cells(reference, same, spec.our_std, spec.paper_splits), causes), same, causes)
        outcomes.append(ReadingOutcome(reading, cells, claims, calibration, datasets=tuple(sorted(covered)),
                                       default_same=default_same))
    return outcomes


def _datasets_of(frame: pd.DataFrame, algorithms: Iterable[str]) -> set[str]:
    """The datasets on which every one of ``algorithms`` has trials in ``frame``."""
    if not len(frame) or "algorithm" not in frame.columns:
        return set()
    names = set(algorithms)
    per = frame[frame["algorithm"].isin(names)].groupby("dataset")["algorithm"].nunique()
    return set(per.index[per == len(names)])


def build_report(
    spec: PaperSpec,
    frame: pd.DataFrame,
    reference: pd.DataFrame,
    out_dir: Path,
    *,
    figures: bool = True,
    extras: bool | dict[str, dict[str, Any]] = False,
    reading_sources: dict[str, pd.DataFrame] | None = None,
    config: str | Path | None = None,
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
    reading_sources
        Reading name -> its trials, for the spec's readings that have their
        own config (``Reading.config``); the others read ``frame``.
    config
        The experiment config, for the tuned grids of the anomaly flags
        (default: the spec's, when the file is there).
    """
    # claims that grade a section's files read this report's folder, not the working directory's results/
    spec = replace(spec, claims=tuple(in_report_folder(claim, out_dir) for claim in spec.claims))
    causes = load_causes(spec.causes) if spec.causes else Causes()
    cells = with_causes(compare_cells(reference, frame, spec.our_std, spec.paper_splits), causes)
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
    context = SectionContext(Path(out_dir), frame, reference, spec, notes=notes,
                             reading_sources=dict(reading_sources or {}))
    sections = [section for builder in _chosen(spec.sections, extras) for section in _build(builder, context, extras)]
    sections = tree_quality(context) + sections
    # the claims after the sections: a claim may grade what a section computes into the report folder (paper
    # 000's Figs. 2-3 read the random trees its section makes), so a first report already grades it
    calibration, claims = judge_claims(spec, cells, frame, causes)
    # the paper's own numbers are the same under every reading: graded once, for the report's claims
    grade_paper_on_paper(spec, drop_excluded(cells, frame, spec.excluded)[0], claims)
    readings = judge_readings(spec, frame, reference, reading_sources, causes) if len(frame) else []
    grids, ranges = config_grids(Path(config or spec.config))
    # simulated expert labels: the majority rate of the labels the trials used, not the card's
    majority = (majority_rates(sorted(set(frame["dataset"].astype(str))), Path(config or spec.config))
                if "dataset" in frame.columns else {})
    anomalies = find_anomalies(frame, grids=grids, ranges=ranges, majority=majority,
                               majority_source=majority_source(Path(config or spec.config)))
    skipped = skipped_checks(frame, grids=grids, majority=majority) if len(frame) else []
    return Report(spec, cells, claims, drawn, compare_md, notes, sections, calibration, readings, anomalies,
                  skipped, causes, systematic(cells, spec.baselines, spec.excluded))


def with_causes(cells: pd.DataFrame, causes: Causes | None) -> pd.DataFrame:
    """``cells`` with a ``cause`` column: the registry's known causes of each cell, as text (``""``: none)."""
    cells = cells.copy()
    if not len(cells):
        cells["cause"] = pd.Series(dtype=str)
        return cells
    registry = causes or Causes()
    texts = []
    for r in cells.to_dict("records"):
        found = registry.for_cell(r.get("dataset", ""), r.get("dataset_label", ""), r.get("algorithm", ""),
                                  r.get("metric", ""))
        text = "; ".join(c.line() for c in found)
        if text and r.get("agrees") is True:  # nothing to explain: the registry is out of date for this cell
            text = f"{STALE} {text}"
        texts.append(text)
    cells["cause"] = texts
    return cells


#: The flag of a cause attached to a cell that agrees with the paper.
STALE = "stale (the cell agrees with the paper):"


def judge_claims(spec: PaperSpec, cells: pd.DataFrame, frame: pd.DataFrame,
                 causes: Causes | None = None) -> tuple[Calibration, list[ClaimOutcome]]:
    """Calibrate the protocol, then evaluate every claim over all datasets and over the calibrated ones.

    The spec's excluded datasets are left out of both.  Tests sharing a
    family are Holm-adjusted within each of the two views, and every verdict
    is then graded by its kind's rule (:func:`~treebench.report.verdicts.judge`).
    The "what differs" line of a mismatch is the shape comparison with the
    registry's known causes (``causes``).
    """
    registry = causes or Causes()
    calibration = calibrate(cells, frame, spec.baselines, spec.tolerances, spec.excluded,
                            describe=lambda name, label: what_differs(name, spec.datasets.get(label),
                                                                      causes=registry.for_dataset(name, label)))
    kept_cells, kept_frame = drop_excluded(cells, frame, spec.excluded)
    outcomes = [evaluate_claim(claim, kept_cells, kept_frame) for claim in spec.claims]
    if calibration.calibrated:
        cal_cells, cal_frame = calibration.restrict(kept_cells, kept_frame)
        for claim, outcome in zip(spec.claims, outcomes):
            effect = evaluate_claim(claim, cal_cells, cal_frame).effect
            if effect.verdict.startswith(NOT_TESTABLE):
                effect.verdict = not_testable("on the calibrated datasets: " + effect.verdict[len(NOT_TESTABLE) + 2:-1])
            outcome.set_calibrated(effect)
    else:
        reason = ("the spec names no baseline" if not spec.baselines else "no calibrated dataset")
        for outcome in outcomes:
            measure = outcome.effect.measure if outcome.effect is not None else "–"
            outcome.set_calibrated(Effect(measure, verdict=not_testable(reason)))
    adjust_families(outcomes, "effect")
    adjust_families(outcomes, "calibrated")
    rejudge(outcomes)
    return calibration, outcomes


def grade_paper_on_paper(spec: PaperSpec, cells: pd.DataFrame, outcomes: list[ClaimOutcome]) -> None:
    """Grade every claim, by its own rule, on the paper's published numbers (``outcome.paper_on_paper``).

    The paper's table becomes trials (:func:`~treebench.report.paper_frame.paper_cells`) and each claim
    is evaluated on them exactly as on the rerun; Holm across claims is applied as on ours.
    """
    from treebench.report.paper_frame import paper_cells

    published, frame = paper_cells(cells) if len(cells) else (cells, pd.DataFrame())
    if frame.empty:
        for outcome in outcomes:
            measure = outcome.effect.measure if outcome.effect is not None else "–"
            outcome.paper_on_paper = Effect(measure, verdict=not_testable("the paper prints no table to grade"))
        return
    own = [evaluate_claim(claim, published, frame) for claim in spec.claims]
    adjust_families(own, "effect")
    rejudge(own)
    for claim, outcome, mine in zip(spec.claims, outcomes, own):
        effect = mine.effect
        if getattr(claim, "why_not", "") and getattr(claim, "claim", None) is None:  # a statement never graded
            outcome.paper_on_paper = effect
            continue
        if effect is not None and effect.verdict.startswith(NOT_TESTABLE):
            # the rerun's wording ("not rerun", "could not be computed") read on a table of means
            reason = effect.verdict[len(NOT_TESTABLE) + 2:-1]
            effect.verdict = not_testable(f"the paper's table cannot carry this rule: {reason}; it prints one "
                                          "value per cell, so a test over each cell's splits cannot be rerun "
                                          "on it" if effect.test is not None and not math.isnan(effect.ours)
                                          else f"the paper's table cannot carry this rule: {reason}")
        outcome.paper_on_paper = effect


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
    from treebench.report.figure_kinds import draw_figure

    done, notes = [], []
    for fig in spec.figures:
        try:  # the kind's registered function (an unknown kind is a note, as a failed drawing is)
            paths = draw_figure(fig.kind, frame, out_dir / fig.name, dict(fig.options))
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


def agreement_text(row: Any, digits: int) -> str:
    """A cell's agreement: ``yes``/``no`` with the bound ``z·√(se_paper² + se_ours²)``, or ``not judged (why)``."""
    agrees = getattr(row, "agrees", None)
    if agrees is None or (isinstance(agrees, float) and math.isnan(agrees)):
        why = str(getattr(row, "agree_why", "") or "not judged")
        return why if why.startswith("not judged") else f"not judged ({why})"
    bound = float(getattr(row, "agree_bound", math.nan))
    return f"{'yes' if agrees else 'no'} (± {bound:.{digits}f})"


def _cell_rows(cells: pd.DataFrame) -> dict[tuple[str, str], list[list[str]]]:
    """Rows per (metric, unit) section: dataset, algorithm, paper, ours, diff, se, agreement, within std."""
    out: dict[tuple[str, str], list[list[str]]] = {}
    for r in cells.itertuples(index=False):
        d = _digits(r.unit, r.metric)
        paper = _fmt(r.value, d) + ("" if math.isnan(r.std) else f" ± {_fmt(r.std, d)}")
        ours = _fmt(r.ours, d) + ("" if math.isnan(r.our_std) else f" ± {_fmt(r.our_std, d)}")
        diff = "–" if math.isnan(r.diff) else f"{r.diff:+.{d}f}"
        mark = f" ({r.mark})" if r.mark else ""
        ds = r.dataset_label + (f" ({r.dataset})" if r.dataset and norm(r.dataset) != norm(r.dataset_label) else "")
        se = "–" if r.status != "ok" else f"{_fmt(r.se_paper, d + 1)} / {_fmt(r.se_ours, d + 1)}"
        out.setdefault((r.metric, r.unit), []).append(
            [ds, r.algorithm_label, paper + mark, ours if r.status == "ok" else r.status, diff, se,
             agreement_text(r, d), _within(r.within_std)]
        )
    return out


def agreement_counts(cells: pd.DataFrame) -> tuple[int, int, int]:
    """``(agree, disagree, not judged)`` over ``cells`` (the cell agreement rule)."""
    if not len(cells) or "agrees" not in cells.columns:
        return 0, 0, len(cells)
    values = [v for v in cells["agrees"]]
    yes = sum(v is True or v is np.True_ for v in values)
    no = sum(v is False or v is np.False_ for v in values)
    return yes, no, len(values) - yes - no


def _summary(cells: pd.DataFrame, tolerances: dict[str, float] | None = None) -> list[str]:
    lines = []
    for (metric, unit), sub in cells.groupby(["metric", "unit"], sort=False):
        done = sub[sub["status"] == "ok"]
        line = f"{metric} ({unit}): {len(done)} of {len(sub)} published cells rerun"
        yes, no, unjudged = agreement_counts(sub)
        line += f"; agree within both noises: {yes} yes, {no} no, {unjudged} not judged"
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


#: How the report states the cell agreement rule.
AGREEMENT_RULE = (
    f"A cell *agrees* when |ours − paper| ≤ z·√(se_paper² + se_ours²), z = {AGREEMENT_Z:g} (docs/reports.md, "
    "\"Cell agreement\"): se_ours is our std over the trials / √trials (a binomial standard error with one trial, "
    "or where the paper prints a binomial std); se_paper is the paper's printed std / √folds (its binomial std as "
    "it is), and where it prints none our fold spread stands in for its noise (same protocol and data), or with "
    "one trial the binomial error of its own value.  The bound is shown beside yes/no; *not judged* says why."
)
#: The rule of a cell whose one published split is ours too (:func:`~treebench.report.cells.paired_count_agreement`).
PAIRED_RULE = (
    "  A cell whose one published split is ours too (the file's own order) is judged as paired counts instead: "
    "McNemar's exact test of the cases one side got wrong and the other right, over every overlap of the two "
    "error sets the counts allow (the paper prints counts, not cases): *yes* when no overlap makes the difference "
    "significant (|ours − paper| ≤ 5), *no* when every overlap does, else undetermined, with the p range."
)


def agreement_rule(cells: pd.DataFrame) -> str:
    """:data:`AGREEMENT_RULE`, with :data:`PAIRED_RULE` when some cell was judged as paired counts."""
    paired = len(cells) and "agree_why" in cells.columns and \
        cells["agree_why"].astype(str).str.startswith("paired on the shared split").any()
    return AGREEMENT_RULE + (PAIRED_RULE if paired else "")


def _calibrated_cells(rep: Report) -> pd.DataFrame | None:
    """The cells of the calibrated datasets (``None`` without any)."""
    if rep.calibration is None or not rep.calibration.calibrated:
        return None
    return rep.calibration.restrict(rep.cells, pd.DataFrame())[0]


def _summary_twice(rep: Report) -> list[str]:
    """The cell counts over all datasets, then over the calibrated ones."""
    lines = _summary(rep.cells, rep.spec.tolerances)
    cal = _calibrated_cells(rep)
    if cal is not None and rep.calibration is not None:
        names = ", ".join(r.label for r in rep.calibration.calibrated)
        lines += [f"on the {len(rep.calibration.calibrated)} calibrated dataset(s) only ({names}): {x}"
                  for x in _summary(cal, rep.spec.tolerances)]
    return lines


def _tolerance_text(spec: PaperSpec) -> str:
    spec_tol = ", ".join(f"{m} ± {t:g}" for m, t in spec.tolerances.items())
    return ("the paper's printed std of that cell, else the spec's tolerance"
            + (f" ({spec_tol})" if spec_tol else " (none given)"))


def _calibration_intro(rep: Report) -> list[str]:
    """What calibration means here, and the counts of each status."""
    cal, spec = rep.calibration, rep.spec
    if cal is None:
        return []
    if not spec.baselines:
        lines = ["The spec names no baseline algorithm (no classic algorithm of the paper's table was rerun on "
                 "its data), so no dataset is calibrated and every claim's calibrated verdict is *not testable*."]
    else:
        lines = [f"Baselines (the classic algorithms the paper compares against but did not invent): "
                 f"{', '.join(f'`{b}`' for b in spec.baselines)}.  The cells that calibrate are those with "
                 f"a tolerance, {_tolerance_text(spec)}; such a baseline cell agrees with the paper by the cell "
                 "agreement rule (both noises, above), or within its tolerance when that rule cannot judge it; "
                 "other cells are not judged here.  A dataset "
                 f"is *{CALIBRATED}* when every judged baseline cell agrees and *{MISMATCH}* when one does not; "
                 "every verdict below is given over all datasets and again over the calibrated ones."]
    counts = []
    for status in (CALIBRATED, MISMATCH, NOT_JUDGED, EXCLUDED, NOT_IN_PAPER):
        rows = [r.label for r in cal.rows if r.status == status]
        if rows:
            counts.append(f"{status}: {len(rows)} ({', '.join(rows)})")
    if spec.dataset_source:
        lines += ["", f"The paper's description of its datasets: {spec.dataset_source}."]
    lines += ["", "The \"what differs\" column compares the dataset card's shape with the paper's description and "
              "lists the known causes of the paper's cause registry"
              + (f" (`{Path(rep.causes.path).name}` in the paper's folder, {len(rep.causes.causes)} entries)"
                 if rep.causes.path else " (none for this paper)") + "; nothing in it is written by hand."]
    return lines + ["", "- " + "; ".join(counts) if counts else "- no dataset"]


def _calibration_rows(cal: Calibration) -> list[list[str]]:
    rows = []
    for r in cal.rows:
        judged = f"{r.within} of {r.compared}" if r.compared else "–"
        why = r.differs if r.status == MISMATCH else r.reason
        rows.append([r.label + (f" ({r.dataset})" if r.dataset and norm(r.dataset) != norm(r.label) else ""),
                     r.status, judged, r.worst or "–", why or "–"])
    return rows


def _effect_cells(effect: Effect | None) -> tuple[str, str]:
    """``paper / ours [CI]`` and the verdict of one effect."""
    if effect is None:
        return "–", not_testable("no effect")
    paper = effect.paper_text()
    return f"paper {paper}; ours {effect.ours_text()}", effect.verdict


def _test_cell(effect: Effect | None) -> str:
    if effect is None or effect.test is None:
        return "– (the paper names no test)"
    test = effect.test
    text = str(test)
    if not test.as_applied:
        text += "; the verdict grades the effect (the paper names no test)"
    elif test.units:
        text += f"; verdict from the units, uncorrected: {units_text(test.units)}"
    elif not math.isnan(test.p_verdict):
        text += f"; p for the verdict {test.p_verdict:.4g} (alpha {test.alpha:g}), no correction across claims"
    if effect.kind == SIGNIFICANCE and not math.isnan(effect.ours):
        text += f"; outcome of the effect: {effect.outcome}"
    second = views(effect)
    if second:
        text += "; second views: " + ", ".join(f"{name} → {grade}" for name, grade in second.items())
        if test.correction:
            text += f" ({test.correction})"
    return text


def _not_carried_markdown(rep: Report) -> list[str]:
    """One line per claim whose rule the paper's own numbers do not pass, with why (:func:`own_numbers_why`)."""
    lines = [f"- **{c.text}**: {why}" for c in rep.claims
             if (why := own_numbers_why(getattr(c, "paper_on_paper", None)))]
    intro = ("Each claim's rule is applied to the paper's published numbers first; where they do not pass it, the "
             "grade of our rerun is read against that (a rule the paper's own numbers fail is not evidence against "
             "the rerun).")
    return [intro, ""] + (lines or ["- none: the paper's own numbers pass every claim's rule."])


def _paper_on_paper_cell(effect: Effect | None) -> str:
    """The grade of the claim's rule on the paper's own numbers, with their effect and interval."""
    if effect is None:
        return "–"
    if math.isnan(effect.ours):
        return effect.verdict
    ci = "" if math.isnan(effect.low) else f" [{effect.low:+.3g}, {effect.high:+.3g}]"
    return f"{effect.verdict} ({effect.ours:+.3g}{ci})"


def _verdict_rows(rep: Report) -> list[list[str]]:
    rows = []
    for c in rep.claims:
        both, verdict = _effect_cells(c.effect)
        cal, cal_verdict = _effect_cells(c.calibrated)
        measure = c.effect.measure if c.effect is not None else "–"
        kind = getattr(c.effect, "kind", "–")
        where = "; ".join(x for x in (getattr(c, "location", ""), getattr(c, "scope", "") and f"scope: {c.scope}",
                                      getattr(c, "test_as_applied", "") and f"paper's test: {c.test_as_applied}") if x)
        rows.append([f"{c.text} ({where})" if where else c.text, kind, measure, both, verdict, cal, cal_verdict,
                     _test_cell(c.effect),
                     _paper_on_paper_cell(c.paper_on_paper)])
    return rows


def _tally(outcomes: list[ClaimOutcome], attribute: str) -> str:
    """The verdict counts of one view (``effect``: all datasets; ``calibrated``) as text."""
    verdicts = [getattr(o, attribute).verdict if getattr(o, attribute, None) is not None else NOT_TESTABLE
                for o in outcomes]
    return summary_text(summary(verdicts))


#: The rule of each claim kind, as the report states it (docs/reports.md, "Claim kinds and their rules").
KIND_RULES = {kind: rule_text(kind) for kind in KINDS}


def _verdict_intro(rep: Report) -> list[str]:
    excluded = "; ".join(f"{name} ({why})" for name, why in rep.spec.excluded.items())
    lines = [
        "Each claim's effect is one number oriented so that + goes the way the claim says, computed on the "
        "paper's own numbers and on ours.  Ours carries a 95 % interval from a paired bootstrap "
        f"({DEFAULT_RESAMPLES} resamples, seed {DEFAULT_SEED}): the datasets are resampled, and within each "
        "dataset drawn its (repeat, fold) splits, every algorithm keeping its value on the same split.",
        "",
        "Every claim is of one kind, graded by that kind's rule and by nothing else (docs/reports.md, "
        "\"Claim kinds and their rules\"); the counts below, the page's headline and `verdicts.json` are "
        "the same counts of these verdicts:",
        "",
    ]
    lines += [f"- *{kind}*: {rule}" for kind, rule in KIND_RULES.items()]
    lines += ["", "A *difference* or *trend* is graded as replications are (LeBel et al. 2019, \"A brief guide to "
              "evaluate replications\"): above 0 it is *reproduced, smaller* (or *larger*) when the interval lies "
              "wholly below (above) the paper's effect; holding 0 it is *not reproduced* when it excludes the "
              "paper's effect and *inconclusive* when it holds it too (the rerun's power to detect the paper's "
              "effect is given beside it).  A *significance* claim also shows that grade of its effect "
              "(*outcome*).  An *equivalence* interval that is neither inside nor "
              "wholly outside the margin is *inconclusive*.  A *significance* claim uses the paper's test as the "
              "paper applied it: no correction across claims, and a claim tested unit by unit (cells, datasets) is "
              "reproduced when a majority of its units reject uncorrected.  Stricter rules the paper did not apply "
              "(Holm across claims; every unit rejecting after Holm) are shown as second views, never as the "
              "verdict."]
    if excluded:
        lines += ["", f"Left out of every claim and count: {excluded}."]
    return lines + ["", f"- over all datasets: {_tally(rep.claims, 'effect')}",
                    f"- over the calibrated datasets: {_tally(rep.claims, 'calibrated')}"]


def _test_parts(rep: Report) -> list[tuple[str, list[str]]]:
    out = []
    for c in rep.claims:
        test = c.effect.test if c.effect is not None else None
        if test is not None and test.parts:
            out.append((c.text, [f"{unit}: p = {raw:.4g}, Holm {adj:.4g}" for unit, raw, adj in test.parts]))
    return out


def _readings_intro(rep: Report) -> list[str]:
    default = rep.spec.default_reading or "the config's own algorithms"
    return [
        f"Default reading: {default}.  Where the paper's text allows more than one reading, each other "
        "reading is run and judged exactly like the default one (cells, calibration, claims); the default "
        "is chosen from the text and the mathematics (docs/reports.md), never by closeness to the "
        "published numbers.",
    ]


def _reading_summary_rows(rep: Report) -> list[list[str]]:
    rows = [["default", rep.spec.default_reading or "the config's algorithms",
             "; ".join(_summary(rep.cells, rep.spec.tolerances)) or "–",
             _tally(rep.claims, "effect"), _tally(rep.claims, "calibrated")]]
    for r in rep.readings:
        if r.status != "ok":
            rows.append([r.reading.name, r.reading.description, r.status, "–", "–"])
            continue
        effect, calibrated = _tally(r.claims, "effect"), _tally(r.claims, "calibrated")
        if r.default_same is not None:  # the default on the same datasets, for a like-for-like comparison
            same = f" (default on the same {len(r.datasets)} datasets: "
            effect += same + _tally(r.default_same, "effect") + ")"
            calibrated += same + _tally(r.default_same, "calibrated") + ")"
        rows.append([r.reading.name, r.reading.description,
                     "; ".join(_summary(r.cells, rep.spec.tolerances)) or "–", effect, calibrated])
    return rows


def _reading_verdict_rows(rep: Report) -> tuple[list[str], list[list[str]]]:
    """Claim by claim, the verdict (all datasets / calibrated) under each reading."""
    judged = [r for r in rep.readings if r.status == "ok"]
    head = ["claim", "default"] + [r.reading.name for r in judged]

    def both(outcome: ClaimOutcome) -> str:
        verdicts = [getattr(outcome, a).verdict if getattr(outcome, a, None) is not None else NOT_TESTABLE
                    for a in ("effect", "calibrated")]
        return " / ".join(verdicts)

    def under(r: ReadingOutcome, i: int) -> str:
        if r.default_same is None:
            return both(r.claims[i])
        return f"{both(r.claims[i])} (default on the same {len(r.datasets)} datasets: {both(r.default_same[i])})"

    rows = []
    for i, claim in enumerate(rep.claims):
        rows.append([claim.text, both(claim)] + [under(r, i) for r in judged])
    return head, rows


def esc(text: str) -> str:
    """Text for a Markdown table cell (a ``|`` would end the cell)."""
    return text.replace("|", r"\|")


def readings_markdown(rep: Report) -> list[str]:
    """The readings part of a report as Markdown lines (the report and the HTML page both show it)."""
    lines = _readings_intro(rep) + [""]
    lines += ["| reading | what it takes | cells | verdicts (all datasets) | verdicts (calibrated) |",
              "| --- | --- | --- | --- | --- |"]
    lines += ["| " + " | ".join(esc(x) for x in r) + " |" for r in _reading_summary_rows(rep)]
    head, rows = _reading_verdict_rows(rep)
    lines += ["", "Verdict of each claim under each reading (all datasets / calibrated datasets):", "",
              "| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    return lines + ["| " + " | ".join(esc(x) for x in r) + " |" for r in rows]


#: The second, literal view of a claim (``ClaimOutcome.literal``): its column title and what it is.
LITERAL_TITLE = "literal reading (means, no interval)"
LITERAL_NOTE = (
    "The last column is a second, stricter view, never counted in the verdicts: the claim read literally on our "
    "per-dataset means, with no interval (e.g. \"fewer on every dataset\", \"the same marks on every dataset\")."
)


def headline(rep: Report) -> str:
    """The report's verdict counts over all datasets, as every page states them."""
    return summary_text(rep.summary)


def causes_markdown(rep: Report) -> list[str]:
    """The known causes of the paper's cause registry that touch its cells, one line each."""
    if not rep.causes.causes:
        return []
    lines = ["Known causes (the paper's cause registry, with their sources):", ""]
    lines += [f"- {c.dataset}" + (f" / {c.algorithm}" if c.algorithm else "") + f" — {c.line()}"
              for c in rep.causes.causes]
    return lines + [""]


def _why(effect: Effect | None) -> str:
    """One line: the verdict's reason (our interval against 0 and the paper's effect, or why not testable)."""
    if effect is None:
        return "–"
    if effect.verdict.startswith(NOT_TESTABLE):
        return effect.verdict[len(NOT_TESTABLE) + 2:-1] or "–"
    if math.isnan(effect.ours):
        return "–"
    text = f"ours {effect.ours:+.3g} [{effect.low:+.3g}, {effect.high:+.3g}]"
    if not math.isnan(effect.paper):
        text += f", paper {effect.paper:+.3g}"
    if effect.kind == "equivalence" and not math.isnan(effect.margin):
        text += f", margin ± {abs(effect.margin):.3g}"
    if effect.test is not None and effect.test.units:
        text += f"; {units_text(effect.test.units)}"
    return text


def glance_rows(rep: Report) -> list[list[str]]:
    """Per claim: its text, grade, one-line reason and location (the report's first table and the page's)."""
    return [[c.text, (c.verdict or "–").split(" (")[0], _why(c.effect), getattr(c, "location", "") or "–"]
            for c in rep.claims]


def open_questions_markdown(rep: Report) -> list[str]:
    """The report's section listing :func:`open_questions`."""
    found = open_questions(rep)
    lines = ["Every disagreeing cell without a registered cause and every claim not reproduced or reversed, each "
             "an open question until a cause is located (a run or an investigation, with its command, in the "
             "paper's causes.yaml or docs/investigations.md).", ""]
    lines += [f"- {x}" for x in found] or ["- none: every miss has a cause"]
    explained = explained_claims(rep)
    return lines + (["", "Claims whose miss has a located cause:", ""] + [f"- {x}" for x in explained]
                    if explained else [])


def anomalies_markdown(rep: Report) -> list[str]:
    """One line per anomaly flag, then the checks that could not be made."""
    lines = [f"- **{a.flag}**: {a.text}" for a in rep.anomalies] or ["- none found"]
    if rep.anomalies_skipped:
        lines += [f"- {x}" for x in rep.anomalies_skipped]
    return ["Numbers that should not pass without a word (docs/reports.md, \"Anomaly flags\"): a learner below "
            "the majority-class rate, a one-leaf tree where the others split, a tuned parameter at the edge of "
            "its grid in more than half the trials, a test accuracy far further below the train accuracy than "
            "the other learners'.", ""] + lines


def report_markdown(rep: Report, *, config: str = "", store: str = "") -> str:
    """The Markdown report."""
    s = rep.spec
    lines = [f"# Reproduction of paper {s.number} ({s.key})", "", f"*{s.citation}*", ""]
    if config or store:
        shown = s.reference if Path(s.reference).is_absolute() else f"results/reference/{s.reference}"
        lines += [f"Config `{config}`, results store `{store}`; reference numbers "
                  f"`{shown}` (reading notes in its README).", ""]
    lines += [f"**Verdicts** (all datasets; the same counts as `verdicts.json` and the page): "
              f"{headline(rep)}.", ""]
    lines += ["## Claims at a glance", "", "| claim | grade | why, in one line | where the paper says it |",
              "| --- | --- | --- | --- |"]
    lines += ["| " + " | ".join(esc(x) for x in row) + " |" for row in glance_rows(rep)]
    lines += ["", f"![The claims at a glance: the paper's effect, our 95 % interval coloured by grade]({FOREST}.svg)",
              ""] if rep.claims else [""]
    lines += ["## Systematic deviation", ""]
    lines += systematic_markdown(rep.systematic) + [""]
    lines += ["## Published cells against ours", "", agreement_rule(rep.cells), ""]
    lines += [f"- {x}" for x in _summary_twice(rep)] + [""]
    head = ["dataset", "algorithm", "paper", "ours", "ours − paper", "se paper / ours", "agrees (± bound)",
            "within paper ± std"]
    for (metric, unit), rows in _cell_rows(rep.cells).items():
        lines += [f"### {metric} ({unit})", "", "| " + " | ".join(head) + " |",
                  "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |"]
        lines += ["| " + " | ".join(esc(x) for x in r) + " |" for r in rows] + [""]
    lines += causes_markdown(rep)
    if rep.calibration is not None:
        lines += ["## Protocol calibration", ""] + _calibration_intro(rep) + [""]
        if rep.calibration.rows:
            lines += ["| dataset | status | baseline cells within tolerance | furthest from the paper | "
                      "what differs (card vs paper) / why |", "| --- | --- | ---: | --- | --- |"]
            lines += ["| " + " | ".join(esc(x) for x in r) + " |" for r in _calibration_rows(rep.calibration)]
            lines.append("")
    lines += ["## Verdicts", ""] + _verdict_intro(rep) + [""]
    lines += ["| claim | kind | effect (+ = as claimed) | all datasets | verdict | calibrated datasets | verdict "
              "(calibrated) | the paper's test, on ours | the same rule on the paper's own numbers |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    lines += ["| " + " | ".join(esc(x) for x in r) + " |" for r in _verdict_rows(rep)]
    for text, parts in _test_parts(rep):
        lines += ["", f"**{text}** — the test unit by unit:", ""] + [f"- {p}" for p in parts]
    lines += ["", "### Claims the paper's own numbers do not carry", ""] + _not_carried_markdown(rep)
    lines += ["", "## Unexplained differences (open questions)", ""] + open_questions_markdown(rep)
    lines += ["", "## Anomaly flags", ""] + anomalies_markdown(rep)
    if rep.readings:
        lines += ["", "## Readings", ""] + readings_markdown(rep)
    lines += ["", "## The paper's conclusions, recomputed", "", LITERAL_NOTE, "",
              f"| claim | paper | paper's own numbers | ours | {LITERAL_TITLE} |", "| --- | --- | --- | --- | --- |"]
    for c in rep.claims:
        lines.append("| " + " | ".join(esc(str(x)) for x in (c.text, c.paper, c.paper_numbers, c.ours,
                                                              _agree(c.literal))) + " |")
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


#: Characters of the report's text that LaTeX's utf8 input does not set up, as math or dashes.
_TEX_MORE = {"−": "$-$", "—": "---", "≈": r"$\approx$", "Π": r"$\Pi$", "γ": r"$\gamma$", "≥": r"$\ge$",
             "×": r"$\times$", "φ": r"$\phi$"}


def _tex(text: object) -> str:
    """:func:`~treebench.report.formats.tex_escape`, then the few symbols it leaves to the input encoding."""
    out = tex_escape(str(text))
    for k, v in _TEX_MORE.items():
        out = out.replace(k, v)
    return out


def _latex_prose(text: str) -> str:
    """Markdown prose (emphasis, code) as escaped LaTeX text."""
    return _tex(text.replace("**", "").replace("*", "").replace("`", ""))


def report_latex(rep: Report) -> str:
    """A standalone LaTeX document with the same content (figures as PNG)."""
    s = rep.spec
    out = [r"\documentclass{article}", r"\usepackage[T1]{fontenc}", r"\usepackage[utf8]{inputenc}",
           r"\usepackage{booktabs}", r"\usepackage{longtable}", r"\usepackage{graphicx}",
           r"\usepackage[margin=2cm]{geometry}", r"\begin{document}",
           rf"\section*{{Reproduction of paper {s.number} ({_tex(s.key)})}}",
           rf"\emph{{{_tex(s.citation)}}}", "", rf"\textbf{{Verdicts}} (all datasets): {_tex(headline(rep))}.", "",
           r"\subsection*{Published cells against ours}", _latex_prose(agreement_rule(rep.cells)), r"\begin{itemize}"]
    out += [rf"\item {_tex(x)}" for x in _summary_twice(rep)] + [r"\end{itemize}"]
    for (metric, unit), rows in _cell_rows(rep.cells).items():
        out += [rf"\subsubsection*{{{_tex(metric)} ({_tex(unit)})}}",
                r"\begin{longtable}{llrrrrll}", r"\toprule",
                r"Dataset & Algorithm & Paper & Ours & Ours $-$ paper & se paper / ours & Agrees & Within $\pm$ std \\",
                r"\midrule",
                r"\endhead"]
        out += [" & ".join(_tex(x) for x in r) + r" \\" for r in rows]
        out += [r"\bottomrule", r"\end{longtable}"]
    if rep.calibration is not None:
        out += [r"\subsection*{Protocol calibration}"]
        out += [_latex_prose(x[2:] if x.startswith("- ") else x) if x else "" for x in _calibration_intro(rep)]
        if rep.calibration.rows:
            out += [r"\begin{longtable}{p{3cm}p{2.2cm}p{1.6cm}p{4.2cm}p{5cm}}", r"\toprule",
                    r"Dataset & Status & Baselines within & Furthest from the paper & What differs / why \\",
                    r"\midrule", r"\endhead"]
            out += [" & ".join(_tex(x) for x in r) + r" \\" for r in _calibration_rows(rep.calibration)]
            out += [r"\bottomrule", r"\end{longtable}"]
    out += [r"\subsection*{Verdicts}"]
    out += [_latex_prose(x[2:] if x.startswith("- ") else x) if x else "" for x in _verdict_intro(rep)]
    out += [r"\begin{itemize}"]
    parts = dict(_test_parts(rep))
    for text, kind, measure, both, verdict, cal, cal_verdict, test, own in _verdict_rows(rep):
        out += [rf"\item \textbf{{{_tex(text)}}} ({_tex(kind)}) --- {_tex(measure)}.", r"\begin{itemize}",
                rf"\item all datasets: {_tex(both)}: \textbf{{{_tex(verdict)}}}",
                rf"\item calibrated datasets: {_tex(cal)}: \textbf{{{_tex(cal_verdict)}}}",
                rf"\item {_tex(test)}",
                rf"\item the same rule on the paper's own numbers: {_tex(own)}"]
        out += [rf"\item {_tex(p)}" for p in parts.get(text, [])]
        out.append(r"\end{itemize}")
    out.append(r"\end{itemize}")
    if rep.readings:
        out += [r"\subsection*{Readings}"] + [_latex_prose(x) for x in _readings_intro(rep)]
        out += [r"\begin{itemize}"]
        for name, what, cells, tally, cal_tally in _reading_summary_rows(rep):
            out.append(rf"\item \textbf{{{_tex(name)}}} ({_tex(what)}): {_tex(cells)}; verdicts over all "
                       rf"datasets: {_tex(tally)}; over the calibrated ones: {_tex(cal_tally)}.")
        out.append(r"\end{itemize}")
        head, rows = _reading_verdict_rows(rep)
        out += [r"\begin{itemize}"]
        for row in rows:
            out.append(rf"\item \textbf{{{_tex(row[0])}}}: " + "; ".join(
                f"{_tex(h)}: {_tex(v)}" for h, v in zip(head[1:], row[1:])) + ".")
        out.append(r"\end{itemize}")
    out += [r"\subsection*{Anomaly flags}", r"\begin{itemize}"]
    out += [rf"\item {_latex_prose(x[2:])}" for x in anomalies_markdown(rep) if x.startswith("- ")]
    out.append(r"\end{itemize}")
    out += [r"\subsection*{The paper's conclusions, recomputed}", _latex_prose(LITERAL_NOTE), r"\begin{itemize}"]
    for c in rep.claims:
        out.append(rf"\item \textbf{{{_tex(c.text)}}} --- paper: {_tex(c.paper)}; "
                   rf"paper's numbers: {_tex(c.paper_numbers)}; ours: {_tex(c.ours)}; "
                   rf"{_tex(LITERAL_TITLE)}: {_tex(_agree(c.literal).strip('*'))}.")
        if c.details:
            out += [r"\begin{itemize}"] + [rf"\item {_tex(d)}" for d in c.details] + [r"\end{itemize}"]
    out.append(r"\end{itemize}")
    for fig, path in rep.figures:
        out += [r"\begin{figure}[htbp]", r"\centering",
                rf"\includegraphics[width=\linewidth]{{{path.name}}}",
                rf"\caption{{{_tex(fig.caption)}}}", r"\end{figure}"]
    for sec in rep.sections:
        out += [rf"\subsection*{{{_tex(sec.title)}}}"] + sec.latex
    if rep.notes:
        out += [r"\subsection*{Notes}", r"\begin{itemize}"] + [rf"\item {_tex(n)}" for n in rep.notes]
        out.append(r"\end{itemize}")
    out.append(r"\end{document}")
    return "\n".join(out) + "\n"


def write_report(rep: Report, out_dir: Path, *, config: str = "", store: str = "") -> list[Path]:
    """Write ``report.md``, ``report.tex`` and ``verdicts.json`` into ``out_dir``; return their paths."""
    from treebench.outpaths import make_folder, write_text

    what = f"--out-dir {str(out_dir)!r}"
    make_folder(out_dir, what)
    forest_plot(rep.claims, Path(out_dir) / FOREST)
    return [
        write_text(out_dir / "report.md", report_markdown(rep, config=config, store=store), what),
        write_text(out_dir / "report.tex", report_latex(rep), what),
        write_text(out_dir / "verdicts.json", json.dumps(verdicts_document(rep), indent=1, ensure_ascii=False) + "\n",
                   what),
    ]
