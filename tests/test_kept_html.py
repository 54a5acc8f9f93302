"""The check of a kept part's HTML before it goes onto the page again (issue 43 F8)."""

from __future__ import annotations

import pytest

from treebench.report.kept_html import check_kept_html
from treebench.report.md_html import markdown_to_html

#: Markdown using what the reports use: headings, pipe tables, links, inline tags, code, lists, quotes.
REPORT_MARKDOWN = """\
## Cells

| dataset | ours | paper |
|:--|--:|:-:|
| iris | <u>94.0</u> | 93.3 |

A [link](https://example.org/a?b=1&c=2) and a [relative one](report.md#cells), `code <x>`, **bold**,
*em*, H<sub>2</sub>O, x<sup>2</sup>.<br>

- one
- two

1. first
2. second

> a quote with 3 < 4 & 5 > 2

```
pre <b>not a tag</b>
```
"""


def test_what_the_renderer_writes_passes_and_reads_the_same() -> None:
    html = markdown_to_html(REPORT_MARKDOWN)
    html += ('<figure><img class="figure" src="data:image/png;base64,iVBORw0KGgo=" alt="Fig. 1: it&#39;s"><figcaption>'
             'Fig. 1</figcaption></figure><details open><summary>why</summary><p class="note">x</p></details>'
             '<table class="cells"><tr><td class="agree-yes" title="a &quot;b&quot;" colspan="2">1</td></tr></table>')
    shown, problem = check_kept_html(html)
    assert problem is None, problem
    again, problem = check_kept_html(shown)  # written again, it reads the same
    assert problem is None and again == shown
    assert "&lt;x&gt;" in shown and "3 &lt; 4 &amp; 5" in shown  # text stays text


@pytest.mark.parametrize("markup,found", [
    ("<script>alert(1)</script>", "a <script> tag"),
    ("<SCRIPT SRC=x></SCRIPT>", "a <script> tag"),
    ("<iframe src=x></iframe>", "a <iframe> tag"),
    ("<svg onload=alert(1)>", "a <svg> tag"),
    ("<style>p{}</style>", "a <style> tag"),
    ('<p onclick="x">a</p>', "a 'onclick' attribute on <p>"),
    ('<img src="x.png" alt="" onerror="alert(1)">', "a 'onerror' attribute on <img>"),
    ('<p style="background:url(x)">a</p>', "a 'style' attribute on <p>"),
    ('<a href="javascript:alert(1)">x</a>', "a href 'javascript:alert(1)' on <a>"),
    ('<a href="jav&#x61;script:alert(1)">x</a>', "a href 'javascript:alert(1)' on <a>"),
    ('<a href="java\tscript:alert(1)">x</a>', "a href 'java\\tscript:alert(1)' on <a>"),
    ('<a href="data:text/html,x">x</a>', "a href 'data:text/html,x' on <a>"),
    ('<img src="https://tracker.example/x.png" alt="">', "a src 'https://tracker.example/x.png' on <img>"),
    ('<img src="data:text/html;base64,AA" alt="">', "a src 'data:text/html;base64,AA' on <img>"),
    # issue 43, third pass: another machine named without a scheme (protocol-relative, a Windows share)
    ('<img src="//evil.example/t.png" alt="">', "a src '//evil.example/t.png' on <img>"),
    ('<img src="/\\evil.example/t.png" alt="">', "a src '/\\\\evil.example/t.png' on <img>"),
    ('<a href="//evil.example/">x</a>', "a href '//evil.example/' on <a>"),
    ("<!-- hidden -->", "an HTML comment"),
    ("<p>x</p><img src=x onerror=alert(1) ", "an unfinished tag"),
    ("<p>x</p><", "an unfinished tag"),
])
def test_markup_the_renderer_never_writes_is_named(markup: str, found: str) -> None:
    shown, problem = check_kept_html("<h3>Claims at a glance</h3>" + markup)
    assert shown is None and problem == found


def test_attributes_are_written_again_quoted() -> None:
    # an unquoted value is one value (as a browser reads it), written back quoted and escaped
    shown, problem = check_kept_html('<img src=x/y.png alt=a"b>')
    assert problem is None and shown == '<img src="x/y.png" alt="a&quot;b">'
