"""One static HTML page for many reproduction reports: ``index.html``.

:func:`render_index` turns a list of :class:`PaperPage` (a paper's spec, the
:class:`~treebench.report.reproduce.Report` built for it, or why there is
none, and where its inputs came from) into a single page:

- a verdict table with one row per claim of every paper, linking to the
  paper's section;
- the provenance of the run: package versions, each paper's config path and
  SHA-256, store, number of trials and how long its run and report took;
- per paper, its claims at a glance (one row per claim: text, grade, a
  one-line reason, where the paper says it) above its forest plot
  (``forest.svg``), its published cells beside ours, coloured by tolerance, its
  claims, our comparison table, its figures, its extra sections (their
  Markdown converted by :func:`markdown_to_html`, i.e. markdown-it-py with
  raw HTML off: :mod:`treebench.report.md_html`) and its notes.

The page is laid out by Jinja2 templates (``treebench/report/templates``:
``page.html.j2`` the page, ``paper.html.j2`` a paper's part, ``parts.html.j2``
tables and lists) with autoescaping on: every text from a spec, a report or a
store is escaped there.  The only markup handed to the templates as it is
comes from code that escapes its own values (the cell and claim tables, the
Markdown converter, the image tags).  The page needs no server, no network
and no JavaScript: figures are inlined as ``data:`` URIs by default, so the
file can be copied anywhere on its own.  Nothing here knows any particular
paper.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import html
import math
import numbers
import os
import platform
import re
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from treebench.report.md_html import (  # noqa: F401  (INLINE_TAGS, the two types: re-exported)
    INLINE_TAGS,
    ImageRenderer,
    LinkRewriter,
    default_image,
    inline_html,
    markdown_to_html,
    safe_href,
)

if TYPE_CHECKING:
    import pandas as pd

    from treebench.report.reproduce import Report
    from treebench.report.spec import PaperSpec

#: Page statuses of a paper: a report was built; nothing to report on; the report failed.
REPORTED, NOT_RUN, FAILED = "reported", "not run", "failed"
#: A paper whose inputs could not be read now, shown by its last good part.
KEPT = "kept"
#: How a paper's problems name a kept report part that could not be used (the page's headline says so too).
UNREADABLE_KEPT = "unreadable kept file: "

#: Image types the page can inline, by suffix.
IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".gif": "image/gif"}

#: Packages whose versions the provenance lists (distribution names).
PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "numba", "matplotlib")


# -- what the page is made of ---------------------------------------------------------------------
@dataclass
class PaperPage:
    """One paper's part of the index page.

    Attributes
    ----------
    spec
        The paper.
    report
        The report built for it; ``None`` when there is none (see ``status`` and ``reason``).
    out_dir
        The paper's report folder (its figures; Markdown image paths are relative to it).
    status
        :data:`REPORTED`, :data:`NOT_RUN` (no config or no store) or :data:`FAILED`.
    reason
        Why there is no report, in one line (empty when reported).
    problems
        What went wrong although a report was built (e.g. the run failed and the
        report shows what the store held).
    error_details
        A traceback or longer message behind ``reason``/``problems``, shown folded.
    config, config_sha256, store
        The experiment config, the SHA-256 of its text and the results store.
    n_trials, n_ok
        Trials of the config in the store, and how many succeeded (``None``: not read).
    run_seconds, report_seconds
        Wall time of the run (``None``: not run) and of reading the store and writing the report.
    trials_planned, trials_run, trials_failed
        Over the paper's config and its readings' configs: the trials they plan,
        those computed by this run (the others were resumed from the stores) and
        those that failed (``None``: not run).
    body_html
        The part below the paper's heading, already rendered (:func:`paper_body_html`);
        empty: rendered from ``report``.  A :data:`KEPT` paper's last good part.
    kept_built
        For a :data:`KEPT` paper: when (and by which treebench) its part was built.
    kept_verdicts_sha256
        For a :data:`KEPT` paper: the SHA-256 its kept part recorded of the ``verdicts.json``
        written with it (empty: not recorded, a part kept by an older treebench).
    """

    spec: PaperSpec
    report: Report | None = None
    out_dir: Path = Path(".")
    status: str = REPORTED
    reason: str = ""
    problems: list[str] = field(default_factory=list)
    error_details: str = ""
    config: str = ""
    config_sha256: str = ""
    store: str = ""
    n_trials: int | None = None
    n_ok: int | None = None
    run_seconds: float | None = None
    report_seconds: float | None = None
    trials_planned: int | None = None
    trials_run: int | None = None
    trials_failed: int | None = None
    body_html: str = ""
    kept_built: str = ""
    kept_verdicts_sha256: str = ""

    def add_run(self, summary: Any) -> None:
        """Add one config's run (a runner ``RunSummary``: planned, done, failed) to the trial counts."""
        self.trials_planned = (self.trials_planned or 0) + int(summary.planned)
        self.trials_run = (self.trials_run or 0) + int(summary.done)
        self.trials_failed = (self.trials_failed or 0) + int(summary.failed)

    @property
    def anchor(self) -> str:
        """The ``id`` of the paper's section."""
        return "paper-" + re.sub(r"[^A-Za-z0-9_-]", "-", self.spec.key)


