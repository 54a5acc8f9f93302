"""One static HTML page for many reproduction reports: ``index.html``.

:func:`render_index` turns a list of :class:`PaperPage` (a paper's spec, the
:class:`~treebench.report.reproduce.Report` built for it, or why there is
none, and where its inputs came from) into a single page:

- a verdict table with one row per claim of every paper, linking to the
  paper's section;
- the provenance of the run: package versions, each paper's config path and
  SHA-256, store, number of trials and how long its run and report took;
- per paper, its published cells beside ours, coloured by tolerance, its
  claims, our comparison table, its figures, its extra sections (their
  Markdown converted by :func:`markdown_to_html`) and its notes.

The page needs no server, no network and no JavaScript: figures are inlined
as ``data:`` URIs by default, so the file can be copied anywhere on its own.
Every piece of text is HTML-escaped; the only markup let through from
Markdown is a short list of inline tags (``<u>``, ``<b>``, ...) that the
comparison tables use.  Nothing here knows any particular paper.
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

if TYPE_CHECKING:
    import pandas as pd

    from treebench.report.reproduce import Report
    from treebench.report.spec import PaperSpec

#: Page statuses of a paper: a report was built; nothing to report on; the report failed.
REPORTED, NOT_RUN, FAILED = "reported", "not run", "failed"

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


def _text_value(value: object, depth: int = 0) -> str:
    """Any field value as escaped text.

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
        return "–" if math.isnan(value) else esc(f"{value:.4g}")
    if isinstance(value, (list, tuple)):
        return "; ".join(_text_value(v, depth + 1) for v in value) or "–"
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and type(value).__str__ is object.__str__:
        if depth > 2:
            return esc(type(value).__name__)
        pairs = [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
        return "; ".join(f"{esc(k.replace('_', ' '))}: {_text_value(v, depth + 1)}" for k, v in pairs
                         if not _empty(v)) or "–"
    return esc(value)


def _empty(value: object) -> bool:
    """None, NaN, an empty string or an empty collection."""
    if _missing(value):
        return True
    return isinstance(value, (str, list, tuple, dict)) and not value


#: Colours of verdict texts (any claim field whose name contains "verdict"), by how the text starts.
VERDICT_CLASSES = (("not testable", "agree-none"), ("not reproduced", "agree-no"), ("reversed", "agree-no"),
                   ("same direction", "near"), ("reproduced", "agree-yes"))


def _verdict_class(text: str) -> str:
    low = text.strip().lower()
    if low.startswith("inconclusive"):  # an equivalence the data cannot settle: amber, like "smaller"
        return "near"
    return next((cls for prefix, cls in VERDICT_CLASSES if low.startswith(prefix)), "")


# -- Markdown to HTML -------------------------------------------------------------------------------
#: Inline tags let through from Markdown text, in pairs on one line and without attributes
#: (the comparison tables underline with ``<u>``); any other tag, or one left open, is escaped.
INLINE_TAGS = ("u", "b", "i", "em", "strong", "sub", "sup", "code", "s")

ImageRenderer = Callable[[str, str], str]
LinkRewriter = Callable[[str], str]

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$")
_QUOTE = re.compile(r"^\s*>\s?(.*)$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_INLINE = re.compile(
    r"(?P<code>`+)(?P<codetext>.+?)(?P=code)"
    r"|!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)(?:\s+\"[^\"]*\")?\)"
    r"|\[(?P<text>[^\]]+)\]\((?P<href>[^)\s]+)(?:\s+\"[^\"]*\")?\)"
    r"|\\(?P<escaped>[\\`*_{}\[\]()#+\-.!|<>~])"
)
_TAG = re.compile(r"&lt;(" + "|".join(INLINE_TAGS) + r")&gt;(.*?)&lt;/\1&gt;", re.IGNORECASE)
_BR = re.compile(r"&lt;br\s*/?&gt;", re.IGNORECASE)
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")


def _default_image(src: str, alt: str) -> str:
    return f'<img src="{esc(src)}" alt="{esc(alt)}">'


def _safe_href(href: str) -> str:
    """A link target, or ``""`` for schemes a report has no business linking (``javascript:`` ...)."""
    scheme = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*):", href)
    if scheme and scheme.group(1).lower() not in ("http", "https", "mailto"):
        return ""
    return href


