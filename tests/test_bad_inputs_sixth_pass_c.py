"""Issue 43, the sixth independent hostile pass, group C: the leaderboard and results stores.

- D1: the store's lock and SQLite's files beside it (``-wal``, ``-shm``, ``-journal``) are checked with
  the store, before a byte is written, by ``run`` and ``leaderboard`` alike: a folder, a named pipe, a
  device or a symbolic link there is refused in one line (the board wrote its configs, its lock and an
  empty store first, and rewrote a finished board's ``config-1.yaml``).
- M4: a named pipe where the store must be is called one, with what is accepted (the board advised
  rerunning with other ``--folds``).
- T1: a store the system refuses to write (a full disk: SQLite's "database or disk is full") ends in
  one line naming the store and the cause, exit 2, every trial committed before kept; a store (and a
  board) that this command created and recorded nothing in is removed again.  The disk is filled by
  SQLite itself (``PRAGMA max_page_count``) or, mid-run, by a connection that fails as a full disk does.
- S4: ``leaderboard.md`` shows user text (a plugin's description) as written: no raw HTML, link or
  remote image reaches whatever renders the file, and the board's page shows the same text.

Each :class:`~badinput.CliCase` asserts the exit status, one stderr line without a traceback, and
(hashing the case folder, FIFOs included) that nothing in it changed; the controls check the valid
neighbours (a store whose companions are ordinary files, a rerun after the disk is freed).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from badinput import CliCase, run_cli_case, tree_digest, write_files
from test_bad_inputs_outputs import (
    BOARD,
    MIRROR,
    STORE_CONFIG,
    _in,
    _status,
    board,
    needs_mirror,
    store,
)

from treebench.experiment import store as store_module
from treebench.report.md_html import markdown_to_html
from treebench.text_table import md_text

CONFIG = STORE_CONFIG.replace("STORE", "s.sqlite")
#: The board's advice for a file of the wrong kind in its store's place, and the run's.
BOARD_WAY = r"; accepted: a regular file there, or nothing \(a run creates it\); move it away, or choose another --out$"
RUN_WAY = (r"; accepted: a regular file there, or nothing \(a run creates it\); move it away, or use --store "
           r"\(or the config's store:\) to choose another file$")


def fifo(relative: str):  # noqa: ANN201 - a files-callable
    def make(folder: Path) -> None:
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(folder / relative)

    return make


def folder_at(relative: str):  # noqa: ANN201 - a files-callable
    return lambda folder: (folder / relative).mkdir(parents=True)


def link_at(relative: str, target: str = "/dev/null"):  # noqa: ANN201 - a files-callable
    def make(folder: Path) -> None:
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, folder / relative)

    return make


def replaced(relative: str, maker):  # noqa: ANN001, ANN201 - a files-callable
    """``relative`` removed (a finished board's own lock, say), then made again by ``maker``."""

    def make(folder: Path) -> None:
        (folder / relative).unlink(missing_ok=True)
        maker(folder)

    return make


def _companion(board_folder: str, suffix: str, what: str, kind: str) -> str:
    return (rf"^error: results store '.*/{board_folder}/leaderboard\.sqlite' cannot be written: "
            rf"'.*/{board_folder}/leaderboard\.sqlite{suffix}' \({what}\) is {kind}")


LOCK, WAL, SHM, JOURNAL = (r"\.lock", "the store's writer lock"), ("-wal", "the store's write-ahead log"), \
    ("-shm", "the store's shared-memory index"), ("-journal", "the store's rollback journal")
FIFO_KIND, FOLDER_KIND, LINK_KIND = r"a named pipe \(FIFO\)", "a folder", "a symbolic link"
LB3 = (*BOARD, "--folds", "3")

CASES = [
    # ---- D1: a new board folder (nothing of the board may appear) and a finished one (nothing rewritten)
    CliCase("lb-new-lock-fifo", (*LB3, "--out", "n"), _companion("n", *LOCK, FIFO_KIND) + BOARD_WAY,
            files={"n/leaderboard.sqlite.lock": fifo("n/leaderboard.sqlite.lock")}),
    CliCase("lb-finished-lock-fifo", (*LB3, "--out", "b"), _companion("b", *LOCK, FIFO_KIND) + BOARD_WAY,
            files={"b": board, "b/leaderboard.sqlite.lock": replaced("b/leaderboard.sqlite.lock",
                                                                     fifo("b/leaderboard.sqlite.lock"))}),
    CliCase("lb-new-lock-folder", (*LB3, "--out", "n"), _companion("n", *LOCK, FOLDER_KIND) + BOARD_WAY,
            files={"n/leaderboard.sqlite.lock": folder_at("n/leaderboard.sqlite.lock")}),
    CliCase("lb-new-wal-folder", (*LB3, "--out", "n"), _companion("n", *WAL, FOLDER_KIND) + BOARD_WAY,
            files={"n/leaderboard.sqlite-wal": folder_at("n/leaderboard.sqlite-wal")}),
    CliCase("lb-finished-shm-folder", (*LB3, "--out", "b"), _companion("b", *SHM, FOLDER_KIND) + BOARD_WAY,
            files={"b": board, "b/leaderboard.sqlite-shm": folder_at("b/leaderboard.sqlite-shm")}),
    CliCase("lb-finished-wal-link-to-dev-null", (*LB3, "--out", "b"), _companion("b", *WAL, LINK_KIND) + BOARD_WAY,
            files={"b": board, "b/leaderboard.sqlite-wal": link_at("b/leaderboard.sqlite-wal")}),
    CliCase("lb-finished-journal-fifo", (*LB3, "--out", "b"), _companion("b", *JOURNAL, FIFO_KIND) + BOARD_WAY,
            files={"b": board, "b/leaderboard.sqlite-journal": fifo("b/leaderboard.sqlite-journal")}),
    CliCase("lb-finished-lock-link", (*LB3, "--out", "b"), _companion("b", *LOCK, LINK_KIND) + BOARD_WAY,
            files={"b": board, "b/leaderboard.sqlite.lock": replaced("b/leaderboard.sqlite.lock",
                                                                     link_at("b/leaderboard.sqlite.lock", "elsewhere"))}),
    CliCase("lb-dry-run-wal-folder", (*LB3, "--out", "b", "--dry-run"),
            _companion("b", *WAL, FOLDER_KIND) + BOARD_WAY,
            files={"b": board, "b/leaderboard.sqlite-wal": folder_at("b/leaderboard.sqlite-wal")}),
    # ---- D1 through run: the same check, the run's advice
    CliCase("run-lock-fifo", ("run", "c.yaml", "-q", "--jobs", "1"),
            r"^error: results store 's\.sqlite' cannot be written: '.*/s\.sqlite\.lock' \(the store's writer lock\) "
            r"is a named pipe \(FIFO\)" + RUN_WAY, files={"c.yaml": CONFIG, "s.sqlite": store,
                                                          "s.sqlite.lock": fifo("s.sqlite.lock")}),
    CliCase("run-new-store-wal-folder", ("run", "c.yaml", "-q", "--jobs", "1"),
            r"^error: results store 's\.sqlite' cannot be written: '.*/s\.sqlite-wal' \(the store's write-ahead log\) "
            r"is a folder" + RUN_WAY, files={"c.yaml": CONFIG, "s.sqlite-wal": folder_at("s.sqlite-wal")}),
    CliCase("run-shm-link-to-dev-null", ("run", "c.yaml", "-q", "--jobs", "1"),
            r"^error: results store 's\.sqlite' cannot be written: '.*/s\.sqlite-shm' \(the store's shared-memory "
            r"index\) is a symbolic link" + RUN_WAY,
            files={"c.yaml": CONFIG, "s.sqlite": store, "s.sqlite-shm": link_at("s.sqlite-shm")}),
    CliCase("run-store-option-journal-folder", ("run", "c.yaml", "-q", "--jobs", "1", "--store", "o.sqlite"),
            r"^error: results store 'o\.sqlite' cannot be written: '.*/o\.sqlite-journal' \(the store's rollback "
            r"journal\) is a folder" + RUN_WAY, files={"c.yaml": CONFIG, "o.sqlite-journal": folder_at("o.sqlite-journal")}),
    # ---- M4: a named pipe (or a device) where the store must be a file: what it is, and what is accepted
    CliCase("lb-store-fifo", (*LB3, "--out", "f"),
            r"^error: results store '.*/f/leaderboard\.sqlite' is a named pipe \(FIFO\), where the store must be a "
            r"file; accepted: a SQLite file there, or nothing \(a run creates it\); move it away, or choose another "
            r"--out$", files={"f/leaderboard.sqlite": fifo("f/leaderboard.sqlite")}),
    CliCase("run-store-fifo", ("run", "c.yaml", "-q", "--jobs", "1"),
            r"^error: results store 's\.sqlite' is a named pipe \(FIFO\), where the store must be a file; accepted: "
            r"a SQLite file there, or nothing \(a run creates it\); move it away, or use --store",
            files={"c.yaml": CONFIG, "s.sqlite": fifo("s.sqlite")}),
    CliCase("run-store-link-to-dev-null", ("run", "c.yaml", "-q", "--jobs", "1"),
            r"^error: results store 's\.sqlite' is a character device, where the store must be a file",
            files={"c.yaml": CONFIG, "s.sqlite": link_at("s.sqlite")}),
]


@needs_mirror
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_sixth_pass_c_input_ends_in_one_line_and_changes_nothing(case: CliCase, tmp_path: Path, monkeypatch,
                                                                    capsys) -> None:
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    write_files(case.files, tmp_path)
    before = tree_digest(tmp_path)
    # the harness's own digest reads files (a FIFO would block it): the whole folder is hashed here instead
    run_cli_case(dataclasses.replace(case, files={}, unchanged=()), tmp_path, capsys)
    after = tree_digest(tmp_path)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"{case.id}: the case folder changed: {changed}"


@needs_mirror
def test_a_store_whose_companions_are_ordinary_files_is_resumed(tmp_path: Path, monkeypatch, capsys) -> None:
    """Control: a lock, ``-wal`` and ``-shm`` left as files by an earlier run are what SQLite expects."""
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    write_files({"c.yaml": CONFIG, "s.sqlite": store}, tmp_path)
    for suffix in (".lock", "-shm"):
        (tmp_path / f"s.sqlite{suffix}").write_bytes(b"")
    capsys.readouterr()
    assert _status(tmp_path, ["run", "c.yaml", "-q", "--jobs", "1"]) == 0
    assert "0 done, 4 skipped, 0 failed of 4 trials" in capsys.readouterr().out


# --------------------------------------------------------------------------- T1: a full disk
class _Limited(sqlite3.Connection):
    """A writer connection on a disk that is full after ``room`` more trials (``None``: no room at all,
    SQLite's own refusal through ``max_page_count``)."""

    room: int | None = None

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - sqlite3.connect's
        super().__init__(*args, **kwargs)
        if self.room is None:
            self.execute("PRAGMA max_page_count = 1")  # SQLite then answers "database or disk is full"

    def execute(self, sql: str, *args):  # noqa: ANN002, ANN201 - sqlite3.Connection.execute's
        if type(self).room is not None and sql.startswith("INSERT") and "INTO trials" in sql:
            if type(self).room == 0:
                raise sqlite3.OperationalError("database or disk is full")
            type(self).room -= 1
        return super().execute(sql, *args)


def _full_disk(monkeypatch: pytest.MonkeyPatch, name: str, room: int | None) -> None:
    """Writers of a store file called ``name`` get a :class:`_Limited` connection."""
    limited = type("Limited", (_Limited,), {"room": room})
    real_connect = sqlite3.connect

    class Sqlite:  # the store module's view of sqlite3, its writer's connect replaced
        def __getattr__(self, attribute: str):  # noqa: ANN204
            return getattr(sqlite3, attribute)

        @staticmethod
        def connect(database, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN205
            if not kwargs.get("uri") and Path(str(database)).name == name:
                kwargs["factory"] = limited
            return real_connect(database, *args, **kwargs)

    monkeypatch.setattr(store_module, "sqlite3", Sqlite())


FULL = (r"cannot write results store '{store}': no space left on the device that holds it \(SQLite: database or "
        r"disk is full\); no finished trial is lost: free space there and rerun the same command to resume, or ")


@needs_mirror
def test_a_run_on_a_full_disk_says_so_and_leaves_no_empty_store(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    (tmp_path / "c.yaml").write_text(CONFIG, encoding="utf-8")
    before = tree_digest(tmp_path)
    _full_disk(monkeypatch, "s.sqlite", None)
    case = CliCase("run-full-disk-new-store", ("run", "c.yaml", "-q", "--jobs", "1"),
                   "^error: " + FULL.format(store=r"s\.sqlite") + r"use --store to write elsewhere$")
    run_cli_case(case, tmp_path, capsys)
    assert tree_digest(tmp_path) == before  # no store, no lock, no -wal/-shm left


@needs_mirror
def test_kept_predictions_on_a_full_disk_leave_no_store_behind(tmp_path: Path, monkeypatch, capsys) -> None:
    """The first trial's predictions file cannot be written: one line; the new store and its predictions
    folder, which recorded nothing, are removed."""
    import errno

    from treebench.experiment import predictions

    def full(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - np.savez_compressed's
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    (tmp_path / "c.yaml").write_text(CONFIG + "predictions: true\n", encoding="utf-8")
    before = tree_digest(tmp_path)
    monkeypatch.setattr(predictions.np, "savez_compressed", full)
    case = CliCase("run-full-disk-predictions", ("run", "c.yaml", "-q", "--jobs", "1"),
                   r"^error: cannot write predictions to s\.sqlite\.predictions: No space left on device; no "
                   r"finished trial is lost: free space there and rerun the same command to resume$")
    run_cli_case(case, tmp_path, capsys)
    assert tree_digest(tmp_path) == before


@needs_mirror
def test_a_board_on_a_full_disk_says_so_and_leaves_no_board(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    _full_disk(monkeypatch, "leaderboard.sqlite", None)
    case = CliCase("lb-full-disk-new-board", (*LB3, "--out", "n"),
                   "^error: " + FULL.format(store=r".*/n/leaderboard\.sqlite") + r"choose another --out$")
    run_cli_case(case, tmp_path, capsys)
    assert not (tmp_path / "n").exists(), sorted(os.listdir(tmp_path / "n"))


@needs_mirror
def test_a_disk_full_mid_run_keeps_every_finished_trial_and_the_rerun_resumes(tmp_path: Path, monkeypatch,
                                                                              capsys) -> None:
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    (tmp_path / "c.yaml").write_text(CONFIG, encoding="utf-8")
    _full_disk(monkeypatch, "s.sqlite", 2)  # room for 2 of the 4 trials
    case = CliCase("run-full-disk-mid-run", ("run", "c.yaml", "-q", "--jobs", "1"),
                   "^error: " + FULL.format(store=r"s\.sqlite") + r"use --store to write elsewhere$")
    run_cli_case(case, tmp_path, capsys)
    with sqlite3.connect(f"file:{tmp_path / 's.sqlite'}?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT COUNT(*) FROM trials WHERE status = 'ok'").fetchone()[0] == 2
    monkeypatch.undo()  # space freed
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    capsys.readouterr()
    _in(tmp_path, ["run", "c.yaml", "-q", "--jobs", "1"])
    assert "2 done, 2 skipped, 0 failed of 4 trials" in capsys.readouterr().out


@needs_mirror
def test_a_board_extended_on_a_full_disk_keeps_its_store(tmp_path: Path, monkeypatch, capsys) -> None:
    """A finished board extended by a criterion when the disk is full: one line, its trials kept."""
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    board(tmp_path)
    _full_disk(monkeypatch, "leaderboard.sqlite", 0)
    case = CliCase("lb-full-disk-finished-board", (*LB3[:4], "entropy,gini", *LB3[5:], "--out", "b"),
                   "^error: " + FULL.format(store=r".*/b/leaderboard\.sqlite") + r"choose another --out$")
    run_cli_case(case, tmp_path, capsys)
    with sqlite3.connect(f"file:{tmp_path / 'b' / 'leaderboard.sqlite'}?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT COUNT(*) FROM trials WHERE status = 'ok'").fetchone()[0] == 6


# --------------------------------------------------------------------------- S4: user text in leaderboard.md
HOSTILE = "x | y\n\n# HEADING [click](javascript:alert(1)) <script>alert(1)</script> ![i](http://evil/x.png) *b* `c` &lt;"


@pytest.mark.parametrize("text", ["iris", "gain_ratio", "c4.5", "tsallis-default", "kr-vs-kp", "q = 2.0", "a_b_c"])
def test_plain_names_are_written_as_they_are(text: str) -> None:
    assert md_text(text) == text


def test_hostile_text_is_shown_as_written_by_a_markdown_renderer() -> None:
    from treebench.leaderboard.page import md_table

    html = markdown_to_html("\n".join(md_table(["algorithm", "what"], [["mine", HOSTILE]])))
    assert "<script" not in html and "<img" not in html and "<a " not in html and "<h" not in html.replace("<hr", "")
    assert "<em>" not in html and "<code>" not in html and "image not loaded" not in html
    cell = html.split("<td>mine</td>")[1].split("</tr>")[0]
    shown = cell.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")
    assert shown.strip() == "<td>" + HOSTILE.replace("\n", "\\n") + "</td>", shown


def test_a_bold_p_value_stays_bold() -> None:
    from treebench.leaderboard.page import Md, md_table

    assert md_table(["", "a"], [["b", Md("**0.010**")], ["c", "*0.2*"]])[2:] == ["| b | **0.010** |",
                                                                               "| c | \\*0.2\\* |"]


PLUGIN = '''import numpy as np
from treebench.criteria import Criterion, register


@register
class Hostile(Criterion):
    name = "mdhostile"
    summary = SUMMARY
    params = ()

    def node_value(self, counts):
        counts = np.asarray(counts, dtype=float)
        return 1.0 - counts.max() / counts.sum() if counts.sum() else 0.0

    def split_scores(self, parent, children, context=None):
        children = np.asarray(children, dtype=float)
        parent = np.asarray(parent, dtype=float)
        before = parent.sum() - parent.max()
        after = (children.sum(axis=2) - children.max(axis=2)).sum(axis=1)
        return (before - after) / parent.sum()
'''


@needs_mirror
def test_a_plugins_description_reaches_leaderboard_md_as_text(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    (tmp_path / "hostile.py").write_text(PLUGIN.replace("SUMMARY", repr(HOSTILE)), encoding="utf-8")
    _in(tmp_path, [*LB3, "--plugin", "hostile.py", "--out", "lb"])
    md = (tmp_path / "lb" / "leaderboard.md").read_text(encoding="utf-8")
    row = next(line for line in md.splitlines() if line.startswith("| mdhostile |"))
    assert row == ("| mdhostile | x \\| y\\\\n\\\\n# HEADING \\[click\\](javascript:alert(1)) \\<script\\>alert(1)"
                   "\\</script\\> !\\[i\\](http://evil/x.png) \\*b\\* \\`c\\` \\&lt; |"), row
    page = (tmp_path / "lb" / "index.html").read_text(encoding="utf-8")
    assert "image not loaded: http://evil" not in page and "<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; ![i](http://evil/x.png) *b* `c` &amp;lt;" in page
    shutil.rmtree(tmp_path / "lb")
