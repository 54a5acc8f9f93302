"""Bad input, fourth pass, group C (issue 43): kept report parts, exported frames and ``plot cd --alpha``.

* A kept ``section.json`` whose HTML names a file outside the report folder (a root-absolute
  ``/evil/etc.png``, a ``..`` segment, ``%2e%2e``) is refused as markup the renderer never writes (S3).
* A ``verdicts.json`` forged together with the digest ``section.json`` records of it is held against
  the grades the kept part's claims table shows; a consistent forgery of both files cannot be told
  from the real ones (no secret signs them) and is counted, but the page then agrees with itself (S4).
* Impossible trial counts of a kept part (below 0, not whole, more ok than trials) make it unreadable (S5).
* An exported frame (``.csv``/``.parquet``) given to ``compare`` or ``plot`` holding rows no store could
  hold (a fraction outside [0, 1], text in a numeric column, a finished trial without its accuracy, a
  negative count, a fold outside its protocol, a trial twice, an export of predictions) is refused in
  one line naming the file, row and column (S8).
* ``plot cd --alpha`` outside (0, 1), or nan, is refused as ``compare`` refuses it; ``compare --test
  mcnemar`` checks it too (S12).

Each refusal: exit status, one line on stderr without traceback, the case folder unchanged.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from badinput import CliCase, exit_code, run_cli_case, tree_digest
from test_bad_inputs_reports import _edit_html, _edit_json, _regrade, _reproduce, good_site  # noqa: F401
from test_report_html import parse, workspace  # noqa: F401 - the fixtures good_site builds on


def _part(page: str, key: str = "toy") -> str:
    return page[page.index(f'id="paper-{key}"'):].split("</section>")[0]


def _headline(page: str) -> str:
    return " ".join(parse(page[page.index('id="verdicts"'):].split("</section>")[0]).text)


# --------------------------------------------------------------------------- S3: paths out of the report folder
OUTSIDE = {
    "root-absolute-image": ('<img src="/evil/etc.png" alt="x">', r"a src '/evil/etc\.png' on <img>"),
    "parent-image": ('<img src="../../../../evil/etc.png" alt="x">', r"a src '\.\./\.\./\.\./\.\./evil/etc\.png'"),
    "parent-inside-a-path": ('<img src="results/../../../../tmp/evil.png" alt="x">', r"a src 'results/\.\./"),
    "root-absolute-link": ('<a href="/etc/passwd">x</a>', r"a href '/etc/passwd' on <a>"),
    "parent-link": ('<a href="toy/../../secret.html">x</a>', r"a href 'toy/\.\./\.\./secret\.html' on <a>"),
    "percent-encoded-parent": ('<img src="%2e%2e/x.png" alt="x">', r"a src '%2e%2e/x\.png' on <img>"),
    "entity-encoded-root": ('<img src="&#47;evil.png" alt="x">', r"a src '/evil\.png' on <img>"),
}


@pytest.mark.parametrize("name", sorted(OUTSIDE))
def test_a_kept_part_naming_a_file_outside_the_report_folder_is_refused(
        name: str, good_site: Path, capsys: pytest.CaptureFixture) -> None:  # noqa: F811 - the imported fixture
    from treebench.papers.reproduce import SECTION

    markup, found = OUTSIDE[name]
    _edit_html(good_site / "toy" / SECTION, markup)
    kept = tree_digest(good_site / "toy")
    code, err, page = _reproduce(capsys)
    assert code == 1
    named = [line for line in err.splitlines() if "toy" in line and "kept part" in line]
    assert len(named) == 1, err
    assert re.search(r"the kept part \S+section\.json holds markup the report never writes \(" + found, named[0]), named
    assert "accepted: a part written by treebench reproduce" in named[0]
    assert '<span class="status kept">' not in _part(page)
    assert not re.search(r'(src|href)="(/evil|/etc|\.\./|results/\.\.|toy/\.\.|%2e)', page)  # never on the page
    assert "not counted: toy:" in _headline(page)
    assert tree_digest(good_site / "toy") == kept


def test_relative_files_anchors_and_web_links_in_a_kept_part_are_kept(
        good_site: Path, capsys: pytest.CaptureFixture) -> None:  # noqa: F811 - the imported fixture
    """Control: what the renderer writes (a file of the paper's folder named from the page, an anchor, a
    web link whose path has a ``..``: that is the web server's business, not a file of ours) stays."""
    from treebench.papers.reproduce import SECTION

    _edit_html(good_site / "toy" / SECTION, '<img src="toy/leaves.png" alt="x"><a href="#verdicts">v</a>'
                                            '<a href="https://example.org/a/../b">w</a><a href="toy/report.md">r</a>')
    code, err, page = _reproduce(capsys)
    part = _part(page)
    assert '<span class="status kept">' in part, err
    assert 'src="toy/leaves.png"' in part and 'href="https://example.org/a/../b"' in part
    assert "not counted: toy" not in _headline(page)


@pytest.mark.parametrize("url, bad", [
    ("/x.png", True), ("../x.png", True), ("a/../../x.png", True), ("a/%2E%2E/x.png", True), ("..", True),
    ("x.png", False), ("toy/x.png", False), ("./x.png", False), ("a..b.png", False), ("x.png?p=../y", False),
    ("#anchor", False), ("data:image/png;base64,AA==", False),
])
def test_the_path_rule_of_kept_images(url: str, bad: bool) -> None:
    from treebench.report.kept_html import check_kept_html

    shown, found = check_kept_html(f'<img src="{url}" alt="x">')
    assert (found is not None) == bad, (url, found)
    assert (shown is None) == bad


# --------------------------------------------------------------------------- S4: forged verdicts with their digest
def _other_grade(path: Path) -> str:
    current = json.loads(path.read_text(encoding="utf-8"))["claims"][0]["verdict"]
    return "reproduced" if current != "reproduced" else "not reproduced"


def _sign(verdicts: Path) -> None:
    """Record the SHA-256 of ``verdicts`` in the kept part beside it, as a forger of both files would."""
    _edit_json(verdicts.parent / "section.json", verdicts_sha256=hashlib.sha256(verdicts.read_bytes()).hexdigest())


def test_verdicts_forged_with_their_digest_are_held_against_the_part(
        good_site: Path, capsys: pytest.CaptureFixture) -> None:  # noqa: F811 - the imported fixture
    verdicts = good_site / "toy" / "verdicts.json"
    grade = _other_grade(verdicts)
    _regrade(verdicts, grade)
    _sign(verdicts)  # the digest check alone is passed now
    kept = tree_digest(good_site / "toy")
    code, err, page = _reproduce(capsys)
    assert code == 1
    named = [line for line in err.splitlines() if "kept verdicts" in line]
    assert len(named) == 1 and re.search(
        r"the kept verdicts \S+verdicts\.json are not those the kept part shows \(they grade claim 1 "
        + re.escape(repr(grade)) + r" where the kept part beside them shows '[^']+'\); accepted: the "
        r"verdicts\.json written with section\.json", named[0]), err
    headline = _headline(page)
    assert "not counted: toy:" in headline and "claims recomputed: none" in headline, headline
    assert '<span class="status kept">' in _part(page)  # the part itself is still shown
    assert tree_digest(good_site / "toy") == kept


def test_kept_verdicts_agreeing_with_their_part_are_counted(
        good_site: Path, capsys: pytest.CaptureFixture) -> None:  # noqa: F811 - the imported fixture
    """Control: untouched kept files are counted, with the part's grade."""
    shown = json.loads((good_site / "toy" / "verdicts.json").read_text(encoding="utf-8"))["claims"][0]["verdict"]
    code, err, page = _reproduce(capsys)
    headline = _headline(page)
    assert "not counted: toy" not in headline and "claims recomputed: none" not in headline, (headline, err)
    assert shown.split(" (")[0] in headline


def test_a_consistent_forgery_of_both_files_is_the_documented_limit(
        good_site: Path, capsys: pytest.CaptureFixture) -> None:  # noqa: F811 - the imported fixture
    """No secret signs the kept files: a forger who rewrites the part's grade, the verdicts and the digest
    alike is counted (docs/reports.md says so); what holds is that the page never disagrees with itself."""
    verdicts, section = good_site / "toy" / "verdicts.json", good_site / "toy" / "section.json"
    real = json.loads(verdicts.read_text(encoding="utf-8"))["claims"][0]["verdict"]
    grade = _other_grade(verdicts)
    html = json.loads(section.read_text(encoding="utf-8"))["html"]
    cell = re.search(r"(<table class=\"claims\">.*?<tbody><tr>(?:<td[^>]*>.*?</td>)*?<td class=\"[^\"]*\">)"
                     + re.escape(real) + "(</td>)", html, re.S)
    assert cell is not None, "the part's claims table shows the grade in a verdict cell"
    _edit_json(section, html=html[:cell.start()] + cell.group(1) + grade + cell.group(2) + html[cell.end():])
    _regrade(verdicts, grade)
    _sign(verdicts)
    code, err, page = _reproduce(capsys)
    headline = _headline(page)
    assert "not counted: toy" not in headline and grade in headline, headline
    assert grade in " ".join(parse(_part(page)).text)  # the box shows the grade the headline counts


# --------------------------------------------------------------------------- S5: impossible kept trial counts
COUNTS = {
    "negative-trials": ({"n_trials": -5, "n_ok": -7}, r"has an impossible 'n_trials' of -5 \(a count of trials is a "
                                                      r"whole number from 0 to 9223372036854775807, the most rows a "
                                                      r"results store can hold\)"),
    # fifth pass: more rows than an SQLite table can hold (its rowid is 64-bit)
    "trials-beyond-any-store": ({"n_trials": 10**30, "n_ok": 10**30},
                                r"has an impossible 'n_trials' of 1000000000000000000000000000000 "),
    "ok-just-beyond-any-store": ({"n_ok": 2**63}, r"has an impossible 'n_ok' of 9223372036854775808 "),
    "negative-ok": ({"n_ok": -1}, r"has an impossible 'n_ok' of -1"),
    "more-ok-than-trials": ({"n_trials": 6, "n_ok": 1000000}, r"counts more trials ok than it has \(n_ok 1000000 > "
                                                             r"n_trials 6\)"),
    "fractional-trials": ({"n_trials": 6.5}, r"has an impossible 'n_trials' of 6\.5"),
    "trials-as-text": ({"n_trials": "990"}, r"has an impossible 'n_trials' of \"990\""),
    "trials-as-a-flag": ({"n_trials": True}, r"has an impossible 'n_trials' of true"),
    "store-not-text": ({"store": ["a"]}, r"has a 'store' that is not text"),
}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_impossible_kept_trial_counts_make_the_part_unreadable(
        name: str, good_site: Path, capsys: pytest.CaptureFixture) -> None:  # noqa: F811 - the imported fixture
    from treebench.papers.reproduce import SECTION

    fields, message = COUNTS[name]
    _edit_json(good_site / "toy" / SECTION, **fields)
    kept = tree_digest(good_site / "toy")
    code, err, page = _reproduce(capsys)
    assert code == 1
    named = [line for line in err.splitlines() if "toy" in line and "kept part" in line]
    assert len(named) == 1 and re.search(r"the kept part \S+section\.json " + message, named[0]), err
    assert "accepted: a part written by treebench reproduce" in named[0]
    assert '<span class="status kept">' not in _part(page)
    for value in fields.values():  # none of its numbers in the provenance table
        assert f">{value} (" not in page and f"({value} ok)" not in page
    assert "not counted: toy:" in _headline(page)
    assert tree_digest(good_site / "toy") == kept


def test_possible_kept_trial_counts_are_shown(good_site: Path, capsys: pytest.CaptureFixture) -> None:  # noqa: F811
    """Control: counts a store could hold (every trial ok, or none) are the provenance table's."""
    from treebench.papers.reproduce import SECTION

    _edit_json(good_site / "toy" / SECTION, n_trials=6, n_ok=0)
    code, err, page = _reproduce(capsys)
    assert '<span class="status kept">' in _part(page), err
    assert "6 (0 ok)" in page


# --------------------------------------------------------------------------- S8: exported frames
@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 3-fold store (iris, wine x three algorithms) exported as CSV and Parquet, and with its predictions."""
    folder = tmp_path_factory.mktemp("frames")
    (folder / "c.yaml").write_text(
        "experiment: fr\nseed: 0\ndatasets: [iris, wine]\nprotocol: {type: cv, folds: 3, repeats: 1}\n"
        "predictions: true\nalgorithms:\n  - {name: a, criterion: entropy, params: {max_depth: 1}}\n"
        "  - {name: b, criterion: gini, params: {max_depth: 3}}\n"
        "  - {name: c, criterion: entropy, params: {max_depth: 3}}\n", encoding="utf-8")
    store = str(folder / "fr.sqlite")
    assert exit_code(["run", str(folder / "c.yaml"), "--jobs", "1", "--quiet", "--store", store]) == 0
    assert exit_code(["results", "export", store, "--out", str(folder / "frame.csv")]) == 0
    assert exit_code(["results", "export", store, "--predictions", "--out", str(folder / "pred.csv")]) == 0
    return folder


def _frame(exported: Path) -> pd.DataFrame:
    return pd.read_csv(exported / "frame.csv", keep_default_na=False, dtype=str)


def _set(row: int, column: str, value: str):  # noqa: ANN202 - a frame edit
    def edit(frame: pd.DataFrame) -> pd.DataFrame:
        frame.loc[row, column] = value
        return frame
    return edit


def _twice(frame: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([frame, frame.iloc[[0]]], ignore_index=True)


def _failed_first(frame: pd.DataFrame) -> pd.DataFrame:
    frame.loc[0, ["status", "accuracy", "error"]] = ["failed", "", ""]
    return frame


ROW1 = r"^error: results frame 'frame\.csv', row 1 \(line 2\) \(iris / a\), "
FRACTION = r"; accepted: a fraction in \[0, 1\], as `treebench results export` writes it$"
FRAME_CASES = [
    ("accuracy-above-one", _set(0, "accuracy", "1.7"), ROW1 + r"column accuracy: '1\.7' is impossible" + FRACTION),
    ("accuracy-negative", _set(0, "accuracy", "-3"), ROW1 + r"column accuracy: '-3' is impossible" + FRACTION),
    ("accuracy-as-a-percent", _set(0, "accuracy", "96"), ROW1 + r"column accuracy: '96' is impossible" + FRACTION),
    ("accuracy-text", _set(0, "accuracy", "abc"), ROW1 + r"column accuracy: 'abc' is impossible" + FRACTION),
    ("accuracy-nan-of-a-finished-trial", _set(0, "accuracy", "nan"), ROW1 + r"column accuracy: 'nan' is impossible"),
    ("accuracy-empty-of-a-finished-trial", _set(0, "accuracy", ""), ROW1 + r"column accuracy: 'nan' is impossible"),
    ("accuracy-infinite", _set(0, "accuracy", "inf"), ROW1 + r"column accuracy: 'inf' is impossible"),
    ("error-above-one", _set(2, "error", "2"), r"row 3 \(line 4\) \(iris / a\), column error: '2' is impossible"),
    ("train-accuracy-negative", _set(0, "train_accuracy", "-0.5"), ROW1 + r"column train_accuracy: '-0\.5'"),
    ("leaves-negative", _set(0, "n_leaves", "-5"), ROW1 + r"column n_leaves: '-5' is impossible; accepted: a "
                                                          r"number >= 0, as `treebench results export` writes it$"),
    ("fit-seconds-negative", _set(0, "fit_seconds", "-1"), ROW1 + r"column fit_seconds: '-1' is impossible"),
    ("tree-quality-text", _set(0, "tree_quality", "big"), ROW1 + r"column tree_quality: 'big' is impossible; "
                                                                 r"accepted: a finite number or empty"),
    ("fold-fractional", _set(0, "fold", "0.5"), ROW1 + r"column fold: '0\.5' is impossible; accepted: a whole "
                                                       r"number >= 0"),
    ("fold-negative", _set(0, "fold", "-1"), ROW1 + r"column fold: '-1' is impossible"),
    ("fold-empty", _set(0, "fold", ""), ROW1 + r"column fold: 'nan' is impossible"),
    ("fold-outside-the-protocol", _set(0, "fold", "7"), ROW1 + r"column fold: fold 7 is outside protocol cv3x1; "
                                                             r"accepted: 0 to 2$"),
    ("repeat-outside-the-protocol", _set(0, "repeat", "1"), ROW1 + r"column repeat: repeat 1 is outside protocol "
                                                                 r"cv3x1; accepted: 0 to 0$"),
    ("a-trial-twice", _twice, r"^error: results frame 'frame\.csv', row 19 \(line 20\) \(iris / a\) is the trial of "
                              r"row 1 again \(dataset iris, algorithm a, protocol cv3x1, repeat 0, fold 0\); accepted: "
                              r"one row per \(dataset, algorithm, protocol, repeat, fold\), as a results store holds$"),
    # fifth pass: a status no store holds is refused, never read as a failed trial (F2) ...
    ("status-unknown", _set(0, "status", "garbage"), ROW1 + r"column status: 'garbage' is impossible; accepted: "
                                                          r"ok or failed, as `treebench results export` writes it$"),
    ("status-capitalised", _set(0, "status", "OK"), ROW1 + r"column status: 'OK' is impossible; accepted: ok or "
                                                        r"failed"),
    ("status-empty", _set(0, "status", ""), ROW1 + r"column status: 'nan' is impossible"),
    # ... and an error that is not 1 - accuracy would make the two metrics report different trials (F3)
    ("error-not-the-complement", _set(0, "error", "0.9"),
     ROW1[:-2] + r": accuracy [0-9.]+ and error 0\.9 do not sum to 1; accepted: error = 1 - accuracy, as `treebench "
            r"results export` writes it$"),
    ("error-emptied", _set(0, "error", ""), ROW1 + r"column error: 'nan' is impossible"),
    ("a-trial-under-another-key", _set(1, "fold", "0"),
     r"row 2 \(line 3\) \(iris / a\) is the trial of row 1 again"),
]


@pytest.mark.parametrize("command", ["compare", "plot"])
@pytest.mark.parametrize("case", FRAME_CASES, ids=[c[0] for c in FRAME_CASES])
def test_an_impossible_exported_frame_is_refused(case: tuple, command: str, exported: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    name, edit, message = case
    frame = edit(_frame(exported))
    frame.to_csv(tmp_path / "frame.csv", index=False)
    args = ("compare", "frame.csv") if command == "compare" else ("plot", "scores", "frame.csv", "--out", "out/s")
    run_cli_case(CliCase(name, args, message, unchanged=("frame.csv",)), tmp_path, capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frame.csv"]  # nothing written


def test_an_impossible_parquet_frame_is_refused(exported: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    frame = pd.read_csv(exported / "frame.csv")
    frame.loc[0, "accuracy"] = 1.7
    frame.to_parquet(tmp_path / "frame.parquet", index=False)
    run_cli_case(CliCase("parquet-accuracy-above-one", ("compare", "frame.parquet"),
                         r"^error: results frame 'frame\.parquet', row 1 \(iris / a\), column accuracy: '1\.7' is "
                         r"impossible; accepted: a fraction in \[0, 1\]"), tmp_path, capsys)


def test_an_export_of_predictions_is_no_frame_of_trials(exported: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    shutil.copy(exported / "pred.csv", tmp_path / "pred.csv")
    run_cli_case(CliCase("predictions-export", ("compare", "pred.csv"),
                         r"^error: results frame 'pred\.csv' is an export of kept predictions \(one row per test "
                         r"row\), not of trials; accepted: a frame written by `treebench results export` without "
                         r"--predictions$"), tmp_path, capsys)


@pytest.mark.parametrize("edit", [None, _failed_first], ids=["as-exported", "a-failed-trial-without-accuracy"])
def test_a_frame_a_store_could_hold_is_tabulated(edit, exported: Path, tmp_path: Path,  # noqa: ANN001
                                                 capsys: pytest.CaptureFixture) -> None:
    """Control: the export as written, and one whose failed trial has no accuracy (as a store keeps it)."""
    frame = _frame(exported)
    (edit(frame) if edit else frame).to_csv(tmp_path / "frame.csv", index=False)
    capsys.readouterr()
    assert exit_code(["compare", str(tmp_path / "frame.csv")]) == 0
    out = capsys.readouterr().out
    assert "| iris |" in out and "| wine |" in out


def test_frames_of_every_stored_protocol_pass() -> None:
    """Control: the protocol rule reads every label the runner writes (a fold of LOO or a fixed split is unbounded)."""
    from treebench.report.frame_check import check_frame

    rows = [("cv10x2", 1, 9), ("openml:10x1", 0, 9), ("holdout0.3x10", 9, 0), ("holdout0.2x5-unstratified", 4, 0),
            ("cv5x1-unstratified", 0, 4), ("loo", 0, 150), ("ordered0.8", 0, 0), ("fixed:split", 0, 0)]
    frame = pd.DataFrame([{"dataset": "d", "algorithm": "a", "protocol": p, "repeat": r, "fold": f, "status": "ok",
                           "accuracy": 0.5} for p, r, f in rows])
    checked = check_frame(frame, Path("x.csv"))
    assert len(checked) == len(rows) and checked["fold"].dtype == "int64"


# --------------------------------------------------------------------------- S12: --alpha
@pytest.mark.parametrize("alpha", ["1", "0", "1.5", "-1", "nan", "inf"])
def test_plot_cd_alpha_outside_zero_one_is_refused(alpha: str, exported: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    shutil.copy(exported / "fr.sqlite", tmp_path / "store.sqlite")
    run_cli_case(CliCase(f"plot-cd-alpha-{alpha}", ("plot", "cd", "store.sqlite", "--alpha", alpha, "--out", "out/cd"),
                         rf"^error: --alpha must be in \(0, 1\), got {re.escape(str(float(alpha)))}$",
                         unchanged=("store.sqlite",)), tmp_path, capsys)
    assert not (tmp_path / "out").exists()


def test_mcnemar_alpha_outside_zero_one_is_refused(exported: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    shutil.copy(exported / "fr.sqlite", tmp_path / "store.sqlite")
    run_cli_case(CliCase("mcnemar-alpha", ("compare", "store.sqlite", "--test", "mcnemar", "--alpha", "1.5"),
                         r"^error: --alpha must be in \(0, 1\), got 1\.5$", unchanged=("store.sqlite",)),
                 tmp_path, capsys)


def test_plot_cd_inside_zero_one_is_drawn(exported: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Control: a level in (0, 1) draws the diagram."""
    capsys.readouterr()
    code = exit_code(["plot", "cd", str(exported / "fr.sqlite"), "--alpha", "0.1", "--out", str(tmp_path / "cd")])
    assert code == 0 and (tmp_path / "cd.png").is_file() and (tmp_path / "cd.svg").is_file()
