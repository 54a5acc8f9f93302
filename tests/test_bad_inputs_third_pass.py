"""Issue 43, the third independent hostile pass: what it found, each a case that must end cleanly.

Each :class:`~badinput.CliCase` asserts the exit status, one line on stderr without a
traceback, and that its files (stores, boards, configs) are unchanged; the controls
check that the valid neighbour of each case still works.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from badinput import CliCase, cli_in, run_cli_case, tree_digest, write_files
from test_bad_inputs_outputs import MIRROR, board, needs_mirror, store

from treebench.outpaths import safe_name

#: Two labels of one fixed train/test pair: the second is the first table again.
TWICE = """experiment: twice
seed: 0
datasets:
  - {name: m1, train: monks-1-train, test: monks-1-test}
  - {name: m1b, train: monks-1-train, test: monks-1-test}
protocol: {type: cv, folds: 3}
algorithms:
  - {name: entropy, criterion: entropy}
store: twice.sqlite
"""

CASES = [
    # a store's lock (and its SQLite companions, a board's lock) is the store's: a table written over it let a
    # second run write beside the first
    CliCase("compare-out-is-the-stores-lock", ("compare", "s.sqlite", "--out", "s.sqlite.lock"),
            r"^error: --out 's\.sqlite\.lock': 's\.sqlite\.lock' is the writer lock of results store 's\.sqlite'",
            files={"s.sqlite": store, "s.sqlite.lock": ""}),
    CliCase("compare-out-is-the-stores-wal", ("compare", "s.sqlite", "--out", "s.sqlite-wal"),
            r"^error: --out 's\.sqlite-wal': 's\.sqlite-wal' is the wal file of results store 's\.sqlite'",
            files={"s.sqlite": store}),
    CliCase("compare-out-is-the-boards-lock", ("compare", "b/leaderboard.sqlite", "--out", "b/.leaderboard.lock"),
            r"^error: --out 'b/\.leaderboard\.lock': 'b/\.leaderboard\.lock' is a leaderboard's lock", files={"b": board}),
    CliCase("export-out-is-the-stores-lock", ("results", "export", "s.sqlite", "--out", "s.sqlite.lock"),
            r"^error: --out 's\.sqlite\.lock': 's\.sqlite\.lock' is the writer lock of results store",
            files={"s.sqlite": store, "s.sqlite.lock": ""}),
    # one fixed train/test pair under two labels: one table twice, refused like a card and its alias
    CliCase("config-one-fixed-split-twice", ("run", "twice.yaml", "--dry-run"),
            r"^error: twice\.yaml:5: datasets\[1\]: dataset 'm1b' is the same table as 'm1' \(train 'monks-1-train' "
            r"and test 'monks-1-test', the same protocol\); accepted: each dataset once$",
            files={"twice.yaml": TWICE}),
    CliCase("plot-config-one-fixed-split-twice", ("plot", "tree", "twice.yaml", "--dataset", "m1",
                                                  "--algorithm", "entropy"),
            r"dataset 'm1b' is the same table as 'm1'", files={"twice.yaml": TWICE}),
]


@needs_mirror
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_third_pass_input_ends_in_one_line_and_changes_nothing(case: CliCase, tmp_path: Path, monkeypatch,
                                                                   capsys) -> None:
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    write_files(case.files, tmp_path)
    before = tree_digest(tmp_path)
    run_cli_case(dataclasses.replace(case, files={}, unchanged=tuple(case.files)), tmp_path, capsys)
    assert tree_digest(tmp_path) == before, f"{case.id}: the case folder changed"


def test_out_dash_is_standard_output(tmp_path: Path, monkeypatch, capsys) -> None:
    from treebench.cli import main

    store(tmp_path)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    try:
        main(["compare", "s.sqlite", "--out", "-"])
    except SystemExit as done:
        assert done.code in (0, None)
    assert "| dataset |" in capsys.readouterr().out and not (tmp_path / "-").exists()


def test_file_names_from_labels_are_bounded_in_bytes_and_never_collide():
    # a valid label of 150 three-byte characters: its name fits a file system's 255-byte limit
    name = safe_name("漢" * 150)
    assert len(name.encode("utf-8")) <= 100 and name.startswith("漢")
    # a label that already looks like another's changed name keeps a name of its own
    assert safe_name("a/b") == safe_name("a/b") != safe_name(safe_name("a/b"))
    assert safe_name("deadbeef") != "deadbeef" and safe_name("iris") == "iris"


def _config(folder: Path, name: str, algorithms: str, predictions: bool, extra: str = "") -> None:
    (folder / name).write_text(
        "experiment: mixed\nseed: 0\ndatasets: [iris]\nprotocol: {type: cv, folds: 2, repeats: 1}\n"
        f"predictions: {'true' if predictions else 'false'}\n{extra}algorithms:\n{algorithms}store: m.sqlite\n",
        encoding="utf-8")


def test_trials_run_without_predictions_are_counted_as_keeping_none_not_as_damaged(tmp_path: Path, capsys) -> None:
    _config(tmp_path, "a.yaml", "  - {name: entropy, criterion: entropy}\n", True)
    _config(tmp_path, "b.yaml", "  - {name: entropy, criterion: entropy}\n  - {name: gini, criterion: gini}\n", False)
    assert cli_in(tmp_path, capsys, "run", "a.yaml", "-q", "-j", "1")[0] == 0
    assert cli_in(tmp_path, capsys, "run", "b.yaml", "-q", "-j", "1")[0] == 0
    code, _, err = cli_in(tmp_path, capsys, "results", "export", "m.sqlite", "--predictions", "--out", "p.csv")
    assert code == 0, err
    import re

    assert re.search(r"^note: 2 finished trials kept no predictions \(run with predictions: false, or stored before the "
                     r"store recorded checksums\) and are left out: iris / gini repeat 0 fold 0 \(trial [0-9a-f]{12}\), "
                     r"iris / gini repeat 0 fold 1 \(trial [0-9a-f]{12}\)$", err, re.M), err
    assert "failed verification" not in err and "is missing" not in err
    # a file deleted from a trial that recorded one is still named as missing
    folder = tmp_path / "m.sqlite.predictions"
    next(folder.glob("*.npz")).unlink()
    code, _, err = cli_in(tmp_path, capsys, "results", "export", "m.sqlite", "--predictions", "--out", "q.csv")
    assert code == 2 and "is missing" in err


PLUGIN_RAISES = '''
from treebench.criteria import Criterion, register


@register
class Boom(Criterion):
    name = "boom"
    summary = "raises"

    def node_value(self, counts):
        return 0.0

    def split_scores(self, parent, children, context=None):
        raise RuntimeError("boom")
'''


def test_a_trial_that_failed_is_named_by_plot_tree_and_export(tmp_path: Path, capsys) -> None:
    (tmp_path / "boom.py").write_text(PLUGIN_RAISES, encoding="utf-8")
    _config(tmp_path, "f.yaml", "  - {name: boom, criterion: boom}\n", True, extra="plugins: [boom.py]\n")
    assert cli_in(tmp_path, capsys, "run", "f.yaml", "-q", "-j", "1")[0] != 0  # every trial failed, one line each
    before = tree_digest(tmp_path)
    code, _, err = cli_in(tmp_path, capsys, "plot", "tree", "f.yaml", "--dataset", "iris", "--algorithm", "boom",
                        "--out", "t")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "'boom' on 'iris' repeat 0, fold 0 failed in the run (RuntimeError: boom" in err
    code, _, err = cli_in(tmp_path, capsys, "results", "export", "m.sqlite", "--predictions", "--out", "e.csv")
    assert code == 2 and "holds no finished trial (2 stored, none ok" in err
    assert tree_digest(tmp_path) == before


def test_a_moved_board_config_and_a_foreign_page_folder_are_refused(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    board_args = ("leaderboard", "--datasets", "iris", "--criteria", "gini", "--folds", "3", "-q", "-j", "1")
    assert cli_in(tmp_path, capsys, *board_args, "--out", "lbA")[0] == 0
    (tmp_path / "lbA").rename(tmp_path / "lbB")
    code, _, err = cli_in(tmp_path, capsys, "compare", "lbB/config-1.yaml")
    assert code == 2 and "names the store" in err and "the folder was moved or copied" in err
    # rerun on its new folder, the board rewrites its configs, which then read its own store
    assert cli_in(tmp_path, capsys, *board_args, "--out", "lbB")[0] == 0
    assert cli_in(tmp_path, capsys, "compare", "lbB/config-1.yaml")[0] == 0
    # a folder holding a page that is no board's (a reproduce page) is not overwritten
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<html>the papers' page</html>", encoding="utf-8")
    before = tree_digest(tmp_path / "site")
    code, _, err = cli_in(tmp_path, capsys, *board_args, "--out", "site")
    assert code == 2 and "holds index.html but no leaderboard.sqlite" in err
    assert tree_digest(tmp_path / "site") == before