def _emphasis(text: str) -> str:
    """Escaped text with ``**bold**``, ``*italic*`` and the allowed inline tags turned into markup."""
    out, before = _BR.sub("<br>", esc(text)), None
    while out != before:  # innermost pairs first; an unpaired tag stays escaped
        before, out = out, _TAG.sub(lambda m: f"<{m.group(1).lower()}>{m.group(2)}</{m.group(1).lower()}>", out)
    out = _STRONG.sub(r"<strong>\1</strong>", out)
    return _EM.sub(r"<em>\1</em>", out)


def inline_html(text: str, image: ImageRenderer = _default_image, link: LinkRewriter = str) -> str:
    """One line of Markdown inline syntax as HTML: code, images, links, emphasis, escapes."""
    parts, pending, pos = [], [], 0
    # Escaped characters and literal text are gathered, then emphasised together (``**a \* b**``).
    for m in _INLINE.finditer(text):
        pending.append(text[pos:m.start()])
        pos = m.end()
        if m.group("escaped") is not None:
            pending.append("\x00" + m.group("escaped") + "\x00")
            continue
        parts.append(_emphasis("".join(pending)))
        pending = []
        if m.group("code"):
            parts.append(f"<code>{esc(m.group('codetext').strip())}</code>")
        elif m.group("src") is not None:
            parts.append(image(m.group("src"), m.group("alt")))
        else:
            href = _safe_href(link(m.group("href")))
            label = inline_html(m.group("text"), image, link)
            parts.append(f'<a href="{esc(href)}">{label}</a>' if href else label)
    pending.append(text[pos:])
    parts.append(_emphasis("".join(pending)))
    return re.sub("\x00(.)\x00", lambda m: esc(m.group(1)), "".join(parts))


def _split_row(line: str) -> list[str]:
    """The cells of a pipe-table row (``\\|`` stays a literal bar)."""
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") and not s.endswith("\\|") else s
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", s)]


def _align(spec: str) -> str:
    spec = spec.strip()
    if spec.startswith(":") and spec.endswith(":"):
        return ' class="c"'
    return ' class="r"' if spec.endswith(":") else ""


def _table(head: list[str], aligns: list[str], rows: list[list[str]], image: ImageRenderer,
           link: LinkRewriter) -> str:
    """A pipe table's HTML."""

    def cells(tag: str, texts: list[str]) -> str:
        return "".join(f"<{tag}{aligns[k] if k < len(aligns) else ''}>{inline_html(t, image, link)}</{tag}>"
                       for k, t in enumerate(texts))

    body = "".join(f"<tr>{cells('td', r)}</tr>" for r in rows)
    return f'<table class="md"><thead><tr>{cells("th", head)}</tr></thead><tbody>{body}</tbody></table>'


def _starts_block(line: str, nxt: str | None) -> bool:
    return bool(_FENCE.match(line) or _HEADING.match(line) or _ITEM.match(line) or _QUOTE.match(line)
                or _RULE.match(line) or (line.lstrip().startswith("|") and nxt is not None and _TABLE_SEP.match(nxt)))


