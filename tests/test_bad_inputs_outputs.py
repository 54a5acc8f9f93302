"""Bad input, part 3 (issue 43): where commands write.

Every command that writes (``leaderboard --out``, ``plot --out``, ``compare
--out/--plot``, ``certainty --out/--plot``, ``reproduce --out-dir``,
``results export --out``) must refuse a bad place in one line, before it
writes a byte: a parent that is a file, a folder where a file must go, a file
where a folder must go, a place that cannot be written.  A refused
leaderboard (other ``--folds``, a store or board being run) leaves its folder
as it was.  File names made from user text (a dataset label with ``../``,
``/``, or 300 characters) stay inside their folder.

Each :class:`~badinput.CliCase` runs in-process through ``tests/badinput.py``
(exit code, one stderr line, no traceback); on top of that the whole case
folder is hashed before and after (:func:`tree_digest`): a refused command
changes nothing in it, not even a ``*.tmp`` or an empty folder.
"""

from __future__ import annotations

import atexit
import dataclasses
import fcntl
import functools
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from badinput import CliCase, run_cli_case, tree_digest, write_files

from treebench.errors import TreebenchError

_listed = [p for p in os.environ.get("TREEBENCH_DATA", "").split(os.pathsep) if p.strip()]
MIRROR = Path(_listed[0]) if _listed else Path(__file__).resolve().parents[2] / "shared" / "datasets"
needs_mirror = pytest.mark.skipif(not (MIRROR / "wine.csv.gz").is_file(), reason=f"no dataset mirror at {MIRROR}")

#: The small board every leaderboard case starts from: 2 datasets, 1 criterion, 3 folds (6 trials).
BOARD = ("leaderboard", "--datasets", "iris,wine", "--criteria", "entropy", "--jobs", "1", "-q")
#: A config whose dataset labels are hostile file names (fixed train/test pairs take any label).
TREE_CONFIG = """experiment: names
seed: 0
datasets:
{entries}
protocol: {{type: cv, folds: 2, repeats: 1}}
algorithms:
  - {{name: entropy, criterion: entropy, params: {{max_depth: 2}}}}
"""
STORE_CONFIG = """experiment: outputs
seed: 0
datasets: [iris]
protocol: {type: cv, folds: 2, repeats: 1}
algorithms:
  - {name: entropy, criterion: entropy, params: {max_depth: 2}}
  - {name: gini, criterion: gini, params: {max_depth: 2}}
store: STORE
"""


def tree_config(*labels: str) -> str:
    """:data:`TREE_CONFIG` with one iris/iris entry per label."""
    entries = "\n".join(f"  - {{name: {json.dumps(label)}, train: iris, test: iris}}" for label in labels)
    return TREE_CONFIG.format(entries=entries)


# --------------------------------------------------------------------------- folder digests
def test_tree_digest_sees_a_new_empty_folder_a_hidden_file_and_a_changed_byte(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    before = tree_digest(tmp_path)
    (tmp_path / "a.txt").write_text("y")
    assert tree_digest(tmp_path) != before
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / "empty").mkdir()
    assert tree_digest(tmp_path) != before
    (tmp_path / "empty").rmdir()
    (tmp_path / ".x.tmp").write_text("")
    assert tree_digest(tmp_path) != before


