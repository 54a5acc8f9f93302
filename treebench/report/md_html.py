"""The Markdown of a report's sections as HTML, through markdown-it-py with raw HTML off.

markdown-it parses CommonMark plus pipe tables; raw HTML in the text is
escaped, never passed through.  On top of the parser this module adds only
what the report page needs, as markdown-it rules:

- the short list of inline tags of :data:`INLINE_TAGS` (``<u>`` is how the
  comparison tables underline), recognised only in pairs and without
  attributes; an unpaired one stays escaped text;
- link targets rewritten by the caller (relative to the page) and refused
  unless relative, ``http(s)`` or ``mailto`` (the label alone is kept);
- images rendered by the caller (e.g. inlined from the report folder); an
  image alone in its paragraph becomes a ``<figure>`` captioned by its alt text;
- headings moved down (the page has its own ``<h1>`` and ``<h2>``) and table
  alignment given as the page's ``r``/``c`` classes.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

#: Inline tags let through from Markdown text, in pairs and without attributes; ``<br>`` alone.
INLINE_TAGS = ("u", "b", "i", "em", "strong", "sub", "sup", "code", "s")

#: ``image(src, alt) -> html``: how a caller renders an image.
ImageRenderer = Callable[[str, str], str]
#: ``link(href) -> href``: how a caller rewrites a link target.
LinkRewriter = Callable[[str], str]

_TAG = re.compile(r"<(/?)(" + "|".join(INLINE_TAGS) + r")>|<br\s*/?>", re.IGNORECASE)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_OPEN, _CLOSE, _BR = "allowed_tag_open", "allowed_tag_close", "allowed_br"


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def default_image(src: str, alt: str) -> str:
    """An ``<img>`` of a relative file below the page's folder; anything else is named, never loaded."""
    if _SCHEME.match(src) or src.startswith(("/", "\\")) or ".." in re.split(r"[/\\]", src):
        return f'<span class="missing">[image not loaded: {_esc(src)}]</span>'
    return f'<img src="{_esc(src)}" alt="{_esc(alt)}">'


def safe_href(href: str) -> str:
    """A link target, or ``""`` for schemes a report has no business linking (``javascript:`` ...)."""
    scheme = _SCHEME.match(href)
    if scheme and scheme.group(1).lower() not in ("http", "https", "mailto"):
        return ""
    return href


# -- rules -------------------------------------------------------------------------------------------
def _allowed_tag(state: StateInline, silent: bool) -> bool:
    """Inline rule: one of :data:`INLINE_TAGS` (open or close) or ``<br>``, as a token of its own.

    The tokens are pushed flat (nesting 0, so markdown-it's emphasis is not cut
    by them); :func:`_balance` pairs them once the line is parsed.
    """
    if state.src[state.pos] != "<":
        return False
    m = _TAG.match(state.src, state.pos)
    if m is None:
        return False
    if not silent:
        kind = _BR if m.group(2) is None else (_CLOSE if m.group(1) else _OPEN)
        token = state.push(kind, "br" if kind == _BR else m.group(2).lower(), 0)
        token.markup = m.group(0)
    state.pos = m.end()
    return True


def _as_text(token: Token) -> None:
    """Turn an unpaired tag token back into the text it was (escaped when rendered)."""
    token.type, token.tag, token.content = "text", "", token.markup


def _balance(children: list[Token]) -> None:
    """Pair the allowed tags with each other inside markdown-it's own elements; the rest become text."""
    stack: list[Token] = []
    for token in children:
        if token.type == _OPEN or token.nesting == 1:
            stack.append(token)
        elif token.type == _CLOSE:
            if stack and stack[-1].type == _OPEN and stack[-1].tag == token.tag:
                stack.pop()
            else:
                _as_text(token)
        elif token.nesting == -1:
            # an allowed tag left open inside this element cannot close outside it
            while stack and stack[-1].type == _OPEN:
                _as_text(stack.pop())
            if stack:
                stack.pop()
    for token in stack:
        if token.type == _OPEN:
            _as_text(token)


def _links(children: list[Token], link: LinkRewriter) -> None:
    """Rewrite each link's target; a refused one keeps only its label."""
    dropping = False
    for token in children:
        if token.type == "link_open":
            href = safe_href(link(str(token.attrGet("href") or "")))
            dropping = not href
            if dropping:
                token.type = "dropped_link_open"
            else:
                token.attrSet("href", href)
        elif token.type == "link_close" and dropping:
            token.type, dropping = "dropped_link_close", False


def _page_rules(state: StateCore) -> None:
    """Core rule after inline parsing: tags paired, links checked, headings moved, figures, table classes."""
    env = state.env
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type == "inline" and token.children:
            _balance(token.children)
            _links(token.children, env.get("link", str))
        elif token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + env.get('heading_offset', 0))}"
        elif token.type in ("th_open", "td_open"):
            style = str(token.attrGet("style") or "")
            if token.attrs.pop("style", None) is not None and style != "text-align:left":
                token.attrSet("class", "c" if "center" in style else "r")
        elif token.type == "table_open":
            token.attrSet("class", "md")
        elif (token.type == "paragraph_open" and not token.hidden and i + 2 < len(tokens)
              and [c.type for c in tokens[i + 1].children or []] == ["image"]):
            token.tag = tokens[i + 2].tag = "figure"
            tokens[i + 1].children[0].meta["figure"] = True


def _render_image(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    out = env.get("image", default_image)(unquote(str(token.attrGet("src") or "")), alt)
    if token.meta.get("figure") and alt:
        out += f"<figcaption>{_esc(alt)}</figcaption>"
    return out


def _render_tag(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    return {_OPEN: f"<{token.tag}>", _CLOSE: f"</{token.tag}>"}.get(token.type, "<br>")


def _nothing(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
    return ""


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    # every target reaches _links, which refuses unsafe ones and keeps their label (markdown-it's own
    # check would print a refused link's source text, target included)
    md.validateLink = lambda url: True
    md.inline.ruler.before("html_inline", "allowed_tag", _allowed_tag)
    md.core.ruler.after("inline", "page_rules", _page_rules)
    md.add_render_rule("image", _render_image)
    for name in (_OPEN, _CLOSE, _BR):
        md.add_render_rule(name, _render_tag)
    for name in ("dropped_link_open", "dropped_link_close"):
        md.add_render_rule(name, _nothing)
    return md


_MD = _parser()


# -- the two entry points ------------------------------------------------------------------------------
def markdown_to_html(source: str | Sequence[str], *, image: ImageRenderer = default_image,
                     link: LinkRewriter = str, heading_offset: int = 2) -> str:
    """Convert the Markdown a report section holds into HTML.

    Parameters
    ----------
    source
        The Markdown, as text or as lines.
    image
        ``image(src, alt) -> html``: how to render an image (e.g. inline its file).
    link
        Rewrites a link target (e.g. relative to the page's folder).
    heading_offset
        Added to a heading's level (``#`` becomes ``<h3>`` by default); at most ``<h6>``.
    """
    text = source if isinstance(source, str) else "\n".join(str(s) for s in source)
    return _MD.render(text, {"image": image, "link": link, "heading_offset": heading_offset}).strip()


def inline_html(text: str, image: ImageRenderer = default_image, link: LinkRewriter = str) -> str:
    """One line of Markdown inline syntax (code, images, links, emphasis, escapes) as HTML."""
    return _MD.renderInline(text, {"image": image, "link": link})
