"""Bad input, sixth pass (issue 43), group B: reproduce's folders, its kept parts and ``--out`` places.

* S2: a folder holding another paper's ``report.tex`` alone (copied for LaTeX, with its figures), or
  its ``report.md`` saved with a byte-order mark, is recognised as that paper's report and refused.
* S3: a kept ``section.json`` whose ``built`` is no build stamp (a newline forging an output line, a
  terminal escape, a list, a megabyte) is unreadable and named, never printed.
* S6: ``certainty``, ``compare`` and ``results export --out`` refuse a name these commands never
  write and treebench keeps (``.json``, ``.joblib``, ``.pkl``, ``.sqlite``, ``.npz``...).
* S7: a board refuses a folder holding a paper's report (reproduce would then refuse that folder).
* S8: an ``index.html`` that only quotes the reproductions' page, or a link in its place, is refused.
* S10: a folder (or special file) where a section's file goes is refused before anything is written.
* M1: a kept part whose claims table is another paper's is named as the culprit, and not shown.
* M3: reproduce's refusal of another experiment's store gives advice reproduce can follow.

Each refusal: its exit status, one line on stderr without traceback, the folder unchanged.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from badinput import GOOD_CONFIG, CliCase, exit_code, run_cli_case, tree_digest
from test_bad_inputs_fourth_pass_a import _one_error, _toy_site
from test_bad_inputs_reports import _edit_json, _reproduce, good_site  # noqa: F401 - the fixture
from test_report_html import workspace  # noqa: F401 - the fixtures the reproduce cases build on

OTHER = r"records paper 903 empty, not 900 toy: that folder holds another paper's report"


def _refused(args: list[str], capsys: pytest.CaptureFixture, code: int = 2) -> str:
    capsys.readouterr()
    got = exit_code(args)
    line = _one_error(capsys)
    assert got == code, line
    return line


def _part(page: str, key: str = "toy") -> str:
    return page[page.index(f'id="paper-{key}"'):].split("</section>")[0]


# --------------------------------------------------------------------------- S2: report.tex, BOM report.md
def _with_bom(text: str) -> str:
    return "\ufeff" + text


@pytest.mark.parametrize("form", ["tex-and-figures", "tex-alone", "md-with-bom", "md-with-bom-and-crlf"])
def test_another_papers_report_tex_or_bom_report_md_is_refused(
        form: str, workspace: Path, monkeypatch, capsys) -> None:  # noqa: F811 - the imported fixture
    site = _toy_site(monkeypatch)
    Path("x1").mkdir()
    name = "report.tex" if form.startswith("tex") else "report.md"
    text = (site / "toy" / name).read_text(encoding="utf-8")
    if name == "report.tex":  # paper 903's LaTeX report (its heading is line 9, after the preamble)
        assert r"\section*{Reproduction of paper 900 (toy)}" in text
        text = text.replace(r"\section*{Reproduction of paper 900 (toy)}",
                            r"\section*{Reproduction of paper 903 (empty)}", 1)
        if form == "tex-and-figures":
            for figure in ("forest.png", "forest.svg"):
                shutil.copy(site / "toy" / figure, Path("x1") / figure)
    else:
        text = _with_bom(text.replace("# Reproduction of paper 900 (toy)", "# Reproduction of paper 903 (empty)", 1))
        if form.endswith("crlf"):
            text = text.replace("\n", "\r\n")
    Path("x1", name).write_bytes(text.encode("utf-8"))
    before = tree_digest(Path("x1"))
    line = _refused(["reproduce", "toy", "--no-run", "--out-dir", "x1"], capsys)
    assert re.search(rf"^error: --out-dir 'x1': 'x1/{re.escape(name)}' {OTHER}", line), line
    assert tree_digest(Path("x1")) == before


@pytest.mark.parametrize("heading", [r"\section*{Reproduction of paper 900 (toy)}", r"\section*{My notes}", ""],
                         ids=["its-own", "hand-written", "none"])
def test_a_report_tex_naming_no_other_paper_is_rewritten(heading: str, workspace: Path, monkeypatch,  # noqa: F811
                                                          capsys) -> None:
    """Control: the paper's own LaTeX report, or one naming no paper, is no evidence: rewritten."""
    _toy_site(monkeypatch)
    Path("x2").mkdir()
    Path("x2/report.tex").write_text("\\documentclass{article}\n\\begin{document}\n" + heading + "\n",
                                     encoding="utf-8")
    capsys.readouterr()
    assert exit_code(["reproduce", "toy", "--no-run", "--out-dir", "x2"]) == 0, capsys.readouterr().err
    assert r"\section*{Reproduction of paper 900 (toy)}" in Path("x2/report.tex").read_text(encoding="utf-8")