def markdown_to_html(source: str | Sequence[str], *, image: ImageRenderer = _default_image,
                     link: LinkRewriter = str, heading_offset: int = 2) -> str:
    """Convert the Markdown a report section holds into HTML.

    Covers what the report builders write: headings, paragraphs, pipe tables
    (with ``:---:`` alignment), bullet and numbered lists (nested by
    indentation), block quotes, fenced code, rules, and inline code, images,
    links, ``**bold**``, ``*italic*``, backslash escapes and the tags of
    :data:`INLINE_TAGS`.  Any other HTML in the text is escaped.

    Parameters
    ----------
    source
        The Markdown, as text or as lines.
    image
        ``image(src, alt) -> html``: how to render an image (e.g. inline its file).
    link
        Rewrites a link target (e.g. relative to the page's folder).
    heading_offset
        Added to a heading's level (``#`` becomes ``<h3>`` by default: the page has
        its own ``<h1>`` and ``<h2>``); at most ``<h6>``.
    """
    lines = source.splitlines() if isinstance(source, str) else [x for s in source for x in str(s).split("\n")]
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < n else None
        if not line.strip():
            i += 1
        elif _FENCE.match(line):
            fence = _FENCE.match(line).group(1)
            j = i + 1
            while j < n and not lines[j].strip().startswith(fence):
                j += 1
            out.append("<pre><code>" + esc("\n".join(lines[i + 1:j])) + "</code></pre>")
            i = j + 1
        elif _HEADING.match(line):
            m = _HEADING.match(line)
            level = min(6, len(m.group(1)) + heading_offset)
            out.append(f"<h{level}>{inline_html(m.group(2), image, link)}</h{level}>")
            i += 1
        elif _RULE.match(line):
            out.append("<hr>")
            i += 1
        elif line.lstrip().startswith("|") and nxt is not None and _TABLE_SEP.match(nxt):
            head, aligns = _split_row(line), [_align(a) for a in _split_row(nxt)]
            aligns += [""] * (len(head) - len(aligns))
            rows, j = [], i + 2
            while j < n and lines[j].lstrip().startswith("|"):
                rows.append(_split_row(lines[j]))
                j += 1
            out.append(_table(head, aligns, rows, image, link))
            i = j
        elif _QUOTE.match(line):
            quoted, j = [], i
            while j < n and lines[j].strip() and _QUOTE.match(lines[j]):
                quoted.append(_QUOTE.match(lines[j]).group(1))
                j += 1
            out.append("<blockquote>" + markdown_to_html(quoted, image=image, link=link,
                                                         heading_offset=heading_offset) + "</blockquote>")
            i = j
        elif _ITEM.match(line):
            html_list, i = _list(lines, i, image, link, heading_offset)
            out.append(html_list)
        else:
            para, j = [line.strip()], i + 1
            while j < n and lines[j].strip() and not _starts_block(lines[j], lines[j + 1] if j + 1 < n else None):
                para.append(lines[j].strip())
                j += 1
            text = " ".join(para)
            single = re.fullmatch(r"!\[([^\]]*)\]\(([^)\s]+)\)", text)
            if single:
                caption = f"<figcaption>{inline_html(single.group(1), image, link)}</figcaption>" if single.group(1) else ""
                out.append(f"<figure>{image(single.group(2), single.group(1))}{caption}</figure>")
            else:
                out.append(f"<p>{inline_html(text, image, link)}</p>")
            i = j
    return "\n".join(out)


def _list(lines: list[str], i: int, image: ImageRenderer, link: LinkRewriter, offset: int) -> tuple[str, int]:
    """The list starting at ``lines[i]``; return its HTML and the index after it."""
    first = _ITEM.match(lines[i])
    indent = len(first.group(1))
    ordered = first.group(2)[0].isdigit()
    items: list[list[str]] = []
    content = first.start(3)
    n, j = len(lines), i
    while j < n:
        line = lines[j]
        m = _ITEM.match(line)
        if m and len(m.group(1)) == indent and m.group(2)[0].isdigit() == ordered:
            items.append([m.group(3)])
            content = m.start(3)
            j += 1
            continue
        if not line.strip():
            # a blank line ends the list unless an indented line (the item's next paragraph) follows
            k = j
            while k < n and not lines[k].strip():
                k += 1
            if k < n and len(lines[k]) - len(lines[k].lstrip()) > indent:
                items[-1] += [""] * (k - j)
                j = k
                continue
            break
        depth = len(line) - len(line.lstrip())
        if depth > indent:
            items[-1].append(line[min(depth, content):])  # the item's own block, dedented
        elif m or _starts_block(line, lines[j + 1] if j + 1 < n else None):
            break
        else:
            items[-1].append(line.strip())  # a lazy continuation of the item's paragraph
        j += 1
    body = []
    for item in items:
        inner = markdown_to_html(item, image=image, link=link, heading_offset=offset)
        if inner.startswith("<p>") and inner.count("<p>") == 1:
            inner = inner[3:].replace("</p>", "", 1)  # a one-paragraph item: no <p>
        body.append(f"<li>{inner}</li>")
    tag = "ol" if ordered else "ul"
    return f"<{tag}>" + "".join(body) + f"</{tag}>", j


# -- figures ------------------------------------------------------------------------------------------
class _Images:
    """Renders the images of one paper's part: inlined or linked, missing files said so."""

    def __init__(self, out_dir: Path, page_dir: Path, inline: bool) -> None:
        self.out_dir, self.page_dir, self.inline = Path(out_dir), Path(page_dir), inline
        self.used: set[str] = set()

    def resolve(self, src: str) -> Path | None:
        if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", src) or src.startswith("/"):
            return None  # remote or absolute: never fetched, never trusted
        return self.out_dir / src

    def tag(self, path: Path, alt: str) -> str:
        kind = IMAGE_TYPES.get(path.suffix.lower())
        if kind is None or not path.is_file():
            return f'<span class="missing">[figure not found: {esc(path.name)}]</span>'
        self.used.add(path.stem)
        if self.inline:
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            src = f"data:{kind};base64,{data}"
        else:
            src = Path(os.path.relpath(path, self.page_dir)).as_posix()
        return f'<img src="{esc(src)}" alt="{esc(alt)}">'

    def __call__(self, src: str, alt: str) -> str:
        path = self.resolve(src)
        if path is None:
            return f'<span class="missing">[external image not loaded: {esc(src)}]</span>'
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


