"""Whether a kept part's HTML holds only markup the report's renderer writes.

A paper's last good part (``section.json``) is HTML that ``reproduce`` put on
the page before; shown again, it goes into ``index.html`` as it is.  The file
lies on disk where anything can change it, so before it is shown again its
markup is checked against what :func:`treebench.report.site.paper_body_html`
and :mod:`treebench.report.md_html` can produce: a short list of tags and
attributes, links that are ``#anchors``, ``http(s)``, ``mailto`` or relative
files, images that are relative files or ``data:image/...`` URIs (a relative
file never starts with ``/`` and has no ``..`` segment: it lies in the report
folder).  Anything else (``<script>``,
``<iframe>``, an ``on*`` handler, a ``style``, a ``javascript:`` link, a
comment) means the file was not written by the renderer: it is refused as
unreadable rather than cleaned, since a part that was changed by hand cannot
stand for the paper's last good report anyway.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from urllib.parse import unquote

#: Tags the renderer writes inside a paper's part (templates, tables, Markdown, figures).
ALLOWED_TAGS = frozenset({
    "a", "b", "blockquote", "br", "caption", "code", "dd", "details", "div", "dl", "dt", "em", "figcaption",
    "figure", "h3", "h4", "h5", "h6", "hr", "i", "img", "li", "ol", "p", "pre", "s", "section", "span", "strong",
    "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
})
#: Attributes the renderer writes (``href`` and ``src`` are checked further).
ALLOWED_ATTRIBUTES = frozenset({"alt", "class", "colspan", "href", "id", "open", "rowspan", "src", "start", "title"})
#: Link schemes a report may use (as :func:`treebench.report.md_html.safe_href`).
LINK_SCHEMES = ("http", "https", "mailto")

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|webp|svg\+xml)[;,]", re.IGNORECASE)
# browsers drop these inside a URL before reading its scheme ("java\tscript:" is "javascript:")
_URL_NOISE = re.compile(r"[\x00-\x20\x7f]")


def _bad_url(name: str, value: str) -> bool:
    """Whether an ``href`` or ``src`` value is one the renderer would not write."""
    url = _URL_NOISE.sub("", value)
    if name == "src" and _DATA_IMAGE.match(url):
        return False
    # "//host/x" and "\\\\host\\x" name another machine without a scheme (a browser fetches them over the network,
    # or as a Windows share); the renderer writes relative files with forward slashes only
    if url.startswith(("//", "/\\", "\\")) or "\\" in url:
        return True
    scheme = _SCHEME.match(url)
    if scheme is not None:
        return name == "src" or scheme.group(1).lower() not in LINK_SCHEMES
    # no scheme: a path.  The renderer writes only "#anchors" and files of the report folder named from the
    # page's folder ("PAPER/forest.svg"): a root-absolute path ("/etc/x.png", file:///etc/x.png opened
    # locally) or a ".." segment ("../../x.png", "a/../../x.png") reaches outside it.  Browsers read "%2e%2e"
    # as "..", so the path is decoded first; the query and fragment are no path.
    path = unquote(re.split(r"[?#]", url, maxsplit=1)[0])
    return path.startswith("/") or ".." in path.split("/")


class _Checker(HTMLParser):
    """Reads a part, notes the first piece of markup outside the allowed set and writes the part again."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)  # text keeps its entities: a raw "<" in it is seen
        self.found: str | None = None
        self.out: list[str] = []

    def _refuse(self, what: str) -> None:
        if self.found is None:
            self.found = what

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], close: str) -> None:
        if tag not in ALLOWED_TAGS:
            self._refuse(f"a <{tag}> tag")
            return
        written = []
        for name, value in attrs:
            if name not in ALLOWED_ATTRIBUTES:
                self._refuse(f"a {name!r} attribute on <{tag}>")
            elif name in ("href", "src") and _bad_url(name, value or ""):
                self._refuse(f"a {name} {(value or '')[:30]!r} on <{tag}>")
            written.append(name if value is None else f'{name}="{html.escape(value, quote=True)}"')
        self.out.append(f"<{' '.join([tag, *written])}{close}>")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, "")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, " /")

    def handle_endtag(self, tag: str) -> None:
        if tag not in ALLOWED_TAGS:
            self._refuse(f"a </{tag}> tag")
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        # the renderer escapes every "<" of its text: a raw one is a tag the parser could not finish
        # (cut off at the end of the part), which would open a tag in the page around it
        if "<" in data:
            self._refuse("an unfinished tag")
        self.out.append(html.escape(data, quote=False))

    def handle_entityref(self, name: str) -> None:
        self.out.append(f"&{name};" if name.isalnum() else html.escape(f"&{name}", quote=False))

    def handle_charref(self, name: str) -> None:
        self.out.append(f"&#{name};" if name.isalnum() else html.escape(f"&#{name}", quote=False))

    def handle_comment(self, data: str) -> None:
        self._refuse("an HTML comment")

    def handle_decl(self, decl: str) -> None:
        self._refuse(f"a declaration <!{decl[:20]}>")

    def handle_pi(self, data: str) -> None:
        self._refuse("a processing instruction")

    def unknown_decl(self, data: str) -> None:
        self._refuse("a CDATA section")


def check_kept_html(text: str) -> tuple[str | None, str | None]:
    """A kept part's HTML written again from what was read, or ``None`` and the first foreign markup in it.

    Parameters
    ----------
    text
        A kept part's page text.

    Returns
    -------
    (str, None) or (None, str)
        The part as the page should show it: every tag, attribute and text
        written again from the parsed pieces, so the browser reads exactly
        what was checked; or what was found that the renderer never writes
        (e.g. ``a <script> tag``), for a one-line message.
    """
    checker = _Checker()
    checker.feed(text)
    checker.close()  # what is left unparsed at the end goes to handle_data
    if checker.found is not None:
        return None, checker.found
    return "".join(checker.out), None