def test_the_latex_key_is_read_back_unescaped(tmp_path: Path) -> None:
    from treebench.papers.places import tex_report_paper

    path = tmp_path / "report.tex"
    path.write_text("\\begin{document}\n\\section*{Reproduction of paper 042 (my\\_paper)}\r\n", encoding="utf-8")
    assert tex_report_paper(path) == ("042", "my_paper")


# --------------------------------------------------------------------------- S3: the kept part's build stamp
BUILT = {
    "forged-lines": ("2026-11-29T06:47:39+00:00 by treebench 0.1.1\x1b[2J\x1b[31mALL CLAIMS REPRODUCED\nerror: none",
                     r'\("\\u001b\[2J\\u001b\[31mALL CLAIMS REPRODUCE\.\.\. after the stamp; a stamp is an ISO '
                     r"timestamp"),
    "a-list": (["x", {"a": 1}], r'\(\["x", \{"a": 1\}\]; a stamp is'),
    "a-megabyte": ("x" * 1_000_000, r'\("x{39}\.\.\.; a stamp is'),
    "a-number": (20261129, r"\(20261129; a stamp is"),
    "a-newline-after-a-good-stamp": ("2026-11-29T06:47:39+00:00\n", r'\("\\n" after the stamp; a stamp is'),
}


@pytest.mark.parametrize("name", sorted(BUILT))
def test_a_kept_part_whose_build_stamp_is_no_stamp_is_unreadable(
        name: str, good_site: Path, capsys: pytest.CaptureFixture) -> None:  # noqa: F811 - the imported fixture
    from treebench.papers.reproduce import SECTION

    value, message = BUILT[name]
    _edit_json(good_site / "toy" / SECTION, built=value)
    kept = tree_digest(good_site / "toy")
    code, err, page = _reproduce(capsys)
    assert code == 1
    assert "\x1b" not in err + page and "error: none" not in err.splitlines() and len(err) < 10_000, err[:2000]
    named = [line for line in err.splitlines() if "toy" in line and "kept part" in line]
    assert len(named) == 1, err
    assert re.search(r"the kept part \S+section\.json has a 'built' that is no build stamp " + message, named[0]), \
        named[0][:400]
    assert '<span class="status kept">' not in _part(page)
    assert tree_digest(good_site / "toy") == kept


@pytest.mark.parametrize("value", ["2026-11-29T06:47:39+00:00 by treebench 0.1.1", "2026-11-29T06:47:39+00:00",
                                   "2026-11-29T06:47:39.123456Z by treebench 0.2.0.dev3+gabc1234"])
def test_a_kept_part_with_a_build_stamp_is_shown(value: str, good_site: Path,  # noqa: F811 - the fixture
                                                 capsys: pytest.CaptureFixture) -> None:
    """Control: stamps as ``publish`` writes them (and without the version, or with a development one)."""
    from treebench.papers.reproduce import SECTION

    _edit_json(good_site / "toy" / SECTION, built=value)
    code, err, page = _reproduce(capsys)
    assert '<span class="status kept">' in _part(page), err
    assert f"keeps its last good part, built {value}" in err, err


# --------------------------------------------------------------------------- M1: another paper's HTML kept
def test_a_kept_part_showing_another_papers_claims_is_named_not_the_verdicts(
        good_site: Path, capsys: pytest.CaptureFixture) -> None:  # noqa: F811 - the imported fixture
    from treebench.papers.reproduce import SECTION

    section = good_site / "toy" / SECTION
    html = json.loads(section.read_text(encoding="utf-8"))["html"]
    assert html.count(">cart beats entropy<") >= 1
    # the claims table of another paper (its own claim), under toy's paper/key fields
    _edit_json(section, html=html.replace(">cart beats entropy<", ">Tsallis entropy beats Shannon entropy<"))
    kept = tree_digest(good_site / "toy")
    code, err, page = _reproduce(capsys)
    assert code == 1
    named = [line for line in err.splitlines() if line.startswith("error: toy: unreadable kept file")]
    assert len(named) == 1, err
    assert re.search(r"the kept part \S+section\.json shows a claims table of 1 claim\(s\), none of them this "
                     r"paper's 1 \(first shown: 'Tsallis entropy beats Shannon entropy'\): its page text is "
                     r"another paper's; accepted: a part written by treebench reproduce for 900 toy", named[0]), named
    assert "verdicts.json" not in named[0]  # the verdicts are toy's own: not blamed
    part = _part(page)
    # not shown as toy's last good part: no claims table of its own on toy's box (the problem names it only)
    assert '<span class="status kept">' not in part and 'class="claims"' not in part, part
    assert tree_digest(good_site / "toy") == kept