def fingerprint(path: Path) -> str:
    """SHA-256 (hex) of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def environment() -> dict[str, str]:
    """treebench, Python, the numeric packages' versions and the platform, for the provenance table."""
    from importlib.metadata import PackageNotFoundError, version

    from treebench import __version__

    out = {"treebench": __version__, "Python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    out["platform"] = platform.platform()
    return out


def failure_text(exc: BaseException) -> tuple[str, str]:
    """One line for the page and the traceback (empty for treebench's own one-line errors)."""
    from treebench.errors import TreebenchError

    if isinstance(exc, TreebenchError):
        return str(exc), ""
    line = f"{type(exc).__name__}: {exc}"
    return line, "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


# -- small helpers ----------------------------------------------------------------------------------
def esc(value: object) -> str:
    """``value`` as escaped HTML text (quotes included, so it is safe in attributes too)."""
    return html.escape(str(value), quote=True)


def _missing(x: object) -> bool:
    """None or NaN."""
    return x is None or (isinstance(x, float) and math.isnan(x))


def _number(x: object, digits: int) -> str:
    """A number with ``digits`` decimals (integers as they are); a dash when missing."""
    if _missing(x):
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, numbers.Integral):
        return str(int(x))
    try:
        return f"{float(x):.{digits}f}"
    except (TypeError, ValueError):
        return str(x)


def _digits(unit: str, metric: str) -> int:
    """Decimals for a value in the paper's unit."""
    return {"percent": 1, "fraction": 4, "parameter": 2}.get(unit, 0 if metric.endswith("errors") else 1)


def _seconds(s: float | None) -> str:
    if s is None:
        return "–"
    return f"{s:.1f} s" if s < 120 else f"{s / 60:.1f} min"


