"""Bad input, sixth pass (issue 43), group A: exported frames and ``compare``.

* S1: a frame lacking one of the columns that name a trial (``dataset``, ``algorithm``, ``protocol``,
  ``repeat``, ``fold``) is refused when loaded: without its split index a trial given twice passed for
  two and was averaged in.  Every export has them all.
* S5: one (dataset, algorithm) under two protocols -- two exports joined, a 3-fold CV and a holdout --
  is refused, in a frame and in a store read without its config (an entry's own protocol changed
  between runs); algorithms under different protocols (paper 001's CART) stay accepted.
* M2: a frame from a store holding two versions of an algorithm names the second trial as another
  version of the algorithm, not as the first "again"; ``results export CONFIG.yaml`` exports the
  config's current trials, the way out.
* S9: one table under two names in a config (a card and its OpenML id or alias) is refused whatever
  the protocols, so no across-dataset test counts it twice.

Each refusal: exit status 2, one line on stderr without traceback, the case folder unchanged.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from badinput import CliCase, cli_in, exit_code, run_cli_case, tree_digest

CONFIG = ("experiment: six\nseed: 0\ndatasets: [{first}, wine]\nprotocol: {protocol}\nalgorithms:\n"
          "  - {{name: a, criterion: entropy, params: {{max_depth: 3}}}}\n"
          "  - {{name: b, criterion: gini, {b}}}\nstore: {store}\n")
CV3 = "{type: cv, folds: 3, repeats: 1}"
HOLDOUT = "{type: holdout, test_size: 0.3, repeats: 1}"


def _config(folder: Path, name: str, *, store: str, protocol: str = CV3, first: str = "iris",
            b: str = "params: {max_depth: 3}") -> Path:
    path = folder / name
    path.write_text(CONFIG.format(first=first, protocol=protocol, b=b, store=store), encoding="utf-8")
    return path


def _run(config: Path) -> None:
    assert exit_code(["run", str(config), "--jobs", "1", "--quiet"]) == 0


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four small stores and their exports:

    * ``cv.sqlite`` (iris, wine x a, b; 3-fold CV) and ``cv.csv``;
    * ``ho.sqlite``, the same under a 0.3 holdout, and ``ho.csv``;
    * ``two.sqlite``: ``cv.sqlite`` after a second run whose ``b`` has other params (``two-v2.yaml``,
      the config as it is now), and ``two.csv`` its export;
    * ``own.sqlite``: iris under its own 3-fold protocol, then (``own-v2.yaml``) under 4 folds;
    * ``same.sqlite``: iris and wine, then (another valid config of the experiment) ``openml:61`` --
      the card iris -- under 4 folds, and ``same.csv`` its export.
    """
    folder = tmp_path_factory.mktemp("sixth-a")
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        _run(_config(folder, "cv.yaml", store="cv.sqlite"))
        _run(_config(folder, "ho.yaml", store="ho.sqlite", protocol=HOLDOUT))
        shutil.copy(folder / "cv.sqlite", folder / "two.sqlite")
        _run(_config(folder, "two-v2.yaml", store="two.sqlite", b="params: {max_depth: 1}"))
        own = "{name: iris, protocol: {type: cv, folds: %d, repeats: 1}}"
        _run(_config(folder, "own-v1.yaml", store="own.sqlite", first=own % 3))
        _run(_config(folder, "own-v2.yaml", store="own.sqlite", first=own % 4))
        _run(_config(folder, "same-v1.yaml", store="same.sqlite"))
        _run(_config(folder, "same-v2.yaml", store="same.sqlite",
                     first="{name: 'openml:61', protocol: {type: cv, folds: 4, repeats: 1}}"))
        for store in ("cv", "ho", "two", "same"):
            assert exit_code(["results", "export", f"{store}.sqlite", "--out", f"{store}.csv"]) == 0
    finally:
        os.chdir(cwd)
    return folder