def test_a_kept_part_showing_another_number_of_claims_is_named(
        good_site: Path, capsys: pytest.CaptureFixture) -> None:  # noqa: F811 - the imported fixture
    from treebench.papers.reproduce import SECTION

    section = good_site / "toy" / SECTION
    html = json.loads(section.read_text(encoding="utf-8"))["html"]
    row = re.search(r'<table class="claims">.*?<tbody>(<tr>.*?</tr>)', html, re.S)
    assert row is not None
    _edit_json(section, html=html[:row.end()] + row.group(1) + html[row.end():])  # the claim shown twice
    code, err, page = _reproduce(capsys)
    assert code == 1
    assert re.search(r"error: toy: unreadable kept file: the kept part \S+section\.json shows 2 claim\(s\) where "
                     r"this paper's inventory has 1: its page text is another version's or another paper's", err), err


# --------------------------------------------------------------------------- S8: index.html quoted or linked
QUOTING = ('<html><body>My notes. Quote: "Paper values are the published ones; every other number was computed by '
           'treebench" <meta name="generator" content="treebench reproduce"></body></html>')
REFUSED_PAGE = r"is no page treebench reproduce wrote, and the reproductions' page would replace it"
LINKED = (r"is a symbolic link, which the reproductions' page would replace by a file; accepted: a folder without an "
          r"index\.html, or one whose index\.html is a reproductions' page as a file \(remove the link, or give "
          r"another --out-dir\)$")


@pytest.mark.parametrize("args", [("reproduce", "toy", "--no-run", "--out-dir", "own/toy"),
                                  ("reproduce", "--all", "--no-run", "--out-dir", "own")], ids=["paper", "all"])
@pytest.mark.parametrize("page", ["quoting", "linked-to-own-page", "linked-to-a-reproductions-page"])
def test_a_quoting_or_linked_index_html_is_refused(page: str, args: tuple[str, ...], workspace: Path,  # noqa: F811
                                                   monkeypatch, capsys) -> None:
    site = _toy_site(monkeypatch)
    Path("own").mkdir()
    if page == "quoting":
        Path("own/index.html").write_text(QUOTING, encoding="utf-8")
    else:
        target = Path("mine.html")
        if page == "linked-to-own-page":
            target.write_text("<html><body>my own front page</body></html>\n", encoding="utf-8")
        else:
            shutil.copy(site / "index.html", target)
        os.symlink(Path("..") / target, "own/index.html")
    before, mine = tree_digest(Path("own")), tree_digest(Path("."), skip_prefix="own")
    line = _refused(list(args), capsys)
    expected = REFUSED_PAGE if page == "quoting" else LINKED
    assert re.search(r"^error: --out-dir 'own(/toy)?': 'own/index\.html' " + expected, line), line
    assert tree_digest(Path("own")) == before and tree_digest(Path("."), skip_prefix="own") == mine


def test_an_older_page_with_its_opening_sentence_in_place_is_still_rewritten(workspace: Path,  # noqa: F811
                                                                              monkeypatch, capsys) -> None:
    """Control: a page without the generator tag (older) whose opening sentence is where the template
    writes it, saved with CRLF line ends, is rewritten."""
    from treebench.papers.places import PAGE_MARKS

    site = _toy_site(monkeypatch)
    page = site / "index.html"
    text = page.read_text(encoding="utf-8").replace(PAGE_MARKS[0] + ">", "")
    page.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    capsys.readouterr()
    assert exit_code(["reproduce", "toy", "--no-run", "--out-dir", "site/toy"]) == 0, capsys.readouterr().err
    assert PAGE_MARKS[0] in page.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- S10: a section's file place
