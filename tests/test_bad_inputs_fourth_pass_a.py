"""Issue 43, the fourth independent hostile pass, group A: outputs, locks and special files.

What the pass found, each a case that must now end in one line, with a non-zero exit and
the case folder unchanged (hashed before and after with :func:`~badinput.tree_digest`):

- D1: an ``--out`` that is a lock another command holds or will take: a results store's
  ``X.sqlite.lock`` beside the store ``X.sqlite``, a board's ``.leaderboard.lock`` or
  ``leaderboard.sqlite.lock``, any ``*.lock`` a process holds now, whichever store the
  command itself reads;
- S10: ``-`` for an option that cannot print (``--plot``, ``plot --out``, ``run --store``,
  ``leaderboard --out``, ``reproduce --out-dir``): it wrote ``-.png``;
- S6: ``reproduce PAPER --out-dir`` into another paper's report folder;
- S9: ``reproduce --all --out-dir`` (or a paper's folder inside it) into a leaderboard's folder;
- H1: ``plot tree`` on a FIFO (or a device) named ``.pkl``/``.joblib`` hung;
- M2: a ``--plugin`` or config ``plugins:`` entry that is a FIFO was called "not found".

The valid neighbour of each case is checked to work (a lock no one holds, ``--out -`` where it
means standard output, a paper's own folder, a saved estimator, a plugin file).
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from badinput import (
    CliCase,
    cli_in,
    exit_code,
    run_cli_case,
    run_cli_case_isolated,
    tree_digest,
    write_files,
)
from test_bad_inputs_outputs import MIRROR, board, needs_mirror, store
from test_report_html import (
    workspace,  # noqa: F401 - the fixture the reproduce cases build on
    workspace_specs,
)

#: Lock handles held by the running case (released after each test).
_HELD: list = []


def held(relative: str):  # noqa: ANN201 - a files-callable
    """A files-callable creating ``folder/relative`` and holding its kernel lock, as a running treebench does."""

    def take(folder: Path) -> None:
        handle = open(folder / relative, "a+")  # noqa: SIM115 - held until the test ends
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        _HELD.append(handle)

    return take


@pytest.fixture(autouse=True)
def _release_locks():
    yield
    while _HELD:
        _HELD.pop().close()


def other_store(folder: Path) -> None:
    """A second finished store ``folder/t.sqlite``: a store the command under test does not read."""
    store(folder)
    (folder / "s.sqlite").rename(folder / "t.sqlite")


def fifo(relative: str):  # noqa: ANN201 - a files-callable
    """A files-callable making ``folder/relative`` a named pipe (reading it blocks until a writer comes)."""

    def make(folder: Path) -> None:
        os.mkfifo(folder / relative)

    return make


def link_to(relative: str, target: str):  # noqa: ANN201 - a files-callable
    def make(folder: Path) -> None:
        os.symlink(target, folder / relative)

    return make


NO_LOCK = r"accepted: a file path in a writable folder that is no lock file$"

# -------------------------------------------------------------------------- D1: no --out replaces a lock
LOCK_CASES = [
    CliCase("certainty-out-is-a-stores-lock", ("certainty", "iris", "--out", "s.sqlite.lock"),
            r"^error: --out 's\.sqlite\.lock': 's\.sqlite\.lock' is the writer lock of results store 's\.sqlite'; "
            rf"replacing it would let two runs write that store at once; {NO_LOCK}",
            files={"s.sqlite": store, "s.sqlite.lock": held("s.sqlite.lock")}),
    # the store exists, its lock not yet: the name is still the store's (a run would take a table as its lock)
    CliCase("certainty-out-is-a-stores-future-lock", ("certainty", "iris", "--out", "s.sqlite.lock"),
            r"is the writer lock of results store 's\.sqlite'", files={"s.sqlite": store}),
    CliCase("certainty-out-is-a-boards-lock", ("certainty", "iris", "--out", "b/.leaderboard.lock"),
            r"^error: --out 'b/\.leaderboard\.lock': 'b/\.leaderboard\.lock' is a leaderboard's lock; replacing it "
            rf"would let a second board write that folder beside a running one; {NO_LOCK}", files={"b": board}),
    CliCase("certainty-out-is-a-boards-store-lock", ("certainty", "iris", "--out", "b/leaderboard.sqlite.lock"),
            r"'b/leaderboard\.sqlite\.lock' is the writer lock of results store 'b/leaderboard\.sqlite'",
            files={"b": board}),
    CliCase("certainty-plot-base-is-no-lock-but-out-is", ("certainty", "iris", "--plot", "fig", "--out",
                                                          "b/.leaderboard.lock"),
            r"is a leaderboard's lock", files={"b": board}),
    CliCase("export-out-is-another-boards-lock", ("results", "export", "s.sqlite", "--out", "b/.leaderboard.lock"),
            r"^error: --out 'b/\.leaderboard\.lock': 'b/\.leaderboard\.lock' is a leaderboard's lock",
            files={"s.sqlite": store, "b": board}),
    CliCase("compare-out-is-another-stores-lock", ("compare", "s.sqlite", "--out", "b/leaderboard.sqlite.lock"),
            r"'b/leaderboard\.sqlite\.lock' is the writer lock of results store 'b/leaderboard\.sqlite'",
            files={"s.sqlite": store, "b": board}),
    CliCase("compare-csv-out-is-another-stores-lock", ("compare", "s.sqlite", "--format", "csv", "--out",
                                                       "t.sqlite.lock"),
            rf"'t\.sqlite\.lock' is the writer lock of results store 't\.sqlite'; .*{NO_LOCK}",
            files={"s.sqlite": store, "t.sqlite": other_store}),
    CliCase("compare-out-is-a-lock-held-now", ("compare", "s.sqlite", "--out", "job.lock"),
            rf"^error: --out 'job\.lock': 'job\.lock' is a lock file a running process holds now; replacing it would "
            rf"void that lock; {NO_LOCK}", files={"s.sqlite": store, "job.lock": held("job.lock")}),
    CliCase("export-out-is-a-held-board-lock", ("results", "export", "s.sqlite", "--out", "b/.leaderboard.lock"),
            r"is a leaderboard's lock", files={"s.sqlite": store, "b": board, "b/.leaderboard.lock":
                                               held("b/.leaderboard.lock")}),
]

# -------------------------------------------------------------------------- S10: '-' where nothing can print
DASH = r"^error: {option} '-' names standard output, where {option} cannot write \(it writes {what}\); accepted: {acc}$"
FILE_ACC = r"a file path in a writable folder"
DASH_CASES = [
    CliCase("compare-bayes-plot-dash", ("compare", "s.sqlite", "--test", "bayes", "--plot", "-"),
            DASH.format(option="--plot", what=r"figures: PATH\.png, PATH\.svg", acc=FILE_ACC),
            files={"s.sqlite": store}),
    CliCase("certainty-plot-dash", ("certainty", "iris", "--plot", "-"),
            DASH.format(option="--plot", what=r"figures: FILE\.png, FILE\.svg", acc=FILE_ACC)),
    CliCase("plot-cd-out-dash", ("plot", "cd", "s.sqlite", "--out", "-"),
            DASH.format(option="--out", what=r"figures: PATH\.png, PATH\.svg", acc=FILE_ACC),
            files={"s.sqlite": store}),
    CliCase("plot-scores-out-dash", ("plot", "scores", "s.sqlite", "--out", "-"),
            DASH.format(option="--out", what=r"figures: PATH\.png, PATH\.svg", acc=FILE_ACC),
            files={"s.sqlite": store}),
    CliCase("run-store-dash", ("run", "c.yaml", "--store", "-", "--dry-run"),
            DASH.format(option="--store", what="a results store", acc=FILE_ACC),
            files={"c.yaml": "experiment: d\nseed: 0\ndatasets: [iris]\nprotocol: {type: cv, folds: 2}\n"
                             "algorithms:\n  - {name: entropy, criterion: entropy}\n"}),
    CliCase("leaderboard-out-dash", ("leaderboard", "--datasets", "iris", "--criteria", "entropy", "--folds", "3",
                                     "--dry-run", "--out", "-"),
            DASH.format(option="--out", what="a folder", acc=r"a folder path \(created if missing\)")),
    CliCase("reproduce-out-dir-dash", ("reproduce", "certainty", "--no-run", "--out-dir", "-"),
            DASH.format(option="--out-dir", what="a folder", acc=r"a folder path \(created if missing\)")),
]


@needs_mirror
@pytest.mark.parametrize("case", LOCK_CASES + DASH_CASES, ids=[c.id for c in LOCK_CASES + DASH_CASES])
def test_a_fourth_pass_output_ends_in_one_line_and_changes_nothing(case: CliCase, tmp_path: Path, monkeypatch,
                                                                     capsys) -> None:
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    write_files(case.files, tmp_path)
    before = tree_digest(tmp_path)
    run_cli_case(dataclasses.replace(case, files={}, unchanged=tuple(case.files)), tmp_path, capsys)
    assert tree_digest(tmp_path) == before, f"{case.id}: the case folder changed"


@needs_mirror
def test_a_lock_no_one_holds_and_no_store_owns_is_an_ordinary_output(tmp_path: Path, monkeypatch, capsys) -> None:
    # the rule is about locks in use, not about the suffix: a stale *.lock of nothing is a file like any other
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    (tmp_path / "stale.lock").write_text("old\n", encoding="utf-8")
    code, _, err = cli_in(tmp_path, capsys, "certainty", "iris", "--out", "stale.lock")
    assert code == 0, err
    assert "I(C|A)" in (tmp_path / "stale.lock").read_text(encoding="utf-8")


@needs_mirror
@pytest.mark.parametrize("out", ["pipe.lock", "pipe-wal"])
def test_an_output_named_after_a_fifo_is_written_without_blocking(out: str, tmp_path: Path) -> None:
    # the lock and -wal rules look at the file beside the output (is it a store?): a FIFO there is no store,
    # and reading it to find out would block forever (in a child process: a regression hangs only it)
    from badinput import isolated_env, run_isolated

    store(tmp_path)
    os.mkfifo(tmp_path / out.replace(".lock", "").replace("-wal", ""))
    code, _, err = run_isolated(["-c", "from treebench.cli import main; main()", "compare", "s.sqlite", "--out", out],
                                tmp_path, isolated_env({"TREEBENCH_DATA": str(MIRROR)}), 120, out)
    assert code == 0 and "Traceback" not in err, err
    assert "| dataset |" in (tmp_path / out).read_text(encoding="utf-8")


def test_the_lock_rule_names_the_same_board_lock_the_board_takes() -> None:
    from treebench.experiment.store import BOARD_LOCK
    from treebench.leaderboard.run import LOCK
    from treebench.outpaths import BOARD_LOCK as CHECKED

    assert CHECKED == BOARD_LOCK == LOCK


@needs_mirror
def test_a_board_reruns_over_its_own_lock(tmp_path: Path, monkeypatch, capsys) -> None:
    # its own .leaderboard.lock is opened in place, never replaced: the lock rule must not refuse the board itself
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    board(tmp_path)
    assert (tmp_path / "b" / ".leaderboard.lock").is_file()
    code, out, err = cli_in(tmp_path, capsys, "leaderboard", "--datasets", "iris,wine", "--criteria", "entropy",
                          "--folds", "3", "-j", "1", "-q", "--out", "b")
    assert code == 0, err


@needs_mirror
def test_dash_still_means_standard_output_where_it_is_documented(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    store(tmp_path)
    before = tree_digest(tmp_path)
    code, out, err = cli_in(tmp_path, capsys, "certainty", "iris", "--out", "-")
    assert code == 0 and "I(C|A)" in out, err
    code, out, err = cli_in(tmp_path, capsys, "results", "export", "s.sqlite", "--out", "-")
    assert code == 0 and "dataset" in out.splitlines()[0].split(","), out[:200]
    assert tree_digest(tmp_path) == before  # nothing named '-' written


# -------------------------------------------------------------------------- S6 / S9: reproduce --out-dir
def _toy_site(monkeypatch) -> Path:
    """The toy papers' site built once in the workspace (``site/toy`` holds paper 900's report)."""
    from treebench.papers import catalogue
    from treebench.papers import reproduce as R

    specs = {s.key: s for s in workspace_specs()}
    monkeypatch.setattr(R, "PAPERS", specs)
    monkeypatch.setattr(catalogue, "PAPERS", specs)
    R.reproduce_all(Path("site"), run=False)
    assert (Path("site/toy") / R.SECTION).is_file() and Path("site/toy/verdicts.json").is_file()
    return Path("site")


def _one_error(capsys) -> str:
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    lines = [line for line in out.err.splitlines() if line.strip() and not line.startswith("warning:")]
    assert len(lines) == 1, out.err
    return lines[0]


def _record_paper(path: Path, number: str, key: str) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc.update(paper=number, key=key)
    path.write_text(json.dumps(doc), encoding="utf-8")


@pytest.mark.parametrize("recorded_in", ["section.json", "verdicts.json"])
def test_reproduce_into_another_papers_folder_is_refused_and_changes_nothing(
        recorded_in: str, workspace: Path, monkeypatch, capsys) -> None:  # noqa: F811 - the imported fixture
    site = _toy_site(monkeypatch)
    # site/toy now holds paper 903's report (its kept part, or its verdicts alone): `reproduce toy` into it
    # would replace that paper's only copy (toy has a store, so it would write its whole report there)
    if recorded_in == "verdicts.json":
        (site / "toy" / "section.json").unlink()
    _record_paper(site / "toy" / recorded_in, "903", "empty")
    before = tree_digest(site)
    capsys.readouterr()
    code = exit_code(["reproduce", "toy", "--no-run", "--out-dir", "site/toy"])
    line = _one_error(capsys)
    assert code == 2
    assert re.search(rf"^error: --out-dir 'site/toy': 'site/toy/{re.escape(recorded_in)}' records paper 903 empty, "
                     r"not 900 toy: that folder holds another paper's report, which writing toy's there would "
                     r"replace; accepted: a new or empty folder, or one holding toy's own report$", line), line
    assert tree_digest(site) == before


def test_reproduce_into_its_own_folder_and_a_new_one_still_works(workspace: Path, monkeypatch,  # noqa: F811
                                                                 capsys) -> None:
    site = _toy_site(monkeypatch)
    capsys.readouterr()
    assert exit_code(["reproduce", "toy", "--no-run", "--out-dir", "site/toy"]) == 0, capsys.readouterr().err
    assert exit_code(["reproduce", "toy", "--no-run", "--out-dir", "elsewhere"]) == 0, capsys.readouterr().err
    assert Path("elsewhere/report.md").is_file() and (site / "toy" / "report.md").is_file()
    # a part that records no paper (an older treebench's) is no evidence either way: not refused
    doc = json.loads((site / "toy" / "section.json").read_text(encoding="utf-8"))
    for name in ("paper", "key", "config"):
        doc.pop(name, None)
    (site / "toy" / "section.json").write_text(json.dumps(doc), encoding="utf-8")
    assert exit_code(["reproduce", "toy", "--no-run", "--out-dir", "site/toy"]) == 0, capsys.readouterr().err


@needs_mirror
@pytest.mark.parametrize("args", [("reproduce", "--all", "--no-run", "--out-dir", "b"),
                                  ("reproduce", "toy", "--no-run", "--out-dir", "b/toy"),
                                  ("reproduce", "toy", "--no-run", "--out-dir", "b")],
                         ids=["all-into-a-board", "paper-into-a-board-subfolder", "paper-into-a-board"])
def test_reproduce_into_a_leaderboards_folder_is_refused_and_changes_nothing(
        args: tuple[str, ...], workspace: Path, monkeypatch, capsys) -> None:  # noqa: F811
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    _toy_site(monkeypatch)
    board(workspace)
    assert (workspace / "b" / "index.html").is_file()
    before = tree_digest(workspace)
    capsys.readouterr()
    code = exit_code(list(args))
    line = _one_error(capsys)
    assert code == 2
    assert re.search(r"^error: --out-dir 'b(/toy)?': 'b' holds a leaderboard \(leaderboard\.sqlite, "
                     r"\.leaderboard\.lock\), whose page and figures \(index\.html, cd\.png\) a reproduction "
                     r"written there would replace; accepted: a folder that holds no leaderboard \(e\.g\. results\)$",
                     line), line
    assert tree_digest(workspace) == before


def test_a_board_store_alone_marks_the_folder_as_a_boards(workspace: Path, monkeypatch, capsys) -> None:  # noqa: F811
    # a board stopped before its page: its store is there, its index.html will be written at its end
    _toy_site(monkeypatch)
    Path("b").mkdir()
    shutil.copyfile("results/legacy-store.sqlite", "b/leaderboard.sqlite")
    before = tree_digest(workspace)
    capsys.readouterr()
    assert exit_code(["reproduce", "--all", "--no-run", "--out-dir", "b"]) == 2
    assert "'b' holds a leaderboard (leaderboard.sqlite)" in _one_error(capsys)
    assert tree_digest(workspace) == before


# -------------------------------------------------------------------------- H1 / M2: special files as inputs
ESTIMATOR_ACC = r"accepted: an estimator saved with joblib\.dump, as \.joblib, \.pkl, \.pickle$"
PLUGIN_ACC = r"accepted: a \.py file, or the name of a module that imports here \(installed, or on PYTHONPATH\)$"
GOOD_CONFIG = ("experiment: p\nseed: 0\ndatasets: [iris]\nprotocol: {type: cv, folds: 2}\n"
               "algorithms:\n  - {name: entropy, criterion: entropy}\n")
SPECIAL_CASES = [
    CliCase("plot-tree-fifo-pkl", ("plot", "tree", "fifo.pkl", "--out", "out/t"),
            rf"^error: cannot read a fitted estimator from fifo\.pkl: it is not a regular file but a named pipe "
            rf"\(FIFO\); {ESTIMATOR_ACC}", files={"fifo.pkl": fifo("fifo.pkl")}),
    CliCase("plot-tree-fifo-joblib", ("plot", "tree", "fifo.joblib", "--out", "out/t"),
            r"fifo\.joblib: it is not a regular file but a named pipe \(FIFO\)", files={"fifo.joblib": fifo("fifo.joblib")}),
    CliCase("plot-tree-device-pkl", ("plot", "tree", "zero.pkl", "--out", "out/t"),
            r"zero\.pkl: it is not a regular file but a character device", files={"zero.pkl": link_to("zero.pkl",
                                                                                                        "/dev/zero")}),
    CliCase("criteria-list-fifo-plugin", ("criteria", "list", "--plugin", "fifo.py"),
            rf"^error: plugin '.*/fifo\.py' is not a regular file but a named pipe \(FIFO\); {PLUGIN_ACC}",
            files={"fifo.py": fifo("fifo.py")}),
    CliCase("leaderboard-fifo-plugin", ("leaderboard", "--datasets", "iris", "--criteria", "entropy", "--folds", "3",
                                        "-q", "-j", "1", "--dry-run", "--plugin", "fifo.py", "--out", "out/lb"),
            r"plugin '.*/fifo\.py' is not a regular file but a named pipe \(FIFO\)", files={"fifo.py": fifo("fifo.py")}),
    CliCase("config-fifo-plugin", ("run", "c.yaml", "--dry-run"),
            r"^error: c\.yaml:\d+: plugins\[0\]: plugin '.*/fifo\.py' is not a regular file but a named pipe \(FIFO\)",
            files={"fifo.py": fifo("fifo.py"), "c.yaml": GOOD_CONFIG + "plugins: [fifo.py]\n"}),
    CliCase("criteria-list-device-plugin", ("criteria", "list", "--plugin", "/dev/null"),
            r"^error: plugin '/dev/null' is neither a \.py file nor a module name \(a character device\)"),
]


@needs_mirror
@pytest.mark.parametrize("case", SPECIAL_CASES, ids=[c.id for c in SPECIAL_CASES])
def test_a_special_file_as_input_ends_in_one_line_without_hanging(case: CliCase, tmp_path: Path) -> None:
    # in a child process with a timeout: a regression would block on the FIFO, not hang the suite
    write_files(case.files, tmp_path)
    before = tree_digest(tmp_path)
    run_cli_case_isolated(dataclasses.replace(case, files={}, unchanged=()), tmp_path,
                          env={"TREEBENCH_DATA": str(MIRROR)}, timeout=120)
    assert tree_digest(tmp_path) == before, f"{case.id}: the case folder changed"


def test_plot_tree_still_reads_a_saved_estimator(tmp_path: Path, capsys) -> None:
    import joblib
    from sklearn.datasets import load_iris
    from sklearn.tree import DecisionTreeClassifier

    x, y = load_iris(return_X_y=True)
    joblib.dump(DecisionTreeClassifier(max_depth=2, random_state=0).fit(x, y), tmp_path / "m.joblib")
    code, out, err = cli_in(tmp_path, capsys, "plot", "tree", "m.joblib", "--out", "t")
    assert code == 0, err
    assert all((tmp_path / f"t{suffix}").is_file() for suffix in (".png", ".svg", ".dot")), out


PLUGIN = '''
from treebench.criteria import Criterion, register


@register
class FourthPassA(Criterion):
    name = "fourth_pass_a"
    summary = "a plugin file that is a file"

    def node_value(self, counts):
        return 0.0

    def split_scores(self, parent, children, context=None):
        return children.sum(axis=(1, 2)) * 0.0
'''


def test_a_plugin_file_still_imports(tmp_path: Path, capsys) -> None:
    (tmp_path / "mine.py").write_text(PLUGIN, encoding="utf-8")
    code, out, err = cli_in(tmp_path, capsys, "criteria", "list", "--plugin", "mine.py")
    assert code == 0 and "fourth_pass_a" in out, err


@needs_mirror
def test_reproduce_all_refuses_a_board_in_a_papers_folder(workspace: Path, monkeypatch, capsys) -> None:  # noqa: F811
    # `leaderboard --out site2/toy` made toy's report folder a board's: toy's report would replace its figures
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    _toy_site(monkeypatch)
    board(workspace)
    Path("site2").mkdir()
    Path("b").rename("site2/toy")
    before = tree_digest(workspace)
    capsys.readouterr()
    assert exit_code(["reproduce", "--all", "--no-run", "--out-dir", "site2"]) == 2
    assert re.search(r"^error: --out-dir 'site2': 'site2/toy' holds a leaderboard", _one_error(capsys))
    assert tree_digest(workspace) == before