def _frame(stores: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(stores / name, keep_default_na=False, dtype=str)


def _csv(frame: pd.DataFrame) -> dict[str, bytes]:
    """The case file ``frame.csv`` holding ``frame``."""
    return {"frame.csv": frame.to_csv(index=False).encode()}


COMMANDS = {"compare": ("compare", "frame.csv"), "plot": ("plot", "scores", "frame.csv", "--out", "out/s")}


def _refused(case: CliCase, folder: Path, capsys: pytest.CaptureFixture) -> None:
    """``case`` refused in one line, and the folder exactly as it was (nothing written)."""
    for name, content in case.files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            (folder / name).write_bytes(content)
        else:
            (folder / name).write_text(content, encoding="utf-8")
    before = tree_digest(folder)
    run_cli_case(CliCase(case.id, case.args, case.message, {}, case.code), folder, capsys)
    assert tree_digest(folder) == before


# --------------------------------------------------------------------------- S1: a column naming a trial missing
@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("column", ["repeat", "fold", "protocol", "dataset", "algorithm"])
def test_a_frame_lacking_a_column_that_names_a_trial_is_refused(column: str, command: str, stores: Path,
                                                                 tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    frame = _frame(stores, "cv.csv")
    frame = pd.concat([frame, frame.iloc[[0]]], ignore_index=True).drop(columns=[column])  # a trial given twice
    message = (rf"^error: results frame 'frame\.csv' lacks the column\(s\) {column}, without which its rows are no "
               r"trials \(a trial given twice would pass for two\); accepted: a frame with the columns dataset, "
               r"algorithm, protocol, repeat, fold, as `treebench results export` writes it$")
    _refused(CliCase(f"no-{column}", COMMANDS[command], message, _csv(frame)), tmp_path, capsys)


def test_a_frame_lacking_both_split_columns_names_both(stores: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    """Was refused only by the paired tests ("paired tests need them"), after the table was computed."""
    frame = _frame(stores, "cv.csv").drop(columns=["repeat", "fold"])
    _refused(CliCase("no-repeat-no-fold", ("compare", "frame.csv", "--test", "friedman"),
                     r"^error: results frame 'frame\.csv' lacks the column\(s\) repeat, fold, without which",
                     _csv(frame)), tmp_path, capsys)


# --------------------------------------------------------------------------- S5: one cell, two protocols
def _joined(stores: Path, keep: dict[str, tuple[str, ...]]) -> pd.DataFrame:
    """The CV and holdout exports joined, each limited to the algorithms ``keep`` names for it."""
    parts = [_frame(stores, f"{name}.csv") for name in keep]
    return pd.concat([p[p["algorithm"].isin(keep[n])] for p, n in zip(parts, keep, strict=True)], ignore_index=True)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_two_exports_of_other_protocols_joined_in_one_cell_are_refused(command: str, stores: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture) -> None:
    frame = _joined(stores, {"cv": ("a", "b"), "ho": ("a", "b")})
    message = (r"^error: results frame 'frame\.csv', row 13 \(line 14\) \(iris / a\) is under protocol "
               r"holdout0\.3x1, row 1 of the same dataset and algorithm under cv3x1: a table would average the two "
               r"protocols into one cell and test them as one; accepted: one protocol per \(dataset, algorithm\), "
               r"as a store of one config holds \(exports of other protocols joined only for other algorithms or "
               r"datasets\)$")
    _refused(CliCase("joined-protocols", COMMANDS[command], message, _csv(frame)), tmp_path, capsys)


def test_one_joined_cell_is_enough_to_be_refused(stores: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The holdout trial of one cell only (wine / b) among the CV trials: named by its own row."""
    cv, ho = _frame(stores, "cv.csv"), _frame(stores, "ho.csv")
    frame = pd.concat([cv, ho[(ho["dataset"] == "wine") & (ho["algorithm"] == "b")]], ignore_index=True)
    _refused(CliCase("one-joined-cell", ("compare", "frame.parquet"),
                     r"^error: results frame 'frame\.parquet', row 13 \(wine / b\) is under protocol holdout0\.3x1, "
                     r"row 10 of the same dataset and algorithm under cv3x1",
                     {"frame.parquet": _parquet(frame)}), tmp_path, capsys)


def _parquet(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def test_algorithms_under_different_protocols_stay_accepted(stores: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture) -> None:
    """Control (paper 001's CART under 25-fold CV beside leave-one-out): a under CV, b under holdout."""
    _joined(stores, {"cv": ("a",), "ho": ("b",)}).to_csv(tmp_path / "frame.csv", index=False)
    code, out, err = cli_in(tmp_path, capsys, "compare", "frame.csv")
    assert code == 0, err
    assert "| iris |" in out and "| wine |" in out


def test_a_store_holding_one_cell_under_two_protocols_is_refused(stores: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture) -> None:
    """An entry's own protocol changed between two runs: the store holds both, a table averaged them."""
    shutil.copy(stores / "own.sqlite", tmp_path / "own.sqlite")
    message = (r"^error: store 'own\.sqlite' holds finished trials of a on iris under 2 protocols \(cv3x1, cv4x1\), "
               r"in the cells iris / a, iris / b: trials of an earlier version of its config or of a plugin, which a "
               r"table would average in; accepted: a store with one trial per split and one protocol per dataset "
               r"and algorithm, or its config")
    for args in (("compare", "own.sqlite"), ("results", "show", "own.sqlite"),
                 ("plot", "scores", "own.sqlite", "--out", "out/s")):
        _refused(CliCase("store-two-protocols", args, message), tmp_path, capsys)


def test_the_config_of_a_store_holding_two_protocols_reads_its_own(stores: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture) -> None:
    """Control: the config as it is now (iris under 4 folds) is compared on its own trials."""
    for name in ("own.sqlite", "own-v2.yaml"):
        shutil.copy(stores / name, tmp_path / name)
    code, out, err = cli_in(tmp_path, capsys, "results", "export", "own-v2.yaml", "--out", "own.csv")
    assert code == 0, err
    frame = pd.read_csv(tmp_path / "own.csv")
    assert set(frame.loc[frame["dataset"] == "iris", "protocol"]) == {"cv4x1"} and len(frame) == 2 * (4 + 3)
    code, out, err = cli_in(tmp_path, capsys, "compare", "own.csv")
    assert code == 0, err


# --------------------------------------------------------------------------- M2: two versions of an algorithm
def test_an_export_holding_two_versions_of_an_algorithm_says_so(stores: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    frame = _frame(stores, "two.csv")
    message = (r"^error: results frame 'frame\.csv', row \d+ \(line \d+\) \(iris / b\) is another trial of the "
               r"split of row \d+ \(dataset iris, algorithm b, protocol cv3x1, repeat 0, fold 0; other params "
               r"\{\"max_depth\": [13]\} / \{\"max_depth\": [13]\}\): two versions of one algorithm, as a store "
               r"holds after its config or a plugin changed between runs, which a table would average; accepted: "
               r"one trial per split, e.g. the config's current trials \(`treebench results export CONFIG\.yaml`, "
               r"or `treebench compare CONFIG\.yaml`\)$")
    _refused(CliCase("two-versions", ("compare", "frame.csv"), message, _csv(frame)), tmp_path, capsys)


def test_a_trial_given_twice_is_still_the_trial_again(stores: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture) -> None:
    """The same trial key twice is one trial twice (an edit), and said so."""
    frame = _frame(stores, "cv.csv")
    frame = pd.concat([frame, frame.iloc[[4]]], ignore_index=True)
    _refused(CliCase("same-key-twice", ("compare", "frame.csv"),
                     r"^error: results frame 'frame\.csv', row 13 \(line 14\) \(iris / b\) is the trial of row 5 again "
                     r"\(dataset iris, algorithm b, protocol cv3x1, repeat 0, fold 1\); accepted: one row per",
                     _csv(frame)), tmp_path, capsys)


def test_results_export_of_a_config_exports_its_current_trials(stores: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture) -> None:
    """The way out the message names: the config's 12 current trials of the store's 18, which compare reads."""
    for name in ("two.sqlite", "two-v2.yaml"):
        shutil.copy(stores / name, tmp_path / name)
    code, out, err = cli_in(tmp_path, capsys, "results", "export", "two-v2.yaml")
    assert code == 0, err
    assert out.strip() == "wrote 12 trials to two-v2.csv"  # named after the config, not the whole store
    frame = pd.read_csv(tmp_path / "two-v2.csv")
    assert len(pd.read_csv(stores / "two.csv")) == 18
    assert set(frame.loc[frame["algorithm"] == "b", "params"]) == {'{"max_depth": 1}'}
    code, out, err = cli_in(tmp_path, capsys, "compare", "two-v2.csv")
    assert code == 0, err


EXPORT_CASES = [
    CliCase("export-config-missing", ("results", "export", "gone.yaml"),
            r"^error: config 'gone\.yaml' does not exist or is no file; accepted: an experiment config \(\.yaml\) or "
            r"a results store file \(\.sqlite\)$"),
    CliCase("export-config-a-folder", ("results", "export", "d.yaml"),
            r"^error: config 'd\.yaml' does not exist or is no file", {"d.yaml/x": "x"}),
    CliCase("export-config-without-results", ("results", "export", "c.yaml"),
            r"^error: no results yet for c\.yaml: none\.sqlite does not exist \(run `treebench run c\.yaml`\)$",
            {"c.yaml": CONFIG.format(first="iris", protocol=CV3, b="params: {}", store="none.sqlite")}),
]


@pytest.mark.parametrize("case", EXPORT_CASES, ids=[c.id for c in EXPORT_CASES])
def test_results_export_of_a_bad_config_is_refused(case: CliCase, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    _refused(case, tmp_path, capsys)


# --------------------------------------------------------------------------- S9: one table, two names, two protocols
TWO_NAMES = ("experiment: d\nseed: 0\ndatasets: [{first}, {{name: {other}, protocol: {{type: cv, folds: 4}}}}]\n"
             "protocol: {{type: cv, folds: 3, repeats: 1}}\nalgorithms:\n  - {{name: a, criterion: entropy}}\n")
OTHER_PROTOCOL = (r"\) under protocol cv4x1 beside cv3x1: every across-dataset test \(ranks, Friedman, Wilcoxon, plot "
                  r"cd\) would count it twice; accepted: each table once per config \(run another protocol from a "
                  r"config of its own\)$")
S9_CASES = [
    CliCase("run-card-and-openml-id", ("run", "c.yaml", "--dry-run"),
            r"^error: c\.yaml:3: datasets\[1\]: dataset 'openml:61' is the same table as 'iris' \(card 'iris'"
            + OTHER_PROTOCOL, {"c.yaml": TWO_NAMES.format(first="iris", other="'openml:61'")}),
    CliCase("run-card-and-alias", ("run", "c.yaml", "--dry-run"),
            r"^error: c\.yaml:3: datasets\[1\]: dataset 'breast-cancer' is the same table as 'wdbc' \(card 'wdbc'"
            + OTHER_PROTOCOL, {"c.yaml": TWO_NAMES.format(first="wdbc", other="breast-cancer")}),
    CliCase("compare-friedman", ("compare", "c.yaml", "--test", "friedman"),
            r"^error: c\.yaml:3: datasets\[1\]: dataset 'openml:61' is the same table as 'iris' \(card 'iris'" + OTHER_PROTOCOL,
            {"c.yaml": TWO_NAMES.format(first="iris", other="'openml:61'")}),
    CliCase("plot-cd", ("plot", "cd", "c.yaml", "--out", "out/cd"),
            r"^error: c\.yaml:3: datasets\[1\]: dataset 'openml:61' is the same table as 'iris' \(card 'iris'" + OTHER_PROTOCOL,
            {"c.yaml": TWO_NAMES.format(first="iris", other="'openml:61'")}),
]


@pytest.mark.parametrize("case", S9_CASES, ids=[c.id for c in S9_CASES])
def test_one_table_under_two_names_and_protocols_is_refused(case: CliCase, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture) -> None:
    _refused(case, tmp_path, capsys)


def test_two_tables_under_two_protocols_stay_accepted(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Control: other tables may have protocols of their own."""
    (tmp_path / "c.yaml").write_text(TWO_NAMES.format(first="iris", other="wine"), encoding="utf-8")
    code, out, err = cli_in(tmp_path, capsys, "run", "c.yaml", "--dry-run")
    assert code == 0, err


ONE_TABLE = (r"^error: datasets 'iris' and 'openml:61' are one table \(the same content, dataset checksum [0-9a-f]{12}\): "
             r"the wins and every across-dataset test would count it twice; accepted: each table under one name "
             r"\(choose one of them with --datasets\)$")
SAME_CASES = [
    CliCase("compare-store", ("compare", "same.sqlite"), ONE_TABLE),
    CliCase("compare-store-friedman", ("compare", "same.sqlite", "--test", "friedman"), ONE_TABLE),
    CliCase("compare-export-wilcoxon", ("compare", "same.csv", "--test", "wilcoxon"), ONE_TABLE),
    CliCase("plot-cd-store", ("plot", "cd", "same.sqlite", "--out", "out/cd"), ONE_TABLE),
    CliCase("plot-scores-store", ("plot", "scores", "same.sqlite", "--out", "out/s"), ONE_TABLE),
]


@pytest.mark.parametrize("case", SAME_CASES, ids=[c.id for c in SAME_CASES])
def test_a_store_holding_one_table_under_two_names_is_refused(case: CliCase, stores: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture) -> None:
    """Two valid configs of one experiment (iris; then openml:61 under 4 folds) fill one store with both."""
    for name in ("same.sqlite", "same.csv"):
        shutil.copy(stores / name, tmp_path / name)
    _refused(case, tmp_path, capsys)


def test_one_name_of_the_table_chosen_is_compared(stores: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Control: the way out the message names, --datasets with one of the two names."""
    shutil.copy(stores / "same.sqlite", tmp_path / "same.sqlite")
    code, out, err = cli_in(tmp_path, capsys, "compare", "same.sqlite", "--test", "friedman", "--datasets", "iris,wine")
    assert code == 0, err
