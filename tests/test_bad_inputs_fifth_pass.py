"""Bad input, fifth pass (issue 43): what ``reproduce --out-dir`` would replace without a word.

* A folder holding another paper's ``report.md`` (and ``report.tex``) but none of its JSON parts is
  recognised by the report's first line, ``# Reproduction of paper NNN (KEY)``, and refused as a folder
  holding that paper's ``section.json`` or ``verdicts.json`` is (F1).
* An ``index.html`` that no ``reproduce`` wrote (a site's own front page) is refused, single paper and
  ``--all``, as the leaderboard refuses a page that is not its own (F5); a page ``reproduce`` wrote,
  with the generator tag or (older pages) without it, is still rewritten.

The exported-frame findings (F2 status, F3 error against accuracy) and the kept count above any
store (F4) are cases of ``tests/test_bad_inputs_fourth_pass_c.py``'s tables.

Each refusal: exit status 2, one line on stderr without traceback, the folder unchanged.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from badinput import exit_code, tree_digest
from test_bad_inputs_fourth_pass_a import _one_error, _toy_site
from test_report_html import workspace  # noqa: F401 - the fixture the reproduce cases build on

REFUSED_PAGE = (r"is no page treebench reproduce wrote, and the reproductions' page would replace it; accepted: a "
                r"folder without an index\.html, or one whose index\.html is a reproductions' page \(move the file, "
                r"or give another --out-dir\)$")


def _refused(args: list[str], capsys: pytest.CaptureFixture) -> str:
    capsys.readouterr()
    code = exit_code(args)
    line = _one_error(capsys)
    assert code == 2, line
    return line


@pytest.mark.parametrize("kept", [("report.md", "report.tex"), ("report.md",)], ids=["md-and-tex", "md-alone"])
def test_a_folder_holding_only_another_papers_report_is_refused(
        kept: tuple[str, ...], workspace: Path, monkeypatch, capsys) -> None:  # noqa: F811 - the imported fixture
    site = _toy_site(monkeypatch)
    Path("x2").mkdir()
    for name in kept:  # paper 900's report copied without its JSON parts
        Path("x2", name).write_bytes((site / "toy" / name).read_bytes())
    Path("x2/report.md").write_text(Path("x2/report.md").read_text(encoding="utf-8").replace(
        "# Reproduction of paper 900 (toy)", "# Reproduction of paper 903 (empty)", 1), encoding="utf-8")
    before = tree_digest(Path("x2"))
    line = _refused(["reproduce", "toy", "--no-run", "--out-dir", "x2"], capsys)
    assert re.search(r"^error: --out-dir 'x2': 'x2/report\.md' records paper 903 empty, not 900 toy: that folder "
                     r"holds another paper's report, which writing toy's there would replace", line), line
    assert tree_digest(Path("x2")) == before


@pytest.mark.parametrize("first_line", ["# My notes on paper 900", "", "# Reproduction of paper 900 (toy)"],
                         ids=["hand-written", "empty", "its-own"])
def test_a_report_md_that_names_no_other_paper_is_no_evidence(
        first_line: str, workspace: Path, monkeypatch, capsys) -> None:  # noqa: F811 - the imported fixture
    """Control: a report.md that is the paper's own, or names no paper in the report's form, is rewritten."""
    _toy_site(monkeypatch)
    Path("x3").mkdir()
    Path("x3/report.md").write_text(first_line + "\nsome text\n", encoding="utf-8")
    capsys.readouterr()
    assert exit_code(["reproduce", "toy", "--no-run", "--out-dir", "x3"]) == 0, capsys.readouterr().err
    assert Path("x3/report.md").read_text(encoding="utf-8").startswith("# Reproduction of paper 900 (toy)")


@pytest.mark.parametrize("args", [("reproduce", "toy", "--no-run", "--out-dir", "own/toy"),
                                  ("reproduce", "--all", "--no-run", "--out-dir", "own")],
                         ids=["paper-beside-a-foreign-page", "all-over-a-foreign-page"])
def test_an_index_html_that_reproduce_did_not_write_is_refused(
        args: tuple[str, ...], workspace: Path, monkeypatch, capsys) -> None:  # noqa: F811 - the imported fixture
    _toy_site(monkeypatch)
    Path("own").mkdir()
    Path("own/index.html").write_text("<html><body>my own site's front page</body></html>\n", encoding="utf-8")
    before = tree_digest(Path("own"))
    line = _refused(list(args), capsys)
    assert re.search(r"^error: --out-dir 'own(/toy)?': 'own/index\.html' " + REFUSED_PAGE, line), line
    assert tree_digest(Path("own")) == before


@pytest.mark.parametrize("tagged", [True, False], ids=["with-the-generator-tag", "an-older-page-without-it"])
def test_a_page_reproduce_wrote_is_rewritten(tagged: bool, workspace: Path, monkeypatch,  # noqa: F811
                                             capsys) -> None:
    """Control: the reproductions' own page, today's (tagged) or an older one (recognised by its opening
    sentence), is rewritten, by one paper and by ``--all``."""
    from treebench.papers.places import PAGE_MARKS

    site = _toy_site(monkeypatch)
    page = site / "index.html"
    for args, expected in ((["reproduce", "toy", "--no-run", "--out-dir", "site/toy"], 0),
                           # the toy catalogue's paper 'broken' fails its report: exit 1, named, the page written
                           (["reproduce", "--all", "--no-run", "--out-dir", "site"], 1)):
        text = page.read_text(encoding="utf-8")
        assert PAGE_MARKS[0] in text
        if not tagged:
            page.write_text(text.replace(PAGE_MARKS[0], '<meta name="x"'), encoding="utf-8")
        capsys.readouterr()
        code = exit_code(args)
        err = capsys.readouterr().err
        assert code == expected and "index.html" not in err.replace("see site/index.html", ""), err
        assert PAGE_MARKS[0] in page.read_text(encoding="utf-8")  # rewritten
