"""Bad input, part 3 (issue 43): the names policy of ``compare --test mcnemar`` and kept report parts.

* ``compare --test mcnemar`` refuses unknown ``--algorithms`` and ``--datasets`` names as every other
  test does (it used to drop them, or ignore ``--datasets``), and an empty store is one line, not a
  traceback.
* ``leaderboard --suite FILE`` with a binary file or a folder: one line, nothing written.
* One table under two names (a card and its alias or OpenML id) in a config, ``--datasets`` or a
  suite file: refused, naming the entry it repeats.
* The leaderboard's ``--scheduler`` checked as ``run`` checks it, a board where no criterion applies
  refused up front, ``plot tree`` of an unfitted model or of a trial whose stored params are not
  JSON: one line each, the board or store unchanged.
* ``reproduce --all --no-run`` with a kept ``section.json`` or ``verdicts.json`` that cannot be read
  (truncated, empty, a folder, another JSON shape, not UTF-8, another paper's, a verdict that is no
  grade): the command names the file in its
  output, the page says it where the paper is and the verdicts headline counts only what it read and
  says what it did not; the kept files are left as they were.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from badinput import CliCase, exit_code, run_cli_case, tree_digest
from test_report_html import (
    parse,
    workspace,  # noqa: F401 - the fixture good_site builds on
    workspace_specs,
)


# --------------------------------------------------------------------------- compare --test mcnemar
@pytest.fixture(scope="module")
def mcnemar_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished store with kept predictions: iris and wine, two algorithms, one hold-out split."""
    folder = tmp_path_factory.mktemp("mcnemar")
    (folder / "c.yaml").write_text(
        "experiment: mc\nseed: 0\ndatasets: [iris, wine]\nprotocol: {type: holdout, test_size: 0.3, repeats: 1}\n"
        "predictions: true\nalgorithms:\n  - {name: a, criterion: entropy, params: {max_depth: 1}}\n"
        "  - {name: b, criterion: gini, params: {max_depth: 3}}\n", encoding="utf-8")
    code = exit_code(["run", str(folder / "c.yaml"), "--jobs", "1", "--quiet", "--store", str(folder / "mc.sqlite")])
    assert code == 0
    empty = folder / "empty.sqlite"
    shutil.copy(folder / "mc.sqlite", empty)
    conn = sqlite3.connect(empty)
    try:
        conn.execute("DELETE FROM trials")
        conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the deletion in the file itself, not in a -wal beside it
    finally:
        conn.close()
    return folder


def _copy_store(source: Path, folder: Path) -> None:
    """A case's own copy of a module store and of its kept predictions."""
    shutil.copy(source, folder / "store.sqlite")
    kept = source.with_name(source.name + ".predictions")
    if kept.is_dir():
        shutil.copytree(kept, folder / "store.sqlite.predictions")


STORE = {"unchanged": ("store.sqlite",)}
MC = ("compare", "store.sqlite", "--test", "mcnemar")
MCNEMAR_CASES = [
    CliCase("mcnemar-unknown-algorithm", (*MC, "--algorithms", "a,zzz"),
            r"^error: unknown algorithm 'zzz' in the results; accepted: a, b$", **STORE),
    CliCase("mcnemar-only-unknown-algorithms", (*MC, "--algorithms", "x,y"),
            r"^error: unknown algorithm 'x' in the results; accepted: a, b$", **STORE),
    CliCase("mcnemar-unknown-dataset", (*MC, "--datasets", "nope"),
            r"^error: unknown dataset 'nope' in the results; accepted: iris, wine$", **STORE),
    CliCase("mcnemar-one-unknown-dataset", (*MC, "--datasets", "wine,iris,glass"),
            r"^error: unknown dataset 'glass' in the results", **STORE),
    CliCase("mcnemar-unknown-baseline", (*MC, "--baseline", "c"),
            r"^error: unknown baseline 'c'; accepted: a, b$", **STORE),
    CliCase("mcnemar-one-algorithm", (*MC, "--algorithms", "a"),
            r"^error: McNemar's test needs two algorithms or more$", **STORE),
    CliCase("mcnemar-empty-store", MC, r"^error: no finished trial in .*store\.sqlite: nothing to compare \(0 trial", **STORE),
    CliCase("wilcoxon-empty-store", ("compare", "store.sqlite", "--test", "wilcoxon"),
            r"^error: no finished trial with a value for 'accuracy'", **STORE),
    CliCase("wilcoxon-algorithm-twice", ("compare", "store.sqlite", "--test", "wilcoxon", "--algorithms", "a,a,b"),
            r"^error: algorithm 'a' is named twice; accepted: each algorithm once$", **STORE),
    CliCase("mcnemar-dataset-twice", (*MC, "--datasets", "iris,iris"),
            r"^error: dataset 'iris' is named twice; accepted: each dataset once$", **STORE),
    CliCase("plot-scores-algorithm-twice", ("plot", "scores", "store.sqlite", "--algorithms", "b,b", "--out", "p/x"),
            r"^error: algorithm 'b' is named twice; accepted: each algorithm once$", **STORE),
    # a list option given but naming nothing is refused, not read as "every name"
    CliCase("compare-datasets-empty", ("compare", "store.sqlite", "--datasets", ""),
            r"^error: --datasets '' names nothing; accepted: a comma-separated list of names \(leave the option out "
            r"to keep every one\)$", **STORE),
    CliCase("compare-algorithms-blank", ("compare", "store.sqlite", "--algorithms", " , "),
            r"^error: --algorithms ' , ' names nothing; accepted: a comma-separated list of names", **STORE),
    CliCase("mcnemar-algorithms-empty", (*MC, "--algorithms", ""), r"^error: --algorithms '' names nothing", **STORE),
    CliCase("plot-scores-datasets-empty", ("plot", "scores", "store.sqlite", "--datasets", "", "--out", "p/x"),
            r"^error: --datasets '' names nothing", **STORE),
    CliCase("compare-underline-against-twice", ("compare", "store.sqlite", "--underline-against", "a,a"),
            r"^error: algorithm 'a' is named twice in --underline-against; accepted: each algorithm once$", **STORE),
    CliCase("compare-underline-against-empty", ("compare", "store.sqlite", "--underline-against", ""),
            r"^error: --underline-against '' names nothing", **STORE),
    # a name option given empty is refused, not read as its default (hostile pass)
    CliCase("mcnemar-baseline-empty", (*MC, "--baseline", ""),
            r"^error: --baseline '' is empty; accepted: a name \(leave the option out for its default\)$", **STORE),
    CliCase("plot-metric-empty", ("plot", "scores", "store.sqlite", "--metric", "", "--out", "p/x"),
            r"^error: --metric '' is empty", **STORE),
    CliCase("ttest-unknown-dataset", ("compare", "store.sqlite", "--datasets", "nope"),
            r"^error: unknown dataset 'nope' in the results; accepted: iris, wine$", **STORE),
]


@pytest.mark.parametrize("case", MCNEMAR_CASES, ids=[c.id for c in MCNEMAR_CASES])
def test_compare_names_and_empty_stores(case: CliCase, mcnemar_store: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture) -> None:
    before = tree_digest(mcnemar_store)
    _copy_store(mcnemar_store / ("empty.sqlite" if "empty-store" in case.id else "mc.sqlite"), tmp_path)
    run_cli_case(case, tmp_path, capsys)  # the store copy unchanged, exit 2, one line
    assert tree_digest(mcnemar_store) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["store.sqlite", *(["store.sqlite.predictions"] if (tmp_path / "store.sqlite.predictions").exists() else [])])