def _plain_value(value: object, depth: int = 0) -> str:
    """Any field value as plain text (escaped later, by the template or :func:`_text_value`).

    Booleans read yes/no, ``None`` and NaN a dash, floats keep 4 significant
    digits; an object with its own ``__str__`` is shown that way, another
    dataclass as ``field: value`` pairs (empty ones left out), a list joined
    with semicolons.
    """
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return "; ".join(_plain_value(v, depth + 1) for v in value) or "–"
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and type(value).__str__ is object.__str__:
        if depth > 2:
            return type(value).__name__
        pairs = [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
        return "; ".join(f"{k.replace('_', ' ')}: {_plain_value(v, depth + 1)}" for k, v in pairs
                         if not _empty(v)) or "–"
    return str(value)


def _text_value(value: object, depth: int = 0) -> str:
    """:func:`_plain_value` as escaped HTML text."""
    return esc(_plain_value(value, depth))


def _empty(value: object) -> bool:
    """None, NaN, an empty string or an empty collection."""
    if _missing(value):
        return True
    return isinstance(value, (str, list, tuple, dict)) and not value


#: Colours of verdict texts (any claim field whose name contains "verdict"), by how the text starts.
VERDICT_CLASSES = (("not testable", "agree-none"), ("not reproduced", "agree-no"), ("reversed", "agree-no"),
                   ("reproduced, ", "near"), ("same direction", "near"), ("reproduced", "agree-yes"))


def _verdict_class(text: str) -> str:
    low = text.strip().lower()
    if low.startswith("inconclusive"):  # an equivalence the data cannot settle: amber, like "smaller"
        return "near"
    return next((cls for prefix, cls in VERDICT_CLASSES if low.startswith(prefix)), "")


# -- Markdown to HTML: markdown-it-py (treebench.report.md_html) -----------------------------------------
# re-exported: callers and tests import the converter from here
_default_image, _safe_href = default_image, safe_href


# -- figures ------------------------------------------------------------------------------------------
class _Images:
    """Renders the images of one paper's part: inlined or linked, missing files said so."""

    def __init__(self, out_dir: Path, page_dir: Path, inline: bool) -> None:
        self.out_dir, self.page_dir, self.inline = Path(out_dir), Path(page_dir), inline
        self.used: set[str] = set()

    def resolve(self, src: str) -> Path | None:
        """The file of a relative image path inside the paper's folder; None for anything else."""
        if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", src) or src.startswith("/"):
            return None  # remote or absolute: never fetched, never trusted
        path = self.out_dir / src
        if not path.resolve().is_relative_to(self.out_dir.resolve()):
            return None  # ../ out of the report folder: not the report's figure
        return path

    def tag(self, path: Path, alt: str, cls: str = "") -> Markup:
        kind = IMAGE_TYPES.get(path.suffix.lower())
        if kind is None or not path.is_file():
            return Markup('<span class="missing">[figure not found: {}]</span>').format(path.name)
        self.used.add(path.stem)
        if self.inline:
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            src = f"data:{kind};base64,{data}"
        else:
            src = Path(os.path.relpath(path, self.page_dir)).as_posix()
        if cls:
            return Markup('<img src="{}" alt="{}" class="{}">').format(src, alt, cls)
        return Markup('<img src="{}" alt="{}">').format(src, alt)

    def __call__(self, src: str, alt: str) -> Markup:
        path = self.resolve(src)
        if path is None:
            return Markup('<span class="missing">[image not loaded: {}]</span>').format(src)
        return self.tag(path, alt)

    def link(self, href: str) -> str:
        """A relative link from the paper's folder, rewritten relative to the page."""
        if re.match(r"^([A-Za-z][A-Za-z0-9+.-]*:|#|/)", href):
            return href
        return Path(os.path.relpath(self.out_dir / href, self.page_dir)).as_posix()


# -- the page -------------------------------------------------------------------------------------------
STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:78rem;
 padding:1rem 2rem 4rem;color:#1b1b1b;line-height:1.4}
h1{font-size:1.7rem;margin-bottom:.2rem}h2{margin-top:2.5rem;border-bottom:2px solid #444}
h3{margin-top:1.8rem}table{border-collapse:collapse;margin:.6rem 0 1rem;font-size:.88rem}
th,td{border:1px solid #bbb;padding:.2rem .45rem;vertical-align:top}th{background:#eee;text-align:left}
td.r,th.r{text-align:right}td.c,th.c{text-align:center}td.num{text-align:right;white-space:nowrap}
.ok{background:#c8ecc9}.near{background:#ffe0a3}.far{background:#f7b3ad}.none{background:#e4e4e4;color:#555}
.open{background:#fff}.agree-yes{background:#c8ecc9}.agree-no{background:#f7b3ad}.agree-none{background:#e4e4e4}
.status{display:inline-block;padding:.05rem .5rem;border-radius:.6rem;font-size:.85rem;border:1px solid #999}
.status.reported{background:#c8ecc9}.status.failed{background:#f7b3ad}.status.not-run{background:#e4e4e4}
.legend span{display:inline-block;padding:0 .5rem;margin-right:.4rem;border:1px solid #bbb}
figure{margin:1rem 0}figure img,p img{max-width:min(100%,52rem);height:auto;border:1px solid #ddd}
figcaption{font-style:italic;font-size:.9rem}.missing{color:#a00;font-style:italic}
blockquote{border-left:4px solid #ccc;margin:.5rem 0;padding:.1rem 1rem;color:#444}
.why{background:#fff4e5;border:1px solid #f0b45a;padding:.5rem 1rem}
code{font-size:.88em;background:#f3f3f3;padding:0 .15rem}pre{background:#f6f6f6;padding:.6rem;overflow:auto}
nav ul{columns:2}dl.prov{display:grid;grid-template-columns:max-content auto;gap:.1rem 1rem}
dl.prov dt{font-weight:600}table.provenance code{word-break:break-all}dl.prov dd{margin:0;word-break:break-all}
"""

#: Claim fields with their own column titles; other fields get their name.
CLAIM_TITLES = {"text": "claim", "paper": "the paper says", "paper_numbers": "on the paper's own numbers",
                "ours": "ours", "agrees": "agrees"}


def _claim_fields(outcomes: Iterable[Any]) -> tuple[list[str], list[str]]:
    """Column fields (in order, over all outcomes) and list-valued fields (rendered below the table)."""
    columns: list[str] = []
    lists: list[str] = []
    for outcome in outcomes:
        names = [f.name for f in dataclasses.fields(outcome)] if dataclasses.is_dataclass(outcome) else list(vars(outcome))
        for name in names:
            value = getattr(outcome, name, None)
            target = lists if isinstance(value, (list, tuple)) else columns
            if name not in columns and name not in lists:
                target.append(name)
    return columns, lists


def _agree_cell(value: object) -> str:
    cls = "agree-none" if value is None else ("agree-yes" if value else "agree-no")
    return f'<td class="{cls}">{_text_value(value)}</td>'


def _claim_row(outcome: Any, columns: list[str]) -> str:
    cells = []
    for name in columns:
        value = getattr(outcome, name, None)
        if name in ("agrees", "literal"):
            cells.append(_agree_cell(value))
        elif "verdict" in name and isinstance(value, str) and _verdict_class(value):
            cells.append(f'<td class="{_verdict_class(value)}">{_text_value(value)}</td>')
        else:
            cells.append(f"<td>{_text_value(value)}</td>")
    return "".join(cells)


def _field(row: Any, name: str) -> Any:
    """A column of a cell given as a named tuple (``itertuples``), a mapping or a Series."""
    if hasattr(row, "_fields") or not hasattr(row, "get"):
        return getattr(row, name, None)
    return row.get(name)


def _tolerance(row: Any, tolerances: dict[str, float]) -> tuple[float | None, str]:
    """The tolerance of a cell and where it comes from: its own column, the paper's std, the spec."""
    own = _field(row, "tolerance")
    if not _missing(own):
        return float(own), "tolerance"
    std = _field(row, "std")
    from treebench.report.cells import cell_tolerance  # pandas: only when a page is written

    tol = cell_tolerance(std, str(_field(row, "metric")), tolerances)  # the rule calibration uses
    if tol is None:
        return None, ""
    return tol, "spec's tolerance" if _missing(std) else "paper's std"


def cell_class(row: Any, tolerances: dict[str, float]) -> str:
    """The colour class of one compared cell.

    ``none`` (grey): not rerun (any status but ``ok``); ``ok`` (green): |ours − paper|
    within the tolerance (the paper's std, else the spec's tolerance for the metric);
    ``near`` (amber): within twice the tolerance; ``far`` (red): beyond; ``open``:
    rerun, but the paper gives no std and the spec no tolerance.
    """
    diff = _field(row, "diff")
    if str(_field(row, "status") or "ok") != "ok" or _missing(diff):
        return "none"
    tol, _ = _tolerance(row, tolerances)
    if tol is None:
        return "open"
    gap = abs(float(diff))
    return "ok" if gap <= tol + 1e-9 else ("near" if gap <= 2 * tol + 1e-9 else "far")


CLASS_WORDS = {"ok": "within tolerance", "near": "beyond, within twice", "far": "beyond twice the tolerance",
               "open": "no tolerance to judge", "none": "not rerun"}


def _cells_html(cells: pd.DataFrame, tolerances: dict[str, float]) -> str:
    """The cell tables, one per (metric, unit), with a count of colours and of agreements per table.

    Ours and the difference are coloured by the tolerance (:func:`cell_class`);
    the "agrees" column by the cell agreement rule (both noises, see
    :func:`treebench.report.cells.compare_cells`): yes, no or not judged with why.
    """
    if cells is None or not len(cells):
        return "<p>No published cells.</p>"
    legend = ('<p class="legend">' + "".join(f'<span class="{k}">{esc(v)}</span>' for k, v in CLASS_WORDS.items())
              + " — tolerance: the paper's ± std where it prints one, else the spec's tolerance for the "
              "metric; amber up to twice it, red beyond.  <em>agrees</em>: |ours − paper| ≤ 1.96·√(se_paper² + "
              "se_ours²), the bound beside it (docs/reports.md, \"Cell agreement\").</p>")
    out = [legend]
    for (metric, unit), sub in cells.groupby(["metric", "unit"], sort=False):
        d = _digits(str(unit), str(metric))
        rows, counts = [], dict.fromkeys(CLASS_WORDS, 0)
        agree_counts = {"yes": 0, "no": 0, "not judged": 0}
        for r in sub.itertuples(index=False):
            cls = cell_class(r, tolerances)
            counts[cls] += 1
            tol, source = _tolerance(r, tolerances)
            paper = _number(r.value, d) + ("" if _missing(getattr(r, "std", None)) else f" ± {_number(r.std, d)}")
            mark = str(getattr(r, "mark", "") or "")
            paper += f" ({mark})" if mark and mark != "nan" else ""
            status = str(getattr(r, "status", "ok"))
            if status == "ok":
                our_std = getattr(r, "our_std", None)
                ours = _number(r.ours, d) + ("" if _missing(our_std) else f" ± {_number(our_std, d)}")
                diff = f"{float(r.diff):+.{d}f}"
            else:
                ours, diff = status, "–"
            label, name = str(getattr(r, "dataset_label", "") or ""), str(getattr(r, "dataset", "") or "")
            dataset = label + (f" ({name})" if name and name.lower() != label.lower() else "")
            tol_text = "–" if tol is None else f"± {_number(tol, d)} ({source})"
            n = getattr(r, "n", None)
            title = f' title="{esc(CLASS_WORDS[cls])}"'
            agrees = getattr(r, "agrees", None)
            agrees = None if _missing(agrees) else bool(agrees)
            bound = getattr(r, "agree_bound", None)
            why = str(getattr(r, "agree_why", "") or "")
            if agrees is None:
                agree_counts["not judged"] += 1
                agree_text = why if why.startswith("not judged") else ("not judged" + (f" ({why})" if why else ""))
                agree_cls = "agree-none"
            else:
                agree_counts["yes" if agrees else "no"] += 1
                agree_text = ("yes" if agrees else "no") + ("" if _missing(bound) else f" (± {_number(bound, d)})")
                agree_cls = "agree-yes" if agrees else "agree-no"
            se_p, se_o = getattr(r, "se_paper", None), getattr(r, "se_ours", None)
            se = "–" if status != "ok" else f"{_number(se_p, d + 1)} / {_number(se_o, d + 1)}"
            cause = str(getattr(r, "cause", "") or "")
            rows.append(f"<tr><td>{esc(dataset)}</td><td>{esc(getattr(r, 'algorithm_label', r.algorithm))}</td>"
                        f'<td class="num">{esc(paper)}</td><td class="num {cls}"{title}>{esc(ours)}</td>'
                        f'<td class="num {cls}">{esc(diff)}</td><td class="num">{esc(tol_text)}</td>'
                        f'<td class="num">{esc(se)}</td><td class="{agree_cls}" title="{esc(why)}">'
                        f"{esc(agree_text)}</td><td>{esc(cause or '–')}</td>"
                        f'<td class="num">{esc(n if status == "ok" and n is not None else "–")}</td></tr>')
        tally = ", ".join(f"{v} {CLASS_WORDS[k]}" for k, v in counts.items() if v)
        agreed = ", ".join(f"{v} {k}" for k, v in agree_counts.items())
        out.append(f"<h4>{esc(metric)} ({esc(unit)})</h4><p>{len(sub)} published cells: {esc(tally)}; "
                   f"agree within both noises: {esc(agreed)}.</p>")
        out.append('<table class="cells"><thead><tr><th>dataset</th><th>algorithm</th><th>paper</th>'
                   "<th>ours</th><th>ours − paper</th><th>tolerance</th><th>se paper / ours</th><th>agrees</th>"
                   "<th>known cause</th><th>trials</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")
    return "\n".join(out)


def _claims_html(outcomes: Sequence[Any]) -> str:
    if not outcomes:
        return "<p>The spec lists no claims.</p>"
    columns, lists = _claim_fields(outcomes)
    titles = {**CLAIM_TITLES, "literal": "literal reading (means, no interval; not counted)"}
    out = ["<table class=\"claims\"><thead><tr>"
           + "".join(f"<th>{esc(titles.get(c, c.replace('_', ' ')))}</th>" for c in columns)
           + "</tr></thead><tbody>"
           + "".join(f"<tr>{_claim_row(o, columns)}</tr>" for o in outcomes) + "</tbody></table>"]
    for o in outcomes:
        for name in lists:
            values = list(getattr(o, name, None) or [])
            if values:
                out.append(f"<p><strong>{esc(getattr(o, 'text', ''))}</strong> ({esc(name.replace('_', ' '))})</p>"
                           "<ul>" + "".join(f"<li>{esc(v)}</li>" for v in values) + "</ul>")
    return "\n".join(out)


#: Column titles of the claims-at-a-glance table (the same as the report's first table).
GLANCE_HEAD = ("claim", "grade", "why, in one line", "where the paper says it")


def _glance_html(rep: Any) -> str:
    """The claims at a glance: one row per claim (its text, grade coloured as on the verdicts, reason, location).

    The rows are :func:`treebench.report.reproduce.glance_rows`, the table
    that opens each ``report.md``, so page and report cannot disagree.
    """
    from treebench.report.reproduce import glance_rows

    claims = list(getattr(rep, "claims", None) or [])
    if not claims:
        return "<p>The spec lists no claims.</p>"
    try:
        table = glance_rows(rep)
    except (AttributeError, TypeError, ValueError):  # a stand-in outcome without an Effect's fields
        table = [[str(getattr(c, "text", "")), str(getattr(c, "verdict", "") or "–").split(" (")[0], "–",
                  str(getattr(c, "location", "") or "–")] for c in claims]
    rows = []
    for text, grade, why, where in table:
        cls = _verdict_class(grade)
        grade_td = f'<td class="{cls}">{esc(grade)}</td>' if cls else f"<td>{esc(grade)}</td>"
        rows.append(f"<tr><td>{esc(text)}</td>{grade_td}<td>{esc(why)}</td><td>{esc(where)}</td></tr>")
    head = "".join(f"<th>{esc(h)}</th>" for h in GLANCE_HEAD)
    return f'<table class="glance"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _forest_figure(rep: Any, images: _Images) -> dict[str, Any] | None:
    """The report's forest plot (``forest.svg`` in the paper's folder) as a figure; None without claims.

    A report with claims whose plot is not on disk shows "[figure not found: forest.svg]"
    instead of an image, so a missing plot is visible on the page (and the page test fails).
    """
    from treebench.report.forest import FOREST

    if not getattr(rep, "claims", None):
        return None
    alt = "The claims at a glance: the paper's effect, our 95 % interval coloured by grade"
    return {"image": images.tag(images.out_dir / f"{FOREST}.svg", alt, cls="forest"),
            "caption": "Each claim on its own scale: the paper's effect (◇), our estimate and 95 % interval "
                       "coloured by grade, 0 (line), an equivalence's margin (grey band)."}


def _section_figures(section: Any, images: _Images) -> list[dict[str, Any]]:
    """Figures a section wrote but its Markdown does not show (one per file stem, PNG first)."""
    shown, out = set(images.used), []
    for path in sorted(getattr(section, "figures", []) or [], key=lambda p: Path(p).suffix.lower() != ".png"):
        path = Path(path)
        if path.suffix.lower() in IMAGE_TYPES and path.stem not in shown:
            shown.add(path.stem)
            full = path if path.is_absolute() or path.exists() else images.out_dir / path.name
            out.append({"image": images.tag(full, path.stem), "caption": path.name})
    return out


#: The parts of a :class:`~treebench.report.reproduce.Report` the page lays out itself; any other
#: field a report carries is shown after them by :func:`_extra_part`.
KNOWN_PARTS = ("spec", "cells", "claims", "figures", "compare_md", "notes", "sections", "readings")


def _records_table(records: Sequence[Any]) -> dict[str, list]:
    """Dataclass instances as a table (head and rows of texts), one row each, one column per field."""
    columns = [f.name for f in dataclasses.fields(records[0])]
    return {"head": [c.replace("_", " ") for c in columns],
            "rows": [[_plain_value(getattr(r, c, None)) for c in columns] for r in records]}


def _frame_table(frame: pd.DataFrame) -> dict[str, list]:
    """A frame as a table (head and rows of texts; no index)."""
    return {"head": [str(c) for c in frame.columns],
            "rows": [[_plain_value(v) for v in row] for row in frame.itertuples(index=False)]}


def _is_records(value: object) -> bool:
    return (isinstance(value, (list, tuple)) and len(value) > 0
            and all(dataclasses.is_dataclass(v) and not isinstance(v, type) for v in value))


def _extra_part(name: str, value: Any, md: Callable[[str], str]) -> dict[str, Any] | None:
    """A report field the page has no layout for, laid out generically under its name (None: empty).

    A frame or a list of dataclasses becomes a table; another dataclass a
    definition list of its plain fields followed by a table per frame or
    list of dataclasses it holds; text is read as Markdown; a list a bullet
    list; a mapping a definition list.  The template ``parts.html.j2``
    (macro ``extra``) draws it.
    """
    import pandas as pd

    if _empty(value) or (isinstance(value, pd.DataFrame) and value.empty):
        return None
    part: dict[str, Any] = {"title": name.replace("_", " ").capitalize()}
    if isinstance(value, pd.DataFrame):
        return {**part, "kind": "table", "table": _frame_table(value)}
    if _is_records(value):
        return {**part, "kind": "table", "table": _records_table(value)}
    if isinstance(value, str):
        return {**part, "kind": "markdown", "html": Markup(md(value))}
    if isinstance(value, dict):
        return {**part, "kind": "dl", "entries": [(str(k).replace("_", " "), _plain_value(v)) for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        plain, tables = [], []
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if isinstance(v, pd.DataFrame) and not v.empty:
                tables.append((f.name.replace("_", " "), _frame_table(v)))
            elif _is_records(v):
                tables.append((f.name.replace("_", " "), _records_table(v)))
            elif not _empty(v):
                plain.append((f.name.replace("_", " "), _plain_value(v)))
        return {**part, "kind": "record", "entries": plain, "tables": tables}
    if isinstance(value, (list, tuple)):
        return {**part, "kind": "list", "entries": [_plain_value(v) for v in value]}
    return {**part, "kind": "text", "text": _plain_value(value)}


def paper_body_html(page: PaperPage, page_dir: Path, inline: bool = True) -> str:
    """The part of a paper's section below its heading, from its report (template ``paper.html.j2``).

    This is what :mod:`treebench.papers.reproduce` keeps on disk as the
    paper's last good part.  ``inline``: figures as ``data:`` URIs (else
    linked relative to ``page_dir``).
    """
    spec, rep = page.spec, page.report
    if rep is None:
        raise ValueError(f"{spec.key} has no report to lay out")
    images = _Images(page.out_dir, page_dir, inline)
    md = lambda text: Markup(markdown_to_html(text, image=images, link=images.link))  # noqa: E731
    view: dict[str, Any] = {
        "glance": Markup(_glance_html(rep)),
        "forest": _forest_figure(rep, images),
        "cells": Markup(_cells_html(rep.cells, dict(spec.tolerances or {}))),
        "claims": Markup(_claims_html(rep.claims)),
        "compare": md(rep.compare_md) if rep.compare_md else None,
        "figures": [{"image": images.tag(Path(path), getattr(fig, "caption", "") or Path(path).stem),
                     "caption": getattr(fig, "caption", "") or Path(path).stem} for fig, path in rep.figures],
        "readings": None,
    }
    if getattr(rep, "readings", None):
        from treebench.report.reproduce import readings_markdown

        view["readings"] = md(readings_markdown(rep))
    sections = []
    for section in rep.sections:
        body = md(section.markdown)  # first: the figures it shows are then not listed again
        sections.append({"title": section.title, "html": body, "figures": _section_figures(section, images)})
    view["sections"] = sections
    extras = ([_extra_part(f.name, getattr(rep, f.name), md) for f in dataclasses.fields(rep)
               if f.name not in KNOWN_PARTS] if dataclasses.is_dataclass(rep) else [])
    view["extras"] = [x for x in extras if x is not None]
    notes = list(rep.notes) + [n for s in rep.sections for n in (getattr(s, "notes", None) or []) if n not in rep.notes]
    view["notes"] = [Markup(inline_html(n, images, images.link)) for n in notes]
    return _templates().get_template("paper.html.j2").render(**view)


def _paper_view(page: PaperPage, page_dir: Path, inline: bool) -> dict[str, Any]:
    """What the page template shows of one paper: heading, citation, files, why, and its body."""
    spec = page.spec
    files = []
    for name in ("report.md", "report.tex"):
        if (Path(page.out_dir) / name).is_file():
            files.append((Path(os.path.relpath(Path(page.out_dir) / name, page_dir)).as_posix(), name))
    if page.body_html:
        body = Markup(page.body_html)
    else:
        body = Markup(paper_body_html(page, page_dir, inline)) if page.report is not None else None
    return {
        **_paper_row(page), "citation": spec.citation, "description": getattr(spec, "description", "") or "",
        "files": files, "reason": page.reason, "problems": list(page.problems), "error_details": page.error_details,
        "kept": page.kept_built, "body": body,
    }


def _verdicts_html(pages: Sequence[PaperPage]) -> str:
    """One row per claim of every paper; a paper without a report gets one row saying why.

    The headline counts the claims' verdicts (over all datasets) with
    :func:`treebench.report.verdicts.summary`, the count each paper's
    ``report.md`` and ``verdicts.json`` give, per paper and in all.
    """
    from treebench.report.verdicts import summary, summary_text

    outcomes = [c for p in pages if p.report for c in p.report.claims]
    read = {p.spec.key: read_kept_verdicts(Path(p.out_dir), p.spec, p.kept_verdicts_sha256, p.body_html)
            for p in pages if p.report is None and p.status == KEPT}
    kept = {key: claims for key, (claims, _) in read.items()}
    unread = [(key, problem) for key, (_, problem) in read.items() if problem]
    columns, _ = _claim_fields(outcomes)
    columns = columns or ["text", "paper", "paper_numbers", "ours", "literal"]
    titles = {**CLAIM_TITLES, "literal": "literal reading (means, no interval; not counted)"}
    verdicts = [str(getattr(c, "verdict", "") or "not testable (no verdict)") for c in outcomes]
    verdicts += [str(c.get("verdict") or "not testable (no verdict)") for claims in kept.values() for c in claims]
    tally = summary_text(summary(verdicts)).replace(" claims: ", " claims recomputed: ", 1).replace(
        " claim: ", " claim recomputed: ", 1)
    per_paper = []
    for p in pages:
        if p.report is not None and p.report.claims:
            one = summary(str(getattr(c, "verdict", "") or "not testable (no verdict)") for c in p.report.claims)
            per_paper.append(f"<li>{esc(p.spec.number)} {esc(p.spec.key)}: {esc(summary_text(one))}</li>")
        elif kept.get(p.spec.key):
            one = summary(str(c.get("verdict") or "not testable (no verdict)") for c in kept[p.spec.key])
            per_paper.append(f"<li>{esc(p.spec.number)} {esc(p.spec.key)}: {esc(summary_text(one))} "
                             f"(its last good report, built {esc(p.kept_built)})</li>")
    rows = []
    for p in pages:
        link = f'<td><a href="#{esc(p.anchor)}">{esc(p.spec.number)} {esc(p.spec.key)}</a></td>'
        if p.report is None and kept.get(p.spec.key):
            for c in kept[p.spec.key]:
                rows.append(f'<tr>{link}<td colspan="{len(columns)}">{esc(c.get("claim", ""))}: '
                            f'{esc(c.get("verdict", ""))} (last good report, built {esc(p.kept_built)})</td></tr>')
        elif p.report is None:
            rows.append(f'<tr>{link}<td colspan="{len(columns)}" class="none">{esc(p.status)}: {esc(p.reason)}</td></tr>')
        elif not p.report.claims:
            rows.append(f'<tr>{link}<td colspan="{len(columns)}">no claims in the spec</td></tr>')
        for c in p.report.claims if p.report else ():
            rows.append(f"<tr>{link}{_claim_row(c, columns)}</tr>")
    head = "<th>paper</th>" + "".join(f"<th>{esc(titles.get(c, c.replace('_', ' ')))}</th>" for c in columns)
    for p in pages:  # a paper whose kept part could not be used at all: its claims are not counted either
        why = next((x[len(UNREADABLE_KEPT):] for x in p.problems if x.startswith(UNREADABLE_KEPT)), None)
        if p.report is None and p.spec.key not in read and why:
            unread.append((p.spec.key, why))
    if unread:  # the headline counts what was read, and says what was not
        tally += "; not counted: " + "; ".join(f"{key}: {problem}" for key, problem in unread)
    return (f'<section id="verdicts"><h2>Verdicts</h2><p>{esc(tally)} (each claim graded by its kind\'s rule; '
            "the same counts as each paper's report.md and verdicts.json)</p>"
            + (f"<ul>{''.join(per_paper)}</ul>" if per_paper else "")
            + f'<table class="verdicts"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></section>')


def read_kept_json(path: Path, what: str) -> tuple[Any, str | None]:
    """The JSON object in ``path``, or ``(None, problem)`` saying in one line why it cannot be read.

    ``(None, None)`` when there is no such file: nothing was kept, which is not a problem.
    """
    import json

    path = Path(path)
    if not path.exists():
        return None, None
    if path.is_dir():
        return None, f"{what} {path} is a folder, not a file"
    from treebench.errors import special_kind

    kind = special_kind(path)
    if kind is not None:  # reading /dev/zero would never end
        return None, f"{what} {path} is not a regular file but {kind}"
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None, f"{what} {path} is not UTF-8 text"
    except OSError as exc:
        return None, f"{what} {path} cannot be read: {exc.strerror or exc}"
    try:
        doc = json.loads(text)
    except RecursionError:  # arrays or objects nested thousands deep: no file the report writes
        return None, f"{what} {path} is not valid JSON (nested too deeply to read)"
    except ValueError as exc:
        state = "is empty" if not text.strip() else f"is not valid JSON (line {getattr(exc, 'lineno', '?')})"
        return None, f"{what} {path} {state}"
    if not isinstance(doc, dict):
        return None, f"{what} {path} holds a JSON {type(doc).__name__}, not an object"
    return doc, None


def other_paper(number: object, key: object, spec: PaperSpec | None) -> str | None:
    """Why a kept file recording paper ``number`` ``key`` is not ``spec``'s, or ``None`` when it may be.

    A field the file does not record is no evidence either way (older kept
    files, hand-made ones); a recorded one that differs is: a file copied from
    another paper's folder must not stand for this paper's last good part.
    """
    if spec is None:
        return None
    recorded = (None if number is None else str(number), None if key is None else str(key))
    if recorded[0] in (None, spec.number) and recorded[1] in (None, spec.key):
        return None
    shown = " ".join(x for x in recorded if x is not None)
    if len(shown) > 60 or not all(c.isalnum() or c in " _-." for c in shown):  # made-up text: quoted, cut
        shown = repr(shown[:60])
    return f"records paper {shown}, not {spec.number} {spec.key}"


def _bad_verdict(verdict: object) -> bool:
    """Whether a kept claim's verdict is not one of :data:`~treebench.report.verdicts.GRADES`.

    Missing or empty is allowed (read as ``not testable (no verdict)``); ``not testable`` may
    carry its reason in brackets.
    """
    from treebench.report.verdicts import GRADES, NOT_TESTABLE, grade_of

    if verdict is None or verdict == "":
        return False
    if not isinstance(verdict, str):
        return True
    if verdict.startswith(NOT_TESTABLE) and verdict != NOT_TESTABLE:
        return not (verdict.startswith(f"{NOT_TESTABLE} (") and verdict.endswith(")"))
    return grade_of(verdict) not in GRADES


def _not_a_claim(claim: object) -> str | None:
    """Why one entry of a kept ``claims`` list is not a claim ``verdicts.json`` records, or ``None``."""
    if not isinstance(claim, dict):
        return f"is a JSON {type(claim).__name__}, not an object"
    text = claim.get("claim")
    if not isinstance(text, str) or not text.strip():
        return "has no text ('claim')"
    verdict = claim.get("verdict")
    if not isinstance(verdict, str) or not verdict.strip():
        return "has no grade ('verdict')"
    return None


def read_kept_verdicts(out_dir: Path, spec: PaperSpec | None = None, sha256: str = "",
                       shown_html: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """A kept paper's claims from the ``verdicts.json`` its last good report wrote, or why they cannot be counted.

    Returns the claims (each a dict with a text and a grade) and ``None``, or ``[]`` and a one-line
    problem.  The whole file is refused, since counting part of it would give a headline no report
    wrote: unreadable or of the wrong shape; recording another paper than ``spec``; an entry
    that is not a claim (no text, no grade) or a verdict that is no grade; another number of
    claims than ``spec``'s inventory (a file of another version);
    a ``summary`` that is not the count of the claims' verdicts (the first invariant of
    :func:`~treebench.report.verdicts.check_document`; its others change between versions, so a file
    of an older treebench is still counted); for a paper (``spec`` given), a kept part that recorded
    no digest of its verdicts (``sha256`` empty: nothing ties the file to what the page shows); or
    other bytes than the digest the kept part recorded of the verdicts written with it: the
    headline would count grades the kept part does not show.  With ``shown_html`` (the kept part's
    HTML, as the page shows it), the grades must also be those its claims table shows, claim by
    claim: a ``verdicts.json`` forged together with the digest in ``section.json`` (no secret signs
    either) then still cannot make the headline disagree with the part on the same page.
    """
    from treebench.report.verdicts import GRADES, summary

    path = Path(out_dir) / "verdicts.json"
    doc, problem = read_kept_json(path, "the kept verdicts")
    if doc is None:
        return [], problem or f"the kept verdicts {path} are missing"
    mismatch = other_paper(doc.get("paper"), doc.get("key"), spec)
    if mismatch:
        return [], f"the kept verdicts {path} {mismatch}"
    claims = doc.get("claims")
    if not isinstance(claims, list):
        return [], f"the kept verdicts {path} have no list of claims"
    for number, claim in enumerate(claims, 1):
        wrong = _not_a_claim(claim)
        if wrong:
            return [], (f"claim {number} of the kept verdicts {path} {wrong}; accepted: an object with the "
                        "claim's text ('claim') and its grade ('verdict')")
        if _bad_verdict(claim["verdict"]):
            shown = str(claim["verdict"])
            shown = repr(shown if len(shown) <= 40 else shown[:40] + "...")
            return [], (f"the kept verdicts {path} give claim {number} the verdict {shown}; accepted: "
                        f"{'; '.join(repr(g) for g in GRADES)} (the last with its reason in brackets)")
    if spec is not None and len(claims) != len(spec.claims):
        return [], (f"the kept verdicts {path} hold {len(claims)} claims where {spec.key} has {len(spec.claims)}; "
                    "accepted: the verdicts.json of this version's report (a file of another version is not counted)")
    # the headline counts the claims: a file whose own summary says otherwise was edited after it was written
    # (check_document's other invariants change between versions; an older file is still counted)
    if doc.get("summary") != summary(c["verdict"] for c in claims):
        return [], (f"the kept verdicts {path} have a summary that is not the count of their claims' verdicts; "
                    "accepted: the verdicts.json as its report wrote it")
    if spec is not None and not sha256:
        # nothing ties the file to the part the page shows: a consistent edit would be counted unseen
        return [], (f"the kept part beside the kept verdicts {path} records no SHA-256 of them (a part written "
                    "before parts recorded it), so they are not counted; accepted: a kept part and verdicts.json "
                    "written together by this version (`treebench reproduce` rebuilds both)")
    if sha256 and fingerprint(path) != sha256:
        return [], (f"the kept verdicts {path} are not those written with the kept part beside them (its record "
                    "of their SHA-256 differs); accepted: the verdicts.json written with section.json")
    if shown_html is not None:
        from treebench.report.kept_grades import disagreement

        differs = disagreement(shown_html, [c["verdict"] for c in claims])
        if differs:
            return [], (f"the kept verdicts {path} are not those the kept part shows ({differs}); accepted: "
                        "the verdicts.json written with section.json")
    return claims, None


def _run_cell(page: PaperPage) -> str:
    """The run's wall time and, when known, how many trials it computed (the rest were resumed)."""
    text = _seconds(page.run_seconds)
    if page.trials_run is not None and page.trials_planned is not None:
        text += f" ({page.trials_run} of {page.trials_planned} trials run)"
    return text


def _paper_row(page: PaperPage) -> dict[str, Any]:
    """A paper's name, status and provenance as texts (the nav, the provenance table, the heading)."""
    trials = "–" if page.n_trials is None else (f"{page.n_trials}" + ("" if page.n_ok is None else f" ({page.n_ok} ok)"))
    return {"anchor": page.anchor, "number": page.spec.number, "key": page.spec.key, "status": page.status,
            "status_class": page.status.replace(" ", "-"), "config": page.config or "–",
            "config_sha256": page.config_sha256 or "–", "store": page.store or "–", "trials": trials,
            "run": _run_cell(page), "report": _seconds(page.report_seconds)}


_ENVIRONMENT: jinja2.Environment | None = None


def _templates() -> jinja2.Environment:
    """The page's Jinja2 templates (``treebench/report/templates``), autoescaping every value."""
    global _ENVIRONMENT
    if _ENVIRONMENT is None:
        _ENVIRONMENT = jinja2.Environment(
            loader=jinja2.PackageLoader("treebench.report", "templates"), autoescape=True,
            undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    return _ENVIRONMENT


def render_index(pages: Sequence[PaperPage], page_dir: Path, *, title: str = "Reproductions",
                 built: datetime | None = None, env: dict[str, str] | None = None, command: str = "",
                 inline_figures: bool = True) -> str:
    """The whole page as HTML text (template ``page.html.j2``).

    Parameters
    ----------
    pages
        One entry per paper, in the page's order.
    page_dir
        The folder the page will be written to (relative links start there).
    title
        The page's title and heading.
    built
        When the page was built (default: now, UTC).
    env
        Versions for the provenance (default :func:`environment`).
    command
        The command line that built the page, for the provenance.
    inline_figures
        Embed figures as ``data:`` URIs (the page stands alone); otherwise link
        them relative to ``page_dir``.
    """
    built = built or datetime.now(timezone.utc)
    env = environment() if env is None else env
    stamp = built.isoformat(timespec="seconds")
    items = [("built", stamp), *env.items()] + ([("command", command)] if command else [])
    papers = []
    for p in pages:
        try:
            papers.append(_paper_view(p, Path(page_dir), inline_figures))
        except Exception as exc:  # one paper's odd data must not cost the others their page
            reason, details = failure_text(exc)
            broken = dataclasses.replace(p, report=None, body_html="", status=FAILED,
                                         reason=f"page part not rendered: {reason}", error_details=details)
            papers.append(_paper_view(broken, Path(page_dir), inline_figures))
    return _templates().get_template("page.html.j2").render(
        title=title, built=stamp, version=env.get("treebench", "?"), style=Markup(STYLE), papers=papers,
        verdicts=Markup(_verdicts_html(pages)), environment=items)


def write_index(pages: Sequence[PaperPage], path: Path, **options: Any) -> Path:
    """Write :func:`render_index`'s page to ``path`` (UTF-8); return the path.

    ``options`` are :func:`render_index`'s keywords.  The page is written to
    a temporary file first and then renamed, so an interrupted build never
    leaves half a page.
    """
    from treebench.outpaths import make_folder, write_text

    path = Path(path)
    make_folder(path.parent)  # before rendering: the page inlines figures read from that folder
    return write_text(path, render_index(pages, path.parent, **options))
