"""Issue 43, the third independent hostile pass: what it found, each a case that must end cleanly.

Each :class:`~badinput.CliCase` asserts the exit status, one line on stderr without a
traceback, and that its files (stores, boards, configs) are unchanged; the controls
check that the valid neighbour of each case still works.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from badinput import CliCase, run_cli_case, tree_digest, write_files
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
            r"^error: --out 's\.sqlite\.lock' is the store's writer lock \('s\.sqlite\.lock'\)",
            files={"s.sqlite": store, "s.sqlite.lock": ""}),
    CliCase("compare-out-is-the-stores-wal", ("compare", "s.sqlite", "--out", "s.sqlite-wal"),
            r"^error: --out 's\.sqlite-wal': 's\.sqlite-wal' is the wal file of results store 's\.sqlite'",
            files={"s.sqlite": store}),
    CliCase("compare-out-is-the-boards-lock", ("compare", "b/leaderboard.sqlite", "--out", "b/.leaderboard.lock"),
            r"^error: --out 'b/\.leaderboard\.lock' is the folder's leaderboard lock", files={"b": board}),
    CliCase("export-out-is-the-stores-lock", ("results", "export", "s.sqlite", "--out", "s.sqlite.lock"),
            r"^error: --out 's\.sqlite\.lock' is the store's writer lock", files={"s.sqlite": store, "s.sqlite.lock": ""}),
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