@pytest.mark.parametrize("args,folder", [(("reproduce", "toy", "--no-run", "--out-dir", "x20"), "x20"),
                                         (("reproduce", "--all", "--no-run", "--out-dir", "site"), "site/toy")],
                         ids=["paper", "all"])
@pytest.mark.parametrize("name", ["q_sweep.json", "glass_q_sweep.svg", "random_trees.csv"])
def test_a_folder_where_a_sections_file_goes_is_refused_before_writing(
        name: str, args: tuple[str, ...], folder: str, workspace: Path, monkeypatch, capsys) -> None:  # noqa: F811
    _toy_site(monkeypatch)
    Path(folder, name).mkdir(parents=True)
    before = tree_digest(Path("."))
    line = _refused(list(args), capsys)
    assert re.search(rf"^error: --out-dir '{args[-1]}': '{folder}/{re.escape(name)}' is a folder, not a file; "
                     r"accepted: a file path in a writable folder$", line), line
    assert tree_digest(Path(".")) == before


def test_a_report_folder_with_its_own_subfolders_is_still_written(workspace: Path, monkeypatch,  # noqa: F811
                                                                  capsys) -> None:
    """Control: a subfolder named like no file the report writes (a user's notes) is left alone."""
    _toy_site(monkeypatch)
    Path("x21/notes").mkdir(parents=True)
    Path("x21/notes.d").mkdir()
    capsys.readouterr()
    assert exit_code(["reproduce", "toy", "--no-run", "--out-dir", "x21"]) == 0, capsys.readouterr().err
    assert Path("x21/report.md").is_file() and Path("x21/notes").is_dir()


# --------------------------------------------------------------------------- M3: advice reproduce can follow
def test_another_experiments_store_is_refused_with_advice_reproduce_can_follow(workspace: Path,  # noqa: F811
                                                                               monkeypatch, capsys) -> None:
    _toy_site(monkeypatch)
    shutil.copy("results/legacy-store.sqlite", "results/empty-store.sqlite")  # experiment legacy-store, not empty-store
    before = tree_digest(Path("."))
    line = _refused(["reproduce", "empty", "--no-run", "--out-dir", "nd1/empty"], capsys)
    assert re.search(r"^error: results store 'results/empty-store\.sqlite' holds experiment 'legacy-store', not "
                     r"'empty-store': a store belongs to one experiment; reproduce has no --store: move that file "
                     r"away \(each paper's store is where its config names it; reproduce then starts a new one "
                     r"there\)$", line), line
    assert "--store (or" not in line and tree_digest(Path(".")) == before


@pytest.mark.parametrize("runner,expected", [
    ("results store 'x' is not a regular file; use --store (or the config's store:) to choose another file",
     "results store 'x' is not a regular file; reproduce has no --store: move that file away"),
    ("results store 'x' is a FIFO; move it away, or use --store (or the config's store:) to choose another file",
     "results store 'x' is a FIFO; reproduce has no --store: move that file away"),
    ("cannot create results store 'x': folder 'r' is not writable; use --store (or the config's store:) to choose "
     "another file", "cannot create results store 'x': folder 'r' is not writable; reproduce has no --store: make "
                     "that place writable"),
    ("results store 'x' is being written by another treebench run; wait for it or use --store to write elsewhere",
     "results store 'x' is being written by another treebench run; wait for it to finish"),
])
def test_reproduce_rewords_every_runner_advice_naming_store(runner: str, expected: str) -> None:
    from treebench.papers.reproduce import reproduce_advice

    assert reproduce_advice(runner).startswith(expected) and "use --store" not in reproduce_advice(runner)


# --------------------------------------------------------------------------- S6: names --out never writes
_BUILT_STORE: list[Path] = []


def _store(folder: Path) -> None:
    """A finished results store ``s.sqlite`` in ``folder`` (run once per test process, then copied)."""
    if not _BUILT_STORE:
        import tempfile

        home = Path(tempfile.mkdtemp(prefix="sixth-b-"))
        (home / "c.yaml").write_text(GOOD_CONFIG, encoding="utf-8")
        assert exit_code(["run", str(home / "c.yaml"), "--quiet", "--jobs", "1", "--store", str(home / "s.sqlite")]) == 0
        _BUILT_STORE.append(home / "s.sqlite")
    shutil.copy(_BUILT_STORE[0], folder / "s.sqlite")