def _section_figures(section: Any, images: _Images) -> str:
    """Figures a section wrote but its Markdown does not show (one per file stem, PNG first)."""
    shown, out = set(images.used), []
    for path in sorted(getattr(section, "figures", []) or [], key=lambda p: Path(p).suffix.lower() != ".png"):
        path = Path(path)
        if path.suffix.lower() in IMAGE_TYPES and path.stem not in shown:
            shown.add(path.stem)
            full = path if path.is_absolute() or path.exists() else images.out_dir / path.name
            out.append(f"<figure>{images.tag(full, path.stem)}<figcaption>{esc(path.name)}</figcaption></figure>")
    return "".join(out)


#: The parts of a :class:`~treebench.report.reproduce.Report` the page lays out itself; any other
#: field a report carries is shown after them by :func:`_extra_part`.
KNOWN_PARTS = ("spec", "cells", "claims", "figures", "compare_md", "notes", "sections", "readings")


def _records_table(records: Sequence[Any]) -> str:
    """Dataclass instances as a table, one row each, one column per field."""
    columns = [f.name for f in dataclasses.fields(records[0])]
    head = "".join(f"<th>{esc(c.replace('_', ' '))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_text_value(getattr(r, c, None))}</td>" for c in columns) + "</tr>"
                   for r in records)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _frame_table(frame: pd.DataFrame) -> str:
    """A frame as a table (no index)."""
    head = "".join(f"<th>{esc(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{_text_value(v)}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _is_records(value: object) -> bool:
    return (isinstance(value, (list, tuple)) and len(value) > 0
            and all(dataclasses.is_dataclass(v) and not isinstance(v, type) for v in value))


def _extra_part(name: str, value: Any, md: Callable[[str], str]) -> str:
    """A report field the page has no layout for, shown generically under its name.

    A frame or a list of dataclasses becomes a table; another dataclass a
    definition list of its plain fields followed by a table per frame or
    list of dataclasses it holds; text is read as Markdown; a list a bullet
    list; a mapping a definition list.
    """
    import pandas as pd

    if _empty(value) or (isinstance(value, pd.DataFrame) and value.empty):
        return ""
    title = f"<h3>{esc(name.replace('_', ' ').capitalize())}</h3>"
    dl = lambda items: ('<dl class="prov">' + "".join(f"<dt>{esc(str(k).replace('_', ' '))}</dt>"  # noqa: E731
                                                      f"<dd>{_text_value(v)}</dd>" for k, v in items) + "</dl>")
    if isinstance(value, pd.DataFrame):
        return title + _frame_table(value)
    if _is_records(value):
        return title + _records_table(value)
    if isinstance(value, str):
        return title + md(value)
    if isinstance(value, dict):
        return title + dl(value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        plain, tables = [], []
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if isinstance(v, pd.DataFrame) and not v.empty:
                tables.append(f"<h4>{esc(f.name.replace('_', ' '))}</h4>{_frame_table(v)}")
            elif _is_records(v):
                tables.append(f"<h4>{esc(f.name.replace('_', ' '))}</h4>{_records_table(v)}")
            elif not _empty(v):
                plain.append((f.name, v))
        return title + (dl(plain) if plain else "") + "".join(tables)
    if isinstance(value, (list, tuple)):
        return title + "<ul>" + "".join(f"<li>{_text_value(v)}</li>" for v in value) + "</ul>"
    return f"{title}<p>{_text_value(value)}</p>"


def _paper_html(page: PaperPage, page_dir: Path, inline: bool) -> str:
    spec, rep = page.spec, page.report
    status_cls = page.status.replace(" ", "-")
    out = [f'<section id="{esc(page.anchor)}"><h2>Paper {esc(spec.number)} ({esc(spec.key)}) '
           f'<span class="status {esc(status_cls)}">{esc(page.status)}</span></h2>',
           f"<p><em>{esc(spec.citation)}</em></p>"]
    if getattr(spec, "description", ""):
        out.append(f"<p>{esc(spec.description)}</p>")
    files = []
    for name in ("report.md", "report.tex"):
        if (Path(page.out_dir) / name).is_file():
            files.append(f'<a href="{esc(Path(os.path.relpath(Path(page.out_dir) / name, page_dir)).as_posix())}">{name}</a>')
    if files:
        out.append("<p>Files: " + ", ".join(files) + "</p>")
    if page.reason or page.problems:
        why = ([f"<p><strong>{esc(page.status.capitalize())}:</strong> {esc(page.reason)}</p>"] if page.reason else [])
        why += [f"<p><strong>Problem:</strong> {esc(p)}</p>" for p in page.problems]
        if page.error_details:
            why.append(f"<details><summary>details</summary><pre>{esc(page.error_details)}</pre></details>")
        out.append('<div class="why">' + "".join(why) + "</div>")
    if rep is None:
        return "\n".join(out) + "</section>"
    images = _Images(page.out_dir, page_dir, inline)
    md = lambda text: markdown_to_html(text, image=images, link=images.link)  # noqa: E731
    out += ["<h3>Published cells against ours</h3>", _cells_html(rep.cells, dict(spec.tolerances or {})),
            "<h3>The paper's conclusions, recomputed</h3>", _claims_html(rep.claims)]
    if rep.compare_md:
        out += ["<h3>Our full comparison</h3>", md(rep.compare_md)]
    if rep.figures:
        out.append("<h3>Figures</h3>")
        for fig, path in rep.figures:
            caption = getattr(fig, "caption", "") or Path(path).stem
            out.append(f"<figure>{images.tag(Path(path), caption)}<figcaption>{esc(caption)}</figcaption></figure>")
    if getattr(rep, "readings", None):
        from treebench.report.reproduce import readings_markdown

        out += ["<h3>Readings</h3>", md(readings_markdown(rep))]
    for section in rep.sections:
        out += [f"<h3>{esc(section.title)}</h3>", md(section.markdown), _section_figures(section, images)]
    if dataclasses.is_dataclass(rep):
        out += [_extra_part(f.name, getattr(rep, f.name), md) for f in dataclasses.fields(rep)
                if f.name not in KNOWN_PARTS]
    notes = list(rep.notes) + [n for s in rep.sections for n in (getattr(s, "notes", None) or []) if n not in rep.notes]
    if notes:
        out += ["<h3>Notes</h3>", "<ul>" + "".join(f"<li>{inline_html(n, images, images.link)}</li>" for n in notes)
                + "</ul>"]
    return "\n".join(out) + "</section>"


def _verdicts_html(pages: Sequence[PaperPage]) -> str:
    """One row per claim of every paper; a paper without a report gets one row saying why.

    The headline counts the claims' verdicts (over all datasets) with
    :func:`treebench.report.verdicts.summary`, the count each paper's
    ``report.md`` and ``verdicts.json`` give, per paper and in all.
    """
    from treebench.report.verdicts import summary, summary_text

    outcomes = [c for p in pages if p.report for c in p.report.claims]
    columns, _ = _claim_fields(outcomes)
    columns = columns or ["text", "paper", "paper_numbers", "ours", "literal"]
    titles = {**CLAIM_TITLES, "literal": "literal reading (means, no interval; not counted)"}
    counts = summary(str(getattr(c, "verdict", "") or "not testable (no verdict)") for c in outcomes)
    tally = summary_text(counts).replace(" claims: ", " claims recomputed: ", 1).replace(" claim: ", " claim recomputed: ", 1)
    per_paper = []
    for p in pages:
        if p.report is not None and p.report.claims:
            one = summary(str(getattr(c, "verdict", "") or "not testable (no verdict)") for c in p.report.claims)
            per_paper.append(f"<li>{esc(p.spec.number)} {esc(p.spec.key)}: {esc(summary_text(one))}</li>")
    rows = []
    for p in pages:
        link = f'<td><a href="#{esc(p.anchor)}">{esc(p.spec.number)} {esc(p.spec.key)}</a></td>'
        if p.report is None:
            rows.append(f'<tr>{link}<td colspan="{len(columns)}" class="none">{esc(p.status)}: {esc(p.reason)}</td></tr>')
        elif not p.report.claims:
            rows.append(f'<tr>{link}<td colspan="{len(columns)}">no claims in the spec</td></tr>')
        for c in p.report.claims if p.report else ():
            rows.append(f"<tr>{link}{_claim_row(c, columns)}</tr>")
    head = "<th>paper</th>" + "".join(f"<th>{esc(titles.get(c, c.replace('_', ' ')))}</th>" for c in columns)
    return (f'<section id="verdicts"><h2>Verdicts</h2><p>{esc(tally)} (each claim graded by its kind\'s rule; '
            "the same counts as each paper's report.md and verdicts.json)</p>"
            + (f"<ul>{''.join(per_paper)}</ul>" if per_paper else "")
            + f'<table class="verdicts"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></section>')


def _run_cell(page: PaperPage) -> str:
    """The run's wall time and, when known, how many trials it computed (the rest were resumed)."""
    text = _seconds(page.run_seconds)
    if page.trials_run is not None and page.trials_planned is not None:
        text += f" ({page.trials_run} of {page.trials_planned} trials run)"
    return text


def _provenance_html(pages: Sequence[PaperPage], env: dict[str, str], built: datetime, command: str) -> str:
    items = [("built", built.isoformat(timespec="seconds"))] + list(env.items())
    if command:
        items.append(("command", command))
    dl = '<dl class="prov">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items) + "</dl>"
    rows = []
    for p in pages:
        trials = "–" if p.n_trials is None else (f"{p.n_trials}" + ("" if p.n_ok is None else f" ({p.n_ok} ok)"))
        rows.append(f'<tr><td><a href="#{esc(p.anchor)}">{esc(p.spec.number)} {esc(p.spec.key)}</a></td>'
                    f'<td><span class="status {esc(p.status.replace(" ", "-"))}">{esc(p.status)}</span></td>'
                    f"<td><code>{esc(p.config or '–')}</code></td><td><code>{esc(p.config_sha256 or '–')}</code></td>"
                    f"<td><code>{esc(p.store or '–')}</code></td><td class=\"num\">{esc(trials)}</td>"
                    f'<td class="num">{esc(_run_cell(p))}</td><td class="num">{esc(_seconds(p.report_seconds))}</td></tr>')
    table = ('<table class="provenance"><thead><tr><th>paper</th><th>status</th><th>config</th><th>config SHA-256</th>'
             "<th>store</th><th>trials</th><th>run</th><th>report</th></tr></thead><tbody>" + "".join(rows)
             + "</tbody></table>")
    return f'<section id="provenance"><h2>Provenance</h2>{dl}{table}</section>'


def render_index(pages: Sequence[PaperPage], page_dir: Path, *, title: str = "Reproductions",
                 built: datetime | None = None, env: dict[str, str] | None = None, command: str = "",
                 inline_figures: bool = True) -> str:
    """The whole page as HTML text.

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
    nav = "".join(f'<li><a href="#{esc(p.anchor)}">Paper {esc(p.spec.number)} ({esc(p.spec.key)})</a> — '
                  f'<span class="status {esc(p.status.replace(" ", "-"))}">{esc(p.status)}</span></li>' for p in pages)
    body = [f"<h1>{esc(title)}</h1>",
            f"<p>{len(pages)} papers; built {esc(built.isoformat(timespec='seconds'))} by treebench "
            f"{esc(env.get('treebench', '?'))}. Paper values are the published ones; every other number was "
            "computed by treebench from the results stores listed under Provenance.</p>",
            f'<nav><ul><li><a href="#verdicts">Verdicts</a></li><li><a href="#provenance">Provenance</a></li>{nav}</ul></nav>',
            _verdicts_html(pages), _provenance_html(pages, env, built, command)]
    for p in pages:
        try:
            body.append(_paper_html(p, Path(page_dir), inline_figures))
        except Exception as exc:  # one paper's odd data must not cost the others their page
            reason, details = failure_text(exc)
            broken = dataclasses.replace(p, report=None, status=FAILED, reason=f"page part not rendered: {reason}",
                                         error_details=details)
            body.append(_paper_html(broken, Path(page_dir), inline_figures))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def write_index(pages: Sequence[PaperPage], path: Path, **options: Any) -> Path:
    """Write :func:`render_index`'s page to ``path`` (UTF-8); return the path.

    ``options`` are :func:`render_index`'s keywords.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_index(pages, path.parent, **options), encoding="utf-8")
    return path