# --------------------------------------------------------------------------- prepared inputs (built once)
def _status(folder: Path, argv: list[str]) -> int:
    """The exit status of ``treebench ARGV`` run in ``folder``."""
    from treebench.cli import main

    cwd = Path.cwd()
    os.chdir(folder)
    try:
        main(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(cwd)
    return 0


def _in(folder: Path, argv: list[str]) -> None:
    """``treebench ARGV`` in ``folder``; it must succeed."""
    status = _status(folder, argv)
    assert status == 0, f"treebench {' '.join(argv)} exited {status}"


@functools.cache
def _cache() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="treebench-outputs-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


@functools.cache
def _built_board() -> Path:
    out = _cache() / "board"
    _in(_cache(), [*BOARD, "--folds", "3", "--out", str(out)])
    return out


@functools.cache
def _built_store() -> Path:
    config = _cache() / "store.yaml"
    config.write_text(STORE_CONFIG.replace("STORE", str(_cache() / "s.sqlite")), encoding="utf-8")
    _in(_cache(), ["run", str(config), "--jobs", "1", "-q"])
    return _cache() / "s.sqlite"


def board(folder: Path) -> None:
    """A finished 3-fold board in ``folder/b`` (configs, store, page)."""
    shutil.rmtree(folder / "b", ignore_errors=True)
    shutil.copytree(_built_board(), folder / "b")


def store(folder: Path) -> None:
    """A finished results store ``folder/s.sqlite`` (iris, entropy and gini, 2 folds)."""
    shutil.copyfile(_built_store(), folder / "s.sqlite")


def foreign_board_store(folder: Path) -> None:
    """Another experiment's store where a board keeps its own: ``folder/b/leaderboard.sqlite``."""
    (folder / "b").mkdir(exist_ok=True)
    shutil.copyfile(_built_store(), folder / "b" / "leaderboard.sqlite")


#: Lock handles held by the running case (released after each test).
_HELD: list = []


def hold(relative: str):  # noqa: ANN201 - a files-callable
    """A files-callable taking the kernel lock on ``folder/relative``, as a running treebench would."""

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


# --------------------------------------------------------------------------- the cases
FILE = "not a folder\n"
ACCEPT_FOLDER = r"accepted: a folder path \(created if missing\)$"
ACCEPT_FILE = r"accepted: a file path in a writable folder$"
LB = "leaderboard"
#: Why nothing can be created in /proc (the system says "No such file or directory", which misleads).
NO_NEW_FILES = r"the file system there takes no new files or folders: a virtual one, such as /proc or /sys"
CASES = [
    # -- leaderboard: refused reruns leave configs and store as they were
    CliCase("lb-rerun-other-folds", (*BOARD, "--folds", "5", "--out", "b"),
            r"holds experiment 'leaderboard' with protocol .*folds: 3.*folds: 5.*choose another --out$",
            files={"b": board}),
    # another experiment's store in the board's place: no "rerun with that board's options" advice
    CliCase("lb-foreign-store-in-out", (*BOARD, "--folds", "3", "--out", "b"),
            r"holds experiment 'outputs', not 'leaderboard': a store belongs to one experiment; it is another "
            r"experiment's store, not a leaderboard's: choose another --out$",
            files={"b/leaderboard.sqlite": foreign_board_store}),
    CliCase("lb-rerun-other-repeats", (*BOARD, "--folds", "3", "--repeats", "2", "--out", "b"),
            r"repeats: 1.*repeats: 2.*choose another --out$", files={"b": board}),
    # -- a rerun naming other criteria or fewer datasets would drop stored rows from the page: refused
    CliCase("lb-rerun-other-criteria", (LB, "--datasets", "iris,wine", "--criteria", "gini", "--folds", "3", "--out", "b"),
            r"^error: --out 'b': this board's store holds finished trials of entropy, which --criteria 'gini' leaves "
            r"out, so its page would drop them; accepted: --criteria naming them too \(e\.g\. --criteria gini,entropy\) "
            r"to extend the board, or another --out$", files={"b": board}),
    CliCase("lb-rerun-fewer-datasets", (LB, "--datasets", "iris", "--criteria", "entropy", "--folds", "3", "--out", "b"),
            r"^error: --out 'b': this board's store holds finished trials on wine, which this selection of datasets "
            r"leaves out, so its page would drop them; accepted: --suite/--datasets naming them too", files={"b": board}),
    CliCase("lb-store-lock-held", (*BOARD, "--folds", "3", "--out", "b"),
            r"'.*/b/leaderboard\.sqlite' is being written by another treebench run; wait for it or choose another --out$",
            files={"b": board, "b/leaderboard.sqlite.lock": hold("b/leaderboard.sqlite.lock")}),
    CliCase("lb-second-board-while-first-runs", (LB, "--datasets", "iris", "--criteria", "gini", "--folds", "3",
                                                 "--out", "b", "-q"),
            r"being written by another treebench run; wait for it or choose another --out$",
            files={"b": board, "b/leaderboard.sqlite.lock": hold("b/leaderboard.sqlite.lock")}),
    CliCase("lb-board-lock-held", (*BOARD, "--folds", "3", "--out", "b"),
            r"^error: --out 'b': another treebench leaderboard is running in this folder; wait for it",
            files={"b": board, "b/.leaderboard.lock": hold("b/.leaderboard.lock")}),
    CliCase("lb-dry-run-while-board-runs", (*BOARD, "--folds", "3", "--out", "b", "--dry-run"),
            r"another treebench leaderboard is running in this folder",
            files={"b": board, "b/.leaderboard.lock": hold("b/.leaderboard.lock")}),
    CliCase("lb-unknown-criterion-on-a-board", (LB, "--datasets", "iris", "--criteria", "entropy,nosuch", "--out", "b"),
            r"unknown criterion or baseline 'nosuch'", files={"b": board}),
    CliCase("lb-too-many-folds-creates-nothing", (*BOARD, "--folds", "1000", "--out", "new/board"),
            r"^error: --folds 1000: dataset 'iris': cannot make 1000 folds of 150 rows; accepted: 2 <= folds <= 150 "
            r"\(or leave the dataset out of --suite/--datasets\)$"),
    CliCase("lb-out-parent-is-a-file", (*BOARD, "--folds", "3", "--out", "f/board"),
            rf"^error: --out 'f/board': 'f' is a file, not a folder; {ACCEPT_FOLDER}", files={"f": FILE}),
    CliCase("lb-out-is-a-file", (*BOARD, "--folds", "3", "--out", "f"),
            rf"^error: --out 'f': 'f' is a file, not a folder; {ACCEPT_FOLDER}", files={"f": FILE}),
    CliCase("lb-page-file-is-a-folder", (*BOARD, "--folds", "3", "--out", "c"),
            rf"^error: --out 'c': 'c/index\.html' is a folder, not a file; {ACCEPT_FILE}",
            files={"c/index.html/keep": "x"}),
    CliCase("lb-config-file-is-a-folder", (*BOARD, "--folds", "3", "--out", "c"),
            rf"'c/config-1\.yaml' is a folder, not a file; {ACCEPT_FILE}", files={"c/config-1.yaml/keep": "x"}),
    CliCase("lb-store-is-a-folder", (*BOARD, "--folds", "3", "--out", "c"),
            r"results store '.*/c/leaderboard\.sqlite' is a folder", files={"c/leaderboard.sqlite/keep": "x"}),
    # -- plot tree: its own --out, and the default folder
    CliCase("tree-out-parent-is-a-file", ("plot", "tree", "c.yaml", "--out", "f/t"),
            rf"^error: --out 'f/t': 'f' is a file, not a folder; {ACCEPT_FILE}",
            files={"c.yaml": tree_config("iris-pair"), "f": FILE}),
    CliCase("tree-png-is-a-folder", ("plot", "tree", "c.yaml", "--out", "t"),
            rf"'t\.png' is a folder, not a file; {ACCEPT_FILE}",
            files={"c.yaml": tree_config("iris-pair"), "t.png/keep": "x"}),
    CliCase("tree-dot-is-a-folder-nothing-drawn", ("plot", "tree", "c.yaml", "--out", "t.png"),
            rf"'t\.dot' is a folder, not a file; {ACCEPT_FILE}",
            files={"c.yaml": tree_config("iris-pair"), "t.dot/keep": "x"}),
    CliCase("tree-hostile-label-default-folder-is-a-file", ("plot", "tree", "c.yaml"),
            rf"'results/plots' is a file, not a folder; {ACCEPT_FILE}",
            files={"c.yaml": tree_config("../../escape"), "results/plots": FILE}),
    # -- plot scores
    CliCase("scores-out-parent-is-a-file", ("plot", "scores", "s.sqlite", "--out", "f/x"),
            rf"^error: --out 'f/x': 'f' is a file, not a folder; {ACCEPT_FILE}", files={"s.sqlite": store, "f": FILE}),
    CliCase("scores-svg-is-a-folder", ("plot", "scores", "s.sqlite", "--out", "x"),
            rf"'x\.svg' is a folder, not a file; {ACCEPT_FILE}", files={"s.sqlite": store, "x.svg/keep": "x"}),
    CliCase("scores-default-results-is-a-file", ("plot", "scores", "s.sqlite"),
            rf"'results' is a file, not a folder; {ACCEPT_FILE}", files={"s.sqlite": store, "results": FILE}),
    # -- compare
    # issue 43 F9: a writer never replaces its own input (config, store, predictions) or a config/plugin-named file
    CliCase("compare-out-is-its-config", ("compare", "c.yaml", "--out", "c.yaml"),
            r"^error: --out 'c\.yaml' is named like a YAML config file, which this command never writes \(it would "
            rf"replace one\); {ACCEPT_FILE[:-1]} with the suffix of its format$",
            files={"c.yaml": STORE_CONFIG.replace("STORE", "s.sqlite"), "s.sqlite": store}),
    CliCase("compare-out-links-to-its-config", ("compare", "c.yaml", "--out", "l.md"),
            r"^error: --out 'l\.md' is the results file \('c\.yaml'\) this command reads; writing there would "
            rf"replace its own input; {ACCEPT_FILE[:-1]} that is none of its inputs$",
            files={"c.yaml": STORE_CONFIG.replace("STORE", "s.sqlite"), "s.sqlite": store,
                   "l.md": lambda folder: os.symlink("c.yaml", folder / "l.md")}),
    CliCase("export-out-is-a-config", ("results", "export", "s.sqlite", "--out", "c.yaml"),
            r"^error: --out 'c\.yaml' is named like a YAML config file",
            files={"c.yaml": STORE_CONFIG.replace("STORE", "s.sqlite"), "s.sqlite": store}),
    CliCase("certainty-out-is-a-plugin", ("certainty", "iris", "--out", "p.py"),
            r"^error: --out 'p\.py' is named like a Python plugin file", files={"p.py": "X = 1\n"}),
    CliCase("compare-out-parent-is-a-file", ("compare", "s.sqlite", "--out", "f/t.md"),
            rf"^error: --out 'f/t\.md': 'f' is a file, not a folder; {ACCEPT_FILE}",
            files={"s.sqlite": store, "f": FILE}),
    CliCase("compare-bad-plot-writes-no-table", ("compare", "s.sqlite", "--test", "bayes", "--out", "t.md",
                                                 "--plot", "f/p"),
            rf"^error: --plot 'f/p': 'f' is a file, not a folder; {ACCEPT_FILE}", files={"s.sqlite": store, "f": FILE}),
    # -- certainty (paper 003)
    CliCase("certainty-plot-parent-is-a-file", ("certainty", "iris", "--plot", "f/p"),
            rf"^error: --plot 'f/p': 'f' is a file, not a folder; {ACCEPT_FILE}", files={"f": FILE}),
    CliCase("certainty-plot-png-is-a-folder", ("certainty", "iris", "--plot", "p"),
            rf"'p\.png' is a folder, not a file; {ACCEPT_FILE}", files={"p.png/keep": "x"}),
    CliCase("certainty-bad-plot-writes-no-table", ("certainty", "iris", "--out", "t.md", "--plot", "f/p.png"),
            r"^error: --plot 'f/p\.png': 'f' is a file, not a folder", files={"f": FILE}),
    CliCase("certainty-out-parent-is-a-file", ("certainty", "iris", "--out", "f/t.md"),
            rf"^error: --out 'f/t\.md': 'f' is a file, not a folder; {ACCEPT_FILE}", files={"f": FILE}),
    # -- reproduce: refused before any run
    CliCase("reproduce-out-dir-parent-is-a-file", ("reproduce", "mee", "--no-run", "--out-dir", "f/x"),
            rf"^error: --out-dir 'f/x': 'f' is a file, not a folder; {ACCEPT_FOLDER}", files={"f": FILE}),
    CliCase("reproduce-all-out-dir-parent-is-a-file", ("reproduce", "--all", "--no-run", "--out-dir", "f/x"),
            rf"^error: --out-dir 'f/x': 'f' is a file, not a folder; {ACCEPT_FOLDER}", files={"f": FILE}),
    # -- results export
    CliCase("export-out-parent-is-a-file", ("results", "export", "s.sqlite", "--out", "f/t.csv"),
            rf"^error: --out 'f/t\.csv': 'f' is a file, not a folder; {ACCEPT_FILE}",
            files={"s.sqlite": store, "f": FILE}),
    CliCase("export-out-is-a-folder", ("results", "export", "s.sqlite", "--out", "d"),
            r"^error: --out 'd' is a folder; accepted: a file path", files={"s.sqlite": store, "d/keep": "x"}),
    # -- an empty path is refused by name, never read as the current folder (or the default file)
    CliCase("reproduce-out-dir-empty", ("reproduce", "mee", "--no-run", "--out-dir", ""),
            rf"^error: --out-dir '': the path is empty; {ACCEPT_FOLDER}"),
    CliCase("reproduce-all-out-dir-blank", ("reproduce", "--all", "--no-run", "--out-dir", " "),
            rf"^error: --out-dir ' ': the path is empty; {ACCEPT_FOLDER}"),
    CliCase("export-out-empty", ("results", "export", "s.sqlite", "--out", ""),
            rf"^error: --out '': the path is empty; {ACCEPT_FILE}", files={"s.sqlite": store}),
    CliCase("compare-out-empty", ("compare", "s.sqlite", "--out", ""),
            rf"^error: --out '': the path is empty; {ACCEPT_FILE}", files={"s.sqlite": store}),
    CliCase("compare-plot-empty", ("compare", "s.sqlite", "--test", "bayes", "--plot", ""),
            rf"^error: --plot '': the path is empty; {ACCEPT_FILE}", files={"s.sqlite": store}),
    CliCase("certainty-out-empty", ("certainty", "iris", "--out", ""), rf"^error: --out '': the path is empty; {ACCEPT_FILE}"),
    CliCase("lb-out-empty", (*BOARD, "--folds", "3", "--out", ""), rf"^error: --out '': the path is empty; {ACCEPT_FOLDER}"),
    CliCase("run-store-empty", ("run", "c.yaml", "--store", ""), rf"^error: --store '': the path is empty; {ACCEPT_FILE}",
            files={"c.yaml": STORE_CONFIG.replace("STORE", "x.sqlite")}),
    # -- a trailing separator names a folder where a file goes; a store's -wal/-shm is part of the store
    CliCase("plot-out-trailing-slash", ("plot", "scores", "s.sqlite", "--out", "figs/"),
            rf"^error: --out 'figs/' ends with a separator, so it names a folder; {ACCEPT_FILE[:-1]} \(no trailing '/'\)$",
            files={"s.sqlite": store}),
    CliCase("run-store-trailing-slash", ("run", "c.yaml", "--store", "st/"), r"^error: --store 'st/' ends with a separator",
            files={"c.yaml": STORE_CONFIG.replace("STORE", "x.sqlite")}),
    CliCase("export-onto-a-stores-wal", ("results", "export", "s.sqlite", "--out", "s.sqlite-wal"),
            r"^error: --out 's\.sqlite-wal': 's\.sqlite-wal' is the wal file of results store 's\.sqlite'; writing there "
            r"would damage it", files={"s.sqlite": store}),
    CliCase("compare-onto-a-stores-journal", ("compare", "s.sqlite", "--out", "s.sqlite-journal"),
            r"is the journal file of results store 's\.sqlite'", files={"s.sqlite": store}),
    # -- a place nobody can write, root included (/proc takes no new files or folders)
    CliCase("lb-out-under-proc", (*BOARD, "--folds", "3", "--out", "/proc/treebench-board"),
            rf"^error: --out '/proc/treebench-board': cannot write in '/proc' .*; {ACCEPT_FOLDER}"),
    CliCase("export-out-under-proc-pid", ("results", "export", "s.sqlite", "--out", "/proc/self/t.csv"),
            rf"^error: --out '/proc/self/t\.csv': folder '/proc/self' is not writable; {ACCEPT_FILE}",
            files={"s.sqlite": store}),
    # ... and says why, not the system's "No such file or directory" (that /proc gives for a new file)
    CliCase("lb-out-proc-says-why", (*BOARD, "--folds", "3", "--out", "/proc/rtx"),
            rf"^error: --out '/proc/rtx': cannot write in '/proc' \({NO_NEW_FILES}\); {ACCEPT_FOLDER}"),
    CliCase("export-out-file-under-proc-says-why", ("results", "export", "s.sqlite", "--out", "/proc/rtx/x.csv"),
            rf"^error: --out '/proc/rtx/x\.csv': cannot write in '/proc' \({NO_NEW_FILES}\); {ACCEPT_FILE}",
            files={"s.sqlite": store}),
    CliCase("reproduce-out-dir-under-proc-says-why", ("reproduce", "tsallis", "--out-dir", "/proc/rtx"),
            rf"^error: --out-dir '/proc/rtx': cannot write in '/proc' \({NO_NEW_FILES}\); {ACCEPT_FOLDER}"),
    CliCase("certainty-plot-under-proc-says-why", ("certainty", "iris", "--plot", "/proc/rtx/a"),
            rf"^error: --plot '/proc/rtx/a': cannot write in '/proc' \({NO_NEW_FILES}\); {ACCEPT_FILE}"),
    # -- issue 43: a name too long for the file system is refused by export as by every writer (no OSError 36)
    # an empty store or source path is said to be empty, not "'.' is a folder"
    CliCase("export-store-empty-path", ("results", "export", "", "--out", "x.csv"),
            r"^error: the results store path is empty; accepted: a results store file \(\.sqlite\)$"),
    CliCase("compare-source-empty-path", ("compare", ""),
            r"^error: the source path is empty; accepted: a results store \(\.sqlite\), an experiment config"),
    CliCase("show-metric-twice", ("results", "show", "s.sqlite", "--metric", "accuracy", "--metric", "accuracy"),
            r"^error: --metric names 'accuracy' twice; accepted: each metric once$", files={"s.sqlite": store}),
    CliCase("export-out-name-too-long", ("results", "export", "s.sqlite", "--out", "y" * 300 + ".csv"),
            r"^error: --out 'y{300}\.csv': the name 'y{24}'\.\.\. is 304 bytes long; accepted: a file path, or - for "
            r"stdout, each name at most 255 bytes$", files={"s.sqlite": store}),
    CliCase("export-predictions-name-too-long", ("results", "export", "s.sqlite", "--predictions",
                                                 "--out", "y" * 300 + ".csv"),
            r"^error: --out 'y{300}\.csv': the name 'y{24}'\.\.\. is 304 bytes long; .*each name at most 255 bytes$",
            files={"s.sqlite": store}),
    CliCase("export-parquet-folder-name-too-long", ("results", "export", "s.sqlite", "--format", "parquet",
                                                    "--out", "d" * 300 + "/t.parquet"),
            r"^error: --out 'd{300}/t\.parquet': the name 'd{24}'\.\.\. is 300 bytes long; .*at most 255 bytes$",
            files={"s.sqlite": store}),
    # -- an --out whose suffix says another format than --format: the readers go by the suffix, so the file
    #    would later be refused as damaged ("Parquet magic bytes not found")
    CliCase("export-csv-into-a-parquet-name", ("results", "export", "s.sqlite", "--out", "out.parquet"),
            r"^error: --out 'out\.parquet' names a parquet file, but --format is csv; accepted: --format parquet, or "
            r"--out ending in \.csv \(or a suffix naming no format\)$", files={"s.sqlite": store}),
    CliCase("export-predictions-parquet-into-a-csv-name", ("results", "export", "s.sqlite", "--predictions",
                                                           "--format", "parquet", "--out", "out.csv"),
            r"^error: --out 'out\.csv' names a csv file, but --format is parquet; accepted: --format csv, or --out "
            r"ending in \.parquet \(or a suffix naming no format\)$", files={"s.sqlite": store}),
    # the same for compare's and certainty's tables: an HTML file holding Markdown would open as raw text
    CliCase("compare-markdown-into-an-html-name", ("compare", "s.sqlite", "--out", "t.html"),
            r"^error: --out 't\.html' names a html file, but --format is md; accepted: --format html, or --out "
            r"ending in \.md \(or a suffix naming no format\)$", files={"s.sqlite": store}),
    CliCase("compare-latex-into-a-markdown-name", ("compare", "s.sqlite", "--format", "latex", "--out", "t.md"),
            r"^error: --out 't\.md' names a md file, but --format is latex; accepted: --format md, or --out "
            r"ending in \.tex", files={"s.sqlite": store}),
    CliCase("certainty-csv-into-a-markdown-name", ("certainty", "iris", "--format", "csv", "--out", "c.md"),
            r"^error: --out 'c\.md' names a md file, but --format is csv; accepted: --format md, or --out "
            r"ending in \.csv"),
    # a posterior plot that cannot be drawn is refused before the table is written (it printed the table first)
    CliCase("compare-bayes-plot-of-one-algorithm", ("compare", "s.sqlite", "--test", "bayes", "--plot", "p",
                                                    "--algorithms", "entropy", "--out", "t.md"),
            r"^error: --plot 'p': nothing to plot: .*; accepted: --test bayes over at least two algorithms$",
            files={"s.sqlite": store}),
    # -- issue 43: one option's file is a file another option of the command writes: refused, naming both
    CliCase("certainty-out-is-the-plots-png", ("certainty", "iris", "--out", "x/b4.png", "--plot", "x/b4"),
            r"^error: --out 'x/b4\.png' is the file --plot 'x/b4' draws \('x/b4\.png'\); accepted: an --out file "
            r"that is not one of --plot's figures \(\.png, \.svg\)$"),
    CliCase("certainty-out-is-the-plots-svg-by-another-path", ("certainty", "iris", "--out", "x/../b4.svg",
                                                               "--plot", "b4.png"),
            r"^error: --out 'x/\.\./b4\.svg' is the file --plot 'b4\.png' draws \('b4\.svg'\)",
            files={"x/keep": "x", "b4.svg": "an old figure\n"}),
    CliCase("compare-out-is-the-bayes-plots-png", ("compare", "s.sqlite", "--test", "bayes", "--plot", "X",
                                                   "--out", "X.png"),
            r"^error: --out 'X\.png' is the file --plot 'X' draws \('X\.png'\); accepted: an --out file that is "
            r"not one of --plot's figures", files={"s.sqlite": store}),
    # -- options the chosen --test / --format would not read: refused, never ignored without a word
    CliCase("compare-rope-without-bayes", ("compare", "s.sqlite", "--rope", "2", "--out", "t.md"),
            r"^error: --rope is read by --test bayes only .*--test corrected-ttest ignores it", files={"s.sqlite": store}),
    CliCase("compare-samples-without-bayes", ("compare", "s.sqlite", "--test", "wilcoxon", "--samples", "10"),
            r"^error: --samples is read by --test bayes only", files={"s.sqlite": store}),
    CliCase("compare-standalone-with-md", ("compare", "s.sqlite", "--standalone", "--out", "t.md"),
            r"^error: --standalone makes a complete LaTeX document; --format md ignores it", files={"s.sqlite": store}),
    CliCase("compare-paired-with-ttest", ("compare", "s.sqlite", "--test", "ttest", "--paired", "corrected-ttest"),
            r"^error: --paired chooses the marks' test under an across-dataset test", files={"s.sqlite": store}),
    CliCase("compare-ratio-with-plain-ttest", ("compare", "s.sqlite", "--test", "ttest", "--test-train-ratio", "0.2"),
            r"^error: --test-train-ratio is read by the corrected t-test only; the marks here use ttest",
            files={"s.sqlite": store}),
    # -- a board never replaces or removes its own inputs in --out
    CliCase("lb-suite-file-named-like-a-board-config", (LB, "--suite", "b/config-1.yaml", "--out", "b", "--dry-run"),
            r"^error: --suite 'b/config-1\.yaml' lies in --out 'b' under a name the board writes or removes",
            files={"b/config-1.yaml": "iris\nwine\n"}),
]


@needs_mirror
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_refused_writer_changes_nothing(case: CliCase, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    write_files(case.files, tmp_path)
    before = tree_digest(tmp_path)
    # the files are in place already; the harness checks the rest (exit, one line, no traceback)
    run_cli_case(dataclasses.replace(case, files={}, unchanged=tuple(case.files)), tmp_path, capsys)
    after = tree_digest(tmp_path)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"{case.id}: the case folder changed: {changed}"


# --------------------------------------------------------------------------- valid controls
def _run(folder: Path, argv: list[str], capsys) -> str:
    capsys.readouterr()
    _in(folder, argv)
    return capsys.readouterr().out


@needs_mirror
def test_a_board_rerun_with_its_own_options_still_works_and_keeps_its_configs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    _in(tmp_path, [*BOARD, "--folds", "3", "--out", "b"])  # its own board: a copy's configs name the original store
    configs = {p.name: p.read_bytes() for p in (tmp_path / "b").glob("config-*.yaml")}
    out = _run(tmp_path, [*BOARD, "--folds", "3", "--out", "b"], capsys)
    assert "0 trials computed, 6 already stored" in out
    assert {p.name: p.read_bytes() for p in (tmp_path / "b").glob("config-*.yaml")} == configs
    assert not [p for p in tmp_path.rglob("*") if ".tmp" in p.name]


@needs_mirror
def test_a_board_rerun_naming_a_dataset_by_its_openml_id_runs_it_under_the_boards_name(tmp_path, monkeypatch,
                                                                                      capsys):
    """Issue 43 M4: 'openml:61' on a board holding iris was refused as leaving iris out, and naming iris too was
    refused as the same table twice; it is now the board's iris, said on stderr, and nothing is recomputed."""
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    _in(tmp_path, [*BOARD, "--folds", "3", "--out", "b"])  # its own board: a copy's configs name the original store
    capsys.readouterr()
    code = _status(tmp_path, [LB, "--datasets", "openml:61,wine", "--criteria", "entropy", "--folds", "3", "--out",
                              "b", "--jobs", "1", "-q"])
    out = capsys.readouterr()
    assert code == 0, out.err
    # an OpenML id of a card is named by the card, here the board's own name for the table
    assert "note: 'openml:61' is the dataset card 'iris'; the board names it 'iris'" in out.err
    assert "0 trials computed, 6 already stored" in out.out
    import sqlite3

    with sqlite3.connect(tmp_path / "b" / "leaderboard.sqlite") as conn:
        assert {row[0] for row in conn.execute("SELECT DISTINCT dataset FROM trials")} == {"iris", "wine"}


@needs_mirror
def test_a_board_extended_with_more_criteria_shows_the_old_and_the_new(tmp_path, monkeypatch, capsys):
    """The accepted way to add a criterion: name the old ones too; the page then ranks both."""
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    board(tmp_path)
    out = _run(tmp_path, [LB, "--datasets", "iris,wine", "--criteria", "entropy,gini", "--folds", "3", "--out", "b",
                          "--jobs", "1", "-q"], capsys)
    assert "6 trials computed, 6 already stored" in out
    import pandas as pd

    table = pd.read_csv(tmp_path / "b" / "leaderboard.csv")
    assert sorted(table["algorithm"].astype(str)) == ["entropy", "gini"]
    assert (table["n_datasets"] == 2).all()


@needs_mirror
def test_a_refused_rerun_leaves_configs_and_store_so_the_board_still_resumes(tmp_path, monkeypatch, capsys):
    """After a refused --folds 5, the 3-fold board's configs still describe its store: a rerun resumes."""
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    _in(tmp_path, [*BOARD, "--folds", "3", "--out", "b"])
    assert _status(tmp_path, [*BOARD, "--folds", "5", "--out", "b"]) == 2
    text = (tmp_path / "b" / "config-1.yaml").read_text(encoding="utf-8")
    assert "folds: 3" in text and "folds: 5" not in text
    assert "holds 6 finished trials" in _run(tmp_path, ["run", "b/config-1.yaml", "--dry-run"], capsys)


@needs_mirror
@pytest.mark.filterwarnings("ignore:Glyph 9")  # the tab of a label, drawn in the title
def test_hostile_labels_name_files_inside_the_plots_folder(tmp_path, monkeypatch, capsys):
    """``../``, an absolute path, 300 characters and two labels that clean up alike: each tree gets its own
    PNG, SVG and DOT inside results/plots, with a bounded name."""
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    outside = tmp_path / "outside"
    # 200 characters: the longest label a config accepts (issue 43 F3), still twice a file name's bound
    labels = ["../../escape", f"{outside}/abs", "L" * 200, "a/b", "a_b", "tab\there"]
    (tmp_path / "work").mkdir()
    plots = tmp_path / "work" / "results" / "plots"
    names: set[str] = set()
    for label in labels:  # one config each: one table under several labels is refused (counted twice)
        (tmp_path / "work" / "c.yaml").write_text(tree_config(label), encoding="utf-8")
        written = _run(tmp_path / "work", ["plot", "tree", "c.yaml", "--dataset", label], capsys)
        paths = [(tmp_path / "work" / line.removeprefix("wrote ")).resolve() for line in written.splitlines()]
        assert sorted(p.suffix for p in paths) == [".dot", ".png", ".svg"], written
        for path in paths:
            assert path.parent == plots.resolve() and path.is_file() and len(path.name) < 255, path
        names |= {p.name for p in paths}
    assert len(names) == 3 * len(labels)  # no two labels share a file
    assert not outside.exists() and not (tmp_path / "escape").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"]
    assert not [p for p in plots.iterdir() if ".tmp" in p.name]


@needs_mirror
def test_a_dotted_out_keeps_its_dots(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    (tmp_path / "c.yaml").write_text(tree_config("iris-pair"), encoding="utf-8")
    _run(tmp_path, ["plot", "tree", "c.yaml", "--out", "figs/tree.v2"], capsys)
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == ["tree.v2.dot", "tree.v2.png", "tree.v2.svg"]


# --------------------------------------------------------------------------- the module itself
def test_safe_name_keeps_plain_names_and_cleans_every_hostile_one():
    from treebench.outpaths import safe_name

    for plain in ("iris", "c4.5", "tsallis_q=2", "openml-task:1".replace(":", "-")):
        assert safe_name(plain) == plain
    hostile = ["..", "../x", "/etc/passwd", "a\x00b", "a\nb", "\x1b[31m", "", ".hidden", "a" * 500, "é/ü"]
    made = [safe_name(text) for text in hostile]
    for text, name in zip(hostile, made):
        assert name and len(name) <= 100, (text, name)
        assert "/" not in name and "\\" not in name and ".." not in name and not name.startswith("."), (text, name)
        assert name.isprintable(), (text, name)
    assert len(set(made)) == len(made)
    assert safe_name("a/b") != safe_name("a_b") != safe_name("a:b") != safe_name("a/b")
    assert len(safe_name("x" * 500, limit=40)) == 40


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    from treebench.outpaths import write_text, write_with

    target = tmp_path / "page.html"
    write_text(target, "old")

    def broken(tmp: Path) -> None:
        tmp.write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(TreebenchError, match=r"cannot write '.*page\.html' \(No space left on device\)"):
        write_with(target, broken)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]
    with pytest.raises(RuntimeError):  # any other failure: still no temporary
        write_with(target, lambda tmp: (_ for _ in ()).throw(RuntimeError("boom")))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


def test_a_written_file_gets_the_usual_permissions_and_a_folder_its_parents(tmp_path):
    from treebench.outpaths import make_folder, write_bytes

    path = write_bytes(tmp_path / "a" / "b" / "x.bin", b"\x00\x01")
    assert path.read_bytes() == b"\x00\x01"
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask
    assert make_folder(tmp_path / "a" / "b").is_dir()  # existing: nothing to do


def test_the_systems_refusals_are_phrased_with_the_reason_that_points_the_right_way(tmp_path):
    import errno

    from treebench.outpaths import os_reason

    enoent = OSError(errno.ENOENT, "No such file or directory")
    # an existing folder that takes no new file (/proc) is not a missing folder ...
    assert os_reason(enoent, Path("/proc")) == ("the file system there takes no new files or folders: a virtual one, "
                                                "such as /proc or /sys")
    assert os_reason(enoent, Path("/proc/x.sqlite.lock")).startswith("the file system there takes no new files")
    # ... and a missing folder is named: the first one missing on the way
    assert os_reason(enoent, tmp_path / "gone" / "deeper" / "x.csv") == f"its folder {str(tmp_path / 'gone')!r} does not exist"
    assert os_reason(OSError(errno.EROFS, "Read-only file system"), tmp_path) == "the file system there is read-only"
    assert os_reason(OSError(errno.EACCES, "Permission denied"), tmp_path).startswith("permission denied")
    assert os_reason(OSError(errno.ENOSPC, "No space left on device"), tmp_path) == "No space left on device"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a chmod 0o500 folder anyway; "
                                               "the /proc cases above cover an unwritable place for root")
def test_a_read_only_folder_is_named(tmp_path):
    from treebench.outpaths import make_folder

    locked = tmp_path / "ro"
    locked.mkdir(mode=0o500)
    try:
        with pytest.raises(TreebenchError, match=r"folder '.*ro' is not writable; accepted: a folder path"):
            make_folder(locked / "x", "--out 'x'")
    finally:
        locked.chmod(0o700)


def test_a_new_board_names_a_card_given_by_its_openml_id_by_the_card(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    _in(tmp_path, [LB, "--datasets", "openml:61,wine", "--criteria", "gini", "--out", "b", "--dry-run"])
    captured = capsys.readouterr()
    assert "note: 'openml:61' is the dataset card 'iris'; the board names it 'iris'" in captured.err
    text = (tmp_path / "b" / "config-1.yaml").read_text(encoding="utf-8")
    assert "- iris" in text and "openml:61" not in text


def test_a_dry_run_says_what_a_run_would_stop_at(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.yaml").write_text(STORE_CONFIG.replace("STORE", "p.sqlite") + "predictions: true\n",
                                     encoding="utf-8")
    (tmp_path / "p.sqlite.predictions").write_text("a file where the predictions folder goes\n", encoding="utf-8")
    before = tree_digest(tmp_path)
    capsys.readouterr()
    _in(tmp_path, ["run", "p.yaml", "--dry-run"])
    err = capsys.readouterr().err
    assert "warning: a run would stop here: the kept predictions folder 'p.sqlite.predictions'" in err
    assert tree_digest(tmp_path) == before