def test_mcnemar_keeps_the_chosen_datasets_and_their_order(mcnemar_store: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    _copy_store(mcnemar_store / "mc.sqlite", tmp_path)
    capsys.readouterr()
    assert exit_code(["compare", str(tmp_path / "store.sqlite"), "--test", "mcnemar", "--datasets", "wine",
                 "--format", "csv"]) == 0
    rows = capsys.readouterr().out.strip().splitlines()
    assert rows[0].startswith("dataset,algorithm") and [r.split(",")[0] for r in rows[1:]] == ["wine"]
    assert exit_code(["compare", str(tmp_path / "store.sqlite"), "--test", "mcnemar", "--datasets", "wine,iris",
                 "--format", "csv"]) == 0
    assert [r.split(",")[0] for r in capsys.readouterr().out.strip().splitlines()[1:]] == ["wine", "iris"]


# --------------------------------------------------------------------------- leaderboard --suite files
SUITE_ACCEPTED = r"; accepted: bundled, openml-suite:ID \(or :ALIAS\), or a file listing one dataset per line$"
SUITE_CASES = [
    CliCase("suite-binary", ("leaderboard", "--suite", "s.txt", "--out", "board"),
            r"^error: --suite 's\.txt' is not UTF-8 text \(a binary file\?\)" + SUITE_ACCEPTED,
            {"s.txt": bytes(range(128, 256)) * 3}),
    CliCase("suite-nul-bytes", ("leaderboard", "--suite", "s.txt", "--out", "board"),
            r"^error: --suite 's\.txt' holds NUL bytes \(a binary file\?\)" + SUITE_ACCEPTED, {"s.txt": b"iris\x00wine\n"}),
    CliCase("suite-folder", ("leaderboard", "--suite", "d.txt", "--out", "board"),
            r"^error: --suite 'd\.txt' is a folder" + SUITE_ACCEPTED, {"d.txt/x": "iris\n"}),
    CliCase("suite-only-comments", ("leaderboard", "--suite", "s.txt", "--out", "board"),
            r"^error: --suite 's\.txt' lists no dataset", {"s.txt": "# nothing\n\n"}),
    # issue 43 F14: as --datasets iris,iris, a name listed twice is refused (it was merged without a word)
    CliCase("suite-name-twice", ("leaderboard", "--suite", "s.txt", "--criteria", "entropy", "--folds", "3",
                                 "--dry-run", "--out", "board"),
            r"^error: --suite 's\.txt', line 3: 'iris' is listed twice \(first on line 1\); accepted: each dataset once$",
            {"s.txt": "iris\nwine # a comment\niris\n"}),
]


@pytest.mark.parametrize("case", SUITE_CASES, ids=[c.id for c in SUITE_CASES])
def test_suite_files(case: CliCase, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run_cli_case(case, tmp_path, capsys)
    assert not (tmp_path / "board").exists()  # refused before anything is written


# --------------------------------------------------------------------------- finished results are never an output
LONG = "x" * 300
NO_LOSS_CASES = [
    CliCase("export-onto-its-store", ("results", "export", "store.sqlite", "--out", "store.sqlite"),
            r"^error: --out 'store\.sqlite': 'store\.sqlite' is a results store \(SQLite\); writing there would lose its "
            r"trials", **STORE),
    CliCase("export-predictions-onto-its-store", ("results", "export", "store.sqlite", "--predictions", "--out",
                                                  "store.sqlite"), r"is a results store \(SQLite\)", **STORE),
    CliCase("compare-onto-its-store", ("compare", "store.sqlite", "--out", "store.sqlite"),
            r"is a results store \(SQLite\)", **STORE),
    CliCase("certainty-onto-a-store", ("certainty", "iris", "--out", "store.sqlite"), r"is a results store \(SQLite\)",
            **STORE),
    CliCase("export-into-kept-predictions", ("results", "export", "store.sqlite", "--out",
                                             "store.sqlite.predictions/x.npz"),
            r"is inside a store's kept predictions; writing there would corrupt them", **STORE),
    CliCase("compare-out-name-too-long", ("compare", "store.sqlite", "--out", f"{LONG}.md"),
            r"the name 'x{24}'\.\.\. is 303 bytes long; accepted: .*each name at most 255 bytes$", **STORE),
    CliCase("plot-out-empty", ("plot", "scores", "store.sqlite", "--out", ""),
            r"^error: --out '': the path is empty; accepted: a file path in a writable folder$", **STORE),
    CliCase("bayes-plot-under-proc", ("compare", "store.sqlite", "--test", "bayes", "--plot", "/proc/treebench-x"),
            r"^error: --plot '/proc/treebench-x': cannot write in '/proc'", **STORE),
    CliCase("ttest-ratio-infinite", ("compare", "store.sqlite", "--test-train-ratio", "inf"),
            r"^error: --test-train-ratio inf is out of range; accepted: a finite number >= 0", **STORE),
    CliCase("certainty-attribute-twice", ("certainty", "iris", "--attribute", "petallength", "--attribute",
                                          "petallength"),
            r"^error: --attribute 'petallength' is given twice; accepted: each attribute once$", **STORE),
]


@pytest.mark.parametrize("case", NO_LOSS_CASES, ids=[c.id for c in NO_LOSS_CASES])
def test_finished_results_are_never_an_output(case: CliCase, mcnemar_store: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture) -> None:
    _copy_store(mcnemar_store / "mc.sqlite", tmp_path)
    before = tree_digest(tmp_path)
    run_cli_case(case, tmp_path, capsys)
    assert tree_digest(tmp_path) == before


# --------------------------------------------------------------------------- one table under two names
DUPLICATE_CONFIG = ("experiment: d\nseed: 0\ndatasets: [wdbc, {other}]\nprotocol: {{type: cv, folds: 2, repeats: 1}}\n"
                    "algorithms:\n  - {{name: a, criterion: entropy}}\n")
SAME = r"is the same table as 'wdbc' \(card 'wdbc', the same protocol\); accepted: each dataset once$"
BOARD = ("leaderboard", "--criteria", "entropy", "--folds", "2", "--out", "board")
ONCE = r"is the same dataset as '{}' \(card 'wdbc'\): it would count twice in every rank, test and win; accepted: each dataset once$"
TWO_NAMES_CASES = [
    CliCase("config-card-and-alias", ("run", "c.yaml", "--dry-run"),
            r"^error: c\.yaml:3: datasets\[1\]: dataset 'breast-cancer' " + SAME,
            {"c.yaml": DUPLICATE_CONFIG.format(other="breast-cancer")}),
    CliCase("config-card-and-openml-id", ("run", "c.yaml", "--dry-run"),
            r"^error: c\.yaml:3: datasets\[1\]: dataset 'openml:1510' " + SAME,
            {"c.yaml": DUPLICATE_CONFIG.format(other="'openml:1510'")}),
    CliCase("board-card-and-alias", (*BOARD, "--datasets", "wdbc,breast-cancer"),
            r"^error: --datasets: 'breast-cancer' " + ONCE.format("wdbc")),
    CliCase("board-openml-id-and-card", (*BOARD, "--datasets", "openml:1510,iris,wdbc"),
            r"^error: --datasets: 'wdbc' " + ONCE.format("openml:1510")),
    # a card's train or test part is a part of the card's table: counted twice too
    CliCase("config-card-and-its-train-part", ("run", "c.yaml", "--dry-run"),
            r"^error: c\.yaml:3: datasets\[1\]: dataset 'monks-1-train' is the same table as 'monks-1' \(card "
            r"'monks-1-train', the train part of table 'monks-1', the same protocol\); accepted: each dataset once$",
            {"c.yaml": DUPLICATE_CONFIG.replace("wdbc", "monks-1").format(other="monks-1-train")}),
    CliCase("board-card-and-its-train-part", (*BOARD, "--datasets", "monks-1,monks-1-train"),
            r"^error: --datasets: 'monks-1-train' is the same dataset as 'monks-1' \(card 'monks-1-train', the train "
            r"part of table 'monks-1'\): it would count twice in every rank, test and win; accepted: each dataset once$"),
    CliCase("board-test-and-train-parts", (*BOARD, "--datasets", "monks-2-test,monks-2-train"),
            r"^error: --datasets: 'monks-2-train' is the same dataset as 'monks-2-test' \(card 'monks-2-train', the "
            r"train part of table 'monks-2'\)"),
    CliCase("board-suite-card-and-its-test-part", ("leaderboard", "--suite", "s.txt", "--criteria", "entropy",
                                                   "--folds", "2", "--out", "board"),
            r"^error: --suite s\.txt: 'shuttle-test' is the same dataset as 'shuttle' \(card 'shuttle-test', the test "
            r"part of table 'shuttle'\)", {"s.txt": "shuttle\nshuttle-test\n"}),
    CliCase("board-suite-card-and-alias", ("leaderboard", "--suite", "s.txt", "--criteria", "entropy", "--folds", "2",
                                           "--out", "board"),
            r"^error: --suite s\.txt: 'breast-cancer' " + ONCE.format("wdbc"), {"s.txt": "wdbc\nbreast-cancer\n"}),
]


@pytest.mark.parametrize("case", TWO_NAMES_CASES, ids=[c.id for c in TWO_NAMES_CASES])
def test_one_table_under_two_names_is_refused(case: CliCase, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run_cli_case(case, tmp_path, capsys)
    assert not (tmp_path / "board").exists() and not (tmp_path / "results").exists()


# --------------------------------------------------------------------------- smaller leaderboard and plot cases
@pytest.fixture(scope="module")
def finished_board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny board: iris, entropy, 2 folds."""
    folder = tmp_path_factory.mktemp("board")
    assert exit_code(["leaderboard", "--datasets", "iris", "--criteria", "entropy", "--folds", "2", "--out",
                 str(folder / "board"), "--quiet"]) == 0
    return folder / "board"


ON_BOARD = ("leaderboard", "--datasets", "iris", "--criteria", "entropy", "--folds", "2", "--out", "{board}")
BOARD_CASES = [
    CliCase("board-criteria-all-in-a-list", ("leaderboard", "--criteria", "all,entropy", "--datasets", "iris",
                                             "--out", "{board}"),
            r"^error: --criteria 'all,entropy': all selects every criterion and stands alone"),
    CliCase("board-criteria-twice", ("leaderboard", "--criteria", "entropy,entropy", "--datasets", "iris",
                                     "--out", "{board}"), r"^error: --criteria names 'entropy' twice"),
    CliCase("board-datasets-twice", ("leaderboard", "--criteria", "entropy", "--datasets", "iris,iris",
                                     "--out", "{board}"), r"^error: --datasets names 'iris' twice"),
    CliCase("board-datasets-empty", ("leaderboard", "--criteria", "entropy", "--datasets", "", "--out", "{board}"),
            r"^error: --datasets '' names no dataset; accepted: a comma-separated list of dataset names \(leave "
            r"--datasets out for the whole --suite\)$"),
    CliCase("board-datasets-commas", ("leaderboard", "--criteria", "entropy", "--datasets", ",,", "--out", "{board}"),
            r"^error: --datasets ',,' names no dataset"),
    CliCase("board-rerun-other-criteria", ("leaderboard", "--datasets", "iris", "--criteria", "gini", "--folds", "2",
                                           "--out", "{board}"),
            r"^error: --out '.*board': this board's store holds finished trials of entropy, which --criteria 'gini' "
            r"leaves out, so its page would drop them; accepted: --criteria naming them too \(e\.g\. --criteria "
            r"gini,entropy\) to extend the board, or another --out$"),
    CliCase("plot-f1-of-a-store-without-kept-predictions", ("plot", "scores", "{board}/leaderboard.sqlite", "--metric",
                                                           "f1_macro", "--out", "p"),
            r"^error: the store holds no f1_macro and kept no predictions to compute it from"),
    CliCase("board-scheduler-malformed", (*ON_BOARD, "--scheduler", "nonsense"),
            r"^error: --scheduler 'nonsense' is not a Dask scheduler address; accepted: SCHEME://HOST:PORT"),
    CliCase("board-scheduler-no-port", (*ON_BOARD, "--scheduler", "tcp://"),
            r"^error: --scheduler 'tcp://' is not a Dask scheduler address"),
    CliCase("board-scheduler-refused", (*ON_BOARD, "--scheduler", "tcp://127.0.0.1:1"),
            r"^error: cannot reach the Dask scheduler at 'tcp://127\.0\.0\.1:1': .*\(waited at most 5 s\)$"),
    CliCase("board-scheduler-and-jobs", (*ON_BOARD, "--scheduler", "tcp://127.0.0.1:1", "--jobs", "2"),
            r"^error: --jobs and --scheduler exclude each other"),
    # (belief trees used to be the example: since they grow on crisp labels as categorical masses, MEE on
    # a dataset of nominal features is)
    CliCase("board-nothing-applies", ("leaderboard", "--datasets", "zoo", "--criteria", "mee", "--folds", "2",
                                      "--out", "{board}"),
            r"^error: no selected criterion applies to any selected dataset \(mee on zoo: .*features are nominal.*\); "
            r"accepted: at least one criterion that applies to a selected dataset$"),
]


@pytest.mark.parametrize("case", BOARD_CASES, ids=[c.id for c in BOARD_CASES])
def test_board_options_refused_before_writing(case: CliCase, finished_board: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture) -> None:
    board = tmp_path / "board"
    shutil.copytree(finished_board, board)
    before = tree_digest(board)
    filled = CliCase(case.id, tuple(a.replace("{board}", str(board)) for a in case.args), case.message)
    run_cli_case(filled, tmp_path, capsys)
    assert tree_digest(board) == before


def test_a_folder_in_place_of_the_boards_store_lock(finished_board: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    board = tmp_path / "board"
    shutil.copytree(finished_board, board)
    (board / "leaderboard.sqlite.lock").unlink(missing_ok=True)
    (board / "leaderboard.sqlite.lock").mkdir()
    before = tree_digest(board)
    case = CliCase("board-store-lock-folder", tuple(a.replace("{board}", str(board)) for a in ON_BOARD),
                   # the store's own place check (run's too), which covers its lock and SQLite's files beside it
                   r"leaderboard\.sqlite\.lock' \(the store's writer lock\) is a folder; accepted: a regular file "
                   r"there, or nothing \(a run creates it\); move it away, or choose another --out$")
    run_cli_case(case, tmp_path, capsys)
    assert tree_digest(board) == before


def test_a_board_refused_for_too_many_trials_names_the_boards_own_options() -> None:
    from treebench.errors import TreebenchError
    from treebench.leaderboard.run import board_words

    with pytest.raises(TreebenchError) as info, board_words():
        raise TreebenchError("g.yaml: the config plans 2000000 trials (outer splits x algorithms), more than "
                             "1000000; accepted: at most 1000000 (raise it with treebench run --max-trials N)")
    assert "treebench run --max-trials" not in str(info.value) and "lower --folds or --repeats" in str(info.value)


def _pickle(obj_source: str) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        import pickle

        from sklearn.tree import DecisionTreeClassifier  # noqa: F401 - used by the evaluated source

        from treebench import TreeClassifier  # noqa: F401 - used by the evaluated source

        (folder / "m.pkl").write_bytes(pickle.dumps(eval(obj_source)))
    return write


PLOT = ("plot", "tree", "m.pkl", "--out", "pics/t")
PLOT_CASES = [
    CliCase("plot-unfitted-treebench-tree", PLOT, r"^error: cannot draw an unfitted TreeClassifier; accepted: a fitted tree$",
            {"m.pkl": _pickle("TreeClassifier()")}),
    CliCase("plot-unfitted-sklearn-tree", PLOT,
            r"^error: cannot draw an unfitted DecisionTreeClassifier; accepted: a fitted tree$",
            {"m.pkl": _pickle("DecisionTreeClassifier()")}),
    CliCase("plot-not-a-tree", PLOT, r"^error: cannot draw list: plot tree draws treebench's trees",
            {"m.pkl": _pickle("[1, 2]")}),
    # bytes that are no pickle: unpickling raises a bare KeyError('110'), which used to be the whole message
    CliCase("plot-not-a-pickle", PLOT, r"^error: cannot read a fitted estimator from m\.pkl: not a readable joblib or "
            r"pickle file \(KeyError: 110\); accepted: an estimator saved with joblib\.dump, as \.joblib, \.pkl, "
            r"\.pickle$", {"m.pkl": "not a pickle"}),
]


@pytest.mark.parametrize("case", PLOT_CASES, ids=[c.id for c in PLOT_CASES])
def test_plot_tree_of_what_is_no_fitted_tree(case: CliCase, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run_cli_case(case, tmp_path, capsys)
    assert not (tmp_path / "pics").exists()


def test_plot_tree_of_a_trial_whose_params_are_not_json(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text("experiment: pt\nseed: 0\ndatasets: [iris]\nprotocol: {type: cv, folds: 2, "
                                     "repeats: 1}\nalgorithms:\n  - {name: e, criterion: entropy}\n", encoding="utf-8")
    assert exit_code(["run", "c.yaml", "--jobs", "1", "--quiet"]) == 0
    conn = sqlite3.connect(tmp_path / "results" / "pt.sqlite")
    try:
        conn.execute("UPDATE trials SET params = '{oops'")
        conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    before = tree_digest(tmp_path / "results")
    capsys.readouterr()
    assert exit_code(["plot", "tree", "c.yaml", "--algorithm", "e"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert re.search(r"^error: trial \w+ in results/pt\.sqlite: its params '\{oops' are not a JSON object", err[0]), err
    assert tree_digest(tmp_path / "results") == before


# --------------------------------------------------------------------------- kept report parts
SECTION_DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "section-truncated": (lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), r"is not valid JSON"),
    "section-empty": (lambda p: p.write_bytes(b""), r"is empty"),
    "section-list": (lambda p: p.write_text("[1, 2, 3]", encoding="utf-8"), r"holds a JSON list, not an object"),
    "section-empty-html": (lambda p: p.write_text('{"built": "x", "html": ""}', encoding="utf-8"),
                           r"has an empty page text"),
    "section-no-html": (lambda p: p.write_text('{"built": "x"}', encoding="utf-8"), r"has no page text \('html'\)"),
    "section-html-a-number": (lambda p: p.write_text('{"built": "x", "html": 7}', encoding="utf-8"),
                              r"has a page text \('html'\) of the wrong type: a number, not a string"),
    "section-html-a-list": (lambda p: p.write_text('{"built": "x", "html": ["a"]}', encoding="utf-8"),
                            r"of the wrong type: a list, not a string"),
    "section-not-utf8": (lambda p: p.write_bytes(b"\xff\xfe\x00garbage"), r"is not UTF-8 text"),
    # issue 43 F1: arrays nested far past the parser's recursion limit (a RecursionError traceback before)
    "section-nested-too-deeply": (lambda p: p.write_text("[" * 100000 + "]" * 100000, encoding="utf-8"),
                                  r"is not valid JSON \(nested too deeply to read\)"),
    # issue 43 F8: the part's html goes into index.html; markup the renderer never writes must not
    "section-holding-a-script": (lambda p: _edit_html(p, "<script>alert(1)</script>"),
                                 r"holds markup the report never writes \(a <script> tag\); accepted: a part "
                                 r"written by treebench reproduce"),
    "section-with-an-event-handler": (lambda p: _edit_html(p, '<img src="x.png" alt="" onerror="alert(1)">'),
                                      r"holds markup the report never writes \(a 'onerror' attribute on <img>\)"),
    "section-with-a-javascript-link": (lambda p: _edit_html(p, '<a href="jav&#x61;script:alert(1)">x</a>'),
                                       r"holds markup the report never writes \(a href 'javascript:alert\(1\)'"),
    # issue 43, third pass: a protocol-relative or backslashed image address names another machine
    "section-with-a-remote-image": (lambda p: _edit_html(p, '<img src="//evil.example/t.png" alt="x">'),
                                    r"holds markup the report never writes \(a src '//evil\.example/t\.png' on <img>\)"),
    "section-with-a-share-image": (lambda p: _edit_html(p, '<img src="\\\\evil\\t.png" alt="x">'),
                                   r"holds markup the report never writes \(a src"),
    "section-ending-inside-a-tag": (lambda p: _edit_html(p, "<img src=x onerror=alert(1) "),
                                    r"holds markup the report never writes \(an unfinished tag\)"),
    # issue 43: another paper's part copied here must not stand for this paper's last good part
    "section-of-another-paper": (lambda p: _edit_json(p, paper="002", key="tsallis"),
                                 r"the kept part \S+section\.json records paper 002 tsallis, not \d+ toy: no last good part"),
    "section-old-naming-another-papers-config": (
        lambda p: _edit_json(p, paper=None, key=None, config="elsewhere/broken.yaml"),
        r"records paper 901 broken, not \d+ toy"),
}
VERDICTS_DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "verdicts-truncated": (lambda p: p.write_bytes(p.read_bytes()[:40]), r"is not valid JSON"),
    "verdicts-empty": (lambda p: p.write_bytes(b""), r"is empty"),
    "verdicts-list": (lambda p: p.write_text("[]", encoding="utf-8"), r"holds a JSON list, not an object"),
    "verdicts-claims-not-a-list": (lambda p: p.write_text('{"claims": {"a": 1}}', encoding="utf-8"),
                                   r"have no list of claims"),
    # issue 43 F7: a whole file is refused, never the claims that read counted beside ones that do not
    "verdicts-some-claims-broken": (
        lambda p: _edit_json(p, claims=[*json.loads(p.read_text(encoding="utf-8"))["claims"], 7, "x"]),
        r"claim \d+ of the kept verdicts \S+verdicts\.json is a JSON int, not an object; accepted: an object "
        r"with the claim's text \('claim'\) and its grade \('verdict'\)"),
    "verdicts-empty-objects-as-claims": (lambda p: _edit_json(p, claims=[{}] * len(_claims(p))),
                                         r"claim 1 of the kept verdicts \S+ has no text \('claim'\)"),
    "verdicts-claims-without-a-grade": (
        lambda p: _edit_json(p, claims=[{"claim": c["claim"]} for c in _claims(p)]),
        r"claim 1 of the kept verdicts \S+ has no grade \('verdict'\)"),
    "verdicts-more-claims-than-the-paper": (
        lambda p: _edit_json(p, claims=[{"claim": "made up", "verdict": "reproduced"}] * 50),
        r"the kept verdicts \S+verdicts\.json hold 50 claims where toy has \d+; accepted: the verdicts\.json "
        r"of this version's report"),
    "verdicts-no-claims": (lambda p: _edit_json(p, claims=[]), r"hold 0 claims where toy has \d+"),
    "verdicts-summary-not-their-count": (
        lambda p: _edit_json(p, summary={**json.loads(p.read_text(encoding="utf-8"))["summary"], "reproduced": 99}),
        r"have a summary that is not the count of their claims' verdicts; accepted: the verdicts\.json as its "
        r"report wrote it"),
    # K10: a file consistent in itself but not the one written with the kept part (another grade, its summary
    # recounted): its headline would count grades the part does not show
    "verdicts-not-those-of-the-kept-part": (lambda p: _regrade(p, "reversed"),
                                            r"are not those written with the kept part beside them"),
    # issue 43, third pass: a kept part that recorded no digest of its verdicts cannot vouch for them
    "verdicts-of-a-part-without-their-digest": (
        lambda p: (_regrade(p, "reversed"), _edit_json(p.parent / "section.json", verdicts_sha256=None)),
        r"records no SHA-256 of them \(a part written before parts recorded it\), so they are not counted"),
    "verdicts-nested-too-deeply": (lambda p: p.write_text("{\"claims\": " + "[" * 100000 + "]" * 100000 + "}",
                                                          encoding="utf-8"),
                                   r"is not valid JSON \(nested too deeply to read\)"),
    "verdicts-missing": (lambda p: p.unlink(), r"the kept verdicts .*verdicts\.json are missing"),
    # issue 43: another paper's verdicts, or a verdict that is no grade, would be counted as this paper's
    "verdicts-of-another-paper": (lambda p: _edit_json(p, paper="002", key="tsallis"),
                                  r"the kept verdicts \S+verdicts\.json records paper 002 tsallis, not \d+ toy"),
    "verdicts-made-up-verdict": (
        lambda p: _edit_json(p, claims=[{**c, "verdict": "<script>x</script>"} for c in
                                        json.loads(p.read_text(encoding="utf-8"))["claims"]]),
        r"give claim 1 the verdict '<script>x</script>'; accepted: 'reproduced'; 'reproduced, larger'; .*'not "
        r"testable' \(the last with its reason"),
    "verdicts-not-testable-without-brackets": (
        lambda p: _edit_json(p, claims=[{**c, "verdict": "not testable!!"} for c in
                                        json.loads(p.read_text(encoding="utf-8"))["claims"]]),
        r"give claim 1 the verdict 'not testable!!'; accepted: "),
}


def _claims(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["claims"]


def _edit_html(path: Path, markup: str) -> None:
    """Add ``markup`` to the page text of the kept part in ``path``."""
    _edit_json(path, html=json.loads(path.read_text(encoding="utf-8"))["html"] + markup)


def _regrade(path: Path, grade: str) -> None:
    """Give every claim ``grade`` and recount the summary: a verdicts.json consistent in itself."""
    from treebench.report.verdicts import summary

    claims = [{**c, "verdict": grade} for c in _claims(path)]
    _edit_json(path, claims=claims, summary=summary(c["verdict"] for c in claims))


def _edit_json(path: Path, **fields: object) -> None:
    """Set (``None``: remove) fields of the JSON object in ``path``."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    for name, value in fields.items():
        if value is None:
            doc.pop(name, None)
        else:
            doc[name] = value
    path.write_text(json.dumps(doc), encoding="utf-8")


@pytest.fixture
def good_site(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # noqa: F811 - the imported fixture
    """The toy papers built once with their inputs present (so their parts are kept), then made unreadable."""
    from treebench.errors import TreebenchError
    from treebench.papers import reproduce as R

    monkeypatch.setattr(R, "PAPERS", {s.key: s for s in workspace_specs()})
    R.reproduce_all(Path("site"), run=False)

    def unreadable(*args, **kwargs):
        raise TreebenchError("dataset folder /nowhere not found (TREEBENCH_DATA)")

    monkeypatch.setattr(R, "_report", unreadable)
    return workspace / "site"


def _reproduce(capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    capsys.readouterr()
    code = exit_code(["reproduce", "--all", "--no-run", "--out-dir", "site"])
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    return code, out.err, Path("site/index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("damage", sorted(SECTION_DAMAGE))
def test_an_unreadable_kept_part_is_named(damage: str, good_site: Path, capsys: pytest.CaptureFixture) -> None:
    from treebench.papers.reproduce import SECTION

    spoil, message = SECTION_DAMAGE[damage]
    spoil(good_site / "toy" / SECTION)
    kept = tree_digest(good_site / "toy")
    code, err, page = _reproduce(capsys)
    assert code == 1
    named = [line for line in err.splitlines() if "toy" in line and "kept part" in line]
    assert named and all("\n" not in line for line in named), err
    assert any(__import__("re").search(message, line) for line in named), (message, named)
    part = page[page.index('id="paper-toy"'):].split("</section>")[0]
    assert "kept part" in " ".join(parse(part).text) and '<span class="status kept">' not in part
    assert not re.search(r"<script|<img src=x|onerror=\"|href=\"jav", page)  # none of its markup on the page
    assert tree_digest(good_site / "toy") == kept  # a refused part is left as it was, for the user to look at
    # issue 43, third pass: its claims are not in the headline, and the headline says so
    headline = " ".join(parse(page[page.index('id="verdicts"'):].split("</section>")[0]).text)
    assert "not counted: toy:" in headline, headline


@pytest.mark.parametrize("damage", sorted(VERDICTS_DAMAGE))
def test_unreadable_kept_verdicts_are_named_and_not_counted(damage: str, good_site: Path,
                                                             capsys: pytest.CaptureFixture) -> None:
    import re

    spoil, message = VERDICTS_DAMAGE[damage]
    claims_before = len(json.loads((good_site / "toy" / "verdicts.json").read_text(encoding="utf-8"))["claims"])
    spoil(good_site / "toy" / "verdicts.json")
    kept = tree_digest(good_site / "toy")
    code, err, page = _reproduce(capsys)
    assert code == 1
    named = [line for line in err.splitlines() if "kept verdicts" in line]
    assert named and re.search(message, named[0]), err
    headline = " ".join(parse(page[page.index('id="verdicts"'):].split("</section>")[0]).text)
    assert "not counted: toy:" in headline and re.search(message, headline), headline
    assert claims_before and "claims recomputed: none" in headline, headline  # nothing of the file counted
    assert '<span class="status kept">' in page[page.index('id="paper-toy"'):].split("</section>")[0]
    assert tree_digest(good_site / "toy") == kept


@pytest.mark.parametrize("name", ["section.json", "verdicts.json", "report.md", "leaves.png", "leaves.svg"])
def test_a_folder_where_a_report_file_goes_is_refused_before_anything(name: str, good_site: Path,
                                                                       capsys: pytest.CaptureFixture) -> None:
    _folder_in_place(good_site / "toy" / name)
    before = tree_digest(good_site)
    capsys.readouterr()
    assert exit_code(["reproduce", "--all", "--no-run", "--out-dir", "site"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(rf"^error: --out-dir 'site': 'site/toy/{re.escape(name)}' is a folder, not a "
                                       "file; accepted: a file path in a writable folder$", err[0]), err
    assert tree_digest(good_site) == before


def _folder_in_place(path: Path) -> None:
    if path.exists():
        path.unlink()
    path.mkdir()
    (path / "x").write_text("a folder where a report file goes", encoding="utf-8")


def test_single_paper_mode_names_an_unusable_kept_file_on_stderr_and_exits_1(
        workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:  # noqa: F811
    """Issue 43: ``reproduce PAPER`` refreshes the page; a kept file it cannot use (here toy's part copied
    into paper 903's folder) is an ``error:`` line on stderr and exit 1, as with ``--all`` (it was stdout, 0)."""
    from treebench.papers import catalogue
    from treebench.papers import reproduce as R

    specs = {s.key: s for s in workspace_specs()}
    monkeypatch.setattr(R, "PAPERS", specs)
    monkeypatch.setattr(catalogue, "PAPERS", specs)
    R.reproduce_all(Path("site"), run=False)
    Path("site/empty").mkdir(exist_ok=True)
    shutil.copy(Path("site/toy") / R.SECTION, Path("site/empty") / R.SECTION)
    capsys.readouterr()
    code = exit_code(["reproduce", "toy", "--no-run", "--out-dir", "site/toy"])
    out = capsys.readouterr()
    assert code == 1 and "Traceback" not in out.out + out.err, out
    assert re.search(r"^error: empty: unreadable kept file: the kept part site/empty/section\.json records paper "
                     r"\d+ toy, not 903 empty: no last good part to show$", out.err, re.M), out.err
    part = Path("site/index.html").read_text(encoding="utf-8")
    part = part[part.index('id="paper-empty"'):].split("</section>")[0]
    assert '<span class="status kept">' not in part  # toy's part is not shown as paper 903's


def test_single_paper_mode_writes_the_page_past_another_papers_unreadable_part(
        workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:  # noqa: F811
    """Issue 43 K38: a kept part of ANOTHER paper nested too deeply to parse: ``reproduce toy`` rewrote toy's
    report and then stopped with a RecursionError traceback before the page; now the page is written and
    the part named."""
    from treebench.papers import catalogue
    from treebench.papers import reproduce as R

    specs = {s.key: s for s in workspace_specs()}
    monkeypatch.setattr(R, "PAPERS", specs)
    monkeypatch.setattr(catalogue, "PAPERS", specs)
    R.reproduce_all(Path("site"), run=False)
    Path("site/empty").mkdir(exist_ok=True)
    (Path("site/empty") / R.SECTION).write_text("[" * 100000 + "]" * 100000, encoding="utf-8")
    Path("site/index.html").unlink()
    capsys.readouterr()
    code = exit_code(["reproduce", "toy", "--no-run", "--out-dir", "site/toy"])
    out = capsys.readouterr()
    assert code == 1 and "Traceback" not in out.out + out.err, out
    assert re.search(r"^error: empty: unreadable kept file: the kept part site/empty/section\.json is not valid "
                     r"JSON \(nested too deeply to read\): no last good part to show$", out.err, re.M), out.err
    page = Path("site/index.html").read_text(encoding="utf-8")
    assert 'id="paper-toy"' in page and "nested too deeply" in page


@pytest.mark.parametrize("name,kind", [("verdicts.json", "folder"), ("section.json", "folder"),
                                       ("verdicts.json", "fifo"), ("section.json", "fifo")])
def test_an_odd_kept_file_of_a_paper_without_a_store_is_named_on_its_box(
        name: str, kind: str, good_site: Path, capsys: pytest.CaptureFixture) -> None:
    """Issue 43 M1: with ``--no-run`` and no store, a paper's folder is only read, never written: a kept file
    that is a folder or a FIFO is that paper's problem, named on its box (exit 1); it used to stop every
    paper (exit 2) as a place that could not be written."""
    import os

    path = good_site / "toy" / name
    if kind == "folder":
        _folder_in_place(path)
    else:
        path.unlink()
        os.mkfifo(path)
    Path("results/legacy-store.sqlite").rename("results/moved-away.sqlite")  # toy's store: gone
    before = tree_digest(good_site / "toy")
    code, err, page = _reproduce(capsys)
    assert code == 1
    shown = "is a folder, not a file" if kind == "folder" else "is not a regular file but a named pipe"
    what = "kept verdicts" if name == "verdicts.json" else "kept part"
    assert re.search(rf"^error: toy: unreadable kept file: the {what} site/toy/{re.escape(name)} {shown}", err,
                     re.M), err
    assert 'id="paper-toy"' in page and 'id="paper-broken"' in page  # the others went on
    assert tree_digest(good_site / "toy") == before


def test_readable_kept_parts_say_nothing_more(good_site: Path, capsys: pytest.CaptureFixture) -> None:
    code, err, page = _reproduce(capsys)
    assert code == 1  # the inputs are gone: the papers were not rebuilt, which the exit status says
    assert "kept part" not in err and "kept verdicts" not in err
    headline = " ".join(parse(page[page.index('id="verdicts"'):].split("</section>")[0]).text)
    assert "not counted: " not in headline and "last good report" in page


def test_the_cases_are_many_and_distinct() -> None:
    ids = [c.id for c in MCNEMAR_CASES + SUITE_CASES + NO_LOSS_CASES + TWO_NAMES_CASES + BOARD_CASES + PLOT_CASES
           + INPUT_CASES + ORIGIN_CASES] + sorted(SECTION_DAMAGE) + sorted(VERDICTS_DAMAGE)
    assert len(ids) == len(set(ids)) >= 45


# --------------------------------------------------------------------------- inputs that say what is really wrong
def _link_to_dev_zero(name: str) -> Callable[[Path], None]:
    def write(folder: Path) -> None:
        (folder / name).symlink_to("/dev/zero")
    return write


NEWLINE_CONFIG = ("experiment: nl\nseed: 0\ndatasets:\n  - {{name: {label}, train: iris, test: iris}}\n"
                  "protocol: {{type: cv, folds: 2, repeats: 1}}\nalgorithms:\n  - {{name: a, criterion: entropy}}\n")
PLUGIN_NOTHING = "# a plugin that forgot @register\nfrom treebench.criteria.classic import Entropy\n\n\nclass Mine(Entropy):\n    name = 'mine'\n"
#: Cases whose files must not be read by the harness (a link to /dev/zero never ends): ``unchanged=()``.
INPUT_CASES = [
    CliCase("board-plugin-registers-nothing", ("leaderboard", "--datasets", "iris", "--criteria", "entropy", "--folds",
                                               "2", "--plugin", "p.py", "--out", "board"),
            r"^error: --plugin 'p\.py' registered no criterion; accepted: a \.py file or module that registers at "
            r"least one \(decorate its Criterion class with treebench\.criteria\.register\)$", {"p.py": PLUGIN_NOTHING}),
    CliCase("criteria-list-plugin-registers-nothing", ("criteria", "list", "--plugin", "p.py"),
            r"^error: --plugin 'p\.py' registered no criterion", {"p.py": "x = 1\n"}),
    CliCase("config-label-with-a-newline", ("run", "c.yaml", "--dry-run"),
            r"^error: c\.yaml:4: datasets\[0\]: dataset label 'a\\nb' holds the control character '\\n', which would "
            r"break the rows of every table it is printed in; accepted: printable characters \(spaces and tabs allowed\)$",
            {"c.yaml": NEWLINE_CONFIG.format(label='"a\\nb"')}),
    CliCase("config-label-with-a-line-separator", ("run", "c.yaml", "--dry-run"),
            r"^error: c\.yaml:4: datasets\[0\]: dataset label 'a\\u2028b' holds the control character '\\u2028'",
            {"c.yaml": NEWLINE_CONFIG.format(label='"a\\u2028b"')}),
    CliCase("config-label-with-an-escape-sequence", ("run", "c.yaml", "--dry-run"),
            r"holds the control character '\\x1b'", {"c.yaml": NEWLINE_CONFIG.format(label='"\\e[31mred"')}),
    CliCase("compare-a-folder", ("compare", "d"),
            r"^error: 'd' is a folder; accepted: a results store \(\.sqlite\), an experiment config \(\.yaml\) or an "
            r"exported frame \(\.csv, \.parquet\)$", {"d/x": "x"}),
    CliCase("plot-a-text-file", ("plot", "scores", "f.txt"),
            r"^error: 'f\.txt' has the suffix '\.txt', so it is no results file; accepted: a results store", {"f.txt": "x"}),
    CliCase("compare-a-damaged-parquet", ("compare", "f.parquet"),
            r"^error: cannot read the results frame 'f\.parquet' \(.*\); accepted: a CSV or Parquet file written by "
            r"`treebench results export`$", {"f.parquet": b"PAR1 not really"}),
    CliCase("suite-empty", ("leaderboard", "--suite", "", "--out", "board"), r"^error: --suite '' is empty" + SUITE_ACCEPTED),
    CliCase("board-plugin-a-folder", ("leaderboard", "--datasets", "iris", "--criteria", "entropy", "--plugin", "p.py",
                                      "--out", "board"),
            r"^error: plugin '.*p\.py' is a folder, not a \.py file; accepted: a \.py file", {"p.py/x": "x"}),
    CliCase("compare-link-to-dev-zero", ("compare", "z.csv"),
            r"^error: 'z\.csv' is not a regular file but a character device; accepted: a results store",
            {"z.csv": _link_to_dev_zero("z.csv")}, unchanged=()),
    CliCase("run-config-link-to-dev-zero", ("run", "z.yaml"),
            r"^error: config file 'z\.yaml' is not a regular file but a character device; accepted: a YAML text file$",
            {"z.yaml": _link_to_dev_zero("z.yaml")}, unchanged=()),
    CliCase("suite-link-to-dev-zero", ("leaderboard", "--suite", "z.txt", "--out", "board"),
            r"^error: --suite 'z\.txt' is not a regular file but a character device" + SUITE_ACCEPTED,
            {"z.txt": _link_to_dev_zero("z.txt")}, unchanged=()),
]


# --------------------------------------------------------------------------- refusals name what the user wrote
def _plugin(name: str, extra: str = "") -> str:
    """A plugin registering an entropy criterion called ``name`` (a Python literal), with ``extra`` class lines."""
    return ("from treebench.criteria import register\nfrom treebench.criteria.classic import Entropy\n\n\n"
            f"@register\nclass Mine(Entropy):\n    name = {name}\n{extra}")


PLUGIN_BOARD = ("leaderboard", "--datasets", "iris", "--criteria", "entropy", "--folds", "2", "--plugin", "p.py",
                "--out", "board", "--dry-run")
RENAME = r"\(rename it in the plugin\)$"
#: A board's criteria come from --criteria and --plugin, its datasets from --suite and --datasets; a problem
#: with one is named there, not at a line of the generated config-N.yaml (or "<leaderboard suite>").
ORIGIN_CASES = [
    CliCase("board-plugin-name-with-a-space", PLUGIN_BOARD,
            r"^error: --plugin 'p\.py' registers criterion 'my crit43', which cannot name a leaderboard row \(a "
            r"config's algorithm name\); accepted: a criterion name of letters, digits, '\.', '_' and '-', starting "
            r"with a letter or digit " + RENAME, {"p.py": _plugin("'my crit43'")}),
    CliCase("board-plugin-name-with-a-comma", PLUGIN_BOARD,
            r"^error: --plugin 'p\.py' registers criterion 'a43,b', which cannot name a leaderboard row",
            {"p.py": _plugin("'a43,b'")}),
    CliCase("board-plugin-named-like-a-baseline", PLUGIN_BOARD,
            r"^error: --plugin 'p\.py' registers criterion 'c4\.5', which is also the name of the baseline 'c4\.5' "
            r"on the board, so two rows would share it; accepted: a criterion name that no baseline or other row of "
            r"the board has " + RENAME, {"p.py": _plugin("'c4.5'")}),
    CliCase("board-plugin-named-like-a-default-row", (*PLUGIN_BOARD[:4], "tsallis", *PLUGIN_BOARD[5:]),
            r"^error: --plugin 'p\.py' registers criterion 'tsallis-default', which is also the name of the untuned "
            r"row of criterion 'tsallis' on the board", {"p.py": _plugin("'tsallis-default'")}),
    CliCase("board-plugin-learner-kind-unknown", PLUGIN_BOARD,
            r"^error: --plugin 'p\.py' registers criterion 'kind43', which the board cannot grow: criterion 'kind43' "
            r"declares learner kind 'forest'; accepted: tree, mee, belief$",
            {"p.py": _plugin("'kind43'", "    learner_kind = 'forest'\n")}),
    # declarations no list or config check can read: refused where the plugin registers them (were tracebacks)
    CliCase("board-plugin-name-a-number", PLUGIN_BOARD,
            r"^error: plugin '.*p\.py' failed to import: TreebenchError: criterion class Mine has the name 5 \(int, "
            r"not text\); accepted: a non-empty text name$", {"p.py": _plugin("5")}),
    # issue 43 M3: 'all' is the --criteria word for every criterion; a plugin may not take it
    CliCase("board-plugin-named-all", PLUGIN_BOARD,
            r"^error: plugin '.*p\.py' failed to import: TreebenchError: criterion class Mine is named 'all', a word "
            r"--criteria reserves; accepted: any other non-empty text name \(reserved: all\)$", {"p.py": _plugin("'all'")}),
    CliCase("board-plugin-params-not-params", PLUGIN_BOARD,
            r"^error: plugin '.*p\.py' failed to import: TreebenchError: criterion class Mine \('params43'\) declares "
            r"params holding 1 \(int\); accepted: a tuple of treebench\.criteria\.Param$",
            {"p.py": _plugin("'params43'", "    params = (1, 2)\n")}),
    CliCase("criteria-list-plugin-params-a-string", ("criteria", "list", "--plugin", "p.py"),
            r"^error: plugin '.*p\.py' failed to import: TreebenchError: criterion class Mine \('str43'\) declares "
            r"params holding 'oops' \(str\)", {"p.py": _plugin("'str43'", "    params = 'oops'\n")}),
    CliCase("board-plugin-learner-kind-a-list", PLUGIN_BOARD,
            r"declares learner_kind \['tree'\] \(list\); accepted: text such as 'tree'$",
            {"p.py": _plugin("'list43'", "    learner_kind = ['tree']\n")}),
    CliCase("board-plugin-tree-params-a-number", PLUGIN_BOARD,
            r"declares tree_params 5; accepted: None or a tuple of tree parameter names$",
            {"p.py": _plugin("'tp43'", "    tree_params = 5\n")}),
    CliCase("board-too-many-folds-for-a-dataset", ("leaderboard", "--datasets", "iris", "--criteria", "entropy",
                                                   "--folds", "200", "--out", "board", "--dry-run"),
            r"^error: --folds 200: dataset 'iris': cannot make 200 folds of 150 rows; accepted: 2 <= folds <= 150 "
            r"\(or leave the dataset out of --suite/--datasets\)$"),
    # reproduce outside the checkout: the folder is wrong, the paper does have a config
    CliCase("reproduce-from-another-folder", ("reproduce", "tsallis", "--no-run"),
            r"^error: tsallis's config 'configs/tsallis\.yaml' is not in this folder \(.*\), nor any paper's; "
            r"accepted: run it from the folder holding configs/ \(the repository's root\)$"),
    # an OpenML id's form in --suite FILE or --datasets: named there
    CliCase("suite-file-openml-id-not-a-number", ("leaderboard", "--suite", "s.txt", "--criteria", "entropy",
                                                   "--out", "board", "--dry-run"),
            r"^error: --suite s\.txt: 'openml:abc': 'abc' is not an OpenML dataset id; accepted: openml:ID; "
            r"openml-task:ID \(ID a positive integer\)$", {"s.txt": "iris\nopenml:abc\n"}),
    CliCase("datasets-openml-task-id-a-fraction", ("leaderboard", "--datasets", "openml-task:1.5", "--criteria",
                                                   "entropy", "--out", "board", "--dry-run"),
            r"^error: --datasets: 'openml-task:1\.5': '1\.5' is not an OpenML task id; accepted: openml:ID; "
            r"openml-task:ID \(ID a positive integer\)$"),
    CliCase("suite-file-openml-id-without-card", ("leaderboard", "--suite", "s.txt", "--criteria", "entropy",
                                                  "--out", "board", "--dry-run"),
            r"^error: the board's dataset 'openml:424242' \(from --suite or --datasets\): no dataset card names "
            r"OpenML dataset 424242; write one with `treebench datasets add openml:424242`",
            {"s.txt": "iris\nopenml:424242\n"}),
]


@pytest.fixture
def own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The criteria registry as it was before the case: a case's plugin criteria (bad names included) must
    not join the boards of later tests in this process."""
    from treebench.criteria import plugins, registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(plugins, "_ADDED", dict(plugins._ADDED))


@pytest.mark.parametrize("case", ORIGIN_CASES, ids=[c.id for c in ORIGIN_CASES])
def test_a_refusal_names_what_the_user_wrote(case: CliCase, tmp_path: Path, capsys: pytest.CaptureFixture,
                                             monkeypatch: pytest.MonkeyPatch, own_registry: None) -> None:
    monkeypatch.setenv("TREEBENCH_OFFLINE", "1")
    run_cli_case(case, tmp_path, capsys)
    assert not (tmp_path / "board").exists()


def test_any_other_refusal_of_a_generated_row_is_put_to_its_criterion(tmp_path: Path) -> None:
    """The safety net behind the name checks: whatever else the validator refuses in a generated row is
    said of the row's criterion and where it was registered, without the generated file's line."""
    from treebench.errors import TreebenchError
    from treebench.leaderboard.plan import Group
    from treebench.leaderboard.run import _parse_generated

    text = ("experiment: leaderboard\nseed: 0\ndatasets: [iris]\nprotocol: {type: cv, folds: 2}\nalgorithms:\n"
            "  - {name: gini, criterion: gini}\n  - {name: entropy, criterion: entropy, params: {max_depth: -1}}\n")
    group = Group(tmp_path / "config-1.yaml", ("iris",), ("gini", "entropy"), text)
    with pytest.raises(TreebenchError) as info:
        _parse_generated(group)
    message = str(info.value)
    assert message.startswith("criterion 'entropy' (registered by module 'treebench.criteria.builtin.entropy'), whose board "
                              "row 'entropy' the config validator refuses: ") and "max_depth" in message
    assert "config-1.yaml" not in message and "\n" not in message


@pytest.mark.parametrize("case", INPUT_CASES, ids=[c.id for c in INPUT_CASES])
def test_inputs_say_what_is_wrong(case: CliCase, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run_cli_case(case, tmp_path, capsys)
    assert not (tmp_path / "board").exists() and not (tmp_path / "results").exists()


def test_board_datasets_without_a_mirror_do_not_call_the_suite_empty(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """--datasets names the datasets: without TREEBENCH_DATA a bundled one runs, and a missing one says it is
    missing (not "the bundled suite is empty")."""
    monkeypatch.delenv("TREEBENCH_DATA", raising=False)
    monkeypatch.setenv("TREEBENCH_OFFLINE", "1")
    monkeypatch.setenv("TREEBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert exit_code(["leaderboard", "--datasets", "iris", "--criteria", "entropy", "--folds", "2", "--out", "b",
                      "--dry-run"]) == 0
    capsys.readouterr()
    assert exit_code(["leaderboard", "--datasets", "abalone", "--criteria", "entropy", "--folds", "2", "--out", "c",
                      "--dry-run"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: dataset 'abalone' is not available") and "suite" not in err[0]
    assert not (tmp_path / "c").exists()


def test_a_suite_emptied_by_max_rows_says_so(tmp_path: Path, capsys: pytest.CaptureFixture,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """With the mirror set, --max-rows 5 leaves every copy out: the line names --max-rows, not TREEBENCH_DATA."""
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert exit_code(["leaderboard", "--criteria", "entropy", "--folds", "2", "--max-rows", "5", "--out", "b",
                      "--dry-run"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "have more than --max-rows 5 rows; accepted: a larger --max-rows (0: no limit)" in err[0]
    assert "TREEBENCH_DATA" not in err[0] and not (tmp_path / "b").exists()


def test_plot_draws_a_metric_of_predictions_from_the_kept_ones(mcnemar_store: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """plot --metric f1_macro: computed from the kept predictions, as compare does (it was "unknown metric")."""
    _copy_store(mcnemar_store / "mc.sqlite", tmp_path)
    monkeypatch.chdir(tmp_path)
    before = tree_digest(tmp_path)
    for kind in ("scores", "leaves"):
        capsys.readouterr()
        assert exit_code(["plot", kind, "store.sqlite", "--metric", "f1_macro", "--out", f"p/{kind}"]) == 0
        assert (tmp_path / "p" / f"{kind}.png").stat().st_size > 0, capsys.readouterr().err
    after = tree_digest(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith("p")} == before


def test_a_newline_label_of_an_older_store_cannot_break_a_table(mcnemar_store: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture) -> None:
    """A store written before labels were checked (or by hand): its label is escaped in every table."""
    _copy_store(mcnemar_store / "mc.sqlite", tmp_path)
    conn = sqlite3.connect(tmp_path / "store.sqlite")
    try:
        conn.execute("UPDATE trials SET dataset = 'ir\nis|x' WHERE dataset = 'iris'")
        conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    store = str(tmp_path / "store.sqlite")
    for args in (["compare", store], ["compare", store, "--test", "mcnemar"], ["compare", store, "--format", "latex"]):
        capsys.readouterr()
        assert exit_code(args) == 0, args
        out = capsys.readouterr().out
        assert "ir\nis" not in out, (args, out)
        assert ("ir\\textbackslash{}nis" if "latex" in args else "ir\\nis") in out, (args, out)
        if "latex" not in args:
            rows = [line for line in out.splitlines() if "ir\\nis" in line]
            assert rows and all(line.startswith("|") and line.endswith("|") for line in rows), rows
            assert all("ir\\nis\\|x" in line for line in rows), rows


def test_reproduce_all_names_a_junk_store_and_goes_on(workspace: Path, capsys: pytest.CaptureFixture,  # noqa: F811
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """One paper's unreadable store is that paper's problem: named in one line, the others reported."""
    from treebench.papers import reproduce as R

    monkeypatch.setattr(R, "PAPERS", {s.key: s for s in workspace_specs()})
    (workspace / "results" / "empty-store.sqlite").write_bytes(b"not a database at all\n")
    capsys.readouterr()
    code = exit_code(["reproduce", "--all", "--no-run", "--out-dir", "site"])
    out = capsys.readouterr()
    assert code == 1 and "Traceback" not in out.err
    assert ("error: empty: 'results/empty-store.sqlite' is not a treebench results store: not a SQLite file; the "
            "other papers go on") in out.err.splitlines(), out.err
    assert "toy: reported" in out.out, out.out
    page = (workspace / "site" / "index.html").read_text(encoding="utf-8")
    assert 'id="paper-toy"' in page and 'id="paper-empty"' in page
    assert (workspace / "results" / "empty-store.sqlite").read_bytes() == b"not a database at all\n"


@pytest.mark.parametrize("name", ["section.json", "verdicts.json"])
def test_a_kept_file_linked_to_a_device_is_named_as_such(name: str, tmp_path: Path) -> None:
    """A kept part or verdicts file that is a link to /dev/zero: "not a regular file", never read (it would
    never end) nor called empty."""
    from treebench.report.site import read_kept_json

    (tmp_path / name).symlink_to("/dev/zero")
    doc, problem = read_kept_json(tmp_path / name, "the kept part")
    assert doc is None and problem == f"the kept part {tmp_path / name} is not a regular file but a character device"


def test_a_device_in_place_of_a_kept_file_is_refused_as_an_output_place(good_site: Path,
                                                                        capsys: pytest.CaptureFixture) -> None:
    path = good_site / "toy" / "section.json"
    path.unlink()
    path.symlink_to("/dev/zero")
    before = tree_digest(good_site)
    capsys.readouterr()
    assert exit_code(["reproduce", "--all", "--no-run", "--out-dir", "site"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --out-dir 'site': 'site/toy/section.json' is not a regular file; accepted: a file path "
                   "in a writable folder"], err
    assert tree_digest(good_site) == before


def test_a_board_rerun_without_its_plugin_is_refused_and_says_to_bring_it(finished_board: Path, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin's rows are finished results too: dropping the --plugin would drop them from the page."""
    board = tmp_path / "board"
    shutil.copytree(finished_board, board)
    (tmp_path / "mine.py").write_text("from treebench.criteria import register\nfrom treebench.criteria.classic "
                                      "import Entropy\n\n\n@register\nclass Mine(Entropy):\n    name = 'mine43'\n",
                                      encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    args = ["leaderboard", "--datasets", "iris", "--criteria", "entropy", "--folds", "2", "--out", "board", "-q",
            "--jobs", "1"]
    assert exit_code([*args, "--plugin", "mine.py"]) == 0
    before = tree_digest(board)
    capsys.readouterr()
    assert exit_code(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --out 'board': this board's store holds finished trials of mine43, which --criteria "
                   "'entropy' leaves out, so its page would drop them; accepted: --criteria naming them too (e.g. "
                   "--criteria entropy,mine43 with the --plugin that registers mine43) to extend the board, or "
                   "another --out"], err
    assert tree_digest(board) == before