KEPT_PART = '{"built": "2026-11-29T06:47:39+00:00", "paper": "004", "key": "belief", "html": "<p>x</p>"}'
NEVER = r"is named like {kind}, which this command never writes \(it would replace one\); accepted: a file path in "
NAMED = {"section.json": r"a JSON file \(a paper's kept section\.json or verdicts\.json, say\)",
         "verdicts.json": r"a JSON file \(a paper.s kept section\.json or verdicts\.json, say\)",
         "sk.joblib": r"a fitted model's file \(joblib\)",
         "m.pkl": r"a pickled model's file", "m.pickle": r"a pickled model's file",
         "new.sqlite": r"a results store \(SQLite\)", "p.npz": r"a kept predictions file \(NumPy\)",
         "a.npy": r"a NumPy array file", "x.db": r"a database file"}
S6_CASES = [
    *(CliCase(f"certainty-out-{name}", ("certainty", "iris", "--out", f"rep/{name}"),
              rf"^error: --out 'rep/{re.escape(name)}' " + NEVER.format(kind=kind),
              files={f"rep/{name}": KEPT_PART}) for name, kind in NAMED.items()),
    CliCase("certainty-out-a-new-json", ("certainty", "iris", "--out", "new.json"),
            r"^error: --out 'new\.json' is named like a JSON file", files={}, unchanged=("new.json",)),
    *(CliCase(f"{command}-out-{name}", (*args, "--out", f"rep/{name}"),
              rf"^error: --out 'rep/{re.escape(name)}' " + NEVER.format(kind=NAMED[name]),
              files={"store": _store, f"rep/{name}": KEPT_PART}, unchanged=(f"rep/{name}", "s.sqlite"))
      for command, args in (("compare", ("compare", "s.sqlite")), ("export", ("results", "export", "s.sqlite")))
      for name in ("section.json", "verdicts.json", "sk.joblib")),
]


@pytest.mark.parametrize("case", S6_CASES, ids=[c.id for c in S6_CASES])
def test_an_out_named_like_a_kept_file_is_refused(case: CliCase, tmp_path: Path, capsys) -> None:
    run_cli_case(case, tmp_path, capsys)


def test_an_out_with_a_suffix_of_no_kept_file_is_still_written(tmp_path: Path, monkeypatch, capsys) -> None:
    """Control: a name of the command's format, or with a suffix naming none (``.txt``), is written."""
    monkeypatch.chdir(tmp_path)
    for out in ("t.md", "t.txt", "t"):
        capsys.readouterr()
        assert exit_code(["certainty", "iris", "--out", out]) == 0, capsys.readouterr().err
        assert Path(out).is_file()


# --------------------------------------------------------------------------- S7: a board in a paper's folder
@pytest.mark.parametrize("kept", ["report.md", "section.json", "verdicts.json", "report.tex"])
def test_a_board_refuses_a_papers_report_folder(kept: str, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    folder = Path("results/belief")
    folder.mkdir(parents=True)
    text = {"report.md": "# Reproduction of paper 004 (belief)\n\ntext\n", "section.json": KEPT_PART,
            "verdicts.json": '{"paper": "004", "key": "belief", "claims": []}',
            "report.tex": "\\documentclass{article}\n\\begin{document}\n\\section*{Reproduction of paper 004 (belief)}\n"}
    (folder / kept).write_text(text[kept], encoding="utf-8")
    before = tree_digest(folder)
    line = _refused(["leaderboard", "--folds", "3", "-q", "-j", "1", "--datasets", "iris", "--criteria",
                     "entropy,gini", "--out", "results/belief"], capsys)
    assert re.search(rf"^error: --out 'results/belief' holds the report of paper 004 belief \({re.escape(kept)}, "
                     r"written by treebench reproduce\): a board there would make it a leaderboard's folder, which "
                     r"reproduce then refuses; accepted: a new or empty folder, or a leaderboard's own folder$",
                     line), line
    assert tree_digest(folder) == before


def test_a_hand_written_report_names_no_paper(tmp_path: Path) -> None:
    """Control: files that name no paper (a hand-written report.md, figures) do not make a paper's folder."""
    from treebench.papers.places import papers_named

    (tmp_path / "report.md").write_text("# My report\n", encoding="utf-8")
    (tmp_path / "forest.png").write_bytes(b"\x89PNG\r\n")
    (tmp_path / "section.json").write_text('{"html": "<p>x</p>"}', encoding="utf-8")
    assert papers_named(tmp_path) == []
